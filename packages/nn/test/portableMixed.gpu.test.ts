// precision 'mixed' on the portable path ('shader-f16', no subgroup matrices: browsers today). The GPT, MLP and CNN
// training steps and an inference graph compile with f16 storage by default: f16 buffers, the fp32 tiled matmuls
// reading them (f32 accumulation), no subgroup-matrix code, every shader accepted by Dawn. The adapter is Dawn's null
// backend, which offers 'shader-f16' (and no subgroup matrices without allow_unsafe_apis) and validates every shader
// and pipeline but computes nothing: this file checks plans and WGSL, never values. The numbers need a GPU with
// 'shader-f16' (CI's software adapters have none): apps/bench/src/mixedPortableCheck.ts compares them with the
// interpreter on an H100.
import { createRequire } from 'node:module';
import { Graph } from '@neura/ir';
import { compileInference, compileTraining, GPT, LeNet5, mlp, SmallResNet } from '@neura/nn';
import { adamW, sgd } from '@neura/optim';
import { createDevice, mixedPath, type NeuraDevice, PrecisionError, SUBGROUP_MATRIX_FEATURE } from '@neura/runtime-webgpu';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

// Dawn from the runtime's own dependency (nn does not depend on the 'webgpu' package)
const dawn = createRequire(new URL('../../runtime-webgpu/package.json', import.meta.url))('webgpu') as { create: (o: string[]) => GPU; globals: object };
Object.assign(globalThis, dawn.globals);
const device: NeuraDevice = await createDevice({ gpu: dawn.create(['backend=null']) });
afterAll(() => device.destroy());

/** Every shader the device compiles (label and WGSL), observed at createShaderModule. */
const shaders: { label: string; code: string }[] = [];
const createShaderModule = device.gpu.createShaderModule.bind(device.gpu);
device.gpu.createShaderModule = (d: GPUShaderModuleDescriptor) => {
  shaders.push({ label: d.label ?? '', code: d.code });
  return createShaderModule(d);
};
beforeEach(() => {
  shaders.length = 0;
});

/** What the compiled step's shaders say about f16 storage and subgroup matrices. */
function f16Summary() {
  const f16 = shaders.filter((s) => /array<(vec[234]<)?f16>/.test(s.code));
  const matmuls = shaders.filter((s) => /matmul/i.test(s.label));
  return {
    shaders: shaders.length,
    f16: f16.length,
    subgroupMatrix: shaders.filter((s) => /subgroup_matrix|subgroupMatrix/.test(s.code)).map((s) => s.label),
    // f16 operands: stored as f16, or f32 in memory rounded to f16 as the kernel loads them (an autocast cast folded in)
    matmulsWithF16: matmuls.filter((s) => f16.includes(s) || /(vec4<f16>|f16)\([ab]\[/.test(s.code)).length,
    matmuls: matmuls.length,
  };
}

describe("precision: 'mixed' on an adapter with 'shader-f16' and no subgroup matrices", () => {
  it('is this adapter: the portable path', () => {
    expect(device.features.has('shader-f16')).toBe(true);
    expect(device.features.has(SUBGROUP_MATRIX_FEATURE)).toBe(false);
    expect(mixedPath(device)).toBe('portable');
  });

  it('compiles the GPT step with f16 activations read by the fp32 tiled matmuls, no subgroup-matrix code', async () => {
    const { graph, loss } = new GPT({ layers: 2, heads: 4, width: 128, context: 64, vocab: 65, attention: 'op' }).trainingGraph(16);
    const train = await compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-3 }), device, precision: 'mixed' });
    const s = f16Summary();
    train.dispose();
    expect(train.graph.nodes.some((n) => n.dtype === 'f16')).toBe(true);
    expect(s.subgroupMatrix).toEqual([]);
    expect(s.matmuls).toBeGreaterThan(0);
    expect(s.matmulsWithF16).toBe(s.matmuls);
    expect(s.f16).toBeGreaterThan(s.matmuls);
  });

  it('compiles an MLP step (SGD) and a CNN step (ResNet-8, LeNet-5) the same way', async () => {
    for (const build of [
      () => {
        const g = new Graph();
        return { g, loss: g.crossEntropy(mlp([784, 128, 10]).forward(g, g.input('x', [32, 784])), g.input('labels', [32], 'i32')) };
      },
      () => {
        const g = new Graph();
        return { g, loss: g.crossEntropy(new SmallResNet().forward(g, g.input('x', [8, 1, 28, 28])), g.input('labels', [8], 'i32')) };
      },
      () => {
        const g = new Graph();
        return { g, loss: g.crossEntropy(new LeNet5().forward(g, g.input('x', [8, 1, 28, 28])), g.input('labels', [8], 'i32')) };
      },
    ]) {
      shaders.length = 0;
      const { g, loss } = build();
      const train = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.01, momentum: 0.9 }), device, precision: 'mixed' });
      const s = f16Summary();
      train.dispose();
      expect(train.graph.nodes.some((n) => n.dtype === 'f16')).toBe(true);
      expect(s.subgroupMatrix).toEqual([]);
      expect(s.f16).toBeGreaterThan(0);
    }
  });

  it('compiles inference with f16 storage and f32 outputs', async () => {
    const g = new Graph();
    const logits = mlp([784, 128, 10]).forward(g, g.input('x', [32, 784]));
    const inf = await compileInference(g, { outputs: { logits }, device, precision: 'mixed' });
    const s = f16Summary();
    expect(inf.graph.nodes.some((n) => n.dtype === 'f16')).toBe(true);
    expect(inf.graph.get(inf.graph.outputs.get('logits') as number).dtype).toBe('f32');
    expect(s.subgroupMatrix).toEqual([]);
    expect(s.matmulsWithF16).toBe(s.matmuls);
    inf.dispose();
  });

  it('refuses autocast: false here (it would be an fp32 step), naming the portable path', async () => {
    const { graph, loss } = new GPT({ layers: 1, heads: 2, width: 32, context: 8, vocab: 11, attention: 'op' }).trainingGraph(2);
    const err = await compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-3 }), device, precision: 'mixed', autocast: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrecisionError);
    expect((err as Error).message).toMatch(/autocast: false .* portable path/);
  });
});

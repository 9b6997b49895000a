// `precision: 'mixed'` through compileTraining / compileInference. Where the adapter has tensor-core matmuls
// (createDevice({ mixedPrecision: true }) on e.g. an NVIDIA GPU through Dawn's Vulkan backend), a small GPT trains
// under it: its first loss is close to the fp32 step's (same weights and batch; f16 operands, so not equal) and the
// loss falls over steps. Where the adapter lacks 'shader-f16' (CI's software adapters) asking for it is a
// PrecisionError before any work. The portable path (f16 storage, no subgroup matrices) is portableMixed.gpu.test.ts.
import { tensor, type TensorValue } from '@neura/ir';
import { compileInference, compileTraining, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, mixedPath, type NeuraDevice, PrecisionError, supportsPrecision } from '@neura/runtime-webgpu';
import { afterAll, describe, expect, it } from 'vitest';

// at module level: `skipIf` reads it while the tests are collected
const device: NeuraDevice = await createDevice({ mixedPrecision: true });
const tensorCores = supportsPrecision(device, 'mixed') && mixedPath(device) === 'tensor-cores';
const shaderF16 = device.features.has('shader-f16');
afterAll(() => device.destroy());

const config = { layers: 1, heads: 2, width: 64, context: 32, vocab: 11, attention: 'op' } as const;
const batch = 8;
const feeds = (): Record<string, TensorValue> => {
  const n = batch * config.context;
  return {
    tokens: tensor([batch, config.context], Array.from({ length: n }, (_, i) => (i * 5 + 1) % config.vocab), 'i32'),
    targets: tensor([batch, config.context], Array.from({ length: n }, (_, i) => (i * 3 + 2) % config.vocab), 'i32'),
  };
};

describe("precision: 'mixed' in @neura/nn", () => {
  it.skipIf(shaderF16)("is a PrecisionError naming 'shader-f16' on an adapter without it (CI's software adapters)", async () => {
    const { graph, loss } = new GPT(config).trainingGraph(batch);
    await expect(compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-3 }), device, precision: 'mixed' })).rejects.toThrow(PrecisionError);
    await expect(compileInference(graph, { outputs: { loss }, device, precision: 'mixed' })).rejects.toThrow(/lacks 'shader-f16'/);
  });

  it("refuses autocast: true under precision 'fp32' (f16 storage is part of 'mixed')", async () => {
    const { graph, loss } = new GPT(config).trainingGraph(batch);
    await expect(compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-3 }), device, autocast: true })).rejects.toThrow(/autocast: true stores activations as f16, which is part of precision 'mixed'/);
    await expect(compileInference(graph, { outputs: { loss }, device, autocast: true })).rejects.toThrow(PrecisionError);
  });

  it.skipIf(!tensorCores)('trains a small GPT: first loss close to fp32, falling over steps', async () => {
    const run = async (precision: 'fp32' | 'mixed') => {
      const { graph, loss } = new GPT(config).trainingGraph(batch);
      const train = await compileTraining(graph, { loss, optimizer: adamW({ lr: 3e-3 }), device, precision });
      const losses: number[] = [];
      for (let i = 0; i < 10; i++) losses.push((await train.step(feeds(), { readLoss: true })) as number);
      train.dispose();
      return losses;
    };
    const fp32 = await run('fp32');
    const mixed = await run('mixed');
    expect(mixed[0]).toBeCloseTo(fp32[0], 2);
    expect(mixed[9]).toBeLessThan(mixed[0] * 0.9);
    expect(Math.abs(mixed[9] - fp32[9])).toBeLessThan(0.05 * fp32[9]);
  });
});

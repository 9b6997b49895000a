// f16 tensors on a real adapter. Without kernels, an f16 feed goes up as 16-bit halves and comes back decoded
// (every adapter). Kernels that store f16 need `shader-f16`: where the adapter has it, a fused chain with casts, an
// f16 reduction and an f16 matmul match the interpreter on the same graph; where it lacks it (CI's llvmpipe and
// SwiftShader), those cases are skipped and compiling such a graph is a KernelError naming the feature.
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, createDevice, type NeuraDevice } from '../src/index.js';
import { randoms } from './graphs.js';

const device: NeuraDevice = await createDevice();
const shaderF16 = device.caps.shaderF16;
if (!shaderF16) console.warn(`f16Storage.gpu.test: adapter ${device.name} lacks 'shader-f16': the f16 kernel cases are skipped`);
afterAll(() => device.destroy());

describe('f16 tensors on the device', () => {
  it('uploads an f16 feed of odd length as halves and reads it back rounded as torch .half() rounds', async () => {
    const g = new Graph();
    g.output('x', g.input('x', [5], 'f16'));
    const s = await compile(g, device, { label: 'f16-roundtrip' });
    const out = (await s.step({ x: new Float32Array([0.1, -1 / 3, 65519, 1e5, 2 ** -25]) }, { read: ['x'] })).outputs.x;
    s.dispose();
    expect(out.dtype).toBe('f16');
    // torch.tensor([0.1, -1/3, 65519, 1e5, 2**-25]).half()
    expect(Array.from(out.data)).toEqual([0.0999755859375, -0.333251953125, 65504, Infinity, 0]);
  });

  it.skipIf(shaderF16)('refuses an f16 kernel on an adapter without shader-f16, naming the feature', async () => {
    const g = new Graph();
    g.output('y', g.exp(g.input('x', [4], 'f16')));
    await expect(compile(g, device, { label: 'f16-no-feature' })).rejects.toThrow(/exp has f16 tensors, which need the 'shader-f16' feature; the device lacks it/);
  });

  it.skipIf(!shaderF16)('computes f16 pointwise chains, reductions and matmuls as the interpreter does on the same graph', async () => {
    const g = new Graph();
    const x = g.input('x', [37, 24]);
    const w = g.input('w', [24, 40]);
    const h = g.gelu(g.cast(x, 'f16'), { approximate: 'tanh' });
    g.output('h', h);
    g.output('rows', g.sum(h, [1]));
    g.output('y', g.cast(g.matmul(h, g.cast(w, 'f16')), 'f32'));
    const feeds: Record<string, TensorValue> = { x: tensor([37, 24], randoms(37 * 24, 1)), w: tensor([24, 40], randoms(24 * 40, 2)) };
    const want = interpret(g, feeds, {}, 'f32').outputs;
    const s = await compile(g, device, { label: 'f16-kernels' });
    const got = (await s.step(feeds, { read: ['h', 'rows', 'y'] })).outputs;
    s.dispose();
    for (const k of ['h', 'rows', 'y']) {
      expect(got[k].dtype, k).toBe(want[k].dtype);
      const scale = Math.max(...Array.from(want[k].data, Math.abs));
      for (let i = 0; i < want[k].data.length; i++) expect(Math.abs(got[k].data[i] - want[k].data[i]), `${k}[${i}]`).toBeLessThanOrEqual(scale * 2 ** -9);
    }
  });
});

// The Q8_0 weight-only matmul (both kernels: a few rows, and the tiled one) against the reference interpreter
// (float32) on a real WebGPU device: K a multiple of 32 and not (the last block zero-padded), odd N and M, leading
// batch axes, and an all-zero block (scale 0).
import { describe, expect, it } from 'vitest';
import { generateKernel, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { Graph, interpret, mulberry32, numel, quantizeQ8_0, type Shape, tensor } from '@neura/ir';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';
import { Q8_GEMV_MAX_ROWS } from '../src/matmulQ8.js';

await loadKernels(['matmulQ8']); // the quantized group loads on demand (lazyKernels.ts)

let seed = 11;
const random = (shape: Shape) => {
  const r = mulberry32(seed++);
  return tensor(shape, Array.from({ length: numel(shape) }, () => 4 * r() - 2));
};

async function check(x: Shape, n: number, zeroBlock = false) {
  const k = x[x.length - 1];
  const w = random([k, n]);
  if (zeroBlock) for (let j = 0; j < Math.min(k, 32); j++) w.data[j * n] = 0;
  const { q, d } = quantizeQ8_0(w);
  const g = new Graph();
  const y = g.matmulQ8(g.input('x', x), g.input('q', q.shape, 'i32'), g.input('d', d.shape, 'i32'));
  g.output('y', y);
  const feeds = { x: random(x), q, d };
  const want = interpret(g, feeds, {}, 'f32').outputs.y;
  const spec: KernelSpec = { node: y, inputs: [feeds.x, q, d].map((t) => ({ shape: t.shape, dtype: t.dtype })) };
  const plan = generateKernel(spec, await testCaps());
  const got = new Float32Array(await runPlan(plan, [feeds.x.data, q.data, d.data], numel(y.shape) * 4));
  expect(got.length).toBe(want.data.length);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want.data[i]) / (1 + Math.abs(want.data[i])));
  expect(worst).toBeLessThan(1e-5);
  return plan;
}

describe('matmulQ8 kernels on a real device (vs the interpreter)', () => {
  it('one row (a decode step), K = 64, N = 37', async () => {
    const plan = await check([1, 64], 37);
    expect(plan.dispatches[0].code).toContain('8 threads per output column');
  });
  it('three rows in a batch axis, K = 45 (one padded block), N = 10, an all-zero block', async () => {
    await check([3, 1, 45], 10, true);
  });
  it(`${Q8_GEMV_MAX_ROWS} rows, K = 96, N = 9`, async () => {
    await check([Q8_GEMV_MAX_ROWS, 96], 9);
  });
  it('the tiled kernel: M = 37 in 2 batches, K = 70, N = 67 (partial tiles everywhere), and K = 128, N = 130', async () => {
    const plan = await check([2, 37, 70], 67, true);
    expect(plan.dispatches[0].code).toContain('tiled 16x64');
    await check([19, 128], 130);
  });
});

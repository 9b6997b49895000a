// The Q4_0 weight-only matmul (both kernels: a few rows, and the tiled one) against the reference interpreter
// (float32) on a real WebGPU device: an odd number of blocks (K = 96: the last scale alone in its word), K not a
// multiple of 32 (padded), N not a multiple of 4, weights quantized from [K, N] and from [N, K] (transposed), M = 1
// and M > 1, leading batch axes, and an all-zero block (scale −0).
import { describe, expect, it } from 'vitest';
import { generateKernel, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { Graph, interpret, mulberry32, numel, quantizeQ4_0, type Shape, tensor } from '@neura/ir';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';
import { Q8_GEMV_MAX_ROWS } from '../src/matmulQ8.js';

await loadKernels(['matmulQ4']); // the quantized group loads on demand (lazyKernels.ts)

let seed = 23;
const random = (shape: Shape) => {
  const r = mulberry32(seed++);
  return tensor(shape, Array.from({ length: numel(shape) }, () => 4 * r() - 2));
};

async function check(x: Shape, n: number, opts: { transposed?: boolean; zeroBlock?: boolean } = {}) {
  const k = x[x.length - 1];
  const w = random(opts.transposed ? [n, k] : [k, n]);
  if (opts.zeroBlock) for (let j = 0; j < Math.min(k, 32); j++) w.data[opts.transposed ? j : j * n] = 0; // column 0, block 0
  const { q, d } = quantizeQ4_0(w, { transposed: opts.transposed });
  const g = new Graph();
  const y = g.matmulQ4(g.input('x', x), g.input('q', q.shape, 'i32'), g.input('d', d.shape, 'i32'));
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

describe('matmulQ4 kernels on a real device (vs the interpreter)', () => {
  it('one row (a decode step), K = 96 (3 blocks), N = 37, from [K, N] and from [N, K]', async () => {
    const plan = await check([1, 96], 37);
    expect(plan.dispatches[0].code).toContain('8 threads per output column');
    await check([1, 96], 37, { transposed: true, zeroBlock: true });
  });
  it('three rows in a batch axis, K = 45 (one padded block), N = 10, an all-zero block', async () => {
    await check([3, 1, 45], 10, { zeroBlock: true });
  });
  it(`${Q8_GEMV_MAX_ROWS} rows, K = 288 (9 blocks: more than the 8 threads of a column), N = 9, transposed`, async () => {
    await check([Q8_GEMV_MAX_ROWS, 288], 9, { transposed: true });
  });
  it('the tiled kernel: M = 37 in 2 batches, K = 70, N = 67 (partial tiles everywhere), and K = 96, N = 130 transposed', async () => {
    const plan = await check([2, 37, 70], 67, { zeroBlock: true });
    expect(plan.dispatches[0].code).toContain('tiled 16x64');
    await check([19, 96], 130, { transposed: true, zeroBlock: true });
  });
});

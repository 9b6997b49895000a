// The Q4_0 weight-only matmul (both kernels: a few rows, and the tiled one) against the reference interpreter
// (float32) on a real WebGPU device: an odd number of blocks (K = 96: the last scale alone in its word), K not a
// multiple of 32 (padded), N not a multiple of 4, weights quantized from [K, N] and from [N, K] (transposed), M = 1
// and M > 1, leading batch axes, and an all-zero block (scale −0); with an epilogue (`expr`: bias, GELU, residual).
import { describe, expect, it } from 'vitest';
import { generateKernel, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { Graph, interpret, type PwExpr, type TensorValue, mulberry32, numel, quantizeQ4_0, type Shape, tensor } from '@neura/ir';
import { runPlan, testCaps } from '../../../tooling/test/gpu.js';
import { Q8_GEMV_MAX_ROWS } from '../src/matmulQ8.js';

await loadKernels(['matmulQ4']); // the quantized group loads on demand (lazyKernels.ts)

/** Epilogues of a Linear: its bias; the bias then GELU (an MLP's first layer); the bias then a residual add. */
type Epilogue = 'bias' | 'biasGelu' | 'residual';
const biased: PwExpr = { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } };
const EPILOGUES: Record<Epilogue, PwExpr> = { bias: biased, biasGelu: { op: 'geluTanh', a: biased }, residual: { op: 'add', a: { op: 'in', index: 2 }, b: biased } };

let seed = 23;
const random = (shape: Shape) => {
  const r = mulberry32(seed++);
  return tensor(shape, Array.from({ length: numel(shape) }, () => 4 * r() - 2));
};

async function check(x: Shape, n: number, opts: { transposed?: boolean; zeroBlock?: boolean; epilogue?: Epilogue } = {}) {
  const epilogue = opts.epilogue;
  const k = x[x.length - 1];
  const w = random(opts.transposed ? [n, k] : [k, n]);
  if (opts.zeroBlock) for (let j = 0; j < Math.min(k, 32); j++) w.data[opts.transposed ? j : j * n] = 0; // column 0, block 0
  const { q, d } = quantizeQ4_0(w, { transposed: opts.transposed });
  const g = new Graph();
  const outShape = [...x.slice(0, -1), n];
  // the epilogue's extra operands: a bias [N], and for a residual the product's shape
  const extras = epilogue ? [random([n]), ...(epilogue === 'residual' ? [random(outShape)] : [])] : [];
  const operands = [g.input('x', x), g.input('q', q.shape, 'i32'), g.input('d', d.shape, 'i32'), ...extras.map((e, i) => g.input(`e${i}`, e.shape))];
  const y = epilogue ? g.node('matmulQ4', operands, { expr: EPILOGUES[epilogue] }) : g.matmulQ4(operands[0], operands[1], operands[2]);
  g.output('y', y);
  const feeds: Record<string, TensorValue> = { x: random(x), q, d, ...Object.fromEntries(extras.map((e, i) => [`e${i}`, e])) };
  const want = interpret(g, feeds, {}, 'f32').outputs.y;
  const spec: KernelSpec = { node: y, inputs: [feeds.x, q, d, ...extras].map((t) => ({ shape: t.shape, dtype: t.dtype })) };
  const plan = generateKernel(spec, await testCaps());
  const got = new Float32Array(await runPlan(plan, [feeds.x.data, q.data, d.data, ...extras.map((e) => e.data as Float32Array)], numel(y.shape) * 4));
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
  it('with an epilogue: bias (one row, N = 37), bias then GELU (3 rows, K = 45), a residual add (tiled and one row, odd N)', async () => {
    const plan = await check([1, 96], 37, { epilogue: 'bias' });
    expect(plan.dispatches[0].code).toContain('epilogue (add $0 $1)');
    await check([3, 1, 45], 10, { zeroBlock: true, epilogue: 'biasGelu' });
    await check([2, 37, 70], 67, { transposed: true, epilogue: 'residual' });
    await check([1, 96], 9, { epilogue: 'residual' });
  });
});

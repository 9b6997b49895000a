// WGSL snapshots: the generated kernels of every GPU op at fixed small specs and the WebGPU default limits, one
// file per op under __snapshots__/wgsl/. A refactor of the generators must leave them byte-identical; a change
// that is meant must say so: regenerate with
//   pnpm exec vitest run --project unit -u packages/wgsl-kernels/src/wgslSnapshots.test.ts
// and review the diff. matmul, fusedMatmul, attention and attentionGrad are left out while their kernels are
// being rewritten for speed (their GPU tests check them against the interpreter).

import { type DType, Graph, type OpAttrs, type OpKind, type PwExpr, perBinaryOp, perUnaryOp, type Shape } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, type KernelPlan, type KernelSpec } from './kernel.js';
import { type GpuOp, generateKernel, KERNELS, loadKernels } from './registry.js';
// attention, conv/pool and indexing generators load on demand (lazyKernels.ts); these tests call them synchronously
await loadKernels(Object.keys(KERNELS) as OpKind[]);

type Case<K extends OpKind> = { shapes: Shape[]; attrs: OpAttrs[K]; dtypes?: DType[] };
const c = <K extends OpKind>(shapes: Shape[], attrs: OpAttrs[K], dtypes?: DType[]): Case<K> => ({ shapes, attrs, dtypes });
const E: Record<string, never> = {};
const x0: PwExpr = { op: 'in', index: 0 };
const x1: PwExpr = { op: 'in', index: 1 };
const conv: OpAttrs['conv2d'] = { stride: [1, 1], padding: [1, 1], dilation: [1, 1], groups: 1 };
const pool: OpAttrs['maxPool2d'] = { kernel: [2, 2], stride: [2, 2], padding: [0, 0], dilation: [1, 1], ceilMode: false };

/** One spec per GPU op (the type checker lists a missing one); `skip` for kernels owned by another change. */
const CASES: { readonly [K in GpuOp]: Case<K> | 'skip' } = {
  ...perUnaryOp(() => ({ shapes: [[3, 5]], attrs: E })),
  ...perBinaryOp(() => ({ shapes: [[3, 5], [5]], attrs: E })),
  where: c([[3, 5], [3, 5], [5]], E, ['bool', 'f32', 'f32']),
  cast: c<'cast'>([[7]], { to: 'i32' }),
  sum: c<'sum'>([[4, 6]], { axes: [1], keepdims: false }),
  mean: c<'mean'>([[4, 6]], { axes: [0], keepdims: true }),
  reduceMax: c<'reduceMax'>([[4, 6]], { axes: [1], keepdims: false }),
  reduceMin: c<'reduceMin'>([[4, 6]], { axes: [0, 1], keepdims: false }),
  argmax: c<'argmax'>([[4, 6]], { axis: 1, keepdims: false }),
  cumsum: c<'cumsum'>([[4, 5, 3]], { axis: 1, reverse: true }),
  transpose: c<'transpose'>([[2, 3, 4]], { perm: [2, 0, 1] }),
  expand: c<'expand'>([[3, 1]], { shape: [3, 4] }),
  slice: c<'slice'>([[6, 5]], { starts: [1, 0], ends: [5, 5], steps: [2, 1] }),
  pad: c<'pad'>([[3, 4]], { before: [1, 0], after: [0, 2], interior: [0, 1], value: 0.5 }),
  concat: c<'concat'>([[2, 3], [2, 1]], { axis: 1 }),
  gather: c<'gather'>([[5, 4], [3]], { axis: 0 }, ['f32', 'i32']),
  scatterAdd: c<'scatterAdd'>([[5, 4], [3], [3, 4]], { axis: 0 }, ['f32', 'i32', 'f32']),
  oneHot: c<'oneHot'>([[4]], { classes: 6 }, ['i32']),
  stopGradient: c([[9]], E),
  custom: 'skip', // the user's own kernel (packages/nn/test/customOp.gpu.test.ts runs one against the interpreter)
  matmul: 'skip',
  logSoftmax: c<'logSoftmax'>([[4, 10]], { axis: 1 }),
  logSoftmaxGrad: c<'logSoftmaxGrad'>([[4, 10], [4, 10]], { axis: 1 }),
  nll: c<'nll'>([[4, 10], [4]], { reduction: 'mean' }, ['f32', 'i32']),
  nllGrad: c<'nllGrad'>([[4], []], { reduction: 'sum', classes: 10 }, ['i32', 'f32']),
  attention: 'skip',
  attentionLse: 'skip',
  attentionWithLse: 'skip',
  attentionGradKV: 'skip',
  attentionGradQKV: 'skip',
  attentionGrad: 'skip',
  rope: c<'rope'>([[2, 4, 8]], { base: 10000, inverse: false }),
  dropout: c<'dropout'>([[3, 5]], { p: 0.25, seed: 7 }),
  conv2d: c<'conv2d'>([[1, 2, 5, 5], [3, 2, 3, 3]], conv),
  conv2dGradInput: c<'conv2dGradInput'>([[1, 3, 5, 5], [3, 2, 3, 3]], { ...conv, inputSize: [5, 5] }),
  conv2dGradWeight: c<'conv2dGradWeight'>([[1, 2, 5, 5], [1, 3, 5, 5]], { ...conv, kernelSize: [3, 3] }),
  maxPool2d: c<'maxPool2d'>([[1, 2, 4, 4]], pool),
  maxPool2dGrad: c<'maxPool2dGrad'>([[1, 2, 4, 4], [1, 2, 2, 2]], pool),
  maxPool2dIndices: c<'maxPool2dIndices'>([[1, 2, 5, 5]], { ...pool, kernel: [3, 3], padding: [1, 1], dilation: [2, 1], ceilMode: true }),
  avgPool2d: c<'avgPool2d'>([[1, 2, 4, 4]], pool),
  avgPool2dGrad: c<'avgPool2dGrad'>([[1, 2, 2, 2]], { ...pool, inputSize: [4, 4] }),
  fusedMatmul: 'skip',
  matmulEpilogue: 'skip', // matmul.ts's plans (tested on the GPU against the interpreter)
  matmulQ8: c<'matmulQ8'>([[2, 40], [5, 16], [5, 1]], E, ['f32', 'i32', 'i32']), // a decode-sized product, K padded to 64
  matmulQ4: c<'matmulQ4'>([[2, 40], [5, 8], [5, 1]], E, ['f32', 'i32', 'i32']), // as matmulQ8's
  matmulPartials: 'skip', // matmul.ts's split-K plan (tested on the GPU against the interpreter)
  pointwise: c<'pointwise'>([[3, 5], [5]], { expr: { op: 'add', a: { op: 'relu', a: x0 }, b: { op: 'pow', a: x1, b: { op: 'const', value: 3 } } }, dtype: 'f32' }),
  // a broadcast [5] operand, rows path with an epilogue
  pointwiseReduce: c<'pointwiseReduce'>([[3, 64], [64]], { expr: { op: 'mul', a: { op: 'sub', a: x0, b: x1 }, b: x0 }, shape: [3, 64], reduce: 'mean', axes: [1], keepdims: true, post: { op: 'rsqrt', a: { op: 'add', a: x0, b: { op: 'const', value: 1e-5 } } } }),
  // dβ = Σ dY and dγ = Σ dY·x̂ (negated) over 70 rows: split columns, both in the same two dispatches
  pointwiseReduceMulti: c<'pointwiseReduceMulti'>([[70, 8], [70, 8]], { results: [{ expr: x0, post: x0 }, { expr: { op: 'mul', a: x0, b: x1 }, post: { op: 'neg', a: x0 } }], shape: [70, 8], reduce: 'sum', axes: [0], keepdims: false }),
  // a layer norm: mean, then rstd from the centred square, then (x − mean)·rstd·γ; γ broadcast along rows
  rowwise: c<'rowwise'>([[3, 64], [64]], {
    stats: [
      { expr: x0, reduce: 'mean', post: x0 },
      { expr: { op: 'square', a: { op: 'sub', a: x0, b: { op: 'in', index: 2 } } }, reduce: 'mean', post: { op: 'rsqrt', a: { op: 'add', a: x0, b: { op: 'const', value: 1e-5 } } } },
    ],
    expr: { op: 'mul', a: { op: 'mul', a: { op: 'sub', a: x0, b: { op: 'in', index: 2 } }, b: { op: 'in', index: 3 } }, b: x1 },
  }),
  // a layer norm's x̂ and x̂·γ: the stats once, both results per element
  rowwiseMulti: c<'rowwiseMulti'>([[3, 64], [64]], {
    stats: [
      { expr: x0, reduce: 'mean', post: x0 },
      { expr: { op: 'square', a: { op: 'sub', a: x0, b: { op: 'in', index: 2 } } }, reduce: 'mean', post: { op: 'rsqrt', a: { op: 'add', a: x0, b: { op: 'const', value: 1e-5 } } } },
    ],
    exprs: [
      { op: 'mul', a: { op: 'sub', a: x0, b: { op: 'in', index: 2 } }, b: { op: 'in', index: 3 } },
      { op: 'mul', a: { op: 'mul', a: { op: 'sub', a: x0, b: { op: 'in', index: 2 } }, b: { op: 'in', index: 3 } }, b: x1 },
    ],
  }),
  pointwiseMulti: c<'pointwiseMulti'>([[3, 5], [5]], { exprs: [{ op: 'mul', a: x0, b: x1 }, { op: 'exp', a: x0 }], dtype: 'f32' }),
  // one shared scalar, two groups ([3] and [2, 2]) of two roles: without arenas, a pointwiseMulti dispatch per group
  pointwiseMultiTensor: c<'pointwiseMultiTensor'>([[], [3], [3], [2, 2], [2, 2]], { exprs: [{ op: 'mul', a: { op: 'add', a: x1, b: { op: 'in', index: 2 } }, b: x0 }], dtype: 'f32', shared: 1, shapes: [[3], [2, 2]] }),
  softmaxCrossEntropy: c<'softmaxCrossEntropy'>([[4, 10], [4]], { reduction: 'mean' }, ['f32', 'i32']),
  softmaxCrossEntropyGrad: c<'softmaxCrossEntropyGrad'>([[4, 10], [4], []], { reduction: 'sum' }, ['f32', 'i32', 'f32']),
};

/** A plan as text: each dispatch's label, sizes and bindings, then its WGSL. */
function planText(plan: KernelPlan): string {
  const parts = [`// scratch: [${plan.scratch.join(', ')}]`];
  for (const d of plan.dispatches) {
    const b = d.bindings.map((x) => `${x.source.kind}${'index' in x.source ? x.source.index : ''}:${x.access}:${x.dtype}`).join(' ');
    parts.push(`// ---- ${d.label}: workgroup [${d.workgroupSize}] grid [${d.grid}] bindings ${b}`, d.code);
  }
  return `${parts.join('\n')}\n`;
}

describe('WGSL snapshots of every GPU op', () => {
  const planOf = <K extends GpuOp>(op: K, cs: Case<K>): KernelPlan => {
    const g = new Graph({ recordSites: false });
    const ins = cs.shapes.map((s, i) => g.input(`x${i}`, s, cs.dtypes?.[i] ?? 'f32'));
    const spec: KernelSpec<K> = { node: g.node(op, ins, cs.attrs), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
    return generateKernel(spec, COMPAT_CAPS);
  };
  for (const op of Object.keys(CASES) as GpuOp[]) {
    const cs = CASES[op];
    if (cs === 'skip') continue;
    it(op, async () => {
      await expect(planText(planOf(op, cs))).toMatchFileSnapshot(`./__snapshots__/wgsl/${op}.wgsl`);
    });
  }
});

// The implicit-GEMM convolutions (the registry's conv rows take them where a group's product has ≥ 8 rows and
// columns; the CASES above stay on the direct loops): forward with padding, the input gradient with stride 2, the
// weight gradient with K split (two dispatches and a scratch buffer).
const GEMM_CONVS: { name: string; op: 'conv2d' | 'conv2dGradInput' | 'conv2dGradWeight'; shapes: Shape[]; attrs: OpAttrs['conv2dGradWeight'] | OpAttrs['conv2dGradInput'] | OpAttrs['conv2d'] }[] = [
  { name: 'conv2d-gemm', op: 'conv2d', shapes: [[1, 3, 6, 5], [8, 3, 3, 3]], attrs: conv },
  { name: 'conv2dGradInput-gemm', op: 'conv2dGradInput', shapes: [[1, 8, 3, 3], [8, 9, 3, 3]], attrs: { ...conv, stride: [2, 2], inputSize: [6, 5] } },
  { name: 'conv2dGradWeight-gemm-splitk', op: 'conv2dGradWeight', shapes: [[2, 8, 20, 16], [2, 8, 20, 16]], attrs: { ...conv, kernelSize: [3, 3] } },
];

describe('WGSL snapshots of the implicit-GEMM convolutions', () => {
  for (const cs of GEMM_CONVS) {
    it(cs.name, async () => {
      const g = new Graph({ recordSites: false });
      const ins = cs.shapes.map((s, i) => g.input(`x${i}`, s));
      const spec = { node: g.node(cs.op, ins, cs.attrs as never), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) } as KernelSpec;
      await expect(planText(generateKernel(spec, COMPAT_CAPS))).toMatchFileSnapshot(`./__snapshots__/wgsl/${cs.name}.wgsl`);
    });
  }
});

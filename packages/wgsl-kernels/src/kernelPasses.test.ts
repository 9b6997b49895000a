// ir's `kernelDispatches` (what the e-graph's cost model counts) against the plans this package generates: a
// split reduction (columns only where too few for strips), a split-K matmul and the cross-entropy loss run two
// dispatches, everything else one.
import { describe, expect, it } from 'vitest';
import { Graph, kernelDispatches, matmulSplitK, type Node, type OpAttrs, type OpKind, type PwExpr, type Shape } from '@neura/ir';
import { chooseSplitK, COMPAT_CAPS, type DeviceCaps, generateKernel, KERNELS, type KernelSpec, loadKernels } from './index.js';
// attention, conv/pool and indexing generators load on demand (lazyKernels.ts); these tests call them synchronously
await loadKernels(Object.keys(KERNELS) as OpKind[]);

const H200: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 10, maxStorageBufferBindingSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 };

function spec<K extends OpKind>(op: K, shapes: Shape[], attrs: OpAttrs[K], dtypes: ('f32' | 'i32')[] = []): KernelSpec & { node: Node } {
  const g = new Graph();
  const ins = shapes.map((s, i) => g.input(`x${i}`, s, dtypes[i] ?? 'f32'));
  const node = g.node(op, ins, attrs);
  return { node, inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
}

/** Dispatches of the generated plan and ir's count for it. */
function both(s: KernelSpec & { node: Node }, caps: DeviceCaps): [number, number] {
  return [generateKernel(s, caps).dispatches.length, kernelDispatches(s.node.op, { attrs: s.node.attrs, ins: s.inputs, out: s.node })];
}

const mul: PwExpr = { op: 'mul', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } };
const id: PwExpr = { op: 'in', index: 0 };

describe('kernelDispatches', () => {
  const reductions: [Shape, number[]][] = [
    [[16384, 384], [0]], // bias gradient: column strips, one pass
    [[16384, 1536], [0]],
    [[70, 257], [0]], // column strips, odd width
    [[16384, 64], [0]], // too few strips: split columns
    [[200, 12], [0]],
    [[16384, 384], [1]], // row statistics: one pass
    [[64, 256, 384], [0, 1]], // the same over merged leading axes
    [[40, 3], [0]], // short columns: one thread per output
    [[4, 20000], [1]], // few long rows: split rows
    [[300, 20000], [1]], // many long rows: one pass
    [[8, 16, 100], [0, 2]], // outer-kept-inner: two passes
    [[8, 16, 4], [0, 2]], // too short for the rows pass
    [[6, 5, 7], [1]], // general
  ];
  for (const caps of [COMPAT_CAPS, H200]) {
    it(`counts the passes of every reduction path (${caps === H200 ? 'H200-like' : 'default'} limits)`, () => {
      for (const [shape, axes] of reductions) {
        const [plan, counted] = both(spec('sum', [shape], { axes, keepdims: false }), caps);
        expect(counted, `sum ${JSON.stringify(shape)} axes ${axes}`).toBe(plan);
        const fused = spec('pointwiseReduce', [shape, shape], { expr: mul, shape: [...shape], reduce: 'mean', axes, keepdims: false, post: id });
        expect(both(fused, caps)[1], `pointwiseReduce ${JSON.stringify(shape)} axes ${axes}`).toBe(both(fused, caps)[0]);
      }
    });

    it(`counts sibling column reductions as one strips pass or two split passes, other paths per result (${caps === H200 ? 'H200-like' : 'default'} limits)`, () => {
      for (const [shape, axes, want] of [[[16384, 384], [0], 1], [[70, 257], [0], 1], [[16384, 64], [0], 2], [[5, 300], [1], 2]] as [Shape, number[], number][]) {
        const multi = spec('pointwiseReduceMulti', [shape, shape], { results: [{ expr: id, post: id }, { expr: mul, post: id }], shape: [...shape], reduce: 'sum', axes, keepdims: false });
        const [plan, counted] = both(multi, caps);
        expect(plan, `pointwiseReduceMulti ${JSON.stringify(shape)} axes ${axes}`).toBe(want);
        expect(counted).toBe(plan);
      }
    });

    it(`counts split-K on the GPT step's matmuls and a few others (${caps === H200 ? 'H200-like' : 'default'} limits)`, () => {
      const cases: [Shape, Shape, boolean, boolean][] = [
        [[16384, 384], [16384, 1536], true, false], // weight gradients: split-K
        [[16384, 1536], [16384, 384], true, false],
        [[16384, 384], [16384, 1152], true, false],
        [[16384, 384], [16384, 384], true, false],
        [[16384, 384], [384, 1536], false, false], // forward: tiled
        [[16384, 1536], [384, 1536], false, true],
        [[64, 384], [384, 384], false, false], // skinny
        [[2, 256, 64], [2, 64, 256], false, false], // batched
      ];
      for (const [a, b, transA, transB] of cases) {
        const [plan, counted] = both(spec('matmul', [a, b], { transA, transB }), caps);
        const what = `matmul ${JSON.stringify(a)}·${JSON.stringify(b)}${transA ? ' transA' : ''}${transB ? ' transB' : ''}`;
        expect(counted, what).toBe(plan);
        // ir's choice of S (what matmulPartials nodes carry) is the kernel's
        if (a.length !== 2) continue;
        const [m, k] = transA ? [a[1], a[0]] : a;
        const n = transB ? b[0] : b[1];
        const S = matmulSplitK(m, n, k, 1, caps.maxStorageBufferBindingSize);
        expect(S, what).toBe(chooseSplitK(m, n, k, 1, caps)?.splits ?? 1);
        if (S > 1) expect(both(spec('matmulPartials', [a, b], { transA, transB, splits: S }), caps), what).toEqual([1, 1]);
      }
    });
  }

  it('counts scatterAdd of many indices as two passes, of few as one', () => {
    for (const [k, rows] of [[8, 10], [1000, 10], [1000, 1000]])
      for (const caps of [COMPAT_CAPS, H200]) {
        const s = spec('scatterAdd', [[rows, 4], [k], [k, 4]], { axis: 0 }, ['f32', 'i32', 'f32']);
        const [plan, counted] = both(s, caps);
        expect(counted, `scatterAdd of ${k} indices into ${rows} rows`).toBe(plan);
      }
  });

  it('counts the cross-entropy loss as its two passes', () => {
    const s = spec('softmaxCrossEntropy', [[64, 65], [64]], { reduction: 'mean' }, ['f32', 'i32']);
    const [plan, counted] = both(s, COMPAT_CAPS);
    expect(plan).toBe(2);
    expect(counted).toBe(plan);
  });
});

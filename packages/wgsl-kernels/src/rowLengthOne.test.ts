// Row ops over an axis of length 1 (softmax / logSoftmax / crossEntropy with one class, e.g. maxLen 1):
// the workgroup is 1 lane, and the tree reduction's first stride wg/2 was 0.5, which u32Lit rejected
// ("index constant 0.5 does not fit in u32"). The stride is floor(wg/2): the loop runs zero times.

import { type DType, Graph, type OpAttrs, type Shape } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, type KernelSpec } from './kernel.js';
import { type GpuOp, generateKernel } from './registry.js';
import { workgroupReduceFns } from './wgsl.js';

const gen = <K extends GpuOp>(op: K, shapes: Shape[], attrs: OpAttrs[K], dtypes?: DType[]) => {
  const g = new Graph({ recordSites: false });
  const ins = shapes.map((s, i) => g.input(`x${i}`, s, dtypes?.[i] ?? 'f32'));
  const spec: KernelSpec<K> = { node: g.node(op, ins, attrs), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
  return generateKernel(spec, COMPAT_CAPS);
};

describe('row ops over an axis of length 1', () => {
  it('workgroupReduceFns(1) has no fractional stride', () => {
    expect(workgroupReduceFns(1, ['sum', 'max'])).toContain('for (var s = 0u;');
  });
  it('logSoftmax / logSoftmaxGrad [4, 1]', () => {
    expect(() => gen('logSoftmax', [[4, 1]], { axis: 1 })).not.toThrow();
    expect(() => gen('logSoftmaxGrad', [[4, 1], [4, 1]], { axis: 1 })).not.toThrow();
  });
  it('softmaxCrossEntropy / grad [4, 1] logits', () => {
    expect(() => gen('softmaxCrossEntropy', [[4, 1], [4]], { reduction: 'mean' }, ['f32', 'i32'])).not.toThrow();
    expect(() => gen('softmaxCrossEntropyGrad', [[4, 1], [4], []], { reduction: 'sum' }, ['f32', 'i32', 'f32'])).not.toThrow();
  });
});

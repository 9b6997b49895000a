// Multi-result ops: a kernel writing several results (the node's value is result 0; `pick` reads the others), how
// many, and each result's type. Kept apart from kernelCost.ts so that type inference (`pick`) can use it.

import type { TensorType } from './inferCore.js';
import type { OpKind, OpWithAttrs } from './ops.js';

/** Results a kernel of this op writes (several for a multi-result op, each of the output's type). */
export function kernelOutputs(n: OpWithAttrs): number {
  if (n.op === 'pointwiseMulti') return n.attrs.exprs.length;
  return n.op === 'attentionWithLse' || n.op === 'attentionGradKV' ? 2 : 1;
}

/** The type of result `index` of a node of this op whose value (result 0) has type `value`. */
export function resultType(n: OpWithAttrs, value: TensorType, index: number): TensorType {
  if (n.op === 'attentionWithLse' && index === 1) return { shape: value.shape.slice(0, -1), dtype: 'f32' };
  return { shape: [...value.shape], dtype: value.dtype };
}

/** Ops whose kernel writes several results (the node's value is result 0; `pick` reads the others). */
export const MULTI_RESULT_OPS = ['pointwiseMulti', 'attentionWithLse', 'attentionGradKV'] as const;

/** Whether an op's kernel writes several results. */
export function isMultiResultOp(op: OpKind): op is (typeof MULTI_RESULT_OPS)[number] {
  return (MULTI_RESULT_OPS as readonly OpKind[]).includes(op);
}

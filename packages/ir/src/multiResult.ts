// Multi-result ops: a kernel writing several results (the node's value is result 0; `pick` reads the others), how
// many, and each result's type. Kept apart from kernelCost.ts so that type inference (`pick`) can use it.

import type { TensorType } from './inferCore.js';
import type { OpKind, OpWithAttrs } from './ops.js';

/** Results a kernel of this op writes (several for a multi-result op, each of the output's type). */
export function kernelOutputs(n: OpWithAttrs): number {
  if (n.op === 'pointwiseMulti') return n.attrs.exprs.length;
  if (n.op === 'pointwiseMultiTensor') return n.attrs.exprs.length * n.attrs.shapes.length;
  if (n.op === 'pointwiseReduceMulti') return n.attrs.results.length;
  if (n.op === 'rowwiseMulti') return n.attrs.exprs.length;
  return n.op === 'attentionWithLse' || n.op === 'attentionGradKV' ? 2 : 1;
}

/** The type of result `index` of a node of this op whose value (result 0) has type `value`. */
export function resultType(n: OpWithAttrs, value: TensorType, index: number): TensorType {
  if (n.op === 'attentionWithLse' && index === 1) return { shape: value.shape.slice(0, -1), dtype: 'f32' };
  if (n.op === 'pointwiseMultiTensor') return { shape: [...(n.attrs.shapes[Math.floor(index / n.attrs.exprs.length)] ?? value.shape)], dtype: value.dtype };
  return { shape: [...value.shape], dtype: value.dtype };
}

/** Ops whose kernel writes several results (the node's value is result 0; `pick` reads the others). */
export const MULTI_RESULT_OPS = ['pointwiseMulti', 'pointwiseMultiTensor', 'pointwiseReduceMulti', 'rowwiseMulti', 'attentionWithLse', 'attentionGradKV'] as const;

/** How a `pointwiseMultiTensor` node's operands split: shared ones first, then `roles` per group. */
export interface OperandGroups {
  /** Number of leading operands that every group shares. */
  readonly shared: number;
  /** Operands per group. */
  readonly roles: number;
  /** Number of groups (tensors computed by the one kernel). */
  readonly groups: number;
  /** The node input index of group `g`'s operand `j` of the expressions (shared ones are the same for all groups). */
  readonly operand: (g: number, j: number) => number;
}

/** The operand layout of a `pointwiseMultiTensor` node (see `OpAttrs['pointwiseMultiTensor']`). */
export function groupOperands(n: { readonly inputs: readonly unknown[]; readonly attrs: { readonly shared: number; readonly shapes: readonly (readonly number[])[] } }): OperandGroups {
  const { shared } = n.attrs;
  const groups = n.attrs.shapes.length;
  const roles = groups ? (n.inputs.length - shared) / groups : 0;
  return { shared, roles, groups, operand: (g, j) => (j < shared ? j : shared + g * roles + (j - shared)) };
}

/** Whether an op's kernel writes several results. */
export function isMultiResultOp(op: OpKind): op is (typeof MULTI_RESULT_OPS)[number] {
  return (MULTI_RESULT_OPS as readonly OpKind[]).includes(op);
}

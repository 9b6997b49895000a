// Shared pieces of shape and dtype inference: the TensorType, the rule signature, and the error helpers
// every rule uses, so that each failure names the op and its operands' shapes and dtypes the same way.
// Must not know any particular op.

import type { DType } from './dtype.js';
import { GraphError } from './graphError.js';
import { fmtShape, type Shape } from './shape.js';

/** The type of a tensor: its shape and dtype. */
export interface TensorType {
  /** Extents, outermost first (`[]` for a scalar). */
  readonly shape: Shape;
  /** Element type. */
  readonly dtype: DType;
}

/** An inference rule: operand types and attributes in, the output type out (or a GraphError). */
export type Rule<A> = (ins: readonly TensorType[], attrs: A, leafType?: TensorType) => TensorType;

/** Throws a GraphError naming the op, the message and the operands' types. */
export const fail = (op: string, msg: string, ins: readonly TensorType[]): never => {
  const operands = ins.map((t) => `${fmtShape(t.shape)}:${t.dtype}`).join(', ');
  throw new GraphError(`${op}: ${msg} (operands ${operands || 'none'})`, op);
};

/** Checks the operand count. */
export const arity = (op: string, ins: readonly TensorType[], n: number) => {
  if (ins.length !== n) fail(op, `expects ${n} operand(s), got ${ins.length}`, ins);
};

/** Checks that operand i is f32. */
export const float = (op: string, ins: readonly TensorType[], i: number) => {
  if (ins[i].dtype !== 'f32') fail(op, `operand ${i} must be f32, got ${ins[i].dtype}`, ins);
};


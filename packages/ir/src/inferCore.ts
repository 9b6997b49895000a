// Shared pieces of shape and dtype inference: the TensorType, the rule signature, and the error helpers
// every rule uses, so that each failure names the op and its operands' shapes and dtypes the same way.
// Must not know any particular op.

import { type DType, isFloat } from './dtype.js';
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

/** Checks that operand i is f32 (ops without an f16 form: an f16 operand needs a cast, said so). */
export const float = (op: string, ins: readonly TensorType[], i: number) => {
  if (ins[i].dtype === 'f16') fail(op, `operand ${i} is f16, but ${op} takes f32 only: cast it to f32 first`, ins);
  if (ins[i].dtype !== 'f32') fail(op, `operand ${i} must be f32, got ${ins[i].dtype}`, ins);
};

/** Checks that operand i is a float (f32 or f16: ops computed in f32 that may store f16). */
export const floating = (op: string, ins: readonly TensorType[], i: number) => {
  if (!isFloat(ins[i].dtype)) fail(op, `operand ${i} must be f32 or f16, got ${ins[i].dtype}`, ins);
};

/**
 * Checks that operands `which` have one dtype. f16 next to f32 is an error, not a promotion (PyTorch would promote
 * to f32): precision is chosen by explicit casts, so only the autocast pass makes graphs that mix the two.
 */
export const sameDtype = (op: string, ins: readonly TensorType[], which: readonly number[]) => {
  // the common case first, without a list of dtypes (every binary node typed asks)
  let same = true;
  for (let k = 1; k < which.length && same; k++) same = ins[which[k]].dtype === ins[which[0]].dtype;
  if (same) return;
  const ds = which.map((i) => ins[i].dtype);
  if (ds.every((d) => d === ds[0])) return;
  if (ds.includes('f16') && ds.includes('f32'))
    fail(op, `mixes f16 and f32 operands (${ds.join(', ')}): insert an explicit cast (graph.cast(x, 'f32') or 'f16'); neura does not promote`, ins);
  fail(op, `dtypes differ: ${ds.join(' vs ')}`, ins);
};


// Typed access to an op's attributes: an `OpWithAttrs` (a graph `Node`, an e-node read back as an ir op) is a
// union discriminated by `op`, so `if (n.op === 'matmul')` narrows `n.attrs`; these helpers do the same where the
// op is a type parameter (a generic generator, a rule over several ops), so no caller casts attributes.

import type { OpAttrs, OpKind, OpWithAttrs } from './ops.js';

/** An op with its attributes, checked together by the compiler. */
export function withAttrs<K extends OpKind>(op: K, attrs: OpAttrs[K]): OpWithAttrs<K> {
  return { op, attrs };
}

/** Whether `x` is of op `op` (narrows `x.attrs` to that op's attributes). */
export function isOp<X extends OpWithAttrs, K extends OpKind>(x: X, op: K): x is X & OpWithAttrs<K> {
  return x.op === op;
}

/** The attributes of `x`, which must be of op `op` (a mismatch is a bug in the caller: it throws, naming both). */
export function attrsOf<K extends OpKind>(x: OpWithAttrs, op: K): OpAttrs[K] {
  if (!isOp(x, op)) throw new TypeError(`attrsOf: expected a ${op} op, got ${x.op}`);
  return x.attrs;
}

// Typed access to an op's attributes: an `OpWithAttrs` (a graph `Node`, an e-node read back as an ir op) is a
// union discriminated by `op`, so `if (n.op === 'matmul')` narrows `n.attrs`; these helpers do the same where the
// op is a type parameter (a generic generator, a rule over several ops), so no caller casts attributes.

import type { OpAttrs, OpKind, OpWithAttrs } from './ops.js';

/** An op with its attributes, checked together by the compiler. */
export function withAttrs<K extends OpKind>(op: K, attrs: OpAttrs[K]): OpWithAttrs<K> {
  return { op, attrs };
}

/** Whether `x` is of one of the ops `ops` (narrows `x.attrs` to their attributes). */
export function isOp<X extends OpWithAttrs, K extends OpKind>(x: X, ...ops: readonly K[]): x is X & OpWithAttrs<K> {
  return (ops as readonly OpKind[]).includes(x.op);
}

/** The attributes of `x`, which must be of one of the ops `ops` (else a bug in the caller: it throws, naming them). */
export function attrsOf<K extends OpKind>(x: OpWithAttrs, ...ops: readonly K[]): OpAttrs[K] {
  if (!isOp(x, ...ops)) throw new TypeError(`attrsOf: expected ${ops.join(' or ')}, got ${x.op}`);
  return x.attrs;
}

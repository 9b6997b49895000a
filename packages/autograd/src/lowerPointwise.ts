// Lowers the expression of a fused `pointwise` op back to primitive ir ops on its inputs, so that its VJP is
// the VJP of the primitives (symbolic differentiation by the same table). Must not create any fused op;
// invariants: shared subtrees are lowered once, and constant subtrees fold to numbers on the host.

import { BINARY_FN, type BinaryOp, castScalar, type Graph, type PwExpr, type Tensor, type TensorLike, UNARY_FN } from '@neura/ir';

const BINARY: { [K in BinaryOp]: (g: Graph, a: TensorLike, b: TensorLike) => Tensor } = {
  add: (g, a, b) => g.add(a, b),
  sub: (g, a, b) => g.sub(a, b),
  mul: (g, a, b) => g.mul(a, b),
  div: (g, a, b) => g.div(a, b),
  max: (g, a, b) => g.max(a, b),
  min: (g, a, b) => g.min(a, b),
  pow: (g, a, b) => g.pow(a, b),
  gt: (g, a, b) => g.gt(a, b),
  ge: (g, a, b) => g.ge(a, b),
  lt: (g, a, b) => g.lt(a, b),
  le: (g, a, b) => g.le(a, b),
  eq: (g, a, b) => g.eq(a, b),
};

/** Builds `expr` over `inputs` from primitive ops; a constant expression comes back as a number. */
export function lowerPwExpr(graph: Graph, expr: PwExpr, inputs: readonly Tensor[]): TensorLike {
  const memo = new Map<PwExpr, TensorLike>();
  const lower = (e: PwExpr): TensorLike => {
    const hit = memo.get(e);
    if (hit !== undefined) return hit;
    let r: TensorLike;
    switch (e.op) {
      case 'in':
        r = inputs[e.index];
        break;
      case 'const':
        r = e.value;
        break;
      case 'where': {
        const c = lower(e.c);
        r = typeof c === 'number' ? (c !== 0 ? lower(e.a) : lower(e.b)) : graph.where(c, lower(e.a), lower(e.b));
        break;
      }
      case 'cast': {
        const a = lower(e.a);
        r = typeof a === 'number' ? castScalar(a, e.to) : graph.cast(a, e.to);
        break;
      }
      default:
        if ('b' in e) {
          const a = lower(e.a);
          const b = lower(e.b);
          r = typeof a === 'number' && typeof b === 'number' ? BINARY_FN[e.op](a, b) : BINARY[e.op](graph, a, b);
        } else {
          const a = lower(e.a);
          r = typeof a === 'number' ? UNARY_FN[e.op](a) : graph.unary(e.op, a);
        }
    }
    memo.set(e, r);
    return r;
  };
  return lower(expr);
}

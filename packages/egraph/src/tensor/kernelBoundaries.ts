// Fusion boundaries: ops that have a user-registered kernel must run as their own node, or the user's generator
// is silently bypassed (a relu folded into a matmul epilogue never calls the custom relu kernel). Wraps a node
// cost function so that extraction keeps such ops: a fused node that would absorb a boundary op, and any other
// node in an e-class that holds a boundary op's node, cost Infinity. Must not change costs when no op is a
// boundary. Invariant: the boundary op's own node stays finite, so extraction always succeeds.

import type { OpAttrs, OpKind, OpWithAttrs, PwExpr } from '@neura/ir';
import { isOp } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { fromENode, isOpKind } from './tensorLanguage.js';

/** The fused ops that stand for primitive ops (every fused op but `pick`, a result of another node's kernel). */
type AbsorbingOp =
  | 'attentionGradKV'
  | 'attentionGradQKV'
  | 'attentionWithLse'
  | 'fusedMatmul'
  | 'matmulEpilogue'
  | 'matmulPartials'
  | 'pointwise'
  | 'pointwiseMulti'
  | 'pointwiseMultiTensor'
  | 'pointwiseReduce'
  | 'pointwiseReduceMulti'
  | 'rowwise'
  | 'rowwiseMulti'
  | 'softmaxCrossEntropy'
  | 'softmaxCrossEntropyGrad';

/** The primitive ops a fused op stands for (the ones its fusion rules absorbed), from its attributes. */
const ABSORBED: {
  readonly [K in AbsorbingOp]: (a: OpAttrs[K]) => readonly OpKind[];
} = {
  attentionGradKV: () => ['attentionGrad'],
  attentionGradQKV: () => ['attentionGrad', 'concat'],
  attentionWithLse: () => ['attention', 'attentionLse'],
  fusedMatmul: (a) => ['matmul', ...(a.bias ? (['add'] as const) : []), ...(a.activation === 'relu' ? (['relu'] as const) : [])],
  matmulEpilogue: (a) => ['matmul', ...exprOps(a.expr)],
  matmulPartials: () => ['matmul'],
  pointwise: (a) => [...exprOps(a.expr)],
  pointwiseMulti: (a) => [...a.exprs.reduce((out, e) => exprOps(e, out), new Set<OpKind>())],
  pointwiseMultiTensor: (a) => [...a.exprs.reduce((out, e) => exprOps(e, out), new Set<OpKind>())],
  pointwiseReduce: (a) => [a.reduce, ...exprOps(a.post, exprOps(a.expr))],
  pointwiseReduceMulti: (a) => [a.reduce, ...a.results.reduce((out, r) => exprOps(r.post, exprOps(r.expr, out)), new Set<OpKind>())],
  rowwise: (a) => [...a.stats.reduce((out, s) => exprOps(s.post, exprOps(s.expr, out.add(s.reduce))), exprOps(a.expr))],
  rowwiseMulti: (a) => [...a.stats.reduce((out, s) => exprOps(s.post, exprOps(s.expr, out.add(s.reduce))), a.exprs.reduce((out, e) => exprOps(e, out), new Set<OpKind>()))],
  softmaxCrossEntropy: () => ['logSoftmax', 'nll'],
  softmaxCrossEntropyGrad: () => ['logSoftmax', 'logSoftmaxGrad', 'nllGrad'],
};

/** The fused ops whose absorbed ops are known (a test checks that every fused op is among them). */
export const ABSORBING_OPS: readonly AbsorbingOp[] = Object.keys(ABSORBED) as AbsorbingOp[];

function exprOps(e: PwExpr, out = new Set<OpKind>()): Set<OpKind> {
  switch (e.op) {
    case 'in':
    case 'const':
      return out;
    case 'where':
      out.add('where');
      exprOps(e.c, out);
      exprOps(e.a, out);
      return exprOps(e.b, out);
    case 'cast':
      out.add('cast');
      return exprOps(e.a, out);
    default:
      out.add(e.op);
      exprOps(e.a, out);
      return 'b' in e ? exprOps(e.b, out) : out;
  }
}

/** The primitive ops an e-node stands for: itself, or for a fused node the ops it absorbed. */
export function absorbedOps(node: ENode): readonly OpKind[] {
  if (!isOpKind(node.op)) return [];
  const ir = fromENode(node);
  const ops = isOp(ir, ...ABSORBING_OPS) ? absorbedBy(ir) : [ir.op];
  // a gradient computing Δ from attention's output also stands for Δ's sum(mul(dOut, out)) (attention-delta-from-out)
  const delta: readonly OpKind[] = isOp(ir, 'attentionGrad', 'attentionGradKV', 'attentionGradQKV') && ir.attrs.deltaFromOut ? ['sum', 'mul'] : [];
  // an attention reading head windows stands for the slices it reads through (attention-head-window)
  const window: readonly OpKind[] = isOp(ir, 'attention', 'attentionLse', 'attentionWithLse', 'attentionGrad', 'attentionGradKV', 'attentionGradQKV') && ir.attrs.window ? ['slice'] : [];
  return [...ops, ...delta, ...window];
}

function absorbedBy<K extends AbsorbingOp>(x: OpWithAttrs<K>): readonly OpKind[] {
  return ABSORBED[x.op](x.attrs);
}

/**
 * A cost function that keeps every op of `boundaries` as its own node (see the header); `inner` when empty.
 * Costs are memoised per e-node and per e-class (the e-graph is not modified during extraction).
 */
export function withKernelBoundaries(inner: NodeCostFunction, egraph: EGraph<TensorInfo>, boundaries: ReadonlySet<OpKind>): NodeCostFunction {
  if (boundaries.size === 0) return inner;
  const classHasBoundary = new Map<Id, boolean>();
  const hasBoundary = (cls: Id): boolean => {
    let v = classHasBoundary.get(cls);
    if (v === undefined) classHasBoundary.set(cls, (v = egraph.eclass(cls).nodes.some((n) => isOpKind(n.op) && boundaries.has(n.op))));
    return v;
  };
  return {
    nodeCost(node: ENode, eclass: Id): number {
      if (isOpKind(node.op) && boundaries.has(node.op) && absorbedOps(node).every((op) => op === node.op)) return inner.nodeCost(node, eclass);
      if (hasBoundary(egraph.find(eclass))) return Number.POSITIVE_INFINITY; // the class must be the user's kernel
      if (absorbedOps(node).some((op) => boundaries.has(op))) return Number.POSITIVE_INFINITY; // would hide it
      return inner.nodeCost(node, eclass);
    },
  };
}

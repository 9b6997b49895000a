// Fusion boundaries: ops that have a user-registered kernel must run as their own node, or the user's generator
// is silently bypassed (a relu folded into a matmul epilogue never calls the custom relu kernel). Wraps a node
// cost function so that extraction keeps such ops: a fused node that would absorb a boundary op, and any other
// node in an e-class that holds a boundary op's node, cost Infinity. Must not change costs when no op is a
// boundary. Invariant: the boundary op's own node stays finite, so extraction always succeeds.

import type { OpKind } from '@neura/ir';
import { absorbedOpsOf } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { fromENode, isOpKind } from './tensorLanguage.js';

/** The primitive ops an e-node stands for: itself, or for a fused node the ops it absorbed (ir's `absorbs` fact). */
export function absorbedOps(node: ENode): readonly OpKind[] {
  if (!isOpKind(node.op)) return [];
  const ir = fromENode(node);
  return absorbedOpsOf(ir.op, ir.attrs);
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

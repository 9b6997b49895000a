// Inputs a graph declares but never reads stay declared after the optimizer: `optimize` rebuilds only live nodes,
// so without this a feed for such an input was accepted with `optimize: false` (the runtime ignores dead inputs)
// and rejected as unknown with the optimizer on. PyTorch-like: a declared, unused input is accepted and ignored.

import type { Graph } from '@neura/ir';

/** Adds to `plan` (in place) every input of `declared` it lacks, unread, so that feeding it is accepted; returns `plan`. */
export function keepDeclaredInputs(plan: Graph, declared: Graph): Graph {
  if (plan === declared) return plan;
  const have = new Set(plan.nodes.filter((n) => n.op === 'input').map((n) => n.attrs.name as string));
  for (const n of declared.nodes)
    if (n.op === 'input' && !have.has(n.attrs.name as string)) plan.input(n.attrs.name as string, n.shape, n.dtype);
  return plan;
}

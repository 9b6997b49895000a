// The pack stage: multi-result kernels priced and chosen in one place. `PACKERS` lists one module per kernel
// (its shares of the cost and, where it is taken after extraction, its move); `extractAndPack` extracts the plan
// without the late kernels, lets each packer move it onto its kernels, and extracts again from there.
// Adding a multi-result kernel: a rule offering it (rules/), a packer here, and its entry in `PACKERS`. `cast-fold`
// is a move of the same stage without a kernel: autocast's casts left by all their readers at once.

import type { DagExtraction, DagExtractorOptions, EGraph, ENode, Id, NodeCostFunction } from '../../core/index.js';
import { DagExtractor, dagCost } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { attentionWithLsePacker } from './attentionWithLse.js';
import { castFoldPacker } from './castFold.js';
import { multiTensorUpdatePacker } from './multiTensorUpdate.js';
import type { Packer, PackState } from './packer.js';
import { reduceMultiPacker } from './reduceMulti.js';
import { rowwiseMultiPacker } from './rowwiseMulti.js';
import { splitKFoldPacker } from './splitKFold.js';

export type { Packer, PackState, ShareCtx } from './packer.js';

/**
 * Every packer, in the order their moves run: sibling row kernels first (they make a norm's x̂ available), then
 * the sibling reductions over it, then the split-K fold of the updates; casts folded into all their readers last.
 */
export const PACKERS: readonly Packer[] = [rowwiseMultiPacker, reduceMultiPacker, splitKFoldPacker, multiTensorUpdatePacker, attentionWithLsePacker, castFoldPacker];

/** The packer pricing an op's results, or undefined (each result then pays `whole / results`). */
export function pricerOf(op: string): Packer | undefined {
  return PACKERS.find((p) => p.op === op && (p.share !== undefined || p.multiCost !== undefined));
}

/** Whether a packer has something to take in this e-graph. */
const offered = (p: Packer, egraph: EGraph<TensorInfo>) => (p.offered ? p.offered(egraph) : p.late === true && egraph.classesWithOp(p.op).length > 0);

/**
 * Extracts the plan with the pack stage: a first extraction with the late kernels priced out, each late kernel
 * offered where the plan computes its operands, the packers' moves in order, then a second extraction starting
 * from the packed plan (its moves focused on the late kernels' results).
 */
export function extractAndPack(
  egraph: EGraph<TensorInfo>,
  cost: NodeCostFunction,
  roots: readonly Id[],
  opts: DagExtractorOptions,
  all: readonly Packer[] = PACKERS,
): DagExtraction {
  if (!PACKERS.some((p) => p.pack && offered(p, egraph))) return new DagExtractor(egraph, cost, opts).extract(roots);
  const packers = all.filter((p) => p.pack && offered(p, egraph));
  // the late kernels of every packer (one left out of `all` is still priced out of the first extraction: only its move is left out)
  const LATE: ReadonlySet<string> = new Set(PACKERS.filter((p) => p.late).map((p) => p.op));
  const multis = [...LATE].flatMap((op) => egraph.classesWithOp(op));
  const late = new Set(multis.map((id) => egraph.find(id)));
  const isLate = (n: ENode) => LATE.has(n.op) || (n.op === 'pick' && late.has(egraph.find(n.children[0])));
  const without: NodeCostFunction = { ...cost, nodeCost: (n, c) => (isLate(n) ? Number.POSITIVE_INFINITY : cost.nodeCost(n, c)) };
  const first = new DagExtractor(egraph, without, opts).extract(roots);
  // the results of the late kernels: the classes holding a pick of one
  const focus = [...new Set(multis.flatMap((m) => [...egraph.eclass(m).parents].filter(([n]) => n.op === 'pick').map(([, c]) => egraph.find(c))))];
  // the start: the first plan, and each late kernel over operands it computes (its picks become alternatives)
  const choice = new Map(first.choices);
  for (const m of multis) {
    const n = egraph.eclass(m).nodes.find((x) => LATE.has(x.op));
    if (n?.children.every((c) => first.choices.has(egraph.find(c)))) choice.set(egraph.find(m), n);
  }
  const state: PackState = { egraph, cost, roots, first, choice, total: dagCost(choice, roots, cost, (id) => egraph.find(id)) };
  for (const p of packers) p.pack?.(state);
  const second = new DagExtractor(egraph, cost, { ...opts, improvePasses: 0, start: { choice: state.choice, focus } }).extract(roots);
  return { ...second, search: first.search };
}

// Test helpers of the packers: a graph saturated by the default schedule (the e-graph the pack stage sees) with the
// cost function over it, and each multi-result node of an op with its picks' prices. Test-only (no export from
// the package).

import type { Graph } from '@neura/ir';
import { type ENode, type Id, Runner } from '../../core/index.js';
import { costDefaults, tensorCost } from '../costModel.js';
import { DEFAULT_PASSES, graphToEGraph, RULE_SETS } from '../optimize.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { nodeOf, picksOf } from './packer.js';

/** The graph through the default passes, with the cost model over its e-graph. */
export function saturated(graph: Graph) {
  const loaded = graphToEGraph(graph);
  for (const p of DEFAULT_PASSES) {
    const runner = new Runner(loaded.egraph, { iterLimit: p.iterLimit ?? 10, nodeLimit: 50_000 });
    for (const r of loaded.roots) runner.addRoot(r);
    runner.run(p.ruleSets.flatMap((s) => RULE_SETS[s]));
  }
  return { ...loaded, cost: tensorCost(loaded.egraph, costDefaults()) };
}

/** Each class of a multi-result op: its node, its own cost and its picks' costs (by result index). */
export function prices(s: ReturnType<typeof saturated>, op: string): { M: Id; node: ENode; own: number; picks: number[] }[] {
  const { egraph, cost } = s;
  return [...new Set(egraph.classesWithOp(op).map((id) => egraph.find(id)))].map((M) => {
    const node = nodeOf(egraph, M, op) as ENode;
    const picks: number[] = [];
    for (const [c, pick] of picksOf(egraph, M)) picks[enodeAttrs(pick, 'pick').index] = cost.nodeCost(pick, c);
    return { M, node, own: cost.nodeCost(node, M), picks };
  });
}

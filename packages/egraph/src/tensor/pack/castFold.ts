// Casts folded into every reader at once (`cast-fold`): a float cast in the plan (autocast's f16 copy of a weight,
// read by its forward and its backward product) goes when each reader in the plan has an alternative that reads no
// cast (a matmul reading its operand rounded). Each reader alone moved costs more (it reads the wider tensor) and
// the cast's kernel stays for the other, so no one-class move of the extractor takes it: this move takes all readers
// at once, each by its cheapest such alternative, and keeps the plan only where it gets cheaper. Must not build
// e-nodes (the alternatives come from the rules: castOperand.ts, castReduce.ts); only chooses.

import { isFloat } from '@neura/ir';
import { dagCost, type ENode, type Id, reachableClasses } from '../../core/index.js';
import { enodeAttrs } from '../tensorLanguage.js';
import type { PackState, Packer } from './packer.js';

/** Whether a node is a cast between float types (what autocast places). */
const floatCast = (s: PackState, n: ENode | undefined): n is ENode =>
  n?.op === 'cast' && isFloat(enodeAttrs(n, 'cast').to) && isFloat(s.egraph.eclass(n.children[0]).data.dtype);

/** Per float cast the plan computes: its readers moved off it together, where that lowers the plan's cost. */
function foldCasts(s: PackState): void {
  const { egraph, roots, cost } = s;
  const find = (id: Id) => egraph.find(id);
  let reached = reachableClasses(s.choice, roots, find) ?? [];
  const rootSet = new Set(roots.map(find));
  for (const c of [...reached]) {
    const C = find(c);
    if (rootSet.has(C) || !floatCast(s, s.choice.get(C))) continue;
    const readers = reached.filter((k) => s.choice.get(k)?.children.some((x) => find(x) === C));
    if (readers.length === 0) continue;
    const trial = new Map(s.choice);
    let ok = true;
    for (const k of readers) {
      let best: ENode | undefined;
      let bestCost = Number.POSITIVE_INFINITY;
      for (const alt of egraph.eclass(k).nodes) {
        if (alt.children.some((x) => find(x) === C || !trial.has(find(x)))) continue;
        trial.set(k, alt);
        const t = dagCost(trial, roots, cost, find); // Infinity for a cycle or an illegal kernel
        if (t < bestCost) [best, bestCost] = [alt, t];
      }
      if (!best || !Number.isFinite(bestCost)) {
        ok = false;
        break;
      }
      trial.set(k, best);
    }
    if (!ok) continue;
    const t = dagCost(trial, roots, cost, find);
    if (t < s.total) {
      [s.choice, s.total] = [trial, t];
      reached = reachableClasses(s.choice, roots, find) ?? [];
    }
  }
}

/** The cast-folding move (no kernel of its own to price: `cast` nodes cost what the cost model says). */
export const castFoldPacker: Packer = {
  name: 'cast-fold',
  op: 'cast',
  // only where a float cast is in the e-graph (fp32 steps have none: their plans take no extra stage)
  offered: (egraph) => egraph.classesWithOp('cast').some((id) => egraph.eclass(id).nodes.some((n) => n.op === 'cast' && isFloat(enodeAttrs(n, 'cast').to) && isFloat(egraph.eclass(n.children[0]).data.dtype))),
  pack: foldCasts,
};

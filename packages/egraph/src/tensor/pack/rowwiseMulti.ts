// Sibling row kernels (`rowwiseMulti`, offered by rules/rowwiseMulti.ts): a layer norm's x̂ and y from one pass over
// the rows. Priced so that any set of its results costs what it saves, and taken after extraction: every member at
// once (each alone costs its own row kernel, so no one-class move of the extractor takes them), with the readers of
// a member the plan does not compute moved onto it.

import type { PwExpr } from '@neura/ir';
import { dagCost, type ENode, type Id, reachableClasses } from '../../core/index.js';
import { mapInputs } from '../pointwiseFusion.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { nodeOf, type PackState, type Packer, picksOf, type ShareCtx } from './packer.js';

const EPSILON = 1e-6;

/**
 * The kernel split so that any set of its results costs what it saves: result j alone is a `rowwise` over the
 * operands it and the stats read (A_j); the multi node itself carries X = (ΣA − whole)/(k − 1) (what grouping
 * saves per extra result, paid once) and each pick A_j − X. All k results then cost exactly the kernel, one result
 * exactly its own row kernel (never less: a lone pick would otherwise pass for cheaper than the kernel it runs).
 */
export function rowSplit(multi: ENode, src: Id, ctx: ShareCtx): { shared: number; picks: number[] } {
  return ctx.memo(() => {
    const a = enodeAttrs(multi, 'rowwiseMulti');
    const n = multi.children.length;
    const out = ctx.egraph.eclass(src).data;
    const whole = ctx.whole;
    const alone = a.exprs.map((expr) => {
      const reads: number[] = [];
      const note = (e: PwExpr) =>
        mapInputs(e, (i) => {
          if (i < n && !reads.includes(i)) reads.push(i);
          return { op: 'in', index: i };
        });
      note(expr);
      for (const st of a.stats) note(st.expr);
      const at = (i: number): PwExpr => ({ op: 'in', index: i < n ? reads.indexOf(i) : reads.length + i - n });
      const node = irENode('rowwise', { expr: mapInputs(expr, at), stats: a.stats.map((st) => ({ ...st, expr: mapInputs(st.expr, at) })) }, reads.map((i) => multi.children[i]));
      return ctx.cost(node, out);
    });
    const k = alone.length;
    const total = alone.reduce((s, v) => s + v, 0);
    const shared = k > 1 && Number.isFinite(whole) ? Math.max(0, (total - whole) / (k - 1)) : 0;
    return Number.isFinite(whole) ? { shared, picks: alone.map((v) => Math.max(EPSILON, v - shared)) } : { shared: whole, picks: alone.map(() => whole) };
  });
}

/**
 * Per sibling row kernel whose operands the first plan computes: every member at once. A member the plan does
 * not compute (a norm's x̂ where the backward's dγ recomputes it from materialised mean and variance): its readers
 * in the plan may take it instead, each by its best such variant. Kept where the whole plan gets cheaper.
 */
function packRows(s: PackState): void {
  const { egraph, roots, cost, first } = s;
  const find = (id: Id) => egraph.find(id);
  // only kernels of which the plan computes a member; re-derived after each change
  let reached = new Set(reachableClasses(s.choice, roots, find) ?? []);
  for (const m of egraph.classesWithOp('rowwiseMulti')) {
    const M = find(m);
    const n = nodeOf(egraph, M, 'rowwiseMulti');
    if (!n?.children.every((c) => first.choices.has(find(c)))) continue;
    const members = picksOf(egraph, M);
    if (members.size < 2 || [...members.keys()].some((c) => s.choice.get(c)?.op === 'pick')) continue;
    const unreached = [...members.keys()].filter((c) => !reached.has(c));
    if (unreached.length === members.size) continue;
    const trial = new Map(s.choice);
    trial.set(M, n);
    for (const [c, pick] of members) trial.set(c, pick);
    let trialCost: number | undefined; // dagCost(trial) while trial stands still (a pure function of its choices)
    for (const u of unreached)
      for (const [, k] of egraph.eclass(u).parents) {
        const K = find(k);
        if (!reached.has(K) || members.has(K)) continue;
        let best: ENode | undefined;
        let bestCost = (trialCost ??= dagCost(trial, roots, cost, find));
        for (const alt of egraph.eclass(K).nodes) {
          if (alt === trial.get(K) || !alt.children.some((c) => find(c) === u) || !alt.children.every((c) => trial.has(find(c)))) continue;
          const saved = trial.get(K) as ENode;
          trial.set(K, alt);
          const c = dagCost(trial, roots, cost, find);
          trial.set(K, saved);
          if (c < bestCost) [best, bestCost] = [alt, c];
        }
        if (best) {
          trial.set(K, best);
          trialCost = bestCost;
        }
      }
    const t = trialCost ?? dagCost(trial, roots, cost, find);
    if (t < s.total) {
      [s.choice, s.total] = [trial, t];
      reached = new Set(reachableClasses(s.choice, roots, find) ?? []);
    }
  }
}

/** The sibling-row-kernel packer. */
export const rowwiseMultiPacker: Packer = {
  name: 'rowwise-multi',
  op: 'rowwiseMulti',
  late: true,
  share: (multi, index, src, ctx) => rowSplit(multi, src, ctx).picks[index],
  // a hair over its share: a lone pick costs strictly more than the row kernel it stands for
  multiCost: (multi, src, ctx) => rowSplit(multi, src, ctx).shared + 1e-3,
  pack: packRows,
};

// The multi-result update rule: state updates computed elementwise from a shared operand (an optimizer's
// parameter, first and second moment, all from one gradient) become one `pointwiseMulti` kernel whose results
// are the updates' values: each joins its class as a `pick` of the multi node, which keeps a class of its own
// (a class holds one value; the multi node stands for all its results, so it is never unioned with one). Must
// not choose: the multi node is an alternative with a cost, extraction decides (a shared kernel is paid once).
// Invariants: every result is exactly an expression already in its class; no result reads a class of its own
// group (no cycle through the multi node); each result reads its own state elementwise (so the runtime can
// write it in place).

import type { PwExpr } from '@neura/ir';
import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { exprOf, exprSize, mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { tensorAnalysisOf } from '../tensorAnalysis.js';
import { irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

/** Most results of one multi-result kernel (Adam and AdamW update three tensors). */
export const MAX_RESULTS = 4;

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** Whether node `n` reads canonical class `cls`. */
function reads(egraph: EGraph<TensorInfo>, n: ENode, cls: Id): boolean {
  for (const c of n.children) if (egraph.find(c) === cls) return true;
  return false;
}

/** Renumbers the `in` leaves of an expression. */
const remap = (e: PwExpr, f: (index: number) => number): PwExpr => mapInputs(e, (i) => ({ op: 'in', index: f(i) }));

/**
 * For a pointwise node in an update value's class: the sibling updates (same shape, each reading its own state,
 * sharing a full-size operand with this one), each by its largest expression that reads no class of the group,
 * become one `pointwiseMulti` over the union of their operands, within the binding limit.
 */
function multiUpdate(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis) return [];
  const find = (id: Id) => egraph.find(id);
  const C = find(eclass);
  const shape = info(egraph, C).shape;
  const dtype = info(egraph, C).dtype;
  const readsOwnState = (cls: Id, n: ENode) => {
    const s = analysis.updatedState(egraph, cls);
    return s !== undefined && sameShape(info(egraph, s).shape, shape) && n.children.some((c) => find(c) === s);
  };
  if (!readsOwnState(C, node)) return [];
  // siblings: update classes with a pointwise node sharing one of this node's full-size, non-state operands
  const group = new Map<Id, ENode>([[C, node]]);
  for (const c of node.children) {
    const cc = find(c);
    if (!sameShape(info(egraph, cc).shape, shape) || analysis.updatedState(egraph, cc) !== undefined) continue;
    if ([...group.keys()].some((g) => analysis.updatedState(egraph, g) === cc)) continue; // a state of the group
    for (const [, p] of egraph.eclass(cc).parents) {
      const D = find(p);
      if (group.has(D) || group.size >= MAX_RESULTS) continue;
      const t = info(egraph, D);
      const state = analysis.updatedState(egraph, D);
      if (t.dtype !== dtype || !sameShape(t.shape, shape) || state === undefined) continue; // no update: no node reads its own state
      if (!sameShape(info(egraph, state).shape, shape)) continue; // its state is not read elementwise
      // its largest pointwise variant reading its own state and `cc` (the first of equal size), the state asked once
      // per class rather than per variant
      let best: ENode | undefined;
      let bestSize = -1;
      for (const n of egraph.eclass(D).nodes) {
        if (n.op !== 'pointwise' || !reads(egraph, n, state) || !reads(egraph, n, cc)) continue;
        const size = exprSize(exprOf(n));
        if (size > bestSize) {
          best = n;
          bestSize = size;
        }
      }
      if (best) group.set(D, best);
    }
  }
  if (group.size < 2) return [];
  // no member may read a class of the group (the multi node would depend on itself)
  for (const [D, n] of group) if (n.children.some((k) => group.has(find(k)))) group.delete(D);
  if (group.size < 2 || !group.has(C)) return [];
  const members = [...group].sort((a, b) => a[0] - b[0]); // canonical order: every member builds the same node
  // the same members (classes and nodes) met from another member's variant: the node built then, not built again
  const built = ctx.of('update-multi:built', () => ({ ids: new Map<ENode, number>(), groups: new Map<string, Map<Id, Id>>() }));
  const number = (n: ENode) => {
    let k = built.ids.get(n);
    if (k === undefined) built.ids.set(n, (k = built.ids.size));
    return k;
  };
  let key = '';
  for (const [D, n] of members) key += `${D}:${number(n)},`;
  const before = built.groups.get(key)?.get(C);
  if (before !== undefined) return [before];
  const inputs: Id[] = [];
  const slot = (cls: Id) => {
    const k = inputs.indexOf(cls);
    return k >= 0 ? k : inputs.push(cls) - 1;
  };
  const exprs = members.map(([, n]) => remap(exprOf(n), (i) => slot(find(n.children[i]))));
  if (inputs.length + members.length > analysis.maxBindings) return [];
  const multi = irENode('pointwiseMulti', { exprs, dtype }, inputs);
  const out: Id[] = [];
  const m = addRecorded(egraph, multi, ['update-multi']);
  const picks = new Map<Id, Id>();
  built.groups.set(key, picks);
  members.forEach(([D], j) => {
    const r = addRecorded(egraph, irENode('pick', { index: j }, [m]), ['update-multi']);
    picks.set(D, r);
    if (D === C) out.push(r);
    else egraph.union(D, r);
  });
  return out;
}

/** Guard: the node's class is the value of a state update and the node reads that state (what `multiUpdate` asks first). */
function readsOwnUpdatedState(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean {
  const s = tensorAnalysisOf(egraph)?.updatedState(egraph, eclass);
  return s !== undefined && sameShape(info(egraph, s).shape, info(egraph, eclass).shape) && node.children.some((c) => egraph.find(c) === s);
}

/** The multi-result update rule set. */
export const multiUpdateRules: readonly TensorRewrite[] = [nodeRule('update-multi', ['pointwise'], multiUpdate, { guard: readsOwnUpdatedState })];

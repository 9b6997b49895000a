// The multi-tensor update rule: per-parameter updates — multi-result `pointwiseMulti` nodes the update-multi rule
// built, or a lone `pointwise` update (SGD without momentum) — with the same expressions, each writing every result
// in place through one of its own full-size operands,
// become one `pointwiseMultiTensor` over all of them: one dispatch for every parameter once the runtime lays each
// operand role out in one buffer. Each result joins its class as a `pick` of the new node, which keeps a class of
// its own. Must not choose: the node is an alternative with a cost (extraction decides). Invariants: a group's
// operands are its member's full-size operands, in the member's order; shared operands are one-element classes
// every member reads at the same place; no class is an operand of two groups; groups stay within the binding size.

import { arenaSlotBytes, byteSize, type PwExpr, numel, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { tensorAnalysisOf } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

/** A per-parameter update that can join a multi-tensor group. */
interface Member {
  readonly cls: Id;
  /** Its per-group operands' classes (roles), in operand order. */
  readonly roles: readonly Id[];
  /** The class holding each result (the update values). */
  readonly results: readonly Id[];
  readonly shape: readonly number[];
  /** What members of one group share: expressions over [shared…, roles…], shared classes, written roles. */
  readonly key: string;
  readonly exprs: readonly PwExpr[];
  readonly shared: readonly Id[];
}

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** Renumbers the `in` leaves of an expression. */
const remap = (e: PwExpr, f: (index: number) => number): PwExpr => mapInputs(e, (i) => ({ op: 'in', index: f(i) }));

/**
 * A `pointwiseMulti` e-node as a group member, or undefined: f32, its operands one-element (shared) or of its
 * shape (roles), and each result held by a pick whose class is the update of a state it reads as a role. A
 * `pointwise` node is a member of one result, its own class, when that class is such an update and no
 * multi-result update holds it already (update-multi covered it): `loneOk`, asked once per class by the caller.
 */
function memberOf(egraph: EGraph<TensorInfo>, cls: Id, node: ENode, loneOk: boolean): Member | undefined {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis || (node.op !== 'pointwiseMulti' && node.op !== 'pointwise')) return undefined;
  const find = (id: Id) => egraph.find(id);
  const lone = node.op === 'pointwise';
  if (lone && !loneOk) return undefined;
  const t = info(egraph, cls);
  if (t.dtype !== 'f32' || numel(t.shape) <= 1) return undefined;
  const kids = node.children.map(find);
  if (new Set(kids).size !== kids.length) return undefined; // a repeated operand would be bound twice
  const shared: Id[] = [];
  const roles: Id[] = [];
  const index: number[] = []; // operand → shared index, or −1 − role
  for (const k of kids) {
    const s = info(egraph, k);
    // an f16 operand (an autocast gradient, read through cast:f32 in the expression) joins a group of its own key
    if (s.dtype !== 'f32' && s.dtype !== 'f16') return undefined;
    if (sameShape(s.shape, t.shape)) index.push(-roles.push(k));
    else if (numel(s.shape) === 1) index.push(shared.push(k) - 1);
    else return undefined;
  }
  if (roles.some((r) => analysis.updatedState(egraph, r) !== undefined)) return undefined; // would read a new value
  const exprs = lone ? [enodeAttrs(node, 'pointwise').expr] : enodeAttrs(node, 'pointwiseMulti').exprs;
  if ((lone ? enodeAttrs(node, 'pointwise').dtype : enodeAttrs(node, 'pointwiseMulti').dtype) !== 'f32') return undefined;
  const results: Id[] = [];
  const written: number[] = [];
  for (let r = 0; r < exprs.length; r++) {
    let holder: Id | undefined = lone ? find(cls) : undefined;
    if (!lone)
      for (const [pn, p] of egraph.eclass(cls).parents)
        if (pn.op === 'pick' && enodeAttrs(pn, 'pick').index === r && find(pn.children[0]) === find(cls)) holder = find(p);
    const state = holder === undefined ? undefined : analysis.updatedState(egraph, holder);
    const role = state === undefined ? -1 : roles.indexOf(find(state));
    if (holder === undefined || role < 0) return undefined;
    results.push(holder);
    written.push(role);
  }
  const S = shared.length;
  const remapped = exprs.map((e) => remap(e, (i) => (index[i] >= 0 ? index[i] : S - 1 - index[i])));
  const key = JSON.stringify([remapped, shared, written]);
  return { cls: find(cls), roles, results, shape: t.shape, key, exprs: remapped, shared };
}

/**
 * All members of the e-graph, grouped by key, each list sorted by class (every trigger sees the same groups); made
 * once per e-graph epoch (a rebuild), since every pick of every member asks for it.
 */
function membersOf(egraph: EGraph<TensorInfo>, ctx: RuleCtx): Scan {
  const memo = ctx.of<Scan>('update-multi-tensor:members', () => ({ epoch: -1, groups: new Map(), built: new Map() }));
  if (memo.epoch !== egraph.epoch) {
    memo.epoch = egraph.epoch;
    memo.groups = scanMembers(egraph);
    memo.built = new Map();
  }
  return memo;
}

/** One epoch's members by key, and the picks already built for a member (per result) in this epoch. */
interface Scan {
  epoch: number;
  groups: Map<string, Member[]>;
  built: Map<Member, Id[]>;
}

function scanMembers(egraph: EGraph<TensorInfo>): Map<string, Member[]> {
  const out = new Map<string, Member[]>();
  const updates = tensorAnalysisOf(egraph);
  const candidates = [...egraph.classesWithOp('pointwiseMulti'), ...egraph.classesWithOp('pointwise').filter((id) => updates?.updatedState(egraph, id) !== undefined)];
  for (const id of new Set(candidates.map((i) => egraph.find(i)))) {
    const c = egraph.find(id);
    // whether its pointwise nodes may be lone members (per class: an update class holds hundreds of variants)
    const loneOk = updates?.updatedState(egraph, c) !== undefined && !egraph.eclass(c).nodes.some((n) => n.op === 'pick');
    for (const n of egraph.eclass(c).nodes) {
      const m = memberOf(egraph, c, n, loneOk);
      if (!m) continue;
      let l = out.get(m.key);
      if (!l) out.set(m.key, (l = []));
      if (!l.some((x) => x.cls === m.cls)) l.push(m);
    }
  }
  for (const l of out.values()) l.sort((a, b) => a.cls - b.cls);
  return out;
}

/** Splits members into chunks whose bytes per role stay within `maxBytes` (each start aligned to 256 bytes); no class in two groups. */
function chunks(members: readonly Member[], maxBytes: number): Member[][] {
  const out: Member[][] = [];
  let cur: Member[] = [];
  let bytes = 0;
  const used = new Set<Id>();
  for (const m of members) {
    if (m.roles.some((r) => used.has(r)) || m.results.some((r) => used.has(r))) continue;
    for (const r of [...m.roles, ...m.results]) used.add(r);
    const b = arenaSlotBytes(numel(m.shape) * byteSize('f32'));
    if (cur.length && bytes + b > maxBytes) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(m);
    bytes += b;
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * For a pick of a `pointwiseMulti` member, or a lone `pointwise` update: the multi-tensor node over the member's
 * chunk of like members (see the header); returns this result's pick of it (the other results' picks are unioned
 * here too).
 */
function multiTensorUpdate(egraph: EGraph<TensorInfo>, eclass: Id, trigger: ENode, ctx: RuleCtx): Id[] {
  const analysis = tensorAnalysisOf(egraph);
  const src = egraph.find(trigger.op === 'pick' ? trigger.children[0] : eclass);
  if (!analysis || (trigger.op === 'pick' && !egraph.eclass(src).nodes.some((n) => n.op === 'pointwiseMulti'))) return [];
  const scan = membersOf(egraph, ctx);
  let me: Member | undefined;
  let like: Member[] = [];
  for (const l of scan.groups.values()) {
    me = l.find((m) => egraph.find(m.cls) === src);
    if (me) {
      like = l;
      break;
    }
  }
  if (!me) return [];
  const done = scan.built.get(me);
  // another result of this chunk already built it: this result's pick (its class may have been unioned since)
  if (done) return me.results.flatMap((r, j) => (egraph.find(r) === egraph.find(eclass) ? [done[j]] : []));
  const chunk = chunks(like, analysis.maxBindingBytes).find((c) => c.some((m) => m === me));
  if (!chunk || chunk.length < 2) return [];
  const R = me.exprs.length;
  const inputs = [...me.shared, ...chunk.flatMap((m) => m.roles)];
  const mt = irENode('pointwiseMultiTensor', { exprs: [...me.exprs], dtype: 'f32', shared: me.shared.length, shapes: chunk.map((m) => [...m.shape]) }, inputs);
  const id = addRecorded(egraph, mt, ['update-multi-tensor']);
  const out: Id[] = [];
  chunk.forEach((m, g) => {
    const picks: Id[] = [];
    for (let r = 0; r < R; r++) {
      const p = addRecorded(egraph, irENode('pick', { index: g * R + r }, [id]), ['update-multi-tensor']);
      picks.push(p);
      if (egraph.find(m.results[r]) === egraph.find(eclass)) out.push(p);
      else egraph.union(m.results[r], p);
    }
    scan.built.set(m, picks);
  });
  return out;
}

/** Guard: a pick, or a pointwise node whose class is the value of a state update. */
const isCandidate = (egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean =>
  node.op === 'pick' || tensorAnalysisOf(egraph)?.updatedState(egraph, eclass) !== undefined;

/** The multi-tensor update rule set. */
export const multiTensorUpdateRules: readonly TensorRewrite[] = [nodeRule('update-multi-tensor', ['pick', 'pointwise'], multiTensorUpdate, { guard: isCandidate })];

// Sibling reductions: reductions of the same kind over the same prologue shape and axes that read a common
// operand (a layer norm's dγ = Σ dY·x̂ and dβ = Σ dY; a bias gradient beside them) become one
// `pointwiseReduceMulti` kernel that reads the shared operands once; each joins its class as a `pick` of the multi
// node, which keeps a class of its own. Only column reductions (ir's `columnsPath`: strips or split) are grouped:
// there the kernel computes every member in the same pass or two; on other paths it would run them one after another,
// which the cost model cannot see as slower. Members have no epilogue (see sameReduction). Must not choose: extraction decides (the kernel is paid once).
// Invariants: every result is exactly a reduction already in its class; no member reads a class of the group.

import type { OpAttrs, PwExpr } from '@neura/ir';
import { columnsPath, REDUCE_OPS, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fusionWidth } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, classHasAnyOp, nodeRule, type TensorRewrite } from './ruleKit.js';

/** Most reductions in one kernel (each result is a binding: the operands and results share the device limit). */
export const MAX_SIBLINGS = 4;

const RULE = 'reduce-multi';
const REDUCTION_OPS: readonly string[] = [...REDUCE_OPS, 'pointwiseReduce'];
const REDUCTION_OP_SET: ReadonlySet<string> = new Set(REDUCTION_OPS);
const IDENTITY: PwExpr = { op: 'in', index: 0 };
const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** A reduction node as prologue, epilogue and reduction attributes (a plain reduction's prologue reads `$0`). */
function reductionOf(egraph: EGraph<TensorInfo>, n: ENode): Reduction | undefined {
  if (n.op === 'pointwiseReduce') return enodeAttrs(n, 'pointwiseReduce');
  if (!(REDUCE_OPS as readonly string[]).includes(n.op)) return undefined;
  // asked for every node of every reader of a shared operand: kept per node (a node and its operand's type never change)
  let r = plainReductions.get(n);
  if (!r) {
    const a = enodeAttrs(n, n.op as (typeof REDUCE_OPS)[number]);
    r = { expr: IDENTITY, post: IDENTITY, shape: [...info(egraph, n.children[0]).shape], reduce: n.op as (typeof REDUCE_OPS)[number], axes: a.axes, keepdims: a.keepdims };
    plainReductions.set(n, r);
  }
  return r;
}

type Reduction = OpAttrs['pointwiseReduce'];
const plainReductions = new WeakMap<ENode, Reduction>();
const isIdentity = (e: PwExpr) => e.op === 'in' && e.index === 0;
/**
 * Same reduction, and no epilogue: a reduction's class with an epilogue is mostly a consumer's scaling fused in
 * (AdamW's (1 − β₁)·g), which would group a sum with its own multiples and take the update rules' classes.
 */
const sameReduction = (a: Reduction, b: Reduction) => isIdentity(a.post) && isIdentity(b.post) && a.reduce === b.reduce && a.keepdims === b.keepdims && sameShape(a.shape, b.shape) && sameShape(a.axes, b.axes);

/** A reduction node of a class with its attributes. */
interface Variant {
  readonly node: ENode;
  readonly r: Reduction;
}

/**
 * The reduction variants of class `cls` without epilogue (the only ones `sameReduction` accepts), in node order;
 * kept per class while its node list stands still (a rebuild may rewrite it in place: not across epochs): each
 * operand the class reads scans it again, and ~3 in 4 of its nodes are fused reductions with an epilogue (GPT
 * 6x384: ~56 000 nodes scanned, ~14 500 without).
 */
function plainVariants(egraph: EGraph<TensorInfo>, cls: Id, ctx: RuleCtx): readonly Variant[] {
  const cache = ctx.of(`${RULE}:plain-variants`, () => new Map<Id, { nodes: readonly ENode[]; length: number; epoch: number; variants: Variant[] }>());
  const nodes = egraph.eclass(cls).nodes;
  const hit = cache.get(cls);
  if (hit && hit.nodes === nodes && hit.length === nodes.length && hit.epoch === egraph.epoch) return hit.variants;
  const variants: Variant[] = [];
  for (const node of nodes) {
    const r = reductionOf(egraph, node);
    if (r && isIdentity(r.post)) variants.push({ node, r });
  }
  cache.set(cls, { nodes, length: nodes.length, epoch: egraph.epoch, variants });
  return variants;
}

/** The reduction variant of a class reading the fewest operands (among those `accept` takes), or undefined. */
function fewestOperands(egraph: EGraph<TensorInfo>, cls: Id, ctx: RuleCtx, accept: (n: ENode, r: Reduction) => boolean): Variant | undefined {
  let best: Variant | undefined;
  for (const v of plainVariants(egraph, cls, ctx)) {
    // the cheap test first: only a node reading fewer operands than the best so far can replace it
    if (best && v.node.children.length >= best.node.children.length) continue;
    if (accept(v.node, v.r)) best = v;
  }
  return best;
}

/** The node as a reduction this rule groups: an f32 column reduction (strips or split) without epilogue. */
function groupableReduction(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Reduction | undefined {
  const r = reductionOf(egraph, node);
  return r && isIdentity(r.post) && columnsPath(r.shape, r.axes) !== undefined && info(egraph, eclass).dtype === 'f32' ? r : undefined;
}

/**
 * The classes of the reduction nodes among class `c`'s parent entries (maybe stale ids), kept per class with the
 * parent list they were read from: each kind of reduction reading `c` asks, and a shared operand has thousands of
 * readers. A parent list only grows at its end until a rebuild replaces it, so only entries added since are read
 * (the groups built here add readers of `c`: rescanning every list was ~2/3 of the rule's time on the GPT step).
 */
function reducingParents(egraph: EGraph<TensorInfo>, c: Id, ctx: RuleCtx): readonly Id[] {
  const cache = ctx.of(`${RULE}:reducing-parents`, () => new Map<Id, { parents: object; length: number; ids: Id[] }>());
  const parents = egraph.eclass(c).parents;
  let hit = cache.get(c);
  if (!hit || hit.parents !== parents || hit.length > parents.length) cache.set(c, (hit = { parents, length: 0, ids: [] }));
  for (let i = hit.length; i < parents.length; i++) if (REDUCTION_OP_SET.has(parents[i][0].op)) hit.ids.push(parents[i][1]);
  hit.length = parents.length;
  return hit.ids;
}

/**
 * For a column reduction (strips or split): per operand class `c` it reads, the reductions reading `c` (this one's class and
 * its siblings: the same reduction without epilogue), each class by its variant reading `c` with the fewest
 * operands, become one `pointwiseReduceMulti` over the union of their operands, within the binding limit. The
 * group depends on `c` and the reduction only (not on which variant triggered it), so each is built once.
 */
function reduceMulti(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const r = groupableReduction(egraph, eclass, node);
  if (!r) return [];
  const find = (id: Id) => egraph.find(id);
  const C = find(eclass);
  // distinct operands plus one binding per result must fit the device's storage buffers (as a pointwise kernel's)
  const maxBindings = fusionWidth(egraph) + 1;
  const done = ctx.of(`${RULE}:scanned`, () => new Set<string>()); // operand classes whose readers were grouped
  const out: Id[] = [];
  const signature = `${r.reduce}|${r.shape}|${r.axes}|${r.keepdims}`;
  for (const c0 of node.children) {
    const c = find(c0);
    // the group over `c` is the same from every reduction reading it: scan its parents once per run
    const scanned = `${c}|${signature}`;
    if (done.has(scanned)) continue;
    done.add(scanned);
    const readsC = (n: ENode, s: Reduction) => sameReduction(s, r) && n.children.some((k) => find(k) === c);
    const group = new Map<Id, { node: ENode; r: Reduction }>();
    const operands = new Set<Id>();
    // the readers of `c` by their variant with the fewest operands, those reading least first (then by class)
    // (a class reading `c` with a reduction node is the class of a reduction among `c`'s parent entries: a shared
    // operand has hundreds of readers, mostly pointwise)
    const readerIds: Id[] = [C];
    for (const D of reducingParents(egraph, c, ctx)) readerIds.push(find(D));
    const readers = [...new Set(readerIds)]
      .filter((D) => info(egraph, D).dtype === 'f32' && classHasAnyOp(egraph, D, REDUCTION_OPS))
      .map((D) => ({ D, best: fewestOperands(egraph, D, ctx, readsC) }))
      .filter((x): x is { D: Id; best: { node: ENode; r: Reduction } } => x.best !== undefined)
      .sort((a, b) => a.best.node.children.length - b.best.node.children.length || a.D - b.D);
    for (const { D, best } of readers) {
      if (group.size >= MAX_SIBLINGS) break;
      const more = new Set([...operands, ...best.node.children.map(find)]);
      if (more.size + group.size + 1 > maxBindings) continue;
      group.set(D, best);
      for (const k of more) operands.add(k);
    }
    // no member may read a class of the group (the multi node would depend on itself)
    for (const [D, m] of group) if (m.node.children.some((k) => group.has(find(k)))) group.delete(D);
    if (group.size < 2) continue;
    const members = [...group].sort((a, b) => a[0] - b[0]); // canonical order: every member builds the same node
    const inputs: Id[] = [];
    const slot = (cls: Id) => {
      const k = inputs.indexOf(cls);
      return k >= 0 ? k : inputs.push(cls) - 1;
    };
    const results = members.map(([, m]) => ({ expr: mapInputs(m.r.expr, (i) => ({ op: 'in', index: slot(find(m.node.children[i])) })), post: m.r.post }));
    const multi = irENode('pointwiseReduceMulti', { results, shape: [...r.shape], reduce: r.reduce, axes: [...r.axes], keepdims: r.keepdims }, inputs);
    const m = addRecorded(egraph, multi, [RULE]);
    members.forEach(([D], j) => {
      const pick = addRecorded(egraph, irENode('pick', { index: j }, [m]), [RULE]);
      if (D === C) out.push(pick);
      else egraph.union(D, pick);
    });
  }
  return out;
}

/** The sibling-reduction rule set (run after fusion: it groups the fused reductions). */
// the guard reads the node's attributes and types only (GPT 6×384: 582 of 3 714 reductions pass it)
export const reduceMultiRules: readonly TensorRewrite[] = [
  nodeRule(RULE, [...REDUCE_OPS, 'pointwiseReduce'], reduceMulti, { guard: (eg, c, n) => groupableReduction(eg, c, n) !== undefined, guardBySignature: true }),
];

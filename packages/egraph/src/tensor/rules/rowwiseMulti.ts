// Sibling row kernels: rowwise nodes over the same rows that compute the same statistics of the same operand
// classes (a layer norm's x̂, kept for the backward's dγ, and its affine output y = x̂·γ + β) become one
// `rowwiseMulti` kernel that reads the rows once, computes the statistics once and writes every result; each
// joins its class as a `pick` of the multi node, which keeps a class of its own. Members read the same operands of
// the rows' rank (narrower ones may differ), so no member depends on another through a row tensor. Must not
// choose: extraction decides (the kernel is paid once, each pick its share). Invariants: every result is exactly
// a rowwise node already in its class; no member reads a class of the group.

import type { PwExpr, RowStat } from '@neura/ir';
import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { exprKey } from '../exprKey.js';
import { exprSize, mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fusionWidth } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

/**
 * Most statistics of a grouped row kernel: a forward norm's (mean and variance; a softmax's max and sum). Grouped
 * nodes also read one row tensor only (x; γ, β are narrower). A backward's dx kernels (dY and x, three or four
 * sums) share their statistics among the dx's own pieces, which are never all written: grouping them only grows
 * the e-graph (GPT 6x384: 576 multi nodes, none taken, 0.4 s of the siblings pass).
 */
const MAX_STATS = 2;
/** Most siblings paired up per group of equal statistics (pairs: k·(k − 1)/2 multi nodes). */
const MAX_SIBLINGS = 3;

const RULE = 'rowwise-multi';

/**
 * A rowwise node's statistics over its operands' classes: equal keys are equal statistics of the same rows. The
 * classes are listed in the order the statistics first read them and named by that position (`$2j`; stat k is
 * `$2k+1`), so the expressions key with `exprKey` (their JSON texts were half of the rule's time on the GPT step).
 */
function statsKey(egraph: EGraph<TensorInfo>, n: ENode): string {
  const { stats } = enodeAttrs(n, 'rowwise');
  const k = n.children.length;
  const classes: Id[] = [];
  const named = (i: number): PwExpr => {
    if (i >= k) return { op: 'in', index: 2 * (i - k) + 1 };
    const c = egraph.find(n.children[i]);
    const j = classes.indexOf(c);
    return { op: 'in', index: 2 * (j >= 0 ? j : classes.push(c) - 1) };
  };
  let key = '';
  for (const s of stats) key += `${s.reduce};${exprKey(mapInputs(s.expr, named))}${exprKey(s.post)}`;
  return `${classes.join(',')}|${key}`;
}

/** Whether a rowwise node can be grouped: one to `MAX_STATS` statistics, exactly one operand of the rows' rank. */
function groupable(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean {
  const stats = enodeAttrs(node, 'rowwise').stats.length;
  if (stats === 0 || stats > MAX_STATS) return false;
  const rank = egraph.eclass(eclass).data.shape.length;
  let wide: Id | undefined;
  for (const k of node.children) {
    if (egraph.eclass(k).data.shape.length !== rank) continue;
    if (wide !== undefined && egraph.find(k) !== wide) return false;
    wide = egraph.find(k);
  }
  return wide !== undefined;
}

/**
 * For a groupable rowwise node: the rowwise nodes reading its row tensor `c` in other classes of the same shape,
 * with the same statistics and the same row tensors (each class by its variant with the fewest operands, among
 * those whose statistics carry the most) are siblings; each pair of them becomes a `rowwiseMulti` over the union
 * of their operands, within the binding limit. The siblings depend on the key only (not on which member triggered
 * it), so each group is built once.
 */
function rowwiseMulti(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const a = enodeAttrs(node, 'rowwise');
  const shape = egraph.eclass(eclass).data.shape;
  if (!groupable(egraph, eclass, node)) return [];
  const find = (id: Id) => egraph.find(id);
  const C = find(eclass);
  // a node's statistics and its operands of the rows' rank, as one key (memoised per node for the run)
  const keys = ctx.of(`${RULE}:keys`, () => new Map<ENode, string>());
  const keyOf = (m: ENode): string => {
    let k = keys.get(m);
    if (k === undefined) {
      // members read the same operands of the rows' rank and differ only in narrower ones (γ, β of [C]): a member
      // reading another row tensor (a backward's dY beside the forward's x̂) may depend on a result of the group
      const wide: Id[] = [];
      for (const k of m.children) {
        const c = find(k);
        if (egraph.eclass(c).data.shape.length === shape.length && !wide.includes(c)) wide.push(c);
      }
      wide.sort((x, y) => x - y);
      k = `${wide.join(',')}|${statsKey(egraph, m)}`;
      keys.set(m, k);
    }
    return k;
  };
  // the one row tensor it reads (x; γ and β are narrower), as a forward norm or softmax: its readers are the candidates
  const c = node.children.map(find).find((k) => egraph.eclass(k).data.shape.length === shape.length) as Id;
  // one variant per class: the one whose statistics carry the most of the expression (rsqrt(var + ε) as a stat,
  // not in the expression); every class of a norm has that variant, so siblings still meet, a third as often
  const most = ctx.of(`${RULE}:most`, () => new Map<Id, Map<number, number>>()); // per class: stat count → largest post size
  // per node for the run: each scan asks it of every reader of its row tensor
  const postSizes = ctx.of(`${RULE}:post-sizes`, () => new Map<ENode, number>());
  const postSize = (m: ENode) => {
    let size = postSizes.get(m);
    if (size === undefined) postSizes.set(m, (size = enodeAttrs(m, 'rowwise').stats.reduce((t, st) => t + exprSize(st.post), 0)));
    return size;
  };
  const preferred = (cls: Id, m: ENode) => {
    let sizes = most.get(cls);
    if (!sizes) {
      sizes = new Map();
      for (const o of egraph.eclass(cls).nodes) {
        if (o.op !== 'rowwise') continue;
        const k = enodeAttrs(o, 'rowwise').stats.length;
        sizes.set(k, Math.max(sizes.get(k) ?? 0, postSize(o)));
      }
      most.set(cls, sizes);
    }
    return postSize(m) >= (sizes.get(enodeAttrs(m, 'rowwise').stats.length) ?? 0);
  };
  if (!preferred(C, node)) return [];
  const key = keyOf(node);
  // the rowwise nodes reading a class (a norm's input has thousands of readers; each of its keys scans them)
  const readers = ctx.of(`${RULE}:readers`, () => new Map<Id, (readonly [ENode, Id])[]>());
  const rowwiseReaders = (cls: Id) => {
    let r = readers.get(cls);
    if (!r) readers.set(cls, (r = egraph.eclass(cls).parents.filter(([p]) => p.op === 'rowwise')));
    return r;
  };
  // operands and results share the device's storage buffers (a pointwise kernel's inputs are that limit − 1)
  const maxBindings = fusionWidth(egraph) + 1;
  const done = ctx.of(`${RULE}:scanned`, () => new Set<string>());
  const out: Id[] = [];
  if (!done.has(key)) {
    done.add(key);
    // per class reading `c`: its rowwise variant with this key and the fewest operands
    const best = new Map<Id, ENode>([[C, node]]);
    for (const [p, pc] of rowwiseReaders(c)) {
      const D = find(pc);
      if (D === C || !sameShape(egraph.eclass(D).data.shape, shape) || egraph.eclass(D).data.dtype !== 'f32') continue;
      // equal keys hold as many statistics: the count first (GPT 6x384: 1 385 -> 979 keys written per optimize)
      if (enodeAttrs(p, 'rowwise').stats.length !== a.stats.length || keyOf(p) !== key) continue;
      const q = egraph.canonicalize(p);
      if (!preferred(D, p)) continue;
      const had = best.get(D);
      if (!had || q.children.length < had.children.length) best.set(D, q);
    }
    if (best.size < 2) return out;
    // every pair of the siblings reading least (a layer norm's x̂ with its y, not with an x̂·γ nobody reads: an
    // unused result is not written, but a pair says exactly what runs)
    const siblings = [...best].sort((x, y) => x[1].children.length - y[1].children.length || x[0] - y[0]).slice(0, MAX_SIBLINGS);
    for (let i = 0; i < siblings.length; i++)
      for (let j = i + 1; j < siblings.length; j++) {
        const members = [siblings[i], siblings[j]].sort((x, y) => x[0] - y[0]); // canonical order: one node per pair
        const [[D0, m0], [D1, m1]] = members;
        // neither may read the other's class (the multi node would depend on itself)
        if (m0.children.some((k) => find(k) === D1) || m1.children.some((k) => find(k) === D0)) continue;
        const inputs: Id[] = [];
        for (const [, m] of members) for (const k of m.children) if (!inputs.includes(find(k))) inputs.push(find(k));
        if (inputs.length + members.length > maxBindings) continue;
        const n = inputs.length;
        // a member's `$i` is its operand i (now the multi's slot of that class) or, from its operand count on, a stat
        const renumber = (m: ENode, e: PwExpr) => mapInputs(e, (i) => ({ op: 'in', index: i < m.children.length ? inputs.indexOf(find(m.children[i])) : n + i - m.children.length }));
        const stats: RowStat[] = a.stats.map((st) => ({ ...st, expr: renumber(node, st.expr) }));
        const exprs = members.map(([, m]) => renumber(m, enodeAttrs(m, 'rowwise').expr));
        const multi = addRecorded(egraph, irENode('rowwiseMulti', { exprs, stats }, inputs), [RULE]);
        members.forEach(([D], r) => {
          const pick = addRecorded(egraph, irENode('pick', { index: r }, [multi]), [RULE]);
          if (D === C) out.push(pick);
          else egraph.union(D, pick);
        });
      }
  }
  return out;
}

/** The sibling-row-kernel rule set (run after row-local fusion: it groups the rowwise nodes it built). */
export const rowwiseMultiRules: readonly TensorRewrite[] = [nodeRule(RULE, ['rowwise'], rowwiseMulti, { guard: groupable, guardBySignature: true })];

// Row-local fusion: a pointwise node that reads statistics of its rows (a reduction over the last axis, kept as
// [..., 1]) becomes one `rowwise` node that computes those statistics itself, then the expression. Layer norm
// and RMS norm (forward, and the backward's dx with its row sums), written by nn or by hand from primitives, so
// become one kernel each. Statistics are resolved recursively: a statistic whose prologue reads an earlier one
// (the variance reads the mean), a row-scalar pointwise of statistics (rsqrt(var + ε), the backward's
// -½·r³·Σ…) inlined into the expressions, a reduction seen through the reshape of a `keepdims: false` sum, a row
// scalar broadcast by `expand`. A pointwise epilogue of a row-local producer (the residual stream's gradient added
// to a norm's dx) takes the producer in too.
// The cost model decides: the rowwise re-reads the row (one kernel) instead of writing and reading the stats.
// Must not keep state outside the run's `RuleCtx`. Invariant: a fused node computes exactly its class's value.

import type { OpAttrs, PwExpr, ReduceOp, Shape } from '@neura/ir';
import { broadcastsTo, pwExprSize, REDUCE_OPS, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { broadcastIsShape, exprOf, exprSize, sameExpr } from '../pointwiseFusion.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fusionExprSize, fusionWidth } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { mapIn } from './matmulEpilogue.js';
import { addRecorded, classHasAnyOp, classHasOp, classRule, ctxOf, ruleSetIn, type TensorRewrite } from './ruleKit.js';
import { type RuleSet, unionRules, withRule } from '../ruleSet.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;
const $ = (index: number): PwExpr => ({ op: 'in', index });
const IDENTITY: PwExpr = $(0);
/** Placeholder index of stat k while operands are still being numbered (renumbered to n + k at the end). */
const STAT_BASE = 1 << 20;
/** Most stats of one rowwise node (a layer norm's dx needs four). */
const MAX_STATS = 6;
/** The inputs naming stats 0 … MAX_STATS − 1, made once (expressions are values: leaves may be shared). */
const STAT_REFS: readonly PwExpr[] = Array.from({ length: MAX_STATS }, (_, k) => $(STAT_BASE + k));
/** The input naming stat `k` (module level: under tsx a closure per call costs a `__name` call each time it is made). */
const statRef = (k: number): PwExpr => STAT_REFS[k];

/** Whether `t` is a per-row scalar of rows of `out`: the same shape with the last axis 1. */
function isRowScalar(t: Shape, out: Shape): boolean {
  const r = out.length;
  if (t.length !== r || t[r - 1] !== 1) return false;
  for (let i = 0; i < r - 1; i++) if (t[i] !== out[i]) return false;
  return true;
}

/** The row scalar a class broadcasts with an `expand` node to rows of shape `out`, if it holds one. */
function expandedRowScalar(egraph: EGraph<TensorInfo>, id: Id, out: Shape): Id | undefined {
  if (!classHasOp(egraph, id, 'expand')) return undefined; // the op set is kept per class: no scan of its variants
  for (const n of egraph.eclass(id).nodes) if (n.op === 'expand' && isRowScalar(info(egraph, n.children[0]).shape, out)) return egraph.find(n.children[0]);
  return undefined;
}

/** A statistic of a rowwise node being built (its expression's inputs still numbered as `rowwiseOf` meets them). */
interface Stat {
  readonly expr: PwExpr;
  readonly reduce: ReduceOp;
  readonly post: PwExpr;
}

/** A reduction over the last axis of a tensor of shape `out`, as a stat description and the classes it reads. */
interface RowReduction {
  readonly expr: PwExpr;
  readonly reduce: ReduceOp;
  readonly post: PwExpr;
  readonly children: readonly Id[];
}

/** `n` as a reduction over exactly the last axis of an `out`-shaped prologue (`keepdims` as asked), else undefined. */
function rowReductionOf(egraph: EGraph<TensorInfo>, n: ENode, out: Shape, keepdims: boolean): RowReduction | undefined {
  const last = out.length - 1;
  if (n.op === 'pointwiseReduce') {
    const a = enodeAttrs(n, 'pointwiseReduce');
    if (a.keepdims !== keepdims || a.axes.length !== 1 || a.axes[0] !== last || !sameShape(a.shape, out)) return undefined;
    return { expr: a.expr, reduce: a.reduce, post: a.post, children: n.children };
  }
  if (!(REDUCE_OPS as readonly string[]).includes(n.op)) return undefined;
  const reduce = n.op as ReduceOp;
  const a = enodeAttrs(n, reduce);
  if (a.keepdims !== keepdims || a.axes.length !== 1 || a.axes[0] !== last || !sameShape(info(egraph, n.children[0]).shape, out)) return undefined;
  return { expr: IDENTITY, reduce, post: IDENTITY, children: n.children };
}

/** The row reductions a row-scalar class holds: directly (`keepdims`), or as the reshape of one without. */
function rowReductionsIn(egraph: EGraph<TensorInfo>, cls: Id, out: Shape): RowReduction[] {
  const found: RowReduction[] = [];
  for (const n of egraph.eclass(cls).nodes) {
    const direct = rowReductionOf(egraph, n, out, true);
    if (direct) found.push(direct);
    else if (n.op === 'reshape' && sameShape(info(egraph, n.children[0]).shape, out.slice(0, -1))) {
      for (const m of egraph.eclass(n.children[0]).nodes) {
        const r = rowReductionOf(egraph, m, out, false);
        if (r) found.push(r);
      }
    }
  }
  return found;
}

/**
 * What resolution reads of one class, which depends neither on the inlining mode nor on what a resolution bound so
 * far: its type, where it stands against the rows, the row scalar it broadcasts, its row-local producer, its row
 * reductions and its row-scalar pointwise form. Kept per rowwise-fusion apply (nothing is added to the e-graph
 * until its end): a class's variants resolve the same classes ~300 times per apply on the GPT step.
 */
interface ClassFacts {
  readonly t: TensorInfo;
  /** An f32 constant: inlined as its value. */
  readonly constF32: boolean;
  /** That value as an expression (made when first read). */
  constExpr?: PwExpr;
  /** The shape of the rows' tensor. */
  readonly full: boolean;
  /** A per-row scalar of the rows. */
  readonly rowScalar: boolean;
  /** May be read as an operand (f32 or f16, broadcast to the rows). */
  readonly operandOk: boolean;
  /** The row scalar a full class broadcasts with `expand` (`expandedRowScalar`). */
  readonly broadcast: Id | undefined;
  /** A full class's first rowwise node, if any. */
  readonly rowwise: ENode | undefined;
  /** A row scalar's reductions (computed when first asked), with the classes each would bind as new operands. */
  reds?: readonly Reduction[];
  /** A row scalar's first pointwise node reading only row scalars and constants (null: none; computed when first asked). */
  scalarPw?: ENode | null;
  /** Other classes these facts read: each must stay canonical with the same data (and node list, where given). */
  readonly deps: Dep[];
}

/** A class that facts were derived from, as it was then. */
interface Dep {
  readonly id: Id;
  readonly data: TensorInfo;
  readonly nodes?: readonly ENode[];
  readonly length?: number;
}

/** Records that `f` was derived from class `id` (its data, and its node list when `withNodes`). */
function dependOn(egraph: EGraph<TensorInfo>, f: ClassFacts, id: Id, withNodes: boolean): void {
  const c = egraph.eclass(id);
  f.deps.push(withNodes ? { id: c.id, data: c.data, nodes: c.nodes, length: c.nodes.length } : { id: c.id, data: c.data });
}

/** Whether the facts kept for a class still hold: it and every class they read are unchanged. */
function stillHolds(egraph: EGraph<TensorInfo>, k: Kept, S: Shape): boolean {
  if (!sameShape(k.S, S)) return false;
  for (const d of k.facts.deps) {
    if (egraph.find(d.id) !== d.id) return false;
    const c = egraph.eclass(d.id);
    if (c.data !== d.data || (d.nodes !== undefined && (c.nodes !== d.nodes || c.nodes.length !== d.length))) return false;
  }
  return true;
}

/** A row reduction of a class with its expression size and its children that are neither row scalars nor constants. */
interface Reduction {
  readonly r: RowReduction;
  readonly size: number;
  /** Canonical children that would be new operands unless already bound (`newOperands` of the original). */
  readonly full: readonly Id[];
}

/** The facts of canonical class `id` against rows of shape `S`, kept in `memo`. */
function factsOf(egraph: EGraph<TensorInfo>, memo: RowMemo, id: Id, S: Shape): ClassFacts {
  let f = memo.scratch.facts[id];
  if (f) return f;
  const kept = memo.scratch.kept.get(id);
  if (kept && stillHolds(egraph, kept, S)) f = kept.facts;
  else f = newFacts(egraph, id, S);
  memo.scratch.facts[id] = f;
  memo.factIds.push(id);
  return f;
}

/** The facts of canonical class `id` computed afresh (and kept for later applies). */
function newFacts(egraph: EGraph<TensorInfo>, id: Id, S: Shape): ClassFacts {
  const t = info(egraph, id);
  const full = sameShape(t.shape, S);
  const f: ClassFacts = {
    t,
    constF32: t.constant !== undefined && t.dtype === 'f32',
    full,
    rowScalar: isRowScalar(t.shape, S),
    operandOk: (t.dtype === 'f32' || t.dtype === 'f16') && broadcastsTo(t.shape, S), // (no broadcast shape built per operand)
    broadcast: full ? expandedRowScalar(egraph, id, S) : undefined,
    rowwise: full && classHasOp(egraph, id, 'rowwise') ? egraph.eclass(id).nodes.find((n) => n.op === 'rowwise') : undefined,
    deps: [],
  };
  dependOn(egraph, f, id, true);
  if (f.broadcast !== undefined) dependOn(egraph, f, f.broadcast, false);
  ctxOf(egraph).of<Scratch>('rowwise-fusion:scratch', newScratch).kept.set(id, { S, facts: f });
  return f;
}

/** The row reductions of row-scalar class `id` (see `ClassFacts.reds`). */
function reductionsOf(egraph: EGraph<TensorInfo>, memo: RowMemo, id: Id, f: ClassFacts, S: Shape): readonly Reduction[] {
  if (f.reds) return f.reds;
  // the reshaped classes a reduction is seen through (their node lists are read)
  for (const n of egraph.eclass(id).nodes) if (n.op === 'reshape') dependOn(egraph, f, egraph.find(n.children[0]), true);
  const reds = rowReductionsIn(egraph, id, S).map((r) => {
    const full: Id[] = [];
    for (const c of r.children) {
      const k = egraph.find(c);
      dependOn(egraph, f, k, false);
      const kf = factsOf(egraph, memo, k, S);
      if (!kf.rowScalar && kf.t.constant === undefined) full.push(k);
    }
    return { r, size: exprSize(r.expr), full };
  });
  f.reds = reds;
  return reds;
}

/** The first pointwise node of row-scalar class `id` reading only row scalars and constants (see `ClassFacts.scalarPw`). */
function scalarPointwiseOf(egraph: EGraph<TensorInfo>, memo: RowMemo, id: Id, f: ClassFacts, S: Shape): ENode | undefined {
  if (f.scalarPw === undefined) {
    f.scalarPw =
      egraph.eclass(id).nodes.find(
        (p) =>
          p.op === 'pointwise' &&
          p.children.every((k) => {
            dependOn(egraph, f, egraph.find(k), false);
            const kf = factsOf(egraph, memo, egraph.find(k), S);
            return kf.rowScalar || kf.t.constant !== undefined;
          }),
      ) ?? null;
  }
  return f.scalarPw ?? undefined;
}

/**
 * `(pointwise f … stat …)` with stats of its rows → `rowwise` computing the stats, then f. Operands and stats are
 * numbered as they are met; a class is an operand (read at the element, broadcast to the output) unless it is a
 * constant or a row scalar that resolves to a stat or to an inlined expression of stats.
 */
function rowwiseOf(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, inline: Inlining, memo: RowMemo): Candidate | undefined {
  const out = info(egraph, eclass);
  const S = out.shape;
  if (out.dtype !== 'f32' || S.length === 0 || S[S.length - 1] < 2) return undefined;
  const res = new RowResolution(egraph, inline, memo, S);
  let kids: PwExpr[] | undefined;
  try {
    kids = res.resolveChildren(node.children);
  } finally {
    for (const id of res.slotLog) res.slot[id] = undefined;
  }
  const { operands, stats, maxInputs, maxSize, sources, sourceClasses } = res;
  if (!kids || stats.length === 0 || operands.length > maxInputs) return undefined;
  const fused = mapIn(exprOf(node), (i) => kids[i]);
  if (pwExprSize(fused) > maxSize || !broadcastIsShape(egraph, operands, S)) return undefined;
  const n = operands.length;
  const expr = renumbered(fused, n);
  const attrs = { expr, stats: stats.map((s) => ({ ...s, expr: renumbered(s.expr, n) })) };
  return { attrs, operands, eclass, node, sources, sourceClasses, size: pwExprSize(expr) + attrs.stats.reduce((s, st) => s + pwExprSize(st.expr) + pwExprSize(st.post), 0) };
}

/**
 * `e` with operand inputs as they are and stat placeholders after the `n` operands. Module functions, not closures
 * made per candidate: under tsx (esbuild's `keepNames`) each named closure costs a `__name` call as it is made.
 */
function renumbered(e: PwExpr, n: number): PwExpr {
  return mapIn(e, (i) => (i >= STAT_BASE ? $(n + i - STAT_BASE) : $(i)));
}

/** The rules that made what a candidate fused (looked up for the candidates kept only). */
function candidateRules(egraph: EGraph<TensorInfo>, c: Candidate): RuleSet {
  let set = withRule('rowwise-fusion', ruleSetIn(egraph, c.eclass, c.node));
  for (let i = 0; i < c.sources.length; i++) set = unionRules(set, ruleSetIn(egraph, c.sourceClasses[i], c.sources[i]));
  return set;
}

/**
 * One resolution of `rowwiseOf`: the operands and stats bound so far and the journal to undo an inlining. A class
 * with methods rather than closures made per call: the GPT step resolves thousands of variants in its rows pass,
 * and under tsx (esbuild's `keepNames`) each named closure also costs a `__name` call (~20 % of the rule's time).
 */
class RowResolution {
  readonly maxInputs: number;
  readonly maxSize: number;
  readonly operands: Id[] = [];
  readonly stats: Stat[] = [];
  /** Binding and visiting mark by class id (the run's scratch tables: cleared before `rowwiseOf` returns). */
  readonly slot: (PwExpr | undefined)[];
  private readonly visiting: Uint8Array;
  /** The row-scalar pointwise nodes inlined, in order (their rules are looked up only for the candidates kept). */
  readonly sources: ENode[] = [];
  readonly sourceClasses: Id[] = [];
  /** A journal of what resolution bound, so an inlining that goes over the limits is undone. */
  readonly slotLog: Id[] = [];
  /** The classes added to `memo.inlinable` and `memo.cut`, in order (what a memoised child step adds again). */
  private readonly inlinableLog: Id[] = [];
  private readonly cutLog: Id[] = [];

  constructor(
    private readonly egraph: EGraph<TensorInfo>,
    private readonly inline: Inlining,
    private readonly memo: RowMemo,
    private readonly S: Shape,
  ) {
    this.maxInputs = fusionWidth(egraph);
    this.maxSize = fusionExprSize(egraph);
    this.slot = memo.scratch.slot;
    this.visiting = memo.scratch.visiting;
  }

  private setSlot(id: Id, e: PwExpr): void {
    this.slot[id] = e;
    this.slotLog.push(id);
  }

  /** Back to the lengths `operands`, `stats` and the journal had (no mark object per inlining). */
  private undo(o: number, st: number, sl: number): void {
    this.operands.length = o;
    this.stats.length = st;
    for (let i = sl; i < this.slotLog.length; i++) this.slot[this.slotLog[i]] = undefined;
    this.slotLog.length = sl;
  }

  private operand(id: Id, f: ClassFacts): PwExpr | undefined {
    // an f16 operand is read as its f32 value (the kernel's f16 load converts; its readers cast it in the expression)
    if (!f.operandOk) return undefined;
    const e = $(this.operands.push(id) - 1);
    this.setSlot(id, e);
    return e;
  }

  /** How many new full operands resolving a reduction's children would bind (to pick the variant reading least). */
  private newOperands(full: readonly Id[]): number {
    let k = 0;
    for (const id of full) if (this.slot[id] === undefined) k++;
    return k;
  }

  // a stat met twice (the variance under two epilogues, a producer's mean) is computed once; stats are few
  // (MAX_STATS), so they are compared in place rather than by JSON texts (the texts cost ~90 ms a GPT step), in a
  // loop (`findIndex` made a closure per call: 10 MB per 3 GPT optimizes)
  private statAt(expr: PwExpr, reduce: ReduceOp, post: PwExpr): number {
    for (let k = 0; k < this.stats.length; k++) {
      const s = this.stats[k];
      if (s.reduce === reduce && sameExpr(s.post, post) && sameExpr(s.expr, expr)) return k;
    }
    return -1;
  }

  private addStat(expr: PwExpr, reduce: ReduceOp, post: PwExpr): PwExpr | undefined {
    const exact = this.statAt(expr, reduce, post);
    if (exact >= 0) return statRef(exact);
    const raw = this.statAt(expr, reduce, IDENTITY);
    if (raw >= 0) return mapIn(post, () => statRef(raw));
    if (this.stats.length >= MAX_STATS || pwExprSize(expr) > this.maxSize) return undefined;
    return statRef(this.stats.push({ expr, reduce, post }) - 1);
  }

  /** A producer that is itself row-local: its operands, stats and expression inlined (one kernel for both). */
  private inlineRowwise(r: ENode | undefined): PwExpr | undefined {
    if (!r) return undefined;
    const a = enodeAttrs(r, 'rowwise');
    const kids = this.resolveAll(r.children);
    if (!kids) return undefined;
    // the producer's `$i`: its operand i, then its own stats as they are bound
    const own: PwExpr[] = [];
    const input = (i: number) => (i < kids.length ? kids[i] : own[i - kids.length]);
    for (const s of a.stats) {
      const e = this.addStat(mapIn(s.expr, input), s.reduce, s.post);
      if (!e) return undefined;
      own.push(e);
    }
    return mapIn(a.expr, input);
  }

  private noteInlinable(id: Id): void {
    this.memo.inlinable.add(id);
    this.inlinableLog.push(id);
  }

  private noteCut(id: Id): void {
    this.memo.cut.add(id);
    this.cutLog.push(id);
  }

  /**
   * `resolveAll` of a variant's children, each resolved once per apply for the same children before it: resolving
   * a child depends only on the inlining mode and on the state its earlier siblings left, and the e-graph does not
   * change within an apply, so a child after a prefix already met is replayed from what it did then (`ChildStep`).
   * The variants of a class mostly open with the same children (GPT 6x384: 37 000 of 78 000 resolves).
   */
  resolveChildren(kids: readonly Id[]): PwExpr[] | undefined {
    let steps = this.memo.steps.get(this.inline);
    if (!steps) this.memo.steps.set(this.inline, (steps = new Map<Id, ChildStep>()));
    const es: PwExpr[] = [];
    for (const c of kids) {
      const id = this.egraph.find(c);
      let step: ChildStep | undefined = steps.get(id);
      if (step) this.replay(step);
      else steps.set(id, (step = this.record(id)));
      if (!step.expr) return undefined;
      es.push(step.expr);
      steps = step.next;
    }
    return es;
  }

  /** Resolves one child at the top level, keeping what it appended to the state. */
  private record(id: Id): ChildStep {
    const o = this.operands.length;
    const st = this.stats.length;
    const sl = this.slotLog.length;
    const so = this.sources.length;
    const il = this.inlinableLog.length;
    const cu = this.cutLog.length;
    const expr = this.resolve(id);
    // at the top level nothing is undone below these lengths: the state only grew
    const bound = tail(this.slotLog, sl);
    const values: PwExpr[] = [];
    for (const b of bound) values.push(this.slot[b] as PwExpr);
    return {
      expr,
      operands: tail(this.operands, o),
      stats: tail(this.stats, st),
      bound,
      values,
      sources: tail(this.sources, so),
      sourceClasses: tail(this.sourceClasses, so),
      inlinable: tail(this.inlinableLog, il),
      cut: tail(this.cutLog, cu),
      next: new Map(),
    };
  }

  /** Appends what a recorded child step appended (the state is the one it was recorded from). */
  private replay(step: ChildStep): void {
    for (const id of step.operands) this.operands.push(id);
    for (const s of step.stats) this.stats.push(s);
    for (let i = 0; i < step.bound.length; i++) this.setSlot(step.bound[i], step.values[i]);
    for (let i = 0; i < step.sources.length; i++) {
      this.sources.push(step.sources[i]);
      this.sourceClasses.push(step.sourceClasses[i]);
    }
    for (const id of step.inlinable) this.noteInlinable(id);
    for (const id of step.cut) this.noteCut(id);
  }

  resolveAll(kids: readonly Id[]): PwExpr[] | undefined {
    const es: PwExpr[] = [];
    for (const c of kids) {
      const e = this.resolve(c);
      if (!e) return undefined;
      es.push(e);
    }
    return es;
  }

  private resolve(c: Id): PwExpr | undefined {
    const { egraph, memo, slot, visiting, inline, S } = this;
    const id = egraph.find(c);
    const known = slot[id];
    if (known) return known;
    const f = factsOf(egraph, memo, id, S);
    if (f.constF32) return (f.constExpr ??= { op: 'const', value: f.t.constant as number });
    if (visiting[id] === 1) return this.operand(id, f);
    // a row scalar broadcast to the rows (autograd's gradient of a kept-dims reduction): the row scalar itself
    if (f.broadcast !== undefined) {
      visiting[id] = 1;
      const e = this.resolve(f.broadcast);
      visiting[id] = 0;
      if (e) {
        this.setSlot(id, e);
        return e;
      }
    }
    if (!f.rowScalar) {
      if (inline !== 'all' && inline !== id) {
        if (inline === 'none' && f.rowwise) this.noteInlinable(id);
        return this.operand(id, f);
      }
      if (!f.full) return this.operand(id, f);
      visiting[id] = 1;
      const o = this.operands.length;
      const st = this.stats.length;
      const sl = this.slotLog.length;
      let e = this.inlineRowwise(f.rowwise);
      visiting[id] = 0;
      if (e && (this.operands.length > this.maxInputs || pwExprSize(e) > this.maxSize)) e = undefined;
      if (!e) {
        this.undo(o, st, sl);
        this.noteCut(id);
        return this.operand(id, f);
      }
      this.setSlot(id, e);
      return e;
    }
    // an f16 row scalar holds rounded values that its reduction nodes' expressions do not round: read as an operand
    if (f.t.dtype !== 'f32') return this.operand(id, f);
    visiting[id] = 1;
    try {
      // a stat: the reduction variant that binds the fewest new operands, then the one that fused the most
      let best: Reduction | undefined;
      let bestNew = 0;
      for (const x of reductionsOf(egraph, memo, id, f, S)) {
        const k = this.newOperands(x.full);
        if (!best || k < bestNew || (k === bestNew && x.size > best.size)) {
          best = x;
          bestNew = k;
        }
      }
      if (best) {
        const r = best.r;
        const kids = this.resolveAll(r.children);
        const e = kids && this.addStat(mapIn(r.expr, (i) => kids[i]), r.reduce, r.post);
        if (e) {
          this.setSlot(id, e);
          return e;
        }
      }
      // a row scalar computed from row scalars: inlined where it is read
      const p = scalarPointwiseOf(egraph, memo, id, f, S);
      if (p) {
        const kids = this.resolveAll(p.children);
        if (!kids) return undefined;
        this.sources.push(p);
        this.sourceClasses.push(id);
        const e = mapIn(exprOf(p), (i) => kids[i]);
        this.setSlot(id, e);
        return e;
      }
      return this.operand(id, f);
    } finally {
      visiting[id] = 0;
    }
  }
}

/** Whether two rowwise attributes are the same (expressions compared as trees, `sameExpr`). */
function sameRowwise(a: OpAttrs['rowwise'], b: OpAttrs['rowwise']): boolean {
  if (a.stats.length !== b.stats.length || !sameExpr(a.expr, b.expr)) return false;
  for (let i = 0; i < a.stats.length; i++) {
    const s = a.stats[i];
    const t = b.stats[i];
    if (s.reduce !== t.reduce || !sameExpr(s.expr, t.expr) || !sameExpr(s.post, t.post)) return false;
  }
  return true;
}

/**
 * What resolving one child of a variant did at the top level, after the siblings before it: its expression
 * (undefined: the variant does not resolve) and what it appended to the resolution's state. `next` holds the steps of
 * the children that followed it.
 */
interface ChildStep {
  readonly expr: PwExpr | undefined;
  readonly operands: readonly Id[];
  readonly stats: readonly Stat[];
  /** The classes bound (the journal's entries, in order) and the bindings they held at the end. */
  readonly bound: readonly Id[];
  readonly values: readonly PwExpr[];
  readonly sources: readonly ENode[];
  readonly sourceClasses: readonly Id[];
  readonly inlinable: readonly Id[];
  readonly cut: readonly Id[];
  readonly next: Map<Id, ChildStep>;
}

const NOTHING: readonly never[] = [];

/** The entries of `a` from `from` on (most steps append nothing to most lists: no empty array each). */
function tail<T>(a: readonly T[], from: number): readonly T[] {
  return a.length === from ? NOTHING : a.slice(from);
}

/** What resolving the variants of one class shares: its classes' row reductions, and its row-local producers. */
interface RowMemo {
  readonly scratch: Scratch;
  /** The first children's steps of the variants resolved so far, per inlining mode. */
  readonly steps: Map<Inlining, Map<Id, ChildStep>>;
  /** The classes with facts in `scratch` (cleared at the end of the apply). */
  readonly factIds: Id[];
  /** Full-shape operands holding a rowwise node met without inlining (only those can inlining change). */
  readonly inlinable: Set<Id>;
  /** Producers that inlining every producer had to leave as operands (over a limit). */
  readonly cut: Set<Id>;
}

/**
 * Tables by class id that every apply of the run reuses, each left cleared: the binding and the visiting mark of a
 * resolution, and the facts of an apply (a map, a set and closures per candidate: the GPT step resolves ~78 000
 * times over ~4 300 candidates in its one rows iteration).
 */
interface Scratch {
  slot: (PwExpr | undefined)[];
  facts: (ClassFacts | undefined)[];
  visiting: Uint8Array;
  /**
   * Facts kept from earlier applies of the iteration, by class, with the rows' shape they were made for: used again
   * while `stillHolds` (a row scalar's reductions were rebuilt by every reader's apply: ~12 % of the rule's profile).
   */
  readonly kept: Map<Id, Kept>;
  /** The e-graph's epoch `kept` holds for (a rebuild may rewrite node lists in place: dropped then). */
  epoch: number;
}

/** Facts kept for a class: made for rows of shape `S`. */
interface Kept {
  readonly S: Shape;
  readonly facts: ClassFacts;
}

/** Empty scratch tables. */
const newScratch = (): Scratch => ({ slot: [], facts: [], visiting: new Uint8Array(0), kept: new Map(), epoch: -1 });

/** The run's scratch tables, grown to the e-graph's ids (between applies only: they are clear then). */
function scratchOf(egraph: EGraph<TensorInfo>): Scratch {
  const s = ctxOf(egraph).of<Scratch>('rowwise-fusion:scratch', newScratch);
  if (s.epoch !== egraph.epoch) {
    s.kept.clear();
    s.epoch = egraph.epoch;
  }
  const n = egraph.totalIds;
  if (s.visiting.length < n) {
    const size = n + (n >> 1);
    s.slot = new Array(size).fill(undefined);
    s.facts = new Array(size).fill(undefined);
    s.visiting = new Uint8Array(size);
  }
  return s;
}

/**
 * Which row-local producers a resolution inlines: none, all it can (recursively), or exactly one class. Inlining
 * one at a time matters where a layer norm's dx adds the gradient of the residual stream: inlining that producer
 * too would take the stats the norm's own dx needs (MAX_STATS), so only the norm's own producer is inlined.
 */
type Inlining = 'none' | 'all' | Id;

/** A rowwise node one pointwise variant resolves to, before it is added. */
interface Candidate {
  readonly attrs: OpAttrs['rowwise'];
  readonly operands: readonly Id[];
  /** The consumer it was resolved from, and the row-scalar pointwise nodes it inlined (for `candidateRules`). */
  readonly eclass: Id;
  readonly node: ENode;
  readonly sources: readonly ENode[];
  readonly sourceClasses: readonly Id[];
  /** Expression nodes over all its expressions (per use). */
  readonly size: number;
}

/**
 * Rowwise forms added per class (the fused pointwise variants of a class resolve to many, mostly the same): those
 * reading the fewest intermediates that would be written only for them, then the fewest operands. 9, not 8: under
 * mixed precision a norm's x̂ also has forms reading the f16 product of its residual branch, and at 8 the form the
 * norm's affine output shares its stats with (so both become one rowwiseMulti) was the one cut (GPT 2×128: two norms
 * as a row kernel and a pointwise each, 86 dispatches instead of 84); fp32 plans of the bench steps are unchanged.
 */
const KEEP_PER_CLASS = 9;

/** Whether an f32 pointwise node reads a row scalar of its own rows (what a statistic looks like). */
function readsRowScalar(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean {
  if (node.op !== 'pointwise') return false;
  const out = egraph.eclass(eclass).data;
  if (out.shape.length === 0 || out.dtype !== 'f32') return false;
  // a loop, not `some` with a closure: asked for every node of every class at each search
  for (const c of node.children) if (isRowScalar(egraph.eclass(c).data.shape, out.shape)) return true;
  return false;
}

/**
 * Whether an f32 pointwise node reads row statistics itself, or reads a tensor of its own shape that a pointwise
 * node reading row statistics computes (an epilogue of a row-local producer: the residual stream's gradient added
 * to a layer norm's dx). The rule runs one iteration, so the producer's rowwise form is not there yet at search
 * time; classes apply in the order they were made, producers first.
 */
function rowLocal(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean {
  if (readsRowScalar(egraph, eclass, node)) return true;
  if (node.op !== 'pointwise' || egraph.eclass(eclass).data.dtype !== 'f32') return false;
  const S = egraph.eclass(eclass).data.shape;
  for (const c of node.children) {
    const child = egraph.eclass(c);
    if (!sameShape(child.data.shape, S)) continue;
    // the kept op sets first: a class of hundreds of variants is scanned only when it holds pointwise nodes
    if (classHasOp(egraph, child.id, 'rowwise')) return true;
    if (classHasOp(egraph, child.id, 'pointwise')) for (const m of child.nodes) if (readsRowScalar(egraph, child.id, m)) return true;
  }
  return false;
}

/** The ops of a result another fused kernel would write. */
const WRITTEN_OPS: readonly string[] = ['pointwise', 'rowwise'];

/** Every pointwise variant of a class that reads row statistics, resolved; the best few added to the class. */
function rowwiseFusion(egraph: EGraph<TensorInfo>, eclass: Id): Id[] {
  // distinct candidates in the order first found, by operands then attributes (compared in place: no JSON texts)
  const found: Candidate[] = [];
  const byOperands = new Map<string, Candidate[]>();
  const memo: RowMemo = { scratch: scratchOf(egraph), steps: new Map(), factIds: [], inlinable: new Set(), cut: new Set() };
  const offer = (c: Candidate | undefined) => {
    if (!c) return;
    const key = c.operands.join(',');
    const same = byOperands.get(key);
    if (!same) byOperands.set(key, [c]);
    else if (same.some((d) => sameRowwise(d.attrs, c.attrs))) return;
    else same.push(c);
    found.push(c);
  };
  const S = egraph.eclass(eclass).data.shape;
  const offerAll = (n: ENode) => {
    if (!rowLocal(egraph, eclass, n)) return;
    memo.inlinable.clear();
    if (readsRowScalar(egraph, eclass, n)) offer(rowwiseOf(egraph, eclass, n, 'none', memo));
    else {
      // an epilogue reads no stats of its own: without inlining it resolves to nothing, only its producers count
      for (const c of n.children) {
        const child = egraph.eclass(c);
        if (sameShape(child.data.shape, S) && classHasOp(egraph, child.id, 'rowwise')) memo.inlinable.add(child.id);
      }
    }
    // without a row-local producer met, inlining resolves exactly as without it
    if (memo.inlinable.size === 0) return;
    memo.cut.clear();
    offer(rowwiseOf(egraph, eclass, n, 'all', memo));
    // a producer that inlining them all had to leave out (earlier ones took the limits), inlined alone
    for (const p of [...memo.cut]) if (memo.inlinable.has(p)) offer(rowwiseOf(egraph, eclass, n, p, memo));
  };
  try {
    for (const n of egraph.eclass(eclass).nodes) offerAll(n);
  } finally {
    for (const id of memo.factIds) memo.scratch.facts[id] = undefined;
  }
  // operands that another fused kernel would have to write (a pointwise or row-local result) count first
  const written = (c: Candidate) => c.operands.filter((o) => classHasAnyOp(egraph, o, WRITTEN_OPS)).length;
  const ranked = found.map((c) => ({ c, w: written(c) }));
  const best = ranked.sort((a, b) => a.w - b.w || a.c.operands.length - b.c.operands.length || a.c.size - b.c.size).slice(0, KEEP_PER_CLASS).map((r) => r.c);
  const made = best.map((c) => candidateRules(egraph, c)); // before any node is added
  return best.map((c, i) => addRecorded(egraph, irENode('rowwise', c.attrs, [...c.operands]), made[i]));
}

/**
 * The row-local fusion rule, over classes holding a pointwise node that reads a row scalar. Run it after the
 * pointwise and reduction fusion rules have saturated: it reads what they build.
 */
export const rowwiseFusionRules: readonly TensorRewrite[] = [
  classRule('rowwise-fusion', (egraph, id) => egraph.eclass(id).nodes.some((n) => rowLocal(egraph, id, n)), rowwiseFusion),
];

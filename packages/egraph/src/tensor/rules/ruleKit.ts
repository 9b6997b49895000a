// Building blocks of the tensor rule sets: one-line pattern rules (`trw`), node-level rules whose applier
// sees the matched e-node with its attributes (`nodeRule`), shape conditions, and provenance recording.
// Must not hold rules itself. Invariant: every node a rule adds is recorded with the rule's name.

import { broadcastShapes, sameShape } from '@neura/ir';
import type { Condition, EGraph, ENode, Id, Match, PatternAst, PatternNode, Searcher } from '../../core/index.js';
import type { SExp } from '../../core/index.js';
import type { NodeRuleOptions as CoreNodeRuleOptions, NodeSignature, RuleState } from '../../core/index.js';
import { MultiPattern, Pattern, Rewrite, RuleError, Subst, dataMatches, fnApplier, instantiateData, nodeRule as coreNodeRule, parseSExp, rw } from '../../core/index.js';
import type { TensorAnalysis, TensorInfo } from '../tensorAnalysis.js';
import { fusionWidth, tensorAnalysisOf } from '../tensorAnalysis.js';
import { tensorLanguage } from '../tensorLanguage.js';
import { type RuleCtx, widthTermIn } from '../ruleCtx.js';
import { EMPTY_RULES, type RuleSet } from '../ruleSet.js';

/** A rewrite over the tensor e-graph. */
export type TensorRewrite = Rewrite<TensorInfo>;

type TCond = Condition<TensorInfo>;

/** Adds a node, records that `rules` made it, and returns its class. */
export function addRecorded(egraph: EGraph<TensorInfo>, node: ENode, rules: Iterable<string> | RuleSet): Id {
  const id = egraph.add(node);
  tensorAnalysisOf(egraph)?.record(id, egraph.canonicalize(node), rules);
  return id;
}

/** The rules recorded for a node in a class (none when the e-graph runs another analysis). */
export function rulesOf(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): readonly string[] {
  return tensorAnalysisOf(egraph)?.rulesOf(egraph, cls, node) ?? [];
}

/** `rulesOf` as an interned set, to join with `withRule`/`unionRules` (no list per node built). */
export function ruleSetIn(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): RuleSet {
  return tensorAnalysisOf(egraph)?.ruleSetOf(egraph, cls, node) ?? EMPTY_RULES;
}

/**
 * A one-line rule `trw('mul-one', '(mul ?a 1)', '?a', cond)` in the tensor language's pattern syntax; a node
 * built by the right side is recorded with the rule's name. Unbound right-side variables throw at construction.
 */
export function trw(name: string, lhs: string, rhs: string, condition?: TCond): TensorRewrite {
  let searcher: Pattern;
  let applier: Pattern;
  try {
    searcher = Pattern.parse(lhs, tensorLanguage);
    applier = Pattern.parse(rhs, tensorLanguage);
  } catch (e) {
    throw new RuleError(`rule '${name}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const recording = {
    applyOne(egraph: EGraph<TensorInfo>, _eclass: Id, subst: Subst): Id[] {
      const id = applier.instantiate(egraph, subst);
      const root = applier.ast;
      if (root.kind === 'node') {
        const node = egraph.eclass(id).nodes.find((n) => n.op === root.op);
        if (node) tensorAnalysisOf(egraph)?.record(id, node, [name]);
      }
      return [id];
    },
    vars: () => applier.vars(),
    toString: () => applier.toString(tensorLanguage),
  };
  return new Rewrite<TensorInfo>(name, searcher, recording, condition);
}

/**
 * A signature like the default one that counts, per child, only what `count` says of its class (e.g. its
 * pointwise nodes): for a rule whose result reads nothing else of its children, nodes of other ops joining a child
 * (most of the fuse pass's growth) no longer re-match it.
 */
export function childSignature(count: (egraph: EGraph<TensorInfo>, cls: Id) => number) {
  return (egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): number => {
    let h = Math.imul(egraph.find(eclass) + 1, 0x9e3779b1);
    for (const c of node.children) {
      const cls = egraph.eclass(c);
      h = Math.imul(h ^ cls.id, 0x85ebca6b) + count(egraph, cls.id);
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) + (cls.data.constant === undefined ? 0 : 1);
    }
    return h | 0;
  };
}

/** Options of `nodeRule` (core's, without `state`: a tensor rule's state is its run's `RuleCtx`). */
export type NodeRuleOptions = Omit<CoreNodeRuleOptions<TensorInfo>, 'state'> & {
  /**
   * No fusion width bounds what the rule builds (nor its guard): its scan state is kept when the analysis widens
   * (`RuleCtx.ofAnyWidth`), so the wide pass visits only what changed since, not every node again.
   */
  readonly anyWidth?: boolean;
  /**
   * The rule's result depends on the fusion width only for nodes its `apply` records as cut by it
   * (`RuleCtx.refusedAtWidth` under this table key): its scan state is kept at a widen, as with `anyWidth`, and the
   * signature gains `RuleCtx.widthTerm`, so the wide pass matches again only those nodes.
   */
  readonly widthRefusals?: string;
};

/** The per-run rule state of a tensor e-graph (its analysis's `ctx`). */
export function ctxOf(egraph: EGraph<TensorInfo>): RuleCtx {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis) throw new RuleError('tensor rules run on an e-graph with a TensorAnalysis (it holds their per-run state)');
  return analysis.ctx;
}

/**
 * The ops of a class's node list and the node count per op, kept per list object while it stands still (lists only
 * grow, or are replaced by a rebuild): one view per class for ops and counts (two caches were two lookups per ask),
 * shared by every width (a list's ops never depend on it).
 */
interface ClassView {
  readonly nodes: readonly ENode[];
  length: number;
  readonly ops: Set<string>;
  readonly counts: Map<string, number>;
}

// the views of the last ctx asked for, by class id (ids are dense): signatures ask for a view per child of every
// candidate node on every scan, and the ctx lookup and a Map by id were most of that (GPT 6x384: ~4 % of optimize)
let viewsCtx: RuleCtx | undefined;
let viewsAnalysis: object | undefined;
let views: (ClassView | undefined)[] = [];

/** The view of class `cls`'s current node list, extended to its length (kept by class id: a replaced list's view is dropped). */
function viewOf(egraph: EGraph<TensorInfo>, cls: Id): ClassView {
  const c = egraph.eclass(cls);
  const nodes = c.nodes;
  // the ctx looked up (an `instanceof` test) only when the analysis is not the last one seen or has widened since
  const analysis = egraph.analysis;
  if (analysis !== viewsAnalysis || (analysis as TensorAnalysis).ctx !== viewsCtx) {
    const ctx = ctxOf(egraph);
    viewsAnalysis = analysis;
    viewsCtx = ctx;
    views = ctx.ofAnyWidth<(ClassView | undefined)[]>('ruleKit:class-views', newArray);
  }
  // grown one slot at a time: a write far past the end would turn the array into a slow dictionary
  while (views.length <= c.id) views.push(undefined);
  let e = views[c.id];
  if (!e || e.nodes !== nodes) views[c.id] = e = { nodes, length: 0, ops: new Set(), counts: new Map() };
  for (; e.length < nodes.length; e.length++) {
    const o = nodes[e.length].op;
    const n = e.counts.get(o);
    if (n === undefined) e.ops.add(o);
    e.counts.set(o, (n ?? 0) + 1);
  }
  return e;
}

/** The ops of class `cls`'s nodes (a shared set: do not modify). */
export function classOps(egraph: EGraph<TensorInfo>, cls: Id): ReadonlySet<string> {
  return viewOf(egraph, cls).ops;
}

/** How many nodes of op `op` class `cls` holds. */
export function classOpCount(egraph: EGraph<TensorInfo>, cls: Id, op: string): number {
  return viewOf(egraph, cls).counts.get(op) ?? 0;
}

/** Whether class `cls` holds a node of op `op`. */
export function classHasOp(egraph: EGraph<TensorInfo>, cls: Id, op: string): boolean {
  return classOps(egraph, cls).has(op);
}

/** Whether class `cls` holds a node of any of `ops`. */
export function classHasAnyOp(egraph: EGraph<TensorInfo>, cls: Id, ops: readonly string[]): boolean {
  const set = classOps(egraph, cls);
  for (const op of ops) if (set.has(op)) return true;
  return false;
}

/**
 * What a node rule's result can depend on, by default: the node's class and, per child, its canonical class, node
 * count and known constant, hashed to a number (a collision only skips a rewrite, never makes a wrong one). Classes
 * only ever gain nodes, so an unchanged signature means the rule would add nothing new.
 */
function nodeSignature(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): number {
  let h = Math.imul(egraph.find(eclass) + 1, 0x9e3779b1);
  for (const c of node.children) {
    const cls = egraph.eclass(c);
    h = Math.imul(h ^ cls.id, 0x85ebca6b) + cls.nodes.length;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) + (cls.data.constant === undefined ? 0 : 1);
  }
  return h | 0;
}

/**
 * A rule over every e-node of the given ops (core's `nodeRule`: the incremental scan, signatures, guards): `apply`
 * sees the matched node (attributes included) and the run's rule state, and returns the classes to union with its
 * class. The default signature also counts each child's known constant. The rule's per-run state lives in the
 * run's `RuleCtx` (dropped when the analysis widens, unless `anyWidth`).
 */
export function nodeRule(
  name: string,
  ops: readonly string[],
  apply: (egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx) => readonly Id[] | Id | undefined,
  opts: NodeRuleOptions = {},
): TensorRewrite {
  const { anyWidth, widthRefusals, ...core } = opts;
  const state = anyWidth || widthRefusals !== undefined ? anyWidthState : ctxOf;
  const base = core.signature ?? nodeSignature;
  const signature: NodeSignature<TensorInfo> = widthRefusals === undefined ? base : withWidthTerm(base, widthRefusals);
  // a widen changes the width term of nodes in classes that did not change: the next scan visits every node
  const fullScanKey = widthRefusals === undefined ? undefined : fusionWidth;
  return coreNodeRule<TensorInfo>(name, ops, (egraph, eclass, node) => apply(egraph, eclass, node, ctxOf(egraph)), { ...core, signature, state, fullScanKey });
}

/** `base` with `RuleCtx.widthTerm` of the rule's width-cut table hashed in (0, most nodes: `base` itself). */
function withWidthTerm(base: NodeSignature<TensorInfo>, key: string): NodeSignature<TensorInfo> {
  // the table of the last ctx seen (asked per signature: a ctx slot lookup each time was ~1.5 % of optimize)
  let ctx: RuleCtx | undefined;
  let cuts: ReadonlyMap<object, number> = new Map();
  return (egraph, eclass, node) => {
    const h = base(egraph, eclass, node);
    const analysis = tensorAnalysisOf(egraph);
    if (!analysis) return h;
    if (analysis.ctx !== ctx) {
      ctx = analysis.ctx;
      cuts = ctx.widthCuts(key);
    }
    const term = widthTermIn(cuts, node, analysis.maxPointwiseInputs);
    return term === 0 ? h : (h ^ Math.imul(term, 0x27d4eb2d)) | 0;
  };
}

/** The rule state of an `anyWidth` node rule: the run's `RuleCtx` slots that a wider width keeps. */
function anyWidthState(egraph: EGraph<TensorInfo>): RuleState {
  return ctxOf(egraph).anyWidthState;
}

/** A fresh map (a shared `init` of ctx slots: a closure per lookup was garbage on every signature). */
const newMap = <K, V>(): Map<K, V> => new Map<K, V>();
/** A fresh array (a shared `init` of ctx slots). */
const newArray = <T>(): T[] => [];

/** A rule over e-classes picked by a predicate (bound as `?x`); `apply` returns the classes to union. */
export function classRule(
  name: string,
  pick: (egraph: EGraph<TensorInfo>, id: Id) => boolean,
  apply: (egraph: EGraph<TensorInfo>, eclass: Id) => readonly Id[] | Id | undefined,
): TensorRewrite {
  const searcher: Searcher<TensorInfo> & { toString(): string } = {
    search(egraph, limit = Number.POSITIVE_INFINITY) {
      const out: Match[] = [];
      for (const c of egraph.classes()) {
        if (out.length >= limit) break;
        if (pick(egraph, c.id)) out.push({ eclass: c.id, substs: [new Subst([['x', c.id]])] });
      }
      return out;
    },
    vars: () => ['?x'],
    toString: () => `<classes: ${name}>`,
  };
  return new Rewrite<TensorInfo>(name, searcher, fnApplier((egraph, eclass) => apply(egraph, eclass), name));
}

const data = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** Condition: the matched class has exactly the type (shape and dtype) of variable `v`. */
export function sameTypeAs(v: string): TCond {
  return (egraph, eclass, subst) => {
    const a = data(egraph, eclass);
    const b = data(egraph, subst.get(v));
    return a.dtype === b.dtype && sameShape(a.shape, b.shape);
  };
}

/** Condition: every variable is bound to a class whose value is a known constant. */
export function constants(...vars: string[]): TCond {
  return (egraph, _e, subst) => vars.every((v) => data(egraph, subst.get(v)).constant !== undefined);
}

/** Condition: variable `v` is not a known constant. */
export function notConstant(v: string): TCond {
  return (egraph, _e, subst) => data(egraph, subst.get(v)).constant === undefined;
}

/** Condition: the matched class is f32. */
export const isF32: TCond = (egraph, eclass) => data(egraph, eclass).dtype === 'f32';

/** Condition: the broadcast of the variables' shapes is the matched class's shape (a broadcast stays exact). */
export function broadcastKeeps(...vars: string[]): TCond {
  return (egraph, eclass, subst) => {
    const s = broadcastShapes(...vars.map((v) => data(egraph, subst.get(v)).shape));
    return s !== undefined && sameShape(s, data(egraph, eclass).shape);
  };
}

/** All conditions hold. */
export function all(...conds: TCond[]): TCond {
  return (egraph, eclass, subst) => conds.every((c) => c(egraph, eclass, subst));
}

/** A one-line rule with a custom right side: `fn` returns the class to union (or none). */
export function trwFn(
  name: string,
  lhs: string,
  fn: (egraph: EGraph<TensorInfo>, eclass: Id, subst: Subst) => Id | readonly Id[] | undefined,
  condition?: TCond,
): TensorRewrite {
  return rw<TensorInfo>(name, lhs, fn, { language: tensorLanguage, condition });
}

/** A guard of a pattern rule: sees the matched class, the subst (class and attribute variables) and the root e-node. */
export type PatternGuard = (egraph: EGraph<TensorInfo>, eclass: Id, subst: Subst, node: ENode) => boolean;

/** One left side → right side of a pattern rule, with its optional guard. */
export interface PatternCase {
  readonly lhs: string;
  readonly rhs: string;
  readonly guard?: PatternGuard;
}

/** The nodes an instantiated left-side child pattern matched in class `cls` (for provenance), under `subst`. */
function matchedChildNodes(egraph: EGraph<TensorInfo>, p: PatternAst, cls: Id, subst: Subst): ENode[] {
  if (p.kind !== 'node') return [];
  const want = instantiateData(p.data, subst);
  return egraph.eclass(cls).nodes.filter(
    (n) =>
      n.op === p.op &&
      n.children.length === p.children.length &&
      dataMatches(want, n.data) &&
      p.children.every((c, i) => c.kind !== 'var' || egraph.find(subst.get(c.name)) === egraph.find(n.children[i])),
  );
}

/**
 * A fusion rule written as patterns: `patternRule('matmul-relu', [{ lhs: '(relu (matmul[transA=?ta] ?a ?b))', rhs:
 * '(fusedMatmul[…] ?a ?b)', guard }])`. Scanned incrementally as a `nodeRule` over the left sides' root op (so the
 * scheduler sees one match per root node, as for a procedure), each case matched at the node in order; a built node
 * is recorded with the rule's name and the rules that made the left side's matched child nodes. Every case's right
 * side may read only variables (class or attribute) its left side binds: checked at construction.
 */
export function patternRule(name: string, cases: readonly PatternCase[], opts: NodeRuleOptions = {}): TensorRewrite {
  const compiled = cases.map((c) => {
    const r = rw<TensorInfo>(name, c.lhs, c.rhs, { language: tensorLanguage }); // parses and checks bound variables
    const rhs = (r.applier as Pattern).ast;
    if (rhs.kind !== 'node') throw new RuleError(`rule '${name}': a right side must build a node, not be a variable`);
    const kids = rhs.children.map((p) => (p.kind === 'var' ? p.name : new Pattern(p)));
    return { lhs: r.searcher as Pattern, rhs, kids, guard: c.guard };
  });
  const ops = [...new Set(compiled.map((c) => c.lhs.rootOp()))];
  if (ops.some((op) => op === undefined)) throw new RuleError(`rule '${name}': a left side must be rooted at an op, not a variable`);
  return nodeRule(
    name,
    ops as string[],
    (egraph, eclass, node) => {
      const out: Id[] = [];
      for (const c of compiled) {
        const m = c.lhs.searchNode(egraph, eclass, node);
        if (!m) continue;
        const root = c.lhs.ast as PatternNode;
        for (const s of m.substs) {
          if (c.guard && !c.guard(egraph, eclass, s, node)) continue;
          const made = new Set([name]);
          root.children.forEach((p, i) => {
            for (const n of matchedChildNodes(egraph, p, egraph.find(node.children[i]), s)) for (const r of rulesOf(egraph, node.children[i], n)) made.add(r);
          });
          const children = c.kids.map((k) => (typeof k === 'string' ? s.get(k) : k.instantiate(egraph, s)));
          const data = instantiateData(c.rhs.data, s);
          out.push(addRecorded(egraph, data === undefined ? { op: c.rhs.op, children } : { op: c.rhs.op, data, children }, made));
        }
      }
      return out;
    },
    opts,
  );
}

/**
 * A rule over several patterns matched together (egg's MultiPattern): `multiPatternRule('attention-lse', '?l = (…),
 * ?a = (…)', '?l = (…), ?a = (…)')`; each right-side pattern is built and unioned with its variable's class (the
 * first's class is the match's). Every node built is recorded with the rule's name and the rules that made the
 * left side's root nodes (a shared kernel keeps the rules that made its halves, for the report). Unbound right-side
 * variables throw at construction; `guard` sees the matched class and the subst.
 */
export function multiPatternRule(name: string, lhs: string, rhs: string, guard?: TCond): TensorRewrite {
  let searcher: MultiPattern;
  let applier: MultiPattern;
  try {
    searcher = MultiPattern.parse(lhs, tensorLanguage);
    applier = MultiPattern.parse(rhs, tensorLanguage);
  } catch (e) {
    throw new RuleError(`rule '${name}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  rw<TensorInfo>(name, searcher, applier); // checks that the right side reads only variables the left side binds
  const build = (egraph: EGraph<TensorInfo>, p: PatternAst, s: Subst, made: ReadonlySet<string>): Id => {
    if (p.kind === 'var') return s.get(p.name);
    const children = p.children.map((c) => build(egraph, c, s, made));
    const data = instantiateData(p.data, s);
    return addRecorded(egraph, data === undefined ? { op: p.op, children } : { op: p.op, data, children }, made);
  };
  const recording = {
    applyOne(egraph: EGraph<TensorInfo>, _eclass: Id, subst: Subst): Id[] {
      const made = new Set([name]);
      for (const [v, p] of searcher.pairs)
        for (const n of matchedChildNodes(egraph, p.ast, egraph.find(subst.get(v)), subst)) for (const r of rulesOf(egraph, subst.get(v), n)) made.add(r);
      const [[, head], ...rest] = applier.pairs;
      for (const [v, p] of rest) egraph.union(subst.get(v), build(egraph, p.ast, subst, made));
      return [build(egraph, head.ast, subst, made)];
    },
    vars: () => applier.vars(),
    toString: () => applier.toString(tensorLanguage),
  };
  return new Rewrite<TensorInfo>(name, searcher, recording, guard);
}

/** Ops whose two operands commute exactly in IEEE arithmetic (NaN payloads aside), for `commuted`. */
const COMMUTATIVE: ReadonlySet<string> = new Set(['add', 'mul']);

/** An s-expression written back in the syntax `parseSExp` reads. */
const writeSExp = (e: SExp): string => (e.kind === 'atom' ? e.text : `(${e.items.map(writeSExp).join(' ')})`);

/** Every spelling of an s-expression with the operands of each commutative op in either order. */
function commutedSExp(e: SExp): string[] {
  if (e.kind === 'atom') return [e.text];
  const [head, ...args] = e.items;
  const op = writeSExp(head);
  let acc: string[][] = [[]];
  for (const a of args) acc = acc.flatMap((pre) => commutedSExp(a).map((v) => [...pre, v]));
  const out = acc.map((xs) => `(${[op, ...xs].join(' ')})`);
  if (COMMUTATIVE.has(op) && args.length === 2) out.push(...acc.map(([x, y]) => `(${op} ${y} ${x})`));
  return out;
}

/**
 * Every operand order of a left side's `add`s and `mul`s (`(mul ?x (add ?a 1))` → 4 patterns), deduplicated: a
 * recognition rule is written once in the order a user writes most often and matches all of them. The pattern
 * count doubles with each commutative node: keep it to left sides of a few.
 */
export function commuted(lhs: string): string[] {
  return [...new Set(commutedSExp(parseSExp(lhs)))];
}

/**
 * Whether class `cls` is a known constant equal to `value` in every element (one element, or broadcast from one),
 * compared as f32 values (`Math.fround`): a hand-written 1/√2 or 0.044715 equals the op's constant where the kernels
 * compute, so `0.7071067811865476` and `Math.SQRT1_2` both match, `0.7071` does not.
 */
export function isScalar(egraph: EGraph<TensorInfo>, cls: Id, value: number): boolean {
  const d = egraph.eclass(cls).data;
  return d.constant !== undefined && d.dtype === 'f32' && d.shape.every((n) => n === 1) && Math.fround(d.constant) === Math.fround(value);
}

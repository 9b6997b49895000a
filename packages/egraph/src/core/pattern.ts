// Patterns: terms with `?variables`, parsed from s-expressions or built as an AST, searched by a backtracking
// e-matcher over canonical e-classes and instantiated into the e-graph. Must not hold rule or runner logic.
// Invariant: searching needs a clean (rebuilt) e-graph; every returned subst binds all pattern variables.
import { EGraphStateError, ParseError } from './errors.js';
import type { EGraph } from './eGraph.js';
import type { Id, Language, NodeData } from './language.js';
import { dataMatches, defaultLanguage } from './language.js';
import { formatOp, parseOp, parseSExp } from './sexpr.js';
import type { SExp } from './sexpr.js';
import type { Match } from './subst.js';
import { Subst, varName } from './subst.js';

/** A pattern variable, e.g. `?a` (the name keeps its `?`). */
export interface PatternVar {
  /** Discriminant: a variable. */
  readonly kind: 'var';
  /** The variable's name, with its `?`. */
  readonly name: string;
}

/**
 * A pattern node. On the left of a rule `data` undefined matches any data; object data matches when each key
 * it names is equal (subset); other data must be equal. On the right, `data` is exactly the new node's data.
 */
export interface PatternNode {
  /** Discriminant: an operator node. */
  readonly kind: 'node';
  /** The operator name. */
  readonly op: string;
  /** Data to match (left side) or to build (right side). */
  readonly data?: NodeData;
  /** Child patterns, in operand order. */
  readonly children: readonly PatternAst[];
}

/** A pattern as a tree. */
export type PatternAst = PatternVar | PatternNode;

/** Builds a pattern variable (`pvar('a')` is `?a`). */
export function pvar(name: string): PatternVar {
  return { kind: 'var', name: varName(name) };
}

/** Builds a pattern node. */
export function pnode(op: string, children: readonly PatternAst[] = [], data?: NodeData): PatternNode {
  return data === undefined ? { kind: 'node', op, children } : { kind: 'node', op, data, children };
}

type Compiled =
  | { readonly kind: 'var'; readonly index: number }
  | { readonly kind: 'node'; readonly op: string; readonly data?: NodeData; readonly children: readonly Compiled[] };

/**
 * Extends each partial binding by matching `p` at class `cls` (a relational join, child by child). Written
 * without per-call closures: the continuation-passing matcher it replaced allocated closures per node visited
 * and spent most of the search time there. Bindings are copied when a variable is bound, so inputs stay intact.
 */
function matchInto<D>(egraph: EGraph<D>, p: Compiled, cls: Id, bindings: readonly Id[][]): Id[][] {
  if (p.kind === 'var') {
    const out: Id[][] = [];
    for (const b of bindings) {
      const bound = b[p.index];
      if (bound === -1) {
        const nb = b.slice();
        nb[p.index] = cls;
        out.push(nb);
      } else if (bound === cls) out.push(b);
    }
    return out;
  }
  const out: Id[][] = [];
  const arity = p.children.length;
  for (const n of egraph.eclass(cls).nodes) {
    if (n.op !== p.op || n.children.length !== arity || !dataMatches(p.data, n.data)) continue;
    let cur: readonly Id[][] = bindings;
    for (let i = 0; i < arity && cur.length > 0; i++) cur = matchInto(egraph, p.children[i], egraph.find(n.children[i]), cur);
    for (const b of cur) out.push(b as Id[]);
  }
  return out;
}

/** A compiled pattern: a searcher (left of a rule) and an applier (right of a rule). */
export class Pattern {
  /** The pattern tree. */
  readonly ast: PatternAst;
  private readonly varList: readonly string[];
  private readonly compiled: Compiled;

  /** Compiles a pattern tree. */
  constructor(ast: PatternAst) {
    this.ast = ast;
    const vars: string[] = [];
    const compile = (p: PatternAst): Compiled => {
      if (p.kind === 'var') {
        const name = varName(p.name);
        let index = vars.indexOf(name);
        if (index < 0) index = vars.push(name) - 1;
        return { kind: 'var', index };
      }
      return p.data === undefined
        ? { kind: 'node', op: p.op, children: p.children.map(compile) }
        : { kind: 'node', op: p.op, data: p.data, children: p.children.map(compile) };
    };
    this.compiled = compile(ast);
    this.varList = vars;
  }

  /** Parses `(op child ...)` with `?vars`, leaves (through `language.parseLeaf`) and `op[key=value]` attrs. */
  static parse(source: string, language: Language = defaultLanguage): Pattern {
    const go = (s: SExp): PatternAst => {
      if (s.kind === 'atom') {
        if (s.text.startsWith('?')) {
          if (s.text.length < 2) throw new ParseError(`pattern ${JSON.stringify(source)}: empty variable name at offset ${s.pos}`);
          return pvar(s.text);
        }
        const { op, data } = parseOp(s.text, language, true);
        return pnode(op, [], data);
      }
      const head = s.items[0] as { text: string; pos: number };
      if (head.text.startsWith('?')) {
        throw new ParseError(`pattern ${JSON.stringify(source)}: operator position holds variable ${head.text} at offset ${head.pos}`);
      }
      const { op, data } = parseOp(head.text, language, false);
      return pnode(op, s.items.slice(1).map(go), data);
    };
    return new Pattern(go(parseSExp(source)));
  }

  /** The variables of the pattern, in order of first appearance. */
  vars(): readonly string[] {
    return this.varList;
  }

  /** All matches in a rebuilt e-graph, stopping once `limit` substitutions are found. */
  search<D>(egraph: EGraph<D>, limit = Number.POSITIVE_INFINITY): Match[] {
    if (egraph.isDirty) throw new EGraphStateError(`Pattern ${this.toString()}: call egraph.rebuild() before searching`);
    const root = this.compiled;
    const candidates = root.kind === 'node' ? egraph.classesWithOp(root.op) : egraph.classes().map((c) => c.id);
    const matches: Match[] = [];
    let budget = limit;
    for (const id of candidates) {
      if (budget <= 0) break;
      const m = this.searchEClass(egraph, id, budget);
      if (m) {
        matches.push(m);
        budget -= m.substs.length;
      }
    }
    return matches;
  }

  /** The matches rooted at one e-class (at most `limit` substitutions), or undefined when none. */
  searchEClass<D>(egraph: EGraph<D>, eclass: Id, limit = Number.POSITIVE_INFINITY): Match | undefined {
    const id = egraph.find(eclass);
    const root = this.compiled;
    // cheap rejection before any allocation: no node of the root's op in the class
    if (root.kind === 'node' && !egraph.eclass(id).nodes.some((n) => n.op === root.op)) return undefined;
    const found = matchInto(egraph, root, id, [this.varList.map(() => -1)]);
    if (found.length === 0) return undefined;
    if (found.length === 1) return { eclass: id, substs: [Subst.fromArrays(this.varList, found[0])] };
    // dedup (two nodes differing only in data a pattern ignores give one binding) by a numeric hash, checked
    // for equality on a hit: string keys per binding were the largest cost of saturating the ring rules
    const seen = new Map<number, Id[][]>();
    const substs: Subst[] = [];
    for (const b of found) {
      if (substs.length >= limit) break;
      let h = 0x811c9dc5;
      for (const v of b) h = Math.imul(h ^ v, 0x01000193);
      const same = seen.get(h);
      if (same?.some((o) => o.every((v, i) => v === b[i]))) continue;
      if (same) same.push(b);
      else seen.set(h, [b]);
      substs.push(Subst.fromArrays(this.varList, b));
    }
    return { eclass: id, substs };
  }

  /** Adds the pattern's term under `subst` to the e-graph and returns its class. */
  instantiate<D>(egraph: EGraph<D>, subst: Subst): Id {
    const go = (p: PatternAst): Id => {
      if (p.kind === 'var') return subst.get(p.name);
      const children = p.children.map(go);
      return egraph.add(p.data === undefined ? { op: p.op, children } : { op: p.op, data: p.data, children });
    };
    return go(this.ast);
  }

  /** Applier interface: instantiates the pattern; the rewrite unions the result with the matched class. */
  applyOne<D>(egraph: EGraph<D>, _eclass: Id, subst: Subst): Id[] {
    return [this.instantiate(egraph, subst)];
  }

  /** The pattern as an s-expression in the syntax `Pattern.parse` reads. */
  toString(language: Language = defaultLanguage): string {
    const go = (p: PatternAst): string => {
      if (p.kind === 'var') return p.name;
      const node = p.data === undefined ? { op: p.op, children: [] } : { op: p.op, data: p.data, children: [] };
      const head = formatOp(p.children.length === 0 ? node : { ...node, children: [0] }, language);
      return p.children.length === 0 ? head : `(${head} ${p.children.map(go).join(' ')})`;
    };
    return go(this.ast);
  }
}

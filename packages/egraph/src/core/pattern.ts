// Patterns: terms with `?variables`, parsed from s-expressions or built as an AST, searched by a backtracking
// e-matcher over canonical e-classes and instantiated into the e-graph. Must not hold rule or runner logic.
// Attribute variables (`(matmul[transA=?ta] ?a ?b)`) bind a node's data field (undefined when the node lacks it).
// Invariant: searching needs a clean (rebuilt) e-graph; every returned subst binds all pattern variables.
import { EGraphStateError, ParseError } from './errors.js';
import type { EGraph } from './eGraph.js';
import type { ENode, Id, Language, NodeData } from './language.js';
import { dataKey, dataMatches, defaultLanguage, isDataRecord } from './language.js';
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
 * A record field whose value is a `?name` string is an attribute variable: on the left it binds the node's field
 * (repeated, it must agree), on the right it writes the bound value (a field bound to undefined is left out).
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
  | {
      readonly kind: 'node';
      readonly op: string;
      readonly data?: NodeData;
      /** Attribute variables: [field, binding slot]. */
      readonly attrs?: readonly (readonly [string, number])[];
      readonly children: readonly Compiled[];
    };

/** Whether a data value names an attribute variable (`?name`). */
function isAttrVar(v: NodeData | undefined): v is string {
  return typeof v === 'string' && v.length > 1 && v.startsWith('?');
}

/** Attribute values seen by one pattern (or one MultiPattern), numbered (a binding slot holds the number; equal values share one). */
export class AttrTable {
  readonly values: (NodeData | undefined)[] = [];
  private readonly index = new Map<string, number>();
  /** The number of a value. */
  intern(v: NodeData | undefined): number {
    const k = dataKey(v);
    let i = this.index.get(k);
    if (i === undefined) {
      i = this.values.push(v) - 1;
      this.index.set(k, i);
    }
    return i;
  }
}

/** Binds a node's attribute fields into a binding (a copy), or undefined when a repeated variable disagrees. */
function bindAttrs(p: { readonly attrs?: readonly (readonly [string, number])[] }, data: NodeData | undefined, b: Id[], table: AttrTable): Id[] | undefined {
  let out = b;
  for (const [field, slot] of p.attrs ?? []) {
    const v = table.intern(isDataRecord(data) ? data[field] : undefined);
    const bound = out[slot];
    if (bound === -1) {
      if (out === b) out = b.slice();
      out[slot] = v;
    } else if (bound !== v) return undefined;
  }
  return out;
}

/** No bindings (shared: what a failed match returns, never written). */
const NONE: readonly Id[][] = Object.freeze([]) as readonly Id[][];

/**
 * Extends each partial binding by matching `p` at class `cls` (a relational join, child by child). Written
 * without per-call closures: the continuation-passing matcher it replaced allocated closures per node visited
 * and spent most of the search time there. Bindings are copied when a variable is bound, so inputs stay intact;
 * results are read, never written, so no match returns the shared `NONE` (most nodes tested fail on their op,
 * and each allocated an empty list).
 */
function matchInto<D>(egraph: EGraph<D>, p: Compiled, cls: Id, bindings: readonly Id[][], table: AttrTable): readonly Id[][] {
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
  // one node matching (the usual case) hands its list on as it is; a second one joins them in a new list
  let first: readonly Id[][] = NONE;
  let out: Id[][] | undefined;
  const nodes = egraph.eclass(cls).nodes;
  for (let i = 0; i < nodes.length; i++) {
    const found = matchNode(egraph, p, nodes[i], bindings, table);
    if (found.length === 0) continue;
    if (first.length === 0) first = found;
    else {
      out ??= first.slice();
      for (let j = 0; j < found.length; j++) out.push(found[j]);
    }
  }
  return out ?? first;
}

/** Extends each binding by matching pattern node `p` against e-node `n` itself. */
function matchNode<D>(egraph: EGraph<D>, p: Compiled & { kind: 'node' }, n: ENode, bindings: readonly Id[][], table: AttrTable): readonly Id[][] {
  const arity = p.children.length;
  if (n.op !== p.op || n.children.length !== arity || !dataMatches(p.data, n.data)) return NONE;
  let cur: readonly Id[][] = bindings;
  if (p.attrs) {
    const withAttrs: Id[][] = [];
    for (const b of cur) {
      const nb = bindAttrs(p, n.data, b, table);
      if (nb) withAttrs.push(nb);
    }
    cur = withAttrs;
  }
  for (let i = 0; i < arity && cur.length > 0; i++) cur = matchInto(egraph, p.children[i], egraph.find(n.children[i]), cur, table);
  return cur;
}

/** A pattern node's data with its attribute variables replaced by their bound values (unbound-to-undefined left out). */
export function instantiateData(data: NodeData | undefined, subst: Subst): NodeData | undefined {
  if (!isDataRecord(data) || !Object.values(data).some(isAttrVar)) return data;
  const out: { [key: string]: NodeData } = {};
  for (const [k, v] of Object.entries(data)) {
    const value = isAttrVar(v) ? subst.attr(v) : v;
    if (value !== undefined) out[k] = value;
  }
  return out;
}

/** Whether a node list holds a node of `op` (a loop: `some` with a closure per class searched). */
function hasOp(nodes: readonly ENode[], op: string): boolean {
  for (let i = 0; i < nodes.length; i++) if (nodes[i].op === op) return true;
  return false;
}

/** A compiled pattern: a searcher (left of a rule) and an applier (right of a rule). */
export class Pattern {
  /** The pattern tree. */
  readonly ast: PatternAst;
  private readonly varList: readonly string[];
  private readonly attrVarList: readonly string[];
  private readonly compiled: Compiled;
  private readonly table: AttrTable = new AttrTable();

  /** Compiles a pattern tree; `shared` (MultiPattern) numbers variables across several patterns. */
  constructor(ast: PatternAst, shared?: { vars: string[]; attrVars: string[]; table: AttrTable }) {
    this.ast = ast;
    if (shared) this.table = shared.table;
    const vars: string[] = shared?.vars ?? [];
    const attrVars: string[] = shared?.attrVars ?? [];
    const compile = (p: PatternAst): Compiled => {
      if (p.kind === 'var') {
        const name = varName(p.name);
        let index = vars.indexOf(name);
        if (index < 0) index = vars.push(name) - 1;
        return { kind: 'var', index };
      }
      const children = p.children.map(compile);
      if (!isDataRecord(p.data) || !Object.values(p.data).some(isAttrVar)) {
        return p.data === undefined ? { kind: 'node', op: p.op, children } : { kind: 'node', op: p.op, data: p.data, children };
      }
      const fixed: { [key: string]: NodeData } = {};
      const attrs: [string, number][] = [];
      for (const [k, v] of Object.entries(p.data)) {
        if (v === undefined) continue;
        if (!isAttrVar(v)) fixed[k] = v;
        else {
          let index = attrVars.indexOf(v);
          if (index < 0) index = attrVars.push(v) - 1;
          attrs.push([k, index]); // slot resolved below, after every class variable is numbered
        }
      }
      return { kind: 'node', op: p.op, data: fixed, attrs, children };
    };
    this.compiled = compile(ast);
    this.varList = vars;
    this.attrVarList = attrVars;
  }

  /** Binding slot of attribute variable number `i` (after the class variables). */
  private attrSlot(i: number): number {
    return this.varList.length + i;
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

  /** The variables of the pattern, in order of first appearance (class variables, then attribute variables). */
  vars(): readonly string[] {
    return this.attrVarList.length === 0 ? this.varList : [...this.varList, ...this.attrVarList];
  }

  /** A subst from a complete binding (class slots, then attribute slots). */
  private substOf(b: readonly Id[]): Subst {
    if (this.attrVarList.length === 0) return Subst.fromArrays(this.varList, b);
    const attrs = new Map<string, NodeData | undefined>();
    for (let i = 0; i < this.attrVarList.length; i++) attrs.set(this.attrVarList[i], this.table.values[b[this.attrSlot(i)]]);
    return Subst.fromArrays(this.varList, b.slice(0, this.varList.length), attrs);
  }

  /** An empty binding. */
  private emptyBinding(): Id[] {
    return new Array<Id>(this.varList.length + this.attrVarList.length).fill(-1);
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
    if (root.kind === 'node' && !hasOp(egraph.eclass(id).nodes, root.op)) return undefined;
    return this.dedup(id, matchInto(egraph, this.resolved(), id, [this.emptyBinding()], this.table), limit);
  }

  /**
   * The matches rooted at one e-node `node` of class `eclass` (not its class's other nodes), or undefined when
   * none: for searchers that pick the candidate nodes themselves (e.g. an incremental scan).
   */
  searchNode<D>(egraph: EGraph<D>, eclass: Id, node: ENode, limit = Number.POSITIVE_INFINITY): Match | undefined {
    const root = this.resolved();
    if (root.kind !== 'node') return undefined;
    return this.dedup(egraph.find(eclass), matchNode(egraph, root, node, [this.emptyBinding()], this.table), limit);
  }

  /** Extends bindings (numbered as the `shared` lists given to the constructor) by matching at class `cls`. */
  matchAt<D>(egraph: EGraph<D>, cls: Id, bindings: readonly Id[][]): readonly Id[][] {
    return matchInto(egraph, this.resolved(), egraph.find(cls), bindings, this.table);
  }

  /** The root op, or undefined for a bare variable. */
  rootOp(): string | undefined {
    return this.ast.kind === 'node' ? this.ast.op : undefined;
  }

  private resolvedTree?: Compiled;
  /** The compiled tree with attribute slots placed after the class variables (known only once all are numbered). */
  private resolved(): Compiled {
    if (this.resolvedTree) return this.resolvedTree;
    const n = this.varList.length;
    const go = (p: Compiled): Compiled =>
      p.kind === 'var' ? p : { ...p, attrs: p.attrs?.map(([k, i]) => [k, i + n] as const), children: p.children.map(go) };
    this.resolvedTree = this.attrVarList.length === 0 ? this.compiled : go(this.compiled);
    return this.resolvedTree;
  }

  /** One Match from raw bindings, duplicates dropped, at most `limit` substs. */
  private dedup(id: Id, found: readonly Id[][], limit: number): Match | undefined {
    if (found.length === 0) return undefined;
    if (found.length === 1) return { eclass: id, substs: [this.substOf(found[0])] };
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
      substs.push(this.substOf(b));
    }
    return { eclass: id, substs };
  }

  /** Adds the pattern's term under `subst` to the e-graph and returns its class. */
  instantiate<D>(egraph: EGraph<D>, subst: Subst): Id {
    const go = (p: PatternAst): Id => {
      if (p.kind === 'var') return subst.get(p.name);
      const children = p.children.map(go);
      const data = instantiateData(p.data, subst);
      return egraph.add(data === undefined ? { op: p.op, children } : { op: p.op, data, children });
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

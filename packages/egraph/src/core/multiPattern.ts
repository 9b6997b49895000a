// egg's MultiPattern: several patterns matched together, `?a = (op …), ?b = (op …)`, joined on shared variables
// (class and attribute variables alike); as an applier each right-side pattern is unioned with its variable's class.
// Invariant: a match's e-class is the class bound to the first variable; every subst binds every variable.
import { ParseError } from './errors.js';
import type { EGraph } from './eGraph.js';
import type { Id, Language } from './language.js';
import { defaultLanguage } from './language.js';
import { AttrTable, Pattern } from './pattern.js';
import type { Match } from './subst.js';
import { Subst, varName } from './subst.js';

/** Patterns matched (or instantiated) together, each rooted at the class of its variable. */
export class MultiPattern {
  /** `[variable, pattern]` pairs, in order. */
  readonly pairs: readonly (readonly [string, Pattern])[];
  private readonly joined: readonly Pattern[];
  private readonly varList: string[] = [];
  private readonly attrVarList: string[] = [];
  private readonly table = new AttrTable();
  private readonly rootSlots: readonly number[];

  /** Builds a multi-pattern from `[variable, pattern]` pairs (at least one). */
  constructor(pairs: readonly (readonly [string, Pattern])[]) {
    if (pairs.length === 0) throw new ParseError('MultiPattern: needs at least one `?var = pattern` pair');
    this.pairs = pairs.map(([v, p]) => [varName(v), p] as const);
    const shared = { vars: this.varList, attrVars: this.attrVarList, table: this.table };
    const slots: number[] = [];
    for (const [v] of this.pairs) if (!this.varList.includes(v)) this.varList.push(v);
    for (const [v] of this.pairs) slots.push(this.varList.indexOf(v));
    this.rootSlots = slots;
    this.joined = this.pairs.map(([, p]) => new Pattern(p.ast, shared));
  }

  /** Parses `?a = (op …), ?b = (op …)` (pairs separated by commas outside brackets). */
  static parse(source: string, language: Language = defaultLanguage): MultiPattern {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < source.length; i++) {
      const ch = source[i];
      if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
      else if (ch === ',' && depth === 0) {
        parts.push(source.slice(start, i));
        start = i + 1;
      }
    }
    parts.push(source.slice(start));
    return new MultiPattern(
      parts.map((part) => {
        const m = /^\s*(\?[^\s=]+)\s*=(.*)$/s.exec(part);
        if (!m) throw new ParseError(`MultiPattern ${JSON.stringify(source)}: write \`?var = pattern\` pairs, got ${JSON.stringify(part.trim())}`);
        return [m[1], Pattern.parse(m[2], language)] as const;
      }),
    );
  }

  /** Every variable bound by a match: the pair variables and the patterns' class and attribute variables. */
  vars(): readonly string[] {
    for (const p of this.joined) p.vars(); // all numbered at construction
    return [...this.varList, ...this.attrVarList];
  }

  /** All matches in a rebuilt e-graph (grouped by the first variable's class), at most `limit` substitutions. */
  search<D>(egraph: EGraph<D>, limit = Number.POSITIVE_INFINITY): Match[] {
    const width = this.varList.length + this.attrVarList.length;
    let bindings: Id[][] = [];
    const first = this.joined[0];
    const firstOp = first.rootOp();
    const candidates = firstOp !== undefined ? egraph.classesWithOp(firstOp) : egraph.classes().map((c) => c.id);
    for (const id of candidates) {
      const b = new Array<Id>(width).fill(-1);
      b[this.rootSlots[0]] = egraph.find(id);
      for (const nb of first.matchAt(egraph, id, [b])) bindings.push(nb);
    }
    for (let i = 1; i < this.joined.length && bindings.length > 0; i++) {
      const p = this.joined[i];
      const slot = this.rootSlots[i];
      const next: Id[][] = [];
      for (const b of bindings) {
        if (b[slot] !== -1) {
          for (const nb of p.matchAt(egraph, b[slot], [b])) next.push(nb);
          continue;
        }
        const op = p.rootOp();
        for (const id of op !== undefined ? egraph.classesWithOp(op) : egraph.classes().map((c) => c.id)) {
          const nb = b.slice();
          nb[slot] = egraph.find(id);
          for (const m of p.matchAt(egraph, id, [nb])) next.push(m);
        }
      }
      bindings = next;
    }
    const byClass = new Map<Id, Subst[]>();
    const seen = new Set<string>();
    let count = 0;
    for (const b of bindings) {
      if (count >= limit) break;
      const key = b.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      const attrs = new Map(this.attrVarList.map((v, i) => [v, this.table.values[b[this.varList.length + i]]] as const));
      const s = Subst.fromArrays(this.varList, b.slice(0, this.varList.length), attrs);
      const cls = b[this.rootSlots[0]];
      const list = byClass.get(cls);
      if (list) list.push(s);
      else byClass.set(cls, [s]);
      count++;
    }
    return [...byClass].map(([eclass, substs]) => ({ eclass, substs }));
  }

  /** Applier: instantiates every pattern, unions each with its variable's class; returns the first's class. */
  applyOne<D>(egraph: EGraph<D>, _eclass: Id, subst: Subst): Id[] {
    const [[, head], ...rest] = this.pairs;
    for (const [v, p] of rest) egraph.union(subst.get(v), p.instantiate(egraph, subst));
    return [head.instantiate(egraph, subst)];
  }

  /** `?a = …, ?b = …` in the syntax `parse` reads. */
  toString(language: Language = defaultLanguage): string {
    return this.pairs.map(([v, p]) => `${v} = ${p.toString(language)}`).join(', ');
  }
}

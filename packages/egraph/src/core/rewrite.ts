// Rewrites: a named searcher (usually a Pattern) plus an applier (a Pattern or a custom function) and an
// optional condition, checked when built. Must not schedule or loop; the Runner does that.
// Invariant: a rule whose right side uses a variable its left side does not bind is rejected at construction.
import { RuleError } from './errors.js';
import type { EGraph } from './eGraph.js';
import type { Id, Language } from './language.js';
import { defaultLanguage } from './language.js';
import type { PatternAst } from './pattern.js';
import { Pattern } from './pattern.js';
import { MultiPattern } from './multiPattern.js';
import type { Match, Subst } from './subst.js';

/** Finds matches in an e-graph (a Pattern is one). */
export interface Searcher<D> {
  /** Matches in a rebuilt e-graph, at most `limit` substitutions in all. */
  search(egraph: EGraph<D>, limit?: number): Match[];
  /** The variables every returned substitution binds. */
  vars(): readonly string[];
}

/** Produces the classes to union with a matched class (a Pattern is one). */
export interface Applier<D> {
  /** Adds whatever is needed and returns the ids to union with `eclass`. */
  applyOne(egraph: EGraph<D>, eclass: Id, subst: Subst): readonly Id[];
  /** Variables the applier reads; checked against the searcher's at construction when present. */
  vars?(): readonly string[];
}

/** A custom applier: returns ids to union with the matched class (none: `undefined` or `[]`). */
export type ApplyFn<D> = (egraph: EGraph<D>, eclass: Id, subst: Subst) => readonly Id[] | Id | undefined;

/** A guard run before applying: the rewrite fires only where it returns true. */
export type Condition<D> = (egraph: EGraph<D>, eclass: Id, subst: Subst) => boolean;

/** A named rewrite rule. */
export class Rewrite<D = unknown> {
  /** The rule's name, used in reports and errors. */
  readonly name: string;
  /** What the rule looks for. */
  readonly searcher: Searcher<D>;
  /** What the rule adds. */
  readonly applier: Applier<D>;
  /** The optional guard. */
  readonly condition: Condition<D> | undefined;

  /** Builds a rule; throws when the applier reads a variable the searcher does not bind. */
  constructor(name: string, searcher: Searcher<D>, applier: Applier<D>, condition?: Condition<D>) {
    if (!name) throw new RuleError('Rewrite: a rule needs a non-empty name');
    this.name = name;
    this.searcher = searcher;
    this.applier = applier;
    this.condition = condition;
    if (applier.vars) {
      const bound = new Set(searcher.vars());
      const unbound = applier.vars().filter((v) => !bound.has(v));
      if (unbound.length > 0) {
        throw new RuleError(
          `rule '${name}': right side uses ${unbound.join(', ')} not bound by the left side (binds: ${[...bound].join(' ') || 'nothing'})`,
        );
      }
    }
  }

  /** Searches the e-graph for this rule's left side. */
  search(egraph: EGraph<D>, limit?: number): Match[] {
    return this.searcher.search(egraph, limit);
  }

  /**
   * Applies the rule to matches; returns how many unions changed the e-graph. Stops early once the e-graph
   * holds more than `nodeLimit` e-nodes. Errors name the rule.
   */
  apply(egraph: EGraph<D>, matches: readonly Match[], nodeLimit = Number.POSITIVE_INFINITY): number {
    let changed = 0;
    for (const m of matches) {
      for (const subst of m.substs) {
        if (egraph.totalNodes > nodeLimit) return changed;
        try {
          if (this.condition && !this.condition(egraph, m.eclass, subst)) continue;
          for (const id of this.applier.applyOne(egraph, m.eclass, subst)) {
            if (egraph.union(m.eclass, id)) changed++;
          }
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          throw new RuleError(`rule '${this.name}' at class ${m.eclass} with ${subst.toString()}: ${msg}`, { cause: e });
        }
      }
    }
    return changed;
  }

  /** `name: searcher => applier` for messages. */
  toString(): string {
    return `${this.name}: ${String(this.searcher)} => ${String(this.applier)}`;
  }
}

/** Options of `rw`. */
export interface RwOptions<D> {
  /** Guard: the rule fires only where it returns true. */
  readonly condition?: Condition<D>;
  /** The same as `condition` (egg's conditional applier); give one of the two. */
  readonly guard?: Condition<D>;
  /** Language used to parse string patterns. */
  readonly language?: Language;
}

function toPattern(p: string | Pattern | MultiPattern | PatternAst, language: Language): Pattern | MultiPattern {
  if (p instanceof Pattern || p instanceof MultiPattern) return p;
  return typeof p === 'string' ? Pattern.parse(p, language) : new Pattern(p);
}

/** Wraps a custom function as an applier. */
export function fnApplier<D>(fn: ApplyFn<D>, name = 'custom'): Applier<D> {
  return {
    applyOne(egraph, eclass, subst) {
      const r = fn(egraph, eclass, subst);
      return r === undefined ? [] : typeof r === 'number' ? [r] : r;
    },
    toString: () => `<${name}>`,
  } as Applier<D>;
}

/**
 * A one-line named rule: `rw('mul-one', '(mul ?a 1)', '?a')`; either side may be a MultiPattern, the right side
 * also a custom applier function; `{ guard }` makes it conditional. Parse errors and unbound right-side variables throw an Error naming the rule.
 */
export function rw<D = unknown>(
  name: string,
  lhs: string | Pattern | MultiPattern | PatternAst,
  rhs: string | Pattern | MultiPattern | PatternAst | ApplyFn<D>,
  opts: RwOptions<D> = {},
): Rewrite<D> {
  const language = opts.language ?? defaultLanguage;
  if (opts.condition && opts.guard) throw new RuleError(`rule '${name}': give either condition or guard, not both`);
  let searcher: Pattern | MultiPattern;
  let applier: Applier<D>;
  try {
    searcher = toPattern(lhs, language);
    applier = typeof rhs === 'function' ? fnApplier(rhs, name) : toPattern(rhs, language);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new RuleError(`rule '${name}': ${msg}`, { cause: e });
  }
  return new Rewrite<D>(name, searcher, applier, opts.condition ?? opts.guard);
}

/** Both directions of an equation: `name` (lhs → rhs) and `name-rev` (rhs → lhs). */
export function birw<D = unknown>(
  name: string,
  lhs: string | Pattern | PatternAst,
  rhs: string | Pattern | PatternAst,
  opts: RwOptions<D> = {},
): [Rewrite<D>, Rewrite<D>] {
  return [rw(name, lhs, rhs, opts), rw(`${name}-rev`, rhs, lhs, opts)];
}

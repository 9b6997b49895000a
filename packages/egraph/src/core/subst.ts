// Substitutions (pattern variable → e-class id) and the `Match` a searcher returns for one e-class.
// Must not search or apply anything. Invariant: variable names always carry their leading `?`.
import type { Id } from './language.js';

/** Normalises a variable name to its `?name` form. */
export function varName(name: string): string {
  return name.startsWith('?') ? name : `?${name}`;
}

/** A binding of pattern variables (`?a`) to e-class ids; `get('a')` and `get('?a')` are the same. */
export class Subst {
  private readonly map = new Map<string, Id>();

  /** Makes a substitution from `[name, id]` pairs. */
  constructor(entries: Iterable<readonly [string, Id]> = []) {
    for (const [k, v] of entries) this.map.set(varName(k), v);
  }

  /** The id bound to `name`; throws an Error naming the variable when it is unbound. */
  get(name: string): Id {
    const id = this.map.get(varName(name));
    if (id === undefined) throw new Error(`Subst: variable ${varName(name)} is not bound (bound: ${this.vars().join(' ') || 'none'})`);
    return id;
  }

  /** The id bound to `name`, or undefined. */
  tryGet(name: string): Id | undefined {
    return this.map.get(varName(name));
  }

  /** True when `name` is bound. */
  has(name: string): boolean {
    return this.map.has(varName(name));
  }

  /** Returns a copy with `name` bound to `id`. */
  with(name: string, id: Id): Subst {
    const s = new Subst(this.map);
    s.map.set(varName(name), id);
    return s;
  }

  /** Bound variable names, in binding order. */
  vars(): string[] {
    return [...this.map.keys()];
  }

  /** `[name, id]` pairs, in binding order. */
  entries(): IterableIterator<[string, Id]> {
    return this.map.entries();
  }

  /** `{?a: 3, ?b: 5}`-style text for messages. */
  toString(): string {
    return `{${[...this.map].map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
  }
}

/** All substitutions under which a searcher matched one e-class (egg's `SearchMatches`). */
export interface Match {
  readonly eclass: Id;
  readonly substs: readonly Subst[];
}

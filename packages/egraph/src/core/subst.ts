// Substitutions (pattern variable → e-class id) and the `Match` a searcher returns for one e-class.
// Must not search or apply anything. Invariant: variable names always carry their leading `?`.
import { RuleError } from './errors.js';
import type { Id, NodeData } from './language.js';

/** Normalises a variable name to its `?name` form. */
export function varName(name: string): string {
  return name.startsWith('?') ? name : `?${name}`;
}

const NO_NAMES: readonly string[] = [];
const NO_IDS: readonly Id[] = [];

/**
 * A binding of pattern variables (`?a`) to e-class ids; `get('a')` and `get('?a')` are the same. Stored as two
 * parallel arrays (names are shared between the substs of one pattern) to keep large match sets small.
 */
export class Subst {
  private names: readonly string[];
  private ids: readonly Id[];
  private attrs?: ReadonlyMap<string, NodeData | undefined>;

  /** Makes a substitution from `[name, id]` pairs. */
  constructor(entries?: Iterable<readonly [string, Id]>) {
    if (entries === undefined) {
      // the empty subst, and `fromArrays`'s start (one per match of every node rule: no arrays to drop)
      this.names = NO_NAMES;
      this.ids = NO_IDS;
      return;
    }
    const names: string[] = [];
    const ids: Id[] = [];
    for (const [k, v] of entries) {
      const name = varName(k);
      const i = names.indexOf(name);
      if (i >= 0) ids[i] = v;
      else {
        names.push(name);
        ids.push(v);
      }
    }
    this.names = names;
    this.ids = ids;
  }

  /** Makes a substitution from shared, already `?`-prefixed names and their ids (no copying), and attribute values. */
  static fromArrays(names: readonly string[], ids: readonly Id[], attrs?: ReadonlyMap<string, NodeData | undefined>): Subst {
    const s = new Subst();
    s.names = names;
    s.ids = ids;
    if (attrs) s.attrs = attrs;
    return s;
  }

  /** The value bound to attribute variable `name` (undefined: the node lacked the field); throws when not bound. */
  attr(name: string): NodeData | undefined {
    const v = varName(name);
    if (!this.attrs?.has(v)) throw new RuleError(`Subst: attribute variable ${v} is not bound (bound: ${[...(this.attrs?.keys() ?? [])].join(' ') || 'none'})`);
    return this.attrs.get(v);
  }

  /** The id bound to `name`; throws an Error naming the variable when it is unbound. */
  get(name: string): Id {
    const id = this.tryGet(name);
    if (id === undefined) throw new RuleError(`Subst: variable ${varName(name)} is not bound (bound: ${this.names.join(' ') || 'none'})`);
    return id;
  }

  /** The id bound to `name`, or undefined. */
  tryGet(name: string): Id | undefined {
    let i = this.names.indexOf(name);
    if (i < 0 && !name.startsWith('?')) i = this.names.indexOf(`?${name}`);
    return i < 0 ? undefined : this.ids[i];
  }

  /** True when `name` is bound. */
  has(name: string): boolean {
    return this.tryGet(name) !== undefined;
  }

  /** Returns a copy with `name` bound to `id`. */
  with(name: string, id: Id): Subst {
    return new Subst([...this.entries(), [name, id]]);
  }

  /** Bound variable names, in binding order. */
  vars(): string[] {
    return [...this.names];
  }

  /** `[name, id]` pairs, in binding order. */
  entries(): [string, Id][] {
    return this.names.map((n, i) => [n, this.ids[i]]);
  }

  /** `{?a: 3, ?b: 5}`-style text for messages. */
  toString(): string {
    const attrs = [...(this.attrs ?? [])].map(([n, v]) => `${n}: ${JSON.stringify(v)}`);
    return `{${[...this.names.map((n, i) => `${n}: ${this.ids[i]}`), ...attrs].join(', ')}}`;
  }
}

/** All substitutions under which a searcher matched one e-class (egg's `SearchMatches`). */
export interface Match {
  /** The matched e-class. */
  readonly eclass: Id;
  /** Every substitution of the pattern's variables that matched it. */
  readonly substs: readonly Subst[];
}

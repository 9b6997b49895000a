// Interned sets of rule names: the provenance the tensor analysis keeps per fused e-node (which rules made it, for
// the report). A GPT step builds ~20 000 fused nodes whose provenance is a handful of distinct sets; a `Set` per node
// grown name by name, and a sorted copy per ask, were ~8 % of optimize (measured by turning recording off). Must not
// know e-graphs. Invariant: one object per distinct set of names between clears of the memo (a long-lived process
// past MAX_SETS may then hold two equal sets: identity is only a shortcut, never the test of equality).

/** An immutable set of rule names, interned: equal sets are the same object. */
export class RuleSet {
  /** @internal Use `ruleSetOf`, `unionRules` or `withRule`. */
  constructor(
    /** A number naming the set (unions are memoised by it). */
    readonly id: number,
    /** The names, sorted as `Array.prototype.sort` sorts strings, each once (shared: do not modify). */
    readonly list: readonly string[],
  ) {}
}

// the sets by their names joined, and the unions by the two sets' ids; cleared together past a bound (a long-lived
// process seeing many graphs): sets made earlier stay valid, only the memo is lost
const byKey = new Map<string, RuleSet>();
const unions = new Map<number, Map<number, RuleSet>>(); // smaller id, then larger: exact for any ids
const MAX_SETS = 100_000;
let nextId = 0;

/** The interned set of a sorted, duplicate-free list (the list is kept: it must not change). */
function internSorted(list: readonly string[]): RuleSet {
  const key = list.join('\u0000');
  let s = byKey.get(key);
  if (s === undefined) {
    if (byKey.size >= MAX_SETS) {
      byKey.clear();
      unions.clear();
    }
    s = new RuleSet(nextId++, list);
    byKey.set(key, s);
  }
  return s;
}

/** The empty set. */
export const EMPTY_RULES: RuleSet = internSorted([]);

/** The interned set of some names (a `RuleSet` is itself). */
export function ruleSetOf(rules: Iterable<string> | RuleSet): RuleSet {
  if (rules instanceof RuleSet) return rules;
  const list: string[] = [];
  for (const r of rules) if (!list.includes(r)) list.push(r);
  return list.length === 0 ? EMPTY_RULES : internSorted(list.sort());
}

/** The union of two sets (memoised). */
export function unionRules(a: RuleSet, b: RuleSet): RuleSet {
  if (a === b || b === EMPTY_RULES) return a;
  if (a === EMPTY_RULES) return b;
  const lo = Math.min(a.id, b.id);
  const hi = Math.max(a.id, b.id);
  let row = unions.get(lo);
  if (row === undefined) unions.set(lo, (row = new Map()));
  let u = row.get(hi);
  if (u === undefined) {
    u = internSorted(mergeSorted(a.list, b.list));
    row.set(hi, u);
  }
  return u;
}

// the one-name sets by name (rule names are few)
const singles = new Map<string, RuleSet>();

/** A set with one more name. */
export function withRule(name: string, s: RuleSet): RuleSet {
  let one = singles.get(name);
  if (one === undefined) singles.set(name, (one = internSorted([name])));
  return unionRules(one, s);
}

/** Two sorted, duplicate-free lists merged (string `<` orders by code units, as the default sort does). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(a[i++]);
      j++;
    } else if (a[i] < b[j]) out.push(a[i++]);
    else out.push(b[j++]);
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

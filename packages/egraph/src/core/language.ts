// The language interface of the e-graph: e-class ids, e-nodes (op + attribute data + children) and their
// canonical keys. Must not know any domain (no tensor, no math) and imports nothing.
// Invariants: two e-nodes are the same node exactly when their `nodeKey` strings are equal; e-nodes and their
// data are immutable once built (data keys are cached per data object).

/** An e-class id, as handed out by the union-find. */
export type Id = number;

/** JSON-like attribute data that may sit in an e-node and is part of its identity. */
export type NodeData = null | boolean | number | string | readonly NodeData[] | DataRecord;

/** Record data: named fields (as opposed to a scalar or a list). */
export type DataRecord = { readonly [key: string]: NodeData | undefined };

/** Whether data is a list (`Array.isArray` does not narrow a readonly array type). */
export function isDataList(data: NodeData | undefined): data is readonly NodeData[] {
  return Array.isArray(data);
}

/** Whether data is a record of named fields. */
export function isDataRecord(data: NodeData | undefined): data is DataRecord {
  return data !== null && typeof data === 'object' && !Array.isArray(data);
}

/** An e-node: an operator, optional attribute data (part of identity) and child e-class ids. */
export interface ENode {
  /** The operator name. */
  readonly op: string;
  /** Attribute data (compared structurally: part of the node's identity). */
  readonly data?: NodeData;
  /** Child e-class ids, in operand order. */
  readonly children: readonly Id[];
}

/** How a user language reads and writes the leaves of s-expressions (all hooks optional). */
export interface Language {
  /** Turns a bare leaf token (no `[...]` attributes), e.g. `0` or `x`, into an op and its data. */
  parseLeaf?(token: string): { op: string; data?: NodeData };
  /** Prints a leaf (a node without children) as a bare token, or returns undefined for the default. */
  formatLeaf?(node: ENode): string | undefined;
}

/** The language used when none is given: every token is an op, with no data. */
export const defaultLanguage: Language = {};

// Keys of object data, computed once per data object (data is immutable, shared by the many e-nodes that
// re-canonicalisation makes of one node): measured as the top self-time of `optimize` before this cache.
const dataKeys = new WeakMap<object, string>();

/**
 * Where a data object may carry its own key (a getter on its prototype, or a non-enumerable slot: never copied by a
 * spread, never written by JSON), as `declareDataKey` would declare it: read before the key cache. A language that
 * builds many short-lived data objects (fused expressions, mostly found in the memo and dropped) keeps their keys
 * there: a weak-map entry per object was much of the GC's work.
 */
export const DATA_KEY: unique symbol = Symbol('neura.egraph.dataKey');

/** A stable JSON string for attribute data: object keys sorted, `undefined` fields dropped (cached per object). */
export function dataKey(data: NodeData | undefined): string {
  if (data === null || typeof data !== 'object') return scalarKey(data);
  const own = (data as { readonly [DATA_KEY]?: string })[DATA_KEY];
  if (own !== undefined) return own;
  const hit = dataKeys.get(data);
  if (hit !== undefined) return hit;
  const key = objectKey(data);
  dataKeys.set(data, key);
  return key;
}

/** The key of a non-object value. JSON writes NaN and ±Infinity as `null` and -0 as `0`: such numbers get their own keys, or constant(-0) and constant(0) would be one e-class (x / -0 is -Infinity, x / 0 is +Infinity). */
function scalarKey(data: null | boolean | number | string | undefined): string {
  if (data === undefined) return '';
  // JSON writes a finite number as String does; short strings (op names, dtypes) are quoted from a cache: this
  // runs for every scalar of every fused node's attributes (JSON.stringify per scalar was ~5 % of optimize)
  if (typeof data === 'number') return Object.is(data, -0) ? '-0' : String(data);
  if (typeof data === 'string') return data.length <= 32 ? quoted(data) : JSON.stringify(data);
  return JSON.stringify(data);
}

/**
 * The key of an object, built in one pass: nested objects are read from the cache (a declared key) but not
 * added to it (a cache entry per nested object of every fused node's attributes cost more than it saved).
 */
function objectKey(data: readonly NodeData[] | DataRecord): string {
  if (isDataList(data)) {
    let s = '[';
    for (let i = 0; i < data.length; i++) s += (i > 0 ? ',' : '') + nestedKey(data[i]);
    return `${s}]`;
  }
  const live = Object.keys(data);
  // drop undefined fields and sort in place (insertion sort: a few keys; Array#sort allocated per call)
  let n = 0;
  for (let i = 0; i < live.length; i++) {
    const k = live[i];
    if (data[k] === undefined) continue;
    let j = n++;
    for (; j > 0 && live[j - 1] > k; j--) live[j] = live[j - 1];
    live[j] = k;
  }
  live.length = n;
  let s = '{';
  for (let i = 0; i < live.length; i++) s += `${i > 0 ? ',' : ''}${quoted(live[i])}:${nestedKey(data[live[i]])}`;
  return `${s}}`;
}

function nestedKey(data: NodeData | undefined): string {
  if (data === null || typeof data !== 'object') return scalarKey(data);
  return (data as { readonly [DATA_KEY]?: string })[DATA_KEY] ?? dataKeys.get(data) ?? objectKey(data);
}

// JSON texts of field names (few distinct names, quoted very often)
const quotedNames = new Map<string, string>();
const MAX_QUOTED = 4096;
function quoted(name: string): string {
  let q = quotedNames.get(name);
  if (q === undefined) {
    q = JSON.stringify(name);
    if (quotedNames.size < MAX_QUOTED) quotedNames.set(name, q);
  }
  return q;
}

/**
 * Declares the key of a data object, for languages that already hold a canonical text of it (the caller
 * guarantees: equal keys exactly when the data are equal; a key outside JSON's shapes, e.g. `pw:…`, cannot
 * clash with computed ones). Saves serialising large attributes a second time.
 */
export function declareDataKey(data: object, key: string): void {
  dataKeys.set(data, key);
}

/**
 * The canonical hash-cons key of an e-node: op, data key and children (as given, not canonicalised). Not cached
 * per node: most nodes are short-lived (instantiated, found in the memo, dropped) and a WeakMap entry per node
 * made the arithmetic saturation bench 40% slower in apply (ephemeron work in the GC); data keys are cached.
 */
export function nodeKey(node: ENode): string {
  return `${node.op}\u0001${dataKey(node.data)}\u0001${node.children.join(',')}`;
}

/** Builds an e-node; `data` is omitted from the object when undefined. */
export function enode(op: string, children: readonly Id[] = [], data?: NodeData): ENode {
  return data === undefined ? { op, children } : { op, data, children };
}

/** Returns the node with each child replaced by `f(child)`; the same object when nothing changes. */
export function mapChildren(node: ENode, f: (id: Id) => Id): ENode {
  const kids = node.children;
  let i = 0;
  let first = 0;
  for (; i < kids.length; i++) {
    first = f(kids[i]);
    if (first !== kids[i]) break;
  }
  if (i === kids.length) return node; // no allocation in the common case (canonicalising a canonical node)
  const children = kids.slice();
  children[i] = first;
  for (let j = i + 1; j < kids.length; j++) children[j] = f(kids[j]);
  return node.data === undefined ? { op: node.op, children } : { op: node.op, data: node.data, children };
}

/** True when two data values are structurally equal (by canonical key). */
export function dataEquals(a: NodeData | undefined, b: NodeData | undefined): boolean {
  // `===` holds for 0 and -0: numbers compare by Object.is, or a pattern's 0 would match a -0 constant
  if (a === b && (typeof a !== 'number' || Object.is(a, b))) return true;
  return dataKey(a) === dataKey(b);
}

/**
 * True when `node` data satisfies pattern data: undefined matches anything; an object matches when every
 * key it names is equal in `node` (a subset match); any other value must be equal.
 */
export function dataMatches(pattern: NodeData | undefined, node: NodeData | undefined): boolean {
  if (pattern === undefined) return true;
  if (pattern !== null && typeof pattern === 'object' && !Array.isArray(pattern)) {
    if (node === null || node === undefined || typeof node !== 'object' || Array.isArray(node)) return false;
    const p = pattern as { readonly [key: string]: NodeData | undefined };
    const n = node as { readonly [key: string]: NodeData | undefined };
    for (const k of Object.keys(p)) {
      if (p[k] === undefined) continue;
      if (!dataEquals(p[k], n[k])) return false;
    }
    return true;
  }
  return dataEquals(pattern, node);
}

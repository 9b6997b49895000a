// Data keys of fused ops whose attributes hold pointwise expressions (reductions with a prologue, row-wise and
// matmul-epilogue kernels): fields sorted as core's `dataKey` writes them, each expression as its compact key
// (exprKey.ts, as in the `pointwise` op's data key). Core's generic writer listed and sorted the fields of every
// expression node (most of the fuse pass's garbage). Must not change what is equal. Invariant: equal attributes,
// equal keys (expressions compared as their JSON texts compare).
import type { PwExpr } from '@neura/ir';
import type { NodeData } from '../core/index.js';
import { DATA_KEY } from '../core/index.js';
import { exprKey } from './exprKey.js';

/** Ops whose attributes hold expressions, keyed by `attrsKey` (see `keyedAttrs`). */
export const EXPR_ATTR_OPS: ReadonlySet<string> = new Set(['pointwiseReduce', 'pointwiseReduceMulti', 'rowwise', 'rowwiseMulti', 'matmulEpilogue', 'matmulQ8', 'matmulQ4', 'pointwiseMulti', 'pointwiseMultiTensor']);

/**
 * Attribute data of a fused op carrying its key: the attributes' own enumerable fields, in their order (spreads, JSON
 * and `Object.keys` see a plain record), and in a private field the key (read through a `DATA_KEY` getter on the
 * prototype). A copy with the key in a non-enumerable slot defined per object cost ~1.5 µs per fused node built
 * (`Object.defineProperty`; ~10 000 per GPT 6×384 optimize). No analysis number is kept here (as pointwise data
 * keeps one): these objects have as many shapes as attribute sets, and reading a private field across them cost
 * more than the text-keyed lookup it saved (each is asked about once).
 */
export class KeyedAttrs {
  readonly #key: string;
  constructor(attrs: object) {
    Object.assign(this, attrs);
    this.#key = recordKey(this as unknown as { readonly [key: string]: NodeData | undefined });
  }
  /** The e-node data key (see `DATA_KEY`). */
  get [DATA_KEY](): string {
    return this.#key;
  }
}

/**
 * Attribute data carrying its key (see `KeyedAttrs`). Attributes that already are keyed data (an existing node's,
 * passed on unchanged) are returned as they are: data are immutable, and their key is written.
 */
export function keyedAttrs<T extends object>(attrs: T): T {
  return attrs instanceof KeyedAttrs ? attrs : (new KeyedAttrs(attrs) as unknown as T);
}

/** The data key of an attribute value (see the file comment). */
export function attrsKey(v: NodeData | undefined): string {
  if (v === null || typeof v !== 'object') return scalarKey(v);
  // lists first: only records carry their own key (`KeyedAttrs`, pointwise data), and asking every list for one
  // was a slow symbol lookup
  if (Array.isArray(v)) {
    // a list of numbers (a shape, axes) in one piece: `join` writes each as `String` does, but -0 as 0
    let numbers = true;
    for (let i = 0; i < v.length && numbers; i++) numbers = typeof v[i] === 'number' && !Object.is(v[i], -0);
    if (numbers) return `[${v.join(',')}]`;
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + attrsKey(v[i]);
    return `${s}]`;
  }
  const own = (v as { readonly [DATA_KEY]?: string })[DATA_KEY];
  if (own !== undefined) return own;
  const r = v as { readonly [key: string]: NodeData | undefined };
  if (typeof r.op === 'string') return exprKey(r as unknown as PwExpr);
  return recordKey(r);
}

/** The key of a record's defined fields, sorted by name (its own key, if any, not read). */
function recordKey(r: { readonly [key: string]: NodeData | undefined }): string {
  // defined fields, insertion-sorted in place (a few fields: no filtered copy, no comparator sort)
  const keys = Object.keys(r);
  let n = 0;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (r[k] === undefined) continue;
    let j = n++;
    for (; j > 0 && keys[j - 1] > k; j--) keys[j] = keys[j - 1];
    keys[j] = k;
  }
  if (n < keys.length) keys.length = n; // a length store goes through the runtime even when it keeps the length
  let s = '{';
  for (let i = 0; i < keys.length; i++) s += fieldHead(keys[i], i > 0) + attrsKey(r[keys[i]]);
  return `${s}}`;
}

// a field's opening as the key writes it, `"name":` and `,"name":` (one piece per field, not three)
const heads = new Map<string, string>();
const commaHeads = new Map<string, string>();

/** `"name":`, after a comma when `comma`, cached. */
function fieldHead(name: string, comma: boolean): string {
  const table = comma ? commaHeads : heads;
  let h = table.get(name);
  if (h === undefined) {
    h = `${comma ? ',' : ''}${quoted(name)}:`;
    if (table.size < 1024) table.set(name, h); // field names are few; a bound all the same
  }
  return h;
}

// field names and short string values (op names, dtypes) as JSON writes them: the attributes of fused ops have a
// few of each, and writing each again for every node built (a `JSON.stringify` per field) was ~0.5 % of optimize on
// the GPT 6×384 step
const quotedTexts = new Map<string, string>();

/** `JSON.stringify(text)`, cached. */
function quoted(text: string): string {
  let q = quotedTexts.get(text);
  if (q === undefined) {
    q = JSON.stringify(text);
    if (quotedTexts.size < 1024) quotedTexts.set(text, q); // such texts are few; a bound all the same
  }
  return q;
}

/** Core's key of a non-object value (JSON, but -0, NaN and ±Infinity spelled as numbers; undefined empty). */
function scalarKey(v: null | boolean | number | string | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string' && v.length <= 32) return quoted(v);
  return JSON.stringify(v);
}

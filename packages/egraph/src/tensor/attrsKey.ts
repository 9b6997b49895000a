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

/** A copy of attribute data carrying its key in a non-enumerable `DATA_KEY` slot (read before core's key cache). */
export function keyedAttrs<T extends object>(attrs: T): T {
  const copy = { ...attrs };
  Object.defineProperty(copy, DATA_KEY, { value: attrsKey(copy as unknown as NodeData), enumerable: false });
  return copy;
}

/** The data key of an attribute value (see the file comment). */
export function attrsKey(v: NodeData | undefined): string {
  if (v === null || typeof v !== 'object') return scalarKey(v);
  const own = (v as { readonly [DATA_KEY]?: string })[DATA_KEY];
  if (own !== undefined) return own;
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + attrsKey(v[i]);
    return `${s}]`;
  }
  const r = v as { readonly [key: string]: NodeData | undefined };
  if (typeof r.op === 'string') return exprKey(r as unknown as PwExpr);
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
  keys.length = n;
  let s = '{';
  for (let i = 0; i < keys.length; i++) s += `${i > 0 ? ',' : ''}${quotedField(keys[i])}:${attrsKey(r[keys[i]])}`;
  return `${s}}`;
}

// field names as JSON writes them, per name: the attributes of fused ops have a few field names, and writing each
// again for every node built (a `JSON.stringify` per field) was ~0.5 % of optimize on the GPT 6×384 step
const quotedFields = new Map<string, string>();

/** `JSON.stringify(name)`, cached. */
function quotedField(name: string): string {
  let q = quotedFields.get(name);
  if (q === undefined) {
    q = JSON.stringify(name);
    if (quotedFields.size < 1024) quotedFields.set(name, q); // field names are few; a bound all the same
  }
  return q;
}

/** Core's key of a non-object value (JSON, but -0, NaN and ±Infinity spelled as numbers; undefined empty). */
function scalarKey(v: null | boolean | number | string | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return JSON.stringify(v);
}

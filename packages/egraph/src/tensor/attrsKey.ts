// Data keys of fused ops whose attributes hold pointwise expressions (reductions with a prologue, row-wise and
// matmul-epilogue kernels): the text core's `dataKey` would write (sorted fields, its scalar spelling), written in
// one pass with each expression node by its op's fixed field order. The generic writer listed and sorted the
// fields of every expression node (most of the fuse pass's garbage). Must not change what is equal: the text is
// exactly core's. Invariant: `attrsKey(x) === dataKey(x)` for plain attribute data.
import type { PwExpr } from '@neura/ir';
import type { NodeData } from '../core/index.js';
import { DATA_KEY } from '../core/index.js';

/** Ops whose attributes hold expressions, keyed by `attrsKey` (see `keyedAttrs`). */
export const EXPR_ATTR_OPS: ReadonlySet<string> = new Set(['pointwiseReduce', 'pointwiseReduceMulti', 'rowwise', 'rowwiseMulti', 'matmulEpilogue', 'pointwiseMulti', 'pointwiseMultiTensor']);

/** A copy of attribute data carrying its key in a non-enumerable `DATA_KEY` slot (read before core's key cache). */
export function keyedAttrs<T extends object>(attrs: T): T {
  const copy = { ...attrs };
  Object.defineProperty(copy, DATA_KEY, { value: attrsKey(copy as unknown as NodeData), enumerable: false });
  return copy;
}

/** Core's data key of a value (see the file comment). */
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
  for (let i = 0; i < keys.length; i++) s += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${attrsKey(r[keys[i]])}`;
  return `${s}}`;
}

/** An expression node's key: its fields in sorted order (a, b, c, index, op, to, value), as core writes them. */
function exprKey(e: PwExpr): string {
  switch (e.op) {
    case 'in':
      return `{"index":${scalarKey(e.index)},"op":"in"}`;
    case 'const':
      return `{"op":"const","value":${scalarKey(e.value)}}`;
    case 'cast':
      return `{"a":${exprKey(e.a)},"op":"cast","to":${scalarKey(e.to)}}`;
    case 'where':
      return `{"a":${exprKey(e.a)},"b":${exprKey(e.b)},"c":${exprKey(e.c)},"op":"where"}`;
    default:
      return 'b' in e ? `{"a":${exprKey(e.a)},"b":${exprKey(e.b)},"op":${scalarKey(e.op)}}` : `{"a":${exprKey(e.a)},"op":${scalarKey(e.op)}}`;
  }
}

/** Core's key of a non-object value (JSON, but -0, NaN and ±Infinity spelled as numbers; undefined empty). */
function scalarKey(v: null | boolean | number | string | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return JSON.stringify(v);
}

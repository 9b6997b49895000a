// The hash-cons key of a pointwise expression tree: a compact, prefix-free string of 16-bit codes (one per op,
// one per input index, four per constant's float64 bits), written into a reused buffer in one walk. Must not be
// parsed or shown: it only names expressions (JSON texts per fused node were ~8 % of optimize on the GPT step, and
// their length again in every memo hash). Invariant: equal keys exactly when the JSON texts are equal, for the
// expressions the builders write (fields in one order, as `sameExpr` assumes): -0 keys as 0, NaN and ±Infinity
// alike (JSON writes all three as null).
import type { PwExpr } from '@neura/ir';

// codes of the shapes of nodes; op names get codes from FIRST_OP on (per process, in the order first met). MARK opens
// every key: no JSON value starts with it, so a key written inside a JSON-like text (attrsKey.ts) stays unambiguous
const MARK = 0;
const IN = 1;
const CONST = 2;
const NON_FINITE = 3;
const CAST = 4;
const WHERE = 5;
const FALLBACK = 6;
const FIRST_OP = 16;
const unaryCodes = new Map<string, number>();
const binaryCodes = new Map<string, number>();
const dtypeCodes = new Map<string, number>();
let nextCode = FIRST_OP;

/** The code of a name in a table (a new one on first sight). */
function codeIn(table: Map<string, number>, name: string): number {
  let c = table.get(name);
  if (c === undefined) {
    if (nextCode > 0xffff) throw new RangeError('exprKey: more than 65 000 distinct op names');
    table.set(name, (c = nextCode++));
  }
  return c;
}

// the codes of the key being written: a plain array of small integers, cut to the key's length before it becomes a
// string (`String.fromCharCode.apply` over a plain array of the exact length was ~30 % faster than over a typed
// array's `subarray`: measured for 150-code keys, 20 000 keys 19 -> 13 ms)
const codes: number[] = [];
let at = 0;
const f64 = new Float64Array(1);
const f64Words = new Uint16Array(f64.buffer);

function push(code: number): void {
  codes[at++] = code; // at most one past the end: the array stays packed
}

/** Writes one node and its subtrees (prefix order: each code says what follows it). */
function write(e: PwExpr): void {
  if (e === null || typeof e !== 'object') {
    fallback(e);
    return;
  }
  const op = e.op;
  if (op === 'in') {
    const i = e.index;
    if (Number.isInteger(i) && i >= 0 && i <= 0xffff) {
      push(IN);
      push(i);
    } else fallback(e);
  } else if (op === 'const') {
    const v = e.value;
    if (!Number.isFinite(v)) push(NON_FINITE);
    else {
      push(CONST);
      f64[0] = v === 0 ? 0 : v; // -0 as 0
      push(f64Words[0]);
      push(f64Words[1]);
      push(f64Words[2]);
      push(f64Words[3]);
    }
  } else if (op === 'cast') {
    push(CAST);
    push(codeIn(dtypeCodes, e.to));
    write(e.a);
  } else if (op === 'where') {
    push(WHERE);
    write(e.c);
    write(e.a);
    write(e.b);
  } else if (typeof op !== 'string') fallback(e);
  else if ('b' in e) {
    push(codeIn(binaryCodes, op));
    write(e.a);
    write(e.b);
  } else {
    push(codeIn(unaryCodes, op));
    write(e.a);
  }
}

/** A node the codes cannot write (not an expression the builders make): its JSON text, length first. */
function fallback(e: unknown): void {
  const text = JSON.stringify(e) ?? 'undefined';
  push(FALLBACK);
  push(text.length >>> 16);
  push(text.length & 0xffff);
  for (let i = 0; i < text.length; i++) push(text.charCodeAt(i));
}

// String.fromCharCode takes its codes as arguments: a long key goes in slices
const SLICE = 8192;

/**
 * The key of an expression (see the file comment), after `prefix` when given: the same text as `prefix + exprKey(e)`,
 * written in one piece (a concatenation is a cons string, copied flat again when the e-graph hashes the key: ~13 000
 * pointwise data keys per GPT 6×384 optimize).
 */
export function exprKey(e: PwExpr, prefix = ''): string {
  at = 0;
  for (let i = 0; i < prefix.length; i++) push(prefix.charCodeAt(i));
  push(MARK);
  write(e);
  codes.length = at;
  if (at <= SLICE) return String.fromCharCode.apply(null, codes);
  let s = '';
  for (let i = 0; i < at; i += SLICE) s += String.fromCharCode.apply(null, codes.slice(i, Math.min(at, i + SLICE)));
  return s;
}

// GGUF's Q8_0 weight format and the `matmulQ8` op that reads it: blocks of 32 weights along the reduction axis K,
// each one f16 scale d = max|w|/127 and 32 int8 q = round(w/d) (half away from zero, as ggml's roundf), w = d·q:
// bit for bit what GGUF stores. Here a weight of N output columns is packed [N, ceil(K/32)·8] i32 (4 int8 per word,
// little-endian: byte j of word i is q[4i + j], GGUF's byte order) and its scales [N, ceil(ceil(K/32)/2)] i32, two
// f16 per word (block 2i in the low half; WGSL's unpack2x16float reads them without shader-f16): 34 bytes per 32
// weights, as GGUF. K that is not a multiple of 32 is padded with zero weights. Pure data: no graph, no device (the
// interpreter row is in interpret.ts: infer.ts imports this file, and graph.ts imports infer.ts).

import { f16Bits, f16FromBits } from './f16.js';
import { arity, fail, type Rule, type TensorType } from './inferCore.js';
import type { OpAttrs } from './ops.js';
import { type PwExpr, pwArity } from './pointwiseExpr.js';
import { broadcastsTo, fmtShape } from './shape.js';
import type { TensorValue } from './tensorValue.js';

/** Weights per Q8_0 block (along K). */
export const Q8_BLOCK = 32;

/** Blocks of one column of a K-long reduction (the last one zero-padded when K is not a multiple of 32). */
export function q8Blocks(k: number): number {
  return Math.ceil(k / Q8_BLOCK);
}

/** Words of f16 scales per column: two blocks' scales per i32. */
export function q8ScaleWords(k: number): number {
  return Math.ceil(q8Blocks(k) / 2);
}

/** A weight in Q8_0: packed int8 `q` [N, blocks·8] i32 and per-block f16 scales `d` [N, ceil(blocks/2)] i32 (two per word). */
export interface Q8Weight {
  /** Four int8 per i32 word, little-endian; column n's block b is words [b·8, b·8 + 8) of row n. */
  readonly q: TensorValue;
  /** f16 scale of each block, two per word (block 2i low, 2i + 1 high): w = d·q. */
  readonly d: TensorValue;
}

/** The scale of block `b` of row `row` of packed f16 scales of `words` per row. */
export function q8Scale(d: ArrayLike<number>, words: number, row: number, b: number): number {
  const word = d[row * words + (b >> 1)];
  return f16FromBits((b & 1 ? word >>> 16 : word) & 0xffff);
}

/** ggml's roundf: to nearest, halves away from zero (Math.round rounds halves up). */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/**
 * Quantizes a weight to Q8_0 along its reduction axis: `w` [K, N] as neura's Linear stores it (`transposed`: [N, K],
 * PyTorch's and GGUF's layout). Per block, as ggml's reference quantizer (`quantize_row_q8_0_ref`): d = max|w|/127
 * in f32, q = roundf(w·(1/d)), d stored as f16; an all-zero block has d = 0 and q = 0.
 */
export function quantizeQ8_0(w: TensorValue, opts: { transposed?: boolean } = {}): Q8Weight {
  if (w.shape.length !== 2 || (w.dtype !== 'f32' && w.dtype !== 'f16'))
    throw new TypeError(`quantizeQ8_0: expected a float matrix, got ${fmtShape(w.shape)} ${w.dtype}`);
  const [r, c] = w.shape;
  const [k, n] = opts.transposed ? [c, r] : [r, c];
  const at = opts.transposed ? (kk: number, nn: number) => w.data[nn * k + kk] : (kk: number, nn: number) => w.data[kk * n + nn];
  const blocks = q8Blocks(k);
  const q = new Int32Array(n * blocks * 8);
  const dWords = Math.ceil(blocks / 2);
  const d = new Int32Array(n * dWords);
  const halves = new Uint16Array(d.buffer); // little-endian: block 2i in the low half
  const bytes = new Uint8Array(q.buffer); // little-endian on every platform WebGPU runs on, as GGUF
  for (let nn = 0; nn < n; nn++)
    for (let b = 0; b < blocks; b++) {
      const k0 = b * Q8_BLOCK;
      const k1 = Math.min(k, k0 + Q8_BLOCK);
      let amax = 0;
      for (let kk = k0; kk < k1; kk++) amax = Math.max(amax, Math.abs(at(kk, nn)));
      const scale = Math.fround(amax / 127);
      const inv = scale ? Math.fround(1 / scale) : 0;
      halves[nn * dWords * 2 + b] = f16Bits(scale);
      for (let kk = k0; kk < k1; kk++) {
        const v = roundHalfAway(Math.fround(at(kk, nn) * inv));
        bytes[(nn * blocks * 8 + b * 8) * 4 + (kk - k0)] = v & 0xff;
      }
    }
  return { q: { shape: [n, blocks * 8], dtype: 'i32', data: q }, d: { shape: [n, dWords], dtype: 'i32', data: d } };
}

/** The int8 value `j` (0 ≤ j < blocks·32) of row `row` of packed Q8_0 words of `words` per row. */
export function q8Value(q: ArrayLike<number>, words: number, row: number, j: number): number {
  const word = q[row * words + (j >> 2)];
  return ((word << (24 - 8 * (j & 3))) >> 24) | 0; // the byte, sign-extended
}

/** Dequantizes a Q8_0 weight to [K, N] f32 (the layout `quantizeQ8_0` took by default): w = d·q. */
export function dequantizeQ8_0(w: Q8Weight, k: number): TensorValue {
  const [n, words] = w.q.shape;
  const blocks = q8Blocks(k);
  const dWords = w.d.shape[1];
  if (words !== blocks * 8 || dWords !== Math.ceil(blocks / 2)) throw new TypeError(`dequantizeQ8_0: q ${fmtShape(w.q.shape)} and d ${fmtShape(w.d.shape)} do not hold K=${k}`);
  const out = new Float32Array(k * n);
  for (let nn = 0; nn < n; nn++)
    for (let kk = 0; kk < k; kk++) out[kk * n + nn] = q8Scale(w.d.data, dWords, nn, kk >> 5) * q8Value(w.q.data, words, nn, kk);
  return { shape: [k, n], dtype: 'f32', data: out };
}

/** Bytes of one GGUF Q8_0 block: the f16 scale, then 32 int8. */
export const GGUF_Q8_BLOCK_BYTES = 34;

/**
 * The weight as GGUF stores a Q8_0 tensor of N rows of K (ggml's ne0 = K): per row, its blocks of 34 bytes, each
 * the f16 scale d (little-endian) then 32 int8 q (ggml's `block_q8_0`). GGUF needs K to be a multiple of 32.
 */
export function q8ToGguf(w: Q8Weight): Uint8Array {
  const [n, words] = w.q.shape;
  const blocks = words / 8;
  const dWords = w.d.shape[1];
  const out = new Uint8Array(n * blocks * GGUF_Q8_BLOCK_BYTES);
  const qBytes = new Uint8Array(w.q.data.buffer, w.q.data.byteOffset, w.q.data.byteLength);
  const halves = new Uint16Array(Int32Array.from(w.d.data).buffer);
  for (let r = 0; r < n; r++)
    for (let b = 0; b < blocks; b++) {
      const o = (r * blocks + b) * GGUF_Q8_BLOCK_BYTES;
      const h = halves[r * dWords * 2 + b];
      out[o] = h & 0xff;
      out[o + 1] = h >> 8;
      out.set(qBytes.subarray((r * words + b * 8) * 4, (r * words + b * 8) * 4 + 32), o + 2);
    }
  return out;
}

/** A GGUF Q8_0 tensor's bytes (N rows of K, K a multiple of 32; see `q8ToGguf`) as the packed weight `matmulQ8` reads. */
export function q8FromGguf(bytes: Uint8Array, n: number, k: number): Q8Weight {
  if (k % Q8_BLOCK !== 0) throw new TypeError(`q8FromGguf: a GGUF Q8_0 row holds whole blocks of 32, got K=${k}`);
  const blocks = k / Q8_BLOCK;
  if (bytes.length !== n * blocks * GGUF_Q8_BLOCK_BYTES)
    throw new TypeError(`q8FromGguf: ${bytes.length} bytes for ${n} rows of ${k} (expected ${n * blocks * GGUF_Q8_BLOCK_BYTES}: ${blocks} blocks of 34 bytes per row)`);
  const dWords = Math.ceil(blocks / 2);
  const q = new Int32Array(n * blocks * 8);
  const d = new Int32Array(n * dWords);
  const qBytes = new Uint8Array(q.buffer);
  const halves = new Uint16Array(d.buffer);
  for (let r = 0; r < n; r++)
    for (let b = 0; b < blocks; b++) {
      const o = (r * blocks + b) * GGUF_Q8_BLOCK_BYTES;
      halves[r * dWords * 2 + b] = bytes[o] | (bytes[o + 1] << 8);
      qBytes.set(bytes.subarray(o + 2, o + GGUF_Q8_BLOCK_BYTES), (r * blocks * 8 + b * 8) * 4);
    }
  return { q: { shape: [n, blocks * 8], dtype: 'i32', data: q }, d: { shape: [n, dWords], dtype: 'i32', data: d } };
}

/**
 * The type rule of a block-quantized matmul `op` (matmulQ8, matmulQ4): x [..., M, K] f32, q [N, ceil(K/32)·`words`]
 * i32 (`what` says how a block packs), d [N, ceil(ceil(K/32)/2)] i32, then an epilogue's extras → [..., M, N] f32.
 */
export function quantMatmulRule<K extends 'matmulQ8' | 'matmulQ4'>(op: K, words: number, what: string): Rule<OpAttrs[K]> {
  return (ins, a) => {
    if (a.expr === undefined) arity(op, ins, 3);
    else if (ins.length < 3) fail(op, 'needs x, q and d before the epilogue operands', ins);
    const [x, q, d] = ins;
    if (x.dtype !== 'f32' || x.shape.length < 2) fail(op, `x must be f32 of rank ≥ 2 ([..., M, K]), got ${fmtShape(x.shape)} ${x.dtype}`, ins);
    const k = x.shape[x.shape.length - 1];
    const blocks = q8Blocks(k);
    if (q.dtype !== 'i32' || q.shape.length !== 2 || q.shape[1] !== blocks * words)
      fail(op, `q must be i32 [N, ${blocks * words}] (K=${k}: ${blocks} blocks of ${what}), got ${fmtShape(q.shape)} ${q.dtype}`, ins);
    const n = q.shape[0];
    const dWords = Math.ceil(blocks / 2);
    if (d.dtype !== 'i32' || d.shape.length !== 2 || d.shape[0] !== n || d.shape[1] !== dWords)
      fail(op, `d must be i32 [${n}, ${dWords}] (an f16 scale per block of 32, 2 per word), got ${fmtShape(d.shape)} ${d.dtype}`, ins);
    const shape = [...x.shape.slice(0, -1), n];
    if (a.expr !== undefined) checkEpilogue(op, a.expr, ins, shape);
    return { shape, dtype: 'f32' } satisfies TensorType;
  };
}

/** An epilogue over the product and `ins[3..]`: it reads no operand past them, and each broadcasts to the output. */
function checkEpilogue(op: string, expr: PwExpr, ins: readonly TensorType[], shape: readonly number[]): void {
  if (pwArity(expr) > ins.length - 2) fail(op, `the epilogue reads $${pwArity(expr) - 1}, but there are ${ins.length - 3} extra operands`, ins);
  ins.slice(3).forEach((e, k) => {
    if (!broadcastsTo(e.shape, shape)) fail(op, `extra operand ${k} ${fmtShape(e.shape)} does not broadcast to ${fmtShape(shape)}`, ins);
  });
}

/** `matmulQ8`'s type: x [..., M, K] f32, q [N, ceil(K/32)·8] i32, d [N, ceil(ceil(K/32)/2)] i32 → [..., M, N] f32. */
export const inferMatmulQ8: Rule<OpAttrs['matmulQ8']> = quantMatmulRule('matmulQ8', 8, '32 int8, 4 per word');

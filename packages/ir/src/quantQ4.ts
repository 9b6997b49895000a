// GGUF's Q4_0 weight format and the `matmulQ4` op that reads it: blocks of 32 weights along the reduction axis K,
// each one f16 scale d = max/−8 (max: the block's value of largest magnitude, with its sign) and 32 4-bit q in
// [0, 15], w = (q − 8)·d: bit for bit what GGUF stores (ggml's `block_q4_0`: byte j of a block holds q[j] in its low
// nibble and q[j + 16] in its high one). Here a weight of N output columns is packed [N, ceil(K/32)·4] i32 (a
// block's 16 bytes in 4 words, little-endian, GGUF's byte order) and its scales [N, ceil(ceil(K/32)/2)] i32, two f16
// per word as Q8_0's (quantQ8.ts): 18 bytes per 32 weights, as GGUF. K that is not a multiple of 32 is padded with
// zero weights (q = 8). Pure data: no graph, no device (the interpreter row is in interpret.ts).

import { f16Bits } from './f16.js';
import type { Rule } from './inferCore.js';
import type { OpAttrs } from './ops.js';
import { Q8_BLOCK, q8Blocks, q8Scale, quantMatmulRule } from './quantQ8.js';
import { fmtShape } from './shape.js';
import type { TensorValue } from './tensorValue.js';

/** A weight in Q4_0: packed nibbles `q` [N, blocks·4] i32 and per-block f16 scales `d` [N, ceil(blocks/2)] i32 (two per word). */
export interface Q4Weight {
  /** A block's 16 bytes in 4 words, little-endian; byte j holds q[j] (low nibble) and q[j + 16] (high nibble). */
  readonly q: TensorValue;
  /** f16 scale of each block, two per word (block 2i low, 2i + 1 high): w = (q − 8)·d. */
  readonly d: TensorValue;
}

/** The value (q − 8, in [−8, 7]) of weight `j` (0 ≤ j < blocks·32) of row `row` of packed Q4_0 words of `words` per row. */
export function q4Value(q: ArrayLike<number>, words: number, row: number, j: number): number {
  const i = j & 31;
  const byte = (j >> 5) * 16 + (i & 15);
  const word = q[row * words + (byte >> 2)];
  return ((word >>> (8 * (byte & 3) + (i >> 4) * 4)) & 15) - 8;
}

/**
 * Quantizes a weight to Q4_0 along its reduction axis: `w` [K, N] as neura's Linear stores it (`transposed`: [N, K],
 * PyTorch's and GGUF's layout). Per block, as ggml's `quantize_row_q4_0_ref`, in f32: max = the first value of
 * largest |w|, d = max/−8, id = 1/d (0 when d = 0), q = min(15, trunc(w·id + 8.5)); d stored as f16.
 */
export function quantizeQ4_0(w: TensorValue, opts: { transposed?: boolean } = {}): Q4Weight {
  if (w.shape.length !== 2 || (w.dtype !== 'f32' && w.dtype !== 'f16'))
    throw new TypeError(`quantizeQ4_0: expected a float matrix, got ${fmtShape(w.shape)} ${w.dtype}`);
  const [r, c] = w.shape;
  const [k, n] = opts.transposed ? [c, r] : [r, c];
  const at = opts.transposed ? (kk: number, nn: number) => w.data[nn * k + kk] : (kk: number, nn: number) => w.data[kk * n + nn];
  const blocks = q8Blocks(k);
  const q = new Int32Array(n * blocks * 4);
  const dWords = Math.ceil(blocks / 2);
  const d = new Int32Array(n * dWords);
  const halves = new Uint16Array(d.buffer); // little-endian: block 2i in the low half
  const bytes = new Uint8Array(q.buffer); // little-endian on every platform WebGPU runs on, as GGUF
  const v = new Float32Array(Q8_BLOCK);
  for (let nn = 0; nn < n; nn++)
    for (let b = 0; b < blocks; b++) {
      let amax = 0;
      let max = 0;
      for (let i = 0; i < Q8_BLOCK; i++) {
        const kk = b * Q8_BLOCK + i;
        v[i] = kk < k ? at(kk, nn) : 0; // padding: a zero weight
        if (amax < Math.abs(v[i])) {
          amax = Math.abs(v[i]);
          max = v[i];
        }
      }
      const scale = Math.fround(max / -8);
      const inv = scale ? Math.fround(1 / scale) : 0;
      halves[nn * dWords * 2 + b] = f16Bits(scale);
      const quant = (x: number) => Math.min(15, Math.trunc(Math.fround(Math.fround(x * inv) + 8.5)));
      for (let j = 0; j < 16; j++) bytes[(nn * blocks + b) * 16 + j] = quant(v[j]) | (quant(v[j + 16]) << 4);
    }
  return { q: { shape: [n, blocks * 4], dtype: 'i32', data: q }, d: { shape: [n, dWords], dtype: 'i32', data: d } };
}

/** Dequantizes a Q4_0 weight to [K, N] f32 (the layout `quantizeQ4_0` took by default): w = (q − 8)·d. */
export function dequantizeQ4_0(w: Q4Weight, k: number): TensorValue {
  const [n, words] = w.q.shape;
  const blocks = q8Blocks(k);
  const dWords = w.d.shape[1];
  if (words !== blocks * 4 || dWords !== Math.ceil(blocks / 2)) throw new TypeError(`dequantizeQ4_0: q ${fmtShape(w.q.shape)} and d ${fmtShape(w.d.shape)} do not hold K=${k}`);
  const out = new Float32Array(k * n);
  for (let nn = 0; nn < n; nn++)
    for (let kk = 0; kk < k; kk++) out[kk * n + nn] = q8Scale(w.d.data, dWords, nn, kk >> 5) * q4Value(w.q.data, words, nn, kk);
  return { shape: [k, n], dtype: 'f32', data: out };
}

/** Bytes of one GGUF Q4_0 block: the f16 scale, then 16 bytes of nibbles. */
export const GGUF_Q4_BLOCK_BYTES = 18;

/**
 * The weight as GGUF stores a Q4_0 tensor of N rows of K (ggml's ne0 = K): per row, its blocks of 18 bytes, each
 * the f16 scale d (little-endian) then 16 bytes of nibbles (ggml's `block_q4_0`). GGUF needs K to be a multiple of 32.
 */
export function q4ToGguf(w: Q4Weight): Uint8Array {
  const [n, words] = w.q.shape;
  const blocks = words / 4;
  const dWords = w.d.shape[1];
  const out = new Uint8Array(n * blocks * GGUF_Q4_BLOCK_BYTES);
  const qBytes = new Uint8Array(w.q.data.buffer, w.q.data.byteOffset, w.q.data.byteLength);
  const halves = new Uint16Array(Int32Array.from(w.d.data).buffer);
  for (let r = 0; r < n; r++)
    for (let b = 0; b < blocks; b++) {
      const o = (r * blocks + b) * GGUF_Q4_BLOCK_BYTES;
      const h = halves[r * dWords * 2 + b];
      out[o] = h & 0xff;
      out[o + 1] = h >> 8;
      out.set(qBytes.subarray((r * blocks + b) * 16, (r * blocks + b + 1) * 16), o + 2);
    }
  return out;
}

/** A GGUF Q4_0 tensor's bytes (N rows of K, K a multiple of 32; see `q4ToGguf`) as the packed weight `matmulQ4` reads. */
export function q4FromGguf(bytes: Uint8Array, n: number, k: number): Q4Weight {
  if (k % Q8_BLOCK !== 0) throw new TypeError(`q4FromGguf: a GGUF Q4_0 row holds whole blocks of 32, got K=${k}`);
  const blocks = k / Q8_BLOCK;
  if (bytes.length !== n * blocks * GGUF_Q4_BLOCK_BYTES)
    throw new TypeError(`q4FromGguf: ${bytes.length} bytes for ${n} rows of ${k} (expected ${n * blocks * GGUF_Q4_BLOCK_BYTES}: ${blocks} blocks of 18 bytes per row)`);
  const dWords = Math.ceil(blocks / 2);
  const q = new Int32Array(n * blocks * 4);
  const d = new Int32Array(n * dWords);
  const qBytes = new Uint8Array(q.buffer);
  const halves = new Uint16Array(d.buffer);
  for (let r = 0; r < n; r++)
    for (let b = 0; b < blocks; b++) {
      const o = (r * blocks + b) * GGUF_Q4_BLOCK_BYTES;
      halves[r * dWords * 2 + b] = bytes[o] | (bytes[o + 1] << 8);
      qBytes.set(bytes.subarray(o + 2, o + GGUF_Q4_BLOCK_BYTES), (r * blocks + b) * 16);
    }
  return { q: { shape: [n, blocks * 4], dtype: 'i32', data: q }, d: { shape: [n, dWords], dtype: 'i32', data: d } };
}

/** `matmulQ4`'s type: x [..., M, K] f32, q [N, ceil(K/32)·4] i32, d [N, ceil(ceil(K/32)/2)] i32 → [..., M, N] f32. */
export const inferMatmulQ4: Rule<OpAttrs['matmulQ4']> = quantMatmulRule('matmulQ4', 4, '32 4-bit values, 8 per word');

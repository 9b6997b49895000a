import { describe, expect, it } from 'vitest';
import { f16round } from './f16.js';
import { Graph } from './graph.js';
import { interpret } from './interpret.js';
import { dequantizeQ4_0, q4FromGguf, q4ToGguf, q4Value, quantizeQ4_0 } from './quantQ4.js';
import { q8Scale } from './quantQ8.js';
import { mulberry32, tensor } from './tensorValue.js';

const randn = (n: number, seed: number) => {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => r() * 2 - 1);
};

/** The 32 values q − 8 of block `b` of column 0 of a packed weight of `words` per row. */
const block = (q: ArrayLike<number>, words: number, b: number) => Array.from({ length: 32 }, (_, j) => q4Value(q, words, 0, b * 32 + j));

describe('quantizeQ4_0 (GGUF Q4_0, as ggml quantize_row_q4_0_ref)', () => {
  it('takes d = max/−8 from the signed value of largest magnitude and q = min(15, trunc(w/d + 8.5))', () => {
    // block 0: max = +8 → d = −1, id = −1: q = trunc(−w + 8.5) → w = 8: 0 (q−8 = −8), w = −7: 15, w = 2.5: trunc(6) = 6,
    //   w = −2.5: trunc(11) = 11, w = 0.4: trunc(8.1) = 8, w = −8 (ties |max|, but the first largest wins): trunc(16.5) → min 15
    // block 1: max = −4 (negative) → d = 0.5, id = 2: w = −4: trunc(0.5) = 0, w = 3.9: trunc(16.3) → 15, w = 1: trunc(10.5) = 10
    const w = new Array(64).fill(0);
    Object.assign(w, { 0: 8, 1: -7, 2: 2.5, 3: -2.5, 4: 0.4, 17: -8 });
    Object.assign(w, { 32: -4, 33: 3.9, 50: 1 });
    const { q, d } = quantizeQ4_0(tensor([64, 1], w));
    expect(q.shape).toEqual([1, 8]);
    expect(d.shape).toEqual([1, 1]);
    expect(q8Scale(d.data, 1, 0, 0)).toBe(-1);
    expect(q8Scale(d.data, 1, 0, 1)).toBe(0.5);
    const b0 = block(q.data, 8, 0).map((v) => v + 8);
    expect([b0[0], b0[1], b0[2], b0[3], b0[4], b0[17], b0[5]]).toEqual([0, 15, 6, 11, 8, 15, 8]);
    const b1 = block(q.data, 8, 1).map((v) => v + 8);
    expect([b1[0], b1[1], b1[18], b1[2]]).toEqual([0, 15, 10, 8]);
    // GGUF's nibble order: byte j of a block holds q[j] low and q[j + 16] high
    const bytes = new Uint8Array(q.data.buffer);
    expect(bytes[0]).toBe(0 | (8 << 4)); // q[0] = 0, q[16] = 8
    expect(bytes[1]).toBe(15 | (15 << 4)); // q[1] = 15, q[17] = 15
    expect(bytes[16 + 2]).toBe(8 | (10 << 4)); // block 1: q[2] = 8, q[18] = 10
  });

  it('gives an all-zero block d = −0 and every q = 8 (w = 0), and stores d as f16 with q from the f32 d', () => {
    const zero = quantizeQ4_0(tensor([32, 1], new Array(32).fill(0)));
    expect(q8Scale(zero.d.data, 1, 0, 0)).toBe(-0); // 0/−8 is −0 in C too: ggml stores the half 0x8000
    expect(zero.d.data[0] & 0xffff).toBe(0x8000);
    expect(block(zero.q.data, 4, 0)).toEqual(new Array(32).fill(0));
    expect(Array.from(zero.q.data)).toEqual(new Array(4).fill(0x88888888 | 0));
    // max = 1: d = −1/8 exactly; max = 0.3: d = −0.0375 in f32, stored rounded to f16
    const w = new Array(32).fill(0);
    w[0] = 0.3;
    w[1] = 0.15; // 0.15·(1/−0.0375) + 8.5 = 4.5 → 4
    const { q, d } = quantizeQ4_0(tensor([32, 1], w));
    expect(q8Scale(d.data, 1, 0, 0)).toBe(f16round(Math.fround(0.3 / -8)));
    expect(q8Scale(d.data, 1, 0, 0)).not.toBe(Math.fround(0.3 / -8));
    expect(block(q.data, 4, 0).slice(0, 2)).toEqual([0 - 8, 4 - 8]);
  });

  it('pads K to whole blocks with zero weights, round-trips within half a step plus d·(the clamp at 15) per weight, and packs [N, K] the same', () => {
    const [k, n] = [40, 3];
    const data = randn(k * n, 7);
    const w = tensor([k, n], data);
    const qw = quantizeQ4_0(w);
    expect(qw.q.shape).toEqual([3, 8]);
    expect(qw.d.shape).toEqual([3, 1]);
    for (let j = 40; j < 64; j++) expect(q4Value(qw.q.data, 8, 2, j)).toBe(0); // padding past K = 40
    const back = dequantizeQ4_0(qw, k);
    for (let kk = 0; kk < k; kk++)
      for (let nn = 0; nn < n; nn++) {
        const dd = Math.abs(q8Scale(qw.d.data, 1, nn, kk >> 5));
        // a step is |d|; the side opposite max can reach 8|d| but is clamped at 7|d|: error ≤ |d|, plus d's f16 rounding
        expect(Math.abs(back.data[kk * n + nn] - w.data[kk * n + nn])).toBeLessThanOrEqual(dd + 8 * dd * 2 ** -11);
      }
    const t = tensor([n, k], Array.from({ length: n * k }, (_, i) => w.data[(i % k) * n + Math.floor(i / k)]));
    expect(Array.from(quantizeQ4_0(t, { transposed: true }).q.data)).toEqual(Array.from(qw.q.data));
  });
});

describe('GGUF Q4_0 bytes', () => {
  it("are ggml's block_q4_0 (f16 d little-endian, then 16 bytes of nibbles) per block, row after row, and read back to the same packing", () => {
    const [n, k] = [3, 96];
    const w = tensor([n, k], randn(n * k, 9));
    const packed = quantizeQ4_0(w, { transposed: true });
    const bytes = q4ToGguf(packed);
    expect(bytes.length).toBe(n * 3 * 18);
    const o = (1 * 3 + 2) * 18; // row 1, block 2: its scale in the low half of the row's second word
    const dv = new DataView(bytes.buffer);
    expect(dv.getUint16(o, true)).toBe(new Uint16Array(packed.d.data.buffer)[1 * 4 + 2]);
    for (let j = 0; j < 16; j++) {
      expect((bytes[o + 2 + j] & 15) - 8).toBe(q4Value(packed.q.data, 12, 1, 64 + j));
      expect((bytes[o + 2 + j] >> 4) - 8).toBe(q4Value(packed.q.data, 12, 1, 64 + 16 + j));
    }
    const back = q4FromGguf(bytes, n, k);
    expect(Array.from(back.q.data)).toEqual(Array.from(packed.q.data));
    expect(Array.from(back.d.data)).toEqual(Array.from(packed.d.data));
    expect(() => q4FromGguf(bytes, n, 40)).toThrow(/whole blocks of 32, got K=40/);
    expect(() => q4FromGguf(bytes.subarray(1), n, k)).toThrow(/161 bytes for 3 rows of 96 \(expected 162/);
  });
});

describe('Q4_0 against llama.cpp', () => {
  it("gives the bytes of gguf-py's Q4_0 quantizer (llama.cpp's numpy port of ggml's rule), bit for bit", () => {
    // PYTHONPATH=<gguf 0.19.0 wheel> python3 -c "import numpy as np; from gguf import quants, GGMLQuantizationType as T;
    //   x = np.array([np.sin(0.7*i)*(1 if i<32 else 3) for i in range(64)], dtype=np.float32); x[40] = -5;
    //   print(quants.quantize(x.reshape(1, 64), T.Q4_0).tobytes().hex())"
    const want = 'f1aff8d38031051b6fbffdf8d38031051b6f0039c6946345385b8dbcd0c6946345385b9d';
    const x = Array.from({ length: 64 }, (_, i) => Math.fround(Math.sin(0.7 * i) * (i < 32 ? 1 : 3)));
    x[40] = -5; // block 1's max is negative: d > 0
    const bytes = q4ToGguf(quantizeQ4_0(tensor([1, 64], x), { transposed: true }));
    expect(Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')).toBe(want);
  });
});

describe('matmulQ4', () => {
  it('is x times the dequantized weight (batched rows, K not a multiple of 32, odd N)', () => {
    const [b, m, k, n] = [2, 3, 45, 5];
    const w = tensor([k, n], randn(k * n, 3));
    const qw = quantizeQ4_0(w);
    const x = tensor([b, m, k], randn(b * m * k, 4));
    const g = new Graph();
    const y = g.matmulQ4(g.input('x', [b, m, k]), g.input('q', qw.q.shape, 'i32'), g.input('d', qw.d.shape, 'i32'));
    expect(y.shape).toEqual([b, m, n]);
    const ref = new Graph();
    const yr = ref.matmul(ref.input('x', [b, m, k]), ref.input('w', [k, n]));
    g.output('y', y);
    ref.output('y', yr);
    const got = interpret(g, { x, q: qw.q, d: qw.d }).outputs.y;
    const want = interpret(ref, { x, w: dequantizeQ4_0(qw, k) }).outputs.y;
    for (let i = 0; i < got.data.length; i++) expect(got.data[i]).toBeCloseTo(want.data[i], 5);
  });

  it('names the operand whose shape or dtype does not fit K', () => {
    const g = new Graph();
    const x = g.input('x', [2, 40]);
    expect(() => g.matmulQ4(x, g.input('q', [4, 16], 'i32'), g.input('d', [4, 1], 'i32'))).toThrow(/q must be i32 \[N, 8\] \(K=40: 2 blocks/);
    expect(() => g.matmulQ4(x, g.input('q2', [4, 8], 'i32'), g.input('d2', [4, 2], 'i32'))).toThrow(/d must be i32 \[4, 1\] \(an f16 scale per block/);
    expect(() => g.matmulQ4(x, g.input('q3', [4, 8]), g.input('d3', [4, 1], 'i32'))).toThrow(/q must be i32/);
  });
});

import { describe, expect, it } from 'vitest';
import { Graph } from './graph.js';
import { interpret } from './interpret.js';
import { f16round } from './f16.js';
import { dequantizeQ8_0, q8FromGguf, q8Scale, q8ToGguf, q8Value, quantizeQ8_0 } from './quantQ8.js';
import { mulberry32, tensor } from './tensorValue.js';

const randn = (n: number, seed: number) => {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => r() * 2 - 1);
};

describe('quantizeQ8_0 (GGUF Q8_0, as ggml quantize_row_q8_0_ref)', () => {
  it('scales each block of 32 by max|w|/127 and rounds halves away from zero (roundf)', () => {
    // one column, K = 32: max|w| = 127 gives d = 1, so q = roundf(w): 2.5 → 3, −2.5 → −3 (Math.round would give −2)
    const w = new Array(32).fill(0);
    w[0] = 127;
    w[1] = 2.5;
    w[2] = -2.5;
    w[3] = -126.5;
    w[4] = 0.49;
    const { q, d } = quantizeQ8_0(tensor([32, 1], w));
    expect(q.shape).toEqual([1, 8]);
    expect(d.shape).toEqual([1, 1]);
    expect(q8Scale(d.data, 1, 0, 0)).toBe(1);
    expect([0, 1, 2, 3, 4, 5].map((j) => q8Value(q.data, 8, 0, j))).toEqual([127, 3, -3, -127, 0, 0]);
    // byte order is GGUF's: q[0..3] little-endian in word 0
    expect(q.data[0]).toBe((127 | (3 << 8) | (0xfd << 16) | (0x81 << 24)) | 0);
  });

  it('stores d as f16 (GGUF), q computed with the f32 d as ggml does', () => {
    // max|w| = 1: d = f32(1/127) stored as f16; q = roundf(w·(1/d)) = 127 for w = 1, 64 for w = 0.5 (63.5 → 64)
    const w = new Array(64).fill(0);
    w[0] = 1;
    w[1] = 0.5;
    w[32] = -3; // block 1: scale in the high half of word 0
    const { q, d } = quantizeQ8_0(tensor([64, 1], w));
    expect(d.shape).toEqual([1, 1]);
    expect(q8Scale(d.data, 1, 0, 0)).toBe(f16round(Math.fround(1 / 127)));
    expect(q8Scale(d.data, 1, 0, 0)).not.toBe(Math.fround(1 / 127));
    expect(q8Scale(d.data, 1, 0, 1)).toBe(f16round(Math.fround(3 / 127)));
    expect([0, 1, 32].map((j) => q8Value(q.data, 16, 0, j))).toEqual([127, 64, -127]);
  });

  it('pads K to whole blocks with zeros, gives an all-zero block d = 0, and round-trips within half a step (plus the f16 rounding of d) per weight', () => {
    const k = 40;
    const n = 3;
    const data = randn(k * n, 7);
    for (let j = 0; j < 32; j++) data[j * n + 1] = 0; // column 1, block 0: all zeros
    const w = tensor([k, n], data);
    const qw = quantizeQ8_0(w);
    expect(qw.q.shape).toEqual([3, 16]);
    expect(qw.d.shape).toEqual([3, 1]);
    expect(q8Scale(qw.d.data, 1, 1, 0)).toBe(0);
    for (let j = 8; j < 32; j++) expect(q8Value(qw.q.data, 16, 0, 32 + j)).toBe(0); // padding past K = 40
    const back = dequantizeQ8_0(qw, k);
    for (let kk = 0; kk < k; kk++)
      for (let nn = 0; nn < n; nn++) {
        const dd = q8Scale(qw.d.data, 1, nn, kk >> 5);
        expect(Math.abs(back.data[kk * n + nn] - w.data[kk * n + nn])).toBeLessThanOrEqual(dd / 2 + 127 * dd * 2 ** -11); // half a step, plus d's f16 rounding
      }
    // PyTorch's layout ([N, K]) quantizes to the same blocks
    const t = tensor([n, k], Array.from({ length: n * k }, (_, i) => w.data[(i % k) * n + Math.floor(i / k)]));
    expect(Array.from(quantizeQ8_0(t, { transposed: true }).q.data)).toEqual(Array.from(qw.q.data));
  });
});

describe('GGUF Q8_0 bytes', () => {
  it("are ggml's block_q8_0 (f16 d little-endian, then 32 int8) per block, row after row, and read back to the same packing", () => {
    const [n, k] = [3, 64];
    const w = tensor([n, k], randn(n * k, 9)); // GGUF's layout: N rows of K
    const packed = quantizeQ8_0(w, { transposed: true });
    const bytes = q8ToGguf(packed);
    expect(bytes.length).toBe(n * 2 * 34);
    // row 1, block 1: bytes [(1·2 + 1)·34, +34)
    const o = 3 * 34;
    const dv = new DataView(bytes.buffer);
    expect(dv.getUint16(o, true)).toBe(new Uint16Array(packed.d.data.buffer)[1 * 2 + 1]);
    expect(f16round(q8Scale(packed.d.data, 1, 1, 1))).toBe(q8Scale(packed.d.data, 1, 1, 1));
    for (let j = 0; j < 32; j++) expect(dv.getInt8(o + 2 + j)).toBe(q8Value(packed.q.data, 16, 1, 32 + j));
    const back = q8FromGguf(bytes, n, k);
    expect(Array.from(back.q.data)).toEqual(Array.from(packed.q.data));
    expect(Array.from(back.d.data)).toEqual(Array.from(packed.d.data));
    expect(() => q8FromGguf(bytes, n, 40)).toThrow(/whole blocks of 32, got K=40/);
    expect(() => q8FromGguf(bytes.subarray(1), n, k)).toThrow(/203 bytes for 3 rows of 64 \(expected 204/);
  });
});

describe('matmulQ8', () => {
  it('is x times the dequantized weight (batched rows, K not a multiple of 32, odd N)', () => {
    const [b, m, k, n] = [2, 3, 45, 5];
    const w = tensor([k, n], randn(k * n, 3));
    const qw = quantizeQ8_0(w);
    const x = tensor([b, m, k], randn(b * m * k, 4));
    const g = new Graph();
    const y = g.matmulQ8(g.input('x', [b, m, k]), g.input('q', qw.q.shape, 'i32'), g.input('d', qw.d.shape, 'i32'));
    expect(y.shape).toEqual([b, m, n]);
    const ref = new Graph();
    const yr = ref.matmul(ref.input('x', [b, m, k]), ref.input('w', [k, n]));
    g.output('y', y);
    ref.output('y', yr);
    const got = interpret(g, { x, q: qw.q, d: qw.d }).outputs.y;
    const want = interpret(ref, { x, w: dequantizeQ8_0(qw, k) }).outputs.y;
    for (let i = 0; i < got.data.length; i++) expect(got.data[i]).toBeCloseTo(want.data[i], 5);
  });

  it('names the operand whose shape or dtype does not fit K', () => {
    const g = new Graph();
    const x = g.input('x', [2, 40]);
    expect(() => g.matmulQ8(x, g.input('q', [4, 8], 'i32'), g.input('d', [4, 1], 'i32'))).toThrow(/q must be i32 \[N, 16\] \(K=40: 2 blocks/);
    expect(() => g.matmulQ8(x, g.input('q2', [4, 16], 'i32'), g.input('d2', [4, 2], 'i32'))).toThrow(/d must be i32 \[4, 1\] \(an f16 scale per block/);
    expect(() => g.matmulQ8(x, g.input('q3', [4, 16]), g.input('d3', [4, 1], 'i32'))).toThrow(/q must be i32/);
    expect(() => g.matmulQ8(x, g.input('q4', [4, 16], 'i32'), g.input('d4', [4, 1]))).toThrow(/d must be i32/);
  });

  it('with an epilogue is its product through the expression: GELU(x·w + b) + residual, as matmulQ8 then pointwise ops', () => {
    const [m, k, n] = [3, 40, 5];
    const qw = quantizeQ8_0(tensor([k, n], randn(k * n, 5)));
    const feeds = { x: tensor([m, k], randn(m * k, 6)), q: qw.q, d: qw.d, b: tensor([n], randn(n, 7)), res: tensor([m, n], randn(m * n, 8)) };
    const build = (fused: boolean) => {
      const g = new Graph();
      const [x, q, d] = [g.input('x', [m, k]), g.input('q', qw.q.shape, 'i32'), g.input('d', qw.d.shape, 'i32')];
      const [b, res] = [g.input('b', [n]), g.input('res', [m, n])];
      const expr = { op: 'add', a: { op: 'geluTanh', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } }, b: { op: 'in', index: 2 } } as const;
      g.output('y', fused ? g.node('matmulQ8', [x, q, d, b, res], { expr }) : g.add(g.gelu(g.add(g.matmulQ8(x, q, d), b), { approximate: 'tanh' }), res));
      return g;
    };
    expect(interpret(build(true), feeds).outputs.y.data).toEqual(interpret(build(false), feeds).outputs.y.data);
  });

  it('names an epilogue operand that does not broadcast, and a read past the operands', () => {
    const g = new Graph();
    const [x, q, d] = [g.input('x', [2, 40]), g.input('q', [4, 16], 'i32'), g.input('d', [4, 1], 'i32')];
    const $ = (index: number) => ({ op: 'in', index }) as const;
    expect(() => g.node('matmulQ8', [x, q, d, g.input('b', [3])], { expr: { op: 'add', a: $(0), b: $(1) } })).toThrow(/extra operand 0 \[3\] does not broadcast to \[2, 4\]/);
    expect(() => g.node('matmulQ8', [x, q, d, g.input('b2', [4])], { expr: { op: 'add', a: $(0), b: $(2) } })).toThrow(/the epilogue reads \$2, but there are 1 extra operands/);
    expect(() => g.node('matmulQ8', [x, q, d, g.input('b3', [4])], {})).toThrow(/matmulQ8/);
  });
});

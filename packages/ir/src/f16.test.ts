import { describe, expect, it } from 'vitest';
import { f16Bits, f16FromBits, f16round, fromF16Array, toF16Array } from './f16.js';
import { Graph } from './graph.js';
import { interpret } from './interpret.js';
import { tensor } from './tensorValue.js';

// torch 1.13: torch.tensor(xs, dtype=torch.float32).half() (values) and .view(torch.int16) & 0xffff (bits);
// the float64 source gives the same values
const XS = [0.1, -0.1, 1 / 3, 65504, 65519, 65520, -65520, 1e5, 6e-8, 3e-8, 2 ** -25, 2 ** -24 * 1.5, 2 ** -24 * 2.5, 1e-10, -1e-10, 2049, 2051, 1.0009765625 + 2 ** -11, 1 + 3 * 2 ** -11, 6.1035e-5, 3.1406];
const HALF = [0.0999755859375, -0.0999755859375, 0.333251953125, 65504, 65504, Infinity, -Infinity, Infinity, 2 ** -24, 2 ** -24, 0, 2 ** -23, 2 ** -23, 0, -0, 2048, 2052, 1.001953125, 1.001953125, 6.103515625e-5, 3.140625];
const BITS = [11878, 44646, 13653, 31743, 31743, 31744, 64512, 31744, 1, 1, 0, 2, 2, 0, 32768, 26624, 26626, 15362, 15362, 1024, 16968];

describe('f16round', () => {
  it("rounds as torch's .half(): ties to even, overflow to ±Inf, subnormals kept, the sign of zero kept", () => {
    expect(XS.map(f16round)).toEqual(HALF);
    expect(XS.map((x) => f16round(Math.fround(x)))).toEqual(HALF);
    expect(Object.is(f16round(-1e-10), -0)).toBe(true);
  });

  it('keeps NaN and ±Infinity', () => {
    expect(f16round(Number.NaN)).toBeNaN();
    expect(f16round(-Infinity)).toBe(-Infinity);
  });
});

describe('f16 encoding', () => {
  it("gives torch's bit patterns and decodes them back to the rounded values", () => {
    expect(XS.map(f16Bits)).toEqual(BITS);
    expect(BITS.map(f16FromBits)).toEqual(HALF);
    expect(Array.from(fromF16Array(toF16Array(XS)))).toEqual(HALF);
    expect(f16Bits(Number.NaN)).toBe(0x7e00);
    expect(f16FromBits(0x7e00)).toBeNaN();
  });
});

describe('f16 tensors in the interpreter', () => {
  it('holds f16-rounded values for a fed f16 input and for the result of a cast', () => {
    const g = new Graph();
    const x = g.input('x', [3]);
    g.output('h', g.cast(x, 'f16'));
    const r = interpret(g, { x: tensor([3], [0.1, 65520, 2 ** -25]) });
    expect(r.outputs.h.dtype).toBe('f16');
    expect(Array.from(r.outputs.h.data)).toEqual([0.0999755859375, Infinity, 0]);
    expect(Array.from(tensor([2], [0.1, 1 / 3], 'f16').data)).toEqual([0.0999755859375, 0.333251953125]);
  });

  it('computes an f16 matmul in f32 and rounds its result to f16 once (torch: (x.half().float() @ w.half().float()).half())', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    const w = g.input('w', [3, 2]);
    const y = g.matmul(g.cast(x, 'f16'), g.cast(w, 'f16'));
    expect(y.dtype).toBe('f16');
    g.output('y', y);
    const feeds = { x: tensor([2, 3], [0.1, -0.7, 1.3, 2.5, 0.33, -1.1]), w: tensor([3, 2], [0.2, -0.4, 0.9, 0.123, -1.7, 0.05]) };
    for (const precision of ['f32', 'f64'] as const)
      expect(Array.from(interpret(g, feeds, {}, precision).outputs.y.data)).toEqual([-2.8203125, -0.061126708984375, 2.666015625, -1.013671875]);
  });

  it('gives a number next to an f16 tensor the dtype f16, and rounds f16 pointwise results', () => {
    const g = new Graph();
    const x = g.input('x', [1], 'f16');
    const y = g.mul(x, 0.1);
    expect(y.dtype).toBe('f16');
    g.output('y', y);
    // 1 · f16(0.1) computed in f32, stored as f16
    expect(Array.from(interpret(g, { x: tensor([1], [1], 'f16') }).outputs.y.data)).toEqual([0.0999755859375]);
  });
});

describe('f16 type inference', () => {
  it('keeps f16 through pointwise ops, reductions and matmul', () => {
    const g = new Graph();
    const x = g.input('x', [2, 4], 'f16');
    expect(g.exp(x).dtype).toBe('f16');
    expect(g.sum(x, [1]).dtype).toBe('f16');
    expect(g.matmul(x, g.input('w', [4, 3], 'f16')).dtype).toBe('f16');
  });

  it('rejects f16 next to f32 without a cast, naming the op and both dtypes', () => {
    const g = new Graph();
    const h = g.input('h', [2, 4], 'f16');
    const f = g.input('f', [2, 4]);
    expect(() => g.add(h, f)).toThrow(/add: mixes f16 and f32 operands \(f16, f32\): insert an explicit cast/);
    expect(() => g.matmul(h, g.input('w', [4, 3]))).toThrow(/matmul: mixes f16 and f32 operands/);
  });

  it('rejects f16 where an op takes f32 only, saying to cast', () => {
    const g = new Graph();
    const h = g.input('h', [2, 4], 'f16');
    expect(() => g.logSoftmax(h)).toThrow(/logSoftmax: operand 0 is f16, but logSoftmax takes f32 only: cast it to f32 first/);
  });
});

describe('matmulEpilogue with operands read rounded to f16', () => {
  it('computes what the matmul of the casts computes, and takes only f32 operands to round', () => {
    const g = new Graph();
    const a = g.input('a', [2, 3]);
    const b = g.input('b', [3, 2]);
    g.output('cast', g.matmul(g.cast(a, 'f16'), g.cast(b, 'f16')));
    const fused = g.node('matmulEpilogue', [a, b], { transA: false, transB: false, expr: { op: 'in', index: 0 }, round: [true, true] });
    expect(fused.dtype).toBe('f16');
    g.output('fused', fused);
    const r = interpret(g, { a: tensor([2, 3], [0.1, -0.7, 1.3, 2.5, 0.33, -1.1]), b: tensor([3, 2], [0.2, -0.4, 0.9, 0.123, -1.7, 0.05]) }).outputs;
    expect(Array.from(r.fused.data)).toEqual(Array.from(r.cast.data));
    const h = g.input('h', [2, 3], 'f16');
    expect(() => g.node('matmulEpilogue', [h, b], { transA: false, transB: false, expr: { op: 'in', index: 0 }, round: [true, false] })).toThrow(/operand 0 is read rounded to f16, so it must be f32, got f16/);
  });
});

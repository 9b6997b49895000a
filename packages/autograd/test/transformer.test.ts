import { describe, expect, it } from 'vitest';
import { dropoutKeeps, Graph, interpret, lowbias32, mulberry32, tensor } from '@neura/ir';
import { checkGradients } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const rand = (n: number, seed: number) => {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => r() * 2 - 1);
};

describe('attention', () => {
  for (const causal of [false, true])
    it(`differentiates ${causal ? 'causal ' : ''}attention in q, k and v mid-graph (attentionGrad per operand)`, () => {
      const report = checkGradients((g) => {
        const q = g.param('q', [2, 2, 3, 4]);
        const k = g.param('k', [2, 2, 3, 4]);
        const v = g.param('v', [2, 2, 3, 5]);
        const o = g.attention(g.mul(q, 1.3), g.tanh(k), g.add(v, 0.1), { causal });
        return g.sum(g.mul(g.input('w', o.shape), g.sin(o)));
      });
      expectGradientsMatch(report);
    });

  it('differentiates cross-attention with Tq ≠ Tk and a custom scale', () => {
    const report = checkGradients((g) => {
      const q = g.param('q', [2, 2, 3]);
      const k = g.param('k', [2, 4, 3]);
      const v = g.param('v', [2, 4, 2]);
      const o = g.attention(q, k, v, { scale: 0.7 });
      return g.sum(g.mul(g.input('w', o.shape), o));
    });
    expectGradientsMatch(report);
  });

  it('equals softmax(q·kᵀ·scale + mask)·v built from batched matmuls', () => {
    const g = new Graph();
    const [b, h, t, d] = [1, 2, 3, 4];
    const q = g.input('q', [b, h, t, d]);
    const k = g.input('k', [b, h, t, d]);
    const v = g.input('v', [b, h, t, d]);
    const mask = g.input('mask', [t, t]);
    g.output('fused', g.attention(q, k, v, { causal: true }));
    const scores = g.add(g.mul(g.matmul(q, k, { transB: true }), 1 / Math.sqrt(d)), mask);
    g.output('ref', g.matmul(g.softmax(scores), v));
    const m = [0, -1e9, -1e9, 0, 0, -1e9, 0, 0, 0];
    const feeds = { q: tensor(q.shape, rand(24, 1)), k: tensor(k.shape, rand(24, 2)), v: tensor(v.shape, rand(24, 3)), mask: tensor([t, t], m) };
    const r = interpret(g, feeds);
    expect(r.outputs.fused.data).toBeAllclose(r.outputs.ref.data, { rtol: 1e-12, atol: 1e-14 });
  });

  it('names the op and the shapes when head sizes differ', () => {
    const g = new Graph();
    expect(() => g.attention(g.input('q', [2, 3, 4]), g.input('k', [2, 3, 5]), g.input('v', [2, 3, 5]))).toThrow(/attention: q and k head sizes differ: 4 vs 5 \(operands \[2, 3, 4\]:f32/);
  });
});

describe('rope', () => {
  it('differentiates rope mid-graph (VJP: the inverse rotation)', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 3, 4]);
      const y = g.rope(g.mul(x, 1.3), { base: 100 });
      return g.sum(g.mul(g.input('w', y.shape), g.sin(y)));
    });
    expectGradientsMatch(report);
  });

  it('rotates pairs (x[i], x[i + D/2]) by position·base^(−2i/D), leaving position 0 unchanged', () => {
    const g = new Graph();
    const y = g.output('y', g.rope(g.input('x', [2, 4]), { base: 10000 }));
    const r = interpret(g, { x: tensor([2, 4], [1, 2, 3, 4, 1, 2, 3, 4]) }).outputs.y.data;
    expect(Array.from(r.slice(0, 4))).toEqual([1, 2, 3, 4]);
    const [t0, t1] = [1, 10000 ** -0.5];
    expect(r[4]).toBeCloseTo(1 * Math.cos(t0) - 3 * Math.sin(t0), 6);
    expect(r[5]).toBeCloseTo(2 * Math.cos(t1) - 4 * Math.sin(t1), 6);
    expect(r[6]).toBeCloseTo(3 * Math.cos(t0) + 1 * Math.sin(t0), 6);
    expect(y.shape).toEqual([2, 4]);
  });
});

describe('dropout', () => {
  it('keeps each element by the documented hash of (seed + offset, index)', () => {
    const g = new Graph();
    g.output('y', g.dropout(g.input('x', [1000]), 0.3, 42));
    const y = interpret(g, { x: tensor([1000], new Array(1000).fill(1)) }).outputs.y.data;
    const kept = Array.from(y).filter((v) => v !== 0);
    expect(kept.length).toBeGreaterThan(640);
    expect(kept.length).toBeLessThan(760);
    for (const v of kept) expect(v).toBeCloseTo(1 / 0.7, 12);
    for (let i = 0; i < 1000; i++) expect(y[i] !== 0).toBe(dropoutKeeps(i, 0.3, 42));
  });

  it('hashes with lowbias32 in exact u32 arithmetic (golden values for GPU kernels)', () => {
    const M = (1n << 32n) - 1n;
    const ref = (x: bigint) => {
      let h = x & M;
      h ^= h >> 16n;
      h = (h * 0x7feb352dn) & M;
      h ^= h >> 15n;
      h = (h * 0x846ca68bn) & M;
      h ^= h >> 16n;
      return Number(h);
    };
    for (const x of [0, 1, 42, 0xdeadbeef, 0xffffffff]) expect(lowbias32(x)).toBe(ref(BigInt(x)));
    expect(lowbias32(1)).toBe(1753845952);
  });

  it('changes the mask with the offset input and differentiates through the same mask', () => {
    const g = new Graph();
    const x = g.input('x', [64]);
    g.output('a', g.dropout(x, 0.5, 7, g.input('step', [], 'i32')));
    const ones = tensor([64], new Array(64).fill(1));
    const a0 = interpret(g, { x: ones, step: tensor([], [0], 'i32') }).outputs.a.data;
    const a1 = interpret(g, { x: ones, step: tensor([], [1], 'i32') }).outputs.a.data;
    expect(Array.from(a0)).not.toEqual(Array.from(a1));
    const report = checkGradients(
      (h) => {
        const p = h.param('p', [4, 5]);
        const y = h.dropout(h.mul(p, 1.3), 0.4, 3, h.input('step', [], 'i32'));
        return h.sum(h.mul(h.input('w', y.shape), h.sin(y)));
      },
      { feeds: { step: tensor([], [5], 'i32') } },
    );
    expectGradientsMatch(report);
  });
});

// Graph's in-graph causal masks: `futureMask(T)` (bool, key j > query i) and `causalMask(T)` (additive, 0 / −∞)
// read what their definitions say under the interpreter, and softmax(scores + causalMask)·v is the causal
// attention op (PyTorch's masked_fill(-inf) semantics); a size that is not a positive integer is a GraphError.
import { Graph, GraphError, interpret, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

describe('Graph causal masks', () => {
  it('builds futureMask true exactly above the diagonal and causalMask 0 on/below it and −∞ above', () => {
    const t = 5;
    const g = new Graph();
    g.output('future', g.futureMask(t));
    g.output('mask', g.causalMask(t));
    const { outputs } = interpret(g, {});
    expect(outputs.future.dtype).toBe('bool');
    expect(outputs.mask.shape).toEqual([t, t]);
    const at = (i: number, j: number) => i * t + j;
    for (let i = 0; i < t; i++)
      for (let j = 0; j < t; j++) {
        expect(outputs.future.data[at(i, j)], `future[${i}, ${j}]`).toBe(j > i ? 1 : 0);
        expect(outputs.mask.data[at(i, j)], `mask[${i}, ${j}]`).toBe(j > i ? Number.NEGATIVE_INFINITY : 0);
      }
  });

  it('gives softmax(scale·q·kᵀ + causalMask)·v equal to the causal attention op, added or filled', () => {
    const [h, t, d] = [2, 6, 4];
    const g = new Graph();
    const [q, k, v] = ['q', 'k', 'v'].map((n) => g.input(n, [h, t, d]));
    const s = g.mul(g.matmul(q, k, { transB: true }), 0.5);
    g.output('added', g.matmul(g.softmax(g.add(s, g.causalMask(t))), v));
    g.output('filled', g.matmul(g.softmax(g.where(g.futureMask(t), Number.NEGATIVE_INFINITY, s)), v));
    g.output('op', g.attention(q, k, v, { causal: true, scale: 0.5 }));
    const r = mulberry32(1);
    const feeds = Object.fromEntries(['q', 'k', 'v'].map((n) => [n, tensor([h, t, d], Array.from({ length: h * t * d }, () => 2 * r() - 1))]));
    const { outputs } = interpret(g, feeds, {}, 'f64');
    expect(outputs.added.data).toBeAllclose(outputs.op.data, { rtol: 1e-12, atol: 1e-14 });
    expect(outputs.filled.data).toBeAllclose(outputs.op.data, { rtol: 1e-12, atol: 1e-14 });
  });

  it('rejects a size that is not a positive integer, naming the builder', () => {
    const g = new Graph();
    expect(() => g.causalMask(0)).toThrow(GraphError);
    expect(() => g.causalMask(2.5)).toThrow(/causalMask: size must be a positive integer, got 2.5/);
    expect(() => g.futureMask(-1)).toThrow(/futureMask: size must be a positive integer, got -1/);
  });
});

// recognizeForward turns hand-written attention into ir's attention op only where the e-graph can prove what the
// mask is: causal masks built in-graph from index ramps, in the masked_fill and the additive spelling; an input
// mask, a mask above the other diagonal or a ramp broadcast from one entry stay decomposed.
import { recognizeForward } from '@neura/egraph';
import type { Graph as GraphT, Tensor } from '@neura/ir';
import { Graph, interpret, mulberry32, numel, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

const [H, T, D] = [2, 5, 3];

/** A graph of one hand-written attention over q, k, v [H, T, D] whose scores go through `mask`. */
function attentionGraph(mask: (g: GraphT, scores: Tensor) => Tensor): GraphT {
  const g = new Graph();
  const [q, k, v] = ['q', 'k', 'v'].map((n) => g.input(n, [H, T, D]));
  g.output('out', g.matmul(g.softmax(mask(g, g.mul(g.matmul(q, k, { transB: true }), 1 / Math.sqrt(D)))), v));
  return g;
}

const ramp = (g: GraphT, axis: 0 | 1, len = T) => g.cumsum(g.constant(1, axis === 1 ? [1, len] : [len, 1]), axis);
const attentionOps = (g: GraphT) => g.live().map((i) => g.nodes[i]).filter((n) => n.op === 'attention');

function expectSameValues(before: GraphT, after: GraphT): void {
  const r = mulberry32(3);
  const feeds = Object.fromEntries(['q', 'k', 'v'].map((n) => [n, tensor([H, T, D], Array.from({ length: H * T * D }, () => 2 * r() - 1))]));
  for (const n of before.leaves('input')) if (!(n.attrs.name in feeds)) feeds[n.attrs.name] = tensor(n.shape, Array.from({ length: numel(n.shape) }, () => r()));
  expect(interpret(after, feeds, {}, 'f64').outputs.out.data).toBeAllclose(interpret(before, feeds, {}, 'f64').outputs.out.data, { rtol: 1e-12, atol: 1e-14 });
}

describe('recognizeForward', () => {
  it('makes a causal attention op of an in-graph causal mask, filled or added', () => {
    const filled = attentionGraph((g, s) => g.where(g.gt(ramp(g, 1), ramp(g, 0)), Number.NEGATIVE_INFINITY, s));
    const added = attentionGraph((g, s) => g.add(s, g.where(g.lt(ramp(g, 0), ramp(g, 1)), Number.NEGATIVE_INFINITY, 0)));
    for (const g of [filled, added]) {
      const { graph, applied } = recognizeForward(g);
      expect(applied['attention-recognize']).toBeGreaterThan(0);
      expect(attentionOps(graph).map((n) => n.attrs)).toEqual([{ causal: true, scale: 1 / Math.sqrt(D) }]);
      expect(graph.live().some((i) => graph.nodes[i].op === 'logSoftmax')).toBe(false);
      expectSameValues(g, graph);
    }
  });

  it("recognizes Graph's own causal masks: scores + causalMask(T) and where(futureMask(T), −∞, scores)", () => {
    const added = attentionGraph((g, s) => g.add(s, g.causalMask(T)));
    const filled = attentionGraph((g, s) => g.where(g.futureMask(T), Number.NEGATIVE_INFINITY, s));
    for (const g of [added, filled]) {
      const { graph } = recognizeForward(g);
      expect(attentionOps(graph).map((n) => n.attrs)).toEqual([{ causal: true, scale: 1 / Math.sqrt(D) }]);
      expectSameValues(g, graph);
    }
  });

  it('makes a plain attention op of unmasked scores', () => {
    const g = attentionGraph((_, s) => s);
    const { graph } = recognizeForward(g);
    expect(attentionOps(graph).map((n) => n.attrs.causal)).toEqual([false]);
    expectSameValues(g, graph);
  });

  it('leaves a mask it cannot prove causal decomposed, and gives the graph back as is', () => {
    const unprovable = [
      attentionGraph((g, s) => g.add(s, g.input('mask', [T, T]))), // values come with the feeds
      attentionGraph((g, s) => g.where(g.gt(ramp(g, 0), ramp(g, 1)), Number.NEGATIVE_INFINITY, s)), // below the diagonal
      attentionGraph((g, s) => g.where(g.gt(ramp(g, 1), ramp(g, 0, 1)), Number.NEGATIVE_INFINITY, s)), // rows all 1: j > 0
      attentionGraph((g, s) => g.add(s, g.where(g.gt(ramp(g, 1), ramp(g, 0)), -1e9, 0))), // finite: not the op on huge scores
    ];
    for (const g of unprovable) {
      const { graph } = recognizeForward(g);
      expect(graph).toBe(g);
    }
  });
});

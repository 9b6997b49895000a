// The cast-fold move: autocast's f16 copy of a weight read by its forward and its backward product goes, both
// products reading the f32 weight rounded, from a plan that kept it (each reader alone moved would cost more; on
// this small graph the extractor's own search also finds the joint move, on the GPT step it did not). The folded
// plan computes what the graph computes (interpreter, float32).
import { Graph, interpret, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { DagExtractor, dagCost, reachableClasses } from '../../core/index.js';
import { optimize } from '../optimize.js';
import { castFoldPacker } from './castFold.js';
import type { PackState } from './packer.js';
import { saturated } from './packTesting.js';

/** x·W and dy·Wᵀ over one f16 copy of an f32 weight W (f16 activations, as autocast stores them). */
function linearPair(): Graph {
  const g = new Graph();
  const w = g.param('w', [24, 16], { kind: 'uniform', low: -1, high: 1, seed: 5 });
  const w16 = g.cast(w, 'f16');
  g.output('y', g.matmul(g.input('x', [32, 24], 'f16'), w16));
  g.output('dx', g.matmul(g.input('dy', [32, 16], 'f16'), w16, { transB: true }));
  return g;
}

const casts = (g: Graph) => g.live().filter((id) => g.nodes[id].op === 'cast').length;

describe('pack: a cast folded into all its readers at once', () => {
  it('moves both products off the weight cast at once, from a plan reading the copy in both, and the plan gets cheaper', () => {
    const sat = saturated(linearPair());
    const { egraph, roots, cost } = sat;
    const find = (id: number) => egraph.find(id);
    // a plan that reads the f16 copy in both products (the original matmuls): each alone moved would cost more
    const first = new DagExtractor(egraph, cost).extract(roots);
    const choice = new Map(first.choices);
    const castClass = find(egraph.classesWithOp('cast')[0]);
    choice.set(castClass, egraph.eclass(castClass).nodes.find((n) => n.op === 'cast') as never);
    for (const root of roots) {
      const mm = egraph.eclass(root).nodes.find((n) => n.op === 'matmul' && n.children.some((c) => find(c) === castClass));
      if (mm) choice.set(find(root), mm);
    }
    const castsIn = (ch: ReadonlyMap<number, { op: string }>) => (reachableClasses(ch as never, roots, find) ?? []).filter((c) => ch.get(c)?.op === 'cast').length;
    expect(castsIn(choice)).toBe(1);
    const state: PackState = { egraph, cost, roots, first, choice, total: dagCost(choice, roots, cost, find) };
    const before = state.total;
    castFoldPacker.pack?.(state);
    expect(castsIn(state.choice)).toBe(0);
    expect(state.total).toBeLessThan(before);
    expect(state.total).toBeCloseTo(dagCost(state.choice, roots, cost, find), 9);
  });

  it('leaves an optimized plan with no cast kernel, each product reading the weight rounded', () => {
    const { graph } = optimize(linearPair());
    expect(casts(graph)).toBe(0);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'matmulEpilogue').map((id) => graph.nodes[id].attrs)).toEqual([
      expect.objectContaining({ round: [false, true] }),
      expect.objectContaining({ round: [false, true] }),
    ]);
  });

  it('computes what the unoptimized graph computes', () => {
    const r = mulberry32(3);
    const feeds = { x: tensor([32, 24], Array.from({ length: 32 * 24 }, () => r() * 2 - 1), 'f16'), dy: tensor([32, 16], Array.from({ length: 32 * 16 }, () => r() * 2 - 1), 'f16') };
    const g = linearPair();
    const a = interpret(g, feeds, {}, 'f32').outputs;
    const b = interpret(optimize(g).graph, feeds, {}, 'f32').outputs;
    for (const k of ['y', 'dx']) expect([...b[k].data]).toEqual([...a[k].data]);
  });

  it("folds a bias cast into the GELU that reads it, however big the GELU (ir's cost counts no work for a rounding to f16)", () => {
    const g = new Graph();
    const h = g.input('h', [16384, 1536], 'f16');
    const b = g.param('b', [1536]);
    g.output('y', g.gelu(g.add(h, g.cast(b, 'f16')), { approximate: 'tanh' }));
    const { graph } = optimize(g);
    expect(casts(graph)).toBe(0);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'pointwise')).toHaveLength(1);
  });
});

// Differential tests: random DAGs of elementwise, reduction, layout and matmul ops, optimized with every rule
// set, must compute what the unoptimized graph computes (float64 interpreter); and every run stays bounded.
import { optimize } from '@neura/egraph';
import type { Graph as GraphT, Tensor, TensorValue } from '@neura/ir';
import { Graph, GraphError, interpret, mulberry32, numel, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

type Rnd = () => number;
const pick = <T>(r: Rnd, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const UNARY = ['neg', 'abs', 'tanh', 'sigmoid', 'relu', 'square', 'sin'] as const;
const BINARY = ['add', 'sub', 'mul', 'max', 'min'] as const;

/** A random graph: a few inputs, then `steps` ops on random earlier nodes (ill-typed picks are skipped). */
function randomGraph(seed: number, steps: number): GraphT {
  const r = mulberry32(seed);
  const g = new Graph();
  const pool: Tensor[] = [g.input('a', [4, 3]), g.input('b', [3]), g.input('c', [4, 1]), g.input('d', [3, 4])];
  for (let i = 0; i < steps; i++) {
    const x = pick(r, pool);
    const y = pick(r, pool);
    const kind = r();
    try {
      let t: Tensor;
      if (kind < 0.3) t = g[pick(r, UNARY)](x);
      else if (kind < 0.6) t = g[pick(r, BINARY)](x, r() < 0.3 ? Math.round(r() * 8) / 4 : y);
      else if (kind < 0.68) t = g.where(g.gt(x, y), x, y);
      else if (kind < 0.76) t = r() < 0.5 ? g.sum(x, x.shape.length - 1, r() < 0.5) : g.mean(x, 0, true);
      else if (kind < 0.84) t = g.matmul(x, y, { transA: r() < 0.3, transB: r() < 0.3 });
      else if (kind < 0.9) t = x.shape.length === 2 ? g.transpose(x) : g.reshape(x, [1, ...x.shape]);
      else t = g.add(g.mul(x, 0.5), g.mul(y, 2));
      if (numel(t.shape) > 0 && t.shape.length <= 2) pool.push(t);
    } catch (e) {
      if (!(e instanceof GraphError)) throw e;
    }
  }
  const outs = pool.slice(4);
  for (const [i, t] of (outs.length ? outs.slice(-3) : pool.slice(0, 1)).entries()) g.output(`y${i}`, t);
  return g;
}

function feedsFor(g: GraphT, seed: number): Record<string, TensorValue> {
  const r = mulberry32(seed);
  const feeds: Record<string, TensorValue> = {};
  for (const n of g.leaves('input')) feeds[n.attrs.name] = tensor(n.shape, Array.from({ length: numel(n.shape) }, () => 2 * r() - 1));
  return feeds;
}

function expectAgree(before: GraphT, after: GraphT, seed: number) {
  const f = feedsFor(before, seed);
  const a = interpret(before, f);
  const b = interpret(after, f);
  for (const k of Object.keys(a.outputs)) {
    expect(b.outputs[k].shape).toEqual(a.outputs[k].shape);
    expect(b.outputs[k].data, `output ${k}`).toBeAllclose(a.outputs[k].data, { rtol: 1e-9, atol: 1e-12 });
  }
}

describe('random graphs', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`seed ${seed}: the optimized graph computes the same outputs, with no more dispatches`, () => {
      const g = randomGraph(seed, 14);
      const { graph, report } = optimize(g, { timeLimitMs: 2000 });
      expectAgree(g, graph, seed);
      expect(report.dispatchesAfter).toBeLessThanOrEqual(report.dispatchesBefore);
    });
  }
});

describe('limits', () => {
  const g = new Graph();
  const xs = Array.from({ length: 5 }, (_, i) => g.input(`x${i}`, [4, 3]));
  g.output('y', xs.reduce((acc, x) => g.sigmoid(g.add(g.mul(acc, 0.5), g.relu(x)))));
  it('a node limit stops the run with reason nodeLimit and still returns a valid, equivalent graph', () => {
    const { graph, report } = optimize(g, { nodeLimit: 40 });
    expect(report.egraph.stopReason).toBe('nodeLimit');
    expect(report.summary()).toContain('(nodeLimit)');
    expectAgree(g, graph, 5);
  });
  it('a time limit stops the run with reason timeLimit', () => {
    const { graph, report } = optimize(g, { timeLimitMs: 0 });
    expect(report.egraph.stopReason).toBe('timeLimit');
    expectAgree(g, graph, 6);
  });
  it('an iteration limit stops the run with reason iterationLimit', () => {
    const { graph, report } = optimize(g, { iterLimit: 1 });
    expect(report.egraph.stopReason).toBe('iterationLimit');
    expect(report.egraph.iterations).toBe(1);
    expectAgree(g, graph, 7);
  });
  it('maxPointwiseInputs bounds the inputs of every fused pointwise kernel', () => {
    const h = new Graph();
    const xs = Array.from({ length: 6 }, (_, i) => h.input(`x${i}`, [5]));
    h.output('s', xs.reduce((acc, x) => h.add(h.mul(acc, 2), h.tanh(x))));
    for (const limit of [2, 3, 7]) {
      const { graph } = optimize(h, { maxPointwiseInputs: limit });
      for (const id of graph.live()) if (graph.nodes[id].op === 'pointwise') expect(graph.nodes[id].inputs.length).toBeLessThanOrEqual(limit);
      expectAgree(h, graph, limit);
      if (limit === 7) expect(graph.live().filter((id) => graph.nodes[id].op === 'pointwise')).toHaveLength(1);
    }
  });
});

// Layer norm and RMS norm written from primitives become one `rowwise` kernel each (forward, and a backward dx
// with its row sums), and the fused graph computes what the primitives do.
import { optimize } from '@neura/egraph';
import type { Tensor } from '@neura/ir';
import { Graph, interpret, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

function norms(n: number, c: number) {
  const g = new Graph();
  const x = g.input('x', [n, c]);
  const w = g.input('w', [c]);
  const dy = g.input('dy', [n, c]);
  // a layer norm's dx written out by hand: r·(g·w − mean(g·w) − x̂·mean(g·w·x̂)), the means as reshaped row sums
  const centred = g.sub(x, g.mean(x, [1], true));
  const rstd = g.rsqrt(g.add(g.mean(g.square(centred), [1], true), 1e-5));
  const xhat = g.mul(centred, rstd);
  const gw = g.mul(dy, w);
  const rowMean = (t: Tensor) => g.div(g.reshape(g.sum(t, [1]), [n, 1]), c);
  g.output('layerNorm', g.layerNorm(x, w, g.input('b', [c])));
  g.output('dx', g.mul(rstd, g.sub(g.sub(gw, rowMean(gw)), g.mul(xhat, rowMean(g.mul(gw, xhat))))));
  g.output('rmsNorm', g.rmsNorm(x, w));
  return g;
}

describe('norm fusion', () => {
  it('a layer norm, its dx and an RMS norm are one rowwise kernel each, equal to the primitives', () => {
    const g = norms(5, 12);
    const r = mulberry32(7);
    const feed = (shape: number[]) => tensor(shape, Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => 2 * r() - 1));
    const feeds = { x: feed([5, 12]), w: feed([12]), b: feed([12]), dy: feed([5, 12]) };
    const before = interpret(g, feeds, {}, 'f64').outputs;
    const { graph, report } = optimize(g);
    const kernels = graph.live().map((id) => graph.nodes[id]).filter((n) => !['input', 'param', 'state', 'const', 'reshape'].includes(n.op));
    expect(kernels.map((n) => n.op)).toEqual(['rowwise', 'rowwise', 'rowwise']);
    expect(report.dispatchesAfter).toBe(3);
    const after = interpret(graph, feeds, {}, 'f64').outputs;
    for (const name of ['layerNorm', 'dx', 'rmsNorm']) expect(after[name].data).toBeAllclose(before[name].data, { rtol: 1e-9, atol: 1e-12 });
  });
});

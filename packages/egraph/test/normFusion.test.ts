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

/**
 * Three stacked layer norms' dx as autograd builds them (row sums reshaped to [N, 1], broadcasts as expand), each
 * adding the one above as the residual stream's gradient, in both association orders autograd produces.
 */
function stackedNormGrads(n: number, c: number) {
  const g = new Graph();
  const rowSum = (t: Tensor) => g.reshape(g.sum(t, [1]), [n, 1]);
  const wide = (t: Tensor) => g.expand(t, [n, c]);
  const dxOf = (k: number, up: Tensor | undefined, upFirst: boolean): Tensor => {
    const x = g.input(`x${k}`, [n, c]);
    const centred = g.sub(x, g.mean(x, [1], true));
    const rstd = g.rsqrt(g.add(g.mean(g.square(centred), [1], true), 1e-5));
    const dxhat = g.mul(g.input(`dy${k}`, [n, c]), g.input(`w${k}`, [c]));
    const dvar = g.mul(rowSum(g.mul(dxhat, centred)), g.mul(g.mul(rstd, g.square(rstd)), -0.5));
    const dc = g.add(g.mul(dxhat, rstd), g.mul(g.mul(wide(dvar), 1 / c), g.mul(centred, 2)));
    const dmean = g.mul(wide(rowSum(g.neg(dc))), 1 / c);
    if (!up) return g.add(dc, dmean);
    return upFirst ? g.add(g.add(up, dc), dmean) : g.add(up, g.add(dc, dmean));
  };
  const top = dxOf(0, undefined, false);
  const mid = dxOf(1, top, false);
  g.output('top', top);
  g.output('mid', mid);
  g.output('bottom', dxOf(2, mid, true));
  return g;
}

describe('norm fusion', () => {
  it("stacked layer norms' dx with the residual stream's gradient are one rowwise kernel each, at GPT 6x384's rows", () => {
    // the cost model's choice at the shapes of the GPT step (16384 rows of 384); optimize only, nothing runs
    const { graph, report } = optimize(stackedNormGrads(16384, 384));
    const kernels = graph.live().map((id) => graph.nodes[id]).filter((n) => !['input', 'param', 'state', 'const', 'reshape'].includes(n.op));
    expect(kernels.map((n) => `${n.op}/${n.op === 'rowwise' ? n.attrs.stats.length : 0}`)).toEqual(['rowwise/4', 'rowwise/4', 'rowwise/4']);
    expect(report.dispatchesAfter).toBe(3);
  });

  it('the fused stacked dx equal the primitives', () => {
    const g = stackedNormGrads(4, 10);
    const r = mulberry32(11);
    const feeds = Object.fromEntries(g.leaves('input').map((n) => [n.attrs.name, tensor([...n.shape], Array.from({ length: n.shape.reduce((a, b) => a * b, 1) }, () => 2 * r() - 1))]));
    const before = interpret(g, feeds, {}, 'f64').outputs;
    const after = interpret(optimize(g).graph, feeds, {}, 'f64').outputs;
    for (const name of ['top', 'mid', 'bottom']) expect(after[name].data).toBeAllclose(before[name].data, { rtol: 1e-9, atol: 1e-12 });
  });

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

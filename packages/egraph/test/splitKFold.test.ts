// The split-K fold through the whole pipeline: a momentum-SGD step whose weight gradients are split-K products
// (xᵀ·dy over K = 512) has its multi-tensor update read their partials, one dispatch per fold fewer, and — where
// the partials do not fit one binding — in chunks that each do; where a gradient norm reads the gradients too,
// the update keeps them reduced. Every plan agrees with the unoptimized step in f64.
import { optimize, type OptimizeOptions } from '@neura/egraph';
import { type Graph as GraphT, Graph, interpret, mulberry32, type Node, type TensorValue, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

const N = 128;

/** The step; `clipped`: a global gradient norm (as clipping computes it) is an output too, reading every gradient. */
function step(clipped = false): GraphT {
  const g = new Graph();
  const norms: ReturnType<GraphT['input']>[] = [];
  const lr = g.input('lr', []);
  const x = g.input('x', [512, N]);
  for (const i of [0, 1, 2]) {
    const w = g.param(`w${i}`, [N, N]);
    const buf = g.state(`buf${i}`, [N, N]);
    const grad = g.matmul(x, g.input(`dy${i}`, [512, N]), { transA: true });
    norms.push(g.sum(g.mul(grad, grad)));
    const next = g.add(g.mul(buf, 0.9), grad);
    g.update(buf, next);
    g.update(w, g.sub(w, g.mul(next, lr)));
  }
  g.output('lr', g.sum(lr));
  if (clipped) g.output('norm', g.sqrt(g.add(g.add(norms[0], norms[1]), norms[2])));
  return g;
}

function feeds(): Record<string, TensorValue> {
  const r = mulberry32(5);
  const v = (shape: number[]) => tensor(shape, Array.from({ length: shape[0] * shape[1] }, () => r() - 0.5));
  return { lr: tensor([], [0.1]), x: v([512, N]), dy0: v([512, N]), dy1: v([512, N]), dy2: v([512, N]) };
}

/** The optimized plan's folded update nodes, after checking it computes the unoptimized step's updates. */
function foldedPlan(options: OptimizeOptions = {}, clipped = false) {
  const { graph, report } = optimize(step(clipped), options);
  const a = interpret(step(clipped), feeds(), {}, 'f64');
  const b = interpret(graph, feeds(), {}, 'f64');
  for (const k of Object.keys(a.updates)) expect(b.updates[k].data, k).toBeAllclose(a.updates[k].data, { rtol: 1e-10, atol: 1e-12 });
  for (const k of Object.keys(a.outputs)) expect(b.outputs[k].data, k).toBeAllclose(a.outputs[k].data, { rtol: 1e-10, atol: 1e-12 });
  const nodes = graph.live().map((id) => graph.nodes[id]);
  const folded = nodes.filter((n): n is Node<'pointwiseMultiTensor'> => n.op === 'pointwiseMultiTensor' && n.attrs.partials !== undefined);
  return { report, folded, partials: nodes.filter((n) => n.op === 'matmulPartials').length };
}

describe('split-K weight gradients folded into the multi-tensor update', () => {
  it('reads every weight gradient as its partials in one update, one dispatch fewer per weight', () => {
    const { report, folded, partials } = foldedPlan();
    expect(partials).toBe(3);
    expect(folded.map((n) => n.attrs.partials?.splits)).toEqual([[4, 4, 4]]);
    const plain = optimize(step(), { withoutRules: ['update-fold-partials'] }).report;
    expect(report.dispatchesAfter).toBe(plain.dispatchesAfter - 3);
    expect(report.egraph.ruleHits['matmul-split-k']).toBe(3);
  });

  it('splits the update in chunks whose partials fit a binding (300 KiB: one 256 KiB gradient of partials each)', () => {
    const { folded, partials } = foldedPlan({ limits: { maxStorageBuffersPerShaderStage: 8, maxStorageBufferBindingSize: 300 * 1024 } });
    expect(partials).toBe(3);
    expect(folded.map((n) => n.attrs.partials?.splits)).toEqual([[4], [4], [4]]);
  });

  it('keeps the reduced gradients where a gradient norm reads them too (the norm needs them reduced: folding saves nothing)', () => {
    const { folded, partials } = foldedPlan({}, true);
    expect(folded).toEqual([]);
    expect(partials).toBe(0);
  });
});

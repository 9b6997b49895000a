// compileInference's graph recognizes hand-written layers as compileTraining does: an inference model with a layer
// norm written from means and a GELU written with erf gets the built-in layers' plan (dispatches, bytes, kernels),
// computes what the hand-written model computes (f64 interpreter), and is left as written with `optimize: false`.
import { optimize } from '@neura/egraph';
import { Graph, interpret, mulberry32, numel, type Tensor, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { inferenceGraph } from './compileInference.js';

const [N, C] = [16, 24];

/** x → linear → layer norm → GELU → linear, the two layers built in or written by hand. */
function model(byHand: boolean): { g: Graph; outputs: Record<string, Tensor> } {
  const g = new Graph();
  const x = g.input('x', [N, C]);
  const lin = (name: string, h: Tensor) => g.matmul(h, g.param(name, [C, C], { kind: 'normal', mean: 0, std: 0.3, seed: name.length }));
  const w = g.param('ln.w', [C], { kind: 'normal', mean: 1, std: 0.2, seed: 3 });
  const b = g.param('ln.b', [C], { kind: 'normal', mean: 0, std: 0.2, seed: 4 });
  const h = lin('w1', x);
  let y: Tensor;
  if (byHand) {
    const c = g.sub(h, g.mean(h, -1, true));
    const n = g.add(g.mul(g.div(c, g.sqrt(g.add(g.mean(g.pow(c, 2), -1, true), 1e-5))), w), b);
    y = g.mul(g.mul(0.5, n), g.add(1, g.erf(g.div(n, Math.SQRT2))));
  } else y = g.gelu(g.layerNorm(h, w, b, { eps: 1e-5 }));
  return { g, outputs: { y: lin('w2x', y) } };
}

const plan = (graph: Graph) => {
  const { graph: out, report } = optimize(graph);
  const ops = out.live().map((i) => out.nodes[i].op).sort();
  return { dispatches: report.dispatchesAfter, bytes: report.bytesAfter, ops, kernels: report.kernels.map((k) => `${k.op} ${k.expr ?? k.epilogue ?? ''}`).sort() };
};

describe('compileInference recognizes hand-written layers', () => {
  it("a hand-written layer norm and GELU get the built-in layers' plan", async () => {
    const byHand = model(true);
    const builtin = model(false);
    const recognized = plan(await inferenceGraph(byHand.g, byHand.outputs));
    expect(recognized).toEqual(plan(await inferenceGraph(builtin.g, builtin.outputs)));
    // without recognition (what compileInference planned before) the row kernel computes the hand-written spelling:
    // erf and a division by √ where the built-in's kernel has gelu and rsqrt
    const plain = plan(await inferenceGraph(byHand.g, byHand.outputs, false));
    expect(plain.kernels).not.toEqual(recognized.kernels);
    expect(plain.kernels.join()).toMatch(/erf/);
    expect(recognized.kernels.join()).toMatch(/gelu/);
  });

  it('computes what the hand-written model computes, and leaves the model graph unchanged', async () => {
    const { g, outputs } = model(true);
    const nodes = g.nodes.length;
    const r = mulberry32(5);
    const feeds = { x: tensor([N, C], Array.from({ length: N * C }, () => 2 * r() - 1)) };
    const state = Object.fromEntries(g.leaves('param').map((p) => [p.attrs.name, tensor(p.shape, Array.from({ length: numel(p.shape) }, () => r() - 0.5))]));
    const plain = await inferenceGraph(g, outputs, false);
    const a = interpret(plain, feeds, state, 'f64').outputs.y;
    const b = interpret(await inferenceGraph(g, outputs), feeds, state, 'f64').outputs.y;
    expect(b.data).toBeAllclose(a.data, { rtol: 1e-9, atol: 1e-12 });
    expect(g.nodes.length).toBe(nodes);
    expect(g.outputs.size).toBe(0);
  });

  it('leaves the layers as written with optimize: false', async () => {
    const { g, outputs } = model(true);
    const ops = new Set((await inferenceGraph(g, outputs, false)).nodes.map((n) => n.op));
    expect(ops.has('erf')).toBe(true);
    expect(ops.has('gelu')).toBe(false);
  });
});

// Hand-written attention in a GPT training step is recognized before differentiation: with a causal mask built
// in-graph (provable), the step's forward and backward become the fused attention kernels and the optimized step
// computes what the unoptimized decomposed step computes (f64 interpreter: loss and every update). A mask fed as an
// input is opaque and stays decomposed.
import { optimize } from '@neura/egraph';
import { Graph, interpret, mulberry32, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { adamW } from '@neura/optim';
import { ATTENTION_MASK, buildTrainingStep, GPT, type GptConfig, recognizedForward } from '@neura/nn';
import { describe, expect, it } from 'vitest';

/** A copy of `forward` whose `mask` input is the causal mask built in-graph: where(j > i, −∞, 0) of index ramps. */
function withInGraphMask(forward: Graph, loss: Tensor): { graph: Graph; loss: Tensor } {
  const g = new Graph();
  const map = new Map<number, Tensor>();
  for (const n of forward.nodes) {
    if (n.op === 'input' && n.attrs.name === ATTENTION_MASK) {
      const t = n.shape[0];
      const above = g.gt(g.cumsum(g.constant(1, [1, t]), 1), g.cumsum(g.constant(1, [t, 1]), 0));
      map.set(n.id, g.where(above, Number.NEGATIVE_INFINITY, 0));
      continue;
    }
    const leaf = n.inputs.length === 0 ? { shape: n.shape, dtype: n.dtype } : undefined;
    map.set(n.id, g.node(n.op, n.inputs.map((i) => map.get(i) as Tensor), n.attrs as never, leaf));
  }
  for (const [name, id] of forward.outputs) g.output(name, map.get(id) as Tensor);
  for (const u of forward.updates) g.update(map.get(u.state) as Tensor, map.get(u.value) as Tensor);
  return { graph: g, loss: map.get(loss.id) as Tensor };
}

const optimizer = () => adamW({ lr: 3e-4, weightDecay: 0.1 });

/** The decomposed GPT step with an in-graph mask: unrecognized, and recognized before grad. */
function steps(c: GptConfig & { batch: number }): { plain: Graph; recognized: Graph } {
  const build = () => {
    const { graph, loss } = new GPT({ ...c, attention: 'decomposed' }).trainingGraph(c.batch);
    return withInGraphMask(graph, loss);
  };
  const a = build();
  buildTrainingStep(a.graph, { loss: a.loss, optimizer: optimizer() });
  const b = recognizedForward(...(Object.values(build()) as [Graph, Tensor]));
  buildTrainingStep(b.graph, { loss: b.loss, optimizer: optimizer() });
  return { plain: a.graph, recognized: b.graph };
}

function feeds(c: GptConfig & { batch: number }, seed: number): Record<string, TensorValue> {
  const r = mulberry32(seed);
  const ids = () => Array.from({ length: c.batch * c.context }, () => Math.floor(r() * c.vocab));
  return { tokens: tensor([c.batch, c.context], ids(), 'i32'), targets: tensor([c.batch, c.context], ids(), 'i32') };
}

describe('hand-written attention recognized before grad', () => {
  it('gives the optimized GPT step fused attention forward and backward, and the same loss and updates in f64', () => {
    const c = { layers: 2, heads: 2, width: 16, context: 8, batch: 2, vocab: 11 };
    const { plain, recognized } = steps(c);
    const after = optimize(recognized).graph;
    const ops = new Set(after.live().map((i) => after.nodes[i].op));
    expect(ops.has('attentionWithLse') || ops.has('attention')).toBe(true);
    expect([...ops].some((o) => o.startsWith('attentionGrad'))).toBe(true);
    expect(ops.has('logSoftmax')).toBe(false); // no T×T softmax left: the vocabulary's is fused into the loss
    const f = feeds(c, 5);
    const a = interpret(plain, f, {}, 'f64');
    const b = interpret(after, f, {}, 'f64');
    expect(Object.keys(b.updates).sort()).toEqual(Object.keys(a.updates).sort());
    expect(b.outputs.loss.data).toBeAllclose(a.outputs.loss.data, { rtol: 1e-9, atol: 1e-12 });
    for (const k of Object.keys(a.updates)) expect(b.updates[k].data, k).toBeAllclose(a.updates[k].data, { rtol: 1e-8, atol: 1e-12 });
  }, 120_000);

  it('leaves attention over a mask input decomposed (its values are unknown until the step runs)', () => {
    const { graph, loss } = new GPT({ layers: 1, heads: 2, width: 16, context: 4, vocab: 7, attention: 'decomposed' }).trainingGraph(2);
    const out = recognizedForward(graph, loss).graph;
    expect(out.live().some((i) => out.nodes[i].op === 'attention')).toBe(false);
  });
});

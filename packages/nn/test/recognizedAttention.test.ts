// Hand-written attention in a GPT training step is recognized before differentiation: GPT's decomposed attention
// masks in-graph (Graph.futureMask, provable), so the step's forward and backward become the fused attention
// kernels and the optimized step computes what the unoptimized decomposed step computes (f64 interpreter: loss and
// every update). The graph declares no mask input (masks it cannot prove: egraph's attentionRecognize tests).
import { optimize } from '@neura/egraph';
import { type Graph, interpret, mulberry32, type TensorValue, tensor } from '@neura/ir';
import { adamW } from '@neura/optim';
import { buildTrainingStep, GPT, type GptConfig, recognizedForward } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const optimizer = () => adamW({ lr: 3e-4, weightDecay: 0.1 });

/** The decomposed GPT step (its mask built in-graph): unrecognized, and recognized before grad. */
function steps(c: GptConfig & { batch: number }): { plain: Graph; recognized: Graph } {
  const build = () => new GPT({ ...c, attention: 'decomposed' }).trainingGraph(c.batch);
  const a = build();
  buildTrainingStep(a.graph, { loss: a.loss, optimizer: optimizer() });
  const fresh = build();
  const b = recognizedForward(fresh.graph, fresh.loss);
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

  it('declares no mask input: the decomposed GPT graph is fed tokens and targets only', () => {
    const { graph } = new GPT({ layers: 1, heads: 2, width: 16, context: 4, vocab: 7, attention: 'decomposed' }).trainingGraph(2);
    expect(graph.leaves('input').map((n) => n.attrs.name)).toEqual(['tokens', 'targets']);
  });
});

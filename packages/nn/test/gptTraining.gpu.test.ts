// A tiny GPT's whole training step on a real WebGPU adapter against the interpreter running the unoptimized
// step: gather, layer norm, batched matmuls, attention (fused op and decomposed), GELU, cross-entropy, AdamW;
// and a GQA LLaMA-style step (RMSNorm, RoPE, SwiGLU).

import { type Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, type CausalLM, compileTraining, GPT, Llama } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

async function compare(model: () => CausalLM, batch: number, seq: number, expectOps: readonly string[] = ['pointwiseMultiTensor'], expectGraph?: (g: Graph) => void) {
  const n = batch * seq;
  const vocab = model().vocab;
  const feeds: Record<string, TensorValue> = {
    tokens: tensor([batch, seq], Array.from({ length: n }, (_, i) => (i * 5 + 1) % vocab), 'i32'),
    targets: tensor([batch, seq], Array.from({ length: n }, (_, i) => (i * 3 + 2) % vocab), 'i32'),
  };
  const opt = () => adamW({ lr: 1e-2, weightDecay: 0.01 });
  const train = model().trainingGraph(batch, seq);
  const session = await compileTraining(train.graph, { loss: train.loss, optimizer: opt(), device });
  const ref: { graph: Graph; loss: ReturnType<Graph['input']> } = model().trainingGraph(batch, seq);
  buildTrainingStep(ref.graph, { loss: ref.loss, optimizer: opt() });
  let state: Record<string, TensorValue> = {};
  for (let s = 0; s < 2; s++) {
    const gpuLoss = await session.step(feeds, { readLoss: true });
    const r = interpret(ref.graph, feeds, state, 'f64');
    expect(gpuLoss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
    state = { ...state, ...r.updates };
  }
  const gpuState = await session.session.readState();
  for (const [name, v] of Object.entries(state)) expect(gpuState[name].data, name).toBeAllclose(v.data, { rtol: 5e-3, atol: 5e-5 });
  // the fused forms the e-graph chose ran (and agreed above): AdamW as one multi-tensor kernel for every parameter
  const ops = new Set<string>(session.graph.live().map((id) => session.graph.nodes[id].op));
  for (const op of expectOps) expect(ops.has(op), `the optimized step uses ${op}`).toBe(true);
  expectGraph?.(session.graph);
  session.dispose();
}

describe('GPT training step on the GPU', () => {
  const base = { layers: 1, heads: 2, width: 8, context: 4, vocab: 7 } as const;
  it('matches the interpreter with the fused attention op', async () => {
    // the attention gradients compute Δ from attention's output themselves (attention-delta-from-out)
    // and every attention kernel reads q, k, v in place from the fused QKV projection (attention-head-window): no slice;
    // dq, dk and dv are written into one result (attention-grad-qkv): no concat
    const fused = (g: Graph) => {
      const nodes = g.live().map((id) => g.nodes[id]);
      const attention = nodes.filter((n) => n.op === 'attentionWithLse' || n.op === 'attentionGrad' || n.op === 'attentionGradKV' || n.op === 'attentionGradQKV');
      expect(attention.length).toBeGreaterThan(0);
      for (const n of attention) expect((n.attrs as { window?: unknown }).window, `${n.op} reads head windows`).toBeDefined();
      expect(nodes.filter((n) => n.op === 'slice' || n.op === 'concat')).toEqual([]);
      expect(nodes.some((n) => n.op === 'attentionGradQKV' && n.attrs.deltaFromOut === true)).toBe(true);
    };
    await compare(() => new GPT({ ...base, attention: 'op' }), 2, 4, ['pointwiseMultiTensor', 'attentionGradQKV'], fused);
  });
  it('matches the interpreter with decomposed attention and a tied head', async () => {
    await compare(() => new GPT({ ...base, attention: 'decomposed', tiedHead: true }), 2, 4);
  });
  it('a LLaMA-style step (RMSNorm, RoPE, SwiGLU, grouped-query heads) matches the interpreter', async () => {
    await compare(() => new Llama({ vocab: 7, layers: 1, heads: 4, kvHeads: 2, width: 8, hidden: 16 }), 2, 4);
  });
});

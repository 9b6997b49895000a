// A tiny GPT's whole training step on a real WebGPU adapter against the interpreter running the unoptimized
// step: gather, layer norm, batched matmuls, attention (fused op and decomposed), GELU, cross-entropy, AdamW.

import { grad } from '@neura/autograd';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { causalMask, compileTraining, type GptConfig, gptForward } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

async function compare(config: GptConfig) {
  const n = config.batch * config.context;
  const feeds: Record<string, TensorValue> = {
    tokens: tensor([n], Array.from({ length: n }, (_, i) => (i * 5 + 1) % config.vocab), 'i32'),
    targets: tensor([n], Array.from({ length: n }, (_, i) => (i * 3 + 2) % config.vocab), 'i32'),
  };
  if (config.attention !== 'op') feeds.mask = causalMask(config.context);
  const opt = () => adamW({ lr: 1e-2, weightDecay: 0.01 });
  const g = new Graph();
  const session = await compileTraining(g, { loss: gptForward(g, config).loss, optimizer: opt(), device });
  const ref = new Graph();
  const { loss } = gptForward(ref, config);
  ref.output('loss', loss);
  const params = ref.leaves('param');
  opt().apply(ref, params, grad(ref, loss, params));
  let state: Record<string, TensorValue> = {};
  for (let s = 0; s < 2; s++) {
    const gpuLoss = await session.step(feeds, { readLoss: true });
    const r = interpret(ref, feeds, state, 'f64');
    expect(gpuLoss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
    state = { ...state, ...r.updates };
  }
  const gpuState = await session.session.readState();
  for (const [name, v] of Object.entries(state)) expect(gpuState[name].data, name).toBeAllclose(v.data, { rtol: 5e-3, atol: 5e-5 });
  session.dispose();
}

describe('GPT training step on the GPU', () => {
  const base = { layers: 1, heads: 2, width: 8, context: 4, batch: 2, vocab: 7 } as const;
  it('matches the interpreter with the fused attention op', async () => {
    await compare({ ...base, attention: 'op' });
  });
  it('matches the interpreter with decomposed attention', async () => {
    await compare({ ...base, attention: 'decomposed' });
  });
});

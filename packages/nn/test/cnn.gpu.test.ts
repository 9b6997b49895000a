// A small CNN built from nn's layers (Conv2d, BatchNorm2d, ReLU, ConvTranspose2d, MaxPool2d, AdaptiveAvgPool2d,
// Flatten, Linear) trained on a real WebGPU adapter, e-graph optimized, must match the reference interpreter
// running the unoptimized step, step after step: loss, parameters, moments and BatchNorm's running buffers.
// Then its eval graph, loaded from the training session's state dict, must match the interpreter too.

import { grad } from '@neura/autograd';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { AdaptiveAvgPool2d, BatchNorm2d, compileInference, compileTraining, Conv2d, ConvTranspose2d, Flatten, Linear, MaxPool2d, ReLU, Sequential } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const [B, H] = [4, 6];
const model = () =>
  new Sequential(
    new Conv2d(1, 4, 3, { stride: 2, padding: 1 }),
    new BatchNorm2d(4),
    new ReLU(),
    new ConvTranspose2d(4, 2, 3, { stride: 2, padding: 1, outputPadding: 1 }),
    new MaxPool2d(2),
    new Conv2d(2, 4, 1),
    new AdaptiveAvgPool2d(2),
    new Flatten(),
    new Linear(16, 3),
  );

function batch(seed: number) {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return { x: Float32Array.from({ length: B * H * H }, r), labels: Int32Array.from({ length: B }, (_, i) => (i + seed) % 3) };
}

function build(m = model()) {
  const g = new Graph();
  const loss = g.crossEntropy(m.forward(g, g.input('x', [B, 1, H, H])), g.input('labels', [B], 'i32'));
  return { g, loss, m };
}

describe('a CNN from nn layers on the GPU', () => {
  it('trains like the interpreter (BatchNorm buffers included), then evaluates from its state dict', async () => {
    const gpu = build();
    const train = await compileTraining(gpu.g, { loss: gpu.loss, optimizer: sgd({ lr: 0.1, momentum: 0.9 }), device });
    const ref = build();
    ref.g.output('loss', ref.loss);
    const params = ref.g.leaves('param');
    sgd({ lr: 0.1, momentum: 0.9 }).apply(ref.g, params, grad(ref.g, ref.loss, params));
    let state: Record<string, TensorValue> = {};
    for (let s = 0; s < 3; s++) {
      const b = batch(s + 1);
      const loss = await train.step(b, { readLoss: true });
      const r = interpret(ref.g, { x: tensor([B, 1, H, H], b.x), labels: tensor([B], b.labels, 'i32') }, state, 'f64');
      expect(loss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
      state = { ...state, ...r.updates };
    }
    const sd = await train.stateDict();
    expect(Object.keys(sd).filter((k) => k.startsWith('1.'))).toEqual(['1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked']);
    expect(Array.from(sd['1.num_batches_tracked'].data)).toEqual([3]);
    const all = await train.session.readState();
    for (const [name, v] of Object.entries(state)) expect(all[name].data, name).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });

    const ge = new Graph();
    const logits = gpu.m.eval().forward(ge, ge.input('x', [B, 1, H, H]));
    const infer = await compileInference(ge, { outputs: { logits }, device });
    await infer.loadStateDict(sd);
    const b = batch(9);
    const got = (await infer.run({ x: b.x })).logits;
    ge.output('logits', logits); // compileInference names its outputs on a copy, not on ge
    const want = interpret(ge, { x: tensor([B, 1, H, H], b.x) }, sd).outputs.logits;
    expect(got.data).toBeAllclose(want.data, { rtol: 1e-4, atol: 1e-5 });
    // the same dict as initialState: the eval graph's unused counter stays on the host, nothing is refused
    const infer2 = await compileInference(ge, { outputs: { logits }, device, initialState: sd });
    expect((await infer2.run({ x: b.x })).logits.data).toBeAllclose(want.data, { rtol: 1e-4, atol: 1e-5 });
    expect(Array.from((await infer2.stateDict())['1.num_batches_tracked'].data)).toEqual([3]);
    train.dispose();
    infer.dispose();
    infer2.dispose();
  });
});

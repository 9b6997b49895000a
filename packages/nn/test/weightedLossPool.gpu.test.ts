// PyTorch-port ops in a whole training step on a real adapter: a class-weighted, label-smoothed crossEntropy with
// ignored rows, over a CNN whose MaxPool2d uses dilation and ceil mode, optimized by the e-graph and run on the
// GPU, must match the reference interpreter running the unoptimized step, step after step.

import { grad } from '@neura/autograd';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { compileTraining, Conv2d, Flatten, Linear, MaxPool2d, ReLU, Sequential } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const [B, C, H, W, K] = [4, 2, 9, 8, 5];

function build(): { g: Graph; loss: ReturnType<Graph['crossEntropy']> } {
  const g = new Graph();
  const x = g.input('x', [B, C, H, W]);
  const labels = g.input('labels', [B], 'i32');
  const classWeight = g.input('classWeight', [K]);
  // conv keeps 9×8; pool k3 s2 p1 d2, ceil: 4×4 (torch; floor mode gives 4×3)
  const net = new Sequential(new Conv2d(C, 3, 3, { padding: 1 }), new ReLU(), new MaxPool2d(3, { stride: 2, padding: 1, dilation: 2, ceilMode: true }), new Flatten(), new Linear(3 * 4 * 4, K));
  const loss = g.crossEntropy(net.forward(g, x), labels, { weight: classWeight, labelSmoothing: 0.1, ignoreIndex: -100 });
  return { g, loss };
}

function batch(seed: number) {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return {
    x: Float32Array.from({ length: B * C * H * W }, r),
    labels: Int32Array.from({ length: B }, (_, i) => (i === 1 ? -100 : (i * 3 + seed) % K)),
    classWeight: Float32Array.from([0.5, 2, 1, 0.25, 1.5]),
  };
}

describe('a weighted crossEntropy over a dilated ceil-mode MaxPool2d', () => {
  it('trains on the GPU as the interpreter runs the unoptimized step (3 SGD steps)', async () => {
    const gpu = build();
    expect(gpu.g.nodes.some((n) => n.op === 'maxPool2d' && n.shape[2] === 4 && n.shape[3] === 4)).toBe(true);
    const session = await compileTraining(gpu.g, { loss: gpu.loss, optimizer: sgd({ lr: 0.1 }), device });
    const ref = build();
    ref.g.output('loss', ref.loss);
    const params = ref.g.leaves('param');
    sgd({ lr: 0.1 }).apply(ref.g, params, grad(ref.g, ref.loss, params));
    let state: Record<string, TensorValue> = {};
    for (let s = 0; s < 3; s++) {
      const b = batch(s + 1);
      const gpuLoss = await session.step(b, { readLoss: true });
      const feeds = { x: tensor([B, C, H, W], b.x), labels: tensor([B], b.labels, 'i32'), classWeight: tensor([K], b.classWeight) };
      const r = interpret(ref.g, feeds, state, 'f64');
      expect(gpuLoss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
      state = { ...state, ...r.updates };
    }
    const all = await session.session.readState();
    for (const [name, v] of Object.entries(state)) expect(all[name].data, name).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });
    session.dispose();
  });
});

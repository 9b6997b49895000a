// compileTraining recognizes hand-written causal attention before differentiation: the compiled step runs the
// fused attention kernels (forward and backward) on the device, and its losses over three steps match the
// unoptimized step compiled with `optimize: false` (which keeps the matmul/softmax/matmul spelling).
import { Graph, tensor } from '@neura/ir';
import { compileTraining, Linear } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const [B, H, T, D] = [2, 2, 8, 4];

/** One head-split causal self-attention over x [B, H, T, D], written out, with the causal mask built in-graph. */
function forward() {
  const g = new Graph();
  const x = g.input('x', [B * H * T, D]);
  const target = g.input('target', [B * H * T, D]);
  const heads = (name: string) => g.reshape(new Linear(D, D).forward(g, x, name), [B, H, T, D]);
  const [q, k, v] = [heads('q'), heads('k'), heads('v')];
  const above = g.gt(g.cumsum(g.constant(1, [1, T]), 1), g.cumsum(g.constant(1, [T, 1]), 0)); // j > i
  const scores = g.add(g.mul(g.matmul(q, k, { transB: true }), 1 / Math.sqrt(D)), g.where(above, Number.NEGATIVE_INFINITY, 0));
  const o = g.reshape(g.matmul(g.softmax(scores), v), [B * H * T, D]);
  return { g, loss: g.mse(o, target) };
}

const n = B * H * T * D;
const feeds = { x: tensor([B * H * T, D], Array.from({ length: n }, (_, i) => Math.sin(i * 0.7))), target: tensor([B * H * T, D], Array.from({ length: n }, (_, i) => Math.cos(i * 0.3))) };

describe('compileTraining with hand-written attention', () => {
  it('runs the fused attention kernels and trains as the unoptimized step does', async () => {
    const { g, loss } = forward();
    const fused = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.5 }), device });
    const plain = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.5 }), device, optimize: false });
    const ops = new Set(fused.graph.live().map((i) => fused.graph.nodes[i].op));
    expect([...ops].some((o) => o.startsWith('attention'))).toBe(true);
    expect([...ops].some((o) => o.startsWith('attentionGrad'))).toBe(true);
    expect(ops.has('logSoftmax')).toBe(false);
    for (let i = 0; i < 3; i++) {
      const [a, b] = [await fused.step(feeds, { readLoss: true }), await plain.step(feeds, { readLoss: true })];
      expect([a as number]).toBeAllclose([b as number], { rtol: 1e-4, atol: 1e-6 });
    }
    fused.dispose();
    plain.dispose();
  }, 120_000);
});

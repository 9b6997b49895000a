// Dynamic loss scaling on a real adapter (fp32, asked for explicitly): the finite check, the skip and the scale
// update run inside the one step submission. An overflowing step leaves params and Adam state bit-identical and
// halves the scale; finite steps grow it; a power-of-two scale trains as the unscaled step; checkpoints keep it.

import { Graph, type TensorValue } from '@neura/ir';
import { compileTraining, GRAD_SCALER_STATE, Linear, type LossScale, readCheckpoint, restoreCheckpoint, saveCheckpoint, type TrainingSession } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const B = 8;
const F = 6;

/** A small regression MLP whose loss is multiplied by the fed scalar `k` (k = 1e36: the scaled gradient overflows, the loss does not). */
function build(lossScale?: LossScale): Promise<TrainingSession> {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const y = g.input('y', [B, 2]);
  const k = g.input('k', []);
  const h = g.relu(new Linear(F, 8).forward(g, x, 'fc1'));
  const pred = new Linear(8, 2).forward(g, h, 'fc2');
  const loss = g.mul(g.mean(g.square(g.sub(pred, y))), k);
  return compileTraining(g, { loss, optimizer: adam({ lr: 0.01 }), device, ...(lossScale === undefined ? {} : { lossScale }) });
}

function feeds(seed: number, k = 1) {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return { x: Float32Array.from({ length: B * F }, r), y: Float32Array.from({ length: B * 2 }, r), k: Float32Array.of(k) };
}

const bits = (v: TensorValue) => Array.from(new Uint32Array(new Float32Array(v.data).buffer));
const modelAndOptimizer = (s: Record<string, TensorValue>) => Object.fromEntries(Object.entries(s).filter(([n]) => !n.startsWith('gradScaler.')).map(([n, v]) => [n, bits(v)]));

describe('dynamic loss scaling on the GPU', () => {
  it('skips exactly the overflowing step (params and Adam state bit-identical), halves the scale, then trains on', async () => {
    const s = await build({ growthInterval: 1000 });
    await s.step(feeds(1));
    await s.step(feeds(2));
    expect(await s.lossScale()).toEqual({ scale: 65536, growthTracker: 2, dynamic: true });
    const before = await s.session.readState();
    const loss = await s.step(feeds(3, 1e36), { readLoss: true });
    expect(Number.isFinite(loss), 'the reported (unscaled) loss is finite').toBe(true);
    const after = await s.session.readState();
    expect(modelAndOptimizer(after)).toEqual(modelAndOptimizer(before));
    expect(after['adam.step'].data[0]).toBe(2);
    expect(await s.lossScale()).toEqual({ scale: 32768, growthTracker: 0, dynamic: true });
    // a NaN in the batch (NaN gradients: |g| ≤ max f32 is false) is skipped the same way
    const nan = feeds(5);
    nan.x[3] = Number.NaN;
    await s.step(nan);
    expect(modelAndOptimizer(await s.session.readState())).toEqual(modelAndOptimizer(before));
    expect(await s.lossScale()).toEqual({ scale: 16384, growthTracker: 0, dynamic: true });
    await s.step(feeds(4));
    const next = await s.session.readState();
    expect(bits(next['fc1.weight'])).not.toEqual(bits(before['fc1.weight']));
    expect(next['adam.step'].data[0]).toBe(3);
    expect(await s.lossScale()).toEqual({ scale: 16384, growthTracker: 1, dynamic: true });
    s.dispose();
  });

  it('doubles the scale after growthInterval finite steps', async () => {
    const s = await build({ growthInterval: 2, initScale: 1024 });
    const seen: number[][] = [];
    for (let i = 0; i < 5; i++) {
      await s.step(feeds(i + 1));
      const { scale, growthTracker } = await s.lossScale();
      seen.push([scale, growthTracker]);
    }
    expect(seen).toEqual([[1024, 1], [2048, 0], [2048, 1], [4096, 0], [4096, 1]]);
    s.dispose();
  });

  it('trains bit for bit as the unscaled step with a power-of-two scale; without lossScale the step has no scaler', async () => {
    const plain = await build();
    const scaled = await build('dynamic');
    expect(await plain.lossScale()).toEqual({ scale: 1, growthTracker: 0, dynamic: false });
    expect(plain.session.stateNames.some((n) => n.startsWith('gradScaler.'))).toBe(false);
    for (let i = 0; i < 4; i++) {
      const a = await plain.step(feeds(i + 1), { readLoss: true });
      const b = await scaled.step(feeds(i + 1), { readLoss: true });
      expect(b, 'the reported loss is unscaled').toBe(a);
    }
    // the guards fuse into the optimizer's multi-tensor update; the check costs one reduction per gradient and a few scalars
    const ops = (s: TrainingSession, op: string) => s.graph.live().filter((id) => s.graph.nodes[id].op === op).length;
    expect(ops(scaled, 'pointwiseMultiTensor')).toBe(ops(plain, 'pointwiseMultiTensor'));
    expect(scaled.stats.dispatchesPerStep).toBeLessThanOrEqual(plain.stats.dispatchesPerStep + 4 + 4);
    const [a, b] = [await plain.session.readState(), await scaled.session.readState()];
    // bit for bit: scaling by 2^16 and back commutes with f32 rounding (no overflow or subnormal here), and the two
    // plans reduce in the same order (the seed's product is a separate factor, not a reordering)
    expect(modelAndOptimizer(b)).toEqual(modelAndOptimizer(a));
    plain.dispose();
    scaled.dispose();
  });

  it('checkpoints keep the scale and growth tracker; an old checkpoint without them restores the defaults', async () => {
    const opts = { growthInterval: 4, initScale: 1024 };
    const s = await build(opts);
    for (const [i, k] of [1, 1e36, 1, 1].entries()) await s.step(feeds(i + 1, k));
    const state = await s.lossScale();
    expect(state).toEqual({ scale: 512, growthTracker: 2, dynamic: true });
    const ckpt = readCheckpoint(await saveCheckpoint(s, { step: 4 }));
    const fresh = await build(opts);
    await restoreCheckpoint(fresh, ckpt);
    expect(await fresh.lossScale()).toEqual(state);
    // both continue identically
    await s.step(feeds(9));
    await fresh.step(feeds(9));
    expect(await fresh.lossScale()).toEqual({ scale: 512, growthTracker: 3, dynamic: true });
    expect(await s.lossScale()).toEqual({ scale: 512, growthTracker: 3, dynamic: true });
    expect(modelAndOptimizer(await fresh.session.readState())).toEqual(modelAndOptimizer(await s.session.readState()));

    const old = { tensors: Object.fromEntries(Object.entries(ckpt.tensors).filter(([n]) => !Object.values(GRAD_SCALER_STATE).includes(n as never))) };
    await restoreCheckpoint(fresh, old);
    expect(await fresh.lossScale()).toEqual({ scale: 1024, growthTracker: 0, dynamic: true });
    expect(bits((await fresh.session.readState())['fc2.weight'])).toEqual(bits(ckpt.tensors['fc2.weight']));
    s.dispose();
    fresh.dispose();
  });
});

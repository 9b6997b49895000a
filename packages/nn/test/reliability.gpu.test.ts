// Issue 9 at the nn level (software adapter): InferenceSession.load checks what it loads and waits for it,
// anomaly mode stops at the first non-finite loss or parameter (naming the step and the kernel) and undoes
// that step, and Trainer refuses a dataset smaller than one batch instead of running zero steps.

import { Graph, type TensorValue, tensor } from '@neura/ir';
import { AnomalyError, compileInference, compileTraining, mlp, StateDictError, Trainer } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const [B, F, C] = [4, 6, 3];
const bits = (v: TensorValue) => Array.from(new Uint32Array(v.data.buffer, v.data.byteOffset, v.data.length));

function batch(seed: number): { x: Float32Array; labels: Int32Array } {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return { x: Float32Array.from({ length: B * F }, r), labels: Int32Array.from({ length: B }, (_, i) => (i * 7 + seed) % C) };
}

async function training(lr: number, detectAnomaly?: boolean) {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const loss = g.crossEntropy(mlp([F, 8, C]).forward(g, x), labels);
  return compileTraining(g, { loss, optimizer: sgd({ lr }), device, detectAnomaly });
}

describe('InferenceSession.load (item 2)', () => {
  async function inference() {
    const g = new Graph();
    const x = g.input('x', [B, F]);
    const w = g.param('w', [F, C]);
    return compileInference(g, { outputs: { y: g.matmul(x, w) }, device });
  }

  it('refuses a wrongly shaped tensor and an unknown name, writing nothing', async () => {
    const inf = await inference();
    const before = await inf.session.read('w');
    await expect(inf.load({ w: tensor([C, F], new Float32Array(C * F)) })).rejects.toThrow(StateDictError);
    await expect(inf.load({ w: tensor([F, C], new Float32Array(F * C)), nope: tensor([1], [1]) })).rejects.toThrow(/unknown: nope/);
    expect(bits(await inf.session.read('w'))).toEqual(bits(before));
    inf.dispose();
  });

  it('resolves once the values are on the device', async () => {
    const inf = await inference();
    const w = tensor([F, C], Float32Array.from({ length: F * C }, (_, i) => i));
    await inf.load({ w });
    const { y } = await inf.run({ x: tensor([B, F], new Float32Array(B * F).fill(1)) });
    expect(Array.from(y.data.slice(0, C))).toEqual([45, 51, 57]);
    inf.dispose();
  });
});

describe('anomaly mode (item 6)', () => {
  it('a NaN in one batch raises AnomalyError at that step, naming the kernel, and undoes the step', async () => {
    const train = await training(0.1, true);
    await train.step(batch(1));
    const before = await train.session.readState();
    const bad = batch(2);
    bad.x[5] = Number.NaN;
    const err = await train.step(bad).catch((e) => e);
    expect(err).toBeInstanceOf(AnomalyError);
    expect(err.step).toBe(2);
    expect(err.input).toMatch(/^x\[5\] = NaN/);
    expect(err.message).toMatch(/anomaly at step 2: .*first non-finite kernel output: \w+ #\d+/);
    expect(err.kernel?.value).toBeNaN();
    const after = await train.session.readState();
    for (const k of Object.keys(before)) expect(bits(after[k]), k).toEqual(bits(before[k]));
    // the session goes on training from there
    expect(Number.isFinite(await train.step(batch(3), { readLoss: true }))).toBe(true);
    train.dispose();
  });

  it('with lr = 1e12 it stops at the first step whose loss or params go non-finite, not 50 steps later', async () => {
    const train = await training(1e12, true);
    let err: unknown;
    for (let s = 1; s <= 10 && !err; s++) await train.step(batch(s)).catch((e) => (err = e));
    expect(err).toBeInstanceOf(AnomalyError);
    const a = err as AnomalyError;
    expect(a.step).toBeLessThanOrEqual(3);
    expect(a.kernel).toBeDefined();
    expect(a.input).toBeUndefined();
    train.dispose();
  });

  it('costs nothing when off: the compiled step is the same, and a NaN goes through unnoticed', async () => {
    const on = await training(0.1, true);
    const off = await training(0.1);
    expect(off.stats.dispatchesPerStep).toBe(on.stats.dispatchesPerStep);
    const bad = batch(2);
    bad.x[0] = Number.NaN;
    await expect(off.step(bad)).resolves.toBeUndefined();
    on.dispose();
    off.dispose();
  });

  it('Trainer.fit({ detectAnomaly: true }) raises at the failing step of the loop', async () => {
    const train = await training(0.1);
    const count = 3 * B;
    const images = Float32Array.from({ length: count * F }, (_, i) => Math.sin(i));
    images[2 * B * F + 3] = Number.POSITIVE_INFINITY; // in the third batch (no shuffle)
    const labels = Int32Array.from({ length: count }, (_, i) => i % C);
    const err = await new Trainer(train).fit({ count, images, labels }, F, { epochs: 1, batchSize: B, progress: false, detectAnomaly: true }).catch((e) => e);
    expect(err).toBeInstanceOf(AnomalyError);
    expect(err.step).toBe(3);
    train.dispose();
  });
});

describe('Trainer (item 11)', () => {
  it('refuses a dataset with fewer examples than one batch instead of running 0 steps', async () => {
    const train = await training(0.1);
    const data = { count: 3, images: new Float32Array(3 * F), labels: new Int32Array(3) };
    await expect(new Trainer(train).fit(data, F, { epochs: 1, batchSize: B, progress: false })).rejects.toThrow(
      /3 examples are fewer than one batch of 4: no step would run/,
    );
    train.dispose();
  });
});

// The Trainer on a real adapter with any dataset: validation metrics over every example (the partial last batch
// padded, the padding not counted; checked against the interpreter), callbacks that stop training, and a run
// resumed from a Trainer checkpoint that ends bit-identical to an uninterrupted one (shuffle order, dropout
// offsets, schedule and AdamW state all continue).

import { Graph, interpret, tensor } from '@neura/ir';
import {
  accuracy,
  compileInference,
  compileTraining,
  cosineLr,
  DivergenceError,
  crossEntropyMetric,
  Dropout,
  Linear,
  readCheckpoint,
  ReLU,
  Sequential,
  type TrainingSession,
  Trainer,
  tensorDataset,
} from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const F = 5;
const C = 3;
const B = 4;
const model = () => new Sequential(new Linear(F, 8), new ReLU(), new Dropout(0.2), new Linear(8, C));

function data(n: number, seed: number) {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const x = Float32Array.from({ length: n * F }, r);
  const labels = Int32Array.from({ length: n }, (_, i) => (x[i * F] > 0 ? 1 : 0) + (x[i * F + 1] > 0.5 ? 1 : 0));
  return { x, labels };
}

async function session(): Promise<TrainingSession> {
  const g = new Graph();
  const loss = g.crossEntropy(model().train().forward(g, g.input('x', [B, F])), g.input('labels', [B], 'i32'));
  return compileTraining(g, { loss, optimizer: adamW({ lr: g.input('lr', []) }), device });
}

describe('Trainer', () => {
  it('validates every example with metrics, and stops when a callback says so', async () => {
    const train = await session();
    const ge = new Graph();
    const infer = await compileInference(ge, { outputs: { logits: model().eval().forward(ge, ge.input('x', [B, F])) }, device });
    const val = data(10, 9); // 10 examples: batches of 4, 4 and 2 (+2 padding)
    const seen: number[] = [];
    const fit = await new Trainer(train).fit(tensorDataset({ x: { data: data(23, 1).x, perExample: F }, labels: { data: data(23, 1).labels, perExample: 1 } }), {
      epochs: 4,
      batchSize: B,
      seed: 3,
      progress: false,
      lr: cosineLr(0.05),
      validation: { session: infer, data: tensorDataset({ x: { data: val.x, perExample: F }, labels: { data: val.labels, perExample: 1 } }), batchSize: B, metrics: [accuracy(), crossEntropyMetric()], every: 3 },
      callbacks: [
        {
          onStepEnd: ({ step }) => {
            seen.push(step);
            return step === 7 ? 'stop' : undefined;
          },
        },
      ],
    });
    expect(fit.steps).toBe(7);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(fit.evaluations.map((e) => e.step)).toEqual([3, 6, 7]);
    // the last evaluation against the interpreter over exactly the 10 validation examples
    const params = await train.stateDict();
    const g = new Graph();
    g.output('logits', model().eval().forward(g, g.input('x', [10, F])));
    const logits = interpret(g, { x: tensor([10, F], val.x) }, params, 'f64').outputs.logits.data;
    let ce = 0;
    let ok = 0;
    for (let r = 0; r < 10; r++) {
      const row = Array.from(logits.slice(r * C, r * C + C));
      const m = Math.max(...row);
      ce += Math.log(row.reduce((s, v) => s + Math.exp(v - m), 0)) + m - row[val.labels[r]];
      if (row.indexOf(m) === val.labels[r]) ok++;
    }
    const last = fit.evaluations[2].metrics;
    expect(last.loss).toBeCloseTo(ce / 10, 4);
    expect(last.accuracy).toBe(ok / 10);
    train.dispose();
    infer.dispose();
  });

  it('resumes from its checkpoint bit-identically (data order, dropout, schedule, AdamW)', async () => {
    const d = data(18, 5);
    const ds = tensorDataset({ x: { data: d.x, perExample: F }, labels: { data: d.labels, perExample: 1 } });
    const opts = { epochs: 3, batchSize: B, seed: 11, progress: false, lr: cosineLr(0.05, { warmup: 2 }), lastBatch: 'wrap' as const };
    const straight = await session();
    const a = await new Trainer(straight).fit(ds, opts);
    const want = await straight.session.readState();
    straight.dispose();

    const saved: Uint8Array[] = [];
    const first = await session();
    // interrupted after step 5 (a callback stops it; maxSteps would change the schedule's length)
    await new Trainer(first).fit(ds, { ...opts, callbacks: [{ onStepEnd: ({ step }) => (step === 5 ? 'stop' : undefined) }], checkpoint: { every: 5, save: (bytes) => void saved.push(bytes) } });
    first.dispose();
    expect(saved).toHaveLength(1);
    const resumed = await session();
    const b = await new Trainer(resumed).fit(ds, { ...opts, resume: readCheckpoint(saved[0]) });
    expect(b.steps).toBe(a.steps);
    expect(a.steps).toBe(Math.floor(Math.ceil((18 / B) * 3)));
    const got = await resumed.session.readState();
    for (const [n, v] of Object.entries(want)) expect(Array.from(got[n].data), n).toEqual(Array.from(v.data));
    resumed.dispose();
  });

  it('stops with a DivergenceError naming the step when the loss goes non-finite', async () => {
    const d = data(8, 2);
    const train = await session();
    const ds = tensorDataset({ x: { data: d.x, perExample: F }, labels: { data: d.labels, perExample: 1 } });
    const err = await new Trainer(train).fit(ds, { epochs: 1, batchSize: B, progress: false, shuffle: false, logEvery: 1, lr: () => Number.NaN }).catch((e: unknown) => e); // NaN params after step 1
    expect(err).toBeInstanceOf(DivergenceError);
    expect(err).toMatchObject({ step: 2, loss: Number.NaN, message: 'training diverged: loss is NaN at step 2' });
    train.dispose();
  });

  it('accumulates micro-batches per update and logs one JSON line per update with its epoch and lr', async () => {
    const g = new Graph();
    const loss = g.crossEntropy(model().eval().forward(g, g.input('x', [B, F])), g.input('labels', [B], 'i32'));
    const train = await compileTraining(g, { loss, optimizer: adamW({ lr: g.input('lr', []) }), device, accumulate: 2 });
    const d = data(16, 4); // 4 micro-batches per epoch: 2 updates per epoch
    const ds = tensorDataset({ x: { data: d.x, perExample: F }, labels: { data: d.labels, perExample: 1 } });
    const lines: string[] = [];
    const fit = await new Trainer(train).fit(ds, { epochs: 2, batchSize: B, accumulate: 2, progress: false, logEvery: 1, lr: (step) => 0.01 * (step + 1), jsonLines: (l) => void lines.push(l) });
    expect(fit.steps).toBe(4);
    const events = lines.map((l) => JSON.parse(l));
    expect(events.map((e) => [e.event, e.step, e.epoch, e.lr])).toEqual([
      ['step', 1, 0, 0.01],
      ['step', 2, 1, 0.02],
      ['step', 3, 1, 0.03],
      ['step', 4, 2, 0.04],
    ]);
    expect(events.map((e) => e.loss)).toEqual(fit.losses.map((l) => l.loss));
    await expect(new Trainer(train).fit(ds, { epochs: 1, batchSize: B, accumulate: 3, progress: false })).rejects.toThrow(/accumulate 3 needs a step compiled with \{ accumulate: 3 \} \(this one has 2\)/);
    await expect(new Trainer(train).fit(ds, { epochs: 1, batchSize: B, progress: false })).rejects.toThrow(/accumulate 1 needs a step compiled with \{ accumulate: 1 \} \(this one has 2\)/);
    train.dispose();
  });

  it('trains on { count, images, labels } with the features per image (the older form), and refuses mixed forms', async () => {
    const train = await session();
    const d = data(8, 6);
    const trainer = new Trainer(train);
    const fit = await trainer.fit({ count: 8, images: d.x, labels: d.labels }, F, { epochs: 1, batchSize: B, progress: false, lr: () => 0.01 });
    expect(fit.steps).toBe(2);
    expect(() => trainer.fit({ count: 8, images: d.x, labels: d.labels } as never, { epochs: 1, batchSize: B })).toThrow(TypeError);
    const ds = tensorDataset({ x: { data: d.x, perExample: F }, labels: { data: d.labels, perExample: 1 } });
    expect(() => trainer.fit(ds as never, F, { epochs: 1, batchSize: B })).toThrow(/takes no feature count/);
    train.dispose();
  });
});

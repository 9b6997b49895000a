// The MLP training-step workloads (the same ones apps/bench/python/reference.py runs in PyTorch): a full
// step — forward, backward, optimizer update — timed with the GPU synchronised after every step (as the
// PyTorch side does) and pipelined (many steps, one sync), plus compile time, memory and e-graph figures.

import { Graph } from '@neura/ir';
import { compileTraining, mlp } from '@neura/nn';
import { adam, sgd } from '@neura/optim';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { summarize, type Timing } from '../timing.js';
import { feedBatches, type StepFigures, type StepIters, stepFigures, type SyncedTiming, timeSyncedSteps } from './stepFigures.js';

/** One MLP workload. */
export interface MlpWorkload {
  name: string;
  sizes: number[];
  batch: number;
  optimizer: 'sgd' | 'adam';
}

/** The workloads of the issue (and of PLATFORM.md's PyTorch figures). */
export const MLP_WORKLOADS: MlpWorkload[] = [
  { name: 'mlp-784-128-10-b32-sgd', sizes: [784, 128, 10], batch: 32, optimizer: 'sgd' },
  { name: 'mlp-784-256-128-10-b1000-adam', sizes: [784, 256, 128, 10], batch: 1000, optimizer: 'adam' },
  { name: 'mlp-16-128-64-64-10-b16-sgd', sizes: [16, 128, 64, 64, 10], batch: 16, optimizer: 'sgd' },
];

/** Results of one MLP workload. */
export interface MlpResult extends StepFigures {
  /** Each step awaited and the GPU synchronised after it. */
  synced: SyncedTiming;
  /** Mean per step over a block of steps with one synchronisation at the end (median over blocks). */
  pipelined: Timing;
  compileMs: number;
}

/** Builds, compiles and times one MLP training step. */
export async function benchMlp(w: MlpWorkload, device: NeuraDevice, iters: StepIters & { blocks: number }): Promise<MlpResult> {
  const g = new Graph();
  const x = g.input('x', [w.batch, w.sizes[0]]);
  const labels = g.input('labels', [w.batch], 'i32');
  const loss = g.crossEntropy(mlp(w.sizes).forward(g, x), labels);
  const optimizer = w.optimizer === 'sgd' ? sgd({ lr: 0.01 }) : adam({ lr: 1e-3 });
  const t0 = performance.now();
  const train = await compileTraining(g, { loss, optimizer, device });
  const classes = w.sizes[w.sizes.length - 1];
  // a new batch every step (4 distinct ones in turn), as a data loader feeds a training loop
  const batches = feedBatches(4, (b) => ({
    x: Float32Array.from({ length: w.batch * w.sizes[0] }, (_, i) => Math.sin(i * 0.37 + b)),
    labels: Int32Array.from({ length: w.batch }, (_, i) => (i * 7 + b) % classes),
  }));
  await train.step(batches[0], { readLoss: true }); // first finished step
  const compileMs = performance.now() - t0;
  const synced = await timeSyncedSteps(train, batches, iters);
  const blockSamples: number[] = [];
  const per = Math.max(10, Math.floor(iters.steps / iters.blocks));
  for (let b = 0; b < iters.blocks; b++) {
    const s0 = performance.now();
    for (let i = 0; i < per; i++) await train.step(batches[i % batches.length]);
    await train.session.sync();
    blockSamples.push((performance.now() - s0) / per);
  }
  const r: MlpResult = { synced, pipelined: summarize(blockSamples), compileMs, ...stepFigures(train) };
  train.dispose();
  return r;
}

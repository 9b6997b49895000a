// Trainer: the loop around a compiled training step — epochs over mini-batches, progress with loss and
// steps/s, and timing. Loss is read back only every `logEvery` steps, so the GPU is not stalled each step.

import type { TrainingSession } from './compileTraining.js';
import { type Batch, batches } from './data/batches.js';
import { ProgressBar } from './progressBar.js';
import type { Schedule } from './schedule.js';

/** Options of `Trainer.fit`. */
export interface FitOptions {
  epochs: number;
  batchSize: number;
  /** Stop after this many steps in total (default: all full batches of every epoch). */
  maxSteps?: number;
  /** Read the loss every this many steps (default 50). */
  logEvery?: number;
  shuffleSeed?: number;
  /** Show a progress bar on stderr (default true). */
  progress?: boolean;
  /** Maps a batch to the step's feeds (default `{ x, labels }`). */
  feeds?: (b: Batch) => Record<string, Float32Array | Int32Array>;
  /** Learning-rate schedule, fed each step as the scalar input `lr` (the graph must declare it). */
  lr?: Schedule;
  /** Check every step for a non-finite loss or parameter and throw an `AnomalyError` at the first (debug; slower). */
  detectAnomaly?: boolean;
}

/** What a fit returns. */
export interface FitResult {
  steps: number;
  /** Wall time per step over the run, GPU synchronised at the end. */
  msPerStep: number;
  /** Loss values read during training, with the step they belong to. */
  losses: { step: number; loss: number }[];
}

/** Runs training steps of a compiled session over a dataset. */
export class Trainer {
  constructor(readonly session: TrainingSession) {}

  /** Trains for `epochs` over `data` (images [count, features] and labels). */
  async fit(data: { count: number; images: Float32Array; labels: Int32Array }, features: number, opts: FitOptions): Promise<FitResult> {
    const logEvery = opts.logEvery ?? 50;
    const perEpoch = Math.floor(data.count / opts.batchSize);
    if (perEpoch === 0)
      throw new RangeError(`Trainer.fit: ${data.count} examples are fewer than one batch of ${opts.batchSize}: no step would run (incomplete batches are dropped)`);
    const total = Math.min(opts.maxSteps ?? Infinity, perEpoch * opts.epochs);
    const bar = opts.progress === false ? undefined : new ProgressBar();
    const feeds = opts.feeds ?? ((b: Batch) => ({ x: b.x, labels: b.labels }));
    const losses: FitResult['losses'] = [];
    const lrValue = new Float32Array(1);
    const t0 = performance.now();
    let step = 0;
    outer: for (let epoch = 0; epoch < opts.epochs; epoch++) {
      for (const b of batches(data, features, { batchSize: opts.batchSize, shuffleSeed: opts.shuffleSeed, epoch })) {
        if (step >= total) break outer;
        step++;
        const read = step % logEvery === 0 || step === total;
        const stepFeeds: Record<string, Float32Array | Int32Array> = feeds(b);
        if (opts.lr) {
          lrValue[0] = opts.lr(step - 1, total);
          stepFeeds.lr = lrValue;
        }
        const loss = await this.session.step(stepFeeds, { readLoss: read, ...(opts.detectAnomaly ? { detectAnomaly: true } : {}) });
        if (loss !== undefined) {
          if (!Number.isFinite(loss)) throw new Error(`training diverged: loss is ${loss} at step ${step}`);
          losses.push({ step, loss });
          bar?.update({ step, total, loss, stepsPerSecond: (step * 1000) / (performance.now() - t0), label: `epoch ${epoch + 1}/${opts.epochs}` });
        }
      }
    }
    await this.session.session.sync();
    const ms = performance.now() - t0;
    bar?.done();
    return { steps: step, msPerStep: step ? ms / step : 0, losses };
  }
}

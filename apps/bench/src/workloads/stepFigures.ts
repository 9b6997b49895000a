// What every training-step workload reports: the synced step timing, and its dispatches, memory and e-graph.

import type { TrainingSession } from '@neura/nn';
import type { FeedValue, NeuraDevice } from '@neura/runtime-webgpu';
import { type HostPhaseFigures, HostPhases } from '../hostPhases.js';
import { summarize, type Timing } from '../timing.js';

/** Compile-time figures of a compiled training step. */
export interface StepFigures {
  optimizeMs?: number;
  dispatchesPerStep: number;
  dispatchesUnoptimized?: number;
  bytesAllocated: number;
  bytesIfUnshared: number;
  egraph?: string;
}

/** Feeds of a step loop: a few distinct batches, fed in turn (new data every step, as a data loader gives). */
export type FeedBatches = readonly Record<string, FeedValue>[];

/** Loop lengths of a timed step loop; with `phases` (the session's device) it also records where each step's host time goes. */
export interface StepIters {
  steps: number;
  warmup: number;
  /**
   * Keep warming up (synced steps) until this many ms have passed: the GPU's clocks follow its recent load
   * (H200: the same 2×128 GPT step ran 1.1 or 3.3–4.8 ms depending on what the process ran before), so the
   * timed steps should start in the clock state the loop itself settles to, as a long training run does.
   */
  warmupMs?: number;
  phases?: NeuraDevice;
}

/** A synced step timing, with its host phases when asked. */
export type SyncedTiming = Timing & { phases?: HostPhaseFigures };

/** Reads the figures of a compiled training step. */
export function stepFigures(train: TrainingSession): StepFigures {
  const stats = train.stats;
  return {
    optimizeMs: train.report?.egraph.timeMs,
    dispatchesPerStep: stats.dispatchesPerStep,
    dispatchesUnoptimized: train.report?.dispatchesBefore,
    bytesAllocated: stats.bytesAllocated,
    bytesIfUnshared: stats.bytesIfUnshared,
    egraph: train.report?.summary(),
  };
}

/**
 * Figures of a training step compiled from `t0` on: compile time up to the first finished step, then synced
 * steps; disposes the session.
 */
export async function benchCompiledStep(train: TrainingSession, batches: FeedBatches, t0: number, iters: StepIters): Promise<StepFigures & { synced: SyncedTiming; compileMs: number; firstLoss?: number }> {
  const firstLoss = await train.step(batches[0], { readLoss: true }); // the loss of the initial weights on batch 0
  const compileMs = performance.now() - t0;
  const synced = await timeSyncedSteps(train, batches, iters);
  const r = { synced, compileMs, firstLoss, ...stepFigures(train) };
  train.dispose();
  return r;
}

/**
 * Times steps with the GPU synchronised after each one (as the PyTorch side synchronises CUDA), each step fed
 * the next of `batches`. The bench and the profiler both time steps with this loop.
 */
export async function timeSyncedSteps(train: TrainingSession, batches: FeedBatches, iters: StepIters): Promise<SyncedTiming> {
  let k = 0;
  const step = () => train.step(batches[k++ % batches.length]);
  const sync = () => train.session.sync();
  const w0 = performance.now();
  for (let i = 0; i < iters.warmup || performance.now() - w0 < (iters.warmupMs ?? 0); i++) {
    await step();
    await sync();
  }
  const phases = iters.phases ? new HostPhases(iters.phases) : undefined;
  const samples: number[] = [];
  for (let i = 0; i < iters.steps; i++) {
    if (phases) samples.push(await phases.time(step, sync));
    else {
      const t0 = performance.now();
      await step();
      await sync();
      samples.push(performance.now() - t0);
    }
  }
  const t = summarize(samples);
  if (!phases || !iters.phases) return t;
  const figures = await phases.figures();
  // (Dawn's null backend offers timestamps too, but they measure nothing)
  if (iters.phases.features.has('timestamp-query') && !iters.phases.name.startsWith('null')) {
    // the GPU's share, measured in the same clock state as the loop
    const s = (await train.session.profile(batches[k++ % batches.length])).summary();
    figures.gpuMs = s.gpuMs;
    figures.gpuSpanMs = s.spanMs;
  }
  return { ...t, phases: figures };
}

/** `k` distinct feed batches made by `make(i)`. */
export function feedBatches(k: number, make: (i: number) => Record<string, FeedValue>): FeedBatches {
  return Array.from({ length: k }, (_, i) => make(i));
}

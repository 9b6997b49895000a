// What every training-step workload reports: the synced step timing, and its dispatches, memory and e-graph.

import type { TrainingSession } from '@neura/nn';
import type { FeedValue } from '@neura/runtime-webgpu';
import { type Timing, timeAsync } from '../timing.js';

/** Compile-time figures of a compiled training step. */
export interface StepFigures {
  optimizeMs?: number;
  dispatchesPerStep: number;
  dispatchesUnoptimized?: number;
  bytesAllocated: number;
  bytesIfUnshared: number;
  egraph?: string;
}

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
export async function benchCompiledStep(train: TrainingSession, feeds: Record<string, FeedValue>, t0: number, iters: { steps: number; warmup: number }): Promise<StepFigures & { synced: Timing; compileMs: number; firstLoss?: number }> {
  const firstLoss = await train.step(feeds, { readLoss: true });
  const compileMs = performance.now() - t0;
  const synced = await timeSyncedSteps(train, feeds, iters);
  const r = { synced, compileMs, firstLoss, ...stepFigures(train) };
  train.dispose();
  return r;
}

/** Times steps with the GPU synchronised after each one (as the PyTorch side synchronises CUDA). */
export function timeSyncedSteps(train: TrainingSession, feeds: Record<string, FeedValue>, iters: { steps: number; warmup: number }): Promise<Timing> {
  return timeAsync(
    async () => {
      await train.step(feeds);
      await train.session.sync();
    },
    iters.steps,
    iters.warmup,
  );
}

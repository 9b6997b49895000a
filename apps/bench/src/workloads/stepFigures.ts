// The figures every training-step workload reports besides its timings: dispatches, memory and the e-graph.

import type { TrainingSession } from '@neura/nn';

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

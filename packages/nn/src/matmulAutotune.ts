// The per-shape matmul level below the whole-step measured mode: `compileTraining`/`compileInference` take a
// measured table (`matmulTuning`) and/or `autotune`, which tunes the compiled graph's matmul shapes on the device
// (runtime's `tuneMatmul`) and keeps the choices in a per-adapter cache, so a second compile reads them and
// measures nothing. Neither given: the runtime's shipped table for the adapter and driver where one exists
// (runtime-webgpu shippedMatmulTuning.ts), else the heuristic. The cache's choices (`default` included) override
// shipped entries; `matmulTuning` overrides both.

import type { Graph } from '@neura/ir';
import type { NeuraDevice, Precision, TuneMatmulOptions, TuneMatmulResult } from '@neura/runtime-webgpu';
import type { MatmulTuning } from '@neura/wgsl-kernels';
import { TrainingStepError } from './errors.js';

/** `autotune` option: how to measure (candidates, repeats) and where choices are kept (`cache`, e.g. fileTuningCache). */
export type AutotuneOptions = TuneMatmulOptions;

/** The table to compile `graph` with: `autotune`'s measured (or cached) choices, then `matmulTuning`'s entries over them. */
export async function matmulTuningFor(
  graph: Graph,
  device: NeuraDevice,
  opts: { readonly matmulTuning?: MatmulTuning; readonly autotune?: AutotuneOptions; readonly precision?: Precision },
  who: string,
): Promise<{ tuning?: MatmulTuning; autotuned?: TuneMatmulResult }> {
  if (!opts.autotune) return opts.matmulTuning ? { tuning: opts.matmulTuning } : {};
  if (opts.precision === 'mixed') throw new TrainingStepError(`${who}: autotune measures fp32 matmul tilings; it cannot be combined with precision 'mixed'`);
  const { matmulShapesOf, tuneMatmul } = await import('./lazyTools.js'); // the tuner loads only when asked for
  const autotuned = await tuneMatmul(device, matmulShapesOf(graph), opts.autotune);
  return { tuning: { ...autotuned.tuning, ...opts.matmulTuning }, autotuned };
}

// The GPT training-step workloads (the same shapes as python/reference.py's): token ids and targets fed each
// step, AdamW, the whole step compiled once and replayed; timed like the MLP workloads.

import { optimize } from '@neura/egraph';
import type { Graph } from '@neura/ir';
import { autocast, buildTrainingStep, compileTraining, GPT, type GptConfig, recognizedForward, type TrainingSession } from '@neura/nn';
import { adamW } from '@neura/optim';
import { compile, type NeuraDevice, type Precision } from '@neura/runtime-webgpu';
import type { DeviceCaps, KernelGenerator } from '@neura/wgsl-kernels';
import { type Timing, timeSessionSteps } from '../timing.js';
import { benchCompiledStep, type FeedBatches, feedBatches, type StepFigures, type StepIters, type SyncedTiming } from './stepFigures.js';

/** One GPT workload. */
export interface GptWorkload {
  name: string;
  config: GptConfig & { batch: number };
}

/** The GPT workloads of the bench issue (vocab 65: a character-level vocabulary). */
export const GPT_WORKLOADS: GptWorkload[] = [
  { name: 'gpt-2x128-ctx64-b16-adamw', config: { layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65, attention: 'op', gelu: 'tanh' } },
  { name: 'gpt-6x384-ctx256-b64-adamw', config: { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65, attention: 'op', gelu: 'tanh' } },
];

/** `k` distinct batches of token ids and next-token targets for workload `w`. */
export function gptBatches(w: GptWorkload, k = 4): FeedBatches {
  const c = w.config;
  const n = c.batch * c.context;
  // decomposed attention masks in-graph, as the op does: no mask feed
  return feedBatches(k, (b) => ({
    tokens: Int32Array.from({ length: n }, (_, i) => (i * 31 + 7 + b * 13) % c.vocab),
    targets: Int32Array.from({ length: n }, (_, i) => (i * 17 + 3 + b * 5) % c.vocab),
  }));
}

/** The static loss scale of mixed-precision GPT steps: keeps the mean loss's small gradients in f16's normal range. */
export const MIXED_LOSS_SCALE = 1024;

/**
 * Builds and compiles one GPT training step, with the feeds of its steps (mixed precision: loss scaled by
 * MIXED_LOSS_SCALE; `autocast`: compileTraining's option, unset for its default).
 */
export async function buildGpt(w: GptWorkload, device: NeuraDevice, precision: Precision = 'fp32', autocast?: boolean): Promise<{ train: TrainingSession; batches: FeedBatches }> {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  const mixed = precision === 'mixed' ? { lossScale: MIXED_LOSS_SCALE, ...(autocast === undefined ? {} : { autocast }) } : {};
  const train = await compileTraining(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device, precision, ...mixed });
  return { train, batches: gptBatches(w) };
}

/**
 * The GPT training step as `compileTraining` builds it under `precision: 'mixed'` (autocast's f16 storage), with the
 * bench's static loss scale, optimized for `caps`: the graph a bench compiles with its own kernel generator.
 */
export function mixedGptStep(w: GptWorkload, caps: DeviceCaps): Graph {
  const built = new GPT(w.config).trainingGraph(w.config.batch);
  const fwd = recognizedForward(built.graph, built.loss);
  const cast = autocast(fwd.graph, fwd.loss);
  buildTrainingStep(cast.graph, { loss: cast.loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), lossScale: MIXED_LOSS_SCALE });
  return optimize(cast.graph, { limits: caps }).graph;
}

/**
 * The same step compiled with a given kernel generator (sweeps: a tiled-matmul or flash configuration for the
 * whole step), through `compile` directly; times synced steps.
 */
export async function timeGptWith(w: GptWorkload, device: NeuraDevice, generator: KernelGenerator, iters: { steps: number; warmup: number }, precision: Precision = 'fp32'): Promise<Timing> {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  const { graph } = optimize(g, { limits: device.caps });
  const session = await compile(graph, device, { label: `${w.name}-variant`, generator, precision });
  const batches = gptBatches(w);
  const t = await timeSessionSteps(session, batches, iters.steps, iters.warmup);
  session.dispose();
  return t;
}

/** Builds, compiles and times one GPT training step. */
export async function benchGpt(w: GptWorkload, device: NeuraDevice, iters: StepIters, precision: Precision = 'fp32'): Promise<StepFigures & { synced: SyncedTiming; compileMs: number; firstLoss?: number }> {
  const t0 = performance.now();
  const { train, batches } = await buildGpt(w, device, precision);
  return benchCompiledStep(train, batches, t0, iters);
}

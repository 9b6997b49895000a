// Loss scaling of a training step, static or dynamic with PyTorch GradScaler's semantics, built into the step graph:
// the backward is seeded with the scale, gradients are multiplied by its inverse before accumulation, clipping and
// the optimizer, and (dynamic) a non-finite gradient skips the update and halves the scale; `growthInterval` finite
// updates in a row double it (torch/cuda/amp/grad_scaler.py, `_amp_update_scale_`).
// Why on the GPU: the step is one submission and reads nothing back unless asked, so the finite check, the skip and
// the scale update are graph ops: the scale and its growth tracker are f32 state (`gradScaler.scale`,
// `gradScaler.growthTracker`, saved in checkpoints like optimizer moments), and every optimizer update (params,
// moments, step counters) is guarded by `where(allFinite, new, old)` — a selection, so a skipped step leaves the state
// bit for bit as it was. The existing host mechanisms (anomaly mode, the Trainer's loss readback) cost a readback
// per step and are debug/logging paths, not a per-step control flow. Cost: one small reduction per gradient (the
// finite check; a multi-tensor reduction archetype, as PyTorch's foreach kernel, would make it one) plus a few
// scalar kernels; the guards fuse into the optimizer's update kernels.

import type { Graph, Tensor } from '@neura/ir';

/** Dynamic loss scaling (PyTorch `torch.cuda.amp.GradScaler`); every field defaults to PyTorch's value. */
export interface DynamicLossScale {
  /** The first scale (default 2^16). */
  readonly initScale?: number;
  /** The scale is multiplied by this after `growthInterval` finite updates in a row (default 2, > 1). */
  readonly growthFactor?: number;
  /** The scale is multiplied by this on a step with a non-finite gradient (default 0.5, in (0, 1)). */
  readonly backoffFactor?: number;
  /** Finite updates in a row before the scale grows (default 2000, a positive integer ≤ 2^24). */
  readonly growthInterval?: number;
}

/**
 * Loss scaling of a training step: `'dynamic'` (PyTorch GradScaler's defaults), a `DynamicLossScale`, or a number
 * (a static power-of-two scale: no finite check, no skipping).
 */
export type LossScale = 'dynamic' | DynamicLossScale | number;

/** The state names of the dynamic scaler (f32 scalars; a checkpoint without them restores their defaults). */
export const GRAD_SCALER_STATE = { scale: 'gradScaler.scale', growthTracker: 'gradScaler.growthTracker' } as const;

/** A validated loss-scaling policy. */
export type ScalerConfig =
  | { readonly kind: 'static'; readonly scale: number }
  | { readonly kind: 'dynamic'; readonly initScale: number; readonly growthFactor: number; readonly backoffFactor: number; readonly growthInterval: number };

/** The scaler's state as `TrainingSession.lossScale()` reads it. */
export interface LossScaleState {
  /** The scale the next step's backward is seeded with (1 without loss scaling). */
  readonly scale: number;
  /** Finite updates in a row since the last growth or skip (always 0 unless dynamic). */
  readonly growthTracker: number;
  /** Whether the scale adapts (dynamic loss scaling) or is static. */
  readonly dynamic: boolean;
}

/** The largest finite f32: a value above it in magnitude (or NaN, whose comparisons are false) is not finite. */
const F32_MAX = 3.4028234663852886e38;

/** Checks a `lossScale` option and fills in PyTorch's defaults; undefined (or the static scale 1) means no scaling. */
export function resolveLossScale(opt: LossScale | undefined): ScalerConfig | undefined {
  if (opt === undefined) return undefined;
  if (typeof opt === 'number') {
    if (!(opt > 0 && Number.isFinite(opt) && 2 ** Math.round(Math.log2(opt)) === opt))
      throw new RangeError(`compileTraining: lossScale must be a positive power of two, got ${opt} (or 'dynamic', or { initScale, growthFactor, backoffFactor, growthInterval })`);
    return opt === 1 ? undefined : { kind: 'static', scale: opt };
  }
  const o: DynamicLossScale = opt === 'dynamic' ? {} : opt;
  if (typeof o !== 'object' || o === null) throw new RangeError(`compileTraining: lossScale must be a number, 'dynamic' or an object, got ${JSON.stringify(opt)}`);
  const known = ['initScale', 'growthFactor', 'backoffFactor', 'growthInterval'];
  for (const k of Object.keys(o)) if (!known.includes(k)) throw new RangeError(`compileTraining: lossScale has no option '${k}' (known: ${known.join(', ')})`);
  const initScale = o.initScale ?? 2 ** 16;
  const growthFactor = o.growthFactor ?? 2;
  const backoffFactor = o.backoffFactor ?? 0.5;
  const growthInterval = o.growthInterval ?? 2000;
  if (!(typeof initScale === 'number' && initScale > 0 && initScale <= F32_MAX)) throw new RangeError(`compileTraining: lossScale.initScale must be a positive finite f32 number, got ${initScale}`);
  if (!(typeof growthFactor === 'number' && growthFactor > 1 && Number.isFinite(growthFactor))) throw new RangeError(`compileTraining: lossScale.growthFactor must be a finite number > 1, got ${growthFactor}`);
  if (!(typeof backoffFactor === 'number' && backoffFactor > 0 && backoffFactor < 1)) throw new RangeError(`compileTraining: lossScale.backoffFactor must be in (0, 1), got ${backoffFactor}`);
  // the tracker is an f32 counter: exact up to 2^24
  if (!(Number.isInteger(growthInterval) && growthInterval >= 1 && growthInterval <= 2 ** 24))
    throw new RangeError(`compileTraining: lossScale.growthInterval must be an integer in [1, 2^24], got ${growthInterval}`);
  return { kind: 'dynamic', initScale, growthFactor, backoffFactor, growthInterval };
}

/** The scale the backward is seeded with: a constant (static) or the `gradScaler.scale` state (dynamic). */
export function scaleTensor(graph: Graph, cfg: ScalerConfig): Tensor {
  if (cfg.kind === 'static') return graph.constant(cfg.scale, []);
  return graph.state(GRAD_SCALER_STATE.scale, [], { kind: 'fill', value: cfg.initScale });
}

/** Multiplies every gradient by `1/scale` (PyTorch's `unscale_`: one reciprocal, then a product per element). */
export function unscale(graph: Graph, grads: readonly Tensor[], scale: Tensor, cfg: ScalerConfig): Tensor[] {
  const inv = cfg.kind === 'static' ? 1 / cfg.scale : graph.div(1, scale);
  return grads.map((g) => graph.mul(g, inv));
}

/** A bool scalar: every element of every gradient is finite (the count of the others is 0). */
export function allFinite(graph: Graph, grads: readonly Tensor[]): Tensor {
  // |g| ≤ F32_MAX is false for ±Infinity and for NaN (IEEE comparisons with NaN are false)
  const bad = grads.map((g) => graph.sum(graph.where(graph.le(graph.abs(g), F32_MAX), 0, 1)));
  // summed once more as a reduction so that the flag is one computed scalar: left a chain of adds, the pointwise
  // fusion inlines it into every guarded update, whose many scalar operands then keep the optimizer's updates out
  // of one multi-tensor kernel (a small GPT: 86 dispatches instead of 70; unscaled 47)
  const total = graph.sum(graph.reshape(bad.reduce((a, b) => graph.add(a, b)), [1]));
  return graph.lt(total, 0.5);
}

/**
 * The dynamic scaler's end of the step: guards the optimizer's updates from `firstUpdate` on with `finite` (a
 * skipped step keeps every param and optimizer state), and appends the scale and growth-tracker updates (under
 * accumulation the caller guards these too, so that they take effect only on the applying micro-batch).
 */
export function guardAndUpdateScale(graph: Graph, cfg: ScalerConfig & { kind: 'dynamic' }, scale: Tensor, finite: Tensor, firstUpdate: number): void {
  for (let i = firstUpdate; i < graph.updates.length; i++) {
    const u = graph.updates[i];
    graph.updates[i] = { state: u.state, value: graph.where(finite, graph.get(u.value), graph.get(u.state)).id };
  }
  const tracker = graph.state(GRAD_SCALER_STATE.growthTracker, []);
  // _amp_update_scale_: on a non-finite step scale *= backoff and the tracker resets; else the tracker counts, and at
  // growthInterval the scale grows (only if the grown scale is still finite) and the tracker resets
  const counted = graph.add(tracker, 1);
  const grow = graph.ge(counted, cfg.growthInterval - 0.5);
  const grown = graph.mul(scale, cfg.growthFactor);
  const finiteScale = graph.where(grow, graph.where(graph.le(grown, F32_MAX), grown, scale), scale);
  const nextScale = graph.where(finite, finiteScale, graph.mul(scale, cfg.backoffFactor));
  const nextTracker = graph.where(finite, graph.where(grow, 0, counted), 0);
  graph.update(scale, nextScale);
  graph.update(tracker, nextTracker);
}

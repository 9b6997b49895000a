// compileTraining: forward graph + loss → the whole training step (forward, backward, optimizer update) as
// one graph, optimized by the e-graph, compiled once for a device. The session then replays the step as one
// GPU submission. Nothing here fuses: what runs is exactly what the e-graph's extraction chose.
// The step is optimized once, after differentiation and the update (see egraph's optimize.ts), with the
// device's limits, so the e-graph never picks a kernel `compile` would refuse.

import { grad } from '@neura/autograd';
import type { OptimizeReport } from '@neura/egraph';
import type { Graph, Node, Tensor, TensorValue } from '@neura/ir';
import { clipGradNorm, type Optimizer } from '@neura/optim';
import { capsFor, type FeedValue, type NeuraDevice, type Precision, type Session, type SessionStats, type TuneMatmulResult } from '@neura/runtime-webgpu';
import type { Measurement, MeasureOptions } from './chooseStep.js';
import type { MatmulTuning } from '@neura/wgsl-kernels';
import type { AutotuneOptions } from './matmulAutotune.js';
import { type CompiledStep, compileStep } from './compileStep.js';
import type { PlanCache, PlanStats } from './planCache.js';
import { allFinite, GRAD_SCALER_STATE, guardAndUpdateScale, type LossScale, type LossScaleState, resolveLossScale, scaleTensor, unscale } from './gradScaler.js';
import { TrainingStepError } from './errors.js';
import { autocastFor } from './mixedStorage.js';
import type { BatchInputs } from './batchFeeds.js';
import { compilableState, graphStateTypes, type LoadStateDictOptions, sessionStateDict } from './stateDict.js';

/** Options of `compileTraining`. */
export interface TrainingOptions extends StepOptions {
  /** The scalar loss node of the forward graph. */
  loss: Tensor;
  /** The device to compile for (from `createDevice`). */
  device: NeuraDevice;
  /** Run the e-graph optimizer (default true); false compiles the step exactly as differentiated. */
  optimize?: boolean;
  /**
   * Bytes the step may allocate on the device (egraph's `optimize({ memoryBudget })`): over it, the optimizer
   * schedules for memory and recomputes forward values in the backward instead of storing them, or throws a
   * MemoryBudgetError naming the smallest plan it found. The budget is met by ir's estimate, which leaves out kernel
   * scratch (split-K partial sums of matmuls whose partials are not folded into the update): the allocation can exceed
   * it by that much. `session.stats.bytesAllocated` reports what was allocated.
   */
  memoryBudget?: number;
  /** Starting values of params/state by name (e.g. from a checkpoint). */
  initialState?: Record<string, TensorValue>;
  /**
   * Debug mode (PyTorch's `detect_anomaly`): every step reads back its loss and all params/state and throws an
   * `AnomalyError` at the first non-finite one, naming the step and the first kernel whose output went
   * non-finite, after undoing that step. Costs two state readbacks per step (and a debug compile on failure);
   * off by default, and then nothing of it runs. `step(feeds, { detectAnomaly })` sets it per step.
   */
  detectAnomaly?: boolean;
  /**
   * Choose the plan by measurement (opt-in): candidate plans are compiled, checked and timed as whole steps on
   * this batch, the fastest correct one kept; the decision is cached per adapter and step graph (see chooseStep.ts).
   */
  measure?: MeasureOptions;
  /**
   * `fp32` (default, the reference) or `mixed`; params, their gradients and optimizer state stay f32 under both.
   * Where the adapter has tensor-core matmuls (`chromium-experimental-subgroup-matrix` with f16, `shader-f16`,
   * `subgroups`), activations and their gradients are stored as f16 (autocast) and matmuls take f16 operands on them,
   * accumulating in f32 (`autocast: false` keeps every tensor f32 in memory). Where it has `shader-f16` only (the
   * portable path: browsers today), activations and their gradients are stored as f16 (autocast) and the fp32 tiled
   * kernels read them, accumulating in f32. Without
   * `shader-f16`: a PrecisionError. In Node, create the device with `createDevice({ mixedPrecision: true })`.
   */
  precision?: Precision;
  /**
   * Under `precision: 'mixed'`: store activations as f16 where autocast's policy says so (autocast.ts); the default
   * under `mixed`, as in PyTorch. On tensor cores `false` keeps every tensor f32 in memory and matmuls round their
   * operands to f16 as they stage them: slower and bigger (GPT 6x384, H100, 2026-12-07, one command: 29.51 ms and
   * 4.47 GB against 27.34 ms and 3.13 GB with f16 storage). On the portable path (`shader-f16`, no subgroup
   * matrices) f16 storage is what `mixed` means: `false` is a PrecisionError. With `precision: 'fp32'`, `true` is a
   * PrecisionError.
   */
  autocast?: boolean;
  /**
   * Measured matmul choices (runtime's `tuneMatmul`): listed shapes run their tiling, others the shipped heuristic;
   * an entry that does not fit the device is a KernelError. Entries here win over `autotune`'s, and both over the
   * runtime's shipped table for this adapter and driver.
   */
  matmulTuning?: MatmulTuning;
  /** Whether the runtime's shipped matmul table for this adapter and driver applies (default true; fp32 only: `true` with `precision: 'mixed'` is an error). */
  shippedMatmulTuning?: boolean;
  /**
   * Tune the compiled step's matmul shapes on the device before compiling (fp32 only), keeping choices in
   * `autotune.cache` per adapter: a second compile with the same cache reads them and measures nothing.
   */
  autotune?: AutotuneOptions;
  /**
   * Where optimized plans are kept across compiles (memoryPlanCache, indexedDbPlanCache, filePlanCache from
   * @neura/nn/node): a second compile of the same step for the same device limits and options reads the plan and
   * runs no e-graph; `stats.planFromCache` says which happened. A corrupt or mismatched entry is warned about and
   * recomputed.
   */
  planCache?: PlanCache;
  /**
   * The inputs whose axis 0 is the batch (names, or names with `{ pad, sequence }`): the step is compiled at their
   * batch B and then takes any b ≤ B rows, padded inside `step` (no recompile); the loss and its gradients are
   * those of the b real rows (a mean divides by b). Refused (BatchSizeError, naming the op) when padded rows would
   * change the loss, e.g. BatchNorm in training mode. See the README's "Batch sizes".
   */
  batchInputs?: BatchInputs;
}

/** Options of one `TrainingSession.step`. */
export interface TrainingStepOptions {
  /** Resolve with the loss (read back after the GPU finishes). */
  readLoss?: boolean;
  /** Check this step for non-finite values (default: the session's `detectAnomaly`); see `TrainingOptions`. */
  detectAnomaly?: boolean;
}

/** A compiled training step. */
export interface TrainingSession {
  /** Runs one step and resolves with its loss once the GPU finishes. */
  step(feeds: Record<string, FeedValue>, opts: TrainingStepOptions & { readLoss: true }): Promise<number>;
  /** Runs one step; with `readLoss` the promise resolves with the loss after the GPU finishes. */
  step(feeds: Record<string, FeedValue>, opts?: TrainingStepOptions): Promise<number | undefined>;
  /** The step graph as compiled (after optimization). */
  readonly graph: Graph;
  /** The e-graph report (undefined when optimization was off). */
  readonly report?: OptimizeReport;
  /** What the measured mode did (only with `measure`). */
  readonly measurement?: Measurement;
  /** What `autotune` did: the table compiled with, per-shape choices and timings, shapes measured (only with `autotune`). */
  readonly autotuned?: TuneMatmulResult;
  /** Dispatches per step, bytes allocated, …, and whether the plan came from `planCache` (only with one). */
  readonly stats: SessionStats & PlanStats;
  /** Micro-batches per optimizer update the step was built with (`accumulate`, default 1). */
  readonly accumulate: number;
  /** With `batchInputs`: the compiled batch size (a step takes up to this many rows) and the batch-major inputs. */
  readonly batch?: {
    /** The compiled batch size B: a step takes 1 to B rows. */
    readonly rows: number;
    /** The inputs whose axis 0 is the batch. */
    readonly inputs: readonly string[];
  };
  /** The loss scaler's current scale and growth tracker (reads them back when dynamic; 1 without scaling). */
  lossScale(): Promise<LossScaleState>;
  /** The underlying runtime session (read/write state, dispose). */
  readonly session: Session;
  /** Current values of all trainable parameters, by name. */
  readParams(): Promise<Record<string, TensorValue>>;
  /** The model's parameters and buffers (not the optimizer's state), by name: feed it to an eval graph. */
  stateDict(): Promise<Record<string, TensorValue>>;
  /** Overwrites parameters and buffers after checking names, shapes and dtypes; on any mismatch nothing is written. */
  loadStateDict(values: Record<string, TensorValue>, opts?: LoadStateDictOptions): Promise<void>;
  /** Frees the session's GPU buffers; the session cannot run afterwards. */
  dispose(): void;
}

/** The scalar f32 input a step built with `accumulate > 1` reads: 1 on the micro-batch that applies the update, else 0. */
export const ACCUMULATE_INPUT = 'applyUpdate';

/** A set of params with its own optimizer (its own learning rate, weight decay, …). */
export interface ParamGroup {
  /** Param names, or a predicate on them. */
  readonly params: readonly string[] | ((name: string) => boolean);
  /** Its optimizer; two groups with optimizers of one kind need distinct `name`s (their state names). */
  readonly optimizer: Optimizer;
}

/** How the step is built from the loss. */
export interface StepOptions {
  /** The scalar loss node of the forward graph. */
  loss: Tensor;
  /** The optimizer of every param (or use `groups`). */
  optimizer?: Optimizer;
  /** Param groups, each with its optimizer; every param must be in exactly one. */
  groups?: readonly ParamGroup[];
  /**
   * Micro-batches per update (default 1): gradients are averaged in `accumulate/<param>` state and the optimizer's
   * updates apply only when the input `applyUpdate` is 1 (the Trainer feeds it), so N micro-batches of B equal one
   * batch of N·B under a mean loss.
   */
  accumulate?: number;
  /** Clip the (accumulated) gradients to this global L2 norm before the optimizer. */
  clipGradNorm?: number;
  /**
   * Loss scaling (see gradScaler.ts): the backward pass starts from the scale instead of 1 and each gradient is
   * multiplied by its inverse before accumulation, clipping and the optimizer; the reported loss is unscaled. For
   * `precision: 'mixed'`, where matmuls round their operands to f16, small gradients would lose bits or vanish.
   * - `'dynamic'` or `{ initScale, growthFactor, backoffFactor, growthInterval }` (defaults 2^16, 2, 0.5, 2000):
   *   PyTorch's GradScaler, on the GPU. A step whose gradients hold Inf/NaN is skipped (params and optimizer state
   *   bit-identical) and the scale multiplied by `backoffFactor`; `growthInterval` finite steps in a row multiply it
   *   by `growthFactor`. The scale and its tracker are state (`gradScaler.*`), saved in checkpoints.
   * - a power of two: a static scale (no check, no skip); exact in f32 short of overflow.
   * Default: `'dynamic'` under `compileTraining`'s `precision: 'mixed'` (as PyTorch pairs GradScaler with autocast),
   * none otherwise; `buildTrainingStep` scales only when asked.
   */
  lossScale?: LossScale;
}

/**
 * Appends the training step to a forward graph: outputs `loss`, differentiates it with respect to every param,
 * accumulates and clips the gradients if asked, and lets the optimizer(s) append their updates. The one way a
 * step is built (compileTraining calls it; so do benchmarks that only optimize the graph). Returns the params.
 */
export function buildTrainingStep(graph: Graph, opts: StepOptions): Node<'param'>[] {
  const { loss } = opts;
  if (loss.shape.length !== 0) throw new TrainingStepError(`compileTraining: loss must be a scalar, got shape [${loss.shape.join(', ')}]`);
  graph.output('loss', loss);
  const params = graph.leaves('param');
  if (params.length === 0)
    throw new TrainingStepError(
      'compileTraining: the graph has no parameters to train (a frozen parameter is built as state: if you froze the model with freeze() or requiresGrad(false), unfreeze() some of it before building the graph)',
    );
  const names = params.map((p) => p.attrs.name);
  const groups = groupsOf(names, opts);
  const acc = opts.accumulate ?? 1;
  if (!(Number.isInteger(acc) && acc >= 1)) throw new RangeError(`compileTraining: accumulate must be a positive integer, got ${acc}`);
  const scaler = resolveLossScale(opts.lossScale);
  const scale = scaler && scaleTensor(graph, scaler);
  let grads: Tensor[] = scaler && scale ? unscale(graph, grad(graph, loss, params, { seed: scale }), scale, scaler) : grad(graph, loss, params);
  let apply: Tensor | undefined;
  if (acc > 1) {
    apply = graph.gt(graph.input(ACCUMULATE_INPUT, [], 'f32'), 0.5);
    grads = grads.map((g, i) => {
      const sum = graph.state(`accumulate/${names[i]}`, g.shape);
      const next = graph.add(sum, graph.mul(g, 1 / acc));
      graph.update(sum, graph.where(apply as Tensor, 0, next)); // reset once the update is applied
      return next;
    });
  }
  // checked before clipping, as PyTorch's `unscale_` finds Inf before `clip_grad_norm_` (which would spread NaN)
  const finite = scaler?.kind === 'dynamic' ? allFinite(graph, grads) : undefined;
  if (opts.clipGradNorm !== undefined) grads = clipGradNorm(graph, grads, opts.clipGradNorm);
  const firstUpdate = graph.updates.length;
  for (const { optimizer, members } of groups)
    optimizer.apply(
      graph,
      members.map((i) => params[i]),
      members.map((i) => grads[i]),
    );
  if (scaler?.kind === 'dynamic' && scale && finite) guardAndUpdateScale(graph, scaler, scale, finite, firstUpdate);
  if (apply) {
    // the optimizer's updates (params, moments, step counters) and the scaler's take effect only on the applying micro-batch
    for (let i = firstUpdate; i < graph.updates.length; i++) {
      const u = graph.updates[i];
      graph.updates[i] = { state: u.state, value: graph.where(apply, graph.get(u.value), graph.get(u.state)).id };
    }
  }
  return params;
}

/** Assigns every param to exactly one optimizer. */
function groupsOf(names: readonly string[], opts: StepOptions): { optimizer: Optimizer; members: number[] }[] {
  if (!opts.groups) {
    if (!opts.optimizer) throw new TrainingStepError('compileTraining: give an optimizer or parameter groups');
    return [{ optimizer: opts.optimizer, members: names.map((_, i) => i) }];
  }
  if (opts.optimizer) throw new TrainingStepError('compileTraining: give either an optimizer or parameter groups, not both');
  const owner = new Map<number, number>();
  const out = opts.groups.map((grp, gi) => {
    const has = typeof grp.params === 'function' ? grp.params : (n: string) => (grp.params as readonly string[]).includes(n);
    if (typeof grp.params !== 'function') for (const n of grp.params) if (!names.includes(n)) throw new TrainingStepError(`compileTraining: group ${gi} names '${n}', which is not a param of the graph`);
    const members: number[] = [];
    names.forEach((n, i) => {
      if (!has(n)) return;
      if (owner.has(i)) throw new TrainingStepError(`compileTraining: '${n}' is in parameter groups ${owner.get(i)} and ${gi}`);
      owner.set(i, gi);
      members.push(i);
    });
    return { optimizer: grp.optimizer, members };
  });
  const orphans = names.filter((_, i) => !owner.has(i));
  if (orphans.length) throw new TrainingStepError(`compileTraining: params in no parameter group: ${orphans.join(', ')}`);
  return out.filter((grp) => grp.members.length > 0);
}

/**
 * Builds, optimizes and compiles the training step of `graph`. The graph is not changed: the step (backward and
 * update nodes) is built on a copy, which the session's `graph` shows (optimized unless `optimize: false`).
 * Throws a `TrainingStepError` for a non-scalar loss, no params or conflicting options.
 *
 * @example
 * ```ts
 * const g = new Graph();
 * const x = g.input('x', [32, 784]);
 * const labels = g.input('labels', [32], 'i32');
 * const loss = g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels);
 * const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device: await createDevice() });
 * const l = await train.step({ x: images, labels: digits }, { readLoss: true });  // one GPU submission
 * ```
 */
export async function compileTraining(forward: Graph, opts: TrainingOptions): Promise<TrainingSession> {
  const { device } = opts;
  // before any work: an impossible precision (or autocast option) fails here
  const f16Storage = autocastFor(capsFor(device, opts.precision), opts.precision, opts.autocast, 'compileTraining');
  // hand-written attention becomes the fused op before grad, so its backward is fused too (recognizedForward.ts;
  // its rules load on demand with the optimizer: onDemand.ts; autocast below loads with the opt-in features: optIn.ts)
  let { graph, loss } = opts.optimize === false ? { graph: forward.clone(), loss: opts.loss } : (await import('./onDemand.js')).recognizedForward(forward, opts.loss);
  // any batch up to the compiled one: padded rows masked out of the loss (batchMask.ts), feeds padded in `step`
  // (batchInputs, measure and detectAnomaly are opt-in: their code loads on demand, optIn.ts)
  const padder = opts.batchInputs && new (await import('./optIn.js')).BatchPadder(graph, opts.batchInputs);
  if (padder) ({ graph, loss } = (await import('./optIn.js')).maskedBatchGraph(graph, loss, padder.names, padder.rows));
  // f16 storage: casts placed by autocast's policy before grad, so the backward stores f16 gradients of f16 tensors
  if (f16Storage) ({ graph, loss } = (await import('./optIn.js')).autocast(graph, loss));
  const modelTypes = graphStateTypes(graph); // before the optimizer adds its own state
  const lossScale = opts.lossScale ?? (opts.precision === 'mixed' ? 'dynamic' : undefined);
  const scaler = resolveLossScale(lossScale);
  const params = buildTrainingStep(graph, { ...opts, loss, lossScale });

  if (opts.planCache && opts.measure) throw new TrainingStepError("compileTraining: planCache keeps the optimizer's plan; it cannot be combined with measure (which keeps its own decision cache)");
  const initialState = (plan: Graph) => compilableState(opts.initialState, modelTypes, plan);
  let compiled: CompiledStep;
  let measurement: Measurement | undefined;
  if (opts.measure) {
    if (opts.optimize === false) throw new TrainingStepError('compileTraining: measure chooses among optimized plans; it cannot be combined with optimize: false');
    if (opts.memoryBudget !== undefined) throw new TrainingStepError('compileTraining: measure chooses among plans optimized without a memory budget; it cannot be combined with memoryBudget');
    if (opts.matmulTuning || opts.autotune) throw new TrainingStepError('compileTraining: measure compiles its candidate plans with the shipped matmul choices (the adapter\'s shipped table, else the heuristic); it cannot be combined with matmulTuning or autotune');
    const measure = padder ? { ...opts.measure, feeds: { ...padder.pad(opts.measure.feeds) } } : opts.measure;
    const { chooseStep } = await import('./optIn.js');
    ({ measurement, ...compiled } = await chooseStep(graph, device, measure, { initialState, label: 'train-step', precision: opts.precision }));
  } else compiled = await compileStep(graph, { ...opts, initialState, label: 'train-step', who: 'compileTraining' });
  const { graph: step, report, session, autotuned, fromCache: planFromCache } = compiled;
  const paramNames = params.map((p) => p.attrs.name);
  let steps = 0;
  async function runStep(given: Record<string, FeedValue>, o: TrainingStepOptions = {}): Promise<number | undefined> {
    const feeds = padder ? padder.pad(given) : given;
    const number = ++steps;
    if (o.detectAnomaly ?? opts.detectAnomaly) return (await import('./optIn.js')).anomalyStep(session, step, device, feeds, number);
    const r = await session.step(feeds, o.readLoss ? { read: ['loss'] } : {});
    return o.readLoss ? r.outputs.loss.data[0] : undefined;
  }
  return {
    graph: step,
    report,
    ...(measurement ? { measurement } : {}),
    ...(autotuned ? { autotuned } : {}),
    session,
    accumulate: opts.accumulate ?? 1,
    ...(padder ? { batch: { rows: padder.rows, inputs: padder.names } } : {}),
    get stats() {
      return opts.planCache ? { ...session.stats, planFromCache } : session.stats;
    },
    step: runStep as TrainingSession['step'], // the overloads' one implementation: a loss whenever readLoss is set
    async lossScale() {
      if (scaler?.kind !== 'dynamic') return { scale: scaler?.scale ?? 1, growthTracker: 0, dynamic: false };
      const [sc, tr] = await Promise.all([session.read(GRAD_SCALER_STATE.scale), session.read(GRAD_SCALER_STATE.growthTracker)]);
      return { scale: sc.data[0], growthTracker: tr.data[0], dynamic: true };
    },
    async readParams() {
      const out: Record<string, TensorValue> = {};
      for (const n of paramNames) out[n] = await session.read(n);
      return out;
    },
    ...sessionStateDict(graph, modelTypes, session, 'TrainingSession.loadStateDict', opts.initialState),
    dispose: () => session.dispose(),
  };
}

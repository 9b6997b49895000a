// Trainer: the loop around a compiled training step, for any dataset — seeded mini-batches (the last partial
// batch fed as is to a step compiled with `batchInputs`, else dropped or wrapped into the next epoch's order:
// compiled shapes are static), a learning-rate policy fed
// as the scalar input `lr`, gradient accumulation through the step's `applyUpdate` input (build the step with
// `accumulate`), dropout offsets fed from the Trainer's Rng, a validation loop with metrics (a partial last
// validation batch is padded and the padding not counted), callbacks, periodic checkpoints and resume (the data
// order and the Rng continue exactly, so a resumed run is bit-identical), a progress bar and JSON lines.
// The loss is read back only every `logEvery` steps, so the GPU is not stalled each step.

import { type Checkpoint, encodeCheckpoint, restoreCheckpoint } from './checkpoint/checkpoint.js';
import type { InferenceSession } from './compileInference.js';
import { ACCUMULATE_INPUT, type TrainingSession } from './compileTraining.js';
import type { Batch } from './data/batches.js';
import { DivergenceError } from './errors.js';
import { DROPOUT_OFFSET } from './layers/dropout.js';
import type { Metric } from './metrics.js';
import { ProgressBar } from './progressBar.js';
import { Rng } from './rng.js';
import { type LrPolicy, ReduceLrOnPlateau } from './schedule.js';

/** Feeds of one step by input name. */
export type Feeds = Record<string, Float32Array | Int32Array>;

/** A dataset for the Trainer: `length` examples, and the feeds holding a batch of them (buffers may be reused). */
export interface Dataset {
  readonly length: number;
  /** The feeds holding examples `indices`, in order (`indices.length` is the batch size, less for a partial last batch). */
  batch(indices: Int32Array): Feeds;
}

/** An in-memory dataset of named fields with `perExample` values each (e.g. `x`: 784, `labels`: 1). */
export function tensorDataset(fields: Record<string, { data: Float32Array | Int32Array; perExample: number }>): Dataset {
  const entries = Object.entries(fields);
  if (entries.length === 0) throw new RangeError('tensorDataset: no fields');
  const length = entries[0][1].data.length / entries[0][1].perExample;
  for (const [name, f] of entries)
    if (!(Number.isInteger(f.perExample) && f.perExample > 0) || f.data.length !== length * f.perExample)
      throw new RangeError(`tensorDataset: field '${name}' has ${f.data.length} values, expected ${length} examples × ${f.perExample}`);
  const bufs = new Map<number, Feeds>();
  return {
    length,
    batch(indices) {
      let out = bufs.get(indices.length);
      if (!out) {
        out = Object.fromEntries(entries.map(([n, f]) => [n, f.data instanceof Int32Array ? new Int32Array(indices.length * f.perExample) : new Float32Array(indices.length * f.perExample)]));
        bufs.set(indices.length, out);
      }
      for (const [n, f] of entries) {
        const k = f.perExample;
        for (let b = 0; b < indices.length; b++) out[n].set(f.data.subarray(indices[b] * k, (indices[b] + 1) * k), b * k);
      }
      return out;
    },
  };
}

/** What callbacks see. */
export interface StepInfo {
  /** Optimizer updates done. */
  readonly step: number;
  /** Completed epochs. */
  readonly epoch: number;
  readonly totalSteps: number;
  /** The loss, when it was read back at this step. */
  readonly loss?: number;
  readonly lr?: number;
}

/** Hooks into the loop; returning `'stop'` (or a promise of it) ends training after the current step. */
export interface Callback {
  onStepEnd?(info: StepInfo): unknown;
  onEpochEnd?(info: StepInfo): unknown;
  onEvaluate?(info: StepInfo & { metrics: Readonly<Record<string, number>> }): unknown;
}

/** The validation loop: an inference session over the same parameter names, its data and metrics. */
export interface Validation {
  readonly session: InferenceSession;
  readonly data: Dataset;
  /** The validation session's compiled batch size. */
  readonly batchSize: number;
  readonly metrics: readonly Metric[];
  /** Evaluate every this many steps (default: after each epoch, and at the end). */
  readonly every?: number;
}

/** Options of `Trainer.fit`. */
export interface FitOptions {
  epochs: number;
  batchSize: number;
  /** Stop after this many optimizer updates in total (default: all batches of all epochs). */
  maxSteps?: number;
  /** Read the loss every this many steps (default 50). */
  logEvery?: number;
  /** Seed of the shuffle and the dropout offsets (default 0); `shuffleSeed` is its older name. */
  seed?: number;
  shuffleSeed?: number;
  /** Reshuffle the examples every epoch (default: true when `seed` or `shuffleSeed` is given, as before). */
  shuffle?: boolean;
  /**
   * The last partial batch of an epoch: fed as is (`partial`, the default for a step compiled with `batchInputs`:
   * its loss is the mean over its rows), dropped (`drop`, the default otherwise) or completed from the next epoch's
   * order (`wrap`). Under `accumulate`, a partial micro-batch counts as a whole one in the average.
   */
  lastBatch?: 'drop' | 'wrap' | 'partial';
  /** Show a progress bar on stderr (default true). */
  progress?: boolean;
  /** Receives one JSON line per logged step and per evaluation (e.g. `console.log`). */
  jsonLines?: (line: string) => void;
  /** Learning rate per step (a schedule or a ReduceLrOnPlateau), fed as the scalar input `lr`. */
  lr?: LrPolicy;
  /** Micro-batches per optimizer update (default 1); the step must be compiled with the same `accumulate`. */
  accumulate?: number;
  validation?: Validation;
  callbacks?: readonly Callback[];
  /** Encode a checkpoint every `every` steps and at the end, and hand it to `save`. */
  checkpoint?: { every: number; save(bytes: Uint8Array, step: number): void | Promise<void> };
  /** Resume from a checkpoint a Trainer saved: params, optimizer state, step, Rng and data position. */
  resume?: Checkpoint;
  /** Check every step for a non-finite loss or parameter and throw an `AnomalyError` at the first (debug; slower). */
  detectAnomaly?: boolean;
  /** Legacy `fit(images, features, opts)` only: maps an {x, labels} batch to feeds. */
  feeds?: (b: Batch) => Feeds;
}

/** What a fit returns. */
export interface FitResult {
  /** Optimizer updates done (counting those before a resume). */
  steps: number;
  /** Wall time per update in this run, GPU synchronised at the end. */
  msPerStep: number;
  /** Loss values read during training, with their step. */
  losses: { step: number; loss: number }[];
  /** Validation metrics at each evaluation. */
  evaluations: { step: number; metrics: Record<string, number> }[];
}

/** The example order: a stream of indices, reshuffled per epoch from (seed, epoch) so any position can be replayed. */
class IndexStream {
  private order: Int32Array;
  private pos = 0;
  private epoch = 0;
  constructor(
    private readonly n: number,
    private readonly mode: 'drop' | 'wrap' | 'partial',
    private readonly shuffle: boolean,
    private readonly seed: number,
  ) {
    this.order = this.orderOf(0);
  }
  private orderOf(epoch: number): Int32Array {
    const o = Int32Array.from({ length: this.n }, (_, i) => i);
    return this.shuffle ? new Rng((Math.imul(this.seed, 7919) + epoch) >>> 0).shuffle(o) : o;
  }
  private advance(): void {
    this.order = this.orderOf(++this.epoch);
    this.pos = 0;
  }
  /** Fills `idx` with the next batch; returns how many it filled (fewer than `idx.length` only for a `partial` last batch). */
  next(idx: Int32Array): number {
    if (this.pos === this.n || (this.mode === 'drop' && this.pos + idx.length > this.n)) this.advance();
    const count = this.mode === 'partial' ? Math.min(idx.length, this.n - this.pos) : idx.length;
    for (let b = 0; b < count; b++) {
      if (this.pos === this.n) this.advance();
      idx[b] = this.order[this.pos++];
    }
    return count;
  }
}

/** The older `fit` input: images of `features` values each and their i32 labels. */
interface ImageSet {
  count: number;
  images: Float32Array;
  labels: Int32Array;
}

const isImageSet = (d: Dataset | ImageSet): d is ImageSet => 'images' in d && !('batch' in d);

/** Runs training steps of a compiled session over a dataset. */
export class Trainer {
  constructor(readonly session: TrainingSession) {}

  /** Trains on any Dataset; or, as before, on `{ count, images, labels }` with `features` values per image. */
  fit(data: Dataset, opts: FitOptions): Promise<FitResult>;
  fit(data: ImageSet, features: number, opts: FitOptions): Promise<FitResult>;
  fit(data: Dataset | ImageSet, a: FitOptions | number, b?: FitOptions): Promise<FitResult> {
    if (!isImageSet(data)) {
      if (typeof a === 'number') throw new TypeError('Trainer.fit: fit(dataset, options) takes no feature count (that is fit({ count, images, labels }, features, options))');
      return this.run(data, a);
    }
    if (typeof a !== 'number' || b === undefined) throw new TypeError('Trainer.fit: { count, images, labels } needs the features per image: fit(data, features, options)');
    const ds = tensorDataset({ x: { data: data.images, perExample: a }, labels: { data: data.labels, perExample: 1 } });
    const map = b.feeds;
    return this.run(map ? { length: ds.length, batch: (i) => { const f = ds.batch(i); return map({ x: f.x as Float32Array, labels: f.labels as Int32Array }); } } : ds, b);
  }

  /** One pass over a validation set: every example once (a partial last batch padded, its padding not counted). */
  static async evaluate(v: Validation): Promise<Record<string, number>> {
    for (const m of v.metrics) m.reset();
    const idx = new Int32Array(v.batchSize);
    const inputs = new Set(v.session.graph.leaves('input').map((n) => n.attrs.name));
    for (let start = 0; start < v.data.length; start += v.batchSize) {
      const real = Math.min(v.batchSize, v.data.length - start);
      for (let i = 0; i < v.batchSize; i++) idx[i] = start + Math.min(i, real - 1);
      const feeds = v.data.batch(idx);
      const out = await v.session.run(Object.fromEntries(Object.entries(feeds).filter(([n]) => inputs.has(n)))); // labels stay on the host
      for (const m of v.metrics) m.update(out, feeds, real, v.batchSize);
    }
    return Object.fromEntries(v.metrics.map((m) => [m.name, m.value()]));
  }

  private async run(data: Dataset, opts: FitOptions): Promise<FitResult> {
    const fit = new FitRun(this.session, data, opts);
    if (opts.resume) await fit.resume(opts.resume);
    return fit.loop();
  }
}

/**
 * One `fit`: its settings checked once, the data order, the feeds it fills, and what it collected. `loop` runs
 * optimizer updates (each `accumulate` micro-batches) until the total, a callback's stop, or an error.
 */
class FitRun {
  private readonly batchSize: number;
  private readonly acc: number;
  /** Micro-batches per epoch (fractional with `lastBatch: 'wrap'`). */
  private readonly perEpoch: number;
  private readonly total: number;
  private readonly inputs: Set<string>;
  private readonly rng: Rng;
  private readonly stream: IndexStream;
  private readonly idx: Int32Array;
  private readonly lrFeed = new Float32Array(1);
  private readonly applyFeed = new Float32Array(1);
  private readonly offsetFeed = new Int32Array(1);
  private readonly losses: FitResult['losses'] = [];
  private readonly evaluations: FitResult['evaluations'] = [];
  private bar?: ProgressBar;
  private step = 0;

  constructor(
    private readonly session: TrainingSession,
    private readonly data: Dataset,
    private readonly opts: FitOptions,
  ) {
    const B = (this.batchSize = opts.batchSize);
    const acc = (this.acc = opts.accumulate ?? 1);
    const mode = opts.lastBatch ?? (session.batch ? 'partial' : 'drop');
    if (!(Number.isInteger(B) && B >= 1)) throw new RangeError(`Trainer: batchSize must be a positive integer, got ${B}`);
    if (!(Number.isInteger(acc) && acc >= 1)) throw new RangeError(`Trainer: accumulate must be a positive integer, got ${acc}`);
    this.inputs = new Set(session.graph.leaves('input').map((n) => n.attrs.name));
    // the step scales each micro-batch's gradient by 1/accumulate and applies on the last: the counts must agree
    if (acc !== session.accumulate) throw new RangeError(`Trainer: accumulate ${acc} needs a step compiled with { accumulate: ${acc} } (this one has ${session.accumulate})`);
    if (mode === 'partial' && !session.batch) throw new RangeError("Trainer: lastBatch 'partial' needs a step compiled with batchInputs (one that takes fewer rows than compiled)");
    if (session.batch && B > session.batch.rows) throw new RangeError(`Trainer: batchSize ${B} is more than the ${session.batch.rows} rows the step was compiled for`);
    if (mode === 'drop' && data.length < B)
      throw new RangeError(`Trainer.fit: ${data.length} examples are fewer than one batch of ${B}: no step would run (incomplete batches are dropped; lastBatch: 'wrap' repeats examples)`);
    this.perEpoch = mode === 'wrap' ? data.length / B : mode === 'partial' ? Math.ceil(data.length / B) : Math.floor(data.length / B);
    this.total = Math.min(opts.maxSteps ?? Number.POSITIVE_INFINITY, Math.floor(Math.ceil(this.perEpoch * opts.epochs) / acc));
    const seed = opts.seed ?? opts.shuffleSeed;
    this.rng = new Rng(seed ?? 0);
    this.stream = new IndexStream(data.length, mode, opts.shuffle ?? seed !== undefined, seed ?? 0);
    this.idx = new Int32Array(B);
  }

  /** Restores params, optimizer state, step and Rng from a Trainer checkpoint, and replays the data order to it. */
  async resume(c: Checkpoint): Promise<void> {
    await restoreCheckpoint(this.session, c);
    this.step = c.step;
    if (c.rng.trainer === undefined) throw new RangeError('Trainer: the checkpoint has no trainer Rng state (was it saved by a Trainer?)');
    this.rng.setState(c.rng.trainer);
    for (let m = 0; m < this.step * this.acc; m++) this.stream.next(this.idx);
  }

  async loop(): Promise<FitResult> {
    const { opts } = this;
    this.bar = opts.progress === false ? undefined : new ProgressBar();
    const t0 = performance.now();
    const first = this.step;
    let stopped = false;
    while (this.step < this.total && !stopped) {
      const { loss, lr } = await this.update();
      this.step++;
      if (loss !== undefined) this.logLoss(loss, lr, ((this.step - first) * 1000) / (performance.now() - t0));
      stopped = await this.afterUpdate(loss, lr);
    }
    await this.session.session.sync();
    if (opts.validation && this.evaluations.at(-1)?.step !== this.step) await this.validate();
    if (opts.checkpoint && this.step % opts.checkpoint.every !== 0) await this.save();
    const ms = performance.now() - t0;
    this.bar?.done();
    const { step, losses, evaluations } = this;
    return { steps: step, msPerStep: step > first ? ms / (step - first) : 0, losses, evaluations };
  }

  private epochOf(micro: number): number {
    return Math.floor(micro / this.perEpoch);
  }

  /** One optimizer update: `accumulate` micro-batches; the loss is read back on the last one every `logEvery` steps. */
  private async update(): Promise<{ loss?: number; lr?: number }> {
    const { opts, acc } = this;
    const read = (this.step + 1) % (opts.logEvery ?? 50) === 0 || this.step + 1 === this.total;
    let loss: number | undefined;
    let lr: number | undefined;
    for (let k = 0; k < acc; k++) {
      const count = this.stream.next(this.idx);
      const feeds: Feeds = { ...this.data.batch(count === this.idx.length ? this.idx : this.idx.subarray(0, count)) };
      if (opts.lr) {
        lr = this.lrFeed[0] = opts.lr instanceof ReduceLrOnPlateau ? opts.lr.value : opts.lr(this.step, this.total);
        feeds.lr = this.lrFeed;
      }
      if (this.inputs.has(DROPOUT_OFFSET)) {
        this.offsetFeed[0] = this.rng.int(1 << 30);
        feeds[DROPOUT_OFFSET] = this.offsetFeed;
      }
      if (this.inputs.has(ACCUMULATE_INPUT)) {
        this.applyFeed[0] = k === acc - 1 ? 1 : 0;
        feeds[ACCUMULATE_INPUT] = this.applyFeed;
      }
      loss = await this.session.step(feeds, { readLoss: read && k === acc - 1, ...(opts.detectAnomaly ? { detectAnomaly: true } : {}) });
    }
    return { loss, lr };
  }

  /** Records a loss read back after an update (a non-finite one ends the run) on the bar and as a JSON line. */
  private logLoss(loss: number, lr: number | undefined, stepsPerSecond: number): void {
    const { step, opts } = this;
    if (!Number.isFinite(loss)) throw new DivergenceError(step, loss);
    const epoch = this.epochOf(step * this.acc);
    this.losses.push({ step, loss });
    this.bar?.update({ step, total: this.total, loss, stepsPerSecond, label: `epoch ${Math.min(epoch + 1, opts.epochs)}/${opts.epochs}` });
    opts.jsonLines?.(JSON.stringify({ event: 'step', step, epoch, loss, ...(lr === undefined ? {} : { lr }) }));
  }

  /** Callbacks, validation and checkpoint after an update; whether a callback asked to stop. */
  private async afterUpdate(loss: number | undefined, lr: number | undefined): Promise<boolean> {
    const { step, opts } = this;
    const epoch = this.epochOf(step * this.acc);
    const info = { step, epoch, totalSteps: this.total, loss, lr };
    let stopped = await this.fire('onStepEnd', info);
    const epochEnded = epoch > this.epochOf((step - 1) * this.acc);
    if (epochEnded && (await this.fire('onEpochEnd', info))) stopped = true;
    const v = opts.validation;
    if (v && (v.every ? step % v.every === 0 : epochEnded) && (await this.validate())) stopped = true;
    if (opts.checkpoint && step % opts.checkpoint.every === 0) await this.save();
    return stopped;
  }

  /** Calls `hook` on every callback (all of them, in order); whether any returned `'stop'`. */
  private async fire<K extends keyof Callback>(hook: K, info: Parameters<NonNullable<Callback[K]>>[0]): Promise<boolean> {
    let stop = false;
    for (const c of this.opts.callbacks ?? []) if ((await (c[hook] as ((i: typeof info) => unknown) | undefined)?.call(c, info)) === 'stop') stop = true;
    return stop;
  }

  /** Evaluates the validation set with the current params; whether an `onEvaluate` callback asked to stop. */
  private async validate(): Promise<boolean> {
    const v = this.opts.validation;
    if (!v) return false;
    const { step, opts } = this;
    await v.session.loadStateDict(await this.session.stateDict());
    const metrics = await Trainer.evaluate(v);
    this.evaluations.push({ step, metrics });
    const epoch = this.epochOf(step * this.acc);
    opts.jsonLines?.(JSON.stringify({ event: 'eval', step, epoch, ...metrics }));
    if (opts.lr instanceof ReduceLrOnPlateau) opts.lr.observe(metrics[opts.lr.metric] ?? Number.NaN);
    return this.fire('onEvaluate', { step, epoch, totalSteps: this.total, metrics });
  }

  /** Hands a checkpoint (state, step, the Trainer's Rng) to `checkpoint.save`. */
  private async save(): Promise<void> {
    const c = this.opts.checkpoint;
    if (!c) return;
    await c.save(encodeCheckpoint(await this.session.session.readState(), { step: this.step, rng: { trainer: this.rng.state } }), this.step);
  }
}

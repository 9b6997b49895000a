// Learning-rate schedules: plain functions of the step, evaluated on the host and fed to the step graph as
// the scalar input `lr` (so changing the rate never recompiles and costs one 4-byte write per step).

/** A learning rate as a function of the 0-based step and the total number of steps. */
export type Schedule = (step: number, total: number) => number;

/** A constant rate. */
export function constantLr(lr: number): Schedule {
  return () => lr;
}

/**
 * Linear warm-up then cosine decay, as nanoGPT's `get_lr` (decay to the last step): steps 0..warmup−1 rise as
 * lr·(step + 1)/(warmup + 1), step `warmup` is the one peak at `lr`, and the last step (total − 1) is `finalLr`.
 */
export function cosineLr(lr: number, opts: { warmup?: number; finalLr?: number } = {}): Schedule {
  const warmup = opts.warmup ?? 0;
  const finalLr = opts.finalLr ?? 0;
  if (!(Number.isInteger(warmup) && warmup >= 0)) throw new RangeError(`cosineLr: warmup must be a non-negative integer, got ${warmup}`);
  return (step, total) => {
    if (step < warmup) return (lr * (step + 1)) / (warmup + 1);
    const span = total - 1 - warmup; // steps after the peak; the last of them is at finalLr
    const t = span > 0 ? (step - warmup) / span : step > warmup ? 1 : 0;
    return finalLr + 0.5 * (lr - finalLr) * (1 + Math.cos(Math.PI * Math.min(1, t)));
  };
}

/** Step decay: `lr · gamma^⌊step / stepSize⌋` (PyTorch's StepLR). */
export function stepLr(lr: number, stepSize: number, gamma = 0.1): Schedule {
  if (!(Number.isInteger(stepSize) && stepSize >= 1)) throw new RangeError(`stepLr: stepSize must be a positive integer, got ${stepSize}`);
  return (step) => lr * gamma ** Math.floor(step / stepSize);
}

/**
 * One-cycle policy (PyTorch's OneCycleLR, cosine annealing): from maxLr/divFactor up to maxLr over the first
 * `pctStart` of the run, then down to maxLr/(divFactor·finalDivFactor).
 */
export function oneCycleLr(maxLr: number, opts: { pctStart?: number; divFactor?: number; finalDivFactor?: number } = {}): Schedule {
  const pct = opts.pctStart ?? 0.3;
  const initial = maxLr / (opts.divFactor ?? 25);
  const min = initial / (opts.finalDivFactor ?? 1e4);
  const cos = (from: number, to: number, t: number) => to + ((from - to) / 2) * (Math.cos(Math.PI * Math.min(1, Math.max(0, t))) + 1);
  return (step, total) => {
    const up = pct * total - 1;
    if (step <= up) return cos(initial, maxLr, up > 0 ? step / up : 1);
    const down = total - 1 - up;
    return cos(maxLr, min, down > 0 ? (step - up) / down : 1);
  };
}

/**
 * Reduce-on-plateau (PyTorch's ReduceLROnPlateau, mode 'min', relative threshold): after more than `patience`
 * evaluations without improving on the best value by `threshold` (relative), the rate is multiplied by
 * `factor` (not below `minLr`). The Trainer feeds `value` and calls `observe` with the validation metric.
 */
export class ReduceLrOnPlateau {
  /** The current learning rate. */
  value: number;
  /** The validation metric it watches (default 'loss'). */
  readonly metric: string;
  private best = Number.POSITIVE_INFINITY;
  private bad = 0;
  private readonly factor: number;
  private readonly patience: number;
  private readonly threshold: number;
  private readonly minLr: number;

  constructor(lr: number, opts: { factor?: number; patience?: number; threshold?: number; minLr?: number; metric?: string } = {}) {
    this.value = lr;
    this.factor = opts.factor ?? 0.1;
    this.patience = opts.patience ?? 10;
    this.threshold = opts.threshold ?? 1e-4;
    this.minLr = opts.minLr ?? 0;
    this.metric = opts.metric ?? 'loss';
    if (!(this.factor > 0 && this.factor < 1)) throw new RangeError(`ReduceLrOnPlateau: factor must be in (0, 1), got ${this.factor}`);
  }

  /** Records one evaluation of the watched metric (lower is better); returns the rate to use next. */
  observe(x: number): number {
    if (x < this.best * (1 - this.threshold)) {
      this.best = x;
      this.bad = 0;
    } else if (++this.bad > this.patience) {
      this.value = Math.max(this.value * this.factor, this.minLr);
      this.bad = 0;
    }
    return this.value;
  }
}

/** A learning rate the Trainer can feed: a schedule of the step, or a plateau policy driven by validation. */
export type LrPolicy = Schedule | ReduceLrOnPlateau;

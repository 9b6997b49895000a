// Learning-rate schedules: plain functions of the step, evaluated on the host and fed to the step graph as
// the scalar input `lr` (so changing the rate never recompiles and costs one 4-byte write per step).

/** A learning rate as a function of the 0-based step and the total number of steps. */
export type Schedule = (step: number, total: number) => number;

/** A constant rate. */
export function constantLr(lr: number): Schedule {
  return () => lr;
}

/** Cosine decay from `lr` to `finalLr` over the run, after `warmup` steps of linear warm-up. */
export function cosineLr(lr: number, opts: { warmup?: number; finalLr?: number } = {}): Schedule {
  const warmup = opts.warmup ?? 0;
  const finalLr = opts.finalLr ?? 0;
  return (step, total) => {
    if (step < warmup) return (lr * (step + 1)) / warmup;
    const t = total > warmup ? (step - warmup) / (total - warmup) : 1;
    return finalLr + 0.5 * (lr - finalLr) * (1 + Math.cos(Math.PI * Math.min(1, t)));
  };
}

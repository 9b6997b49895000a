// Typed errors of building and running a training step that have no more specific home (state dicts,
// checkpoints and anomalies keep theirs beside their code): callers can tell a bad step setup or a diverged run
// from a bug. Each message names the option or the step.

/**
 * A training step that cannot be built: a non-scalar loss, no params, parameter groups that do not cover the
 * params, conflicting options, or (under `measure`) no candidate plan that agrees with the reference.
 */
export class TrainingStepError extends Error {
  /** `'TrainingStepError'` (overridden by subclasses). */
  override readonly name: string = 'TrainingStepError';
}

/** The loss went non-finite during `Trainer.fit` (`step` is the step that produced it). */
export class DivergenceError extends Error {
  /** Always `'DivergenceError'`. */
  override readonly name: string = 'DivergenceError';
  constructor(
    /** The optimizer step (1-based) whose loss was non-finite. */
    readonly step: number,
    /** The non-finite loss value. */
    readonly loss: number,
  ) {
    super(`training diverged: loss is ${loss} at step ${step}`);
  }
}

/**
 * A batch size a step cannot take: a feed with more rows than compiled, feeds of different batch sizes, or (at
 * compile time, under `batchInputs`) a step whose loss padded rows would change, naming the op responsible.
 */
export class BatchSizeError extends Error {
  /** Always `'BatchSizeError'`. */
  override readonly name: string = 'BatchSizeError';
}

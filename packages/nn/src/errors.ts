// Typed errors of building and running a training step that have no more specific home (state dicts,
// checkpoints and anomalies keep theirs beside their code): callers can tell a bad step setup or a diverged run
// from a bug. Each message names the option or the step.

/** Options that cannot make a training step: no params, a non-scalar loss, parameter groups that do not cover the params. */
export class TrainingStepError extends Error {
  override readonly name: string = 'TrainingStepError';
}

/** The loss went non-finite during `Trainer.fit` (`step` is the step that produced it). */
export class DivergenceError extends Error {
  override readonly name: string = 'DivergenceError';
  constructor(
    readonly step: number,
    readonly loss: number,
  ) {
    super(`training diverged: loss is ${loss} at step ${step}`);
  }
}

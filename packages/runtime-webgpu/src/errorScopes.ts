// Error scopes of one compile. The device's error scopes are a stack shared by everything on it: a scope must
// never stay open across an `await`, or a concurrent compile or step pops it and takes our errors (issue 9,
// item 7). So each synchronous stretch of GPU calls gets its own pair of scopes, closed before the next await,
// and `check` awaits every pair and throws the first error.

import { GpuValidationError } from './errors.js';

/** The out-of-memory and validation scopes around the synchronous stretches of a compile. */
export class ErrorScopes {
  private readonly pending: Promise<GPUError | null>[] = [];
  private open = false;

  constructor(private readonly gpu: GPUDevice) {}

  /** Pushes a pair of scopes (before a synchronous stretch of GPU calls). */
  begin(): void {
    this.gpu.pushErrorScope('out-of-memory');
    this.gpu.pushErrorScope('validation');
    this.open = true;
  }

  /** Pops the open pair (before an `await`); nothing when none is open. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.pending.push(this.gpu.popErrorScope(), this.gpu.popErrorScope());
  }

  /** Ends the open pair and throws a `GpuValidationError` naming `phase` if any scope caught an error. */
  async check(phase: string): Promise<void> {
    this.end();
    const err = (await Promise.all(this.pending.splice(0))).find((e) => e);
    if (err) throw new GpuValidationError(phase, err.message);
  }
}

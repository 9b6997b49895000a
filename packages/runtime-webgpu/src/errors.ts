// Typed errors of the WebGPU runtime: what a user sees when a feed is wrong, a kernel does not compile, the
// device rejects a command, or the device is lost. Must not import GPU objects' state: plain data only.
// Invariant: every message names the thing at fault (input, kernel label, limit) and the values involved.

/** A feed or state value does not match what the compiled graph expects (name, shape, dtype, length). */
export class InputError extends Error {
  override readonly name = 'InputError';
  /** The input (or param/state) name at fault. */
  readonly input: string;
  constructor(input: string, message: string) {
    super(message);
    this.input = input;
  }
}

/** One WGSL diagnostic: 1-based line and column, as `GPUCompilationMessage` reports them. */
export interface WgslDiagnostic {
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

/** WGSL that the device rejected: names the kernel, each error at line:col, and the source around it. */
export class KernelCompileError extends Error {
  override readonly name = 'KernelCompileError';
  /** Label of the dispatch (e.g. `matmul[32x784x128]`) and the graph node it came from. */
  readonly kernel: string;
  readonly diagnostics: readonly WgslDiagnostic[];
  readonly source: string;
  constructor(kernel: string, diagnostics: readonly WgslDiagnostic[], source: string, cause?: unknown) {
    super(`${kernel}: WGSL failed to compile\n${diagnostics.map((d) => `${d.line}:${d.col} error: ${d.message}\n${excerpt(source, d.line, d.col)}`).join('\n')}`, { cause });
    this.kernel = kernel;
    this.diagnostics = diagnostics;
    this.source = source;
  }
}

/** A validation (or out-of-memory / internal) error raised by WebGPU, with where the runtime was at the time. */
export class GpuValidationError extends Error {
  override readonly name = 'GpuValidationError';
  /** What the runtime was doing: `compile`, `step 12`, `read 'loss'`, `uncaptured`. */
  readonly phase: string;
  constructor(phase: string, message: string) {
    super(`WebGPU error during ${phase}: ${message}`);
    this.phase = phase;
  }
}

/** The GPU device was lost (driver reset, destroyed, out of memory); every later call fails with this. */
export class DeviceLostError extends Error {
  override readonly name = 'DeviceLostError';
  /** `GPUDeviceLostInfo.reason`: `destroyed` or `unknown`. */
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(`WebGPU device lost (${reason})${message ? `: ${message}` : ''}`);
    this.reason = reason;
  }
}

/** Three lines of source around `line` (1-based) with a caret under `col`. */
export function excerpt(source: string, line: number, col: number): string {
  const lines = source.split('\n');
  const out: string[] = [];
  for (let l = Math.max(1, line - 2); l <= Math.min(lines.length, line + 1); l++) {
    out.push(`${String(l).padStart(4)} | ${lines[l - 1]}`);
    if (l === line) out.push(`     | ${' '.repeat(Math.max(0, col - 1))}^`);
  }
  return out.join('\n');
}

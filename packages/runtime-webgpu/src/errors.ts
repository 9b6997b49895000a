// Typed errors of the WebGPU runtime: what a user sees when a feed is wrong, a kernel does not compile, the
// device rejects a command, or the device is lost. Must not import GPU objects' state: plain data only.
// Invariant: every message names the thing at fault (input, kernel label, limit) and the values involved.

/** A feed or state value does not match what the compiled graph expects (name, shape, dtype, length). */
export class InputError extends Error {
  /** Always `'InputError'`. */
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
  /** 1-based line in the WGSL source. */
  readonly line: number;
  /** 1-based column. */
  readonly col: number;
  /** The compiler's message. */
  readonly message: string;
}

/** WGSL that the device rejected: names the kernel, each error at line:col, and the source around it. */
export class KernelCompileError extends Error {
  /** Always `'KernelCompileError'`. */
  override readonly name = 'KernelCompileError';
  /** Label of the dispatch (e.g. `matmul[32x784x128]`) and the graph node it came from. */
  readonly kernel: string;
  /** Every error and warning the compiler reported. */
  readonly diagnostics: readonly WgslDiagnostic[];
  /** The rejected WGSL source. */
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
  /** Always `'GpuValidationError'`. */
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
  /** Always `'DeviceLostError'`. */
  override readonly name = 'DeviceLostError';
  /** `GPUDeviceLostInfo.reason`: `destroyed` or `unknown`. */
  readonly reason: string;
  constructor(reason: string, message: string, options?: ErrorOptions) {
    super(`WebGPU device lost (${reason})${message ? `: ${message}` : ''}`, options);
    this.reason = reason;
  }
}

/** Why no WebGPU device could be had: no WebGPU API here, no adapter behind it, or the adapter refused the device. */
export type WebGpuUnavailableReason = 'no-webgpu' | 'no-adapter' | 'device-refused';

/**
 * WebGPU is not usable here (`createDevice`): `reason` says which step failed, the message what was tried and what to
 * do (e.g. enable WebGPU in the browser, install a Vulkan driver, or use the reference interpreter on the CPU).
 */
export class WebGpuUnavailableError extends Error {
  /** Always `'WebGpuUnavailableError'`. */
  override readonly name = 'WebGpuUnavailableError';
  constructor(
    /** Which step failed (no `navigator.gpu`/Dawn, no adapter, no device, …). */
    readonly reason: WebGpuUnavailableReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** How long a failed mapping waits for `device.lost` to say whether the device went away (it settles a little later). */
const LOSS_GRACE_MS = 100;

/**
 * The error a call should surface for `e`: a mapping aborted because the device was destroyed or lost mid-call
 * (Dawn rejects `mapAsync` with a bare AbortError/OperationError, before `device.lost` settles) becomes the
 * DeviceLostError it is, with `e` as its cause; any other error is returned unchanged, at once.
 */
export async function asDeviceLoss(e: unknown, device: { readonly gpu: GPUDevice; readonly destroyed: boolean }): Promise<unknown> {
  const name = (e as { name?: unknown } | null)?.name;
  if (name !== 'AbortError' && name !== 'OperationError') return e;
  if (device.destroyed) return new DeviceLostError('destroyed', 'NeuraDevice.destroy() was called while this call ran', { cause: e });
  const info = await Promise.race([device.gpu.lost, new Promise<undefined>((r) => setTimeout(r, LOSS_GRACE_MS, undefined))]);
  return info ? new DeviceLostError(info.reason, info.message, { cause: e }) : e;
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

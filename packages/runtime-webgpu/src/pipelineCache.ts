// The pipeline cache: one compute pipeline per distinct WGSL source and binding layout, created once and
// asynchronously; a compile already in flight is shared, not repeated. Must not create anything per step.
// Invariant: layouts are explicit (never 'auto'); every object is labelled; a WGSL error becomes a
// KernelCompileError with line:col and the source excerpt, checked through getCompilationInfo().

import type { Binding } from '@neura/wgsl-kernels';
import { KernelCompileError, type WgslDiagnostic } from './errors.js';

/** A compiled kernel: its pipeline and the bind group layout its bind groups must use. */
export interface CachedPipeline {
  /** The compute pipeline. */
  readonly pipeline: GPUComputePipeline;
  /** The bind group layout its bind groups must use. */
  readonly layout: GPUBindGroupLayout;
}

/** What a dispatch needs compiled: its WGSL, its bindings (for the layout) and a label. */
export interface PipelineRequest {
  /** Label for errors and profiles. */
  readonly label: string;
  /** The WGSL source. */
  readonly code: string;
  /** The kernel's bindings, in binding order. */
  readonly bindings: readonly Binding[];
}

/** Compiles WGSL into compute pipelines once per (source, layout), deduplicating compiles in flight. */
export class PipelineCache {
  private readonly pipelines = new Map<string, Promise<CachedPipeline>>();
  private readonly layouts = new Map<string, GPUBindGroupLayout>();
  /** Requests served from the cache (or from a compile in flight). */
  hits = 0;

  constructor(private readonly device: GPUDevice) {}

  /** Number of distinct pipelines created or in flight. */
  get size(): number {
    return this.pipelines.size;
  }

  /** The bind group layout for a binding list (read → read-only-storage, read_write → storage). */
  layoutFor(bindings: readonly Binding[]): GPUBindGroupLayout {
    const sig = signatureOf(bindings);
    let layout = this.layouts.get(sig);
    if (!layout) {
      layout = this.device.createBindGroupLayout({
        label: `neura.layout[${sig}]`,
        entries: bindings.map((b, i) => ({
          binding: i,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: b.source.kind === 'literals' ? 'uniform' : b.access === 'read' ? 'read-only-storage' : 'storage' },
        })),
      });
      this.layouts.set(sig, layout);
    }
    return layout;
  }

  /** The pipeline for a dispatch: cached, shared while in flight, or compiled now. */
  get(req: PipelineRequest): Promise<CachedPipeline> {
    const sig = signatureOf(req.bindings);
    const key = `${sig}\n${req.code}`;
    const hit = this.pipelines.get(key);
    if (hit) {
      this.hits++;
      return hit;
    }
    const p = this.compile(req);
    this.pipelines.set(key, p);
    // a failed compile must not poison the cache for a later retry
    p.catch(() => this.pipelines.delete(key));
    return p;
  }

  private async compile(req: PipelineRequest): Promise<CachedPipeline> {
    // each synchronous call gets its own error scope, popped at once: a scope held across an await would
    // collect the errors of whatever else runs on the device meanwhile (issue 9, item 7)
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: req.label, code: req.code });
    const moduleError = this.device.popErrorScope().catch(() => null);
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length) throw new KernelCompileError(req.label, errors.map(diagnostic), req.code);
    const invalid = await moduleError;
    if (invalid) throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: invalid.message }], req.code);
    this.device.pushErrorScope('validation');
    const layout = this.layoutFor(req.bindings);
    const pipelineLayout = this.device.createPipelineLayout({ label: req.label, bindGroupLayouts: [layout] });
    const layoutError = await this.device.popErrorScope();
    if (layoutError) throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: `pipeline layout: ${layoutError.message}` }], req.code);
    try {
      const pipeline = await this.device.createComputePipelineAsync({
        label: req.label,
        layout: pipelineLayout,
        compute: { module, entryPoint: 'main' },
      });
      return { pipeline, layout };
    } catch (e) {
      // GPUPipelineError (e.g. a layout that does not match the shader's bindings, a limit exceeded)
      const message = e instanceof Error ? e.message : String(e);
      throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: `pipeline creation failed: ${message}` }], req.code, e);
    }
  }
}

/** A layout's key: per binding `u` (uniform literals), `r` (read-only storage) or `w` (read-write storage). */
function signatureOf(bindings: readonly Binding[]): string {
  return bindings.map((b) => (b.source.kind === 'literals' ? 'u' : b.access === 'read' ? 'r' : 'w')).join('');
}

function diagnostic(m: GPUCompilationMessage): WgslDiagnostic {
  return { line: m.lineNum, col: m.linePos, message: m.message };
}

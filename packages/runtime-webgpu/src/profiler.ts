// GPU timestamps per dispatch: in profile mode a step's dispatches are encoded one compute pass each, with
// pass-level `timestampWrites` (begin, end) into query sets, resolved after the pass and read back once the step
// is done. The results are `DispatchTiming`s (stepProfile.ts builds the table and the trace from them).
// Profile mode is a diagnostic: it allocates its query sets and buffers per profiled step (never in plain
// steps), and one pass per dispatch adds a few µs per dispatch of gaps (the span), not inside each dispatch.
// Needs the `timestamp-query` feature: without it, a clear ProfilerError says so (NEURA_PROFILE: a warning, once).

import type { RecordedDispatch } from './compiledStep.js';
import type { NeuraDevice } from './device.js';
import { type DispatchTiming, type RooflineCeilings, chromeTrace, profileTable, type StepProfileSummary, summarizeProfile } from './stepProfile.js';

/** Profiling was asked for but cannot run (missing `timestamp-query`, or bad NEURA_PROFILE). */
export class ProfilerError extends Error {
  /** Always `'ProfilerError'`. */
  override readonly name = 'ProfilerError';
}

/** WebGPU's largest query set (`GPUQuerySetDescriptor.count` ≤ 4096). */
const MAX_QUERIES = 4096;

/** Throws a ProfilerError unless the device can write timestamps. */
export function checkProfilable(device: NeuraDevice): void {
  if (!device.features.has('timestamp-query'))
    throw new ProfilerError(
      `profiling needs the 'timestamp-query' feature, which this adapter (${device.name}) does not offer; features: ${[...device.features].join(', ') || 'none'}`,
    );
}

/** Records one step's dispatches with timestamps; `read()` after the submit returns the timings. */
export class DispatchTimer {
  private readonly sets: GPUQuerySet[] = [];
  private readonly resolve: GPUBuffer;
  private readonly readback: GPUBuffer;
  private labels: string[] = [];
  private kernels: RecordedDispatch['kernel'][] = [];

  constructor(
    device: NeuraDevice,
    private readonly count: number,
    label: string,
    /** The dispatch list is encoded this many times back to back (benchmarks: the GPU stays busy and clocked up). */
    private readonly repeats = 1,
  ) {
    checkProfilable(device);
    if (!Number.isInteger(repeats) || repeats < 1) throw new ProfilerError(`profile repeats must be an integer ≥ 1, got ${repeats}`);
    const gpu = device.gpu;
    const queries = 2 * count * repeats;
    for (let q = 0; q < queries; q += MAX_QUERIES)
      this.sets.push(gpu.createQuerySet({ label: `${label}.timestamps${this.sets.length}`, type: 'timestamp', count: Math.min(MAX_QUERIES, queries - q) }));
    const bytes = Math.max(8, queries * 8);
    this.resolve = gpu.createBuffer({ label: `${label}.timestamps.resolve`, size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = gpu.createBuffer({ label: `${label}.timestamps.read`, size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** Encodes every dispatch in its own timed compute pass. */
  encode(enc: GPUCommandEncoder, dispatches: readonly RecordedDispatch[], label: string): void {
    if (dispatches.length !== this.count) throw new ProfilerError(`DispatchTimer made for ${this.count} dispatches, given ${dispatches.length}`);
    const all = Array.from({ length: this.repeats }, () => dispatches).flat();
    all.forEach((d, i) => {
      const q = 2 * i;
      const querySet = this.sets[Math.floor(q / MAX_QUERIES)];
      const at = q % MAX_QUERIES;
      const pass = enc.beginComputePass({ label: `${label}.pass.${d.label}`, timestampWrites: { querySet, beginningOfPassWriteIndex: at, endOfPassWriteIndex: at + 1 } });
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
      pass.end();
    });
    this.labels = all.map((d) => d.label);
    this.kernels = all.map((d) => d.kernel);
    this.sets.forEach((s, k) => {
      enc.resolveQuerySet(s, 0, s.count, this.resolve, k * MAX_QUERIES * 8);
    });
    enc.copyBufferToBuffer(this.resolve, 0, this.readback, 0, this.readback.size);
  }

  /** Maps the resolved timestamps (after the submit) and frees the timer's GPU objects. */
  async read(): Promise<DispatchTiming[]> {
    try {
      await this.readback.mapAsync(GPUMapMode.READ);
      const ts = new BigInt64Array(this.readback.getMappedRange().slice(0));
      this.readback.unmap();
      const t0 = this.labels.length ? ts[0] : 0n;
      return this.labels.map((label, i) => {
        const kernel = this.kernels[i];
        const startNs = Number(ts[2 * i] - t0);
        const endNs = Number(ts[2 * i + 1] - t0);
        return kernel ? { label, kernel, startNs, endNs } : { label, startNs, endNs };
      });
    } finally {
      this.destroy();
    }
  }

  /** Frees the query sets and buffers. */
  destroy(): void {
    for (const s of this.sets) s.destroy();
    this.resolve.destroy();
    this.readback.destroy();
  }
}

/** One profiled step: its dispatch timings, and the table and trace built from them. */
export class StepProfile {
  constructor(
    /** Timings of every dispatch, in step order. */
    readonly timings: readonly DispatchTiming[],
    /** The session's label. */
    readonly label: string,
  ) {}

  /** Per-kernel rows (slowest first) and totals; with ceilings, each kernel's fraction of the roofline. */
  summary(ceilings?: RooflineCeilings): StepProfileSummary {
    return summarizeProfile(this.timings, ceilings);
  }

  /** The per-kernel markdown table (by-class summary, then the slowest `top` kernels). */
  table(opts: { top?: number; ceilings?: RooflineCeilings } = {}): string {
    return profileTable(this.summary(opts.ceilings), opts);
  }

  /** Chrome/Perfetto trace JSON (an object; `JSON.stringify` it to a .json file). */
  trace(): ReturnType<typeof chromeTrace> {
    return chromeTrace(this.timings, this.label);
  }

  /** Whether the timestamps look quantized (Dawn's `timestamp_quantization` toggle): every value a multiple of 4096 ns. */
  get quantized(): boolean {
    const v = this.timings.flatMap((t) => [t.startNs, t.endNs]).filter((x) => x !== 0);
    return v.length > 4 && v.every((x) => x % 4096 === 0);
  }
}

/** Where NEURA_PROFILE asks to write a trace (Node only), and which step to profile (NEURA_PROFILE_STEP, default 2). */
export function profileRequestFromEnv(): { path: string; step: number } | undefined {
  if (typeof process === 'undefined' || !process.env?.NEURA_PROFILE) return undefined;
  const step = Number(process.env.NEURA_PROFILE_STEP ?? 2);
  if (!Number.isInteger(step) || step < 0) throw new ProfilerError(`NEURA_PROFILE_STEP must be a step index ≥ 0, got '${process.env.NEURA_PROFILE_STEP}'`);
  return { path: process.env.NEURA_PROFILE, step };
}

/** Devices already told that NEURA_PROFILE cannot run on them (one warning per device, not per session). */
const warnedUnprofilable = new WeakSet<GPUDevice>();

/**
 * NEURA_PROFILE's request for a session on `device`: undefined when unset, and also when the adapter lacks
 * `timestamp-query` (an environment knob must not break a run that works without it): then one console.warn per
 * device names the missing feature and the steps run unprofiled. `Session.profile()`, asked for in code, still throws.
 */
export function profileRequestFor(device: NeuraDevice): { path: string; step: number } | undefined {
  const env = profileRequestFromEnv();
  if (!env || device.features.has('timestamp-query')) return env;
  if (!warnedUnprofilable.has(device.gpu)) {
    warnedUnprofilable.add(device.gpu);
    console.warn(`NEURA_PROFILE is set, but profiling is unavailable on this adapter (${device.name}): it lacks the 'timestamp-query' feature; steps run unprofiled and no trace is written to ${env.path}`);
  }
  return undefined;
}

/** Writes `path` (the Chrome trace) and `path` + `.md` (the table), Node only. */
export async function writeProfileFiles(profile: StepProfile, path: string): Promise<void> {
  const fsSpec = 'node:fs';
  const fs = (await import(/* @vite-ignore */ fsSpec)) as typeof import('node:fs');
  fs.writeFileSync(path, JSON.stringify(profile.trace()));
  fs.writeFileSync(`${path}.md`, `# ${profile.label}: per-kernel profile\n\n${profile.table()}\n`);
}

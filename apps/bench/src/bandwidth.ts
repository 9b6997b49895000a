// DRAM bandwidth of the adapter, measured: a vec4 copy kernel (grid-stride, 256 threads) over a buffer far
// larger than the L2, timed with GPU timestamps (one pass per dispatch, median of repeats). Bytes counted are
// read + written. This is the ceiling the profiler's roofline column divides by.

import { DispatchTimer, type NeuraDevice, type RecordedDispatch } from '@neura/runtime-webgpu';

/** Measured copy bandwidth. */
export interface Bandwidth {
  readonly bytes: number;
  readonly medianMs: number;
  /** (read + written bytes) / median time, in bytes per second. */
  readonly bytesPerSecond: number;
}

/** Times a device-to-device copy of `mib` MiB (default 1024) `repeats` times; needs `timestamp-query`. */
export async function measureBandwidth(dev: NeuraDevice, mib = 1024, repeats = 10): Promise<Bandwidth> {
  const gpu = dev.gpu;
  const bytes = mib * 1024 * 1024;
  const usage = GPUBufferUsage.STORAGE;
  const src = gpu.createBuffer({ label: 'bw.src', size: bytes, usage });
  const dst = gpu.createBuffer({ label: 'bw.dst', size: bytes, usage });
  const n4 = bytes / 16;
  const groups = 8192;
  const code = `@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  for (var i = gid.x; i < ${n4}u; i = i + ${groups * 256}u) { b[i] = a[i]; }
}`;
  const layout = gpu.createBindGroupLayout({
    label: 'bw.layout',
    entries: [
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
    ],
  });
  const pipeline = await gpu.createComputePipelineAsync({
    label: 'bw.copy',
    layout: gpu.createPipelineLayout({ label: 'bw.pl', bindGroupLayouts: [layout] }),
    compute: { module: gpu.createShaderModule({ label: 'bw.copy', code }), entryPoint: 'main' },
  });
  const bindGroup = gpu.createBindGroup({ label: 'bw.bg', layout, entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] });
  const d: RecordedDispatch = { label: 'copy', pipeline, bindGroup, grid: [groups, 1, 1] };
  const timer = new DispatchTimer(dev, repeats + 2, 'bw');
  const enc = gpu.createCommandEncoder({ label: 'bw' });
  timer.encode(enc, Array(repeats + 2).fill(d), 'bw');
  gpu.queue.submit([enc.finish()]);
  const t = (await timer.read()).slice(2).map((x) => (x.endNs - x.startNs) * 1e-6);
  src.destroy();
  dst.destroy();
  t.sort((x, y) => x - y);
  const medianMs = t[Math.floor(t.length / 2)];
  return { bytes, medianMs, bytesPerSecond: (2 * bytes) / (medianMs * 1e-3) };
}

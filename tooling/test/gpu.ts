// Test helper: a real WebGPU device (Dawn in Node; a software adapter on CPU machines) and a runner for one
// KernelPlan, so kernel tests can compare generated WGSL with the reference interpreter without the runtime.
// Device choice mirrors runtime-webgpu's: NEURA_ADAPTER=opengles|vulkan|auto (default: vulkan if it gives a
// real GPU, else OpenGL ES on llvmpipe).

import { createRequire } from 'node:module';
import { capsOf, type DeviceCaps, type KernelPlan } from '../../packages/wgsl-kernels/src/kernel.js';

const require = createRequire(import.meta.url);

let devicePromise: Promise<GPUDevice> | undefined;
// dawn.node crashes once the GPU object from create() is garbage collected while a device made from it is
// in use (seen with webgpu 0.6.2: segfault after gc()), so it is held for the life of the process.
let _keepAlive: GPU | undefined;

/** A shared WebGPU device for tests, with the adapter's full compute limits requested. */
export function testDevice(): Promise<GPUDevice> {
  devicePromise ??= (async () => {
    process.env.EGL_PLATFORM ??= 'surfaceless';
    const { create, globals } = require('webgpu') as { create: (o: string[]) => GPU; globals: object };
    Object.assign(globalThis, globals);
    const backend = process.env.NEURA_ADAPTER === 'vulkan' ? 'vulkan' : 'opengles';
    const gpu = create([`backend=${backend}`]);
    _keepAlive = gpu;
    const adapter = await gpu.requestAdapter(backend === 'opengles' ? ({ featureLevel: 'compatibility' } as GPURequestAdapterOptions) : {});
    if (!adapter) throw new Error(`no WebGPU adapter for backend=${backend}`);
    const l = adapter.limits;
    return adapter.requestDevice({
      requiredLimits: {
        maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
        maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
        maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
        maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
        maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      },
    });
  })();
  return devicePromise;
}

/** The test device's capabilities as the plain object kernel generation takes. */
export async function testCaps(): Promise<DeviceCaps> {
  return capsOf(await testDevice());
}

/** Options of `runPlan`. */
export interface RunPlanOptions {
  /** Read the result back from this input's buffer instead of the output (in-place plans). */
  readonly resultFrom?: number;
}

/**
 * Runs a plan once: uploads inputs, dispatches, returns the output's raw bytes as an ArrayBuffer (or, with
 * `resultFrom`, the bytes of that input's buffer after the run).
 */
export async function runPlan(plan: KernelPlan, inputs: readonly ArrayBufferView[], outputBytes: number, opts: RunPlanOptions = {}): Promise<ArrayBuffer> {
  const device = await testDevice();
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const mk = (bytes: number, label: string) => device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 4) * 4), usage, label });
  const ins = inputs.map((d, i) => {
    const b = mk(d.byteLength, `in${i}`);
    device.queue.writeBuffer(b, 0, d.buffer, d.byteOffset, d.byteLength);
    return b;
  });
  const out = mk(outputBytes, 'out');
  const scratch = plan.scratch.map((s, i) => mk(s, `scratch${i}`));
  const literals: GPUBuffer[] = []; // the kernels' float literal tables (uniform buffers, as the runtime binds them)
  const literalsBuffer = (data: Float32Array, label: string) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label });
    device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    literals.push(b);
    return b;
  };
  // Shader errors surface through the validation scope (with Dawn's line:col message). No getCompilationInfo:
  // awaiting it hangs dawn.node on llvmpipe now and then (seen here in about one run of three, 2026-12).
  device.pushErrorScope('validation');
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  for (const d of plan.dispatches) {
    const module = device.createShaderModule({ code: d.code, label: d.label });
    const layout = device.createBindGroupLayout({
      label: d.label,
      entries: d.bindings.map((b, i) => ({
        binding: i,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: b.source.kind === 'literals' ? 'uniform' : b.access === 'read' ? 'read-only-storage' : 'storage' },
      })),
    });
    const pipeline = device.createComputePipeline({
      label: d.label,
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
    const group = device.createBindGroup({
      layout,
      entries: d.bindings.map((b, i) => ({
        binding: i,
        resource: {
          buffer:
            b.source.kind === 'input'
              ? ins[b.source.index]
              : b.source.kind === 'output'
                ? out
                : b.source.kind === 'scratch'
                  ? scratch[b.source.index]
                  : b.source.kind === 'literals'
                    ? literalsBuffer(b.source.data, `${d.label}.literals`)
                    : fail(`runPlan binds no ${b.source.kind} (a runtime layout): compile the graph instead`),
        },
      })),
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
  }
  pass.end();
  const read = device.createBuffer({ size: Math.max(16, Math.ceil(outputBytes / 4) * 4), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  enc.copyBufferToBuffer(opts.resultFrom === undefined ? out : ins[opts.resultFrom], 0, read, 0, read.size);
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) throw new Error(`validation error: ${err.message}\n${plan.dispatches.map((d) => `--- ${d.label}\n${d.code}`).join('\n')}`);
  await read.mapAsync(GPUMapMode.READ);
  const result = read.getMappedRange().slice(0, outputBytes);
  read.unmap();
  // Destroying buffers right after mapAsync resolves crashed dawn.node on llvmpipe (SIGSEGV / std::system_error in
  // about half of 12-dispatch runs, 2026-12); waiting for the queue to drain first made 6/6 runs clean.
  await device.queue.onSubmittedWorkDone();
  for (const b of [...ins, out, read, ...scratch, ...literals]) b.destroy();
  return result;
}

function fail(message: string): never {
  throw new Error(message);
}

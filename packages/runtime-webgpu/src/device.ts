// Device acquisition: Dawn (npm `webgpu`) in Node, `navigator.gpu` in browsers; a real GPU when there is one,
// otherwise a software adapter (llvmpipe through OpenGL ES, or SwiftShader Vulkan). Must not import `webgpu`
// statically (a browser bundle must not need it). Invariant: device loss and uncaptured errors are recorded
// here, where the device is created, and surface as typed errors on the next runtime call, never silently.

import { capsOf, type DeviceCaps, type NumericCaps } from '@neura/wgsl-kernels';
import { DeviceLostError, GpuValidationError, WebGpuUnavailableError } from './errors.js';

/** The feature tensor-core matmuls need (Dawn: offered only with the `allow_unsafe_apis` toggle). */
export const SUBGROUP_MATRIX_FEATURE = 'chromium-experimental-subgroup-matrix';

/** Which adapter to use: `auto` = real GPU through Vulkan if any, else llvmpipe, else SwiftShader. */
export type AdapterChoice = 'auto' | 'vulkan' | 'opengles' | 'swiftshader';

/** Options of `createDevice`. */
export interface CreateDeviceOptions {
  /** Adapter choice; default `process.env.NEURA_ADAPTER` or `auto`. Ignored when `gpu` is given. */
  readonly adapter?: AdapterChoice;
  /** A `GPU` object to use instead of Dawn / `navigator.gpu` (e.g. one made by the caller with `create()`). */
  readonly gpu?: GPU;
  /** Forwarded to `requestAdapter` on core adapters. */
  readonly powerPreference?: GPUPowerPreference;
  /** Called for every uncaptured WebGPU error and for device loss (besides recording it). */
  readonly onError?: (error: GpuValidationError | DeviceLostError) => void;
  /** A label for the device. */
  readonly label?: string;
  /**
   * Extra Dawn options for `create()` in Node (default: `NEURA_DAWN_OPTIONS`, comma-separated `key=value` entries, a
   * value list continuing after commas: `enable-dawn-features=a,b,backend=vulkan` is two options), e.g.
   * `disable-dawn-features=timestamp_quantization` for exact profiler timestamps.
   */
  readonly dawnOptions?: readonly string[];
  /**
   * Caps no higher than these: `caps` (what kernels and the optimizer plan for) become the smaller of the
   * device's and these, to plan as for a smaller device (e.g. a phone's `maxStorageBuffersPerShaderStage`).
   */
  readonly limitCaps?: Partial<Record<NumericCap, number>>;
  /**
   * Ask for what `precision: 'mixed'` needs (tensor-core matmuls): the `chromium-experimental-subgroup-matrix` and
   * `shader-f16` features where the adapter offers them; in Node also the Dawn toggles that expose them
   * (`allow_unsafe_apis`; `vulkan_enable_f16_on_nvidia`, since Dawn hides f16 on NVIDIA Vulkan by default).
   * Experimental: off by default.
   */
  readonly mixedPrecision?: boolean;
}

/** The Dawn toggles `mixedPrecision` adds in Node. */
export const MIXED_PRECISION_TOGGLES = ['allow_unsafe_apis', 'vulkan_enable_f16_on_nvidia'] as const;

/** `options` with `toggles` added to its `enable-dawn-features=` entry (one is made if there is none). */
export function withDawnToggles(options: readonly string[], toggles: readonly string[]): string[] {
  const key = 'enable-dawn-features=';
  const at = options.findIndex((o) => o.startsWith(key));
  if (at < 0) return [...options, `${key}${toggles.join(',')}`];
  const have = options[at].slice(key.length).split(',').filter(Boolean);
  const out = [...options];
  out[at] = `${key}${[...have, ...toggles.filter((t) => !have.includes(t))].join(',')}`;
  return out;
}

/**
 * `NEURA_DAWN_OPTIONS` as `create()` options: entries are `key=value`, and a comma-separated piece without `=`
 * continues the previous value (Dawn's toggle lists are themselves comma-separated). A leading piece without a key
 * is an error that names it, not a flag Dawn would reject without saying which.
 */
export function parseDawnOptions(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(',').filter(Boolean)) {
    if (piece.includes('=')) out.push(piece);
    else if (out.length > 0) out[out.length - 1] += `,${piece}`;
    else throw new Error(`NEURA_DAWN_OPTIONS: '${piece}' has no key; expected key=value entries, e.g. enable-dawn-features=allow_unsafe_apis,disable_robustness`);
  }
  return out;
}

/** One subgroup-matrix configuration of the adapter (Dawn's `GPUSubgroupMatrixConfig`). */
export interface SubgroupMatrixConfig {
  /** Rows of the matrix tile. */
  readonly m: number;
  /** Columns of the matrix tile. */
  readonly n: number;
  /** Inner (reduction) extent of the tile. */
  readonly k: number;
  /** Element type of the operands (e.g. `f16`). */
  readonly componentType: string;
  /** Element type of the result (e.g. `f32`). */
  readonly resultComponentType: string;
}

/** The numeric fields of `DeviceCaps`. */
export type NumericCap = NumericCaps;

/** `caps` lowered to `limit` where `limit` is smaller (never raised). */
function lowerCaps(caps: DeviceCaps, limit: Partial<Record<NumericCap, number>> = {}): DeviceCaps {
  const out: { -readonly [K in keyof DeviceCaps]: DeviceCaps[K] } = { ...caps };
  // Object.entries widens keys to string; `limit` has only NumericCap keys
  for (const [k, v] of Object.entries(limit) as [NumericCap, number | undefined][]) if (typeof v === 'number' && v < caps[k]) out[k] = v;
  return out;
}

/** What the adapter says about itself, plus the backend we asked for and whether it is a software renderer. */
export interface AdapterInfo {
  /** Adapter vendor (e.g. `nvidia`, `mesa`); may be empty. */
  readonly vendor: string;
  /** Adapter architecture; may be empty. */
  readonly architecture: string;
  /** Adapter device name; may be empty. */
  readonly device: string;
  /** Driver description (e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`); may be empty. */
  readonly description: string;
  /** `vulkan`, `opengles`, `swiftshader` (Vulkan) or `browser`. */
  readonly backend: string;
  /** True for a CPU (software) renderer such as llvmpipe or SwiftShader. */
  readonly software: boolean;
  /** Subgroup-matrix configurations (empty unless the adapter offers `chromium-experimental-subgroup-matrix`). */
  readonly subgroupMatrixConfigs: readonly SubgroupMatrixConfig[];
  /** Smallest and largest subgroup size, where the adapter says. */
  readonly subgroupSizes?: readonly [number, number];
}

/** A WebGPU device with its capabilities and health, as the runtime uses it. */
export interface NeuraDevice {
  /** The underlying WebGPU device. */
  readonly gpu: GPUDevice;
  /** Limits and features the runtime plans kernels with. */
  readonly caps: DeviceCaps;
  /** What the adapter says about itself. */
  readonly adapterInfo: AdapterInfo;
  /** Short description for reports, e.g. `llvmpipe (opengles, software)`. */
  readonly name: string;
  /** Optional features enabled on the device (`subgroups`, `shader-f16`, `timestamp-query`). */
  readonly features: ReadonlySet<string>;
  /** Throws the recorded `DeviceLostError`, or the oldest uncaptured `GpuValidationError` (removing it). */
  check(): void;
  /** Whether `destroy()` was called. */
  readonly destroyed: boolean;
  /**
   * Destroys the device. Call it when done: in Node a process holding a live Dawn device may not exit by
   * itself (dawn.node keeps its event loop handle alive while a device exists).
   */
  destroy(): void;
}

/** Compute limits requested at the adapter's value (after reading `adapter.limits`), when above the default. */
const COMPUTE_LIMITS = [
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
] as const;

/** Optional features enabled when the adapter offers them. */
const OPTIONAL_FEATURES: readonly GPUFeatureName[] = ['subgroups', 'shader-f16', 'timestamp-query'];

const SOFTWARE = /llvmpipe|lavapipe|swiftshader|softpipe|software/i;
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

type Dawn = { create: (options: string[]) => GPU; globals: object };

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

async function loadDawn(): Promise<Dawn> {
  // A non-literal specifier keeps bundlers from following it; Node resolves it from this file (or, in an
  // esbuild bundle with `--external:webgpu`, from the bundle's folder, e.g. `.devkit/node_modules`).
  const spec = 'webgpu';
  let mod: Dawn & { default?: Dawn };
  try {
    mod = (await import(/* @vite-ignore */ spec)) as Dawn & { default?: Dawn };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw e;
    // `webgpu` is an optional peer dependency (Dawn is ~130 MB; browser-only users do not want it).
    throw new Error(
      "createDevice: Node.js has no WebGPU of its own; install the optional peer dependency 'webgpu' (Dawn for Node, " +
        "`npm install webgpu@~0.6.2`), or pass `gpu` (a GPU object) to createDevice",
      { cause: e },
    );
  }
  const dawn = typeof mod.create === 'function' ? mod : (mod.default as Dawn);
  // dawn.node's classes (GPUBufferUsage, GPUShaderStage, GPUMapMode, ...) are not globals until assigned.
  Object.assign(globalThis, dawn.globals);
  return dawn;
}

async function fileExists(path: string): Promise<boolean> {
  const fsSpec = 'node:fs';
  const fs = (await import(/* @vite-ignore */ fsSpec)) as typeof import('node:fs');
  return fs.existsSync(path);
}

/**
 * Whether a Vulkan loader (libvulkan.so.1) is installed, on Linux. Without one, Dawn's Vulkan backend prints
 * "Warning: Couldn't load Vulkan" on stderr (measured, webgpu 0.6.2, Debian 12 without libvulkan1), so `auto`
 * skips it. Looks in LD_LIBRARY_PATH and in the dynamic linker's cache, as `dlopen` does. Other OSes: true.
 */
async function vulkanLoaderFound(): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  const fsSpec = 'node:fs';
  const fs = (await import(/* @vite-ignore */ fsSpec)) as typeof import('node:fs');
  const dirs = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter((d) => d !== '');
  if (dirs.some((d) => fs.existsSync(`${d}/libvulkan.so.1`))) return true;
  try {
    return fs.readFileSync('/etc/ld.so.cache').includes('libvulkan.so.1');
  } catch {
    return true; // no cache to read (unusual layout): let Dawn try
  }
}

/** The experimental parts of `GPUAdapterInfo` this file reads (absent from @webgpu/types). */
interface ExperimentalAdapterInfo {
  readonly isFallbackAdapter?: boolean;
  readonly subgroupMinSize?: number;
  readonly subgroupMaxSize?: number;
  readonly subgroupMatrixConfigs?: Iterable<{ M: number; N: number; K: number; componentType: string; resultComponentType: string }>;
}

function infoOf(adapter: GPUAdapter, backend: string): AdapterInfo {
  const i = adapter.info as GPUAdapterInfo & ExperimentalAdapterInfo;
  const text = `${i.vendor} ${i.architecture} ${i.device} ${i.description}`;
  const fallback = i.isFallbackAdapter === true;
  const subgroupMatrixConfigs = [...(i.subgroupMatrixConfigs ?? [])].map((c) => ({ m: c.M, n: c.N, k: c.K, componentType: c.componentType, resultComponentType: c.resultComponentType }));
  return {
    vendor: i.vendor,
    architecture: i.architecture,
    device: i.device,
    description: i.description,
    backend,
    software: fallback || SOFTWARE.test(text) || backend === 'swiftshader',
    subgroupMatrixConfigs,
    ...(typeof i.subgroupMinSize === 'number' && typeof i.subgroupMaxSize === 'number' ? { subgroupSizes: [i.subgroupMinSize, i.subgroupMaxSize] as const } : {}),
  };
}

interface Found {
  readonly instance: GPU;
  readonly adapter: GPUAdapter;
  readonly info: AdapterInfo;
}

/**
 * Dawn instances (and adapters) of live devices. dawn.node bug (webgpu 0.6.2): when the `GPU` object that
 * `create()` returned is garbage-collected, its devices keep running on a destroyed instance and the process
 * aborts or segfaults a little later (measured: keeping a device and calling `gc()` five times crashed 3 of 3
 * runs with SIGSEGV/SIGABRT in getCompilationInfo; holding the instance, 0 of 3). So we hold them here until
 * `destroy()`.
 */
const KEEP_ALIVE = new Set<object>();

/**
 * One Dawn instance per backend and option list for the whole process, never released: a collected instance
 * can abort the process even after its devices were destroyed (measured: 3 create/destroy cycles then `gc()`
 * died with `std::system_error` in 1 of 1 runs), and sharing it is cheaper than one instance per device.
 */
const INSTANCES = new Map<string, GPU>();
function instance(dawn: Dawn, kind: 'vulkan' | 'swiftshader' | 'opengles', extra: readonly string[]): GPU {
  const key = `${kind}|${extra.join(',')}`;
  let gpu = INSTANCES.get(key);
  if (!gpu) INSTANCES.set(key, (gpu = dawn.create([kind === 'opengles' ? 'backend=opengles' : 'backend=vulkan', ...extra])));
  return gpu;
}

async function nodeAdapter(choice: AdapterChoice, powerPreference?: GPUPowerPreference, extra: readonly string[] = []): Promise<Found> {
  const dawn = await loadDawn();
  const tried: string[] = [];
  const vulkan = async (as: 'vulkan' | 'swiftshader'): Promise<Found | undefined> => {
    const gpu = instance(dawn, as, extra);
    const adapter = await gpu.requestAdapter(powerPreference ? { powerPreference } : {});
    if (!adapter) {
      tried.push(`${as}: no adapter`);
      return undefined;
    }
    const info = infoOf(adapter, as === 'swiftshader' || /swiftshader/i.test(adapter.info.architecture + adapter.info.description) ? 'swiftshader' : 'vulkan');
    tried.push(`${as}: ${info.device || info.description}`);
    return { instance: gpu, adapter, info };
  };
  const opengles = async (): Promise<Found | undefined> => {
    // Mesa's EGL needs a platform without a display server (PLATFORM.md: EGL_PLATFORM=surfaceless); it reads
    // the variable when the backend initialises, so it must be set before `create`.
    process.env.EGL_PLATFORM ??= 'surfaceless';
    const gpu = instance(dawn, 'opengles', extra);
    // The GLES backend only offers compatibility-mode adapters (PLATFORM.md).
    const adapter = await gpu.requestAdapter({ featureLevel: 'compatibility' } as GPURequestAdapterOptions);
    if (!adapter) {
      tried.push('opengles: no adapter');
      return undefined;
    }
    const info = infoOf(adapter, 'opengles');
    tried.push(`opengles: ${info.device || info.description}`);
    return { instance: gpu, adapter, info };
  };
  const swiftshader = async (): Promise<Found | undefined> => {
    if (await fileExists(SWIFTSHADER_ICD)) process.env.VK_DRIVER_FILES ??= SWIFTSHADER_ICD;
    else tried.push(`swiftshader: ${SWIFTSHADER_ICD} not found`);
    return vulkan('swiftshader');
  };

  let found: Found | undefined;
  if (choice === 'vulkan') found = await vulkan('vulkan');
  else if (choice === 'opengles') found = await opengles();
  else if (choice === 'swiftshader') found = await swiftshader();
  else {
    const hasLoader = await vulkanLoaderFound();
    if (!hasLoader) tried.push('vulkan: no Vulkan loader (libvulkan.so.1)');
    const v = hasLoader ? await vulkan('vulkan') : undefined;
    found = v && !v.info.software ? v : ((await opengles()) ?? v ?? (await swiftshader()));
  }
  if (!found) throw new WebGpuUnavailableError('no-adapter', `createDevice: no WebGPU adapter for NEURA_ADAPTER=${choice} (tried ${tried.join('; ')})`);
  return found;
}

async function browserAdapter(gpu: GPU, powerPreference?: GPUPowerPreference): Promise<Found> {
  const adapter =
    (await gpu.requestAdapter(powerPreference ? { powerPreference } : {})) ??
    (await gpu.requestAdapter({ featureLevel: 'compatibility' } as GPURequestAdapterOptions));
  if (!adapter)
    throw new WebGpuUnavailableError('no-adapter', 'createDevice: requestAdapter() returned no adapter (WebGPU may be disabled or blocklisted for this GPU; chrome://gpu tells which)');
  return { instance: gpu, adapter, info: infoOf(adapter, 'browser') };
}

/**
 * Acquires a WebGPU device (Dawn in Node, `navigator.gpu` in browsers) with the adapter's compute limits.
 * Throws a `WebGpuUnavailableError` whose `reason` says which step failed when WebGPU cannot be used.
 *
 * @example
 * ```ts
 * const device = await createDevice();          // NEURA_ADAPTER=vulkan|opengles|swiftshader picks a backend in Node
 * console.log(device.name);                     // e.g. `llvmpipe (opengles, software)`
 * const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-3 }), device });
 * ```
 */
export async function createDevice(opts: CreateDeviceOptions = {}): Promise<NeuraDevice> {
  const found = await findAdapter(opts);
  const { adapter, info } = found;
  const keep = { instance: found.instance, adapter };
  KEEP_ALIVE.add(keep);
  const gpu = await requestComputeDevice(adapter, opts.label ?? 'neura', opts.mixedPrecision === true);
  const errors = new DeviceErrors(gpu, opts.onError);
  const kind = info.software ? 'software' : 'gpu';
  const short = (info.device || info.architecture || info.description || info.vendor || 'unknown').split(/[\s-]/)[0];
  return {
    gpu,
    caps: lowerCaps(capsOf(gpu), opts.limitCaps),
    adapterInfo: info,
    name: `${short} (${info.backend}, ${kind})`,
    features: new Set([...gpu.features] as string[]),
    check: () => errors.check(),
    get destroyed() {
      return errors.destroyed;
    },
    destroy() {
      if (errors.destroyed) return;
      errors.close();
      gpu.destroy();
      KEEP_ALIVE.delete(keep);
    },
  };
}

/** The adapter `opts` ask for: a given `GPU`, Dawn in Node (by `adapter` or NEURA_ADAPTER), or `navigator.gpu`. */
async function findAdapter(opts: CreateDeviceOptions): Promise<Found> {
  const envChoice = isNode() ? process.env.NEURA_ADAPTER : undefined;
  const choice = (opts.adapter ?? envChoice ?? 'auto') as AdapterChoice;
  if (!['auto', 'vulkan', 'opengles', 'swiftshader'].includes(choice))
    throw new Error(`createDevice: NEURA_ADAPTER must be auto|vulkan|opengles|swiftshader, got '${choice}'`);
  if (opts.gpu) return browserAdapter(opts.gpu, opts.powerPreference);
  if (isNode()) {
    const dawnOptions = opts.dawnOptions ?? parseDawnOptions(process.env.NEURA_DAWN_OPTIONS ?? '');
    return nodeAdapter(choice, opts.powerPreference, opts.mixedPrecision ? withDawnToggles(dawnOptions, MIXED_PRECISION_TOGGLES) : dawnOptions);
  }
  if (typeof navigator !== 'undefined' && navigator.gpu) return browserAdapter(navigator.gpu, opts.powerPreference);
  throw new WebGpuUnavailableError('no-webgpu', 'createDevice: WebGPU is not available (no navigator.gpu, and not running in Node): use a browser with WebGPU enabled, or the reference interpreter (@neura/ir interpret) on the CPU');
}

/**
 * A device with every compute limit the adapter has (an older adapter may lack some) and the optional features it
 * offers; with `mixed`, also the subgroup-matrix feature where offered.
 */
async function requestComputeDevice(adapter: GPUAdapter, label: string, mixed: boolean): Promise<GPUDevice> {
  const requiredLimits: Record<string, number> = {};
  for (const k of COMPUTE_LIMITS) {
    const v: number | undefined = adapter.limits[k];
    if (typeof v === 'number') requiredLimits[k] = v;
  }
  const wanted = mixed ? [...OPTIONAL_FEATURES, SUBGROUP_MATRIX_FEATURE as GPUFeatureName] : OPTIONAL_FEATURES;
  const requiredFeatures = wanted.filter((f) => adapter.features.has(f));
  try {
    return await adapter.requestDevice({ label, requiredLimits, requiredFeatures });
  } catch (e) {
    const asked = requiredFeatures.length ? ` with features ${requiredFeatures.join(', ')}` : '';
    throw new WebGpuUnavailableError('device-refused', `createDevice: the adapter refused a device${asked}: ${(e as Error).message}`, { cause: e });
  }
}

/** What a device reports outside error scopes: uncaptured errors (each thrown once by `check`) and its loss. */
class DeviceErrors {
  private readonly pending: GpuValidationError[] = [];
  private lost: DeviceLostError | undefined;
  /** Set by `close`: the owner destroyed the device (its loss is then not an error). */
  destroyed = false;
  private readonly onUncaptured = (ev: Event) => {
    const e = new GpuValidationError('uncaptured', (ev as GPUUncapturedErrorEvent).error.message);
    this.pending.push(e);
    this.onError?.(e);
  };

  constructor(
    private readonly gpu: GPUDevice,
    private readonly onError?: (error: GpuValidationError | DeviceLostError) => void,
  ) {
    gpu.addEventListener('uncapturederror', this.onUncaptured);
    void gpu.lost.then((li) => {
      if (this.destroyed && li.reason === 'destroyed') return; // our own destroy(): not an error
      this.lost = new DeviceLostError(li.reason, li.message);
      this.onError?.(this.lost);
    });
  }

  /** Throws the loss, a destroyed device, or the oldest uncaptured error not thrown yet. */
  check(): void {
    if (this.lost) throw this.lost;
    if (this.destroyed) throw new DeviceLostError('destroyed', 'NeuraDevice.destroy() was called');
    const e = this.pending.shift();
    if (e) throw e;
  }

  /** Before the owner destroys the device: the listener would keep it (~2.4 MiB) alive in dawn.node (issue 9, item 10). */
  close(): void {
    this.destroyed = true;
    this.gpu.removeEventListener('uncapturederror', this.onUncaptured);
  }
}

// compileInference: a forward graph (no backward, no updates) optimized and compiled for a device, e.g. the
// evaluation pass of a trained model. Parameters are loaded by name with `load()` from any source
// (a training session's `readParams()` or a checkpoint). Without WebGPU it can run on the CPU instead (opt-in:
// `device: 'cpu'`, or `fallback: 'cpu'` when the device cannot be had), through cpuInference.

import type { OptimizeReport } from '@neura/egraph';
import { type Graph, GraphError, type Tensor, type TensorValue } from '@neura/ir';
import { capsFor, type FeedValue, type NeuraDevice, type Precision, type Session, type TuneMatmulResult, WebGpuUnavailableError } from '@neura/runtime-webgpu';
import type { MatmulTuning } from '@neura/wgsl-kernels';
import { compileStep } from './compileStep.js';
import { autocastFor } from './mixedStorage.js';
import type { CpuInferenceSession } from './cpuInference.js';
import type { AutotuneOptions } from './matmulAutotune.js';
import type { PlanCache } from './planCache.js';
import { type QuantizedWeight, quantizeGraph, quantizeStateDict, type WeightFormat, weightsFor } from './quantizeWeights.js';
import { compilableState, graphStateTypes, type LoadStateDictOptions, sessionStateDict, type StateDictAccess } from './stateDict.js';

/** Options of `compileInference`. */
export interface InferenceOptions {
  /** Named results to compute. */
  outputs: Record<string, Tensor>;
  /**
   * The device to compile for: `createDevice()`'s device or its promise, or `'cpu'` to run the reference
   * interpreter on the CPU (float32, slow, no optimizer; the GPU-only options are ignored).
   */
  device: NeuraDevice | Promise<NeuraDevice> | 'cpu';
  /**
   * `'cpu'`: if the device promise rejects with a WebGpuUnavailableError (no WebGPU, no adapter, device refused),
   * run on the CPU instead, with a one-time console warning; any other error still rejects. Default: no fallback.
   */
  fallback?: 'cpu';
  /** Run the e-graph optimizer (default true); false compiles the graph as built. */
  optimize?: boolean;
  /** Values of params/state by name to upload before the first run (others get their initializers). */
  initialState?: Record<string, TensorValue>;
  /** `fp32` (default) or `mixed` (f16 matmul operands on tensor cores, or f16 storage on the portable path); see `TrainingOptions`. */
  precision?: Precision;
  /** Under `precision: 'mixed'`: store activations as f16 (autocast's policy); defaults and errors as `TrainingOptions.autocast`. */
  autocast?: boolean;
  /** Measured matmul choices; see `TrainingOptions.matmulTuning`. */
  matmulTuning?: MatmulTuning;
  /** Whether the shipped matmul table for this adapter applies; see `TrainingOptions.shippedMatmulTuning`. */
  shippedMatmulTuning?: boolean;
  /** Tune the graph's matmul shapes before compiling, cached per adapter; see `TrainingOptions.autotune`. */
  autotune?: AutotuneOptions;
  /**
   * Bytes the forward pass may allocate on the device, met by the optimizer (a memory-aware schedule) or refused
   * with a MemoryBudgetError naming the smallest plan found; see `TrainingOptions.memoryBudget`. Needs the optimizer.
   */
  memoryBudget?: number;
  /** Where optimized plans are kept across compiles; see `TrainingOptions.planCache`. Needs the optimizer. */
  planCache?: PlanCache;
  /**
   * `'q8_0'`: weight-only int8 quantization (GGUF's Q8_0 blocks): every matmul weight parameter (a Linear's) is kept
   * on the device as int8 blocks of 32 with one scale each (about 3.8x fewer bytes than f32) and dequantized inside
   * the matmul; f32 weights loaded by their usual names are quantized as they are written. `'q4_0'`: the same with
   * GGUF's 4-bit Q4_0 blocks (about 7.1x fewer bytes, coarser). WebGPU only. Default `'f32'`.
   */
  weights?: WeightFormat;
}

/** A compiled forward pass on the GPU. */
export interface InferenceSession {
  /** Always `'webgpu'` (a CPU session says `'cpu'`). */
  readonly backend: 'webgpu';
  /** Runs the graph and reads back every output. */
  run(feeds: Record<string, FeedValue>): Promise<Record<string, TensorValue>>;
  /**
   * Overwrites params/buffers by name; resolves once written. Names, shapes and dtypes are checked first (an
   * unknown name or a wrong shape is a StateDictError and nothing is written); names left out keep their values.
   */
  load(params: Record<string, TensorValue>): Promise<void>;
  /** The graph's parameters and buffers by name. */
  stateDict(): Promise<Record<string, TensorValue>>;
  /** Overwrites parameters and buffers after checking names, shapes and dtypes; on any mismatch nothing is written. */
  loadStateDict(values: Record<string, TensorValue>, opts?: LoadStateDictOptions): Promise<void>;
  /** The graph as compiled (after optimization). */
  readonly graph: Graph;
  /** The e-graph report (undefined when optimization was off). */
  readonly report?: OptimizeReport;
  /** What `autotune` did (only with `autotune`). */
  readonly autotuned?: TuneMatmulResult;
  /** The underlying runtime session (read/write state, stats). */
  readonly session: Session;
  /** Whether the plan was read from `planCache` (undefined without one). */
  readonly planFromCache?: boolean;
  /** Frees the session's GPU buffers; the session cannot run afterwards. */
  dispose(): void;
}

/** A forward pass on either backend: what `compileInference` returns when the CPU is allowed. */
export type AnyInferenceSession = InferenceSession | CpuInferenceSession;

/** Whether a page was already told that inference fell back to the CPU (the warning is shown once). */
let warnedCpuFallback = false;

/**
 * Optimizes and compiles a forward graph. The graph is not changed (its outputs are named on a copy).
 *
 * @example
 * ```ts
 * const ge = new Graph();
 * const logits = model.eval().forward(ge, ge.input('x', [500, 1, 28, 28]));
 * const infer = await compileInference(ge, { outputs: { logits }, device });
 * await infer.loadStateDict(await train.stateDict());      // names, shapes and dtypes checked first
 * const { logits: out } = await infer.run({ x: images });   // TensorValue [500, 10]
 * ```
 */
export async function compileInference(model: Graph, opts: InferenceOptions & { device: NeuraDevice | Promise<NeuraDevice>; fallback?: undefined }): Promise<InferenceSession>;
/** As above; with `device: 'cpu'` or `fallback: 'cpu'` the session may run on the CPU (check `backend`). */
export async function compileInference(model: Graph, opts: InferenceOptions): Promise<AnyInferenceSession>;
export async function compileInference(model: Graph, opts: InferenceOptions): Promise<AnyInferenceSession> {
  // loaded only when asked for: the interpreter stays out of a WebGPU page's initial bundle (tooling/size)
  const cpu = async () => (await import('./cpuInference.js')).cpuInference(model, { outputs: opts.outputs, ...(opts.initialState ? { initialState: opts.initialState } : {}) });
  const quantizedWeights = opts.weights !== undefined && opts.weights !== 'f32';
  if (opts.device === 'cpu' && quantizedWeights) throw new GraphError(`compileInference: weights '${opts.weights}' runs on WebGPU only (the CPU path computes with f32 weights)`, 'matmulQ8');
  if (opts.device === 'cpu') return cpu();
  let device: NeuraDevice;
  try {
    device = await opts.device;
  } catch (e) {
    if (opts.fallback !== 'cpu' || !(e instanceof WebGpuUnavailableError)) throw e;
    if (!warnedCpuFallback) {
      warnedCpuFallback = true;
      console.warn(`neura: WebGPU is unavailable (${e.reason}: ${e.message}); inference runs on the CPU with the reference interpreter, which is much slower${quantizedWeights ? `, with f32 weights (${opts.weights} needs WebGPU)` : ''}`);
    }
    return cpu();
  }
  return compileOnDevice(model, { ...opts, device });
}

/**
 * The graph compileInference plans: a copy of the model with the outputs named, its hand-written layers recognized as
 * compileTraining recognizes them (recognizedForward.ts) unless the optimizer is off.
 */
export async function inferenceGraph(model: Graph, outputs: Readonly<Record<string, Tensor>>, optimize?: boolean): Promise<Graph> {
  // the recognition rules load on demand (most models have no hand-written layer to recognize)
  const { graph, tensors } = optimize === false ? { graph: model.clone(), tensors: outputs } : (await import('./onDemand.js')).recognizedGraph(model, outputs);
  for (const [name, t] of Object.entries(tensors)) graph.output(name, t);
  return graph;
}

/** The GPU path of compileInference. */
async function compileOnDevice(model: Graph, opts: InferenceOptions & { device: NeuraDevice }): Promise<InferenceSession> {
  // an impossible precision (or autocast option) fails before any work
  const f16Storage = autocastFor(capsFor(opts.device, opts.precision), opts.precision, opts.autocast, 'compileInference');
  const found = await inferenceGraph(model, opts.outputs, opts.optimize);
  // q8_0 / q4_0: matmul weights read quantized (their f32 values, given or initial, quantized on the host)
  const quantized: ReadonlyMap<string, QuantizedWeight> = weightsFor(found, opts.weights);
  const recognized = quantized.size > 0 ? quantizeGraph(found, quantized) : found;
  const given = quantized.size > 0 ? quantizeStateDict(opts.initialState ?? {}, quantized, true) : opts.initialState;
  // f16 storage: autocast's casts on the recognized graph (outputs cast back to their dtypes), as compileTraining does
  const graph = f16Storage ? (await import('./optIn.js')).autocastModel(recognized) : recognized;
  const modelTypes = graphStateTypes(graph);
  const initialState = (plan: Graph) => compilableState(given, modelTypes, plan);
  const { graph: g, report, fromCache: planFromCache, session, autotuned } = await compileStep(graph, { ...opts, initialState, label: 'inference', who: 'compileInference' });
  const names = Object.keys(opts.outputs);
  const state = sessionStateDict(graph, modelTypes, session, 'InferenceSession.loadStateDict', given);
  const loadStateDict: StateDictAccess['loadStateDict'] = quantized.size > 0 ? (values, o) => state.loadStateDict(quantizeStateDict(values, quantized), o) : state.loadStateDict;
  return {
    backend: 'webgpu',
    graph: g,
    report,
    ...(autotuned ? { autotuned } : {}),
    session,
    ...(opts.planCache ? { planFromCache } : {}),
    async run(feeds) {
      const r = await session.step(feeds, { read: names });
      return r.outputs;
    },
    load: (values) => loadStateDict(values, { strict: false }),
    stateDict: state.stateDict,
    loadStateDict,
    dispose: () => session.dispose(),
  };
}

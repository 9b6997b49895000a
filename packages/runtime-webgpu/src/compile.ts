// compile(graph, device): the live nodes of a graph become one replayable step — the pure phases of stepPlan.ts
// (kernel plans, storage, index checks), then the GPU phases here: buffers, leaf uploads, pipelines and bind
// groups, copies, created once. Must not allocate GPU objects per step (everything a Session replays is made here).
// Invariant: a dispatch never binds one buffer both read-only and writable; every GPU object has a label.

import { type Graph, initialValue, leafName, type Node, type NodeId } from '@neura/ir';
import { generateKernel, type KernelGenerator, type KernelPlan } from '@neura/wgsl-kernels';
import type { NeuraDevice } from './device.js';
import { GpuValidationError, InputError } from './errors.js';
import { type FeedValue, toDeviceData } from './feeds.js';
import { alignedBytes } from './memoryPlan.js';
import { PipelineCache } from './pipelineCache.js';
import type { InputSlot, NamedTensor, RecordedCopy, RecordedDispatch, SessionStats } from './compiledStep.js';
import { Session } from './session.js';
import { type KernelInfo, kernelInfoOf } from './stepProfile.js';
import { planStep, type StepPlan, tensorBytes } from './stepPlan.js';
import type { StateCopy } from './updatePlan.js';

/** Options of `compile`. */
export interface CompileOptions {
  /** Starting values of params/state by name (others take their `init`). */
  readonly initialState?: Readonly<Record<string, FeedValue>>;
  /** Kernel generator; default `generateKernel` of `@neura/wgsl-kernels`. */
  readonly generator?: KernelGenerator;
  /** Prefix of GPU object labels. */
  readonly label?: string;
  /** Readback slots per tensor (default 2): how many reads of one tensor may be in flight. */
  readonly readbackSlots?: number;
  /** A pipeline cache to share between sessions on the same device. */
  readonly pipelineCache?: PipelineCache;
}

/** Compiles the live part of a graph for a device: kernels, memory plan, pipelines, bind groups. */
export async function compile(graph: Graph, device: NeuraDevice, opts: CompileOptions = {}): Promise<Session> {
  device.check();
  const gpu = device.gpu;
  const label = opts.label ?? 'neura';
  const generate = opts.generator ?? generateKernel;
  // pure phases (stepPlan.ts): schedule, kernel plans, storage and memory plan, host index checks
  const plan = planStep(graph, device.caps, generate);
  const { writes, copies, plans, rootOf, memory } = plan;

  // Error scopes are a stack shared by everything on the device: a scope must never stay open across an
  // `await`, or a concurrent compile or step pops it and takes our errors (issue 9, item 7). So each
  // synchronous stretch of GPU calls gets its own pair of scopes, popped before the next await.
  const scopeErrors: Promise<GPUError | null>[] = [];
  let open = false;
  const openScopes = () => {
    gpu.pushErrorScope('out-of-memory');
    gpu.pushErrorScope('validation');
    open = true;
  };
  const closeScopes = () => {
    if (!open) return;
    open = false;
    scopeErrors.push(gpu.popErrorScope(), gpu.popErrorScope());
  };
  const checkScopes = async (phase: string) => {
    closeScopes();
    const err = (await Promise.all(scopeErrors.splice(0))).find((e) => e);
    if (err) throw new GpuValidationError(phase, err.message);
  };
  openScopes();
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const buffers = memory.buffers.map((b) =>
    gpu.createBuffer({ label: `${label}.${b.persistent ? 'persistent' : 'transient'}${b.index}[${b.tensors.slice(0, 4).map((k) => describe(graph, k)).join(',')}${b.tensors.length > 4 ? ',…' : ''}]`, size: b.bytes, usage }),
  );
  const bufferFor = (key: string) => buffers[memory.bufferOf.get(key) as number];
  const storageOf = (id: NodeId) => bufferFor(`n${rootOf(id)}`);

  let session: Session | undefined;
  try {
    // GPU phases: leaves (params/state from their init or initialState, consts once; inputs are written per step)
    const state = uploadLeaves(gpu, graph, plan, storageOf, { initialState: opts.initialState, label, usage, buffers });
    const { inputs, deadInputs, outputs } = ioSlots(graph, plan, storageOf);

    // pipelines (async, in parallel, deduplicated) and bind groups
    const cache = opts.pipelineCache ?? new PipelineCache(gpu);
    const jobs = bindDispatches(graph, plan, storageOf, bufferFor);
    closeScopes(); // the pipeline cache scopes its own calls
    const compiled = await Promise.all(jobs.map((j) => cache.get({ label: j.label, code: j.d.code, bindings: j.d.bindings })));
    openScopes();
    const dispatches: RecordedDispatch[] = jobs.map((j, k) => ({
      label: j.label,
      pipeline: compiled[k].pipeline,
      bindGroup: gpu.createBindGroup({ label: j.label, layout: compiled[k].layout, entries: j.entries }),
      grid: j.d.grid,
      kernel: j.kernel,
    }));

    // copies for updates that could not be written in place
    const { preCopies, postCopies } = recordCopies(graph, copies, storageOf, bufferFor);

    const kernels = plans.size;
    const stats: SessionStats = {
      dispatchesPerStep: dispatches.length,
      kernels,
      pipelines: new Set(dispatches.map((d) => d.pipeline)).size,
      bytesAllocated: memory.report.bytesAllocated,
      bytesIfUnshared: memory.report.bytesIfUnshared,
      copiesPerStep: preCopies.length + postCopies.length,
      inPlaceUpdates: writes.size,
      memory: memory.report,
    };
    session = new Session({
      device,
      graph,
      label,
      inputs,
      deadInputs,
      outputs,
      state,
      dispatches,
      preCopies,
      postCopies,
      buffers,
      stats,
      readbackSlots: opts.readbackSlots ?? 2,
    });
    await checkScopes('compile');
    return session;
  } catch (e) {
    await checkScopes('compile').catch(() => undefined);
    if (session) await session.dispose();
    else for (const b of buffers) b.destroy();
    throw e;
  }
}

/** GPU phase: uploads params/state (from `initialState` or their init) and constants; returns the state by name. */
function uploadLeaves(
  gpu: GPUDevice,
  graph: Graph,
  plan: StepPlan,
  storageOf: (id: NodeId) => GPUBuffer,
  o: { initialState?: Readonly<Record<string, FeedValue>>; label: string; usage: number; buffers: GPUBuffer[] },
): Map<string, NamedTensor> {
  const named = new Map<string, Node>();
  for (const n of graph.nodes) if (n.op === 'param' || n.op === 'state' || n.op === 'input') named.set(leafName(n) as string, n);
  for (const key of Object.keys(o.initialState ?? {})) {
    const n = named.get(key);
    if (!n || n.op === 'input') throw new InputError(key, `compile: initialState '${key}' is not a param or state of this graph (${[...named.values()].filter((x) => x.op !== 'input').map((x) => leafName(x)).join(', ') || 'none'})`);
  }
  const state = new Map<string, NamedTensor>();
  for (const n of graph.nodes) {
    if (n.op !== 'param' && n.op !== 'state') continue;
    const name = leafName(n) as string;
    // a param/state that is not live still gets a buffer so that it can be read and written by name
    const buffer = plan.pos.has(n.id) ? storageOf(n.id) : gpu.createBuffer({ label: `${o.label}.unused[${name}]`, size: alignedBytes(tensorBytes(n)), usage: o.usage });
    if (!plan.pos.has(n.id)) o.buffers.push(buffer);
    const given = o.initialState?.[name];
    const init = given ?? initialValue(n.attrs.init, n.shape, n.dtype);
    const data = toDeviceData(name, n, init);
    gpu.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    state.set(name, { name, node: n, buffer, bytes: tensorBytes(n) });
  }
  for (const id of plan.order) {
    const n = graph.nodes[id];
    if (n.op !== 'const') continue;
    const v = initialValue({ kind: 'fill', value: n.attrs.value }, n.shape, n.dtype);
    const data = toDeviceData(`const ${id}`, n, v);
    gpu.queue.writeBuffer(storageOf(id), 0, data.buffer, data.byteOffset, data.byteLength);
  }
  return state;
}

/** The inputs a step feeds (with their host checks), the dead inputs it accepts and ignores, and the outputs. */
function ioSlots(graph: Graph, plan: StepPlan, storageOf: (id: NodeId) => GPUBuffer): { inputs: InputSlot[]; deadInputs: Set<string>; outputs: Map<string, NamedTensor> } {
  const inputs: InputSlot[] = [];
  const deadInputs = new Set<string>();
  for (const n of graph.nodes) {
    if (n.op !== 'input') continue;
    if (!plan.pos.has(n.id)) deadInputs.add(leafName(n) as string);
    else inputs.push({ name: leafName(n) as string, node: n, buffer: storageOf(n.id), labelChecks: plan.indexChecks.get(n.id) ?? [] });
  }
  const outputs = new Map<string, NamedTensor>();
  for (const [name, id] of graph.outputs) outputs.set(name, { name, node: graph.nodes[id], buffer: storageOf(id), bytes: tensorBytes(graph.nodes[id]) });
  return { inputs, deadInputs, outputs };
}

/** One dispatch of a plan with its bind group entries, before its pipeline exists. */
interface DispatchJob {
  readonly id: NodeId;
  readonly d: KernelPlan['dispatches'][number];
  readonly label: string;
  readonly entries: GPUBindGroupEntry[];
  readonly kernel: KernelInfo;
}

/**
 * GPU phase: the bind group entries of every dispatch, each binding resolved to its buffer (input, output or a
 * result of a multi-result kernel, scratch); refuses one buffer bound writable twice in one dispatch.
 */
function bindDispatches(graph: Graph, step: StepPlan, storageOf: (id: NodeId) => GPUBuffer, bufferFor: (key: string) => GPUBuffer): DispatchJob[] {
  const jobs: DispatchJob[] = [];
  for (const id of step.order) {
    const plan = step.plans.get(id);
    if (!plan) continue;
    const n = graph.nodes[id];
    const kernel = kernelInfoOf(graph, n);
    plan.dispatches.forEach((d, j) => {
      const dl = `${d.label}#${id}${plan.dispatches.length > 1 ? `.${j}` : ''}`;
      const bound: { buffer: GPUBuffer; write: boolean; what: string }[] = [];
      const entries = d.bindings.map((b, i): GPUBindGroupEntry => {
        let buffer: GPUBuffer;
        let size: number;
        let what: string;
        if (b.source.kind === 'input') {
          const src = n.inputs[b.source.index];
          buffer = storageOf(src);
          size = tensorBytes(graph.nodes[src]);
          what = `input ${b.source.index}`;
        } else if (b.source.kind === 'output') {
          const r = b.source.index ?? 0;
          const holder = r === 0 ? id : step.resultNode.get(id)?.get(r);
          if (holder === undefined) throw new Error(`compile: ${dl} writes result ${r}, which no live node holds`);
          buffer = storageOf(holder);
          size = tensorBytes(graph.nodes[holder]); // results may differ in type (attentionWithLse's log-sum-exp)
          what = r === 0 ? 'output' : `result ${r}`;
        } else {
          buffer = bufferFor(`n${id}.s${b.source.index}`);
          size = plan.scratch[b.source.index];
          what = `scratch ${b.source.index}`;
        }
        const write = b.access === 'read_write';
        const clash = bound.find((x) => x.buffer === buffer && (x.write || write));
        if (clash)
          throw new Error(`compile: ${dl} binds one buffer as ${clash.what} and ${what} with a writable binding (WebGPU forbids it in one dispatch)`);
        bound.push({ buffer, write, what });
        return { binding: i, resource: { buffer, offset: 0, size: Math.max(4, Math.ceil(size / 4) * 4) } };
      });
      jobs.push({ id, d, label: dl, entries, kernel });
    });
  }
  return jobs;
}

/** The copies of updates that could not be written in place (through a temporary when the value is a state). */
function recordCopies(
  graph: Graph,
  copies: readonly StateCopy[],
  storageOf: (id: NodeId) => GPUBuffer,
  bufferFor: (key: string) => GPUBuffer,
): { preCopies: RecordedCopy[]; postCopies: RecordedCopy[] } {
  const preCopies: RecordedCopy[] = [];
  const postCopies: RecordedCopy[] = [];
  for (const c of copies) {
    const bytes = tensorBytes(graph.nodes[c.state]);
    const dst = storageOf(c.state);
    if (c.viaTemp) {
      const temp = bufferFor(`copy${c.state}`);
      preCopies.push({ src: storageOf(c.value), dst: temp, bytes });
      postCopies.push({ src: temp, dst, bytes });
    } else postCopies.push({ src: storageOf(c.value), dst, bytes });
  }
  return { preCopies, postCopies };
}

function describe(graph: Graph, key: string): string {
  const m = /^n(\d+)(\.s\d+)?$/.exec(key);
  if (!m) return key;
  const n = graph.nodes[Number(m[1])];
  return `${leafName(n) ?? `${n.op}#${n.id}`}${m[2] ?? ''}`;
}

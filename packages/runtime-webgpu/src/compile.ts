// compile(graph, device): the live nodes of a graph become one replayable step — the pure phases of stepPlan.ts
// (kernel plans, storage, index checks), then the GPU phases here: buffers, leaf uploads, pipelines and bind
// groups, copies, created once. Must not allocate GPU objects per step (everything a Session replays is made here).
// Invariant: a dispatch never binds one buffer both read-only and writable; every GPU object has a label.

import { alignedBytes, type Graph, initialValue, leafName, type Node, type NodeId } from '@neura/ir';
import { generateKernel, type KernelGenerator, literalTableBytes, loadKernels, type KernelPlan, type MatmulTuning } from '@neura/wgsl-kernels';
import type { NeuraDevice } from './device.js';
import { ErrorScopes } from './errorScopes.js';
import { InputError } from './errors.js';
import { type FeedValue, toDeviceData } from './feeds.js';
import { PipelineCache } from './pipelineCache.js';
import { tunedCaps } from './matmulTuning.js';
import { matmulTuningOf } from './shippedMatmulTuning.js';
import { capsFor, type Precision } from './precision.js';
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
  /** `fp32` (default) or `mixed`: f16 matmul operands on tensor cores, f32 accumulation (see precision.ts). */
  readonly precision?: Precision;
  /** Measured matmul choices (`tuneMatmul`): listed shapes run their configuration; an entry that does not fit is an error. */
  readonly matmulTuning?: MatmulTuning;
  /** Whether the runtime's shipped table for this adapter and driver (shippedMatmulTuning.ts) applies under `matmulTuning` (default true; fp32 only: `true` under `precision: 'mixed'` is a RangeError). */
  readonly shippedMatmulTuning?: boolean;
}

/** Compiles the live part of a graph for a device: kernels, memory plan, pipelines, bind groups. */
export async function compile(graph: Graph, device: NeuraDevice, opts: CompileOptions = {}): Promise<Session> {
  device.check();
  const gpu = device.gpu;
  const label = opts.label ?? 'neura';
  // the code of the generators this graph's ops need (attention, conv, indexing and rope/dropout/cumsum load on demand; so does the
  // mixed-precision code, for a graph with f16 tensors or under the mixed policy), then the pure phases
  // (stepPlan.ts): schedule, kernel plans, storage and memory plan, host index checks
  const caps = tunedCaps(capsFor(device, opts.precision), matmulTuningOf(device, opts));
  const f16 = graph.nodes.some((n) => n.dtype === 'f16' || (n.op === 'matmulEpilogue' && (n as Node<'matmulEpilogue'>).attrs.round?.some(Boolean)));
  await loadKernels(
    graph.nodes.map((n) => n.op),
    { mixed: f16 || caps.mixedMatmul !== undefined },
  );
  const plan = planStep(graph, caps, opts.generator ?? generateKernel);
  const scopes = new ErrorScopes(gpu);
  scopes.begin();
  const buffers = createBuffers(gpu, graph, plan.memory, label);
  const bufferFor = (key: string) => buffers[plan.memory.bufferOf.get(key) as number];
  const storageOf = (id: NodeId) => bufferFor(`n${plan.rootOf(id)}`);
  let session: Session | undefined;
  try {
    // GPU phases: leaves (params/state from their init or initialState, consts once; inputs are written per step)
    const state = uploadLeaves(gpu, graph, plan, storageOf, { initialState: opts.initialState, label, buffers });
    for (const [id, table] of plan.tables) gpu.queue.writeBuffer(bufferFor(`n${id}.table`), 0, table.buffer, table.byteOffset, table.byteLength);
    const { inputs, deadInputs, outputs } = ioSlots(graph, plan, storageOf);
    const jobs = bindDispatches(gpu, graph, plan, { storageOf, bufferFor, buffers });
    const dispatches = await createDispatches(gpu, jobs, opts.pipelineCache ?? new PipelineCache(gpu), scopes);
    // copies for updates that could not be written in place
    const { preCopies, postCopies } = recordCopies(graph, plan, plan.copies, storageOf, bufferFor);
    const stats = sessionStats(plan, dispatches, preCopies.length + postCopies.length);
    const readbackSlots = opts.readbackSlots ?? 2;
    session = new Session({ device, graph, label, inputs, deadInputs, outputs, state, dispatches, preCopies, postCopies, buffers, stats, readbackSlots });
    await scopes.check('compile');
    return session;
  } catch (e) {
    await scopes.check('compile').catch(() => undefined);
    if (session) await session.dispose();
    else for (const b of buffers) b.destroy();
    throw e;
  }
}

// a function, not a constant: in Node the WebGPU globals exist only once a device was created
const storageUsage = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

/** GPU phase: one buffer per buffer of the memory plan, labelled with the first tensors it holds. */
function createBuffers(gpu: GPUDevice, graph: Graph, memory: StepPlan['memory'], label: string): GPUBuffer[] {
  return memory.buffers.map((b) => {
    const held = `${b.tensors.slice(0, 4).map((k) => describe(graph, k)).join(',')}${b.tensors.length > 4 ? ',…' : ''}`;
    return gpu.createBuffer({ label: `${label}.${b.persistent ? 'persistent' : 'transient'}${b.index}[${held}]`, size: b.bytes, usage: storageUsage() });
  });
}

/**
 * GPU phase: pipelines (async, in parallel, deduplicated by the cache, which scopes its own calls: ours are
 * closed across the await) and one bind group per dispatch.
 */
async function createDispatches(gpu: GPUDevice, jobs: readonly DispatchJob[], cache: PipelineCache, scopes: ErrorScopes): Promise<RecordedDispatch[]> {
  scopes.end();
  const compiled = await Promise.all(jobs.map((j) => cache.get({ label: j.label, code: j.d.code, bindings: j.d.bindings })));
  scopes.begin();
  return jobs.map((j, k) => ({
    label: j.label,
    pipeline: compiled[k].pipeline,
    bindGroup: gpu.createBindGroup({ label: j.label, layout: compiled[k].layout, entries: j.entries }),
    grid: j.d.grid,
    kernel: j.kernel,
  }));
}

/** What a session reports about its step: dispatches, kernels, pipelines, memory, copies, in-place updates. */
function sessionStats(plan: StepPlan, dispatches: readonly RecordedDispatch[], copiesPerStep: number): SessionStats {
  return {
    dispatchesPerStep: dispatches.length,
    kernels: plan.plans.size,
    pipelines: new Set(dispatches.map((d) => d.pipeline)).size,
    bytesAllocated: plan.memory.report.bytesAllocated,
    bytesIfUnshared: plan.memory.report.bytesIfUnshared,
    copiesPerStep,
    inPlaceUpdates: plan.writes.size,
    multiTensorArenas: plan.arenas.size,
    memory: plan.memory.report,
  };
}

/** GPU phase: uploads params/state (from `initialState` or their init) and constants; returns the state by name. */
function uploadLeaves(
  gpu: GPUDevice,
  graph: Graph,
  plan: StepPlan,
  storageOf: (id: NodeId) => GPUBuffer,
  o: { initialState?: Readonly<Record<string, FeedValue>>; label: string; buffers: GPUBuffer[] },
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
    const buffer = plan.pos.has(n.id) ? storageOf(n.id) : gpu.createBuffer({ label: `${o.label}.unused[${name}]`, size: alignedBytes(tensorBytes(n)), usage: storageUsage() });
    if (!plan.pos.has(n.id)) o.buffers.push(buffer);
    const given = o.initialState?.[name];
    const init = given ?? initialValue(n.attrs.init, n.shape, n.dtype, name);
    const data = toDeviceData(name, n, init);
    const offset = plan.pos.has(n.id) ? offsetIn(plan, n.id) : 0;
    gpu.queue.writeBuffer(buffer, offset, data.buffer, data.byteOffset, data.byteLength);
    state.set(name, { name, node: n, buffer, offset, bytes: tensorBytes(n) });
  }
  for (const id of plan.order) {
    const n = graph.nodes[id];
    if (n.op !== 'const') continue;
    const v = initialValue({ kind: 'fill', value: n.attrs.value }, n.shape, n.dtype);
    const data = toDeviceData(`const ${id}`, n, v);
    gpu.queue.writeBuffer(storageOf(id), offsetIn(plan, id), data.buffer, data.byteOffset, data.byteLength);
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
    else inputs.push({ name: leafName(n) as string, node: n, buffer: storageOf(n.id), offset: offsetIn(plan, n.id), labelChecks: plan.indexChecks.get(n.id) ?? [] });
  }
  const outputs = new Map<string, NamedTensor>();
  for (const [name, id] of graph.outputs) outputs.set(name, { name, node: graph.nodes[id], buffer: storageOf(id), offset: offsetIn(plan, id), bytes: tensorBytes(graph.nodes[id]) });
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
 * result of a multi-result kernel, scratch, a literal table made here and owned with `buffers`); refuses one buffer
 * bound writable and read-only, or writable twice over overlapping ranges, in one dispatch.
 */
function bindDispatches(
  gpu: GPUDevice,
  graph: Graph,
  step: StepPlan,
  o: { storageOf: (id: NodeId) => GPUBuffer; bufferFor: (key: string) => GPUBuffer; buffers: GPUBuffer[] },
): DispatchJob[] {
  const { storageOf, bufferFor, buffers } = o;
  const jobs: DispatchJob[] = [];
  for (const id of step.order) {
    const plan = step.plans.get(id);
    if (!plan) continue;
    const n = graph.nodes[id];
    const kernel = kernelInfoOf(graph, n);
    plan.dispatches.forEach((d, j) => {
      const dl = `${d.label}#${id}${plan.dispatches.length > 1 ? `.${j}` : ''}`;
      const bound: { buffer: GPUBuffer; write: boolean; what: string; offset: number; end: number }[] = [];
      const entries = d.bindings.map((b, i): GPUBindGroupEntry => {
        let buffer: GPUBuffer;
        let size: number;
        let what: string;
        let offset = 0;
        if (b.source.kind === 'input') {
          const src = n.inputs[b.source.index];
          buffer = storageOf(src);
          offset = offsetIn(step, src);
          size = tensorBytes(graph.nodes[src]);
          what = `input ${b.source.index}`;
        } else if (b.source.kind === 'output') {
          const r = b.source.index ?? 0;
          const holder = r === 0 ? id : step.resultNode.get(id)?.get(r);
          if (holder === undefined) throw new Error(`compile: ${dl} writes result ${r}, which no live node holds`);
          buffer = storageOf(holder);
          offset = offsetIn(step, holder);
          size = tensorBytes(graph.nodes[holder]); // results may differ in type (attentionWithLse's log-sum-exp)
          what = r === 0 ? 'output' : `result ${r}`;
        } else if (b.source.kind === 'arena') {
          // every group's operand of this role, laid out in one buffer from the arena's start (see arenaPlan.ts)
          const arena = step.memory.arenas.get(step.arenas.get(id)?.[b.source.role]?.key ?? '');
          if (!arena) throw new Error(`compile: ${dl} binds the arena of role ${b.source.role}, which the memory plan did not make`);
          buffer = buffers[arena.buffer];
          size = arena.bytes;
          what = `arena ${b.source.role}`;
        } else if (b.source.kind === 'table') {
          buffer = bufferFor(`n${id}.table`);
          size = b.source.words * 4;
          what = 'table';
        } else if (b.source.kind === 'literals') {
          buffer = literalsBuffer(gpu, `${dl}.literals`, b.source.data);
          buffers.push(buffer); // destroyed with the session's buffers
          size = literalTableBytes(b.source.data.length);
          what = 'literals';
        } else {
          buffer = bufferFor(`n${id}.s${b.source.index}`);
          size = plan.scratch[b.source.index];
          what = `scratch ${b.source.index}`;
        }
        const write = b.access === 'read_write';
        const end = offset + size;
        // WebGPU: a buffer bound writable may not also be bound read-only in one dispatch, and writable bindings
        // may not overlap; two writable ranges that do not (results of one kernel in one arena) are valid
        const clash = bound.find((x) => x.buffer === buffer && (x.write !== write || (write && x.offset < end && offset < x.end)));
        if (clash)
          throw new Error(`compile: ${dl} binds one buffer as ${clash.what} and ${what}, ${clash.write && write ? 'overlapping writable ranges' : 'writable and read-only'} (WebGPU forbids it in one dispatch)`);
        bound.push({ buffer, write, what, offset, end });
        return { binding: i, resource: { buffer, offset, size: Math.max(4, Math.ceil(size / 4) * 4) } };
      });
      jobs.push({ id, d, label: dl, entries, kernel });
    });
  }
  return jobs;
}

/** A uniform buffer holding `data` (a kernel's float literals, literals.ts in wgsl-kernels), written at creation. */
function literalsBuffer(gpu: GPUDevice, label: string, data: Float32Array): GPUBuffer {
  const buffer = gpu.createBuffer({ label, size: literalTableBytes(data.length), usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true });
  new Float32Array(buffer.getMappedRange()).set(data);
  buffer.unmap();
  return buffer;
}

/** The copies of updates that could not be written in place (through a temporary when the value is a state). */
function recordCopies(
  graph: Graph,
  plan: StepPlan,
  copies: readonly StateCopy[],
  storageOf: (id: NodeId) => GPUBuffer,
  bufferFor: (key: string) => GPUBuffer,
): { preCopies: RecordedCopy[]; postCopies: RecordedCopy[] } {
  const preCopies: RecordedCopy[] = [];
  const postCopies: RecordedCopy[] = [];
  for (const c of copies) {
    const bytes = tensorBytes(graph.nodes[c.state]);
    const dst = storageOf(c.state);
    const at = { src: offsetIn(plan, c.value), dst: offsetIn(plan, c.state) };
    if (c.viaTemp) {
      const temp = bufferFor(`copy${c.state}`);
      preCopies.push({ src: storageOf(c.value), srcOffset: at.src, dst: temp, dstOffset: 0, bytes });
      postCopies.push({ src: temp, srcOffset: 0, dst, dstOffset: at.dst, bytes });
    } else postCopies.push({ src: storageOf(c.value), srcOffset: at.src, dst, dstOffset: at.dst, bytes });
  }
  return { preCopies, postCopies };
}

/** Byte offset of a node's value in its buffer (non-zero only for tensors in an arena). */
function offsetIn(plan: StepPlan, id: NodeId): number {
  return plan.memory.offsetOf.get(`n${plan.rootOf(id)}`) ?? 0;
}

function describe(graph: Graph, key: string): string {
  const m = /^n(\d+)(\.s\d+)?$/.exec(key);
  if (!m) return key;
  const n = graph.nodes[Number(m[1])];
  return `${leafName(n) ?? `${n.op}#${n.id}`}${m[2] ?? ''}`;
}

// compile(graph, device): the live nodes of a graph become one replayable step — a kernel plan per node,
// buffers from the memory plan (state written in place where legal), pipelines and bind groups created
// once. Must not allocate GPU objects per step (everything a Session replays is made here).
// Invariant: a dispatch never binds one buffer both read-only and writable; every GPU object has a label.

import { type Graph, indexOperandsOf, initialValue, isAliasOp, isLeafOp, kernelIllegality, leafName, type Node, type NodeId, numel, type OpAttrs } from '@neura/ir';
import { type DeviceCaps, generateKernel, type KernelGenerator, type KernelPlan, KernelError, type ResultTarget } from '@neura/wgsl-kernels';
import type { NeuraDevice } from './device.js';
import { GpuValidationError, InputError } from './errors.js';
import { type FeedValue, toDeviceData } from './feeds.js';
import { alignedBytes, planMemory, type TensorLifetime } from './memoryPlan.js';
import { PipelineCache } from './pipelineCache.js';
import type { IndexCheck, InputSlot, NamedTensor, RecordedCopy, RecordedDispatch, SessionStats } from './compiledStep.js';
import { Session } from './session.js';
import { type KernelInfo, kernelInfoOf } from './stepProfile.js';
import { planUpdates, type StateCopy, type StateWrite } from './updatePlan.js';

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

const isLeaf = (n: Node) => isLeafOp(n.op);
const tensorBytes = (n: Node) => numel(n.shape) * 4;

/**
 * Refuses a node that `@neura/ir`'s kernel facts call illegal on this device: the same check the e-graph's
 * cost model makes, so an optimizer given the device's limits never reaches this.
 */
function checkLegal(graph: Graph, n: Node, caps: DeviceCaps): void {
  const ins = [...new Set(n.inputs)].map((i) => graph.nodes[i]);
  const why = kernelIllegality(n.op, ins, n, caps);
  if (why) throw new KernelError(`${why} (optimize with this device's limits: optimize(graph, { limits: device.caps }))`);
}

/** Compiles the live part of a graph for a device: kernels, memory plan, pipelines, bind groups. */
export async function compile(graph: Graph, device: NeuraDevice, opts: CompileOptions = {}): Promise<Session> {
  device.check();
  const gpu = device.gpu;
  const label = opts.label ?? 'neura';
  const generate = opts.generator ?? generateKernel;
  const live = graph.live();
  const updates = planUpdates(graph, live);
  const order = updates.order;
  const node = (id: NodeId) => graph.nodes[id];
  const writes = new Map<NodeId, StateWrite>(updates.writes);
  const copies: StateCopy[] = [...updates.copies];

  // the node holding each result of a multi-result kernel: result 0 is the node itself, the others its picks
  const resultNode = new Map<NodeId, Map<number, NodeId>>();
  for (const id of live) {
    const n = node(id);
    if (n.op === 'pointwiseMulti') resultNode.set(id, new Map([[0, id], ...(resultNode.get(id) ?? [])]));
    if (n.op !== 'pick') continue;
    const m = resultNode.get(n.inputs[0]) ?? new Map<number, NodeId>();
    m.set((n.attrs as OpAttrs['pick']).index, id);
    resultNode.set(n.inputs[0], m);
  }
  /** Where each result of a multi-result node goes: in place into a state, its node's buffer, or nowhere. */
  const resultsOf = (id: NodeId): ResultTarget[] =>
    (node(id).attrs as OpAttrs['pointwiseMulti']).exprs.map((_, j) => {
      const v = resultNode.get(id)?.get(j);
      if (v === undefined) return 'unused';
      const w = writes.get(v);
      return w?.multi ? { inPlace: w.input as number } : 'buffer';
    });

  // 1. a kernel plan per non-leaf, non-alias node (in-place where the update plan allows it)
  const plans = new Map<NodeId, KernelPlan>();
  for (const id of order) {
    const n = node(id);
    if (isLeaf(n) || isAliasOp(n.op) || n.op === 'pick') continue;
    const inputs = n.inputs.map((i) => ({ shape: node(i).shape, dtype: node(i).dtype }));
    const w = writes.get(id);
    try {
      checkLegal(graph, n, device.caps);
      if (n.op === 'pointwiseMulti') {
        plans.set(id, generate({ node: n, inputs, results: resultsOf(id) }, device.caps));
        continue;
      }
      if (w?.mode === 'elementwise') {
        try {
          plans.set(id, generate({ node: n, inputs, inPlace: w.input }, device.caps));
          continue;
        } catch (e) {
          if (!(e instanceof KernelError)) throw e;
          // the generator refused in-place: fall back to a copy after the pass
          writes.delete(id);
          const u = graph.updates.find((x) => x.value === id && x.state === w.state) as { state: NodeId; value: NodeId };
          copies.push({ state: u.state, value: u.value, viaTemp: false, reason: `generator refused in-place: ${(e as Error).message}` });
        }
      }
      plans.set(id, generate({ node: n, inputs }, device.caps));
    } catch (e) {
      const where = n.site ? ` (built at ${n.site})` : '';
      const msg = `${n.op} node ${id}${where}: ${(e as Error).message}`;
      throw e instanceof KernelError ? new KernelError(msg, { cause: e }) : new Error(msg, { cause: e });
    }
  }

  // 2. storage: every live node's value lives in its root's buffer (reshape → input, in-place → state)
  // iterative and memoised: a chain of 20k reshapes must neither overflow the stack nor cost O(n²) (issue 9, item 12)
  const roots = new Map<NodeId, NodeId>();
  const rootOf = (id: NodeId): NodeId => {
    const path: NodeId[] = [];
    let r = id;
    while (isAliasOp(node(r).op) && !roots.has(r)) {
      path.push(r);
      r = node(r).inputs[0];
    }
    // a multi-result node whose result 0 is held by a pick: its value lives where that pick's does
    const r0 = node(r).op === 'pointwiseMulti' ? resultNode.get(r)?.get(0) : undefined;
    const root = r0 !== undefined && r0 !== r ? rootOf(r0) : (roots.get(r) ?? writes.get(r)?.state ?? r);
    for (const p of path) roots.set(p, root);
    return root;
  };
  const pos = new Map<NodeId, number>(order.map((id, i) => [id, i]));
  const end = order.length; // after the pass: outputs and copy sources live until then
  const lastUse = new Map<NodeId, number>();
  const use = (id: NodeId, at: number) => {
    const r = rootOf(id);
    lastUse.set(r, Math.max(lastUse.get(r) ?? -1, at));
  };
  for (const id of order) for (const i of node(id).inputs) use(i, pos.get(id) as number);
  for (const id of graph.outputs.values()) use(id, end);
  for (const c of copies) use(c.value, end);
  const lifetimes: TensorLifetime[] = [];
  for (const id of order) {
    const n = node(id);
    if (rootOf(id) !== id) continue;
    // a pick's buffer is written by its multi-result kernel: it lives from that kernel on
    const start = pos.get(n.op === 'pick' ? n.inputs[0] : id) as number;
    lifetimes.push({ key: `n${id}`, bytes: tensorBytes(n), start, end: Math.max(start, lastUse.get(id) ?? start), persistent: isLeaf(n) });
    const scratch = plans.get(id)?.scratch ?? [];
    for (let k = 0; k < scratch.length; k++) lifetimes.push({ key: `n${id}.s${k}`, bytes: scratch[k], start, end: start, persistent: false });
  }
  for (const c of copies)
    if (c.viaTemp) lifetimes.push({ key: `copy${c.state}`, bytes: tensorBytes(node(c.state)), start: -1, end, persistent: false });
  const memory = planMemory(lifetimes);

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
    // 3. leaves: params/state from their init (or initialState), consts once; inputs are written per step
    const named = new Map<string, Node>();
    for (const n of graph.nodes) if (n.op === 'param' || n.op === 'state' || n.op === 'input') named.set(leafName(n) as string, n);
    for (const key of Object.keys(opts.initialState ?? {})) {
      const n = named.get(key);
      if (!n || n.op === 'input') throw new InputError(key, `compile: initialState '${key}' is not a param or state of this graph (${[...named.values()].filter((x) => x.op !== 'input').map((x) => leafName(x)).join(', ') || 'none'})`);
    }
    const state = new Map<string, NamedTensor>();
    for (const n of graph.nodes) {
      if (n.op !== 'param' && n.op !== 'state') continue;
      const name = leafName(n) as string;
      // a param/state that is not live still gets a buffer so that it can be read and written by name
      const buffer = pos.has(n.id) ? storageOf(n.id) : gpu.createBuffer({ label: `${label}.unused[${name}]`, size: alignedBytes(tensorBytes(n)), usage });
      if (!pos.has(n.id)) buffers.push(buffer);
      const given = opts.initialState?.[name];
      const init = given ?? initialValue(n.attrs.init, n.shape, n.dtype);
      const data = toDeviceData(name, n, init);
      gpu.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
      state.set(name, { name, node: n, buffer, bytes: tensorBytes(n) });
    }
    for (const id of order) {
      const n = node(id);
      if (n.op !== 'const') continue;
      const v = initialValue({ kind: 'fill', value: n.attrs.value }, n.shape, n.dtype);
      const data = toDeviceData(`const ${id}`, n, v);
      gpu.queue.writeBuffer(storageOf(id), 0, data.buffer, data.byteOffset, data.byteLength);
    }

    // labels and indices fed directly (through aliases) are checked on the host before each step
    const labelChecks = new Map<NodeId, IndexCheck[]>();
    for (const id of order) {
      const n = node(id);
      for (const ix of indexOperandsOf(n.op)) {
        const r = rootOf(n.inputs[ix.operand]);
        if (node(r).op !== 'input') continue; // computed labels/indices cannot be checked on the host
        let l = labelChecks.get(r);
        if (!l) labelChecks.set(r, (l = []));
        const operands = n.inputs.map((i) => node(i));
        l.push({ role: ix.role, bound: ix.bound(n.attrs, operands), what: ix.describe(n.attrs) });
      }
    }
    const inputs: InputSlot[] = [];
    const deadInputs = new Set<string>();
    for (const n of graph.nodes) {
      if (n.op !== 'input') continue;
      if (!pos.has(n.id)) deadInputs.add(leafName(n) as string);
      else inputs.push({ name: leafName(n) as string, node: n, buffer: storageOf(n.id), labelChecks: labelChecks.get(n.id) ?? [] });
    }
    const outputs = new Map<string, NamedTensor>();
    for (const [name, id] of graph.outputs) outputs.set(name, { name, node: node(id), buffer: storageOf(id), bytes: tensorBytes(node(id)) });

    // 4. pipelines (async, in parallel, deduplicated) and bind groups
    const cache = opts.pipelineCache ?? new PipelineCache(gpu);
    const jobs: { id: NodeId; d: KernelPlan['dispatches'][number]; label: string; entries: GPUBindGroupEntry[]; kernel: KernelInfo }[] = [];
    for (const id of order) {
      const plan = plans.get(id);
      if (!plan) continue;
      const n = node(id);
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
            size = tensorBytes(node(src));
            what = `input ${b.source.index}`;
          } else if (b.source.kind === 'output') {
            const r = b.source.index ?? 0;
            const holder = r === 0 ? id : resultNode.get(id)?.get(r);
            if (holder === undefined) throw new Error(`compile: ${dl} writes result ${r}, which no live node holds`);
            buffer = storageOf(holder);
            size = tensorBytes(n);
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

    // 5. copies for updates that could not be written in place
    const preCopies: RecordedCopy[] = [];
    const postCopies: RecordedCopy[] = [];
    for (const c of copies) {
      const bytes = tensorBytes(node(c.state));
      const dst = storageOf(c.state);
      if (c.viaTemp) {
        const temp = bufferFor(`copy${c.state}`);
        preCopies.push({ src: storageOf(c.value), dst: temp, bytes });
        postCopies.push({ src: temp, dst, bytes });
      } else postCopies.push({ src: storageOf(c.value), dst, bytes });
    }

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

function describe(graph: Graph, key: string): string {
  const m = /^n(\d+)(\.s\d+)?$/.exec(key);
  if (!m) return key;
  const n = graph.nodes[Number(m[1])];
  return `${leafName(n) ?? `${n.op}#${n.id}`}${m[2] ?? ''}`;
}

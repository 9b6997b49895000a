// The pure phases of compile: what a graph's step needs, decided before any GPU object exists — the kernel plan
// of each node (in place where the update plan allows), where each value is stored (aliases and in-place writes
// share their root's buffer; a liveness-based memory plan), and the host checks of fed labels and indices. Each
// phase is a named function, testable without a device. Must not touch WebGPU.

import { type Graph, indexOperandsOf, type MemoryPlan, planMemory, type TensorLifetime, isAliasOp, isLeafOp, isMultiResultOp, bufferBytes, kernelIllegality, kernelOutputs, type Node, type NodeId, numel } from '@neura/ir';
import { type BindingSource, type DeviceCaps, type KernelGenerator, type KernelPlan, KernelError, type ResultTarget } from '@neura/wgsl-kernels';
import { type ArenaChoice, arenaClashes, arenaTables, planArenas } from './arenaPlan.js';
import type { IndexCheck } from './compiledStep.js';
import { planUpdates, type StateCopy, type StateWrite } from './updatePlan.js';

const isLeaf = (n: Node) => isLeafOp(n.op);
/** Bytes of a node's value on the device. */
export const tensorBytes = (n: Node) => bufferBytes(n.dtype, numel(n.shape));

/** The order, in-place writes and copies of a step (from the update plan; phases may turn writes into copies). */
export interface StepSchedule {
  readonly live: readonly NodeId[];
  readonly order: readonly NodeId[];
  readonly writes: Map<NodeId, StateWrite>;
  readonly copies: StateCopy[];
  /** The node holding each result of a multi-result kernel: result 0 is the node itself, the others its picks. */
  readonly resultNode: ReadonlyMap<NodeId, ReadonlyMap<number, NodeId>>;
}

/** Everything compile decides before touching the GPU. */
export interface StepPlan extends StepSchedule {
  readonly plans: ReadonlyMap<NodeId, KernelPlan>;
  /** The node whose buffer holds a node's value. */
  readonly rootOf: (id: NodeId) => NodeId;
  /** Position of each live node in `order`. */
  readonly pos: ReadonlyMap<NodeId, number>;
  readonly memory: MemoryPlan;
  /** Host checks of each fed input read as labels or indices. */
  readonly indexChecks: ReadonlyMap<NodeId, IndexCheck[]>;
  /** Multi-tensor nodes that run as one dispatch, with the arena of each operand role. */
  readonly arenas: ArenaChoice;
  /** The offset table each of those reads (uploaded once, at memory-plan key `n<id>.table`). */
  readonly tables: ReadonlyMap<NodeId, Uint32Array>;
}

/** Phase 0: the live nodes in a legal order, the in-place state writes and the copies, and multi-result holders. */
export function scheduleStep(graph: Graph): StepSchedule {
  const live = graph.live();
  const updates = planUpdates(graph, live);
  const resultNode = new Map<NodeId, Map<number, NodeId>>();
  for (const id of live) {
    const n = graph.nodes[id];
    if (isMultiResultOp(n.op)) resultNode.set(id, new Map([[0, id], ...(resultNode.get(id) ?? [])]));
    if (n.op !== 'pick') continue;
    const m = resultNode.get(n.inputs[0]) ?? new Map<number, NodeId>();
    m.set(n.attrs.index, id);
    resultNode.set(n.inputs[0], m);
  }
  return { live, order: updates.order, writes: new Map(updates.writes), copies: [...updates.copies], resultNode };
}

/**
 * Refuses a node that `@neura/ir`'s kernel facts call illegal on this device: the same check the e-graph's
 * cost model makes, so an optimizer given the device's limits never reaches this.
 */
function checkLegal(graph: Graph, n: Node, caps: DeviceCaps): void {
  const ins = [...new Set(n.inputs)].map((i) => graph.nodes[i]);
  const multiTensor = n.op === 'pointwiseMultiTensor' ? { attrs: n.attrs, inputs: n.inputs.length } : undefined;
  const why = kernelIllegality(n.op, ins, n, caps, 1, multiTensor);
  if (why) throw new KernelError(`${why} (optimize with this device's limits: optimize(graph, { limits: device.caps }))`);
}

/**
 * Phase 1: a kernel plan per non-leaf, non-alias node (in place where the update plan allows it; a generator that
 * refuses in-place turns the write into a copy after the pass). Errors name the node and where it was built.
 */
export function planKernels(graph: Graph, s: StepSchedule, caps: DeviceCaps, generate: KernelGenerator, arenas: ArenaChoice = new Map()): Map<NodeId, KernelPlan> {
  const node = (id: NodeId) => graph.nodes[id];
  const { writes, copies, resultNode } = s;
  /** Where each result of a multi-result node goes: in place into a state, its node's buffer, or nowhere. */
  const resultsOf = (n: Node): ResultTarget[] =>
    Array.from({ length: kernelOutputs(n) }, (_, j) => {
      const v = resultNode.get(n.id)?.get(j);
      if (v === undefined) return 'unused';
      const w = writes.get(v);
      return w?.multi ? { inPlace: w.input as number } : 'buffer';
    });
  const plans = new Map<NodeId, KernelPlan>();
  for (const id of s.order) {
    const n = node(id);
    if (isLeaf(n) || isAliasOp(n.op) || n.op === 'pick') continue;
    const inputs = n.inputs.map((i) => ({ shape: node(i).shape, dtype: node(i).dtype }));
    const w = writes.get(id);
    try {
      checkLegal(graph, n, caps);
      if (isMultiResultOp(n.op)) {
        plans.set(id, generate({ node: n, inputs, results: resultsOf(n), ...(arenas.has(id) ? { arenas: true } : {}) }, caps));
        continue;
      }
      if (w?.mode === 'elementwise') {
        try {
          plans.set(id, generate({ node: n, inputs, inPlace: w.input }, caps));
          continue;
        } catch (e) {
          if (!(e instanceof KernelError)) throw e;
          // the generator refused in-place: fall back to a copy after the pass
          writes.delete(id);
          const u = graph.updates.find((x) => x.value === id && x.state === w.state) as { state: NodeId; value: NodeId };
          copies.push({ state: u.state, value: u.value, viaTemp: false, reason: `generator refused in-place: ${(e as Error).message}` });
        }
      }
      plans.set(id, generate({ node: n, inputs }, caps));
    } catch (e) {
      const where = n.site ? ` (built at ${n.site})` : '';
      const msg = `${n.op} node ${id}${where}: ${(e as Error).message}`;
      throw e instanceof KernelError ? new KernelError(msg, { cause: e }) : new Error(msg, { cause: e });
    }
  }
  return plans;
}

/**
 * Phase 2: storage. Every live node's value lives in its root's buffer (an alias → its input, an in-place write →
 * the state); roots get liveness intervals (scratch buffers live for their kernel, copy temporaries for the whole
 * step) and the memory plan packs them into buffers.
 */
export function planStorage(
  graph: Graph,
  s: StepSchedule,
  plans: ReadonlyMap<NodeId, KernelPlan>,
  arenas: ArenaChoice = new Map(),
): Pick<StepPlan, 'rootOf' | 'pos' | 'memory'> {
  const node = (id: NodeId) => graph.nodes[id];
  const { order, copies } = s;
  const rootOf = storageRoots(graph, s);
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
    // every kernel's scratch, also a multi-result kernel's (whose value is stored in its result 0's pick)
    const scratch = plans.get(id)?.scratch ?? [];
    const at = pos.get(id) as number;
    for (let k = 0; k < scratch.length; k++) lifetimes.push({ key: `n${id}.s${k}`, bytes: scratch[k], start: at, end: at, persistent: false });
    if (rootOf(id) !== id) continue;
    // a pick's buffer is written by its multi-result kernel: it lives from that kernel on
    const start = pos.get(n.op === 'pick' ? n.inputs[0] : id) as number;
    lifetimes.push({ key: `n${id}`, bytes: tensorBytes(n), start, end: Math.max(start, lastUse.get(id) ?? start), persistent: isLeaf(n) });
  }
  for (const c of copies)
    if (c.viaTemp) lifetimes.push({ key: `copy${c.state}`, bytes: tensorBytes(node(c.state)), start: -1, end, persistent: false });
  for (const id of arenas.keys()) {
    const table = plans.get(id)?.dispatches[0]?.bindings.find((b) => b.source.kind === 'table')?.source;
    if (table?.kind === 'table') lifetimes.push({ key: `n${id}.table`, bytes: table.words * 4, start: 0, end: 0, persistent: true });
  }
  const memory = planMemory(lifetimes, [...arenas.values()].flat());
  return { rootOf, pos, memory };
}

/**
 * Where each node's value is stored: its root (an alias → its input, an in-place write → the state, a multi-result
 * node whose result 0 a pick holds → that pick's root). Iterative and memoised: a chain of 20k reshapes must
 * neither overflow the stack nor cost O(n²) (issue 9, item 12).
 */
export function storageRoots(graph: Graph, s: StepSchedule): (id: NodeId) => NodeId {
  const node = (id: NodeId) => graph.nodes[id];
  const { writes, resultNode } = s;
  const roots = new Map<NodeId, NodeId>();
  const rootOf = (id: NodeId): NodeId => {
    const path: NodeId[] = [];
    let r = id;
    while (isAliasOp(node(r).op) && !roots.has(r)) {
      path.push(r);
      r = node(r).inputs[0];
    }
    const r0 = isMultiResultOp(node(r).op) ? resultNode.get(r)?.get(0) : undefined;
    const root = r0 !== undefined && r0 !== r ? rootOf(r0) : (roots.get(r) ?? writes.get(r)?.state ?? r);
    for (const p of path) roots.set(p, root);
    return root;
  };
  return rootOf;
}

/** Phase 3: the host checks of inputs fed directly (through aliases) and read as labels or indices (ir's op facts). */
export function planIndexChecks(graph: Graph, order: readonly NodeId[], rootOf: (id: NodeId) => NodeId): Map<NodeId, IndexCheck[]> {
  const node = (id: NodeId) => graph.nodes[id];
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
  return labelChecks;
}

/**
 * All pure phases in order: schedule, arenas, kernels, storage, index checks. A multi-tensor node whose arenas
 * turn out unusable (roots changed by a refused in-place write, or a clash in another dispatch) is planned again
 * without them: one dispatch per group.
 */
export function planStep(graph: Graph, caps: DeviceCaps, generate: KernelGenerator): StepPlan {
  const s = scheduleStep(graph);
  const exclude = new Set<NodeId>();
  for (;;) {
    const arenas = planArenas(graph, s, storageRoots(graph, s), exclude);
    const plans = planKernels(graph, s, caps, generate, arenas);
    const again = planArenas(graph, s, storageRoots(graph, s), exclude);
    const changed = [...arenas.keys()].filter((id) => JSON.stringify(again.get(id)) !== JSON.stringify(arenas.get(id)));
    if (changed.length) {
      for (const id of changed) exclude.add(id);
      continue;
    }
    const storage = planStorage(graph, s, plans, arenas);
    const clashes = arenaClashes(arenas, plans, storage.memory, (id, b) => bindingBuffer(graph, s, storage, id, b.source));
    if (clashes.size) {
      for (const id of clashes) exclude.add(id);
      continue;
    }
    const tables = arenaTables(graph, arenas, storage.memory);
    return { ...s, plans, ...storage, arenas, tables, indexChecks: planIndexChecks(graph, s.order, storage.rootOf) };
  }
}

/** The memory-plan buffer a binding of node `id`'s plan resolves to (undefined for an arena or table binding). */
function bindingBuffer(graph: Graph, s: StepSchedule, storage: Pick<StepPlan, 'rootOf' | 'memory'>, id: NodeId, src: BindingSource): number | undefined {
  const { rootOf, memory } = storage;
  switch (src.kind) {
    case 'input':
      return memory.bufferOf.get(`n${rootOf(graph.nodes[id].inputs[src.index])}`);
    case 'output': {
      const r = src.index ?? 0;
      const holder = r === 0 ? id : s.resultNode.get(id)?.get(r);
      return holder === undefined ? undefined : memory.bufferOf.get(`n${rootOf(holder)}`);
    }
    case 'scratch':
      return memory.bufferOf.get(`n${id}.s${src.index}`);
    default:
      return undefined;
  }
}

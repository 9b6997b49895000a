// The update plan: how each `graph.updates` entry (state ← value) lands in the state's buffer — written in
// place by the value's own kernel when legal, else copied after the compute pass — and the schedule that
// makes the in-place writes safe. Pure (no GPU). Invariant: every read of a state's OLD value (forward,
// gradient, other updates, a graph output) is scheduled before the dispatch that overwrites it; a dispatch
// never binds the state buffer both read-only and writable (WebGPU forbids it within one dispatch).

import { type Graph, isAliasOp, isElementwise, isLeafOp, type Node, type NodeId, sameShape } from '@neura/ir';

/** How the kernel of a value node writes its state's buffer. */
export interface StateWrite {
  /** The state leaf whose buffer is written. */
  readonly state: NodeId;
  /**
   * `elementwise`: the value reads the state at the same index it writes (`KernelSpec.inPlace = input`);
   * `direct`: the value does not read the state at all and simply targets its buffer.
   */
  readonly mode: 'elementwise' | 'direct';
  /** For `elementwise`: the index in the writer's inputs of the state operand. */
  readonly input?: number;
  /**
   * For a result of a `pointwiseMulti` (the value is the multi node or a `pick` of it): the multi node, whose
   * kernel writes the state, and which of its results this is.
   */
  readonly multi?: { readonly node: NodeId; readonly result: number };
}

/** A state that gets its new value by `copyBufferToBuffer` after the compute pass. */
export interface StateCopy {
  /** The state leaf updated. */
  readonly state: NodeId;
  /** The node whose value it takes. */
  readonly value: NodeId;
  /**
   * The value lives in another state's buffer that this step overwrites: copy it into a temporary before
   * the pass, and from there into the state after the pass.
   */
  readonly viaTemp: boolean;
  /** Why it could not be written in place (for reports). */
  readonly reason: string;
}

/** The schedule and how every update is carried out. */
export interface UpdatePlan {
  /** Live nodes in execution order (topological; readers of old state first where needed). */
  readonly order: readonly NodeId[];
  /** Value node → the state buffer its kernel writes. */
  readonly writes: ReadonlyMap<NodeId, StateWrite>;
  /** State updates done by copies after the compute pass. */
  readonly copies: readonly StateCopy[];
  /** Updates whose value is the state itself (nothing to do). */
  readonly identities: number;
}

const isLeaf = (n: Node) => isLeafOp(n.op);
const isAlias = (n: Node) => isAliasOp(n.op);

/** What the phases share: the graph's live nodes, storage roots and the readers of each root. */
interface LiveFacts {
  readonly node: (id: NodeId) => Node;
  /** Storage root through aliases (a reshape is the same buffer as its input: ir's OP_FACTS says which ops alias). */
  readonly rootOf: (id: NodeId) => NodeId;
  /** Readers of each root's value: non-alias live nodes with an operand whose root it is. */
  readonly readers: ReadonlyMap<NodeId, ReadonlySet<NodeId>>;
  readonly outputRoots: ReadonlySet<NodeId>;
  readonly updatedStates: ReadonlySet<NodeId>;
}

/** Phase 1: roots, readers and outputs of the live nodes. */
function liveFacts(graph: Graph, live: readonly NodeId[]): LiveFacts {
  const node = (id: NodeId) => graph.nodes[id];
  const rootOf = (id: NodeId): NodeId => {
    let r = id;
    while (isAlias(node(r))) r = node(r).inputs[0];
    return r;
  };
  const readers = new Map<NodeId, Set<NodeId>>();
  for (const id of live) {
    const n = node(id);
    if (isAlias(n)) continue;
    for (const i of n.inputs) {
      const r = rootOf(i);
      let s = readers.get(r);
      if (!s) readers.set(r, (s = new Set()));
      s.add(id);
    }
  }
  const outputRoots = new Set([...graph.outputs.values()].map(rootOf));
  return { node, rootOf, readers, outputRoots, updatedStates: new Set(graph.updates.map((u) => u.state)) };
}

/** The constraint graph of the schedule: data edges plus accepted "reader before writer" edges. */
class Constraints {
  private readonly succ = new Map<NodeId, NodeId[]>();
  constructor(graph: Graph, live: readonly NodeId[]) {
    const liveSet = new Set(live);
    for (const id of live) for (const i of graph.nodes[id].inputs) if (liveSet.has(i)) this.add(i, id);
  }
  add(a: NodeId, b: NodeId): void {
    let l = this.succ.get(a);
    if (!l) this.succ.set(a, (l = []));
    l.push(b);
  }
  next(a: NodeId): readonly NodeId[] {
    return this.succ.get(a) ?? [];
  }
  /** Whether `from` reaches any of `targets` along the edges. */
  reaches(from: NodeId, targets: ReadonlySet<NodeId>): boolean {
    const seen = new Set<NodeId>();
    const stack = [from];
    while (stack.length) {
      const x = stack.pop() as NodeId;
      if (targets.has(x)) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      for (const y of this.next(x)) stack.push(y);
    }
    return false;
  }
}

/** Phase 2, for one update: the in-place write its value's kernel can make, or why it must be a copy. */
function writeOf(f: LiveFacts, state: NodeId, value: NodeId): StateWrite | string {
  const s = f.node(state);
  const v = f.node(value);
  if (isLeaf(v) || isAlias(v)) return 'the value is a leaf or an alias of one (no kernel writes it)';
  if (f.outputRoots.has(state)) return 'the old value is a graph output';
  if (v.op === 'pointwiseMulti' || v.op === 'pointwiseMultiTensor' || v.op === 'pick') {
    // a result of a multi-result kernel: written in place through the state operand of the multi node
    const multi = v.op === 'pick' ? f.node(v.inputs[0]) : v;
    const result = v.op === 'pick' ? v.attrs.index : 0;
    const k = multi.inputs.indexOf(state);
    const t = v.op === 'pick' ? v : multi;
    if (k < 0 || multi.inputs.some((i) => i !== state && f.rootOf(i) === state) || !sameShape(t.shape, s.shape) || t.dtype !== s.dtype)
      return 'the multi-result kernel does not read the state elementwise (or not at all)';
    return { state, mode: 'elementwise', input: k, multi: { node: multi.id, result } };
  }
  const stateOperands = v.inputs.map((i, k) => (f.rootOf(i) === state ? k : -1)).filter((k) => k >= 0);
  if (stateOperands.length === 0) return { state, mode: 'direct' };
  // the generator binds operands that are the same node once, so `mul(s, s)` is still one binding
  if (isElementwise(v.op) && stateOperands.every((k) => v.inputs[k] === state) && sameShape(v.shape, s.shape) && v.dtype === s.dtype)
    return { state, mode: 'elementwise', input: stateOperands[0] };
  return 'the value reads the state at other indices (not elementwise, broadcast, or through an alias)';
}

/**
 * Phase 2: every update becomes an in-place write (adding "readers of the old value first" edges, refused when a
 * reader depends on the new value) or a copy after the pass.
 */
function planWrites(graph: Graph, f: LiveFacts, edges: Constraints): Pick<UpdatePlan, 'writes' | 'copies' | 'identities'> {
  const writes = new Map<NodeId, StateWrite>();
  const copies: StateCopy[] = [];
  let identities = 0;
  for (const { state, value } of graph.updates) {
    const v = f.node(value);
    const vr = f.rootOf(value);
    if (vr === state) {
      identities++;
      continue;
    }
    // a leaf value (or an alias of one) that is itself an updated state must be captured before the pass
    const viaTemp = (isLeaf(v) || isAlias(v)) && f.updatedStates.has(vr);
    const copy = (reason: string) => copies.push({ state, value, viaTemp, reason });
    if (writes.has(value) && !isLeaf(v) && !isAlias(v)) {
      copy(`the value already writes state ${writes.get(value)?.state} in place`);
      continue;
    }
    const w = writeOf(f, state, value);
    if (typeof w === 'string') {
      copy(w);
      continue;
    }
    // every other reader of the old value must run first; impossible if one of them depends on the value
    const writer = w.multi?.node ?? value;
    const others = new Set([...(f.readers.get(state) ?? [])].filter((r) => r !== writer));
    if (edges.reaches(writer, others)) {
      copy('a reader of the old value depends on the new value');
      continue;
    }
    for (const r of others) edges.add(r, writer);
    writes.set(value, w);
  }
  return { writes, copies, identities };
}

/** Phase 3: Kahn's algorithm over the constraints, smallest id first, so the order stays close to the graph's own. */
function schedule(live: readonly NodeId[], edges: Constraints): NodeId[] {
  const indeg = new Map<NodeId, number>(live.map((id) => [id, 0]));
  for (const id of live) for (const b of edges.next(id)) indeg.set(b, (indeg.get(b) ?? 0) + 1);
  const ready = new MinHeap();
  for (const [id, d] of indeg) if (d === 0) ready.push(id);
  const order: NodeId[] = [];
  while (ready.size) {
    const id = ready.pop();
    order.push(id);
    for (const b of edges.next(id)) {
      const d = (indeg.get(b) as number) - 1;
      indeg.set(b, d);
      if (d === 0) ready.push(b);
    }
  }
  if (order.length !== live.length) throw new Error(`planUpdates: schedule has a cycle (${order.length} of ${live.length} nodes ordered)`);
  return order;
}

/** Plans in-place writes for `graph.updates` and the order of `live` that makes them legal. */
export function planUpdates(graph: Graph, live: readonly NodeId[] = graph.live()): UpdatePlan {
  const facts = liveFacts(graph, live);
  const edges = new Constraints(graph, live);
  const planned = planWrites(graph, facts, edges);
  return { order: schedule(live, edges), ...planned };
}

/** A binary min-heap of node ids. */
class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= a[i]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop() as number;
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l] < a[m]) m = l;
        if (r < a.length && a[r] < a[m]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

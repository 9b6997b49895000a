// The update plan: how each `graph.updates` entry (state ← value) lands in the state's buffer — written in
// place by the value's own kernel when legal, else copied after the compute pass — and the schedule that
// makes the in-place writes safe. Pure (no GPU). Invariant: every read of a state's OLD value (forward,
// gradient, other updates, a graph output) is scheduled before the dispatch that overwrites it; a dispatch
// never binds the state buffer both read-only and writable (WebGPU forbids it within one dispatch).

import { type Graph, isAliasOp, isElementwise, isLeafOp, type Node, type NodeId, sameShape } from '@neura/ir';

/** How the kernel of a value node writes its state's buffer. */
export interface StateWrite {
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
  readonly state: NodeId;
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
  readonly copies: readonly StateCopy[];
  /** Updates whose value is the state itself (nothing to do). */
  readonly identities: number;
}

const isLeaf = (n: Node) => isLeafOp(n.op);
const isAlias = (n: Node) => isAliasOp(n.op);

/** Plans in-place writes for `graph.updates` and the order of `live` that makes them legal. */
export function planUpdates(graph: Graph, live: readonly NodeId[] = graph.live()): UpdatePlan {
  const liveSet = new Set(live);
  const node = (id: NodeId) => graph.nodes[id];
  // storage root through aliases (a reshape is the same buffer as its input: ir's OP_FACTS says which ops alias)
  const rootOf = (id: NodeId): NodeId => {
    let r = id;
    while (isAlias(node(r))) r = node(r).inputs[0];
    return r;
  };
  // readers of each root's value: non-alias live nodes with an operand whose root it is
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
  const updatedStates = new Set(graph.updates.map((u) => u.state));

  // constraint graph: data edges plus accepted "reader before writer" edges
  const succ = new Map<NodeId, NodeId[]>();
  const addEdge = (a: NodeId, b: NodeId) => {
    let l = succ.get(a);
    if (!l) succ.set(a, (l = []));
    l.push(b);
  };
  for (const id of live) for (const i of node(id).inputs) if (liveSet.has(i)) addEdge(i, id);
  const reaches = (from: NodeId, targets: ReadonlySet<NodeId>): boolean => {
    const seen = new Set<NodeId>();
    const stack = [from];
    while (stack.length) {
      const x = stack.pop() as NodeId;
      if (targets.has(x)) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      for (const y of succ.get(x) ?? []) stack.push(y);
    }
    return false;
  };

  const writes = new Map<NodeId, StateWrite>();
  const copies: StateCopy[] = [];
  let identities = 0;
  for (const { state, value } of graph.updates) {
    const s = node(state);
    const v = node(value);
    const vr = rootOf(value);
    // a leaf value (or an alias of one) that is itself an updated state must be captured before the pass
    const viaTemp = (isLeaf(v) || isAlias(v)) && updatedStates.has(vr);
    const copy = (reason: string) => copies.push({ state, value, viaTemp, reason });
    if (vr === state) {
      identities++;
      continue;
    }
    if (isLeaf(v) || isAlias(v)) {
      copy('the value is a leaf or an alias of one (no kernel writes it)');
      continue;
    }
    if (writes.has(value)) {
      copy(`the value already writes state ${writes.get(value)?.state} in place`);
      continue;
    }
    if (outputRoots.has(state)) {
      copy('the old value is a graph output');
      continue;
    }
    if (v.op === 'pointwiseMulti' || v.op === 'pick') {
      // a result of a multi-result kernel: written in place through the state operand of the multi node
      const multi = v.op === 'pick' ? node(v.inputs[0]) : v;
      const result = v.op === 'pick' ? v.attrs.index : 0;
      const k = multi.inputs.indexOf(state);
      if (k < 0 || multi.inputs.some((i) => i !== state && rootOf(i) === state) || !sameShape(multi.shape, s.shape) || multi.dtype !== s.dtype) {
        copy('the multi-result kernel does not read the state elementwise (or not at all)');
        continue;
      }
      const others = new Set([...(readers.get(state) ?? [])].filter((r) => r !== multi.id));
      if (reaches(multi.id, others)) {
        copy('a reader of the old value depends on the new value');
        continue;
      }
      for (const r of others) addEdge(r, multi.id);
      writes.set(value, { state, mode: 'elementwise', input: k, multi: { node: multi.id, result } });
      continue;
    }
    const stateOperands = v.inputs.map((i, k) => (rootOf(i) === state ? k : -1)).filter((k) => k >= 0);
    let w: StateWrite;
    if (stateOperands.length === 0) w = { state, mode: 'direct' };
    else if (
      // the generator binds operands that are the same node once, so `mul(s, s)` is still one binding
      isElementwise(v.op) &&
      stateOperands.every((k) => v.inputs[k] === state) &&
      sameShape(v.shape, s.shape) &&
      v.dtype === s.dtype
    )
      w = { state, mode: 'elementwise', input: stateOperands[0] };
    else {
      copy('the value reads the state at other indices (not elementwise, broadcast, or through an alias)');
      continue;
    }
    // every other reader of the old value must run first; impossible if one of them depends on the value
    const others = new Set([...(readers.get(state) ?? [])].filter((r) => r !== value));
    if (reaches(value, others)) {
      copy('a reader of the old value depends on the new value');
      continue;
    }
    for (const r of others) addEdge(r, value);
    writes.set(value, w);
  }

  // Kahn's algorithm, smallest id first, so the order stays close to the graph's own
  const indeg = new Map<NodeId, number>(live.map((id) => [id, 0]));
  for (const l of succ.values()) for (const b of l) indeg.set(b, (indeg.get(b) ?? 0) + 1);
  const ready = new MinHeap();
  for (const [id, d] of indeg) if (d === 0) ready.push(id);
  const order: NodeId[] = [];
  while (ready.size) {
    const id = ready.pop();
    order.push(id);
    for (const b of succ.get(id) ?? []) {
      const d = (indeg.get(b) as number) - 1;
      indeg.set(b, d);
      if (d === 0) ready.push(b);
    }
  }
  if (order.length !== live.length) throw new Error(`planUpdates: schedule has a cycle (${order.length} of ${live.length} nodes ordered)`);
  return { order, writes, copies, identities };
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

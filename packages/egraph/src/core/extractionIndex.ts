// A rebuilt e-graph frozen as arrays for extraction: classes and e-nodes numbered densely, each node's children
// as class numbers and its own cost computed once. The extractors visit every node many times; Map lookups by
// id, `find` calls and a cost call per visit were most of their time. Must not change the e-graph.
// Invariant: numbering follows `egraph.classes()` and each class's node order, so an extractor iterating the
// numbers visits exactly what it visited iterating the e-graph.
import type { EGraph } from './eGraph.js';
import type { NodeCostFunction } from './extract.js';
import type { ENode, Id } from './language.js';

/** Dense numbering of a rebuilt e-graph's classes and nodes, with each node's children and own cost. */
export class ExtractionIndex {
  /** Canonical id of each class number. */
  readonly classIds: Id[];
  /** Nodes of class `c` are `nodeStart[c] .. nodeStart[c + 1] - 1` (extra nodes come after the last class's). */
  readonly nodeStart: Int32Array;
  /** Every node, class by class, then the extra nodes. */
  readonly nodes: ENode[];
  /** Class number of each node. */
  readonly nodeClass: Int32Array;
  /** Children (class numbers, in order, repeats kept) of node `i` are `kids[kidStart[i] .. kidStart[i + 1] - 1]`. */
  readonly kidStart: Int32Array;
  readonly kids: Int32Array;
  /** Own cost of each node (`costFn.nodeCost(node, its class)`). */
  readonly cost: Float64Array;
  private readonly numberOf: Int32Array;
  private readonly extraOf = new Map<ENode, number>();

  /**
   * Numbers a rebuilt e-graph. `extras` are (class, node) pairs whose node object is not in its class's list (a
   * start choice built elsewhere): each gets a number after every class's nodes, kept outside the class's range.
   */
  constructor(
    readonly egraph: EGraph<unknown>,
    costFn: NodeCostFunction,
    extras: Iterable<readonly [Id, ENode]> = [],
  ) {
    const frame = frameOf(egraph);
    this.classIds = frame.classIds;
    this.numberOf = frame.numberOf;
    let { nodes, nodeClass, kidStart, kids } = frame;
    const nodeStart = frame.nodeStart;
    // extra nodes (rare) extend copies of the frame's arrays
    let more: ENode[] | undefined;
    let moreClass: number[] | undefined; // the extra nodes' classes (the frame's typed array is copied once, below)
    for (const [id, n] of extras) {
      const c = this.classOf(id);
      if (this.extraOf.has(n) || this.nodeNumber(c, n, nodes, nodeStart) >= 0) continue;
      if (!more) {
        more = nodes.slice();
        moreClass = [];
      }
      this.extraOf.set(n, more.length);
      more.push(n);
      moreClass?.push(c);
    }
    if (more && moreClass) {
      const first = nodes.length;
      nodes = more;
      const nc = new Int32Array(nodes.length);
      nc.set(nodeClass);
      nc.set(moreClass, first);
      nodeClass = nc;
      const ks = new Int32Array(nodes.length + 1);
      ks.set(kidStart);
      let k = kidStart[first];
      for (let i = first; i < nodes.length; i++) {
        ks[i] = k;
        k += nodes[i].children.length;
      }
      ks[nodes.length] = k;
      const kk = new Int32Array(k);
      kk.set(kids);
      for (let i = first; i < nodes.length; i++) {
        let at = ks[i];
        for (const c of nodes[i].children) kk[at++] = this.classOf(c);
      }
      kidStart = ks;
      kids = kk;
    }
    this.nodes = nodes;
    this.nodeClass = nodeClass;
    this.nodeStart = nodeStart;
    this.kidStart = kidStart;
    this.kids = kids;
    const cost = new Float64Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) cost[i] = costFn.nodeCost(nodes[i], this.classIds[nodeClass[i]]);
    this.cost = cost;
  }

  /** Number of classes. */
  get numClasses(): number {
    return this.classIds.length;
  }

  /** The class number of any id of a class. */
  classOf(id: Id): number {
    return this.numberOf[this.egraph.find(id)];
  }

  /** The number of a node of class number `c`: its place in the class's list, or its extra number; -1 if neither. */
  nodeNumber(c: number, node: ENode, nodes: readonly ENode[] = this.nodes, nodeStart: Int32Array = this.nodeStart): number {
    for (let i = nodeStart[c]; i < nodeStart[c + 1]; i++) if (nodes[i] === node) return i;
    return this.extraOf.get(node) ?? -1;
  }
}

/** The numbering of a rebuilt e-graph without costs (the part two extractions of one e-graph share). */
interface Frame {
  readonly key: string;
  readonly classIds: Id[];
  /** Class number of each canonical id, indexed by id (a Map lookup per child held half of `frameOf`'s profile samples). */
  readonly numberOf: Int32Array;
  readonly nodes: ENode[];
  readonly nodeClass: Int32Array;
  readonly nodeStart: Int32Array;
  readonly kidStart: Int32Array;
  readonly kids: Int32Array;
}

// the last frame of each e-graph, while it stands still (the pack stage extracts twice from one e-graph)
const frames = new WeakMap<object, Frame>();

/** The frame of an e-graph in its current state (kept while no node, class or union is added). */
function frameOf(egraph: EGraph<unknown>): Frame {
  const key = `${egraph.epoch}|${egraph.totalIds}|${egraph.unionCount}|${egraph.totalNodes}|${egraph.isDirty}`;
  const kept = frames.get(egraph);
  if (kept?.key === key) return kept;
  const classes = egraph.classes();
  const classIds = classes.map((c) => c.id);
  const numberOf = new Int32Array(egraph.totalIds).fill(-1);
  // index loops: `entries()` allocated an iterator result and a pair per class, twice (GPT 6×384: ~2.6 MB a run)
  for (let i = 0; i < classes.length; i++) numberOf[classes[i].id] = i;
  const nodeStart = new Int32Array(classes.length + 1);
  for (let i = 0; i < classes.length; i++) nodeStart[i + 1] = nodeStart[i] + classes[i].nodes.length;
  const nodes: ENode[] = new Array(nodeStart[classes.length]);
  const nodeClass = new Int32Array(nodes.length);
  for (let i = 0; i < classes.length; i++) {
    const ns = classes[i].nodes;
    const at = nodeStart[i];
    for (let j = 0; j < ns.length; j++) {
      nodes[at + j] = ns[j];
      nodeClass[at + j] = i;
    }
  }
  const kidStart = new Int32Array(nodes.length + 1);
  let k = 0;
  for (let i = 0; i < nodes.length; i++) {
    kidStart[i] = k;
    k += nodes[i].children.length;
  }
  kidStart[nodes.length] = k;
  const kids = new Int32Array(k);
  for (let i = 0; i < nodes.length; i++) {
    let at = kidStart[i];
    const ch = nodes[i].children;
    for (let j = 0; j < ch.length; j++) kids[at++] = numberOf[egraph.find(ch[j])];
  }
  const frame = { key, classIds, numberOf, nodes, nodeClass, nodeStart, kidStart, kids };
  frames.set(egraph, frame);
  return frame;
}

// DAG-aware extraction: picks one e-node per e-class so that the total of node costs, each reachable class
// counted once, is low (shared subterms paid once). Must not change the e-graph. Invariant: the returned
// `cost` is the exact DAG cost of the returned acyclic choice, and is never above the greedy tree choice's.
// Local search keeps reference counts of the chosen DAG, so one move costs O(classes it adds or frees), not
// O(all classes): on the GPT training step (3 000 classes) the former full re-evaluation took seconds.
import { EGraphStateError, ExtractionError } from './errors.js';
import type { EGraph } from './eGraph.js';
import { collectChoices, dagCost } from './extract.js';
import { ExtractionIndex } from './extractionIndex.js';
import type { Extraction, NodeCostFunction } from './extract.js';
import type { ENode, Id } from './language.js';

/** Options of the DAG extractor. */
export interface DagExtractorOptions {
  /** Rounds of kick-and-descend improvement after the descent (0 turns all improvement off); default 8. */
  readonly improvePasses?: number;
  /** Budget of local-search moves tried (each O(classes it touches)); default 20 000. */
  readonly maxEvaluations?: number;
  /** Greedy DAG phase (quadratic in classes) runs only up to this many e-classes; default 20 000. */
  readonly greedyDagClassLimit?: number;
  /**
   * Wall-clock budget of the improvement phase in ms; default none. A time cut makes the choice depend on the
   * machine's load (different, worse plans on a busy machine): prefer `maxEvaluations`, which is deterministic.
   */
  readonly timeLimitMs?: number;
  /**
   * A choice to start from instead of the tree and greedy DAG choices (e.g. an extraction without some late
   * alternatives, plus the classes those need), used when its cost is finite: first each `focus` class in the DAG
   * tries its alternatives whose children have a choice, then the local search (`improvePasses`) and the closing
   * sweep run as usual.
   */
  readonly start?: { readonly choice: ReadonlyMap<Id, ENode>; readonly focus: readonly Id[] };
}

/** Why the local search stopped: no move improved, the kick rounds ran out, or a budget ran out. */
export type SearchStop = 'converged' | 'passLimit' | 'evaluationLimit' | 'timeLimit' | 'off';

/** An extraction with the local search's figures. */
export interface DagExtraction extends Extraction {
  /** Local-search moves tried and why the search stopped. */
  readonly search: { readonly evaluations: number; readonly stop: SearchStop };
}

const perf = (globalThis as { performance?: { now(): number } }).performance;
const now: () => number = perf ? () => perf.now() : () => Date.now();

/**
 * Phases. (1) Greedy DAG (as in extraction-gym's `greedy-dag`), on e-graphs up to `greedyDagClassLimit`
 * classes: a fixpoint where each class keeps the node minimising `own cost + sum over the union of its
 * children's class sets`, a node whose children's sets contain the class itself being skipped (no cycles).
 * (2) The better, by exact DAG cost, of that choice and egg's greedy tree choice. (3) Local search on the DAG
 * cost of the whole acyclic choice, kept incrementally (reference counts): descent by single-class changes,
 * then "kicks" (force one class to another node, descend with it held, keep the result if the total strictly
 * drops, else undo), which finds joint moves like two consumers switching to one shared subterm. Bounded by
 * `improvePasses`, `maxEvaluations` and `timeLimitMs`. (4) One closing sweep outside those bounds that
 * switches a class to an alternative whose children are all in the DAG already, when that is cheaper. Not guaranteed optimal (the problem is NP-hard; an ILP
 * would be exact), but never worse than phase (1) or (2), and the reported cost is exact.
 */
export class DagExtractor<D> {
  private readonly egraph: EGraph<D>;
  private readonly costFn: NodeCostFunction;
  private readonly improvePasses: number;
  private readonly maxEvaluations: number;
  private readonly greedyDagClassLimit: number;
  private readonly timeLimitMs: number;
  private readonly start: DagExtractorOptions['start'];

  /** Prepares extraction over a rebuilt e-graph. */
  constructor(egraph: EGraph<D>, costFn: NodeCostFunction, opts: DagExtractorOptions = {}) {
    if (egraph.isDirty) throw new EGraphStateError('DagExtractor: call egraph.rebuild() before extracting');
    this.egraph = egraph;
    this.costFn = costFn;
    this.improvePasses = opts.improvePasses ?? 8;
    this.maxEvaluations = opts.maxEvaluations ?? 20_000;
    this.greedyDagClassLimit = opts.greedyDagClassLimit ?? 20_000;
    this.timeLimitMs = opts.timeLimitMs ?? Number.POSITIVE_INFINITY;
    this.start = opts.start;
  }

  /**
   * Greedy DAG with each class's set of reachable classes as a bitset over dense class indices: a union is an
   * OR of words and a total a sum over set bits, with each class at the own cost of its current pick. (The
   * first version kept a Map per class and copied it per node: 1.5 s on the GPT step's 2 900 classes.)
   */
  private greedyDag(ix: ExtractionIndex): Map<Id, ENode> {
    const order = childrenFirst(ix);
    const { nodeStart, kidStart, kids, cost: nodeCost, nodeOf } = renumbered(ix, order);
    const picks = greedyDagPicks(ix.numClasses, nodeStart, kidStart, kids, nodeCost);
    const out = new Map<Id, ENode>();
    for (let p = 0; p < picks.length; p++) if (picks[p] >= 0) out.set(ix.classIds[order[p]], ix.nodes[nodeOf[picks[p]]]);
    return out;
  }

  /** The local search from `start` (see `DagExtractorOptions.start`), or undefined when `start` costs Infinity. */
  private fromStart(start: ReadonlyMap<Id, ENode>, focus: readonly Id[], roots: readonly Id[]): DagExtraction | undefined {
    const find = (id: Id) => this.egraph.find(id);
    if (!Number.isFinite(dagCost(start, roots, this.costFn, find))) return undefined;
    const ix = new ExtractionIndex(this.egraph, this.costFn, start);
    const search = new LocalSearch(ix, start, roots, this.maxEvaluations, now() + this.timeLimitMs);
    search.sweep(focus.map((id) => ix.classOf(id)));
    const stop = this.improvePasses > 0 ? search.improve(this.improvePasses) : 'off';
    search.reuseShared();
    const choice = search.choice();
    const searchFigures = { evaluations: this.maxEvaluations - search.budgetLeft, stop };
    return { roots, choices: collectChoices(this.egraph, choice, roots), cost: dagCost(choice, roots, this.costFn, find), search: searchFigures };
  }

  /** Extracts one node per class reachable from `roots`; `cost` is the exact DAG cost. */
  extract(roots: readonly Id[]): DagExtraction {
    const eg = this.egraph;
    const find = (id: Id) => eg.find(id);
    const canonRoots = roots.map(find);
    const started = this.start && this.fromStart(this.start.choice, this.start.focus, canonRoots);
    if (started) return started;
    const ix = new ExtractionIndex(eg, this.costFn);
    const treeChoice = treeChoiceOf(ix);
    let choice: Map<Id, ENode> = treeChoice;
    let best = dagCost(treeChoice, canonRoots, this.costFn, find);
    if (eg.numClasses <= this.greedyDagClassLimit) {
      const dagChoice = this.greedyDag(ix);
      const dagCostValue = dagCost(dagChoice, canonRoots, this.costFn, find);
      if (dagCostValue <= best) {
        choice = dagChoice;
        best = dagCostValue;
      }
    }
    if (!Number.isFinite(best)) {
      collectChoices(eg, choice, canonRoots); // names the failing class
      throw new ExtractionError('DagExtractor: no acyclic choice covers the roots');
    }
    let searchFigures: DagExtraction['search'] = { evaluations: 0, stop: 'off' };
    if (this.improvePasses > 0) {
      const search = new LocalSearch(ix, choice, canonRoots, this.maxEvaluations, now() + this.timeLimitMs);
      const stop = search.improve(this.improvePasses);
      search.reuseShared();
      choice = search.choice();
      best = dagCost(choice, canonRoots, this.costFn, find); // exact, not the running sum
      searchFigures = { evaluations: this.maxEvaluations - search.budgetLeft, stop };
    }
    return { roots: canonRoots, choices: collectChoices(eg, choice, canonRoots), cost: best, search: searchFigures };
  }
}

/** The greedy DAG fixpoint over dense arrays (see `DagExtractor.greedyDag`): the picked node number of each class, -1 where none. */
function greedyDagPicks(numClasses: number, nodeStart: Int32Array, kidStart: Int32Array, kids: Int32Array, nodeCost: Float64Array): Int32Array {
  const words = (numClasses + 31) >>> 5;
  const sets: (Uint32Array | undefined)[] = new Array(numClasses);
  // the words of each set that may hold bits (`lo..hi`, empty when lo > hi): every word outside is 0, so unions,
  // checks and sums visit only these (the same words in the same order: zero words add nothing)
  const setLo = new Int32Array(numClasses);
  const setHi = new Int32Array(numClasses).fill(-1);
  const totals = new Float64Array(numClasses).fill(Number.POSITIVE_INFINITY);
  const own = new Float64Array(numClasses);
  const picks = new Int32Array(numClasses).fill(-1);
  const tmp = new Uint32Array(words);
  let tmpLo = 0; // words of `tmp` that may hold bits
  let tmpHi = -1;
  // classes updated in the previous pass and in this one: a node is evaluated at the same place every pass, so
  // one whose union holds no class updated since its last evaluation (in the previous pass after it, in this
  // one before it) would sum the same total as then, which did not beat its class's total (totals only drop)
  let updatedBefore = new Uint32Array(words);
  let updatedNow = new Uint32Array(words);
  for (let pass = 0, changed = true; changed && pass < 4 * numClasses + 8; pass++) {
    changed = false;
    [updatedBefore, updatedNow] = [updatedNow, updatedBefore];
    updatedNow.fill(0);
    for (let ci = 0; ci < numClasses; ci++) {
      const word = ci >>> 5;
      const bit = 1 << (ci & 31);
      const above = ~((bit << 1) - 1); // bits of classes after ci in its word (none when ci is the word's last)
      const below = bit - 1;
      for (let ni = nodeStart[ci]; ni < nodeStart[ci + 1]; ni++) {
        const k0 = kidStart[ni];
        const k1 = kidStart[ni + 1];
        const cost = nodeCost[ni];
        // a union is at least its largest part: skip nodes that cannot beat the class's current pick
        // (compared, not `Math.max`: that boxed a heap number per call, ~5 MB a GPT 6×384 extraction; no NaN here)
        let bound = cost;
        for (let j = k0; j < k1; j++) {
          const b = cost + totals[kids[j]];
          if (b > bound) bound = b;
        }
        if (!(bound < totals[ci])) continue;
        let ok = true;
        // tmp := the union of the kids' sets (cleared over the words it may hold first)
        if (tmpLo <= tmpHi) tmp.fill(0, tmpLo, tmpHi + 1);
        let lo = words;
        let hi = -1;
        for (let j = k0; j < k1; j++) {
          const kc = kids[j];
          const ks2 = sets[kc];
          if (!ks2 || ks2[word] & bit) {
            ok = false;
            break;
          }
          const a = setLo[kc];
          const b = setHi[kc];
          for (let w = a; w <= b; w++) tmp[w] |= ks2[w];
          if (a < lo) lo = a;
          if (b > hi) hi = b;
        }
        tmpLo = lo;
        tmpHi = hi;
        if (!ok) continue;
        if (pass > 0) {
          let touched = 0;
          for (let w = lo; w <= hi && touched === 0; w++) {
            const after = w > word ? updatedBefore[w] : w === word ? updatedBefore[w] & above : 0;
            const before = w < word ? updatedNow[w] : w === word ? updatedNow[w] & below : 0;
            touched = tmp[w] & (after | before);
          }
          if (touched === 0) continue;
        }
        // own costs are non-negative, so a partial sum only grows (rounding is monotone): once it reaches the
        // class's total the node cannot win, and the rest of the sum is skipped (a node that can win is summed in
        // full, in the same order as ever). On the GPT 6×384 step ~55 % of the sums lose (~15 % of this phase).
        let total = cost;
        const toBeat = totals[ci];
        for (let w = lo; w <= hi && total < toBeat; w++) {
          let x = tmp[w];
          while (x !== 0) {
            const t = x & -x;
            total += own[(w << 5) + 31 - Math.clz32(t)];
            x ^= t;
          }
        }
        if (total < totals[ci]) {
          totals[ci] = total;
          own[ci] = cost;
          picks[ci] = ni;
          tmp[word] |= bit;
          if (word < lo) lo = word;
          if (word > hi) hi = word;
          tmpLo = lo;
          tmpHi = hi;
          const mine = sets[ci]; // only read while a node is evaluated: overwritten in place, not reallocated
          if (mine) {
            if (setLo[ci] <= setHi[ci]) mine.fill(0, setLo[ci], setHi[ci] + 1);
            for (let w = lo; w <= hi; w++) mine[w] = tmp[w];
          } else sets[ci] = tmp.slice();
          setLo[ci] = lo;
          setHi[ci] = hi;
          updatedNow[word] |= bit;
          changed = true;
        }
      }
    }
  }
  return picks;
}

/**
 * Classes in the order they become computable bottom-up (a class once one of its nodes reads only earlier classes;
 * classes on cycles only, last, in index order). The greedy DAG's passes visit classes in index order, and the
 * classes rules add (a fused kernel's new operands) come after their readers: in index order the GPT 6×384 step took
 * 27 passes, each ~7 000 unions, to carry totals up one inversion at a time.
 */
function childrenFirst(ix: ExtractionIndex): Int32Array {
  const n = ix.numClasses;
  const { nodeStart, kidStart, kids, nodeClass } = ix;
  const numNodes = nodeStart[n];
  const pending = new Int32Array(numNodes);
  // the child slots reading each class: readers[readerStart[k] ..] (node numbers, one per slot)
  const readerStart = new Int32Array(n + 1);
  for (let ni = 0; ni < numNodes; ni++) {
    pending[ni] = kidStart[ni + 1] - kidStart[ni];
    for (let j = kidStart[ni]; j < kidStart[ni + 1]; j++) readerStart[kids[j] + 1]++;
  }
  for (let k = 0; k < n; k++) readerStart[k + 1] += readerStart[k];
  const readers = new Int32Array(readerStart[n]);
  const at = readerStart.slice(0, n);
  for (let ni = 0; ni < numNodes; ni++) for (let j = kidStart[ni]; j < kidStart[ni + 1]; j++) readers[at[kids[j]]++] = ni;
  const order = new Int32Array(n);
  const placed = new Uint8Array(n);
  let len = 0;
  for (let c = 0; c < n; c++) {
    for (let ni = nodeStart[c]; ni < nodeStart[c + 1]; ni++) {
      if (pending[ni] === 0) {
        placed[c] = 1;
        order[len++] = c;
        break;
      }
    }
  }
  for (let q = 0; q < len; q++) {
    const k = order[q];
    for (let r = readerStart[k]; r < readerStart[k + 1]; r++) {
      const ni = readers[r];
      if (--pending[ni] === 0 && placed[nodeClass[ni]] === 0) {
        placed[nodeClass[ni]] = 1;
        order[len++] = nodeClass[ni];
      }
    }
  }
  for (let c = 0; c < n; c++) if (placed[c] === 0) order[len++] = c;
  return order;
}

/** The index's classes renumbered by `order` (class `order[p]` becomes `p`; its nodes keep their order), with each new node's old number. */
function renumbered(ix: ExtractionIndex, order: Int32Array) {
  const n = ix.numClasses;
  const pos = new Int32Array(n);
  for (let p = 0; p < n; p++) pos[order[p]] = p;
  const numNodes = ix.nodeStart[n];
  const nodeStart = new Int32Array(n + 1);
  const nodeOf = new Int32Array(numNodes);
  const kidStart = new Int32Array(numNodes + 1);
  const kids = new Int32Array(ix.kidStart[numNodes]);
  const cost = new Float64Array(numNodes);
  let m = 0;
  let k = 0;
  for (let p = 0; p < n; p++) {
    const c = order[p];
    nodeStart[p] = m;
    for (let ni = ix.nodeStart[c]; ni < ix.nodeStart[c + 1]; ni++, m++) {
      nodeOf[m] = ni;
      cost[m] = ix.cost[ni];
      kidStart[m] = k;
      for (let j = ix.kidStart[ni]; j < ix.kidStart[ni + 1]; j++) kids[k++] = pos[ix.kids[j]];
    }
  }
  nodeStart[n] = m;
  kidStart[m] = k;
  return { nodeStart, kidStart, kids, cost, nodeOf };
}

/**
 * Local search over an acyclic choice with reference counts of the chosen DAG (see `DagExtractor`), on the
 * index's class and node numbers. Classes in the DAG are visited in the order they last entered it (a Map's
 * insertion order, kept as a linked list), which decides which move is tried first.
 */
class LocalSearch {
  /** Chosen node number of each class (-1: no choice); the classes with a choice never change. */
  private readonly pick: Int32Array;
  private readonly refs: Int32Array;
  /** Classes with refs > 0, oldest entry first: `next`/`prev` links, -1 ends. */
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private head = -1;
  private tail = -1;
  private total = 0;
  private budget: number;
  private readonly roots: number[];
  /** Position of each reachable class in a children-first order of the current choice (-1: unreachable), rebuilt lazily. */
  private readonly topo: Int32Array;
  private topoValid = false;
  /** Visit stamps of `reaches` (and DFS states of `order`), and their stack. */
  private readonly mark: Int32Array;
  private stamp = 0;
  private readonly stack: Int32Array;
  /** The work stack of `inc` and `dec` (never nested): a class is pushed once per reference, at most every child slot once. */
  private readonly refStack: Int32Array;
  /** Per class, the node numbers whose children all have a choice (static: the classes with a choice never change). */
  private readonly viable: (Int32Array | undefined)[];

  constructor(
    private readonly ix: ExtractionIndex,
    start: ReadonlyMap<Id, ENode>,
    roots: readonly Id[],
    maxEvaluations: number,
    private readonly deadline: number,
  ) {
    const n = ix.numClasses;
    this.pick = new Int32Array(n).fill(-1);
    for (const [id, node] of start) {
      const c = ix.classOf(id);
      this.pick[c] = ix.nodeNumber(c, node);
    }
    this.refs = new Int32Array(n);
    this.next = new Int32Array(n).fill(-1);
    this.prev = new Int32Array(n).fill(-1);
    this.topo = new Int32Array(n);
    this.mark = new Int32Array(n);
    this.refStack = new Int32Array(ix.kids.length + 1);
    // order's (class, slot) frames, at most two per class; reaches' pushes, at most one per child slot
    this.stack = new Int32Array(Math.max(2 * n, ix.kids.length) + 2);
    this.viable = new Array(n);
    this.budget = maxEvaluations;
    this.roots = roots.map((r) => ix.classOf(r));
    for (const r of this.roots) this.inc(r);
  }

  /** The choice as a map from class id to node (every class with a choice, reachable or not). */
  choice(): Map<Id, ENode> {
    const out = new Map<Id, ENode>();
    for (let c = 0; c < this.pick.length; c++) if (this.pick[c] >= 0) out.set(this.ix.classIds[c], this.ix.nodes[this.pick[c]]);
    return out;
  }

  private link(c: number): void {
    this.prev[c] = this.tail;
    this.next[c] = -1;
    if (this.tail >= 0) this.next[this.tail] = c;
    else this.head = c;
    this.tail = c;
  }

  private unlink(c: number): void {
    const p = this.prev[c];
    const q = this.next[c];
    if (p >= 0) this.next[p] = q;
    else this.head = q;
    if (q >= 0) this.prev[q] = p;
    else this.tail = p;
  }

  /** The classes in the DAG, oldest entry first (a snapshot). */
  private inDag(): number[] {
    const out: number[] = [];
    for (let c = this.head; c >= 0; c = this.next[c]) out.push(c);
    return out;
  }

  /** Adds a reference to class `c0`; a class that becomes reachable pays its cost and references its children. */
  private inc(c0: number): void {
    const { kidStart, kids, cost } = this.ix;
    const stack = this.refStack;
    let top = 0;
    stack[top++] = c0;
    while (top > 0) {
      const c = stack[--top];
      const r = this.refs[c];
      this.refs[c] = r + 1;
      if (r > 0) continue;
      this.link(c);
      const p = this.pick[c];
      this.total += cost[p];
      for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
  }

  /** Drops a reference to class `c0`; a class that becomes unreachable refunds its cost and its children. */
  private dec(c0: number): void {
    const { kidStart, kids, cost } = this.ix;
    const stack = this.refStack;
    let top = 0;
    stack[top++] = c0;
    while (top > 0) {
      const c = stack[--top];
      const r = this.refs[c];
      if (r > 1) {
        this.refs[c] = r - 1;
        continue;
      }
      this.refs[c] = 0;
      this.unlink(c);
      const p = this.pick[c];
      this.total -= cost[p];
      for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
  }

  /** Positions of the reachable classes in a children-first order into `topo`; false when the choice has a cycle. */
  private order(): boolean {
    const { kidStart, kids } = this.ix;
    const topo = this.topo;
    topo.fill(-1);
    const state = this.mark; // 0 unvisited, 1 on the stack, 2 done (reset to 0 after, for the stamps)
    state.fill(0);
    let pos = 0;
    let ok = true;
    const stack = this.stack; // (class, next child slot) pairs
    for (const r of this.roots) {
      if (!ok) break;
      if (state[r] === 2) continue;
      if (this.pick[r] < 0) {
        ok = false;
        break;
      }
      let top = 0;
      stack[top++] = r;
      stack[top++] = kidStart[this.pick[r]];
      state[r] = 1;
      while (top > 0) {
        const c = stack[top - 2];
        const j = stack[top - 1];
        if (j < kidStart[this.pick[c] + 1]) {
          stack[top - 1] = j + 1;
          const k = kids[j];
          if (state[k] === 1 || (state[k] === 0 && this.pick[k] < 0)) {
            ok = false;
            break;
          }
          if (state[k] === 0) {
            state[k] = 1;
            stack[top++] = k;
            stack[top++] = kidStart[this.pick[k]];
          }
        } else {
          state[c] = 2;
          topo[c] = pos++;
          top -= 2;
        }
      }
    }
    state.fill(0);
    this.stamp = 0;
    return ok;
  }

  /**
   * Whether class `target` is reachable from node `node`'s children under the current choice. A class placed
   * before `target` in the children-first order cannot reach it, so the search stops there.
   */
  private reaches(node: number, target: number): boolean {
    if (!this.topoValid) {
      if (!this.order()) throw new ExtractionError('DagExtractor: local search produced a cycle (a bug)');
      this.topoValid = true;
    }
    const { kidStart, kids } = this.ix;
    const topo = this.topo;
    const limit = topo[target] < 0 ? Number.POSITIVE_INFINITY : topo[target];
    const stamp = ++this.stamp;
    const mark = this.mark;
    const stack = this.stack;
    let top = 0;
    for (let j = kidStart[node]; j < kidStart[node + 1]; j++) stack[top++] = kids[j];
    while (top > 0) {
      const c = stack[--top];
      if (c === target) return true;
      if (mark[c] === stamp || (topo[c] < 0 ? Number.POSITIVE_INFINITY : topo[c]) < limit) continue;
      mark[c] = stamp;
      const p = this.pick[c];
      if (p >= 0) for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
    return false;
  }

  /** Switches reachable class `c` to node `node` (assumed acyclic), keeping reference counts and the total. */
  private set(c: number, node: number): void {
    const { kidStart, kids, cost } = this.ix;
    const old = this.pick[c];
    this.total -= cost[old];
    this.pick[c] = node;
    this.total += cost[node];
    for (let j = kidStart[node]; j < kidStart[node + 1]; j++) this.inc(kids[j]);
    for (let j = kidStart[old]; j < kidStart[old + 1]; j++) this.dec(kids[j]);
  }

  /** The nodes of class `c` other than its current pick whose children all have a choice, in class order. */
  private alternatives(c: number): number[] {
    let v = this.viable[c];
    if (!v) {
      const { nodeStart, kidStart, kids } = this.ix;
      const list: number[] = [];
      node: for (let i = nodeStart[c]; i < nodeStart[c + 1]; i++) {
        for (let j = kidStart[i]; j < kidStart[i + 1]; j++) if (this.pick[kids[j]] < 0) continue node;
        list.push(i);
      }
      v = Int32Array.from(list);
      this.viable[c] = v;
    }
    const cur = this.pick[c];
    const out: number[] = [];
    for (const i of v) if (i !== cur) out.push(i);
    return out;
  }

  /** Moves left of the evaluation budget. */
  get budgetLeft(): number {
    return Math.max(0, this.budget);
  }

  private exhausted(): boolean {
    return this.budget <= 0 || (this.deadline !== Number.POSITIVE_INFINITY && now() > this.deadline);
  }

  /** Why the search stopped (after `improve`), given whether the last round found nothing. */
  private stopReason(converged: boolean): SearchStop {
    if (this.budget <= 0) return 'evaluationLimit';
    if (this.deadline !== Number.POSITIVE_INFINITY && now() > this.deadline) return 'timeLimit';
    return converged ? 'converged' : 'passLimit';
  }

  /** Tries node `node` at class `c`: keeps it when the total drops by more than rounding, else restores; true if kept. */
  private tryMove(c: number, node: number): boolean {
    this.budget--;
    if (this.reaches(node, c)) return false;
    const before = this.total;
    const old = this.pick[c];
    this.set(c, node);
    if (this.total < before - 1e-9 * Math.max(1, Math.abs(before))) {
      this.topoValid = false;
      return true;
    }
    this.set(c, old);
    return false;
  }

  /** Single-class descent with class `locked` held fixed (-1: none); logs the moves made (for undo). */
  private descend(locked: number, log: [number, number][]): void {
    for (let improved = true; improved && !this.exhausted(); ) {
      improved = false;
      for (const c of this.inDag()) {
        if (c === locked || this.refs[c] === 0) continue;
        if (this.exhausted()) return;
        for (const n of this.alternatives(c)) {
          const old = this.pick[c];
          if (this.tryMove(c, n)) {
            log.push([c, old]);
            improved = true;
            break;
          }
        }
      }
    }
  }

  /**
   * One sweep outside the budget: each class in the DAG tries the alternatives whose children are all in the DAG
   * already (they add only their own cost). The budgeted search can stop before it reaches these on a large
   * e-graph, leaving, e.g., one parameter's update in its own kernel beside a multi-tensor kernel that computes it.
   */
  reuseShared(): void {
    const { kidStart, kids } = this.ix;
    for (const c of this.inDag()) {
      if (this.refs[c] === 0) continue;
      node: for (const n of this.alternatives(c)) {
        for (let j = kidStart[n]; j < kidStart[n + 1]; j++) if (this.refs[kids[j]] === 0) continue node;
        this.budget++; // tryMove counts a move; this sweep is not part of the search's budget
        if (this.tryMove(c, n)) break;
      }
    }
  }

  /** One sweep outside the budget: each of the classes `cs` in the DAG takes the first alternative that lowers the total. */
  sweep(cs: readonly number[]): void {
    for (const c of cs) {
      if (this.refs[c] === 0) continue;
      for (const n of this.alternatives(c)) {
        this.budget++; // not part of the search's budget
        if (this.tryMove(c, n)) break;
      }
    }
  }

  /** Descent, then up to `passes` rounds of kicks (forced move, descent, keep only if cheaper overall). */
  improve(passes: number): SearchStop {
    this.descend(-1, []);
    let converged = false;
    for (let pass = 0; pass < passes && !this.exhausted(); pass++) {
      let improved = false;
      for (const c of this.inDag()) {
        if (improved || this.exhausted()) break;
        if (this.refs[c] === 0) continue;
        for (const n of this.alternatives(c)) {
          if (this.exhausted()) break;
          this.budget--;
          if (this.reaches(n, c)) continue;
          const before = this.total;
          const log: [number, number][] = [[c, this.pick[c]]];
          this.set(c, n);
          this.topoValid = false;
          this.descend(c, log);
          if (this.total < before - 1e-9 * Math.max(1, Math.abs(before))) {
            improved = true;
            break;
          }
          for (let i = log.length - 1; i >= 0; i--) this.set(log[i][0], log[i][1]); // undo, newest first
          this.topoValid = false;
        }
      }
      if (!improved) {
        converged = true;
        break;
      }
    }
    // reachable classes only (the choice also holds unreachable classes' picks, which cost nothing)
    if (!this.order()) throw new ExtractionError('DagExtractor: local search produced a cycle (a bug)');
    this.topoValid = true;
    return this.stopReason(converged || passes === 0);
  }
}

/**
 * egg's greedy tree choice (`Extractor` with `treeCost`) over the index: a fixpoint where each class keeps its
 * cheapest node at `own cost + children's best costs`, a class re-evaluated only after a child's best changed.
 * The same passes, order and float sums as `Extractor`, so the same choice (ties go to the first node that
 * reached the best cost). Classes without a finite cost are left out.
 */
export function treeChoiceOf(ix: ExtractionIndex): Map<Id, ENode> {
  const numClasses = ix.numClasses;
  const { nodeStart, kidStart, kids, cost: own } = ix;
  const best = new Float64Array(numClasses);
  const bestNode = new Int32Array(numClasses).fill(-1);
  // consumers of class k (the classes with a node reading it, each once): consumers[consumerStart[k] ..]
  const consumerStart = new Int32Array(numClasses + 1);
  const last = new Int32Array(numClasses).fill(-1);
  for (let ci = 0; ci < numClasses; ci++) {
    for (let j = kidStart[nodeStart[ci]]; j < kidStart[nodeStart[ci + 1]]; j++) {
      const k = kids[j];
      if (last[k] === ci) continue;
      last[k] = ci;
      consumerStart[k + 1]++;
    }
  }
  for (let k = 0; k < numClasses; k++) consumerStart[k + 1] += consumerStart[k];
  const consumers = new Int32Array(consumerStart[numClasses]);
  const at = consumerStart.slice(0, numClasses);
  last.fill(-1);
  for (let ci = 0; ci < numClasses; ci++) {
    for (let j = kidStart[nodeStart[ci]]; j < kidStart[nodeStart[ci + 1]]; j++) {
      const k = kids[j];
      if (last[k] === ci) continue;
      last[k] = ci;
      consumers[at[k]++] = ci;
    }
  }
  const stale = new Uint8Array(numClasses).fill(1);
  const maxPasses = 4 * numClasses + 8;
  for (let pass = 0, changed = true; changed && pass < maxPasses; pass++) {
    changed = false;
    for (let ci = 0; ci < numClasses; ci++) {
      if (stale[ci] === 0) continue;
      stale[ci] = 0;
      let improved = false;
      node: for (let ni = nodeStart[ci]; ni < nodeStart[ci + 1]; ni++) {
        const k1 = kidStart[ni + 1];
        for (let j = kidStart[ni]; j < k1; j++) if (bestNode[kids[j]] < 0) continue node;
        let cost = own[ni];
        for (let j = kidStart[ni]; j < k1; j++) cost += best[kids[j]];
        if (bestNode[ci] < 0 || cost < best[ci]) {
          best[ci] = cost;
          bestNode[ci] = ni;
          improved = true;
          changed = true;
        }
      }
      if (improved) for (let j = consumerStart[ci]; j < consumerStart[ci + 1]; j++) stale[consumers[j]] = 1;
    }
  }
  const out = new Map<Id, ENode>();
  for (let ci = 0; ci < numClasses; ci++) if (bestNode[ci] >= 0 && Number.isFinite(best[ci])) out.set(ix.classIds[ci], ix.nodes[bestNode[ci]]);
  return out;
}

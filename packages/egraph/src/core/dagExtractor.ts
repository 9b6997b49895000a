// DAG-aware extraction: picks one e-node per e-class so that the total of node costs, each reachable class
// counted once, is low (shared subterms paid once). Must not change the e-graph. Invariant: the returned
// `cost` is the exact DAG cost of the returned acyclic choice, and is never above the greedy tree choice's.
// Local search keeps reference counts of the chosen DAG, so one move costs O(classes it adds or frees), not
// O(all classes): on the GPT training step (3 000 classes) the former full re-evaluation took seconds.
import { EGraphStateError, ExtractionError } from './errors.js';
import type { EGraph } from './eGraph.js';
import { Extractor, collectChoices, dagCost, reachableClasses, treeCost } from './extract.js';
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
  private greedyDag(): Map<Id, ENode> {
    const eg = this.egraph;
    const classes = eg.classes();
    const index = new Map<Id, number>();
    for (const [i, c] of classes.entries()) index.set(c.id, i);
    const words = (classes.length + 31) >>> 5;
    const sets: (Uint32Array | undefined)[] = new Array(classes.length);
    const totals = new Float64Array(classes.length).fill(Number.POSITIVE_INFINITY);
    const own = new Float64Array(classes.length);
    const picks: (ENode | undefined)[] = new Array(classes.length);
    const tmp = new Uint32Array(words);
    const kids = classes.map((c) => c.nodes.map((n) => n.children.map((ch) => index.get(eg.find(ch)) as number)));
    for (let pass = 0, changed = true; changed && pass < 4 * classes.length + 8; pass++) {
      changed = false;
      for (let ci = 0; ci < classes.length; ci++) {
        const c = classes[ci];
        const word = ci >>> 5;
        const bit = 1 << (ci & 31);
        for (let ni = 0; ni < c.nodes.length; ni++) {
          const ks = kids[ci][ni];
          const n = c.nodes[ni];
          const cost = this.costFn.nodeCost(n, c.id);
          // a union is at least its largest part: skip nodes that cannot beat the class's current pick
          let bound = cost;
          for (const k of ks) bound = Math.max(bound, cost + totals[k]);
          if (!(bound < totals[ci])) continue;
          let ok = true;
          tmp.fill(0);
          for (const k of ks) {
            const ks2 = sets[k];
            if (!ks2 || ks2[word] & bit) {
              ok = false;
              break;
            }
            for (let w = 0; w < words; w++) tmp[w] |= ks2[w];
          }
          if (!ok) continue;
          let total = cost;
          for (let w = 0; w < words; w++) {
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
            picks[ci] = n;
            tmp[word] |= bit;
            sets[ci] = tmp.slice();
            changed = true;
          }
        }
      }
    }
    const out = new Map<Id, ENode>();
    classes.forEach((c, i) => {
      const n = picks[i];
      if (n) out.set(c.id, n);
    });
    return out;
  }

  /** The local search from `start` (see `DagExtractorOptions.start`), or undefined when `start` costs Infinity. */
  private fromStart(start: ReadonlyMap<Id, ENode>, focus: readonly Id[], roots: readonly Id[]): DagExtraction | undefined {
    const find = (id: Id) => this.egraph.find(id);
    if (!Number.isFinite(dagCost(start, roots, this.costFn, find))) return undefined;
    const search = new LocalSearch(this.egraph, this.costFn, start, roots, this.maxEvaluations, now() + this.timeLimitMs);
    search.sweep(focus.map(find));
    const stop = this.improvePasses > 0 ? search.improve(this.improvePasses) : 'off';
    search.reuseShared();
    const choice = search.choice;
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
    const tree = new Extractor(eg, treeCost(this.costFn));
    const treeChoice = new Map<Id, ENode>();
    for (const c of eg.classes()) {
      if (Number.isFinite(tree.findBestCost(c.id))) treeChoice.set(c.id, tree.findBestNode(c.id));
    }
    let choice: Map<Id, ENode> = treeChoice;
    let best = dagCost(treeChoice, canonRoots, this.costFn, find);
    if (eg.numClasses <= this.greedyDagClassLimit) {
      const dagChoice = this.greedyDag();
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
      const search = new LocalSearch(eg, this.costFn, choice, canonRoots, this.maxEvaluations, now() + this.timeLimitMs);
      const stop = search.improve(this.improvePasses);
      search.reuseShared();
      choice = search.choice;
      best = dagCost(choice, canonRoots, this.costFn, find); // exact, not the running sum
      searchFigures = { evaluations: this.maxEvaluations - search.budgetLeft, stop };
    }
    return { roots: canonRoots, choices: collectChoices(eg, choice, canonRoots), cost: best, search: searchFigures };
  }
}

/** Local search over an acyclic choice with reference counts of the chosen DAG (see `DagExtractor`). */
class LocalSearch<D> {
  readonly choice: Map<Id, ENode>;
  private readonly refs = new Map<Id, number>();
  private total = 0;
  private budget: number;
  private readonly find: (id: Id) => Id;

  constructor(
    private readonly egraph: EGraph<D>,
    private readonly costFn: NodeCostFunction,
    start: ReadonlyMap<Id, ENode>,
    private readonly roots: readonly Id[],
    maxEvaluations: number,
    private readonly deadline: number,
  ) {
    this.find = (id) => egraph.find(id);
    this.choice = new Map();
    for (const [id, n] of start) this.choice.set(this.find(id), n);
    this.budget = maxEvaluations;
    for (const r of roots) this.inc(r);
  }

  private cost(id: Id): number {
    return this.costFn.nodeCost(this.choice.get(id) as ENode, id);
  }

  /** Adds a reference to class `id`; a class that becomes reachable pays its cost and references its children. */
  private inc(id0: Id): void {
    const stack = [this.find(id0)];
    while (stack.length > 0) {
      const id = stack.pop() as Id;
      const r = this.refs.get(id) ?? 0;
      this.refs.set(id, r + 1);
      if (r > 0) continue;
      this.total += this.cost(id);
      for (const c of (this.choice.get(id) as ENode).children) stack.push(this.find(c));
    }
  }

  /** Drops a reference to class `id`; a class that becomes unreachable refunds its cost and its children. */
  private dec(id0: Id): void {
    const stack = [this.find(id0)];
    while (stack.length > 0) {
      const id = stack.pop() as Id;
      const r = this.refs.get(id) as number;
      if (r > 1) {
        this.refs.set(id, r - 1);
        continue;
      }
      this.refs.delete(id);
      this.total -= this.cost(id);
      for (const c of (this.choice.get(id) as ENode).children) stack.push(this.find(c));
    }
  }

  /** Position of each reachable class in a children-first order of the current choice (rebuilt lazily). */
  private topo = new Map<Id, number>();
  private topoValid = false;

  /**
   * Whether class `target` is reachable from `node`'s children under the current choice. A class placed
   * before `target` in the children-first order cannot reach it, so the search stops there.
   */
  private reaches(node: ENode, target: Id): boolean {
    if (!this.topoValid) {
      const order = reachableClasses(this.choice, this.roots, this.find) as Id[];
      this.topo = new Map(order.map((id, i) => [id, i]));
      this.topoValid = true;
    }
    const limit = this.topo.get(target) ?? Number.POSITIVE_INFINITY;
    const seen = new Set<Id>();
    const stack = node.children.map(this.find);
    while (stack.length > 0) {
      const id = stack.pop() as Id;
      if (id === target) return true;
      if (seen.has(id) || (this.topo.get(id) ?? Number.POSITIVE_INFINITY) < limit) continue;
      seen.add(id);
      const n = this.choice.get(id);
      if (n) for (const c of n.children) stack.push(this.find(c));
    }
    return false;
  }

  /** Switches reachable class `id` to `node` (assumed acyclic), keeping reference counts and the total. */
  private set(id: Id, node: ENode): void {
    const old = this.choice.get(id) as ENode;
    this.total -= this.costFn.nodeCost(old, id);
    this.choice.set(id, node);
    this.total += this.costFn.nodeCost(node, id);
    for (const c of node.children) this.inc(c);
    for (const c of old.children) this.dec(c);
  }

  private alternatives(id: Id): ENode[] {
    const cur = this.choice.get(id);
    return this.egraph.eclass(id).nodes.filter((n) => n !== cur && n.children.every((c) => this.choice.has(this.find(c))));
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

  /** Tries `node` at `id`: keeps it when the total drops by more than rounding, else restores; true if kept. */
  private tryMove(id: Id, node: ENode): boolean {
    this.budget--;
    if (this.reaches(node, id)) return false;
    const before = this.total;
    const old = this.choice.get(id) as ENode;
    this.set(id, node);
    if (this.total < before - 1e-9 * Math.max(1, Math.abs(before))) {
      this.topoValid = false;
      return true;
    }
    this.set(id, old);
    return false;
  }

  /** Single-class descent with `locked` held fixed; returns the moves made (for undo). */
  private descend(locked: Id | undefined, log: [Id, ENode][]): void {
    for (let improved = true; improved && !this.exhausted(); ) {
      improved = false;
      for (const id of [...this.refs.keys()]) {
        if (id === locked || !this.refs.has(id)) continue;
        if (this.exhausted()) return;
        for (const n of this.alternatives(id)) {
          const old = this.choice.get(id) as ENode;
          if (this.tryMove(id, n)) {
            log.push([id, old]);
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
    for (const id of [...this.refs.keys()]) {
      if (!this.refs.has(id)) continue;
      for (const n of this.alternatives(id)) {
        if (!n.children.every((c) => this.refs.has(this.find(c)))) continue;
        this.budget++; // tryMove counts a move; this sweep is not part of the search's budget
        if (this.tryMove(id, n)) break;
      }
    }
  }

  /** One sweep outside the budget: each of `ids` in the DAG takes the first alternative that lowers the total. */
  sweep(ids: readonly Id[]): void {
    for (const id of ids) {
      if (!this.refs.has(id)) continue;
      for (const n of this.alternatives(id)) {
        this.budget++; // not part of the search's budget
        if (this.tryMove(id, n)) break;
      }
    }
  }

  /** Descent, then up to `passes` rounds of kicks (forced move, descent, keep only if cheaper overall). */
  improve(passes: number): SearchStop {
    this.descend(undefined, []);
    let converged = false;
    for (let pass = 0; pass < passes && !this.exhausted(); pass++) {
      let improved = false;
      for (const id of [...this.refs.keys()]) {
        if (improved || this.exhausted()) break;
        if (!this.refs.has(id)) continue;
        for (const n of this.alternatives(id)) {
          if (this.exhausted()) break;
          this.budget--;
          if (this.reaches(n, id)) continue;
          const before = this.total;
          const log: [Id, ENode][] = [[id, this.choice.get(id) as ENode]];
          this.set(id, n);
          this.topoValid = false;
          this.descend(id, log);
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
    // reachable classes only (the choice map also holds unreachable classes' picks, which cost nothing)
    const order = reachableClasses(this.choice, this.roots, this.find);
    if (!order) throw new ExtractionError('DagExtractor: local search produced a cycle (a bug)');
    return this.stopReason(converged || passes === 0);
  }
}

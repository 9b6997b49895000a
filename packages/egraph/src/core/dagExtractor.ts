// DAG-aware extraction: picks one e-node per e-class so that the total of node costs, each reachable class
// counted once, is low (shared subterms paid once). Must not change the e-graph. Invariant: the returned
// `cost` is the exact DAG cost of the returned acyclic choice, and is never above the greedy tree choice's.
import type { EGraph } from './eGraph.js';
import { Extractor, collectChoices, dagCost, reachableClasses, treeCost } from './extract.js';
import type { Extraction, NodeCostFunction } from './extract.js';
import type { ENode, Id } from './language.js';

/** Options of the DAG extractor. */
export interface DagExtractorOptions {
  /** Rounds of exact local improvement after the greedy phase (0 turns it off); default 4. */
  readonly improvePasses?: number;
}

/**
 * Three phases. (1) Greedy DAG (as in extraction-gym's `greedy-dag`): a fixpoint where each class keeps the
 * node minimising `own cost + sum over the union of its children's class sets`, a node whose children's sets
 * contain the class itself being skipped (no cycles). (2) The better, by exact DAG cost, of that choice and
 * egg's greedy tree choice. (3) Local search: for each reachable class try every other node, keep a change
 * when the exact DAG cost of the whole acyclic choice strictly drops, for `improvePasses` rounds. The result
 * is not guaranteed optimal (that is NP-hard; an ILP would be), but is never worse than phases (1) or (2).
 */
export class DagExtractor<D> {
  private readonly egraph: EGraph<D>;
  private readonly costFn: NodeCostFunction;
  private readonly improvePasses: number;

  /** Prepares extraction over a rebuilt e-graph. */
  constructor(egraph: EGraph<D>, costFn: NodeCostFunction, opts: DagExtractorOptions = {}) {
    if (egraph.isDirty) throw new Error('DagExtractor: call egraph.rebuild() before extracting');
    this.egraph = egraph;
    this.costFn = costFn;
    this.improvePasses = opts.improvePasses ?? 4;
  }

  private greedyDag(): Map<Id, ENode> {
    const eg = this.egraph;
    const sets = new Map<Id, { total: number; set: Map<Id, number>; node: ENode }>();
    const classes = eg.classes();
    for (let pass = 0, changed = true; changed && pass < 4 * classes.length + 8; pass++) {
      changed = false;
      for (const c of classes) {
        for (const n of c.nodes) {
          const kids = n.children.map((ch) => sets.get(eg.find(ch)));
          if (kids.some((k) => k === undefined || k.set.has(c.id))) continue;
          const set = new Map<Id, number>();
          for (const k of kids) for (const [id, cost] of (k as { set: Map<Id, number> }).set) set.set(id, cost);
          set.set(c.id, this.costFn.nodeCost(n, c.id));
          let total = 0;
          for (const v of set.values()) total += v;
          if (total < (sets.get(c.id)?.total ?? Number.POSITIVE_INFINITY)) {
            sets.set(c.id, { total, set, node: n });
            changed = true;
          }
        }
      }
    }
    const out = new Map<Id, ENode>();
    for (const [id, s] of sets) out.set(id, s.node);
    return out;
  }

  /** Extracts one node per class reachable from `roots`; `cost` is the exact DAG cost. */
  extract(roots: readonly Id[]): Extraction {
    const eg = this.egraph;
    const find = (id: Id) => eg.find(id);
    const canonRoots = roots.map(find);
    const tree = new Extractor(eg, treeCost(this.costFn));
    const treeChoice = new Map<Id, ENode>();
    for (const c of eg.classes()) {
      if (Number.isFinite(tree.findBestCost(c.id))) treeChoice.set(c.id, tree.findBestNode(c.id));
    }
    const dagChoice = this.greedyDag();
    const treeCostValue = dagCost(treeChoice, canonRoots, this.costFn, find);
    const dagCostValue = dagCost(dagChoice, canonRoots, this.costFn, find);
    let choice = dagCostValue <= treeCostValue ? dagChoice : treeChoice;
    let best = Math.min(dagCostValue, treeCostValue);
    if (!Number.isFinite(best)) {
      // collectChoices names the failing class
      collectChoices(eg, choice, canonRoots);
      throw new Error('DagExtractor: no acyclic choice covers the roots');
    }
    for (let pass = 0; pass < this.improvePasses; pass++) {
      let improved = false;
      const order = reachableClasses(choice, canonRoots, find) as Id[];
      for (const id of order) {
        const current = choice.get(id) as ENode;
        for (const n of eg.eclass(id).nodes) {
          if (n === current || !n.children.every((ch) => choice.has(find(ch)))) continue;
          const trial = new Map(choice);
          trial.set(id, n);
          const cost = dagCost(trial, canonRoots, this.costFn, find);
          if (cost < best) {
            best = cost;
            choice = trial;
            improved = true;
            break;
          }
        }
      }
      if (!improved) break;
    }
    return { roots: canonRoots, choices: collectChoices(eg, choice, canonRoots), cost: best };
  }
}

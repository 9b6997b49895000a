// DAG-aware extraction: picks one e-node per e-class so that the total of node costs, each reachable class
// counted once, is low (shared subterms paid once). Must not change the e-graph. Invariant: the returned
// `cost` is the exact DAG cost of the returned acyclic choice, and is never above the greedy tree choice's.
import type { EGraph } from './eGraph.js';
import { Extractor, collectChoices, dagCost, reachableClasses, treeCost } from './extract.js';
import type { Extraction, NodeCostFunction } from './extract.js';
import type { ENode, Id } from './language.js';

/** Options of the DAG extractor. */
export interface DagExtractorOptions {
  /** Rounds of kick-and-descend improvement after the greedy phase (0 turns improvement off); default 8. */
  readonly improvePasses?: number;
  /** Budget of exact cost evaluations (each O(reachable classes)) for the improvement phase; default 20 000. */
  readonly maxEvaluations?: number;
}

/**
 * Three phases. (1) Greedy DAG (as in extraction-gym's `greedy-dag`): a fixpoint where each class keeps the
 * node minimising `own cost + sum over the union of its children's class sets`, a node whose children's sets
 * contain the class itself being skipped (no cycles). (2) The better, by exact DAG cost, of that choice and
 * egg's greedy tree choice. (3) Local search on the exact DAG cost of the whole acyclic choice: descent by
 * single-class changes, then "kicks" (force one class to another node, descend with it held, keep the result
 * if the total strictly drops), which finds joint moves like two consumers switching to one shared subterm.
 * Bounded by `improvePasses` and `maxEvaluations`. Not guaranteed optimal (the problem is NP-hard; an ILP
 * would be exact), but never worse than phase (1) or (2), and the reported cost is exact.
 */
export class DagExtractor<D> {
  private readonly egraph: EGraph<D>;
  private readonly costFn: NodeCostFunction;
  private readonly improvePasses: number;
  private readonly maxEvaluations: number;

  /** Prepares extraction over a rebuilt e-graph. */
  constructor(egraph: EGraph<D>, costFn: NodeCostFunction, opts: DagExtractorOptions = {}) {
    if (egraph.isDirty) throw new Error('DagExtractor: call egraph.rebuild() before extracting');
    this.egraph = egraph;
    this.costFn = costFn;
    this.improvePasses = opts.improvePasses ?? 8;
    this.maxEvaluations = opts.maxEvaluations ?? 20_000;
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
    let choice: Map<Id, ENode> = dagCostValue <= treeCostValue ? dagChoice : treeChoice;
    let best = Math.min(dagCostValue, treeCostValue);
    if (!Number.isFinite(best)) {
      // collectChoices names the failing class
      collectChoices(eg, choice, canonRoots);
      throw new Error('DagExtractor: no acyclic choice covers the roots');
    }
    let budget = this.maxEvaluations;
    const evaluate = (ch: ReadonlyMap<Id, ENode>): number => {
      budget--;
      return dagCost(ch, canonRoots, this.costFn, find);
    };
    const alternatives = (ch: ReadonlyMap<Id, ENode>, id: Id): ENode[] =>
      eg.eclass(id).nodes.filter((n) => n !== ch.get(id) && n.children.every((c) => ch.has(find(c))));
    // Local descent: single-class changes that strictly lower the exact cost, `locked` held fixed.
    const descend = (start: Map<Id, ENode>, startCost: number, locked: Id | undefined) => {
      let ch = start;
      let cost = startCost;
      for (let improved = true; improved && budget > 0; ) {
        improved = false;
        for (const id of reachableClasses(ch, canonRoots, find) as Id[]) {
          if (id === locked || budget <= 0) continue;
          for (const n of alternatives(ch, id)) {
            const trial = new Map(ch).set(id, n);
            const c = evaluate(trial);
            if (c < cost) {
              ch = trial;
              cost = c;
              improved = true;
              break;
            }
          }
        }
      }
      return { ch, cost };
    };
    if (this.improvePasses > 0) ({ ch: choice, cost: best } = descend(choice, best, undefined));
    // Kicks: force one class to another node, descend with it locked, keep the result if cheaper overall.
    // This finds joint moves such as "both consumers switch to the shared subterm" that no single change does.
    for (let pass = 0; pass < this.improvePasses && budget > 0; pass++) {
      let improved = false;
      for (const id of reachableClasses(choice, canonRoots, find) as Id[]) {
        for (const n of alternatives(choice, id)) {
          if (budget <= 0) break;
          const kicked = new Map(choice).set(id, n);
          const kickedCost = evaluate(kicked);
          if (!Number.isFinite(kickedCost)) continue;
          const r = descend(kicked, kickedCost, id);
          if (r.cost < best) {
            choice = r.ch;
            best = r.cost;
            improved = true;
            break;
          }
        }
        if (improved) break;
      }
      if (!improved) break;
    }
    return { roots: canonRoots, choices: collectChoices(eg, choice, canonRoots), cost: best };
  }
}

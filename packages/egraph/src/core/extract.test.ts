import { describe, expect, it } from 'vitest';
import { DagExtractor, treeChoiceOf } from './dagExtractor.js';
import { EGraph } from './eGraph.js';
import { Extractor, astDepth, astSize, dagCost, reachableClasses, toRecExpr, treeCost } from './extract.js';
import { ExtractionIndex } from './extractionIndex.js';
import type { NodeCostFunction } from './extract.js';
import { enode } from './language.js';
import { parseRecExpr, recExprToString } from './recExpr.js';
import { Runner } from './runner.js';
import { mathLanguage, mathRules } from './testing/math.js';

/** Node costs by op (default 1), in both extractor shapes. */
function opCosts(table: Record<string, number>): NodeCostFunction & { cost(n: { op: string; children: readonly number[] }, c: (id: number) => number): number } {
  const own = (op: string) => table[op] ?? 1;
  return {
    nodeCost: (n) => own(n.op),
    cost: (n, childCost) => n.children.reduce((s, c) => s + childCost(c), own(n.op)),
  };
}

describe('Extractor (greedy, tree cost)', () => {
  it('picks the cheaper form after saturation: (x * 1) + 0 becomes x', () => {
    const eg = new EGraph();
    const runner = new Runner(eg, { iterLimit: 5 });
    const root = runner.withExpr('(add (mul x 1) 0)', mathLanguage);
    runner.run(mathRules());
    const { cost, expr } = new Extractor(eg, astSize).findBest(root);
    expect(cost).toBe(1);
    expect(recExprToString(expr, mathLanguage)).toBe('x');
  });

  it('follows the cost function: a costly mul loses to two adds', () => {
    const eg = new EGraph();
    const root = eg.addExpr(parseRecExpr('(mul x 2)', mathLanguage));
    eg.union(root, eg.addExpr(parseRecExpr('(add x x)', mathLanguage)));
    eg.rebuild();
    const best = new Extractor(eg, opCosts({ mul: 10 })).findBest(root);
    expect(recExprToString(best.expr, mathLanguage)).toBe('(add x x)');
    expect(new Extractor(eg, astDepth).findBestCost(root)).toBe(2);
  });

  it('never picks a cyclic choice: x = f(x) extracts x', () => {
    const eg = new EGraph();
    const x = eg.add(enode('x'));
    const fx = eg.add(enode('f', [x]));
    eg.union(x, fx);
    eg.rebuild();
    const e = new Extractor(eg, astSize).extract([fx]);
    expect(e.choices.get(eg.find(x))).toEqual(enode('x'));
    expect(e.cost).toBe(1);
  });
});

describe('DagExtractor (shared subterms counted once)', () => {
  /** `(h S S)` against a leaf `k`; S is an expensive leaf. */
  function sharedPair() {
    const eg = new EGraph();
    const s = eg.add(enode('s'));
    const root = eg.add(enode('h', [s, s]));
    eg.union(root, eg.add(enode('k')));
    eg.rebuild();
    return { eg, root, costs: opCosts({ s: 8, k: 12 }) };
  }

  it('counts a shared subterm once where the greedy tree cost counts it twice', () => {
    const { eg, root, costs } = sharedPair();
    const greedy = new Extractor(eg, costs).extract([root]);
    expect(greedy.choices.get(eg.find(root))?.op).toBe('k'); // tree: h(s, s) = 1 + 8 + 8 = 17 > 12
    expect(greedy.cost).toBe(12);
    const dag = new DagExtractor(eg, costs).extract([root]);
    expect(dag.choices.get(eg.find(root))?.op).toBe('h'); // DAG: 1 + 8 = 9 < 12
    expect(dag.cost).toBe(9);
  });

  it('finds the joint move where two consumers both switch to one shared subterm', () => {
    // root = (pair A B); A = (f S) | p, B = (g S) | q; S costs 8, p and q cost 6.
    // Each alone prefers its leaf (6 < 1 + 8), but together (f S), (g S) share S: 1+1+1+8 = 11 < 1+6+6 = 13.
    const eg = new EGraph();
    const s = eg.add(enode('s'));
    const a = eg.add(enode('f', [s]));
    const b = eg.add(enode('g', [s]));
    eg.union(a, eg.add(enode('p')));
    eg.union(b, eg.add(enode('q')));
    const root = eg.add(enode('pair', [a, b]));
    eg.rebuild();
    const costs = opCosts({ s: 8, p: 6, q: 6 });
    const greedy = new Extractor(eg, costs).extract([root]);
    expect(dagCost(greedy.choices, greedy.roots, costs)).toBe(13);
    const dag = new DagExtractor(eg, costs).extract([root]);
    expect(dag.cost).toBe(11);
    expect([dag.choices.get(eg.find(a))?.op, dag.choices.get(eg.find(b))?.op]).toEqual(['f', 'g']);
    expect(new DagExtractor(eg, costs, { improvePasses: 0 }).extract([root]).cost).toBe(13);
  });

  it('after the budget runs out, a class still switches to an alternative built only from classes in the DAG', () => {
    // root = (pair A B); A = (f S); B = (q) | (g S); S costs 8, q costs 6. Alone B prefers q (6 < 1 + 8), so the
    // greedy phases pick it; with S already paid for by A, (g S) adds 1. No search budget: the closing sweep finds it.
    const eg = new EGraph();
    const s = eg.add(enode('s'));
    const a = eg.add(enode('f', [s]));
    const b = eg.add(enode('q'));
    eg.union(b, eg.add(enode('g', [s])));
    const root = eg.add(enode('pair', [a, b]));
    eg.rebuild();
    const costs = opCosts({ s: 8, q: 6 });
    expect(new Extractor(eg, costs).extract([root]).choices.get(eg.find(b))?.op).toBe('q');
    const dag = new DagExtractor(eg, costs, { maxEvaluations: 0 }).extract([root]);
    expect(dag.search.stop).toBe('evaluationLimit');
    expect(dag.choices.get(eg.find(b))?.op).toBe('g');
    expect(dag.cost).toBe(11);
  });

  it('from a given start, a focus class takes an alternative whose child has a choice but is not in the DAG', () => {
    // root = (pair A B); A = p | (f M); M = (m) costs 5, p costs 9: from the start {A: p, M: m}, A's sweep takes
    // (f M) (1 + 5 < 9); without A in the focus and without search, the start stays
    const eg = new EGraph();
    const m = eg.add(enode('m'));
    const a = eg.add(enode('p'));
    eg.union(a, eg.add(enode('f', [m])));
    const b = eg.add(enode('q'));
    const root = eg.add(enode('pair', [a, b]));
    eg.rebuild();
    const costs = opCosts({ p: 9, m: 5 });
    const choice = new Map([
      [eg.find(root), enode('pair', [eg.find(a), eg.find(b)])],
      [eg.find(a), enode('p')],
      [eg.find(b), enode('q')],
      [eg.find(m), enode('m')],
    ]);
    const swept = new DagExtractor(eg, costs, { improvePasses: 0, start: { choice, focus: [a] } }).extract([root]);
    expect(swept.choices.get(eg.find(a))?.op).toBe('f');
    expect(swept.cost).toBe(1 + 1 + 5 + 1);
    const kept = new DagExtractor(eg, costs, { improvePasses: 0, start: { choice, focus: [] } }).extract([root]);
    expect(kept.choices.get(eg.find(a))?.op).toBe('p');
    expect(kept.cost).toBe(1 + 9 + 1);
  });

  it('extracts several roots into one RecExpr that shares their common subterm', () => {
    const eg = new EGraph();
    const r1 = eg.addExpr(parseRecExpr('(add (mul x y) 1)', mathLanguage));
    const r2 = eg.addExpr(parseRecExpr('(sub (mul x y) 2)', mathLanguage));
    eg.rebuild();
    const extraction = new DagExtractor(eg, astSize).extract([r1, r2]);
    expect(extraction.cost).toBe(7); // x, y, mul, 1, add, 2, sub: mul x y once, not twice
    const { expr, roots } = toRecExpr(extraction);
    expect(expr.filter((n) => n.op === 'mul')).toHaveLength(1);
    expect(recExprToString(expr, mathLanguage, roots[0])).toBe('(add (mul x y) 1)');
    expect(recExprToString(expr, mathLanguage, roots[1])).toBe('(sub (mul x y) 2)');
  });

  /** On each saturated term (plus a shared `(mul a b)` root), the DAG extractor's cost is exact and ≤ greedy's. */
  const expectNoWorseThanGreedy = (terms: readonly string[], options?: ConstructorParameters<typeof DagExtractor>[2]) => {
    for (const t of terms) {
      const eg = new EGraph();
      const runner = new Runner(eg, { iterLimit: 6, nodeLimit: 3_000 });
      const root = runner.withExpr(t, mathLanguage);
      const root2 = runner.withExpr('(mul a b)', mathLanguage);
      runner.run(mathRules());
      const costs = opCosts({ mul: 4, add: 2 });
      const greedy = new Extractor(eg, costs).extract([root, root2]);
      const dag = new DagExtractor(eg, costs, options).extract([root, root2]);
      expect(reachableClasses(dag.choices, dag.roots)).toBeDefined();
      expect(dag.cost).toBe(dagCost(dag.choices, dag.roots, costs));
      expect(dag.cost).toBeLessThanOrEqual(dagCost(greedy.choices, greedy.roots, costs));
    }
  };

  it('never does worse than the greedy choice and reports its exact cost, on saturated random terms', () => {
    expectNoWorseThanGreedy(['(mul a (add b c))', '(add (mul a b) (mul a c))', '(add (add x 0) (mul (mul y 1) (add z x)))']);
  });

  it('without the greedy DAG phase (large e-graphs) the ref-counted local search still finds the shared choice', () => {
    expectNoWorseThanGreedy(['(mul a (add b c))', '(add (add x 0) (mul (mul y 1) (add z x)))'], { greedyDagClassLimit: 0 });
  });

  it("its tree phase (on the extraction index) picks exactly egg's Extractor's nodes, ties included", () => {
    // equal costs everywhere (astSize-like ties) and uneven ones: the same node object per class either way
    const tables: Record<string, number>[] = [{}, { mul: 4, add: 2 }, { mul: 2, add: 2, sub: 3 }];
    for (const table of tables) {
      for (const t of ['(mul a (add b c))', '(add (mul a b) (mul a c))', '(add (add x 0) (mul (mul y 1) (add z x)))']) {
        const eg = new EGraph();
        const runner = new Runner(eg, { iterLimit: 6, nodeLimit: 3_000 });
        runner.withExpr(t, mathLanguage);
        runner.run(mathRules());
        const costs = opCosts(table);
        const tree = new Extractor(eg, treeCost(costs));
        const expected = new Map(eg.classes().map((c) => [c.id, tree.findBestNode(c.id)]));
        expect(treeChoiceOf(new ExtractionIndex(eg, costs))).toEqual(expected);
        for (const [id, n] of treeChoiceOf(new ExtractionIndex(eg, costs))) expect(n).toBe(expected.get(id));
      }
    }
  });

  it('never picks a cyclic choice even when the cycle looks cheap', () => {
    const eg = new EGraph();
    const x = eg.add(enode('x'));
    const fx = eg.add(enode('f', [x]));
    eg.union(x, fx);
    eg.rebuild();
    const e = new DagExtractor(eg, opCosts({ x: 100, f: 1 })).extract([x]);
    expect(e.choices.get(eg.find(x))?.op).toBe('x');
    expect(e.cost).toBe(100);
  });
});

describe('reachableClasses', () => {
  it('orders children first, past its first table of ids, and reports a cycle or a missing choice', () => {
    // ids beyond the walk's first state table (1 024 ids) grow it
    const choices = new Map([
      [5000, enode('+', [7, 3])],
      [7, enode('x')],
      [3, enode('neg', [7])],
    ]);
    expect(reachableClasses(choices, [5000])).toEqual([7, 3, 5000]);
    expect(reachableClasses(new Map([...choices, [7, enode('neg', [5000])]]), [5000])).toBeUndefined();
    expect(reachableClasses(new Map([[1, enode('neg', [2])]]), [1])).toBeUndefined();
  });

  it('names an id that no union-find hands out', () => {
    expect(() => reachableClasses(new Map([[-1, enode('x')]]), [-1])).toThrow(/-1 is not a class id/);
  });
});

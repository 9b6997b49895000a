import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import { rw } from './rewrite.js';
import type { Report } from './runner.js';
import { Runner } from './runner.js';
import { BackoffScheduler, SimpleScheduler } from './scheduler.js';
import { constantFolding, foldRules, mathLanguage, mathRules } from './testing/math.js';

/** Runs `rules` on both expressions and says whether they ended in one class. */
function proves<D>(eg: EGraph<D>, a: string, b: string, rules = mathRules<D>(), opts = {}): { equal: boolean; report: Report } {
  let ia = -1;
  let ib = -1;
  const proved = () => (eg.find(ia) === eg.find(ib) ? 'proved' : undefined);
  const runner = new Runner(eg, { iterLimit: 20, nodeLimit: 20_000, hooks: [proved], ...opts });
  ia = runner.withExpr(a, mathLanguage);
  ib = runner.withExpr(b, mathLanguage);
  const report = runner.run(rules);
  return { equal: eg.find(ia) === eg.find(ib), report };
}

const ringNoDistribution = () => mathRules().filter((r) => !r.name.startsWith('distribute'));

describe('Runner goals', () => {
  it('proves distributivity a*(b+c) = a*b + a*c', () => {
    expect(proves(new EGraph(), '(mul a (add b c))', '(add (mul a b) (mul a c))').equal).toBe(true);
  });

  it('proves factoring (a*b + a*c) = (b+c)*a with commutativity and reverse distributivity', () => {
    expect(proves(new EGraph(), '(add (mul a b) (mul a c))', '(mul (add c b) a)').equal).toBe(true);
  });

  it('proves a + (b + c) = c + (b + a) from commutativity and associativity', () => {
    const r = proves(new EGraph(), '(add a (add b c))', '(add c (add b a))', ringNoDistribution(), { hooks: [] });
    expect(r.equal).toBe(true);
    expect(r.report.stopReason).toBe('saturated');
  });

  it('proves x*1 + 0 = x from the identity rules', () => {
    expect(proves(new EGraph(), '(add (mul x 1) 0)', 'x').equal).toBe(true);
  });

  it('proves 2 + 3*4 = 14 by constant folding through custom appliers', () => {
    const r = proves(new EGraph(), '(add 2 (mul 3 4))', '14', foldRules());
    expect(r.equal).toBe(true);
    expect(r.report.applied['fold-mul']).toBe(1);
  });

  it('proves (x + 0) * (3 - 3) = 0 with the constant-folding analysis', () => {
    expect(proves(new EGraph(constantFolding), '(mul (add x 0) (sub 3 3))', '0').equal).toBe(true);
  });

  it('proves x*(y+2) - x*y = 2*x with distributivity, folding and cancellation', () => {
    const rules = [...mathRules<number | undefined>(), rw<number | undefined>('cancel', '(add ?a (mul -1 ?a))', '0', { language: mathLanguage })];
    const r = proves(new EGraph(constantFolding), '(sub (mul x (add y 2)) (mul x y))', '(mul 2 x)', rules, {
      scheduler: new SimpleScheduler(),
      iterLimit: 8,
      nodeLimit: 50_000,
    });
    expect(r.equal).toBe(true);
  });
});

describe('Runner negative goals', () => {
  it('saturates without equating a + b and a * b', () => {
    const r = proves(new EGraph(), '(add a b)', '(mul a b)', ringNoDistribution());
    expect(r.report.stopReason).toBe('saturated');
    expect(r.equal).toBe(false);
  });

  it('saturates without equating x + 1 and x', () => {
    const r = proves(new EGraph(constantFolding), '(add x 1)', 'x', ringNoDistribution());
    expect(r.report.stopReason).toBe('saturated');
    expect(r.equal).toBe(false);
  });

  it('does not equate a*b + c with a*(b + c)', () => {
    const r = proves(new EGraph(), '(add (mul a b) c)', '(mul a (add b c))', mathRules(), { iterLimit: 8 });
    expect(r.equal).toBe(false);
  });
});

describe('Runner limits and report', () => {
  const big = '(mul (add a (add b (add c (add d e)))) (add f (add g (add h (add i j)))))';

  it('stops at the node limit on a rule set that blows up, and leaves the e-graph rebuilt', () => {
    const eg = new EGraph();
    const runner = new Runner(eg, { nodeLimit: 2_000, iterLimit: 100, scheduler: new SimpleScheduler() });
    runner.withExpr(big, mathLanguage);
    const report = runner.run(mathRules());
    expect(report.stopReason).toBe('nodeLimit');
    expect(report.stopMessage).toMatch(/node limit 2000/);
    expect(report.egraphNodes).toBeLessThan(2_200); // applying stops within a few nodes of the limit
    expect(eg.isDirty).toBe(false);
    eg.checkInvariants();
  });

  it('stops at the iteration limit', () => {
    const runner = new Runner(new EGraph(), { iterLimit: 2, nodeLimit: 1e9 });
    runner.withExpr(big, mathLanguage);
    const report = runner.run(mathRules());
    expect(report.stopReason).toBe('iterationLimit');
    expect(report.iterations).toBe(2);
    expect(report.iterationLog).toHaveLength(2);
  });

  it('stops at the time limit (with a clock that advances 10 ms per reading)', () => {
    let t = 0;
    const runner = new Runner(new EGraph(), { timeLimitMs: 100, iterLimit: 1000, nodeLimit: 1e9, now: () => (t += 10) });
    runner.withExpr(big, mathLanguage);
    const report = runner.run(mathRules());
    expect(report.stopReason).toBe('timeLimit');
    expect(report.stopMessage).toMatch(/time limit 100 ms/);
    expect(report.iterations).toBeLessThan(20);
  });

  it('stops when a hook says so, with its message', () => {
    const eg = new EGraph();
    const runner = new Runner(eg, {
      hooks: [(r) => (r.roots.length === 2 && eg.find(r.roots[0]) === eg.find(r.roots[1]) ? 'proved' : undefined)],
    });
    runner.withExpr('(mul a (add b c))', mathLanguage);
    runner.withExpr('(add (mul a c) (mul b a))', mathLanguage);
    const report = runner.run(mathRules());
    expect(report.stopReason).toBe('other');
    expect(report.stopMessage).toBe('proved');
    expect(runner.roots.map((r) => eg.find(r))).toEqual([eg.find(runner.roots[0]), eg.find(runner.roots[0])]);
  });

  it('reports matches and applied unions per rule, every rule listed', () => {
    const runner = new Runner(new EGraph());
    runner.withExpr('(add x 0)', mathLanguage);
    const report = runner.run(mathRules());
    expect(Object.keys(report.applied).sort()).toEqual(mathRules().map((r) => r.name).sort());
    expect(report.applied['add-zero']).toBeGreaterThan(0); // x + 0 = x, and later 0 + 0 = 0
    expect(report.applied['mul-one']).toBe(0);
    expect(report.matched['comm-add']).toBeGreaterThanOrEqual(report.applied['comm-add']);
    expect(report.egraphClasses).toBeLessThanOrEqual(report.egraphNodes);
  });

  it('accepts untyped rules on an e-graph with analysis data', () => {
    const untyped = rw('comm-mul', '(mul ?a ?b)', '(mul ?b ?a)');
    const runner = new Runner(new EGraph(constantFolding));
    runner.withExpr('(mul x 2)', mathLanguage);
    expect(runner.run([untyped]).applied['comm-mul']).toBe(1);
  });

  it('refuses two rules with the same name', () => {
    const r = rw('dup', '(f ?a)', '(g ?a)');
    expect(() => new Runner(new EGraph()).run([r, rw('dup', '(g ?a)', '(f ?a)')])).toThrow(/two rules are named 'dup'/);
  });

  it('backs off a rule over its match limit, yet still saturates once the ban lifts', () => {
    const scheduler = new BackoffScheduler({ matchLimit: 1, banLength: 2 });
    const eg = new EGraph();
    const runner = new Runner(eg, { scheduler, iterLimit: 50 });
    const a = runner.withExpr('(add a (add b c))', mathLanguage);
    const b = runner.withExpr('(add (add c b) a)', mathLanguage);
    const report = runner.run([rw('comm-add', '(add ?a ?b)', '(add ?b ?a)')]);
    expect(scheduler.timesBanned('comm-add')).toBeGreaterThan(0);
    expect(report.stopReason).toBe('saturated');
    expect(eg.find(a)).toBe(eg.find(b));
  });
});

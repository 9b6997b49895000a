import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { Runner } from '../core/index.js';
import { graphToEGraph, RULE_SETS } from './optimize.js';
import { RuleCtx } from './ruleCtx.js';
import { TensorAnalysis } from './tensorAnalysis.js';

describe('RuleCtx', () => {
  it('keeps only the ofAnyWidth slots when widened', () => {
    const ctx = new RuleCtx();
    const narrow = ctx.of('narrow', () => ({ n: 1 }));
    const any = ctx.ofAnyWidth('any', () => ({ n: 2 }));
    const wide = ctx.widened();
    expect(wide.ofAnyWidth('any', () => ({ n: 3 }))).toBe(any);
    expect(wide.of('narrow', () => ({ n: 4 }))).not.toBe(narrow);
    // the widened ctx's new slots are its own
    wide.ofAnyWidth('later', () => 5);
    expect(ctx.ofAnyWidth('later', () => 6)).toBe(6);
  });

  it('tries again at a wider width what the narrower width refused (a matmul epilogue over 3 operands, width 2 then 3)', () => {
    const g = new Graph();
    const y = g.add(g.matmul(g.input('a', [4, 8]), g.input('b', [8, 5])), g.input('c', [4, 5]));
    g.output('y', y);
    const analysis = new TensorAnalysis({ maxPointwiseInputs: 2, maxBindings: 4 });
    const { egraph, classOf, roots } = graphToEGraph(g, analysis);
    const run = () => {
      const runner = new Runner(egraph, { iterLimit: 10 });
      for (const r of roots) runner.addRoot(r);
      runner.run(RULE_SETS.fusion);
    };
    const epilogues = () => egraph.eclass(classOf.get(y.id) as number).nodes.filter((n) => n.op === 'matmulEpilogue').length;
    run();
    expect(epilogues()).toBe(0); // a, b and c: over the width of 2
    analysis.widen(3);
    run();
    expect(epilogues()).toBe(1);
  });
});

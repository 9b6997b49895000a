import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { Runner } from '../core/index.js';
import { graphToEGraph, RULE_SETS } from './optimize.js';
import { RuleCtx } from './ruleCtx.js';
import { TensorAnalysis } from './tensorAnalysis.js';

/** A graph's e-graph at fusion width 2 and a run of the fusion rules over it (widen `analysis` between runs). */
function fusionAtWidth2(g: Graph) {
  const analysis = new TensorAnalysis({ maxPointwiseInputs: 2, maxBindings: 4 });
  const { egraph, classOf, roots } = graphToEGraph(g, analysis);
  const run = () => {
    const runner = new Runner(egraph, { iterLimit: 10 });
    for (const r of roots) runner.addRoot(r);
    return runner.run(RULE_SETS.fusion);
  };
  return { analysis, egraph, classOf, run };
}

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
    const { analysis, egraph, classOf, run } = fusionAtWidth2(g);
    const epilogues = () => egraph.eclass(classOf.get(y.id) as number).nodes.filter((n) => n.op === 'matmulEpilogue').length;
    run();
    expect(epilogues()).toBe(0); // a, b and c: over the width of 2
    analysis.widen(3);
    run();
    expect(epilogues()).toBe(1);
  });

  it('merges at a wider width a pointwise chain the narrower width cut, though no class changed since (width 2 then 3)', () => {
    const g = new Graph();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => g.input(n, [4, 5]));
    const y = g.mul(g.exp(g.add(a, b)), c);
    g.output('y', y);
    const { analysis, egraph, classOf, run } = fusionAtWidth2(g);
    const widest = () => Math.max(...egraph.eclass(classOf.get(y.id) as number).nodes.filter((n) => n.op === 'pointwise').map((n) => new Set(n.children.map((k) => egraph.find(k))).size));
    expect(run().stopReason).toBe('saturated');
    expect(widest()).toBe(2); // exp(a + b) · c reads three inputs: cut at 2
    analysis.widen(3);
    run();
    expect(widest()).toBe(3);
  });

  it('records the first width a rule cut a node at; the width term changes once, when the width grows past it', () => {
    const ctx = new RuleCtx();
    const node = {};
    expect(ctx.widthTerm('k', node, 7)).toBe(0);
    ctx.refusedAtWidth('k', node, 7);
    expect(ctx.widthTerm('k', node, 7)).toBe(0); // stable within the pass that cut it
    const wide = ctx.widened();
    wide.refusedAtWidth('k', node, 15); // cut again at 15: the first width is kept
    expect(wide.widthTerm('k', node, 15)).toBe(15);
    expect(wide.widthTerm('other', node, 15)).toBe(0);
  });
});

// The sibling-reduction packer: a layer norm's dγ = Σ dY·x̂ and dβ = Σ dY over the rows become one kernel (one
// dispatch; two without the rule offering it), equal to the primitives in f64, and its prices: the results share
// the kernel in proportion to their reductions alone.
import { Graph, interpret, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { costDefaults, opCost } from '../costModel.js';
import { optimize } from '../optimize.js';
import { mapInputs } from '../pointwiseFusion.js';
import { enodeAttrs } from '../tensorLanguage.js';
import { prices, saturated } from './packTesting.js';

function normGrads(n: number, c: number): Graph {
  const g = new Graph();
  const dy = g.input('dy', [n, c]);
  g.output('dgamma', g.sum(g.mul(dy, g.input('xhat', [n, c])), [0]));
  g.output('dbeta', g.sum(dy, [0]));
  return g;
}

describe('pack: sibling column reductions', () => {
  it("takes a norm's dγ and dβ as one kernel", () => {
    const packed = optimize(normGrads(16384, 384));
    expect(packed.report.kernels.map((k) => k.op)).toEqual(['pointwiseReduceMulti']);
    const apart = optimize(normGrads(16384, 384), { withoutRules: ['reduce-multi'] });
    expect(apart.report.dispatchesAfter).toBeGreaterThan(packed.report.dispatchesAfter);
  });

  it('computes what the primitives do', () => {
    const g = normGrads(6, 5);
    const r = mulberry32(9);
    const feeds = Object.fromEntries(g.leaves('input').map((n) => [n.attrs.name, tensor([...n.shape], Array.from({ length: n.shape.reduce((a, b) => a * b, 1) }, () => 2 * r() - 1))]));
    const before = interpret(g, feeds, {}, 'f64').outputs;
    const after = interpret(optimize(g).graph, feeds, {}, 'f64').outputs;
    for (const name of ['dgamma', 'dbeta']) expect(after[name].data).toBeAllclose(before[name].data, { rtol: 1e-9, atol: 1e-12 });
  });

  it('shares the kernel between its results, the wider reduction paying more', () => {
    const s = saturated(normGrads(16384, 384));
    const found = prices(s, 'pointwiseReduceMulti');
    expect(found.length).toBeGreaterThan(0);
    for (const { M, node, picks } of found) {
      const whole = opCost(node, node.children.map((c) => s.egraph.eclass(c).data), s.egraph.eclass(M).data, costDefaults());
      expect(picks.reduce((a, b) => a + b, 0)).toBeCloseTo(whole, 4);
      // the result reading dY and x̂ moves more than the one reading dY alone
      const reads = enodeAttrs(node, 'pointwiseReduceMulti').results.map((r) => {
        const ins = new Set<number>();
        mapInputs(r.expr, (i) => {
          ins.add(i);
          return { op: 'in', index: i };
        });
        return ins.size;
      });
      const wide = reads.indexOf(Math.max(...reads));
      for (let i = 0; i < picks.length; i++) if (reads[i] < reads[wide]) expect(picks[i]).toBeLessThan(picks[wide]);
    }
  });
});

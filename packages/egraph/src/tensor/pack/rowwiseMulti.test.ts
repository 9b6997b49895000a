// The sibling-row-kernel packer: a layer norm whose x̂ is kept writes x̂ and y from one kernel (one dispatch, two
// without the packer's move), equal to the primitives in f64, and its prices: all results cost the kernel, one
// result alone more than its own row kernel.
import { Graph, interpret, mulberry32, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { opCost, costDefaults } from '../costModel.js';
import { optimize } from '../optimize.js';
import { prices, saturated } from './packTesting.js';

function keptNorm(n: number, c: number): Graph {
  const g = new Graph();
  const x = g.input('x', [n, c]);
  const centred = g.sub(x, g.mean(x, [1], true));
  const xhat = g.mul(centred, g.rsqrt(g.add(g.mean(g.square(centred), [1], true), 1e-5)));
  g.output('xhat', xhat);
  g.output('y', g.add(g.mul(xhat, g.input('w', [c])), g.input('b', [c])));
  return g;
}

describe('pack: sibling row kernels', () => {
  it("takes a kept x̂ and the norm's output as one kernel; without its move, two", () => {
    const packed = optimize(keptNorm(16384, 384));
    expect(packed.report.kernels.map((k) => k.op)).toEqual(['rowwiseMulti']);
    expect(packed.report.dispatchesAfter).toBe(1);
    const unpacked = optimize(keptNorm(16384, 384), { withoutPackers: ['rowwise-multi'] });
    expect(unpacked.report.dispatchesAfter).toBe(2);
    expect(unpacked.report.cost).toBeGreaterThan(packed.report.cost);
  });

  it('computes what the primitives do', () => {
    const g = keptNorm(4, 10);
    const r = mulberry32(3);
    const feeds = Object.fromEntries(g.leaves('input').map((n) => [n.attrs.name, tensor([...n.shape], Array.from({ length: n.shape.reduce((a, b) => a * b, 1) }, () => 2 * r() - 1))]));
    const before = interpret(g, feeds, {}, 'f64').outputs;
    const after = interpret(optimize(g).graph, feeds, {}, 'f64').outputs;
    for (const name of ['xhat', 'y']) expect(after[name].data).toBeAllclose(before[name].data, { rtol: 1e-9, atol: 1e-12 });
  });

  it('prices all results together at the kernel (one alone pays less than all)', () => {
    const s = saturated(keptNorm(16384, 384));
    const found = prices(s, 'rowwiseMulti');
    expect(found.length).toBeGreaterThan(0);
    const model = costDefaults();
    for (const { M, node, own, picks } of found) {
      const whole = opCost(node, node.children.map((c) => s.egraph.eclass(c).data), s.egraph.eclass(M).data, model);
      const all = own + picks.reduce((a, b) => a + b, 0);
      expect(all).toBeCloseTo(whole + 1e-3, 4); // the picks' epsilons aside
      for (const p of picks) expect(own + p).toBeLessThan(all);
    }
  });
});

// Issue 9, item 4 through the optimizer: constants JSON cannot write exactly (-0, ±Infinity, NaN) keep their
// identity in the e-graph — constant(-0) and constant(0) are not one e-class, and none is folded or inlined
// into a pointwise expression as a wrong value. The optimized graph must agree with the original one.
import { optimize } from '@neura/egraph';
import { Graph, interpret, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

describe('non-finite and negative-zero constants survive optimize', () => {
  it('x / -0, x / 0, x·0 + ±Infinity, x + NaN and 1 / neg(0) match the interpreter after optimization', () => {
    const g = new Graph();
    const x = g.input('x', [2]);
    g.output('a', g.div(x, g.constant(-0)));
    g.output('b', g.div(x, g.constant(0)));
    g.output('c', g.add(g.mul(x, 0), g.constant(-Infinity)));
    g.output('d', g.add(g.mul(x, 0), g.constant(Infinity)));
    g.output('e', g.add(x, Number.NaN));
    g.output('f', g.add(x, g.div(g.constant(1), g.neg(g.constant(0))))); // 1 / -0 = -Infinity
    const { graph: o } = optimize(g);
    const feeds = { x: tensor([2], [1, -2]) };
    const want = interpret(g, feeds, {}).outputs;
    const got = interpret(o, feeds, {}).outputs;
    expect(Array.from(want.a.data)).toEqual([-Infinity, Infinity]);
    expect(Array.from(want.f.data)).toEqual([-Infinity, -Infinity]);
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) expect(Array.from(got[k].data), k).toEqual(Array.from(want[k].data));
  });
});

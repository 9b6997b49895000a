// `matmulPartials` with `round` (what the optimizer's split-K fold builds for autocast's f16 weight gradients): an
// operand read rounded to f16 gives the partials of the product of its f16 copy, and an f16-typed operand is refused.
import { describe, expect, it } from 'vitest';
import { Graph, GraphError, interpret, mulberry32, tensor } from '@neura/ir';

describe('matmulPartials reading an operand rounded to f16', () => {
  it('gives the partials of the product of the f16 copy, still f32', () => {
    const g = new Graph();
    const x = g.input('x', [520, 3]);
    const dy = g.input('dy', [520, 4], 'f16');
    const rounded = g.node('matmulPartials', [x, dy], { transA: true, transB: false, splits: 4, round: [true, false] });
    expect(rounded.dtype).toBe('f32');
    g.output('rounded', rounded);
    g.output('copy', g.matmulPartials(g.cast(x, 'f16'), dy, 4, { transA: true }));
    const r = mulberry32(7);
    const feeds = { x: tensor([520, 3], Array.from({ length: 1560 }, () => r() * 2 - 1)), dy: tensor([520, 4], Array.from({ length: 2080 }, () => r() * 2 - 1), 'f16') };
    const out = interpret(g, feeds, {}, 'f32').outputs;
    expect([...out.rounded.data]).toEqual([...out.copy.data]);
    // not the partials of the f32 operand
    const plain = new Graph();
    plain.output('p', plain.matmulPartials(plain.input('x', [520, 3]), plain.cast(plain.input('dy', [520, 4], 'f16'), 'f32'), 4, { transA: true }));
    expect([...interpret(plain, feeds, {}, 'f32').outputs.p.data]).not.toEqual([...out.rounded.data]);
  });

  it('refuses to round an operand that is not f32, naming the operand', () => {
    const g = new Graph();
    const a = g.input('a', [520, 3], 'f16');
    expect(() => g.node('matmulPartials', [a, g.input('b', [520, 4], 'f16')], { transA: true, transB: false, splits: 4, round: [true, false] })).toThrow(GraphError);
    expect(() => g.node('matmulPartials', [a, g.input('c', [520, 4], 'f16')], { transA: true, transB: false, splits: 4, round: [true, false] })).toThrow(/operand 0 is read rounded to f16, so it must be f32, got f16/);
  });
});

// A `pointwiseReduce` with an f16 result (what the optimizer's reduce-cast rule builds for autocast's bias gradients):
// its type, its value (the f32 reduction rounded once to f16, as an f16 reduction of the cast stores it) and the error
// for a result dtype it cannot have.
import { describe, expect, it } from 'vitest';
import { f16round, Graph, GraphError, interpret, type PwExpr } from '@neura/ir';

const x0: PwExpr = { op: 'in', index: 0 };

describe('pointwiseReduce with an f16 result', () => {
  it('is an f16 tensor whose values are the f32 reduction rounded once, as sum(cast:f16(x)) computes them', () => {
    const g = new Graph();
    const x = g.input('x', [5, 3]);
    const fused = g.node('pointwiseReduce', [x], { expr: { op: 'cast', to: 'f16', a: x0 }, shape: [5, 3], reduce: 'sum', axes: [0], keepdims: false, post: x0, dtype: 'f16' });
    expect(fused.dtype).toBe('f16');
    g.output('fused', fused);
    g.output('plain', g.sum(g.cast(x, 'f16'), [0]));
    const data = Float32Array.from([0.1, 1.7, -3.3, 2.45, 0.013, 7.77, -0.5, 1e-3, 3.25, 9.99, -2.2, 0.333, 1.1, 4.4, -6.6]);
    const { outputs: out } = interpret(g, { x: { shape: [5, 3], dtype: 'f32', data } }, {}, 'f32');
    expect(out.fused.dtype).toBe('f16');
    expect([...out.fused.data]).toEqual([...out.plain.data]);
    // each value is a half: rounding it again changes nothing, and it is not the unrounded f32 sum
    for (const v of out.fused.data) expect(f16round(v)).toBe(v);
    const exact = [0, 1, 2].map((c) => [0, 1, 2, 3, 4].reduce((s, r) => s + f16round(data[r * 3 + c]), 0));
    expect([...out.fused.data]).toEqual(exact.map((s) => f16round(Math.fround(s))));
  });

  it('refuses a result dtype other than f32 or f16, naming the op', () => {
    const g = new Graph();
    const x = g.input('x', [4]);
    expect(() => g.node('pointwiseReduce', [x], { expr: x0, shape: [4], reduce: 'sum', axes: [0], keepdims: false, post: x0, dtype: 'i32' })).toThrow(GraphError);
    expect(() => g.node('pointwiseReduce', [x], { expr: x0, shape: [4], reduce: 'sum', axes: [0], keepdims: false, post: x0, dtype: 'i32' })).toThrow(/pointwiseReduce.*result dtype i32/);
  });
});

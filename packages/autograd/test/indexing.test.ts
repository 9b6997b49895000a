import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

describe('VJPs of reduceMin and argmax', () => {
  for (const [axes, keepdims] of [[[1], false], [[0, 2], true], [undefined, false]] as const) {
    it(`differentiates reduceMin over ${axes ? `[${axes}]` : 'all'} mid-graph`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', [2, 3, 4]);
        const r = g.reduceMin(g.add(g.mul(x, 1.3), 0.2), axes, keepdims);
        return g.sum(g.mul(g.input('w', r.shape), g.tanh(r)));
      });
      expectGradientsMatch(report);
    });
  }

  it('finds the first maximum along an axis as i32, and carries no gradient', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    const i = g.output('i', g.argmax(x, 1));
    expect(i.dtype).toBe('i32');
    const r = interpret(g, { x: tensor([2, 3], [1, 5, 5, 7, 0, 7]) });
    expect(Array.from(r.outputs.i.data)).toEqual([1, 0]);
    const p = g.param('p', [2, 3]);
    expect(() => grad(g, g.sum(g.cast(g.argmax(p, 0), 'f32')), [p])).toThrow(/no gradient path/);
  });
});

describe('VJPs of slice, pad, concat and split', () => {
  const SLICES: readonly [number[], number[], number[]][] = [
    [[0, 1], [2, 3], []],
    [[1, 0], [3, -1], [1, 2]],
    [[0, 1], [3, 4], [2, 3]],
    [[-2], [100], []],
  ];
  for (const [starts, ends, steps] of SLICES) {
    it(`differentiates slice [${starts}]:[${ends}]:[${steps}] of [3, 5] mid-graph (VJP: pad with interior)`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', [3, 5]);
        const y = g.slice(g.mul(x, 1.3), starts, ends, steps);
        return g.sum(g.mul(g.input('w', y.shape), g.sin(y)));
      });
      expectGradientsMatch(report);
    });
  }

  it('slices python-style: negative indices, clamped bounds, steps', () => {
    const g = new Graph();
    const x = g.input('x', [6]);
    const y = g.output('y', g.slice(x, [-5], [100], [2]));
    expect(y.shape).toEqual([3]);
    expect(Array.from(interpret(g, { x: tensor([6], [0, 1, 2, 3, 4, 5]) }).outputs.y.data)).toEqual([1, 3, 5]);
  });

  it('pads with edges and interior, and differentiates it (VJP: strided slice)', () => {
    const g = new Graph();
    const x = g.input('x', [2]);
    g.output('y', g.pad(x, [1], [2], 9, [1]));
    expect(Array.from(interpret(g, { x: tensor([2], [1, 2]) }).outputs.y.data)).toEqual([9, 1, 9, 2, 9, 9]);
    const report = checkGradients((h) => {
      const p = h.param('p', [2, 3]);
      const z = h.pad(h.mul(p, 1.3), [1, 0], [0, 2], 0.5, [0, 1]);
      return h.sum(h.mul(h.input('w', z.shape), h.sin(z)));
    });
    expectGradientsMatch(report);
  });

  it('differentiates concat of three operands along axis 1 and split back', () => {
    const report = checkGradients((g) => {
      const a = g.param('a', [2, 1]);
      const b = g.param('b', [2, 3]);
      const c = g.param('c', [2, 2]);
      const y = g.concat([g.mul(a, 1.3), g.exp(b), c], 1);
      const [p, q] = g.split(g.tanh(y), [4, 2], 1);
      return g.add(g.sum(g.mul(g.input('w', p.shape), p)), g.sum(g.mul(q, q)));
    });
    expectGradientsMatch(report);
  });

  it('names the op and both shapes when concat operands differ off the axis', () => {
    const g = new Graph();
    expect(() => g.concat([g.input('a', [2, 3]), g.input('b', [3, 3])], 1)).toThrow(/concat: shapes \[2, 3\] and \[3, 3\] differ off axis 1/);
  });
});

describe('VJPs of gather (embedding) and scatterAdd', () => {
  it('gathers embedding rows [V, D] by ids [B, T] into [B, T, D]', () => {
    const g = new Graph();
    const table = g.input('table', [3, 2]);
    const ids = g.input('ids', [2, 2], 'i32');
    const y = g.output('y', g.gather(table, ids));
    expect(y.shape).toEqual([2, 2, 2]);
    const r = interpret(g, { table: tensor([3, 2], [0, 1, 10, 11, 20, 21]), ids: tensor([2, 2], [2, 0, 1, 2], 'i32') });
    expect(Array.from(r.outputs.y.data)).toEqual([20, 21, 0, 1, 10, 11, 20, 21]);
    expect(() => interpret(g, { table: tensor([3, 2], [0, 1, 2, 3, 4, 5]), ids: tensor([2, 2], [0, 3, 0, 0], 'i32') })).toThrow(/gather: index 3 at position 1 is outside \[0, 3\)/);
  });

  for (const axis of [0, 1]) {
    it(`differentiates gather along axis ${axis} with repeated indices (gradient accumulates by scatterAdd)`, () => {
      const ids = tensor([2, 2], [1, 0, 1, 1], 'i32');
      const report = checkGradients(
        (g) => {
          const table = g.param('table', [3, 3]);
          const y = g.gather(g.mul(table, 1.3), g.input('ids', [2, 2], 'i32'), axis);
          return g.sum(g.mul(g.input('w', y.shape), g.sin(y)));
        },
        { feeds: { ids } },
      );
      expectGradientsMatch(report);
    });
  }

  it('differentiates scatterAdd in both the target and the updates', () => {
    const report = checkGradients(
      (g) => {
        const t = g.param('t', [4, 2]);
        const u = g.param('u', [3, 2]);
        const y = g.scatterAdd(g.mul(t, 1.3), g.input('ids', [3], 'i32'), g.exp(u));
        return g.sum(g.mul(g.input('w', y.shape), g.sin(y)));
      },
      { feeds: { ids: tensor([3], [3, 0, 3], 'i32') } },
    );
    expectGradientsMatch(report);
  });
});

describe('stopGradient and oneHot', () => {
  it('passes values through stopGradient but no gradient: d/dx (x · sg(x)) = sg(x)', () => {
    const g = new Graph();
    const x = g.param('x', [3]);
    const [dx] = grad(g, g.sum(g.mul(x, g.stopGradient(x))), [x]);
    g.output('dx', dx);
    const r = interpret(g, {}, { x: tensor([3], [1, -2, 3]) });
    expect(r.outputs.dx.data).toBeAllclose([1, -2, 3]);
    expect(() => grad(g, g.sum(g.stopGradient(x)), [x])).toThrow(/no gradient path/);
  });

  it('one-hot encodes labels, giving zero rows to out-of-range labels', () => {
    const g = new Graph();
    g.output('y', g.oneHot(g.input('l', [3], 'i32'), 3));
    expect(Array.from(interpret(g, { l: tensor([3], [2, -100, 0], 'i32') }).outputs.y.data)).toEqual([0, 0, 1, 0, 0, 0, 1, 0, 0]);
  });

  it('computes variance as a decomposition, with an optional correction', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 4]);
      return g.sum(g.mul(g.input('w', [2]), g.variance(g.mul(x, 1.3), 1, { correction: 1 })));
    });
    expectGradientsMatch(report);
    const g = new Graph();
    const v = g.output('v', g.variance(g.input('x', [4])));
    expect(v.shape).toEqual([]);
    expect(interpret(g, { x: tensor([4], [1, 2, 3, 4]) }).outputs.v.data[0]).toBeCloseTo(1.25, 12);
  });
});

// Gradient conventions at ties and non-differentiable points, against PyTorch 1.13 (CPU, float64): the values
// inlined here are printed by test/torch/gradConventions.py. Each op's forward value and the gradient of
// sum(op(x)) are read from the float64 interpreter; the README's "Gradient conventions" table lists the same.
import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients } from '../src/index.js';
import { expectGradientsMatch, expectIeeeClose, valueAndGrad } from './helpers.js';

const X = { shape: [8], data: [-2, -1, -0.5, 0, 0.5, 1, 2, Number.NaN] };
const R = { shape: [3], data: [-1, 0, 1] };
const T = { shape: [2, 4], data: [1, 3, 3, 2, 5, 5, 5, 0] };

describe('clamp matches torch.clamp: NaN propagates, min > max gives max, gradient 1 on [min, max] inclusive', () => {
  const cases: [string, number | undefined, number | undefined, number[], number[]][] = [
    ['clamp(x, -1, 1)', -1, 1, [-1, -1, -0.5, 0, 0.5, 1, 1, Number.NaN], [0, 1, 1, 1, 1, 1, 0, 0]],
    ['clamp(x, 1, -1)', 1, -1, [-1, -1, -1, -1, -1, -1, -1, Number.NaN], [0, 0, 0, 0, 0, 0, 0, 0]],
    ['clamp(x, min=0)', 0, undefined, [0, 0, 0, 0, 0.5, 1, 2, Number.NaN], [0, 0, 0, 1, 1, 1, 1, 0]],
    ['clamp(x, max=0)', undefined, 0, [-2, -1, -0.5, 0, 0, 0, 0, Number.NaN], [1, 1, 1, 1, 0, 0, 0, 0]],
  ];
  for (const [label, lo, hi, value, dx] of cases)
    it(label, () => {
      const r = valueAndGrad((g, [x]) => g.clamp(x, lo, hi), X);
      expectIeeeClose(r.y, value);
      expectIeeeClose(r.d[0], dx);
    });

  it('clamps an i32 tensor in i32', () => {
    const g = new Graph();
    const y = g.clamp(g.input('x', [5], 'i32'), 0, 2);
    g.output('y', y);
    expect(y.dtype).toBe('i32');
    expect(Array.from(interpret(g, { x: tensor([5], [-3, 0, 1, 2, 5], 'i32') }).outputs.y.data)).toEqual([0, 0, 1, 2, 2]);
  });

  it('promotes an i32 tensor clamped to a fractional bound to f32, as torch type promotion', () => {
    const g = new Graph();
    const y = g.clamp(g.input('x', [5], 'i32'), 0.5, 2);
    g.output('y', y);
    expect(y.dtype).toBe('f32');
    // torch.clamp(torch.tensor([-3, 0, 1, 2, 5]), 0.5, 2) = [0.5, 0.5, 1, 2, 2]
    expect(Array.from(interpret(g, { x: tensor([5], [-3, 0, 1, 2, 5], 'i32') }).outputs.y.data)).toEqual([0.5, 0.5, 1, 2, 2]);
  });

  it('differentiates clamp mid-graph (finite differences away from the bounds)', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3, 4]);
      return g.sum(g.mul(g.input('w', [3, 4]), g.exp(g.clamp(g.mul(x, 1.7), -0.6, 0.9))));
    });
    expectGradientsMatch(report);
  });

  it('refuses a clamp without bounds or with a NaN bound, naming clamp', () => {
    const g = new Graph();
    const x = g.input('x', [2]);
    expect(() => g.clamp(x)).toThrow(/clamp: give at least one of min and max/);
    expect(() => g.clamp(x, Number.NaN)).toThrow(/clamp: min must be a number/);
  });
});

describe('ties and kinks match PyTorch', () => {
  it('relu passes no gradient at 0 (threshold_backward: x > 0)', () => {
    const r = valueAndGrad((g, [x]) => g.relu(x), R);
    expect(r.y).toEqual([0, 0, 1]);
    expect(r.d[0]).toEqual([0, 0, 1]);
  });

  it('max(x, 0) and min(x, 0) split the gradient in half at 0, as torch.maximum / torch.minimum', () => {
    expect(valueAndGrad((g, [x]) => g.max(x, 0), R).d[0]).toEqual([0, 0.5, 1]);
    expect(valueAndGrad((g, [x]) => g.min(x, 0), R).d[0]).toEqual([1, 0.5, 0]);
  });

  it('max(a, b) gives each tied operand half, as torch.maximum', () => {
    const r = valueAndGrad((g, [a, b]) => g.max(a, b), { shape: [3], data: [1, 2, 3] }, { shape: [3], data: [1, 3, 2] });
    expect(r.y).toEqual([1, 3, 3]);
    expect(r.d).toEqual([
      [0.5, 0, 1],
      [0.5, 1, 0],
    ]);
  });

  it('abs has gradient 0 at 0 and sqrt +∞ at 0', () => {
    expect(valueAndGrad((g, [x]) => g.abs(x), R).d[0]).toEqual([-1, 0, 1]);
    expect(valueAndGrad((g, [x]) => g.sqrt(x), { shape: [2], data: [0, 4] }).d[0]).toEqual([Number.POSITIVE_INFINITY, 0.25]);
  });

  it('reduceMax / reduceMin share the gradient evenly among ties, as torch.amax / torch.amin (and full torch.max)', () => {
    const even = [0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3, 0];
    const mx = valueAndGrad((g, [x]) => g.reduceMax(x, 1), T);
    expect(mx.y).toEqual([3, 5]);
    expect(mx.d[0]).toBeAllclose(even, { rtol: 1e-15, atol: 0 });
    const neg = { shape: T.shape, data: T.data.map((v) => -v) };
    const mn = valueAndGrad((g, [x]) => g.reduceMin(x, 1), neg);
    expect(mn.y).toEqual([-3, -5]);
    expect(mn.d[0]).toBeAllclose(even, { rtol: 1e-15, atol: 0 });
    // torch.max(t) over every element: [0, 0, 0, 0, 1/3, 1/3, 1/3, 0]
    expect(valueAndGrad((g, [x]) => g.reduceMax(x), T).d[0]).toBeAllclose([0, 0, 0, 0, 1 / 3, 1 / 3, 1 / 3, 0], { rtol: 1e-15, atol: 0 });
  });

  it('maxAlong / minAlong send the whole gradient to the first extreme index, as torch.max(x, dim) / torch.min(x, dim)', () => {
    // [2, 3, 2], reduced over the middle axis: ties 4/4 and 2/2, a NaN (the maximum and the minimum) and a −∞
    const u = { shape: [2, 3, 2], data: [1, 4, 4, 2, 0, 4, Number.NaN, 1, 2, 2, Number.NEGATIVE_INFINITY, 2] };
    const mx = valueAndGrad((g, [x]) => g.maxAlong(x, 1).values, u);
    expectIeeeClose(mx.y, [4, 4, Number.NaN, 2]);
    expect(mx.d[0]).toEqual([0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0]);
    const mn = valueAndGrad((g, [x]) => g.minAlong(x, 1).values, u);
    expectIeeeClose(mn.y, [0, 2, Number.NaN, 1]);
    expect(mn.d[0]).toEqual([0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0]);
    const g = new Graph();
    const x = g.input('x', [2, 3, 2]);
    const { indices: imax, values } = g.maxAlong(x, 1, true);
    expect(values.shape).toEqual([2, 1, 2]);
    g.output('imax', imax);
    g.output('imin', g.minAlong(x, 1).indices);
    const out = interpret(g, { x: tensor(u.shape, u.data) }).outputs;
    expect(Array.from(out.imax.data)).toEqual([1, 0, 0, 1]);
    expect(Array.from(out.imin.data)).toEqual([2, 1, 0, 0]);
  });

  it('maxAlong differentiates mid-graph (finite differences, distinct values)', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3, 4, 2]);
      return g.sum(g.mul(g.input('w', [3, 2]), g.exp(g.maxAlong(g.mul(x, 1.3), 1).values)));
    });
    expectGradientsMatch(report);
  });

  it('maxPool2d sends a window gradient to its first maximum, as F.max_pool2d', () => {
    const r = valueAndGrad((g, [x]) => g.maxPool2d(x, 2), { shape: [1, 1, 2, 2], data: [1, 1, 0, 1] });
    expect(r.y).toEqual([1]);
    expect(r.d[0]).toEqual([1, 0, 0, 0]);
  });
});

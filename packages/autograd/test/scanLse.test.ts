// logsumexp and cumsum against PyTorch 1.13 (CPU, float64; values printed by test/torch/gradConventions.py):
// forward values from the float64 interpreter, including logsumexp's −∞ rows and +∞ entries, and their
// gradients (softmax; the reverse cumulative sum), each also checked by finite differences mid-graph.
import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients } from '../src/index.js';
import { expectGradientsMatch, expectIeeeClose, valueAndGrad } from './helpers.js';

const inf = Number.POSITIVE_INFINITY;

describe('logsumexp matches torch.logsumexp', () => {
  it('is max-shifted: large, −∞ and +∞ rows, with gradient softmax (NaN where torch has NaN)', () => {
    const rows = { shape: [5, 3], data: [1, 2, 3, -1000, -1000, 0, -inf, -inf, -inf, inf, 0, 1, 1000, 1000, 1000] };
    const r = valueAndGrad((g, [x]) => g.logsumexp(x, 1), rows);
    expectIeeeClose(r.y, [3.4076059644443806, 0.0, -inf, inf, 1001.0986122886682]);
    const third = 0.33333333333331516;
    expectIeeeClose(
      r.d[0],
      [0.09003057317038043, 0.24472847105479759, 0.6652409557748217, 0, 0, 1, Number.NaN, Number.NaN, Number.NaN, Number.NaN, 0, 0, third, third, third],
      { rtol: 1e-12, atol: 1e-15 },
    );
  });

  it('keeps dims and reduces several axes', () => {
    const g = new Graph();
    const a = g.input('a', [2, 2]);
    const b = g.input('b', [2, 3, 2]);
    const keep = g.logsumexp(a, 0, true);
    const two = g.logsumexp(b, [0, 2]);
    expect(keep.shape).toEqual([1, 2]);
    expect(two.shape).toEqual([3]);
    g.output('keep', keep);
    g.output('two', two);
    const out = interpret(g, { a: tensor([2, 2], [1, 2, 3, 4]), b: tensor([2, 3, 2], Array.from({ length: 12 }, (_, i) => i / 4)) }).outputs;
    expect(out.keep.data).toBeAllclose([3.1269280110429727, 4.126928011042972], { rtol: 1e-14, atol: 0 });
    expect(out.two.data).toBeAllclose([2.527352697861596, 3.027352697861596, 3.527352697861596], { rtol: 1e-14, atol: 0 });
  });

  it('differentiates logsumexp mid-graph', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3, 4]);
      return g.sum(g.mul(g.input('w', [3]), g.logsumexp(g.mul(x, 2.5), -1)));
    });
    expectGradientsMatch(report);
  });
});

describe('cumsum matches torch.cumsum', () => {
  const c = { shape: [2, 3], data: [1, 2, 3, 4, 5, 6] };
  const w = { shape: [2, 3], data: [1, 10, 100, 2, 20, 200] };

  it('scans along the last and the first axis, with the reverse scan as gradient', () => {
    // w is a second param: d[0] is the gradient of sum(w ⊙ cumsum(c, axis)) with respect to c
    const weighted = (axis: number) => valueAndGrad((g, [x, wt]) => g.mul(g.cumsum(x, axis), wt), c, w);
    const last = weighted(1);
    expect(last.y).toEqual([1, 30, 600, 8, 180, 3000]); // cumsum(c, 1) = [[1, 3, 6], [4, 9, 15]], times w
    expect(last.d[0]).toEqual([111, 110, 100, 222, 220, 200]);
    const first = weighted(0);
    expect(first.y).toEqual([1, 20, 300, 10, 140, 1800]); // cumsum(c, 0) = [[1, 2, 3], [5, 7, 9]], times w
    expect(first.d[0]).toEqual([3, 30, 300, 2, 20, 200]);
  });

  it('scans i32 in i32, and refuses bool naming cumsum', () => {
    const g = new Graph();
    const y = g.cumsum(g.input('m', [2, 3], 'i32'), -1);
    g.output('y', y);
    expect(y.dtype).toBe('i32');
    expect(Array.from(interpret(g, { m: tensor([2, 3], [1, 0, 1, 1, 1, 0], 'i32') }).outputs.y.data)).toEqual([1, 1, 2, 1, 2, 2]);
    expect(() => g.cumsum(g.gt(g.input('b', [2]), 0), 0)).toThrow(/cumsum: operand 0 must be f32 or i32/);
  });

  it('differentiates cumsum mid-graph along a middle axis, forward and reverse', () => {
    for (const reverse of [false, true]) {
      const report = checkGradients((g) => {
        const x = g.param('x', [2, 5, 3]);
        return g.sum(g.mul(g.input('w', [2, 5, 3]), g.tanh(g.cumsum(g.mul(x, 0.7), 1, { reverse }))));
      });
      expectGradientsMatch(report);
    }
  });
});

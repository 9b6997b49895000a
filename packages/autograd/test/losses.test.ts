import { describe, expect, it } from 'vitest';
import { Graph, type PwExpr, tensor } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const labels = tensor([4], [2, 0, 1, 2], 'i32');

describe('VJPs of log-softmax and losses', () => {
  it('differentiates logSoftmax mid-graph with a logSoftmaxGrad node', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [4, 3]);
      return g.sum(g.mul(g.input('w', [4, 3]), g.logSoftmax(g.add(g.mul(x, 1.3), 0.2))));
    });
    expectGradientsMatch(report);
  });

  for (const reduction of ['mean', 'sum'] as const) {
    it(`differentiates nll (${reduction}) of a log-softmax, scaled, with an nllGrad node`, () => {
      const report = checkGradients(
        (g) => {
          const x = g.param('x', [4, 3]);
          const l = g.input('labels', [4], 'i32');
          return g.mul(g.nll(g.logSoftmax(g.mul(x, 1.3)), l, reduction), 1.7);
        },
        { feeds: { labels } },
      );
      expectGradientsMatch(report);
    });
  }

  it('refuses second-order gradients through backward ops, naming the op', () => {
    const g = new Graph();
    const x = g.param('x', [2, 3]);
    const y = g.logSoftmax(x);
    const lsg = g.node('logSoftmaxGrad', [y, g.mul(x, 2)], { axis: 1 });
    expect(() => grad(g, g.sum(lsg), [x])).toThrow(/logSoftmaxGrad is not differentiable.*second-order/);
    const l = g.input('labels', [2], 'i32');
    const ng = g.node('nllGrad', [l, g.sum(x)], { reduction: 'mean', classes: 3 });
    expect(() => grad(g, g.sum(ng), [x])).toThrow(/nllGrad is not differentiable/);
  });
});

describe('fused ops', () => {
  it('are not differentiated: the optimizer makes them after grad, so grad names the op and says so', () => {
    const g = new Graph();
    const a = g.param('a', [2, 3]);
    const b = g.param('b', [3, 4]);
    const mm = g.node('fusedMatmul', [a, b], { transA: false, transB: false, bias: false, activation: 'relu' });
    expect(() => grad(g, g.sum(mm), [a])).toThrow(/fusedMatmul is not differentiable: it is a fused op made by the optimizer after differentiation/);
    const expr: PwExpr = { op: 'exp', a: { op: 'in', index: 0 } };
    const pw = g.node('pointwise', [a], { expr, dtype: 'f32' });
    expect(() => grad(g, g.sum(pw), [a])).toThrow(/pointwise is not differentiable/);
    const l = g.input('labels', [2], 'i32');
    const ce = g.node('softmaxCrossEntropy', [a, l], { reduction: 'mean' });
    expect(() => grad(g, ce, [a])).toThrow(/softmaxCrossEntropy is not differentiable/);
  });
});

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

    it(`differentiates softmaxCrossEntropy (${reduction}) with a softmaxCrossEntropyGrad node`, () => {
      const report = checkGradients(
        (g) => {
          const x = g.param('x', [4, 3]);
          const l = g.input('labels', [4], 'i32');
          return g.mul(g.node('softmaxCrossEntropy', [g.sin(x), l], { reduction }), 1.7);
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

describe('VJPs of fused ops', () => {
  for (const transA of [false, true])
    for (const transB of [false, true])
      for (const activation of ['none', 'relu'] as const)
        for (const bias of [false, true]) {
          it(`differentiates fusedMatmul (transA=${transA}, transB=${transB}, ${activation}, bias=${bias})`, () => {
            const report = checkGradients((g) => {
              const a = g.param('a', transA ? [3, 2] : [2, 3]);
              const b = g.param('b', transB ? [4, 3] : [3, 4]);
              const ins = bias ? [g.mul(a, 1.3), b, g.param('bias', [4])] : [g.mul(a, 1.3), b];
              const y = g.node('fusedMatmul', ins, { transA, transB, bias, activation });
              return g.sum(g.mul(g.input('w', [2, 4]), g.sin(y)));
            });
            expectGradientsMatch(report);
          });
        }

  const EXPRS: [string, PwExpr][] = [
    ['(mul (sigmoid $0) (add $1 (square $0)))', { op: 'mul', a: { op: 'sigmoid', a: { op: 'in', index: 0 } }, b: { op: 'add', a: { op: 'in', index: 1 }, b: { op: 'square', a: { op: 'in', index: 0 } } } }],
    [
      '(where (gt $0 0) (mul $0 $1) (exp $1))',
      {
        op: 'where',
        c: { op: 'gt', a: { op: 'in', index: 0 }, b: { op: 'const', value: 0 } },
        a: { op: 'mul', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } },
        b: { op: 'exp', a: { op: 'in', index: 1 } },
      },
    ],
    ['(mul $1 (cast:f32 (gt $0 0.1)))', { op: 'mul', a: { op: 'in', index: 1 }, b: { op: 'cast', to: 'f32', a: { op: 'gt', a: { op: 'in', index: 0 }, b: { op: 'const', value: 0.1 } } } }],
  ];
  for (const [text, expr] of EXPRS) {
    it(`differentiates pointwise ${text} by lowering it to primitives`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', [2, 3]);
        const y = g.param('y', [3]);
        const p = g.node('pointwise', [g.mul(x, 1.3), g.tanh(y)], { expr, dtype: 'f32' });
        return g.sum(g.mul(g.input('w', [2, 3]), p));
      }, { allowUnused: true });
      expectGradientsMatch(report);
    });
  }

  it('differentiates a pointwise op whose operands depend on each other, counting each path once', () => {
    const expr: PwExpr = { op: 'add', a: { op: 'exp', a: { op: 'in', index: 0 } }, b: { op: 'mul', a: { op: 'in', index: 1 }, b: { op: 'in', index: 0 } } };
    const report = checkGradients((g) => {
      const x = g.param('x', [3]);
      const p = g.node('pointwise', [x, g.exp(x), x], { expr, dtype: 'f32' });
      return g.sum(g.mul(g.input('w', [3]), p));
    });
    expectGradientsMatch(report);
  });
});

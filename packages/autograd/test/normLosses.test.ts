import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const LABELS = tensor([4], [2, 0, 1, 2], 'i32');

describe('normalisation builders (decompositions)', () => {
  it('differentiates layerNorm with weight and bias over the last axis of [2, 3, 4]', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 3, 4]);
      const y = g.layerNorm(g.mul(x, 1.3), g.param('w', [4]), g.param('b', [4]), { eps: 1e-5 });
      return g.sum(g.mul(g.input('u', y.shape), y));
    });
    expectGradientsMatch(report, { rtol: 1e-5 });
  });

  it('differentiates groupNorm (2 groups) with weight and bias on NCHW [2, 4, 3, 2]', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 4, 3, 2]);
      const y = g.groupNorm(g.mul(x, 1.3), 2, g.param('w', [4]), g.param('b', [4]), { eps: 1e-5 });
      return g.sum(g.mul(g.input('u', y.shape), y));
    });
    expectGradientsMatch(report, { rtol: 1e-5 });
  });

  it('groupNorm normalises each (sample, group) to zero mean and unit variance', () => {
    const g = new Graph();
    const y = g.output('y', g.groupNorm(g.input('x', [1, 4, 2]), 2, undefined, undefined, { eps: 0 }));
    const r = Array.from(interpret(g, { x: tensor([1, 4, 2], [1, 2, 3, 6, -1, 0, 4, 9]) }).outputs.y.data);
    for (const grp of [r.slice(0, 4), r.slice(4)]) {
      expect(grp.reduce((a, b) => a + b, 0) / 4).toBeCloseTo(0, 12);
      expect(grp.reduce((a, b) => a + b * b, 0) / 4).toBeCloseTo(1, 12);
    }
    expect(y.shape).toEqual([1, 4, 2]);
  });

  it('normalises to zero mean and unit variance', () => {
    const g = new Graph();
    const y = g.output('y', g.layerNorm(g.input('x', [1, 4]), undefined, undefined, { eps: 0 }));
    const r = interpret(g, { x: tensor([1, 4], [1, 2, 3, 6]) }).outputs.y.data;
    const mean = Array.from(r).reduce((a, b) => a + b, 0) / 4;
    expect(mean).toBeCloseTo(0, 12);
    expect(Array.from(r).reduce((a, b) => a + b * b, 0) / 4).toBeCloseTo(1, 12);
    expect(y.shape).toEqual([1, 4]);
  });

  it('differentiates rmsNorm with a weight', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3, 4]);
      const y = g.rmsNorm(g.add(g.mul(x, 1.3), 0.1), g.param('w', [4]));
      return g.sum(g.mul(g.input('u', y.shape), y));
    });
    expectGradientsMatch(report, { rtol: 1e-5 });
  });
});

describe('loss builders', () => {
  for (const loss of ['mse', 'l1', 'bceWithLogits'] as const)
    for (const reduction of ['mean', 'sum'] as const) {
      it(`differentiates ${loss} (${reduction}) in both operands`, () => {
        const report = checkGradients(
          (g) => {
            const p = g.param('p', [3, 2]);
            const t = g.param('t', [3, 2]);
            return g[loss](g.mul(p, 1.7), g.sigmoid(t), reduction);
          },
          { seed: 3 },
        );
        expectGradientsMatch(report);
      });
    }

  it('computes bceWithLogits stably for large logits', () => {
    const g = new Graph();
    g.output('l', g.bceWithLogits(g.input('x', [2]), g.input('t', [2]), 'sum'));
    const r = interpret(g, { x: tensor([2], [100, -100]), t: tensor([2], [0, 1]) });
    expect(r.outputs.l.data[0]).toBeCloseTo(200, 9);
  });

  for (const opts of [{ labelSmoothing: 0.1 }, { ignoreIndex: 1 }, { labelSmoothing: 0.2, ignoreIndex: 0 }, { labelSmoothing: 0.1, reduction: 'sum' as const }]) {
    it(`differentiates crossEntropy with ${JSON.stringify(opts)}`, () => {
      const report = checkGradients(
        (g) => {
          const x = g.param('x', [4, 3]);
          const labels = g.input('labels', [4], 'i32');
          const l = g.where(g.eq(labels, opts.ignoreIndex ?? -1), -100, labels); // ignored rows labelled -100
          return g.crossEntropy(g.mul(x, 1.5), l, { ...opts, ignoreIndex: opts.ignoreIndex === undefined ? undefined : -100 });
        },
        { feeds: { labels: LABELS } },
      );
      expectGradientsMatch(report);
    });
  }

  // PyTorch 1.13, float64: F.cross_entropy(x, [0, 2, 0, 3], ignore_index=0, label_smoothing=eps), loss and x.grad
  const PAD_X = [0.1, 0.5, -0.2, 1, 1, 0, 2, -1, -1, 0.3, 0.4, 0.2, 0.7, -0.6, 0, 0.9];
  const PAD_TORCH = [
    { eps: 0, loss: 0.6678184676973893, grad: [0, 0, 0, 0, 0.11844140904495508, 0.043572159371016286, -0.17804287005601382, 0.016029301640042494, 0, 0, 0, 0, 0.16719501098326897, 0.04556595612961172, 0.08302658532153467, -0.29578755243441535] },
    { eps: 0.2, loss: 0.8828184676973894, grad: [0, 0, 0, 0, 0.09344140904495507, 0.018572159371016285, -0.10304287005601387, -0.008970698359957507, 0, 0, 0, 0, 0.14219501098326898, 0.02056595612961172, 0.05802658532153467, -0.22078755243441542] },
  ];
  for (const { eps, loss, grad: want } of PAD_TORCH)
    it(`ignores rows labelled with an in-range pad id (ignoreIndex 0, labelSmoothing ${eps}) as PyTorch does`, () => {
      const g = new Graph();
      const x = g.param('x', [4, 4]);
      const l = g.output('l', g.crossEntropy(x, g.input('labels', [4], 'i32'), { ignoreIndex: 0, labelSmoothing: eps }));
      g.output('dx', grad(g, l, [x])[0]);
      const r = interpret(g, { labels: tensor([4], [0, 2, 0, 3], 'i32') }, { x: tensor([4, 4], PAD_X) }, 'f64');
      expect(r.outputs.l.data[0]).toBeCloseTo(loss, 7); // x is stored as f32
      for (const [i, v] of Array.from(r.outputs.dx.data).entries()) expect(v).toBeCloseTo(want[i], 7);
    });

  it('matches the PyTorch formula for label smoothing with ignored rows', () => {
    const g = new Graph();
    const x = g.input('x', [3, 3]);
    g.output('l', g.crossEntropy(x, g.input('labels', [3], 'i32'), { labelSmoothing: 0.3, ignoreIndex: -100 }));
    const xs = [0.1, 0.5, -0.2, 1, 0, 2, -1, 0.3, 0.4];
    const r = interpret(g, { x: tensor([3, 3], xs), labels: tensor([3], [1, -100, 2], 'i32') });
    const logp = (row: number) => {
      const v = xs.slice(row * 3, row * 3 + 3);
      const lse = Math.log(v.reduce((s, a) => s + Math.exp(a), 0));
      return v.map((a) => a - lse);
    };
    const rowLoss = (row: number, label: number) => -(0.7 * logp(row)[label] + (0.3 / 3) * logp(row).reduce((s, a) => s + a, 0));
    expect(r.outputs.l.data[0]).toBeCloseTo((rowLoss(0, 1) + rowLoss(2, 2)) / 2, 6); // inputs are rounded to f32
  });

  it('flattens [B, T, C] logits with [B, T] labels', () => {
    const report = checkGradients(
      (g) => g.crossEntropy(g.mul(g.param('x', [2, 2, 3]), 1.2), g.input('labels', [2, 2], 'i32')),
      { feeds: { labels: tensor([2, 2], [0, 2, 1, 1], 'i32') } },
    );
    expectGradientsMatch(report);
  });
});

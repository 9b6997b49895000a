import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const REDUCTIONS = ['sum', 'mean', 'reduceMax'] as const;
const AXES: readonly [number[] | undefined, boolean][] = [
  [[1], false],
  [[1], true],
  [[0, 2], false],
  [[0, 2], true],
  [[-1], false],
  [undefined, false],
];

describe('VJPs of reductions', () => {
  for (const op of REDUCTIONS)
    for (const [axes, keepdims] of AXES) {
      it(`differentiates ${op} over axes ${axes ? `[${axes}]` : 'all'}${keepdims ? ' (keepdims)' : ''} mid-graph`, () => {
        const report = checkGradients(
          (g) => {
            const x = g.param('x', [2, 3, 4]);
            const r = g[op](g.add(g.mul(x, 1.3), 0.2), axes, keepdims);
            return g.sum(g.mul(g.input('w', r.shape), g.tanh(r)));
          },
          { label: op },
        );
        expectGradientsMatch(report);
      });
    }

  it('shares the gradient of reduceMax equally among tied maxima', () => {
    const g = new Graph();
    const x = g.param('x', [2, 3]);
    const [dx] = grad(g, g.sum(g.reduceMax(x, 1)), [x]);
    g.output('dx', dx);
    const r = interpret(g, {}, { x: tensor([2, 3], [1, 5, 5, 2, 0, 1]) });
    expect(r.outputs.dx.data).toBeAllclose([0, 0.5, 0.5, 1, 0, 0]);
  });
});

describe('VJPs of layout ops', () => {
  it('differentiates reshape', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 3, 4]);
      const y = g.reshape(g.mul(x, 1.3), [4, -1]);
      return g.sum(g.mul(g.input('w', [4, 6]), g.sin(y)));
    });
    expectGradientsMatch(report);
  });

  for (const perm of [[2, 0, 1], [1, 0, 2], undefined]) {
    it(`differentiates transpose ${perm ? `[${perm}]` : '(reversed)'}`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', [2, 3, 4]);
        const y = g.transpose(g.mul(x, 1.3), perm);
        return g.sum(g.mul(g.input('w', y.shape), g.sin(y)));
      });
      expectGradientsMatch(report);
    });
  }

  for (const [from, to] of [
    [[3], [2, 3]],
    [[2, 1], [2, 3]],
    [[], [2, 2]],
    [[1, 3, 1], [2, 3, 4]],
  ]) {
    it(`differentiates expand [${from}] → [${to}]`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', from);
        return g.sum(g.mul(g.input('w', to), g.sin(g.expand(g.mul(x, 1.3), to))));
      });
      expectGradientsMatch(report);
    });
  }
});

describe('VJP of matmul', () => {
  for (const transA of [false, true])
    for (const transB of [false, true]) {
      it(`differentiates matmul with transA=${transA}, transB=${transB} using flags, not transposes`, () => {
        const build = (g: Graph) => {
          const a = g.param('a', transA ? [3, 2] : [2, 3]);
          const b = g.param('b', transB ? [4, 3] : [3, 4]);
          const y = g.matmul(g.mul(a, 1.3), g.add(b, 0.2), { transA, transB });
          return g.sum(g.mul(g.input('w', [2, 4]), g.tanh(y)));
        };
        expectGradientsMatch(checkGradients(build, { label: 'matmul' }));
        const g = new Graph();
        const before = g.nodes.length;
        const loss = build(g);
        grad(g, loss, g.leaves('param'));
        expect(g.nodes.slice(before).some((n) => n.op === 'transpose')).toBe(false);
      });
    }
});

import { describe, expect, it } from 'vitest';
import { Graph, interpret, type Tensor, tensor, UNARY_OPS, type UnaryOp } from '@neura/ir';
import { checkGradients, grad } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const unary = (g: Graph, op: UnaryOp, x: Tensor): Tensor => g.node(op, [x], {});
const POSITIVE: readonly UnaryOp[] = ['log', 'sqrt', 'rsqrt', 'recip'];

describe('VJPs of unary ops', () => {
  for (const op of UNARY_OPS) {
    it(`differentiates ${op} placed mid-graph: sum(w ⊙ ${op}(1.3·x + 0.2))`, () => {
      const report = checkGradients(
        (g) => {
          const x = g.param('x', [2, 3]);
          const w = g.input('w', [2, 3]);
          return g.sum(g.mul(w, unary(g, op, g.add(g.mul(x, 1.3), 0.2))));
        },
        { label: op, range: POSITIVE.includes(op) ? [0.3, 1.5] : [-1, 1], wrt: ['x', 'w'] },
      );
      expectGradientsMatch(report);
    });
  }
});

type Bin = 'add' | 'sub' | 'mul' | 'div' | 'max' | 'min' | 'pow';
const BINS: readonly Bin[] = ['add', 'sub', 'mul', 'div', 'max', 'min', 'pow'];
const SHAPES: readonly [number[], number[]][] = [
  [[2, 3], [2, 3]],
  [[2, 3], [3]],
  [[2, 1], [1, 3]],
  [[2, 3], []],
  [[1], [2, 3]],
];

describe('VJPs of binary ops with broadcasting', () => {
  for (const op of BINS)
    for (const [sa, sb] of SHAPES) {
      it(`differentiates ${op} of [${sa}] and [${sb}] through scaled operands`, () => {
        const report = checkGradients(
          (g) => {
            const a = g.param('a', sa);
            const b = g.param('b', sb);
            const y = g.node(op, [g.add(g.mul(a, 1.3), 0.2), g.add(g.mul(b, 0.7), 0.1)], {});
            return g.sum(g.mul(g.input('w', y.shape), y));
          },
          { label: `${op} [${sa}] [${sb}]`, range: op === 'pow' || op === 'div' ? [0.3, 1.5] : [-1, 1] },
        );
        expectGradientsMatch(report);
      });
    }

  it('differentiates max(x, 0) and pow(x, 3) with a constant operand', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3, 2]);
      return g.sum(g.mul(g.input('w', [3, 2]), g.add(g.max(g.mul(x, 1.5), 0), g.pow(g.sub(x, 0.1), 3))));
    });
    expectGradientsMatch(report);
  });

  it('splits the gradient of max and min equally between tied operands', () => {
    const g = new Graph();
    const a = g.param('a', [2]);
    const b = g.param('b', [2]);
    const [da, db] = grad(g, g.add(g.sum(g.max(a, b)), g.sum(g.min(a, b))), [a, b]);
    g.output('da', da);
    g.output('db', db);
    const r = interpret(g, {}, { a: tensor([2], [1, 2]), b: tensor([2], [1, 3]) });
    expect(r.outputs.da.data).toBeAllclose([1, 1]);
    expect(r.outputs.db.data).toBeAllclose([1, 1]);
  });

  it('passes no gradient through comparisons: sum(w ⊙ x ⊙ (x > b))', () => {
    const report = checkGradients(
      (g) => {
        const x = g.param('x', [2, 3]);
        const b = g.param('b', [3]);
        const mask = g.cast(g.gt(x, b), 'f32');
        return g.sum(g.mul(g.input('w', [2, 3]), g.mul(x, mask)));
      },
      { wrt: ['x'] },
    );
    expectGradientsMatch(report);
  });
});

describe('VJPs of where and cast', () => {
  it('routes the gradient of where by its condition, with broadcast branches', () => {
    const report = checkGradients((g) => {
      const c = g.input('c', [2, 3]);
      const a = g.param('a', [2, 3]);
      const b = g.param('b', [3]);
      const y = g.where(g.gt(c, 0), g.mul(a, 1.3), g.exp(b));
      return g.sum(g.mul(g.input('w', [2, 3]), y));
    });
    expectGradientsMatch(report);
  });

  it('differentiates where with a scalar branch', () => {
    const report = checkGradients((g) => {
      const a = g.param('a', [4]);
      return g.sum(g.mul(g.input('w', [4]), g.where(g.lt(a, 0.2), g.tanh(a), 0.5)));
    });
    expectGradientsMatch(report);
  });

  it('passes the gradient through an f32 → f32 cast', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [3]);
      return g.sum(g.mul(g.input('w', [3]), g.node('cast', [g.mul(x, 2)], { to: 'f32' })));
    });
    expectGradientsMatch(report);
  });
});

describe('activation builders', () => {
  it('differentiates leakyRelu (a where/gt/mul decomposition) mid-graph', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 3]);
      return g.sum(g.mul(g.input('w', [2, 3]), g.leakyRelu(g.add(g.mul(x, 1.3), 0.1), 0.2)));
    });
    expectGradientsMatch(report);
  });

  it('picks the exact or the tanh GELU from the approximate option', () => {
    const g = new Graph();
    const x = g.input('x', [2]);
    expect(g.gelu(x).op).toBe('gelu');
    expect(g.gelu(x, { approximate: 'tanh' }).op).toBe('geluTanh');
  });
});

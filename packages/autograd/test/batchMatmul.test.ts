import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

// [a shape, b shape] before the transpose flags are applied (flags swap the last two axes)
const CASES: readonly [number[], number[]][] = [
  [[2, 3, 4], [2, 4, 5]],
  [[2, 3, 4], [4, 5]],
  [[3, 4], [2, 4, 5]],
  [[2, 1, 3, 4], [3, 4, 2]],
  [[1, 3, 4], [2, 4, 2]],
];
const swap = (s: readonly number[]) => [...s.slice(0, -2), s[s.length - 1], s[s.length - 2]];

describe('batched matmul', () => {
  for (const [sa, sb] of CASES)
    for (const transA of [false, true])
      for (const transB of [false, true]) {
        it(`differentiates [${sa}]·[${sb}] (transA=${transA}, transB=${transB}) mid-graph, reducing broadcast batch axes`, () => {
          const report = checkGradients(
            (g) => {
              const a = g.param('a', transA ? swap(sa) : sa);
              const b = g.param('b', transB ? swap(sb) : sb);
              const y = g.matmul(g.mul(a, 1.3), g.add(b, 0.2), { transA, transB });
              return g.sum(g.mul(g.input('w', y.shape), g.tanh(y)));
            },
            { label: 'batched matmul' },
          );
          expectGradientsMatch(report);
        });
      }

  it('computes each batch as its own matrix product, broadcasting a 2-D operand', () => {
    const g = new Graph();
    const a = g.input('a', [2, 1, 2]);
    const b = g.input('b', [2, 2]);
    const y = g.output('y', g.matmul(a, b));
    expect(y.shape).toEqual([2, 1, 2]);
    const r = interpret(g, { a: tensor([2, 1, 2], [1, 2, 3, 4]), b: tensor([2, 2], [1, 0, 1, 1]) });
    expect(r.outputs.y.data).toBeAllclose([3, 2, 7, 4]);
  });

  it('rejects batch axes that do not broadcast, naming both batch shapes', () => {
    const g = new Graph();
    expect(() => g.matmul(g.input('a', [2, 3, 4]), g.input('b', [3, 4, 5]))).toThrow(/matmul: batch dimensions \[2\] and \[3\] do not broadcast/);
    expect(() => g.matmul(g.input('c', [4]), g.input('d', [4, 5]))).toThrow(/matmul: operands must have rank ≥ 2/);
  });
});

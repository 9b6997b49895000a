import { describe, expect, it } from 'vitest';
import { Graph, GraphError, interpret, OP_KINDS, tensor } from '@neura/ir';
import { checkGradients, grad, gradByName, VJPS } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

describe('grad', () => {
  it('has a VJP entry for every op', () => {
    for (const op of OP_KINDS) expect(VJPS[op], op).toBeDefined();
  });

  it('sums the contributions of a tensor used several times (fan-out)', () => {
    const report = checkGradients((g) => {
      const x = g.param('x', [2, 3]);
      const h = g.tanh(g.mul(x, 1.3));
      const y = g.add(g.mul(h, h), g.mul(g.exp(h), x));
      return g.add(g.sum(g.mul(g.input('w', [2, 3]), y)), g.mean(g.sub(h, g.sum(x, 0))));
    });
    expectGradientsMatch(report);
  });

  it('differentiates an MLP 5→8→3 with cross-entropy: every param matches finite differences', () => {
    const labels = tensor([4], [0, 2, 1, 2], 'i32');
    const report = checkGradients(
      (g) => {
        const x = g.input('x', [4, 5]);
        const l = g.input('labels', [4], 'i32');
        const h = g.relu(g.linear(x, g.param('w1', [5, 8]), g.param('b1', [8])));
        return g.crossEntropy(g.linear(h, g.param('w2', [8, 3]), g.param('b2', [3])), l);
      },
      { feeds: { labels }, label: 'mlp' },
    );
    expect(report.leaves.map((l) => l.name)).toEqual(['w1', 'b1', 'w2', 'b2']);
    expectGradientsMatch(report);
  });

  it('differentiates with respect to inputs and intermediate nodes (total derivative)', () => {
    const g = new Graph();
    const x = g.input('x', [3]);
    const h = g.exp(x);
    const loss = g.sum(g.mul(h, x));
    const [dx, dh] = grad(g, loss, [x, h]);
    g.output('dx', dx);
    g.output('dh', dh);
    const xs = [0.1, -0.5, 0.7];
    const r = interpret(g, { x: tensor([3], xs) });
    expect(r.outputs.dh.data).toBeAllclose(xs, { rtol: 1e-6 });
    expect(r.outputs.dx.data).toBeAllclose(xs.map((v) => Math.exp(v) * (1 + v)), { rtol: 1e-6 });
  });

  it('uses a given seed for a non-scalar loss and refuses a non-scalar loss without one', () => {
    const g = new Graph();
    const x = g.param('x', [3]);
    const y = g.mul(x, x);
    expect(() => grad(g, y, [x])).toThrow(/not a scalar; pass a seed of shape \[3\]/);
    const seed = g.input('dy', [3]);
    const [dx] = grad(g, y, [x], { seed });
    g.output('dx', dx);
    const r = interpret(g, { dy: tensor([3], [1, 2, 3]) }, { x: tensor([3], [4, 5, 6]) });
    expect(r.outputs.dx.data).toBeAllclose([8, 20, 36]);
  });

  it('throws for a disconnected tensor, naming it, or gives zeros with allowUnused', () => {
    const g = new Graph();
    const x = g.param('x', [2]);
    const unused = g.param('unused', [2, 2]);
    const loss = g.sum(g.square(x));
    expect(() => grad(g, loss, [x, unused])).toThrow(GraphError);
    expect(() => grad(g, loss, [x, unused])).toThrow(/no gradient path to param 'unused'/);
    const [, z] = grad(g, loss, [x, unused], { allowUnused: true });
    expect(z.op).toBe('const');
    expect(z.shape).toEqual([2, 2]);
  });

  it('refuses to differentiate with respect to an integer tensor', () => {
    const g = new Graph();
    const labels = g.input('labels', [2], 'i32');
    const logits = g.param('logits', [2, 3]);
    expect(() => grad(g, g.crossEntropy(logits, labels), [labels])).toThrow(/only float \(f32, f16\) tensors have gradients/);
  });

  it('gives no gradient to labels and stops at integer casts', () => {
    const g = new Graph();
    const x = g.param('x', [3]);
    const back = g.cast(g.cast(x, 'i32'), 'f32');
    expect(() => grad(g, g.sum(back), [x])).toThrow(/no gradient path/);
  });

  it('appends to the same graph and is deterministic (hash-consed: a second call adds nothing)', () => {
    const g = new Graph();
    const x = g.param('x', [4, 2]);
    const loss = g.mean(g.sigmoid(g.matmul(x, g.param('w', [2, 3]))));
    const first = gradByName(g, loss);
    const count = g.nodes.length;
    const second = gradByName(g, loss);
    expect(g.nodes.length).toBe(count);
    expect([...second.keys()]).toEqual(['x', 'w']);
    expect(second.get('w')?.id).toBe(first.get('w')?.id);
  });

  it('gradByName reports an unknown name', () => {
    const g = new Graph();
    const x = g.param('x', [2]);
    expect(() => gradByName(g, g.sum(x), ['y'])).toThrow(/no input, param or state named 'y'/);
  });
});

describe('checkGradients', () => {
  it('reports a mismatch naming the leaf and the worst element (relu at its kink)', () => {
    const report = checkGradients(
      (g) => {
        const x = g.param('x', [2, 2]);
        return g.sum(g.relu(x));
      },
      { state: { x: tensor([2, 2], [1, -1, 0, 2]) }, label: 'relu' },
    );
    expect(report.ok).toBe(false);
    expect(report.leaves[0].worst).toBe(2);
    expect(report.summary).toMatch(/relu: MISMATCH d loss\/d 'x': worst element \[1, 0\] analytic 0 vs numeric 0\.5/);
  });
});

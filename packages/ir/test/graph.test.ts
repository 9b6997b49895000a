import { describe, expect, it } from 'vitest';
import { Graph, GraphError, graphFromJson, graphToJson, interpret, printGraph, tensor } from '@neura/ir';

describe('Graph', () => {
  it('infers broadcast shapes through an MLP and interprets a loss', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    const labels = g.input('labels', [2], 'i32');
    const w = g.param('w', [3, 4]);
    const b = g.param('b', [4]);
    const h = g.relu(g.linear(x, w, b));
    expect(h.shape).toEqual([2, 4]);
    const loss = g.output('loss', g.crossEntropy(h, labels));
    expect(loss.shape).toEqual([]);
    const r = interpret(g, { x: tensor([2, 3], [1, 2, 3, 4, 5, 6]), labels: tensor([2], [0, 3], 'i32') }, {
      w: tensor([3, 4], [0.1, 0.2, 0.3, 0.4, -0.1, -0.2, -0.3, -0.4, 0.5, 0.5, 0.5, 0.5]),
      b: tensor([4], [0, 0, 0, 0]),
    });
    // rows: relu([1.4,1.3,1.2,1.1]) and relu([2.9,2.8,2.7,2.6]); loss = mean of -logsoftmax at labels
    const lse = (v: number[]) => Math.log(v.reduce((s, a) => s + Math.exp(a), 0));
    const expected = (lse([1.4, 1.3, 1.2, 1.1]) - 1.4 + (lse([2.9, 2.8, 2.7, 2.6]) - 2.6)) / 2;
    expect(r.outputs.loss.data[0]).toBeCloseTo(expected, 6);
  });

  it('rejects a matmul of mismatched shapes, naming the op and both shapes', () => {
    const g = new Graph();
    const a = g.input('a', [2, 3]);
    const b = g.input('b', [4, 5]);
    expect(() => g.matmul(a, b)).toThrow(GraphError);
    expect(() => g.matmul(a, b)).toThrow(/matmul: inner dimensions differ: 3 vs 4 \(operands \[2, 3\]:f32, \[4, 5\]:f32\)/);
    expect(() => g.matmul(a, b)).toThrow(/built at .*graph\.test\.ts/);
    expect(g.nodes.length).toBe(2);
  });

  it('rejects incompatible broadcasts', () => {
    const g = new Graph();
    expect(() => g.add(g.input('a', [2, 3]), g.input('b', [4]))).toThrow(/add: shapes \[2, 3\] and \[4\] do not broadcast/);
  });

  it('hash-conses structurally identical nodes', () => {
    const g = new Graph();
    const a = g.input('a', [3]);
    expect(g.exp(a)).toBe(g.exp(a));
    expect(g.add(a, 1).id).toBe(g.add(a, 1).id);
  });

  it('round-trips through JSON and prints readably', () => {
    const g = new Graph();
    const a = g.input('a', [2, 2]);
    g.output('y', g.sum(g.mul(a, a), [1]));
    const h = graphFromJson(JSON.parse(JSON.stringify(graphToJson(g))));
    expect(printGraph(h)).toBe(printGraph(g));
    expect(printGraph(g)).toContain('sum(%');
  });
});

describe('Graph with the op set of real models', () => {
  it('round-trips every new op through JSON, printing identically and interpreting the same', () => {
    const g = new Graph();
    const x = g.input('x', [1, 2, 4, 4]);
    const ids = g.input('ids', [2, 3], 'i32');
    const c = g.maxPool2d(g.gelu(g.conv2d(x, g.param('w', [2, 2, 3, 3]), undefined, { padding: 1 })), 2);
    const a = g.avgPool2d(g.silu(c), 1);
    const emb = g.gather(g.param('wte', [5, 4]), ids); // [2, 3, 4]
    const q = g.rope(g.reshape(emb, [2, 1, 3, 4]));
    const att = g.attention(q, q, q, { causal: true });
    const cat = g.concat([g.slice(att, [0], [1]), g.pad(g.slice(att, [1], [2], [1, 1, 1, 2]), [], [0, 0, 0, 2])], 0);
    const mix = g.add(g.sum(g.dropout(g.softplus(cat), 0.25, 9)), g.sum(g.scatterAdd(g.constant(0, [5, 4]), ids, emb)));
    const oneHot = g.oneHot(g.argmax(g.reshape(a, [2, 4]), 1), 4);
    g.output('y', g.add(g.add(mix, g.sum(g.stopGradient(oneHot))), g.sum(g.reduceMin(g.erf(g.matmul(emb, emb, { transB: true })), 2))));
    const h = graphFromJson(JSON.parse(JSON.stringify(graphToJson(g))));
    expect(printGraph(h)).toBe(printGraph(g));
    for (const op of ['conv2d', 'maxPool2d', 'avgPool2d', 'gather', 'rope', 'attention', 'concat', 'slice', 'pad', 'dropout', 'scatterAdd', 'oneHot', 'argmax', 'stopGradient', 'reduceMin', 'erf', 'gelu', 'silu', 'softplus'])
      expect(printGraph(g)).toContain(`${op}(`);
    const feeds = { x: tensor([1, 2, 4, 4], Array.from({ length: 32 }, (_, i) => Math.sin(i))), ids: tensor([2, 3], [0, 4, 2, 2, 1, 3], 'i32') };
    expect(interpret(h, feeds).outputs.y.data).toBeAllclose(interpret(g, feeds).outputs.y.data);
  });
});

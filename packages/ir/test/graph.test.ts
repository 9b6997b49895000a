import { describe, expect, it } from 'vitest';
import { Graph, GraphError, graphFromJson, graphToJson, interpret, KERNEL_COST, printGraph, type Tensor, tensor } from '@neura/ir';

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

  it('round-trips named leaves so the parsed graph finds them by name, with their init, and refuses a duplicate', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    const w = g.param('w', [3, 4], { kind: 'normal', mean: 0, std: 0.02, seed: 7 });
    const m = g.state('m', [2], { kind: 'fill', value: -0 }, 'i32');
    g.output('y', g.matmul(x, w));
    g.update(m, g.add(m, 1));
    const h = graphFromJson(JSON.parse(JSON.stringify(graphToJson(g))));
    expect(printGraph(h)).toBe(printGraph(g));
    expect(h.byName('x')?.id).toBe(x.id);
    expect(h.byName('w')?.attrs).toEqual(w.attrs);
    expect(Object.is((h.byName('m')?.attrs as { init: { value: number } } | undefined)?.init.value, -0)).toBe(true);
    expect(() => h.input('w', [1])).toThrow(/'w' is already used/);
    const dup = graphToJson(g);
    dup.nodes.push({ ...dup.nodes[0] });
    expect(() => graphFromJson(dup)).toThrow(/'x' is already used/);
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

describe('attention head windows', () => {
  const [b, t, h, d] = [2, 3, 2, 4];
  const attrs = { causal: true, scale: 0.5, seqMajor: true } as const;
  const values = (shape: number[], k: number) => tensor(shape, Array.from({ length: shape.reduce((p, x) => p * x, 1) }, (_, i) => Math.sin(i * k + 1)));

  it('read q, k, v in place: the same values as the sliced operands, every op of the family', () => {
    const g = new Graph();
    const qkv = g.input('qkv', [b, t, 3 * h, d]);
    const [q, k, v] = [0, 1, 2].map((i) => g.slice(qkv, [0, 0, i * h, 0], [b, t, (i + 1) * h, d]));
    const [dO, lse] = [g.input('dO', [b, t, h, d]), g.input('lse', [b, t, h])];
    const window = { heads: h, offsets: [0, h, 2 * h] };
    const pairs: [Tensor, Tensor][] = [
      [g.node('attention', [q, k, v], attrs), g.node('attention', [qkv, qkv, qkv], { ...attrs, window })],
      [g.node('attentionLse', [q, k], attrs), g.node('attentionLse', [qkv, qkv], { ...attrs, window: { heads: h, offsets: [0, h, 0] } })],
      ...(['q', 'k', 'v'] as const).map((wrt): [Tensor, Tensor] => [
        g.node('attentionGrad', [q, k, v, dO, lse, dO], { ...attrs, wrt, deltaFromOut: true }),
        g.node('attentionGrad', [qkv, qkv, qkv, dO, lse, dO], { ...attrs, wrt, deltaFromOut: true, window }),
      ]),
    ];
    pairs.forEach(([a, w], i) => {
      expect(w.shape).toEqual(a.shape);
      g.output(`a${i}`, a);
      g.output(`w${i}`, w);
    });
    const r = interpret(g, { qkv: values([b, t, 3 * h, d], 0.7), dO: values([b, t, h, d], 1.3), lse: values([b, t, h], 0.4) });
    for (const i of pairs.keys()) expect(r.outputs[`w${i}`].data).toEqual(r.outputs[`a${i}`].data);
  });

  it('are checked: a window outside the operand, without the seq-major layout, or malformed is a GraphError naming the op', () => {
    const g = new Graph();
    const qkv = g.input('qkv', [b, t, 3 * h, d]);
    const bad = (a: object) => () => g.node('attention', [qkv, qkv, qkv], a as never);
    expect(bad({ ...attrs, window: { heads: h, offsets: [0, h, 2 * h + 1] } })).toThrow(/attention: operand v \[2, 3, 6, 4\]: head window \[5, 7\) is outside/);
    expect(bad({ causal: true, scale: 1, window: { heads: h, offsets: [0, h, 2 * h] } })).toThrow(/attention: head windows .*seq-major/);
    expect(bad({ ...attrs, window: { heads: 0, offsets: [0, 0, 0] } })).toThrow(/attention: window must have heads ≥ 1/);
    expect(bad({ ...attrs, window: { heads: h, offsets: [0, h] } })).toThrow(/three offsets/);
  });

  it('count the flops of the heads they read, whichever operands are one tensor', () => {
    const wide = { shape: [b, t, 3 * h, d], dtype: 'f32' as const };
    const plain = { shape: [b, t, h, d], dtype: 'f32' as const };
    const out = { shape: [b, t, h, d], dtype: 'f32' as const };
    const window = { heads: h, offsets: [0, h, 2 * h] };
    const sliced = KERNEL_COST.attention.flops({ attrs, ins: [plain, plain, plain], out });
    expect(KERNEL_COST.attention.flops({ attrs: { ...attrs, window }, ins: [wide], out, operands: [wide, wide, wide] })).toBe(sliced);
    expect(sliced).toBe(b * h * t * t * (2 * (d + d) + 5));
  });
});

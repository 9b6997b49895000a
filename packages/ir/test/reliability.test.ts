// Bad input to the graph builder is a GraphError at build time, never a silently wrong graph (issue 9,
// items 4 and 5): non-finite constants keep their identity and survive JSON, scalars promote as in PyTorch,
// and shapes that cannot exist are refused where they are written.
import { describe, expect, it } from 'vitest';
import { attrsOf, Graph, GraphError, graphFromJson, graphToJson, interpret, tensor } from '@neura/ir';

const roundTrip = (g: Graph) => graphFromJson(JSON.parse(JSON.stringify(graphToJson(g))));

describe('non-finite constants', () => {
  it('constant(-Infinity), constant(Infinity), constant(NaN), 0 and -0 are five different nodes', () => {
    const g = new Graph();
    const ids = [-Infinity, Infinity, Number.NaN, 0, -0].map((v) => g.constant(v).id);
    expect(new Set(ids).size).toBe(5);
    expect(g.constant(Number.NaN).id).toBe(ids[2]); // still hash-consed
    const v = ids.map((id) => attrsOf(g.nodes[id], 'const').value);
    expect(v[0]).toBe(-Infinity);
    expect(v[1]).toBe(Infinity);
    expect(v[2]).toBeNaN();
    expect(Object.is(v[4], -0)).toBe(true);
  });

  it('graph JSON (through JSON.stringify) round-trips -Infinity, Infinity, NaN and -0', () => {
    const g = new Graph();
    const x = g.input('x', [3]);
    g.output('lo', g.max(x, g.constant(-Infinity, [3])));
    g.output('hi', g.min(x, Infinity));
    g.output('nan', g.add(x, Number.NaN));
    g.output('negzero', g.div(g.constant(1), g.constant(-0)));
    const back = roundTrip(g);
    const values = back.nodes.flatMap((n) => (n.op === 'const' ? [n.attrs.value] : []));
    expect(values.some((v) => v === -Infinity)).toBe(true);
    expect(values.some((v) => v === Infinity)).toBe(true);
    expect(values.some((v) => Number.isNaN(v))).toBe(true);
    expect(values.some((v) => Object.is(v, -0))).toBe(true);
    const feeds = { x: { shape: [3], dtype: 'f32' as const, data: new Float32Array([1, -2, 3]) } };
    const a = interpret(g, feeds, {}).outputs;
    const b = interpret(back, feeds, {}).outputs;
    expect(Array.from(b.lo.data)).toEqual(Array.from(a.lo.data));
    expect(Array.from(b.hi.data)).toEqual(Array.from(a.hi.data));
    expect(b.negzero.data[0]).toBe(-Infinity);
    expect(Number.isNaN(b.nan.data[0])).toBe(true);
  });
});

describe('dtype promotion of Python-style scalars', () => {
  it('mul(i32 tensor, 0.5) promotes to f32 as in PyTorch (not i32 zeros)', () => {
    const g = new Graph();
    const k = g.input('k', [3], 'i32');
    const y = g.output('y', g.mul(k, 0.5));
    expect(y.dtype).toBe('f32');
    const r = interpret(g, { k: { shape: [3], dtype: 'i32', data: new Int32Array([1, 2, 3]) } }, {});
    expect(Array.from(r.outputs.y.data)).toEqual([0.5, 1, 1.5]);
  });

  it('an integer scalar keeps an i32 tensor i32; a scalar on the left promotes too', () => {
    const g = new Graph();
    const k = g.input('k', [2], 'i32');
    expect(g.add(k, 2).dtype).toBe('i32');
    expect(g.sub(1.5, k).dtype).toBe('f32');
    expect(g.gt(k, 0.5).dtype).toBe('bool');
  });

  it('an i32 constant with a fractional or non-finite value is refused', () => {
    const g = new Graph();
    expect(() => g.constant(2.5, [], 'i32')).toThrow(/const: value 2.5 is not representable as i32/);
    expect(() => g.constant(Number.NaN, [2], 'i32')).toThrow(GraphError);
  });
});

describe('shapes that cannot exist are refused at build time', () => {
  it('crossEntropy of logits [2, 3, 10] and labels [3, 2] names both shapes', () => {
    const g = new Graph();
    const logits = g.input('logits', [2, 3, 10]);
    const labels = g.input('labels', [3, 2], 'i32');
    expect(() => g.crossEntropy(logits, labels)).toThrow(/crossEntropy: labels \[3, 2\] do not match logits \[2, 3, 10\] \(want labels \[2, 3\]\)/);
    expect(g.crossEntropy(logits, g.input('ok', [2, 3], 'i32')).shape).toEqual([]);
  });

  it('crossEntropy refuses f32 labels', () => {
    const g = new Graph();
    expect(() => g.crossEntropy(g.input('logits', [2, 10]), g.input('labels', [2]))).toThrow(/labels must be i32/);
  });

  it('expand to a negative or fractional size is refused', () => {
    const g = new Graph();
    const x = g.input('x', [1, 3]);
    expect(() => g.expand(x, [-2, 3])).toThrow(/expand: invalid target shape \[-2, 3\]/);
    expect(() => g.expand(x, [2.5, 3])).toThrow(GraphError);
    expect(g.expand(x, [4, 3]).shape).toEqual([4, 3]);
  });

  it('constant(1, [2.5]) and constant(1, [-1]) are refused', () => {
    const g = new Graph();
    expect(() => g.constant(1, [2.5])).toThrow(/const: invalid shape \[2.5\]/);
    expect(() => g.constant(1, [-1])).toThrow(GraphError);
    expect(g.nodes.length).toBe(0);
  });

  it('reshape with a fractional inferred extent is refused', () => {
    const g = new Graph();
    expect(() => g.reshape(g.input('x', [2, 3]), [4, -1])).toThrow(/reshape: cannot reshape \[2, 3\]/);
  });
});

describe('integer tensors are never truncated', () => {
  it('tensor(shape, [NaN, 2.7], "i32") is a RangeError naming the value and index', () => {
    expect(() => tensor([2], [Number.NaN, 2], 'i32')).toThrow(/value NaN at index 0 is not an integer representable as i32/);
    expect(() => tensor([2], [1, 2.7], 'i32')).toThrow(/value 2.7 at index 1/);
    expect(() => tensor([1], [2 ** 40], 'i32')).toThrow(RangeError);
    expect(Array.from(tensor([2], [3, -1], 'i32').data)).toEqual([3, -1]);
  });
});

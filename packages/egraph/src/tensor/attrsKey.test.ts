// Tests of the keys of fused attributes and pointwise data, and of comparing expressions in place: equal data,
// equal keys (field order aside), and the texts the data carry.
import type { PwExpr } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { dataKey } from '../core/index.js';
import { attrsKey } from './attrsKey.js';
import { exprKey } from './exprKey.js';
import { sameExpr } from './pointwiseFusion.js';
import { enodeAttrs, irENode, pointwiseSizeOf } from './tensorLanguage.js';

const $ = (index: number): PwExpr => ({ op: 'in', index });
const expr: PwExpr = { op: 'add', a: { op: 'mul', a: $(0), b: { op: 'const', value: 0.5 } }, b: { op: 'where', c: $(1), a: $(0), b: { op: 'cast', to: 'f32', a: $(2) } } };

describe('fused attribute keys', () => {
  it('gives equal reduction attributes one key, whatever their field order, and different ones different keys', () => {
    const a = irENode('pointwiseReduce', { expr, shape: [4, 8], reduce: 'sum', axes: [1], keepdims: true, post: $(0) }, [0, 1, 2]);
    const b = irENode('pointwiseReduce', { post: $(0), keepdims: true, axes: [1], reduce: 'sum', shape: [4, 8], expr }, [0, 1, 2]);
    const c = irENode('pointwiseReduce', { expr, shape: [4, 8], reduce: 'sum', axes: [1], keepdims: true, post: { op: 'neg', a: $(0) } }, [0, 1, 2]);
    expect(dataKey(a.data)).toBe(dataKey(b.data));
    expect(dataKey(a.data)).not.toBe(dataKey(c.data));
    // the data stay plain records: the key sits in a slot that spreads and JSON do not see
    expect(Object.keys(a.data as object).sort()).toEqual(['axes', 'expr', 'keepdims', 'post', 'reduce', 'shape']);
    expect(JSON.parse(JSON.stringify(a.data))).toEqual({ expr, shape: [4, 8], reduce: 'sum', axes: [1], keepdims: true, post: $(0) });
  });

  it('writes the fields sorted, as core writes a record, each expression as its compact key', () => {
    const a = irENode('pointwiseReduce', { shape: [4, 8], expr, reduce: 'sum', axes: [1], keepdims: true, post: $(0), dtype: undefined }, [0, 1, 2]);
    expect(dataKey(a.data)).toBe(`{"axes":[1],"expr":${exprKey(expr)},"keepdims":true,"post":${exprKey($(0))},"reduce":"sum","shape":[4,8]}`);
    const withDtype = irENode('pointwiseReduce', { shape: [4, 8], expr, reduce: 'sum', axes: [1], keepdims: true, post: $(0), dtype: 'f16' }, [0, 1, 2]);
    expect(dataKey(withDtype.data)).toBe(`{"axes":[1],"dtype":"f16","expr":${exprKey(expr)},"keepdims":true,"post":${exprKey($(0))},"reduce":"sum","shape":[4,8]}`);
    // lists of numbers are written in one piece, but for -0 (kept apart from 0) and values that are not numbers
    expect(attrsKey([3, 0.5, -2])).toBe('[3,0.5,-2]');
    expect(attrsKey([1, -0, 2])).toBe('[1,-0,2]');
    expect(attrsKey([1, null, 'a'])).toBe('[1,null,"a"]');
  });

  it('shares the data of a node whose attributes are passed on unchanged, and keys a changed copy afresh', () => {
    const a = irENode('pointwiseReduce', { expr, shape: [4, 8], reduce: 'sum', axes: [1], keepdims: true, post: $(0) }, [0, 1, 2]);
    const attrs = enodeAttrs(a, 'pointwiseReduce');
    expect(irENode('pointwiseReduce', attrs, [3, 4, 5]).data).toBe(a.data);
    const copy = irENode('pointwiseReduce', { ...attrs }, [0, 1, 2]);
    expect(copy.data).not.toBe(a.data);
    expect(dataKey(copy.data)).toBe(dataKey(a.data));
    expect(dataKey(irENode('pointwiseReduce', { ...attrs, keepdims: false }, [0, 1, 2]).data)).not.toBe(dataKey(a.data));
  });

  it('keeps a pointwise node’s expression as its JSON text, with its size', () => {
    const n = irENode('pointwise', { expr, dtype: 'f32' }, [0, 1, 2]);
    expect((n.data as { expr: string }).expr).toBe(JSON.stringify(expr));
    expect(Object.keys(n.data as object)).toEqual(['expr', 'dtype']);
    expect(pointwiseSizeOf(n)).toBe(9);
    const f16 = irENode('pointwise', { expr, dtype: 'f16' }, [0, 1, 2]);
    expect(dataKey(f16.data)).not.toBe(dataKey(n.data));
    expect(dataKey(irENode('pointwise', { expr: JSON.parse(JSON.stringify(expr)), dtype: 'f32' }, [0, 1, 2]).data)).toBe(dataKey(n.data));
  });
});

describe('sameExpr', () => {
  it('tells equal trees from trees that differ in an op, an input, a constant or a cast', () => {
    const copy = JSON.parse(JSON.stringify(expr)) as PwExpr;
    expect(sameExpr(expr, copy)).toBe(true);
    const variants: PwExpr[] = [
      { op: 'sub', a: (expr as { a: PwExpr }).a, b: (expr as { b: PwExpr }).b },
      { op: 'add', a: { op: 'mul', a: $(1), b: { op: 'const', value: 0.5 } }, b: (expr as { b: PwExpr }).b },
      { op: 'add', a: { op: 'mul', a: $(0), b: { op: 'const', value: 0.25 } }, b: (expr as { b: PwExpr }).b },
      { op: 'add', a: (expr as { a: PwExpr }).a, b: { op: 'where', c: $(1), a: $(0), b: { op: 'cast', to: 'f16', a: $(2) } } },
      { op: 'neg', a: $(0) },
    ];
    for (const v of variants) {
      expect(sameExpr(expr, v)).toBe(false);
      expect(sameExpr(v, expr)).toBe(false);
      expect(sameExpr(v, v)).toBe(true);
    }
    expect(sameExpr({ op: 'neg', a: $(0) }, { op: 'neg', a: $(1) })).toBe(false);
  });
});

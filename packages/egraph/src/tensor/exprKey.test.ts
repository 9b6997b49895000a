// Tests of the compact expression key: two expressions get one key exactly when their JSON texts are equal (random
// trees of every node shape, constants JSON cannot tell apart, a key embedded in attribute keys), and a key is
// short next to the JSON text it replaces.
import type { DType, PwExpr } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { dataKey } from '../core/index.js';
import { exprKey } from './exprKey.js';
import { irENode } from './tensorLanguage.js';

const $ = (index: number): PwExpr => ({ op: 'in', index });

/** A small seeded generator (mulberry32): the same trees on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONSTS = [0, -0, 1, -1, 0.5, 1e-300, 3, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 65535, 65536];
const DTYPES: DType[] = ['f32', 'f16', 'i32'];

/** A random expression of every node shape: inputs, constants, unary, binary, where, cast. */
function randomExpr(next: () => number, depth: number): PwExpr {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const r = next();
  if (depth === 0 || r < 0.25) return r < 0.15 ? $(Math.floor(next() * 3)) : { op: 'const', value: pick(CONSTS) };
  if (r < 0.45) return { op: pick(['neg', 'exp', 'abs'] as const), a: randomExpr(next, depth - 1) };
  if (r < 0.8) return { op: pick(['add', 'mul', 'sub'] as const), a: randomExpr(next, depth - 1), b: randomExpr(next, depth - 1) };
  if (r < 0.9) return { op: 'where', c: randomExpr(next, depth - 1), a: randomExpr(next, depth - 1), b: randomExpr(next, depth - 1) };
  return { op: 'cast', to: pick(DTYPES), a: randomExpr(next, depth - 1) };
}

describe('exprKey', () => {
  it('gives two expressions one key exactly when their JSON texts are equal', () => {
    const next = rng(7);
    const exprs = Array.from({ length: 600 }, () => randomExpr(next, 3));
    const byText = new Map<string, string>();
    const byKey = new Map<string, string>();
    for (const e of exprs) {
      const text = JSON.stringify(e);
      const key = exprKey(e);
      expect(byText.get(text) ?? key).toBe(key);
      expect(byKey.get(key) ?? text).toBe(text);
      byText.set(text, key);
      byKey.set(key, text);
    }
    expect(byText.size).toBeGreaterThan(300); // many distinct trees, not a few repeated ones
  });

  it('keys constants as JSON writes them: -0 as 0, NaN and ±Infinity alike, 0.5 apart from 1', () => {
    const c = (value: number): PwExpr => ({ op: 'add', a: $(0), b: { op: 'const', value } });
    expect(exprKey(c(-0))).toBe(exprKey(c(0)));
    expect(exprKey(c(Number.NaN))).toBe(exprKey(c(Number.POSITIVE_INFINITY)));
    expect(exprKey(c(Number.NEGATIVE_INFINITY))).toBe(exprKey(c(Number.NaN)));
    expect(exprKey(c(0.5))).not.toBe(exprKey(c(1)));
    expect(exprKey(c(1))).not.toBe(exprKey({ op: 'add', a: $(0), b: $(1) }));
  });

  it('keeps pointwise and fused data keys apart where the expressions differ, and short', () => {
    const big: PwExpr = Array.from({ length: 40 }, (_, i) => i).reduce<PwExpr>((e, i) => ({ op: 'add', a: e, b: { op: 'mul', a: $(i % 7), b: { op: 'const', value: i / 3 } } }), $(0));
    const other: PwExpr = { op: 'add', a: big, b: $(1) };
    const pw = (expr: PwExpr, dtype: DType) => dataKey(irENode('pointwise', { expr, dtype }, [0, 1, 2, 3, 4, 5, 6]).data);
    expect(pw(big, 'f32')).toBe(pw(JSON.parse(JSON.stringify(big)) as PwExpr, 'f32'));
    expect(pw(big, 'f32')).not.toBe(pw(big, 'f16'));
    expect(pw(big, 'f32')).not.toBe(pw(other, 'f32'));
    const red = (expr: PwExpr, post: PwExpr) => dataKey(irENode('pointwiseReduce', { expr, shape: [4, 8], reduce: 'sum', axes: [1], keepdims: true, post }, [0]).data);
    expect(red(big, $(0))).toBe(red(JSON.parse(JSON.stringify(big)) as PwExpr, $(0)));
    expect(red(big, $(0))).not.toBe(red(other, $(0)));
    expect(red(big, $(0))).not.toBe(red(big, { op: 'neg', a: $(0) }));
    expect(exprKey(big).length * 3).toBeLessThan(JSON.stringify(big).length);
  });

  it('writes a prefixed key as the prefix followed by the key', () => {
    const next = rng(11);
    for (let i = 0; i < 200; i++) {
      const e = randomExpr(next, 4);
      expect(exprKey(e, 'f32')).toBe(`f32${exprKey(e)}`);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { sameJson } from './sameJson.js';

// every pair of these is compared against JSON.stringify: the function must agree on all of them
const values: unknown[] = [
  { op: 'in', index: 0 },
  { index: 0, op: 'in' },
  { op: 'in', index: 1 },
  { op: 'in', index: 0, extra: undefined },
  { op: 'in', index: 0, f: () => 1 },
  { op: 'const', value: Number.NaN },
  { op: 'const', value: null },
  { op: 'const', value: Number.POSITIVE_INFINITY },
  { op: 'const', value: 0 },
  { op: 'const', value: -0 },
  { op: 'const', value: '0' },
  { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'const', value: 1 } },
  { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'const', value: 2 } },
  { op: 'add', a: { op: 'in', index: 0 } },
  { expr: [1, 2], stats: [] },
  { expr: [1, 2], stats: [undefined] },
  { expr: [1, 2], stats: [null] },
  { expr: { 0: 1, 1: 2 }, stats: [] },
  [1, undefined],
  [1, null],
  [1],
  {},
  [],
  null,
  undefined,
  0,
  -0,
  1,
  Number.NaN,
  Number.NEGATIVE_INFINITY,
  'in',
  'add',
  true,
  { op: 'in', index: -0 },
  { op: 'in', index: Number.NaN },
  { op: 'in', index: Number.POSITIVE_INFINITY },
  { op: 'in', index: '0' },
  { op: 'add', index: 0 },
  { op: 'add', a: { op: 'in', index: 1 }, b: { op: 'const', value: 1 } },
  { op: 'const', value: Number.NEGATIVE_INFINITY },
];

describe('sameJson', () => {
  it('agrees with comparing JSON.stringify texts on every pair', () => {
    for (const a of values) {
      for (const b of values) {
        expect([a, b, sameJson(a, b)]).toEqual([a, b, JSON.stringify(a) === JSON.stringify(b)]);
      }
    }
  });

  it('tells apart expressions that differ deep inside', () => {
    const deep = (v: number) => ({ op: 'mul', a: { op: 'exp', a: { op: 'in', index: 0 } }, b: { op: 'add', a: { op: 'in', index: 1 }, b: { op: 'const', value: v } } });
    expect(sameJson(deep(1), deep(1))).toBe(true);
    expect(sameJson(deep(1), deep(2))).toBe(false);
  });
});

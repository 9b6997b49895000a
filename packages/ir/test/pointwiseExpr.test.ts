import { describe, expect, it } from 'vitest';
import { erf, UNARY_FN } from '@neura/ir';

// reference values from mpmath at 30 digits
const ERF: readonly [number, number][] = [
  [0, 0],
  [0.1, 0.1124629160182849],
  [0.5, 0.5204998778130465],
  [1, 0.8427007929497149],
  [2, 0.9953222650189527],
  [2.9, 0.9999589021219005],
  [3, 0.9999779095030014],
  [3.5, 0.9999992569016276],
  [4, 0.9999999845827421],
  [-1.5, -0.9661051464753108],
];

describe('scalar semantics of the activation ops', () => {
  it('computes erf to 1e-15 on both sides of the series/continued-fraction switch', () => {
    for (const [x, v] of ERF) expect(Math.abs(erf(x) - v), `erf(${x})`).toBeLessThan(1e-15);
    expect(erf(Infinity)).toBe(1);
    expect(erf(-Infinity)).toBe(-1);
    expect(erf(Number.NaN)).toBeNaN();
  });

  it('matches the textbook definitions of gelu, its tanh form, silu and softplus', () => {
    for (const x of [-3, -0.5, 0, 0.7, 2.5]) {
      const phi = 0.5 * (1 + erf(x / Math.SQRT2));
      expect(UNARY_FN.gelu(x)).toBeCloseTo(x * phi, 14);
      expect(UNARY_FN.geluTanh(x)).toBeCloseTo(0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))), 14);
      expect(UNARY_FN.silu(x)).toBeCloseTo(x / (1 + Math.exp(-x)), 14);
      expect(UNARY_FN.softplus(x)).toBeCloseTo(Math.log(1 + Math.exp(x)), 14);
    }
    expect(UNARY_FN.softplus(800)).toBe(800); // no overflow
    expect(UNARY_FN.softplus(-800)).toBe(0);
  });
});

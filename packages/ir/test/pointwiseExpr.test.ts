import { describe, expect, it } from 'vitest';
import { BINARY_FN, erf, UNARY_FN } from '@neura/ir';

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

// torch.pow in float32 (torch 1.13, CPU) of every pair of POW_ARGS, row a, column b, printed by:
//   /usr/bin/python3 -c "import torch; s=[0.,-0.,float('inf'),float('-inf'),float('nan'),1.,-1.,-2.,.5,2.,3.,1e-45,-3.,-.5,2.5];
//   t=torch.tensor(s); print(torch.pow(t[:,None], t[None,:]))"
const POW_ARGS = [0, -0, Infinity, -Infinity, Number.NaN, 1, -1, -2, 0.5, 2, 3, 1e-45, -3, -0.5, 2.5];
const TORCH_POW = [
  '1.0 1.0 0 Inf NaN 0 Inf Inf 0 0 0 0 Inf Inf 0',
  '1.0 1.0 0 Inf NaN -0 -Inf Inf 0 0 -0 0 -Inf Inf 0',
  '1.0 1.0 Inf 0 NaN Inf 0 0 Inf Inf Inf Inf 0 0 Inf',
  '1.0 1.0 Inf 0 NaN -Inf -0 0 Inf Inf -Inf Inf -0 0 Inf',
  '1.0 1.0 NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN NaN',
  '1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0',
  '1.0 1.0 1.0 1.0 NaN -1.0 -1.0 1.0 NaN 1.0 -1.0 NaN -1.0 NaN NaN',
  '1.0 1.0 Inf 0 NaN -2.0 -0.5 0.25 NaN 4.0 -8.0 NaN -0.125 NaN NaN',
  '1.0 1.0 0 Inf NaN 0.5 2.0 4.0 0.7071067690849304 0.25 0.125 1.0 8.0 1.4142135381698608 0.1767766922712326',
  '1.0 1.0 Inf 0 NaN 2.0 0.5 0.25 1.4142135381698608 4.0 8.0 1.0 0.125 0.7071067690849304 5.656854152679443',
  '1.0 1.0 Inf 0 NaN 3.0 0.3333333432674408 0.1111111119389534 1.7320507764816284 9.0 27.0 1.0 0.03703703731298447 0.5773502588272095 15.588457107543945',
  '1.0 1.0 0 Inf NaN 1.401298464324817e-45 Inf Inf 3.743392066509216e-23 0 0 1.0 Inf 2.671373844909537e+22 0',
  '1.0 1.0 Inf 0 NaN -3.0 -0.3333333432674408 0.1111111119389534 NaN 9.0 -27.0 NaN -0.03703703731298447 NaN NaN',
  '1.0 1.0 0 Inf NaN -0.5 -2.0 4.0 NaN 0.25 -0.125 NaN -8.0 NaN NaN',
  '1.0 1.0 Inf 0 NaN 2.5 0.4000000059604645 0.1599999964237213 1.5811388492584229 6.25 15.625 1.0 0.06400000303983688 0.6324555277824402 9.88211727142334',
];

describe('pow follows C99 / IEEE 754 pow (PyTorch), not JS **', () => {
  it('matches torch.pow in float32 on every pair of special values', () => {
    const num = (s: string) => (s === 'Inf' ? Infinity : s === '-Inf' ? -Infinity : Number(s));
    TORCH_POW.forEach((row, i) => {
      row.split(' ').forEach((w, j) => {
        const [a, b] = [Math.fround(POW_ARGS[i]), Math.fround(POW_ARGS[j])];
        const got = Math.fround(BINARY_FN.pow(a, b));
        const want = num(w);
        if (Number.isFinite(want) && want !== 0) expect(Math.abs(got - want), `pow(${a}, ${b})`).toBeLessThanOrEqual(1e-6 * Math.abs(want));
        else expect(got, `pow(${a}, ${b})`).toBe(want); // toBe: Object.is, so −0 ≠ 0 and NaN = NaN
      });
    });
  });

  it('gives 1 for 1 ** NaN, 1 ** ±Infinity and (−1) ** ±Infinity, where JS ** gives NaN', () => {
    for (const [a, b] of [[1, Number.NaN], [1, Infinity], [1, -Infinity], [-1, Infinity], [-1, -Infinity]]) expect(BINARY_FN.pow(a, b), `pow(${a}, ${b})`).toBe(1);
  });
});

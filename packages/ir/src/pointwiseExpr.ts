// The expression language inside a fused `pointwise` op, and the scalar semantics of every elementwise op.
// One scalar function per op is the single definition the interpreter (primitive and fused), rule checks
// and WGSL generation agree with. Expressions are trees of plain JSON; shared subtrees are allowed.

import type { DType } from './dtype.js';
import { f16round } from './f16.js';
import type { BinaryOp, UnaryOp } from './elementwise.js';

/** An expression over the inputs of a fused pointwise op. */
export type PwExpr =
  | { op: 'in'; index: number }
  | { op: 'const'; value: number }
  | { op: UnaryOp; a: PwExpr }
  | { op: BinaryOp; a: PwExpr; b: PwExpr }
  | { op: 'where'; c: PwExpr; a: PwExpr; b: PwExpr }
  | { op: 'cast'; to: DType; a: PwExpr };

/** √(2/π), the constant of the tanh approximation of GELU. */
export const GELU_TANH_K = Math.sqrt(2 / Math.PI);

/**
 * The error function in float64: the all-positive series erf(x) = 2/√π·e^(−x²)·Σ (2x²)ⁿ·x / (1·3·…·(2n+1))
 * for |x| < 3 (no cancellation), and erfc by its Lentz continued fraction for |x| ≥ 3. Absolute error below
 * 1e-15 against high-precision values (see pointwiseExpr.test.ts); erf(±∞) = ±1, erf(NaN) = NaN.
 */
export function erf(x: number): number {
  if (Number.isNaN(x)) return x;
  const ax = Math.abs(x);
  if (ax >= 6) return Math.sign(x);
  if (ax < 3) {
    const x2 = 2 * ax * ax;
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= x2 / (2 * n + 1);
      sum += term;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * Math.exp(-ax * ax) * sum;
  }
  // erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), modified Lentz
  const tiny = 1e-300;
  let f = ax;
  let c = ax;
  let d = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    d = ax + an * d;
    d = d === 0 ? tiny : d;
    c = ax + an / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

/** Scalar semantics of each unary op (float64; the interpreter rounds in float32 mode). */
export const UNARY_FN: { [K in UnaryOp]: (x: number) => number } = {
  neg: (x) => -x,
  abs: (x) => Math.abs(x),
  exp: (x) => Math.exp(x),
  log: (x) => Math.log(x),
  sqrt: (x) => Math.sqrt(x),
  rsqrt: (x) => 1 / Math.sqrt(x),
  recip: (x) => 1 / x,
  square: (x) => x * x,
  relu: (x) => (x < 0 ? 0 : x), // NaN and −0 pass through, as in PyTorch
  sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  tanh: (x) => Math.tanh(x),
  sin: (x) => Math.sin(x),
  cos: (x) => Math.cos(x),
  erf,
  gelu: (x) => 0.5 * x * (1 + erf(x * Math.SQRT1_2)),
  geluTanh: (x) => 0.5 * x * (1 + Math.tanh(GELU_TANH_K * (x + 0.044715 * x * x * x))),
  silu: (x) => x / (1 + Math.exp(-x)),
  softplus: (x) => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))),
};

/** Scalar semantics of each binary op; comparisons return 1 or 0. */
export const BINARY_FN: { [K in BinaryOp]: (a: number, b: number) => number } = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  // PyTorch's maximum/minimum: NaN propagates, a tie gives the first operand (maximum(−0, 0) = −0; Math.max gives +0)
  max: (a, b) => (Number.isNaN(b) ? b : a < b ? b : a),
  min: (a, b) => (Number.isNaN(b) ? b : b < a ? b : a),
  // C99/IEEE pow (PyTorch): as JS `**` except 1 ** y = 1 for every y (NaN, ±Infinity) and (−1) ** ±Infinity = 1
  pow: (a, b) => (a === 1 || (a === -1 && Math.abs(b) === Infinity) ? 1 : a ** b),
  gt: (a, b) => (a > b ? 1 : 0),
  ge: (a, b) => (a >= b ? 1 : 0),
  lt: (a, b) => (a < b ? 1 : 0),
  le: (a, b) => (a <= b ? 1 : 0),
  eq: (a, b) => (a === b ? 1 : 0),
};

/** Converts a scalar to the value it has in a dtype (f16 rounding to nearest even, truncation for integers, 0/1 for bool). */
export function castScalar(x: number, to: DType): number {
  switch (to) {
    case 'f32':
      return x;
    case 'f16':
      return f16round(x);
    case 'i32':
      return Math.trunc(x) | 0;
    case 'bool':
      return x !== 0 ? 1 : 0;
    default:
      return to satisfies never;
  }
}

/** Evaluates an expression for one element, given the input values at that element. */
export function evalPwExpr(e: PwExpr, inputs: readonly number[], round: (x: number) => number): number {
  switch (e.op) {
    case 'in':
      return inputs[e.index];
    case 'const':
      return round(e.value);
    case 'where':
      return evalPwExpr(e.c, inputs, round) !== 0 ? evalPwExpr(e.a, inputs, round) : evalPwExpr(e.b, inputs, round);
    case 'cast':
      return castScalar(evalPwExpr(e.a, inputs, round), e.to);
    default:
      if ('b' in e) return round(BINARY_FN[e.op](evalPwExpr(e.a, inputs, round), evalPwExpr(e.b, inputs, round)));
      return round(UNARY_FN[e.op](evalPwExpr(e.a, inputs, round)));
  }
}

/** Number of inputs an expression reads (one more than the largest input index). */
export function pwArity(e: PwExpr): number {
  switch (e.op) {
    case 'in':
      return e.index + 1;
    case 'const':
      return 0;
    case 'where':
      return Math.max(pwArity(e.c), pwArity(e.a), pwArity(e.b));
    case 'cast':
      return pwArity(e.a);
    default:
      return 'b' in e ? Math.max(pwArity(e.a), pwArity(e.b)) : pwArity(e.a);
  }
}

/** An op that may appear inside a pointwise expression (every node but inputs and constants). */
export type PwOp = Exclude<PwExpr['op'], 'in' | 'const'>;

/** The ops of an expression, added to `out` in first-visit order (operands a, b, then where's condition c). */
export function pwExprOps<T extends string = PwOp>(e: PwExpr, out: Set<T | PwOp> = new Set()): Set<T | PwOp> {
  if (e.op === 'in' || e.op === 'const') return out;
  out.add(e.op);
  if ('a' in e) pwExprOps(e.a, out);
  if ('b' in e) pwExprOps(e.b, out);
  if ('c' in e) pwExprOps(e.c, out);
  return out;
}

/** Prints an expression as an s-expression, e.g. `(relu (add $0 $1))`. */
export function fmtPwExpr(e: PwExpr): string {
  switch (e.op) {
    case 'in':
      return `$${e.index}`;
    case 'const':
      return String(e.value);
    case 'where':
      return `(where ${fmtPwExpr(e.c)} ${fmtPwExpr(e.a)} ${fmtPwExpr(e.b)})`;
    case 'cast':
      return `(cast:${e.to} ${fmtPwExpr(e.a)})`;
    default:
      return 'b' in e ? `(${e.op} ${fmtPwExpr(e.a)} ${fmtPwExpr(e.b)})` : `(${e.op} ${fmtPwExpr(e.a)})`;
  }
}

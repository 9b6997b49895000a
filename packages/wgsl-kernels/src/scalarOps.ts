// WGSL spellings of the scalar semantics in `@neura/ir` (UNARY_FN, BINARY_FN, castScalar): one expression per
// op, in f32 (the pointwise archetype's arithmetic) or native i32 (integer tensors). Must not drift from ir:
// every difference is listed in DIFFERENCES below and exercised by the GPU tests where the GPU can be exact.

import type { BinaryOp, DType, UnaryOp } from '@neura/ir';

/**
 * Where WGSL cannot match JS exactly (documented, not bugs):
 * - transcendental ops (exp, log, sin, cos, tanh, pow) use the GPU's builtins: WGSL allows a few ULP (sin/cos:
 *   2^-11 absolute on [-π, π]); `tanh` clamps its argument to ±10 first (tanh(±10) rounds to ±1 in f32), because
 *   some drivers return NaN for large |x|.
 * - `max`/`min`/`relu` (also matmul's fused relu) are not WGSL's max/min (indeterminate for NaN): they propagate NaN as PyTorch does, and give
 *   the first operand on a tie (maximum(−0, 0) = −0; relu(−0) = −0), NaN found by its bits (a compiler may assume
 *   `x != x` false).
 * - `pow` follows C99 / IEEE 754 pow (as ir and PyTorch) on every special value (±0, ±Infinity, NaN, 1 ** b,
 *   (−1) ** ±Infinity, a negative base: an odd integer exponent keeps its sign, a non-integer one gives NaN); other
 *   values are exp2(b·log2|a|), a few ULP. Constant integer exponents in a pointwise expression (|c| ≤ 8) are
 *   repeated multiplication (one rounding per multiply).
 * - `erf` (and exact `gelu`) use Abramowitz & Stegun 7.1.26, |error| ≤ 1.5e-7; ir's float64 erf is exact to 1e-15.
 * - denormals may be flushed to zero.
 * - i32 `div` truncates toward zero and gives 0 for a zero divisor (JS `(a / 0) | 0`); `cast` to i32 clamps
 *   out-of-range values (JS wraps modulo 2^32); i32 `pow` goes through f32.
 */
export const DIFFERENCES = 'see the comment above';

/** PyTorch's maximum / minimum as WGSL helper `${fn}_nan`: the two differ only in which key wins (`pick`). */
function extremumNan(fn: 'max' | 'min', torchName: string, pick: string): string {
  return `// PyTorch's ${torchName}: NaN if either operand is NaN, else the first operand on a tie (−0 and +0 tie); on the bits.
fn ${fn}_nan(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  if ((ua & 0x7fffffffu) > 0x7f800000u) { return a; }
  if ((ub & 0x7fffffffu) > 0x7f800000u) { return b; }
  let zeros = ((ua | ub) & 0x7fffffffu) == 0u;
  // keys ordered as the floats (−0 below +0): integer compares, which the GLSL path's folding of a float select into
  // max/min (llvmpipe: NaN and tie signs lost) does not touch
  let ka = select(ua | 0x80000000u, ~ua, (ua >> 31u) == 1u);
  let kb = select(ub | 0x80000000u, ~ub, (ub >> 31u) == 1u);
  return bitcast<f32>(select(ua, ub, !zeros && ${pick}));
}`;
}

/** WGSL helper functions a kernel body may call, by name; the shader builder emits each once, only when called. */
export const HELPERS = {
  pow_ieee: `// C99 / IEEE 754 pow (PyTorch's): special values decided on the bits (a compiler may assume finite floats; WGSL's
// pow is undefined for a < 0 and for a = 0, b <= 0), then exp2(b·log2|a|) for finite non-zero a and finite b.
fn pow_ieee(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  let ma = ua & 0x7fffffffu;
  let mb = ub & 0x7fffffffu;
  // a ** ±0 = 1 and 1 ** b = 1, NaN included
  if (mb == 0u || ua == 0x3f800000u) { return 1.0; }
  if (ma > 0x7f800000u || mb > 0x7f800000u) { return bitcast<f32>(0x7fc00000u | (ub & 0u)); }
  // an odd integer exponent keeps a negative base's sign (|b| >= 2^24 is even)
  let odd = mb < 0x4b800000u && trunc(b) == b && (abs(b) % 2.0) == 1.0;
  let sign = select(0u, 0x80000000u, (ua >> 31u) == 1u && odd);
  let bneg = (ub >> 31u) == 1u;
  if (mb == 0x7f800000u) {
    // b = ±Infinity: (−1) ** ±Infinity = 1, else +Infinity when |a| > 1 and b > 0 or |a| < 1 and b < 0, else +0
    if (ma == 0x3f800000u) { return 1.0; }
    return bitcast<f32>(select(0u, 0x7f800000u, (ma > 0x3f800000u) != bneg));
  }
  // a = ±0: ±Infinity for b < 0, ±0 for b > 0; a = ±Infinity: the reverse (signed only for an odd b)
  if (ma == 0u || ma == 0x7f800000u) { return bitcast<f32>(select(0u, 0x7f800000u, (ma == 0u) == bneg) | sign); }
  if ((ua >> 31u) == 1u && trunc(b) != b) { return bitcast<f32>(0x7fc00000u | (ub & 0u)); }
  // log2|a|, a denormal's from its mantissa as an integer (float arithmetic may flush denormals to zero)
  let l = select(log2(abs(a)), log2(f32(ma)) - 149.0, ma < 0x00800000u);
  return bitcast<f32>(bitcast<u32>(exp2(b * l)) | sign);
}`,
  max_nan: extremumNan('max', 'maximum', 'ka < kb'),
  min_nan: extremumNan('min', 'minimum', 'kb < ka'),
  lowbias32: `fn lowbias32(x: u32) -> u32 {
  var h = x;
  h = h ^ (h >> 16u);
  h = h * 0x7feb352du;
  h = h ^ (h >> 15u);
  h = h * 0x846ca68bu;
  h = h ^ (h >> 16u);
  return h;
}`,
} as const;

/** Name of a helper function. */
export type HelperName = keyof typeof HELPERS;

/** WGSL for the helpers in `used`, in a fixed order. */
export function emitHelpers(used: ReadonlySet<HelperName>): string {
  return (Object.keys(HELPERS) as HelperName[])
    .filter((h) => used.has(h))
    .map((h) => HELPERS[h])
    .join('\n\n');
}

/**
 * erf by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7, about f32's resolution near 1), inline so that
 * `unaryF32` needs no helper: sign(x)·(1 − t·P(t)·e^(−x²)), t = 1/(1 + 0.3275911|x|).
 */
function erfF32(x: string): string {
  const t = `(1.0 / (1.0 + 0.3275911 * abs(${x})))`;
  const poly = `(0.254829592 + ${t} * (-0.284496736 + ${t} * (1.421413741 + ${t} * (-1.453152027 + ${t} * 1.061405429))))`;
  return `(sign(${x}) * (1.0 - ${t} * ${poly} * exp(-(${x} * ${x}))))`;
}

/** Whether an f32 expression is NaN, tested on its bits (a compiler may fold `x != x` to false). */
function isNanF32(x: string): string {
  return `((bitcast<u32>(${x}) & 0x7fffffffu) > 0x7f800000u)`;
}

/** A unary op on an f32 expression, as an f32 expression. */
export function unaryF32(op: UnaryOp, x: string): string {
  switch (op) {
    case 'neg':
      return `(-${x})`;
    case 'abs':
      return `abs(${x})`;
    case 'exp':
      return `exp(${x})`;
    case 'log':
      return `log(${x})`;
    case 'sqrt':
      return `sqrt(${x})`;
    case 'rsqrt':
      return `(1.0 / sqrt(${x}))`; // 1/sqrt keeps JS's +inf at 0, which inverseSqrt leaves indeterminate
    case 'recip':
      return `(1.0 / ${x})`;
    case 'square':
      return `(${x} * ${x})`;
    case 'relu':
      return reluOf(x);
    case 'sigmoid':
      return `(1.0 / (1.0 + exp(-${x})))`;
    case 'tanh':
      // tanh(x) = x in f32 for |x| < 1e-4 (keeps −0 and denormals: llvmpipe gave 3e-8 for 1e-45) and NaN (clamp made it −1)
      return `select(tanh(clamp(${x}, -10.0, 10.0)), ${x}, abs(${x}) < 1e-4 || ${isNanF32(x)})`;
    case 'sin':
      return `sin(${x})`;
    case 'cos':
      return `cos(${x})`;
    case 'erf':
      // erf(x) = 2x/√π in f32 for |x| < 1e-4 (keeps −0: sign(−0) is 0), NaN passes through
      return `select(${erfF32(x)}, select(1.1283791671 * ${x}, ${x}, ${isNanF32(x)}), abs(${x}) < 1e-4 || ${isNanF32(x)})`;
    case 'gelu':
      return `(0.5 * ${x} * (1.0 + ${erfF32(`(${x} * 0.70710678)`)}))`;
    case 'geluTanh':
      return `(0.5 * ${x} * (1.0 + tanh(clamp(0.7978845608 * (${x} + 0.044715 * ${x} * ${x} * ${x}), -10.0, 10.0))))`;
    case 'silu':
      return `(${x} / (1.0 + exp(-${x})))`;
    case 'softplus':
      return `(max(${x}, 0.0) + log(1.0 + exp(-abs(${x}))))`; // stable: never exponentiates a positive number
    default:
      return op satisfies never;
  }
}

/**
 * PyTorch's relu of an f32 (or, with `vec4`, a vec4<f32>) expression: NaN and −0 pass through. Selected as bits:
 * llvmpipe turned a float select into max(x, 0), and WGSL's max is indeterminate for NaN (NaN → 0 there).
 */
export function reluOf(x: string, vec4 = false): string {
  // negative non-zero non-NaN ⇔ bits in [0x80000001, 0xff800000]: one wrapping u32 compare
  if (!vec4) return `bitcast<f32>(select(bitcast<u32>(${x}), 0u, bitcast<u32>(${x}) - 0x80000001u < 0x7f800000u))`;
  return `bitcast<vec4<f32>>(select(bitcast<vec4<u32>>(${x}), vec4<u32>(), bitcast<vec4<u32>>(${x}) - vec4<u32>(0x80000001u) < vec4<u32>(0x7f800000u)))`;
}

const CMP: Partial<Record<BinaryOp, string>> = { gt: '>', ge: '>=', lt: '<', le: '<=', eq: '==' };

/** A comparison op as a WGSL `bool` expression, or undefined for non-comparisons. */
export function compareExpr(op: BinaryOp, a: string, b: string): string | undefined {
  const c = CMP[op];
  return c ? `(${a} ${c} ${b})` : undefined;
}

/** A binary op on f32 expressions, as an f32 expression (comparisons give 1.0/0.0). */
export function binaryF32(op: BinaryOp, a: string, b: string): string {
  return binaryOf('f32', op, a, b);
}

/** A binary op on i32 expressions, as an i32 expression (comparisons give 1/0). */
export function binaryI32(op: BinaryOp, a: string, b: string): string {
  return binaryOf('i32', op, a, b);
}

/** A binary op on expressions of type `ty`, as an expression of `ty`: only div, pow and 0/1 differ by type. */
function binaryOf(ty: 'f32' | 'i32', op: BinaryOp, a: string, b: string): string {
  switch (op) {
    case 'add':
      return `(${a} + ${b})`;
    case 'sub':
      return `(${a} - ${b})`;
    case 'mul':
      return `(${a} * ${b})`;
    case 'div':
      return ty === 'f32' ? `(${a} / ${b})` : `select(${a} / ${b}, 0i, ${b} == 0i)`;
    case 'max':
      return ty === 'f32' ? `max_nan(${a}, ${b})` : `max(${a}, ${b})`;
    case 'min':
      return ty === 'f32' ? `min_nan(${a}, ${b})` : `min(${a}, ${b})`;
    case 'pow':
      return ty === 'f32' ? `pow_ieee(${a}, ${b})` : `i32(pow_ieee(f32(${a}), f32(${b})))`;
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
    case 'eq':
      return ty === 'f32' ? `select(0.0, 1.0, ${compareExpr(op, a, b)})` : `select(0i, 1i, ${compareExpr(op, a, b)})`;
    default:
      return op satisfies never;
  }
}

/** Converts an f32 expression to the value `castScalar` gives in dtype `to`, as an f32 expression. */
export function castF32(x: string, to: DType): string {
  switch (to) {
    case 'f32':
      return x;
    case 'f16':
      return `f32(f16(${x}))`; // rounded to the nearest half, as castScalar
    case 'i32':
      return `trunc(${x})`;
    case 'bool':
      return `select(0.0, 1.0, ${x} != 0.0)`;
    default:
      return to satisfies never;
  }
}

/** Converts an expression stored as `from` to the storage value of dtype `to` (what the `cast` op writes). */
export function castStorage(x: string, from: DType, to: DType): string {
  if (from === to) return x;
  // f16 is read and written as f32 (f16Storage.ts converts at the buffer), so f16 ↔ f32 is the stored value itself
  const float = from === 'f32' || from === 'f16';
  switch (to) {
    case 'f32':
    case 'f16':
      return float ? x : `f32(${x})`;
    case 'i32':
      return float ? `i32(${x})` : x; // WGSL i32(f32) truncates toward zero (clamping out of range)
    case 'bool':
      return float ? `select(0i, 1i, ${x} != 0.0)` : `select(0i, 1i, ${x} != 0i)`;
    default:
      return to satisfies never;
  }
}

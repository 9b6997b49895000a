// IEEE binary16 on the host: rounding a number to the nearest half (as PyTorch's `.half()`), and the 16-bit
// encoding the device stores. Node 20 has no Math.f16round; this is exact for any double (no double rounding
// through f32), so the interpreter's float64 mode rounds an f16 node's value once, like the GPU's f32 → f16 store.

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** Round half to even of a non-negative number (exact for the values below: integers plus a fraction). */
function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
}

/** The exponent e with 2^e ≤ a < 2^(e+1), for a finite a > 0 (log2 corrected near powers of two). */
function exponentOf(a: number): number {
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return e;
}

/**
 * `x` rounded to the nearest f16 value: ties to even, magnitudes from 65520 up to ±Infinity, subnormals
 * (multiples of 2^-24) kept, NaN stays NaN, the sign of zero kept: torch.tensor(x).half().
 */
export function f16round(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  // 65504 is the largest half; the midpoint to the next step (65536) is 65520, which rounds to even: up
  if (a >= 65520) return x > 0 ? Infinity : -Infinity;
  // the spacing of halves around a: 2^-24 below 2^-14 (subnormals), else 2^(e-10)
  const q = 2 ** (Math.max(exponentOf(a), -14) - 10);
  const r = roundHalfEven(a / q) * q;
  return x < 0 ? -r : r;
}

/** The 16-bit encoding of `x` rounded to f16 (NaN as the quiet NaN 0x7e00). */
export function f16Bits(x: number): number {
  const r = f16round(x);
  if (Number.isNaN(r)) return 0x7e00;
  F32[0] = r; // exact: every half is a float
  const sign = (U32[0] >>> 16) & 0x8000;
  const a = Math.abs(r);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | (a / 2 ** -24); // subnormal (or zero): the count of 2^-24 steps
  const e = ((U32[0] >>> 23) & 0xff) - 127 + 15;
  return sign | (e << 10) | ((U32[0] >>> 13) & 0x3ff);
}

/** The value of a 16-bit f16 encoding. */
export function f16FromBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** Encodes values as f16 (each rounded to nearest even) into a Uint16Array. */
export function toF16Array(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = f16Bits(values[i]);
  return out;
}

/** Decodes f16 encodings into a Float32Array (exact). */
export function fromF16Array(bits: ArrayLike<number>): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = f16FromBits(bits[i]);
  return out;
}

// Host-side tensor values: the currency of the interpreter, of feeds and of readback. Data is row-major;
// float tensors use Float64Array in float64 mode and Float32Array otherwise; i32 and bool use Int32Array.
// f16 values are held as f16-rounded numbers in the float arrays (every half is exactly a float).

import { type DType, isFloat } from './dtype.js';
import { f16round } from './f16.js';
import type { Init } from './ops.js';
import { numel, type Shape } from './shape.js';

/** Typed array backing a tensor value. */
export type TensorData = Float32Array | Float64Array | Int32Array;

/** A tensor on the host. */
export interface TensorValue {
  /** Extents, outermost first. */
  readonly shape: Shape;
  /** Element type (`bool` is stored as 0/1 in an Int32Array, `f16` as f16-rounded floats). */
  readonly dtype: DType;
  /** The elements, row-major; Float64Array in the interpreter's f64 mode. */
  readonly data: TensorData;
}

/** Makes a tensor value, converting `data` to the dtype's array type (i32/bool data must be integers: no truncation). */
export function tensor(shape: Shape, data: ArrayLike<number> | TensorData, dtype: DType = 'f32'): TensorValue {
  const n = numel(shape);
  if (data.length !== n) throw new Error(`tensor: ${data.length} values for shape [${shape.join(', ')}] (${n} elements)`);
  if (!isFloat(dtype) && !(data instanceof Int32Array))
    for (let i = 0; i < n; i++) {
      const v = data[i];
      if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647)
        throw new RangeError(`tensor: value ${v} at index ${i} is not an integer representable as ${dtype}`);
    }
  const arr = isFloat(dtype) ? Float32Array.from(data as ArrayLike<number>) : Int32Array.from(data as ArrayLike<number>);
  if (dtype === 'f16') for (let i = 0; i < n; i++) arr[i] = f16round(arr[i]);
  return { shape: [...shape], dtype, data: arr };
}

/** The data of an f32 value read from a device (a Float32Array), or a TypeError naming `what` and what it holds. */
export function f32Data(v: TensorValue, what: string): Float32Array {
  if (v.data instanceof Float32Array) return v.data;
  throw new TypeError(`${what}: expected f32 data in a Float32Array, got ${v.dtype} in a ${v.data.constructor.name}`);
}

/** A deterministic PRNG (mulberry32): the same seed gives the same stream on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INIT_KINDS = ['zeros', 'ones', 'fill', 'uniform', 'normal'] as const;

/**
 * The first value of a parameter or state tensor described by `init`; `name` (the leaf's) is only for errors.
 * Throws on an unknown kind or a uniform without finite low <= high (these used to give zeros / NaN silently).
 */
export function initialValue(init: Init, shape: Shape, dtype: DType = 'f32', name = '(unnamed)'): TensorValue {
  // Init often comes from untyped JSON/JS, so check at runtime what the type promises.
  const kind = (init as { kind?: unknown } | null)?.kind;
  if (!(INIT_KINDS as readonly unknown[]).includes(kind))
    throw new Error(`parameter '${name}': unknown init kind ${JSON.stringify(kind)}; known kinds: ${INIT_KINDS.join(', ')}`);
  if (init.kind === 'uniform') {
    const { low, high } = init as { low?: unknown; high?: unknown };
    if (typeof low !== 'number' || typeof high !== 'number' || !Number.isFinite(low) || !Number.isFinite(high) || low > high)
      throw new Error(`parameter '${name}': uniform init needs finite bounds with low <= high, got low=${String(low)}, high=${String(high)}`);
  }
  const zeroRow = (init as { zeroRow?: unknown }).zeroRow;
  if (zeroRow !== undefined && !(typeof zeroRow === 'number' && Number.isInteger(zeroRow) && shape.length > 0 && zeroRow >= 0 && zeroRow < shape[0]))
    throw new Error(`parameter '${name}': init zeroRow ${String(zeroRow)} is not a row of [${shape.join(', ')}]`);
  const n = numel(shape);
  const data = isFloat(dtype) ? new Float32Array(n) : new Int32Array(n);
  switch (init.kind) {
    case 'zeros':
      break;
    case 'ones':
      data.fill(1);
      break;
    case 'fill':
      data.fill(init.value);
      break;
    case 'uniform': {
      const r = mulberry32(init.seed);
      for (let i = 0; i < n; i++) data[i] = init.low + (init.high - init.low) * r();
      break;
    }
    case 'normal': {
      const r = mulberry32(init.seed);
      for (let i = 0; i < n; i++) {
        // Box–Muller; 1 - r() keeps the log argument in (0, 1]
        const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
        data[i] = init.mean + init.std * z;
      }
      break;
    }
    default:
      init satisfies never;
  }
  if (zeroRow !== undefined) {
    const row = n / shape[0];
    data.fill(0, zeroRow * row, (zeroRow + 1) * row);
  }
  if (dtype === 'f16') for (let i = 0; i < n; i++) data[i] = f16round(data[i]);
  return { shape: [...shape], dtype, data };
}

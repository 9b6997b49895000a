// Host-side checks and conversion of values that go to the device (feeds, initial and written state): the
// shape, dtype and length must match the graph's leaf, and class labels must lie in range. Must not touch
// the GPU. Invariant: a value that fails a check throws before anything is written, naming the tensor,
// what was expected and what was given.

import { fmtShape, isFloat, type Node, numel, type TensorValue, toF16Array } from '@neura/ir';
import { InputError } from './errors.js';
import type { IndexCheck } from './compiledStep.js';

/** What a feed or state value may be: a tensor value, or a flat typed array of the right length. */
export type FeedValue = TensorValue | Float32Array | Int32Array;

/** `[4, 8] f32` for messages. */
export function fmtType(n: { readonly shape: readonly number[]; readonly dtype: string }): string {
  return `${fmtShape(n.shape)} ${n.dtype}`;
}

/** The typed array a leaf's device buffer is written from (f16 leaves as their 16-bit encodings). */
export type DeviceData = Float32Array | Int32Array | Uint16Array;

/**
 * Checks `value` against leaf `n` and returns the typed array to upload (Float64Array data → Float32Array; an f16
 * leaf takes float values, rounded to the nearest half and encoded in 16 bits).
 */
export function toDeviceData(name: string, n: Node, value: FeedValue): DeviceData {
  const data = toHostData(name, n, value);
  if (n.dtype !== 'f16') return data;
  // writeBuffer takes whole 4-byte words: an odd count of halves gets a zero half after it (the buffer has room)
  const bits = new Uint16Array(data.length + (data.length % 2));
  bits.set(toF16Array(data));
  return bits;
}

/** Checks `value` against leaf `n` and returns its data as the host holds it (floats in a Float32Array, f16 included). */
export function toHostData(name: string, n: Node, value: FeedValue): Float32Array | Int32Array {
  const want = numel(n.shape);
  if (value instanceof Float32Array || value instanceof Int32Array) {
    const got = value instanceof Float32Array ? 'f32' : 'i32';
    const ok = isFloat(n.dtype) ? got === 'f32' : got === 'i32';
    if (!ok) throw new InputError(name, `'${name}': expected ${fmtType(n)}, got a ${value.constructor.name} (${got})`);
    if (value.length !== want)
      throw new InputError(name, `'${name}': expected ${fmtType(n)} (${want} values), got ${value.length} values`);
    return value;
  }
  if (!value || typeof value !== 'object' || !('data' in value) || !('shape' in value))
    throw new InputError(name, `'${name}': expected a TensorValue, Float32Array or Int32Array for ${fmtType(n)}, got ${typeof value}`);
  const shapeOk = value.shape.length === n.shape.length && value.shape.every((d, i) => d === n.shape[i]);
  if (!shapeOk || value.dtype !== n.dtype) throw new InputError(name, `'${name}': expected ${fmtType(n)}, got ${fmtType(value)}`);
  if (value.data.length !== want)
    throw new InputError(name, `'${name}': shape ${fmtShape(n.shape)} needs ${want} values, data has ${value.data.length}`);
  if (isFloat(n.dtype)) return value.data instanceof Float32Array ? value.data : Float32Array.from(value.data);
  if (value.data instanceof Int32Array) return value.data;
  // float data for an integer leaf: refuse what Int32Array.from would truncate or wrap (NaN → 0, 2.7 → 2)
  const data = value.data;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647)
      throw new InputError(name, `'${name}': value ${v} at index ${i} is not an integer (${fmtType(n)})`);
  }
  return Int32Array.from(data);
}

/**
 * Throws an InputError unless `feeds` is an object of named feeds (not null, an array or a bare tensor):
 * `step(null)` was a bare TypeError from `Object.keys`. `expected()` lists the inputs (called only on failure).
 */
export function checkFeedsObject(feeds: unknown, expected: () => string, isInput: (name: string) => boolean = () => false): void {
  // a bare tensor has `shape` and `data`; an object feeding inputs of those names is not one
  const bareTensor = (f: object) => 'shape' in f && 'data' in f && !isInput('shape') && !isInput('data');
  const bad = feeds === null || typeof feeds !== 'object' || Array.isArray(feeds) || ArrayBuffer.isView(feeds) || bareTensor(feeds);
  if (bad) {
    const got = feeds === null ? 'null' : Array.isArray(feeds) ? 'an array' : typeof feeds === 'object' ? `a ${feeds.constructor?.name ?? 'tensor'}` : typeof feeds;
    throw new InputError('', `step expects an object of named feeds ({ name: value }), got ${got}; expected inputs: ${expected()}`);
  }
}

/** Throws a RangeError naming the input, position, value and bound if a label or index is outside [0, bound). */
export function checkLabels(name: string, check: IndexCheck, data: ArrayLike<number>): void {
  const { role, bound, what } = check;
  for (let i = 0; i < data.length; i++) {
    const l = data[i];
    if (l < 0 || l >= bound)
      throw new RangeError(`input '${name}': ${role} ${l} at ${role === 'label' ? 'index' : 'position'} ${i} is outside [0, ${bound}) (${what})`);
  }
}

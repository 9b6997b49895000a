// Element types of tensors. Kept tiny on purpose: every table keyed by dtype must cover all of them.
// `bool` is stored as 32-bit integers (0 or 1) everywhere; `f16` (IEEE half, the `shader-f16` storage type) is 2
// bytes per element on the device, and a buffer's size is rounded up to 4 bytes (WebGPU binding sizes are).

/** The element types a tensor can have. */
export type DType = 'f32' | 'f16' | 'i32' | 'bool';

/** All dtypes, for exhaustive iteration. */
export const DTYPES: readonly DType[] = ['f32', 'f16', 'i32', 'bool'];

/** Bytes per element of a dtype on the device. */
export function byteSize(dtype: DType): number {
  return dtype === 'f16' ? 2 : 4;
}

/** Bytes of a device buffer holding `count` elements of `dtype`: rounded up to a multiple of 4. */
export function bufferBytes(dtype: DType, count: number): number {
  return Math.ceil((count * byteSize(dtype)) / 4) * 4;
}

/** Whether values of this dtype are floating point. */
export function isFloat(dtype: DType): boolean {
  return dtype === 'f32' || dtype === 'f16';
}

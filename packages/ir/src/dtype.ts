// Element types of tensors. Kept tiny on purpose: every table keyed by dtype must cover all of them.
// `bool` is stored as 32-bit integers (0 or 1) everywhere, so buffers of every dtype are 4 bytes per element.

/** The element types a tensor can have. */
export type DType = 'f32' | 'i32' | 'bool';

/** All dtypes, for exhaustive iteration. */
export const DTYPES: readonly DType[] = ['f32', 'i32', 'bool'];

/** Bytes per element of a dtype on the device. */
export function byteSize(_dtype: DType): number {
  return 4;
}

/** Whether values of this dtype are floating point. */
export function isFloat(dtype: DType): boolean {
  return dtype === 'f32';
}

// Parser for the IDX format of the original MNIST files (big-endian header: magic, dims; then raw data).
// Pure: bytes in, typed arrays out; validates the header and the size so a truncated or foreign file fails
// loudly with an IdxError (never a raw RangeError from reading past the end).

/** A file that is not a well-formed IDX file of unsigned bytes (or not the one expected). */
export class IdxError extends Error {
  /** Always `'IdxError'`. */
  override readonly name = 'IdxError';
}

/** A decoded IDX file: its dimensions and raw unsigned bytes. */
export interface IdxData {
  /** Extent of each dimension, outermost first. */
  readonly dims: readonly number[];
  /** The elements, row-major. */
  readonly data: Uint8Array;
}

/** Decodes an IDX file of unsigned bytes (type code 0x08). */
export function parseIdx(bytes: Uint8Array, what = 'idx file'): IdxData {
  if (bytes.length < 4) throw new IdxError(`${what}: ${bytes.length} bytes is too short for an IDX header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0);
  const type = (magic >> 8) & 0xff;
  const rank = magic & 0xff;
  if (magic >> 16 !== 0 || type !== 0x08) throw new IdxError(`${what}: bad IDX magic 0x${magic.toString(16)} (expected unsigned bytes, 0x0000080N)`);
  if (bytes.length < 4 + 4 * rank)
    throw new IdxError(`${what}: the header declares ${rank} dims (${4 + 4 * rank} header bytes), the file has ${bytes.length} bytes`);
  const dims: number[] = [];
  for (let i = 0; i < rank; i++) dims.push(view.getUint32(4 + 4 * i));
  const offset = 4 + 4 * rank;
  const size = dims.reduce((a, b) => a * b, 1);
  if (bytes.length - offset !== size) throw new IdxError(`${what}: header says ${size} bytes of data for dims [${dims}], file has ${bytes.length - offset}`);
  return { dims, data: bytes.subarray(offset) };
}

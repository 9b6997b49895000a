// The safetensors format (Hugging Face): 8-byte little-endian header length N, N bytes of JSON
// `{ name: { dtype, shape, data_offsets: [begin, end] }, "__metadata__": { string: string } }`, then the raw
// little-endian tensor bytes (offsets relative to the end of the header). Pure bytes in / bytes out, so it
// runs in Node and in browsers. Invariant: a malformed file is rejected with a SafetensorsError naming the
// tensor and what is wrong BEFORE anything is allocated from what it declares (sizes are checked against
// the bytes actually present, so a header claiming terabytes costs nothing).

import { type DType, numel, type Shape, type TensorValue } from '@neura/ir';

/** A safetensors dtype this reader understands (floats decode to f32, integers to i32, BOOL to bool). */
export type SafetensorsDType = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

/** Bytes per element of each safetensors dtype. */
const DTYPE_BYTES: Record<SafetensorsDType, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };
/** The neura dtype a safetensors dtype decodes to. */
const DECODES_TO: Record<SafetensorsDType, DType> = { F64: 'f32', F32: 'f32', F16: 'f32', BF16: 'f32', I64: 'i32', I32: 'i32', I16: 'i32', I8: 'i32', U8: 'i32', BOOL: 'bool' };

/** Largest header this reader accepts (the reference implementation's limit is 100 MB). */
export const MAX_HEADER_BYTES = 100_000_000;

/** A file that is not valid safetensors, or a tensor that cannot be represented. */
export class SafetensorsError extends Error {
  constructor(
    message: string,
    /** The tensor the problem is about, if any. */
    readonly tensor?: string,
  ) {
    super(message);
    this.name = 'SafetensorsError';
  }
}

/** What `decodeSafetensors` returns. */
export interface SafetensorsFile {
  /** Tensors by name, decoded to neura dtypes (f32 / i32 / bool). */
  readonly tensors: Record<string, TensorValue>;
  /** The dtype each tensor had in the file. */
  readonly fileDtypes: Record<string, SafetensorsDType>;
  /** The `__metadata__` string map (empty if absent). */
  readonly metadata: Record<string, string>;
}

/** Encodes tensors (f32 → F32, i32 → I32, bool → BOOL) and string metadata as safetensors bytes. */
export function encodeSafetensors(tensors: Readonly<Record<string, TensorValue>>, metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) {
    for (const [k, v] of Object.entries(metadata))
      if (typeof v !== 'string') throw new SafetensorsError(`metadata '${k}' must be a string, got ${typeof v}`);
    header.__metadata__ = metadata;
  }
  const names = Object.keys(tensors).sort();
  let offset = 0;
  const parts: { start: number; value: TensorValue; dtype: SafetensorsDType }[] = [];
  for (const name of names) {
    if (name === '__metadata__') throw new SafetensorsError(`a tensor cannot be named '__metadata__'`, name);
    const v = tensors[name];
    const dtype: SafetensorsDType = v.dtype === 'f32' ? 'F32' : v.dtype === 'i32' ? 'I32' : 'BOOL';
    const n = numel(v.shape);
    if (v.data.length !== n) throw new SafetensorsError(`tensor '${name}': shape [${v.shape.join(', ')}] needs ${n} values, data has ${v.data.length}`, name);
    const bytes = n * DTYPE_BYTES[dtype];
    setOwn(header, name, { dtype, shape: [...v.shape], data_offsets: [offset, offset + bytes] });
    parts.push({ start: offset, value: v, dtype });
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8); // pad so the data starts 8-byte aligned (as the reference writer)
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  const base = 8 + headerBytes.length;
  for (const { start, value, dtype } of parts) {
    const at = base + start;
    const d = value.data;
    if (dtype === 'F32') for (let i = 0; i < d.length; i++) view.setFloat32(at + 4 * i, d[i], true);
    else if (dtype === 'I32') for (let i = 0; i < d.length; i++) view.setInt32(at + 4 * i, d[i], true);
    else for (let i = 0; i < d.length; i++) out[at + i] = d[i] ? 1 : 0;
  }
  return out;
}

/** Decodes safetensors bytes; every declared size and offset is checked against the bytes present first. */
export function decodeSafetensors(input: Uint8Array | ArrayBuffer): SafetensorsFile {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes.length < 8) throw new SafetensorsError(`file too short: ${bytes.length} bytes, the 8-byte header length is missing`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const declared = view.getBigUint64(0, true);
  if (declared > BigInt(bytes.length - 8))
    throw new SafetensorsError(`header length ${declared} runs past the end of the file (${bytes.length - 8} bytes after the length field)`);
  if (declared > BigInt(MAX_HEADER_BYTES)) throw new SafetensorsError(`header length ${declared} exceeds the ${MAX_HEADER_BYTES}-byte limit`);
  const headerLen = Number(declared);
  if (headerLen < 2) throw new SafetensorsError(`header length ${headerLen} is too small for a JSON object`);
  let header: unknown;
  let headerText = '';
  try {
    headerText = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen));
    header = JSON.parse(headerText);
  } catch (e) {
    throw new SafetensorsError(`header is not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw new SafetensorsError('header must be a JSON object');
  // JSON.parse keeps the last of two equal keys silently: a repeated tensor name must be an error, not a lost tensor
  const dup = duplicateTopLevelKey(headerText);
  if (dup !== undefined) throw new SafetensorsError(`tensor '${dup}' appears twice in the header`, dup);
  const dataStart = 8 + headerLen;
  const dataLen = bytes.length - dataStart;

  const metadata: Record<string, string> = {};
  const entries: { name: string; dtype: SafetensorsDType; shape: number[]; begin: number; end: number }[] = [];
  for (const [name, raw] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new SafetensorsError('__metadata__ must be an object of strings');
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
        if (typeof v !== 'string') throw new SafetensorsError(`__metadata__ '${k}' must be a string, got ${JSON.stringify(v)}`);
        setOwn(metadata, k, v);
      }
      continue;
    }
    entries.push({ name, ...checkEntry(name, raw, dataLen) });
  }
  // the reference format requires the tensors to tile the data region exactly: no overlap, no holes
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let cursor = 0;
  for (const e of sorted) {
    if (e.begin !== cursor)
      throw new SafetensorsError(
        e.begin < cursor ? `tensor '${e.name}': data [${e.begin}, ${e.end}) overlaps the previous tensor (which ends at ${cursor})` : `tensor '${e.name}': a gap of ${e.begin - cursor} bytes before its data at ${e.begin}`,
        e.name,
      );
    cursor = e.end;
  }
  if (cursor !== dataLen) throw new SafetensorsError(`the tensors cover ${cursor} bytes but the file holds ${dataLen} data bytes after the header`);

  const tensors: Record<string, TensorValue> = {};
  const fileDtypes: Record<string, SafetensorsDType> = {};
  for (const e of entries) {
    setOwn(tensors, e.name, decodeTensor(e.name, view, dataStart + e.begin, e.dtype, e.shape));
    setOwn(fileDtypes, e.name, e.dtype);
  }
  return { tensors, fileDtypes, metadata };
}

/** `obj[key] = value` as an own data property: a plain assignment to `__proto__` would set the prototype instead. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The first key that occurs twice in the top-level object of `json` (already known to be valid JSON), if any. */
function duplicateTopLevelKey(json: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      const start = i;
      for (i++; json[i] !== '"'; i++) if (json[i] === '\\') i++;
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < json.length && (json[j] === ' ' || json[j] === '\t' || json[j] === '\n' || json[j] === '\r')) j++;
      if (json[j] !== ':') continue; // a string value, not a key
      const key = JSON.parse(json.slice(start, i + 1)) as string;
      if (seen.has(key)) return key;
      seen.add(key);
    }
  }
  return undefined;
}

/** Validates one header entry against the data length; allocates nothing. */
function checkEntry(name: string, raw: unknown, dataLen: number): { dtype: SafetensorsDType; shape: number[]; begin: number; end: number } {
  if (!raw || typeof raw !== 'object') throw new SafetensorsError(`tensor '${name}': entry must be an object with dtype, shape and data_offsets`, name);
  const { dtype, shape, data_offsets: offsets } = raw as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES))
    throw new SafetensorsError(`tensor '${name}': unsupported dtype ${JSON.stringify(dtype)} (supported: ${Object.keys(DTYPE_BYTES).join(', ')})`, name);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw new SafetensorsError(`tensor '${name}': shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`, name);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0))
    throw new SafetensorsError(`tensor '${name}': data_offsets must be two non-negative integers, got ${JSON.stringify(offsets)}`, name);
  const [begin, end] = offsets as [number, number];
  if (begin > end) throw new SafetensorsError(`tensor '${name}': data_offsets [${begin}, ${end}] end before they begin`, name);
  if (end > dataLen) throw new SafetensorsError(`tensor '${name}': data_offsets [${begin}, ${end}] run past the end of the data (${dataLen} bytes)`, name);
  // the element count in floating point first: a product of huge extents must not wrap or lose precision
  const elems = (shape as number[]).reduce((a, d) => a * d, 1);
  const want = elems * DTYPE_BYTES[dtype as SafetensorsDType];
  if (want !== end - begin)
    throw new SafetensorsError(
      `tensor '${name}': shape [${(shape as number[]).join(', ')}] of ${dtype} needs ${want} bytes, data_offsets give ${end - begin}`,
      name,
    );
  return { dtype: dtype as SafetensorsDType, shape: shape as number[], begin, end };
}

/** Reads one tensor's little-endian bytes into a neura tensor value. */
function decodeTensor(name: string, view: DataView, at: number, dtype: SafetensorsDType, shape: Shape): TensorValue {
  const n = numel(shape);
  const to = DECODES_TO[dtype];
  const data = to === 'f32' ? new Float32Array(n) : new Int32Array(n);
  switch (dtype) {
    case 'F32':
      for (let i = 0; i < n; i++) data[i] = view.getFloat32(at + 4 * i, true);
      break;
    case 'F64':
      for (let i = 0; i < n; i++) data[i] = view.getFloat64(at + 8 * i, true);
      break;
    case 'F16':
      for (let i = 0; i < n; i++) data[i] = halfToFloat(view.getUint16(at + 2 * i, true));
      break;
    case 'BF16': {
      const f = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < n; i++) {
        f.setUint32(0, view.getUint16(at + 2 * i, true) << 16);
        data[i] = f.getFloat32(0);
      }
      break;
    }
    case 'I64':
      for (let i = 0; i < n; i++) {
        const v = view.getBigInt64(at + 8 * i, true);
        if (v < -2147483648n || v > 2147483647n) throw new SafetensorsError(`tensor '${name}': I64 value ${v} at index ${i} does not fit in i32`, name);
        data[i] = Number(v);
      }
      break;
    case 'I32':
      for (let i = 0; i < n; i++) data[i] = view.getInt32(at + 4 * i, true);
      break;
    case 'I16':
      for (let i = 0; i < n; i++) data[i] = view.getInt16(at + 2 * i, true);
      break;
    case 'I8':
      for (let i = 0; i < n; i++) data[i] = view.getInt8(at + i);
      break;
    case 'U8':
      for (let i = 0; i < n; i++) data[i] = view.getUint8(at + i);
      break;
    case 'BOOL':
      for (let i = 0; i < n; i++) data[i] = view.getUint8(at + i) ? 1 : 0;
      break;
    default:
      dtype satisfies never;
  }
  return { shape: [...shape], dtype: to, data };
}

/** IEEE 754 binary16 bits → number. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

// Decoding an ONNX file: protobuf bytes -> the generated `onnx-proto` message classes (no hand-written wire
// decoding), plus the helpers that read tensors, attributes and value types out of them as plain host values.
// Nothing here builds a graph; int64 data becomes JS numbers (an error if it does not fit exactly).

import type { DType, TensorValue } from '@neura/ir';
import onnxProto from 'onnx-proto';
import { OnnxImportError } from './onnxError.js';

const { onnx } = onnxProto;

/** A decoded ONNX model (the generated protobuf class). */
export type OnnxModel = onnxProto.onnx.ModelProto;
/** One node of an ONNX graph. */
export type OnnxNode = onnxProto.onnx.INodeProto;
/** One tensor of an ONNX file (an initializer or a Constant's value). */
export type OnnxTensor = onnxProto.onnx.ITensorProto;

/** ONNX TensorProto.DataType codes that the importer reads. */
export const ONNX_DTYPE = onnx.TensorProto.DataType;

/** Decodes the bytes of an .onnx file, or throws an OnnxImportError naming what is malformed. */
export function decodeOnnxModel(bytes: Uint8Array): OnnxModel {
  if (!(bytes instanceof Uint8Array)) throw new OnnxImportError(`importOnnx: expected the file's bytes as a Uint8Array, got ${typeof bytes}`);
  if (bytes.length === 0) throw new OnnxImportError('importOnnx: the file is empty');
  let model: OnnxModel;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (e) {
    // protobufjs says e.g. "index out of range: 1712 + 10 > 1700" for a truncated file
    throw new OnnxImportError(`importOnnx: malformed ONNX file (${bytes.length} bytes): protobuf decoding failed: ${(e as Error).message}`);
  }
  if (!model.graph) throw new OnnxImportError('importOnnx: malformed ONNX file: the model has no graph');
  return model;
}

/** A protobuf int64 (a number or a Long) as a JS number, exact or an error. */
export function int64(v: number | { toNumber(): number; toString(): string } | null | undefined, what: string): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  const n = v.toNumber();
  if (!Number.isSafeInteger(n)) throw new OnnxImportError(`importOnnx: ${what}: int64 value ${v.toString()} does not fit a JS number`);
  return n;
}

/** The neura dtype an ONNX element type maps to (floats → f32, integers → i32, bool → bool), or undefined. */
export function neuraDType(code: number): DType | undefined {
  const T = onnx.TensorProto.DataType;
  switch (code) {
    case T.FLOAT: case T.DOUBLE: case T.FLOAT16: case T.BFLOAT16:
      return 'f32';
    case T.INT8: case T.INT16: case T.INT32: case T.INT64: case T.UINT8: case T.UINT16: case T.UINT32: case T.UINT64:
      return 'i32';
    case T.BOOL:
      return 'bool';
    default:
      return undefined;
  }
}

/** The name of an ONNX element type code, for messages. */
export function dtypeName(code: number): string {
  return onnx.TensorProto.DataType[code] ?? `type ${code}`;
}

function f16(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : s * Number.POSITIVE_INFINITY;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** A TensorProto's values as a neura host tensor (int64 → i32 when exact, doubles → f32), or an error naming it. */
export function tensorValue(t: OnnxTensor, what: string): TensorValue {
  const T = onnx.TensorProto.DataType;
  const code = t.dataType ?? 0;
  const dtype = neuraDType(code);
  const label = `${what} '${t.name ?? ''}'`;
  if (!dtype) throw new OnnxImportError(`importOnnx: ${label} has element type ${dtypeName(code)}, which neura does not support`);
  if (t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL || (t.externalData?.length ?? 0) > 0)
    throw new OnnxImportError(`importOnnx: ${label} keeps its data in an external file, which is not supported (save the model with its weights inside)`);
  const shape = (t.dims ?? []).map((d) => int64(d, `${label} dims`));
  if (shape.some((d) => d < 0)) throw new OnnxImportError(`importOnnx: ${label} has a negative dimension [${shape}]`);
  const n = shape.reduce((a, b) => a * b, 1);
  const raw = t.rawData && t.rawData.length > 0 ? t.rawData : undefined;
  const vals: number[] = new Array(n);
  if (raw) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const width = { [T.FLOAT]: 4, [T.DOUBLE]: 8, [T.FLOAT16]: 2, [T.BFLOAT16]: 2, [T.INT8]: 1, [T.UINT8]: 1, [T.INT16]: 2, [T.UINT16]: 2, [T.INT32]: 4, [T.UINT32]: 4, [T.INT64]: 8, [T.UINT64]: 8, [T.BOOL]: 1 }[code] as number;
    if (raw.length !== n * width)
      throw new OnnxImportError(`importOnnx: ${label}: raw data has ${raw.length} bytes, expected ${n * width} for shape [${shape}] of ${dtypeName(code)}`);
    for (let i = 0; i < n; i++) {
      const o = i * width;
      switch (code) {
        case T.FLOAT: vals[i] = view.getFloat32(o, true); break;
        case T.DOUBLE: vals[i] = view.getFloat64(o, true); break;
        case T.FLOAT16: vals[i] = f16(view.getUint16(o, true)); break;
        case T.BFLOAT16: vals[i] = new Float32Array(new Uint32Array([view.getUint16(o, true) << 16]).buffer)[0]; break;
        case T.INT8: vals[i] = view.getInt8(o); break;
        case T.UINT8: case T.BOOL: vals[i] = view.getUint8(o); break;
        case T.INT16: vals[i] = view.getInt16(o, true); break;
        case T.UINT16: vals[i] = view.getUint16(o, true); break;
        case T.INT32: vals[i] = view.getInt32(o, true); break;
        case T.UINT32: vals[i] = view.getUint32(o, true); break;
        default: vals[i] = Number(code === T.INT64 ? view.getBigInt64(o, true) : view.getBigUint64(o, true));
      }
    }
  } else {
    const src: ArrayLike<unknown> =
      code === T.FLOAT ? (t.floatData ?? [])
      : code === T.DOUBLE ? (t.doubleData ?? [])
      : code === T.INT64 ? (t.int64Data ?? [])
      : code === T.UINT64 || code === T.UINT32 ? (t.uint64Data ?? [])
      : (t.int32Data ?? []);
    if (src.length !== n) throw new OnnxImportError(`importOnnx: ${label} holds ${src.length} values, expected ${n} for shape [${shape}]`);
    for (let i = 0; i < n; i++) {
      const v = src[i] as number;
      vals[i] = code === T.FLOAT16 ? f16(v) : code === T.BFLOAT16 ? new Float32Array(new Uint32Array([v << 16]).buffer)[0] : int64(v as never, label);
    }
  }
  if (dtype === 'f32') return { shape, dtype, data: Float32Array.from(vals) };
  // int64 sentinels (INT64_MAX as "to the end" in Slice) are clamped: they only ever mean "past the edge"
  const clamped = vals.map((v) => Math.min(2147483647, Math.max(-2147483648, v)));
  return { shape, dtype, data: Int32Array.from(clamped) };
}

/** An attribute's value by name (ints/floats/strings/tensor), undefined if absent. */
export function attribute(node: OnnxNode, name: string): number | number[] | string | TensorValue | undefined {
  const a = node.attribute?.find((x) => x.name === name);
  if (!a) return undefined;
  const A = onnx.AttributeProto.AttributeType;
  const what = `attribute '${name}' of node '${node.name ?? ''}'`;
  switch (a.type) {
    case A.FLOAT: return a.f ?? 0;
    case A.INT: return int64(a.i, what);
    case A.STRING: return new TextDecoder().decode(a.s ?? new Uint8Array());
    case A.FLOATS: return [...(a.floats ?? [])];
    case A.INTS: return (a.ints ?? []).map((v) => int64(v, what));
    case A.TENSOR: return tensorValue(a.t ?? {}, what);
    default: throw new OnnxImportError(`importOnnx: ${what} has attribute type ${A[a.type ?? 0] ?? a.type}, which is not supported`);
  }
}

/** A value-info's element type and shape: dims as numbers, or the symbolic name (string) of a dynamic dim. */
export function valueType(v: onnxProto.onnx.IValueInfoProto): { elemType: number; dims: (number | string)[] | undefined } {
  const tt = v.type?.tensorType;
  if (!tt) throw new OnnxImportError(`importOnnx: graph value '${v.name}' is not a tensor (sequences, maps and optionals are not supported)`);
  const dims = tt.shape ? (tt.shape.dim ?? []).map((d) => (d.dimValue !== undefined && d.dimValue !== null && !d.dimParam ? int64(d.dimValue, `'${v.name}' shape`) : d.dimParam || '?')) : undefined;
  return { elemType: tt.elemType ?? 0, dims };
}

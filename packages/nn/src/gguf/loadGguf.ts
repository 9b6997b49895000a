// Loading a GGUF file (llama.cpp's format) into a neura Llama and its state values. The header (metadata and tensor
// infos) is parsed by @huggingface/gguf (imported when a file is read: its browser build carries @huggingface/tasks,
// ~40 KB gzipped, that @neura/nn/gguf's initial bundle need not load), served from the bytes given (an in-memory file or a Blob, read by ranges: a
// File's tensors are read one at a time, never the whole file at once); tensor data is decoded here. F32 and F16
// tensors become f32 values; Q8_0 and Q4_0 Linear weights stay packed as the state leaves of `weights: 'q8_0' |
// 'q4_0'` (quantNames) when that is the format asked for, else are dequantized; any other GGML type is an error
// naming the tensor. Values come out under the names and layouts fromPretrained gives for the same weights.

import { f16FromBits, fmtShape, q4FromGguf, q4Value, q8FromGguf, q8Scale, q8Value, type TensorValue } from '@neura/ir';
import { importTorchStateDict, linearWeights, TorchImportError } from '../checkpoint/torchImport.js';
import type { Llama } from '../models/llama.js';
import { type QuantFormat, quantNames, type WeightFormat } from '../quantizeWeights.js';
import { GgufError } from './ggufError.js';
import { type GgufMetadata, hfNameOf, hfRowOrder, llamaFromGguf, permutedHeads } from './ggufLlama.js';

/** A GGUF file: its bytes in memory, or a Blob / File read by ranges. */
export type GgufSource = Uint8Array | ArrayBuffer | Blob;

/** How `loadGguf` returns the weights. */
export interface GgufLoadOptions {
  /**
   * The `weights` format the model will be compiled with. Linear weights stored in that format stay packed (its
   * `quantNames` leaves, loaded as they are: no requantization); every other tensor is an f32 value (a Linear weight in
   * another quantized format is dequantized, and `compileInference` quantizes it to the session's format as it loads
   * it). Default: the format of the file's Linear weights when all are Q8_0 or all Q4_0, else `'f32'`.
   */
  readonly weights?: WeightFormat;
}

/** One tensor of a GGUF file as its header describes it. */
export interface GgufTensor {
  /** Its GGUF name (`blk.0.attn_q.weight`). */
  readonly name: string;
  /** GGUF's extents, innermost first (ggml's ne: a weight of N rows of K is [K, N]). */
  readonly shape: readonly number[];
  /** The GGML type's name (F32, F16, Q8_0, Q4_0, Q6_K, …). */
  readonly type: string;
}

/** A loaded GGUF model: the neura Llama, its values by neura name, and what the file said. */
export interface GgufModel {
  /** The Llama the metadata describes. */
  readonly model: Llama;
  /** Its state by neura name: f32 values, and the packed leaves of Linear weights kept quantized. */
  readonly values: Record<string, TensorValue>;
  /** The format to compile with (`compileGenerator(model, { weights })`) so that `values` load as they are. */
  readonly weights: WeightFormat;
  /** The file's metadata (tokenizer arrays included). */
  readonly metadata: GgufMetadata;
  /** Every tensor of the file, in file order. */
  readonly tensors: readonly GgufTensor[];
}

/** GGML type ids (ggml.h `enum ggml_type`; the values of @huggingface/gguf's GGMLQuantizationType) and their names. */
const GGML_TYPES: Readonly<Record<number, string>> = { ...['F32', 'F16', 'Q4_0', 'Q4_1', 'Q4_2', 'Q4_3', 'Q5_0', 'Q5_1', 'Q8_0', 'Q8_1', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K', 'Q8_K', 'IQ2_XXS', 'IQ2_XS', 'IQ3_XXS', 'IQ1_S', 'IQ4_NL', 'IQ3_S', 'IQ2_S', 'IQ4_XS', 'I8', 'I16', 'I32', 'I64', 'F64', 'IQ1_M', 'BF16'], 34: 'TQ1_0', 35: 'TQ2_0', 39: 'MXFP4' };
const F32 = 0;
const F16 = 1;
const QUANT: Partial<Record<number, QuantFormat>> = { 8: 'q8_0', 2: 'q4_0' };
const BLOCK_BYTES: Record<QuantFormat, number> = { q8_0: 34, q4_0: 18 };

/** Reads byte ranges of the source. */
function rangeReader(source: GgufSource): { size: number; read: (start: number, end: number) => Promise<Uint8Array> } {
  if (source instanceof Blob) return { size: source.size, read: async (a, b) => new Uint8Array(await source.slice(a, b).arrayBuffer()) };
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
  return { size: bytes.length, read: async (a, b) => bytes.subarray(a, Math.min(b, bytes.length)) };
}

/** The header of a GGUF source, parsed by @huggingface/gguf through a fetch that serves the source's ranges. */
async function readHeader(reader: ReturnType<typeof rangeReader>) {
  const fetchRange = async (_url: unknown, init?: { headers?: Record<string, string> }) => {
    const m = /bytes=(\d+)-(\d+)/.exec(init?.headers?.Range ?? '');
    const [a, b] = m ? [Number(m[1]), Number(m[2]) + 1] : [0, reader.size];
    const body = new Uint8Array(await reader.read(a, b));
    return new Response(body, { status: 206, headers: { 'content-range': `bytes ${a}-${a + body.length - 1}/${reader.size}` } });
  };
  try {
    // the URL is never fetched: the fetch above serves every range from the source (a .invalid host cannot resolve)
    const { gguf } = await import('@huggingface/gguf');
    return await gguf('https://gguf.invalid/model.gguf', { fetch: fetchRange as typeof fetch });
  } catch (e) {
    throw new GgufError(`not a readable GGUF file: ${(e as Error).message}`);
  }
}

/** f32 rows [N, K] of a tensor's data in `type` (F32, F16, or a block format, dequantized). */
function floatRows(name: string, type: number, bytes: Uint8Array, n: number, k: number): Float32Array {
  const own = new Uint8Array(bytes); // an aligned copy (a Node Buffer's slice() would be a view)
  if (type === F32) return new Float32Array(own.buffer, 0, n * k);
  if (type === F16) return Float32Array.from(new Uint16Array(own.buffer, 0, n * k), f16FromBits);
  const format = QUANT[type];
  if (!format) throw new GgufError(`tensor '${name}' has GGML type ${typeName(type)}, which neura does not read (F32, F16, Q8_0 and Q4_0 only)`, name);
  const { q, d } = packedOf(name, format, own, n, k);
  const words = q.shape[1];
  const dWords = d.shape[1];
  const out = new Float32Array(n * k);
  const value = format === 'q8_0' ? q8Value : q4Value;
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) out[r * k + j] = q8Scale(d.data, dWords, r, j >> 5) * value(q.data, words, r, j);
  return out;
}

/** A block tensor's bytes as the packed weight of `format`. */
function packedOf(name: string, format: QuantFormat, bytes: Uint8Array, n: number, k: number) {
  try {
    return format === 'q8_0' ? q8FromGguf(bytes, n, k) : q4FromGguf(bytes, n, k);
  } catch (e) {
    throw new GgufError(`tensor '${name}': ${(e as Error).message}`, name);
  }
}

/** Rows of `data` (`width` per row) taken in `order`. */
function reorderRows<T extends Float32Array | Int32Array>(data: T, width: number, order: Int32Array): T {
  const out = new (data.constructor as new (n: number) => T)(data.length);
  for (let r = 0; r < order.length; r++) out.set(data.subarray(order[r] * width, (order[r] + 1) * width), r * width);
  return out;
}

const typeName = (type: number) => GGML_TYPES[type] ?? `type ${type}`;

/** Bytes of a tensor of `count` elements in `type` (F32, F16, Q8_0, Q4_0), or undefined for another type. */
function dataBytes(type: number, count: number): number | undefined {
  if (type === F32) return count * 4;
  if (type === F16) return count * 2;
  const format = QUANT[type];
  return format ? (count / 32) * BLOCK_BYTES[format] : undefined;
}

/**
 * Reads a GGUF LLaMA file: the Llama its metadata describes and its weights by neura name (see the file header and
 * `GgufLoadOptions`). attn_q / attn_k rows are put back in Hugging Face's order, so the values and the logits are those
 * `fromPretrained` gives for the same weights in safetensors.
 *
 * ```ts
 * const { model, values, weights } = await loadGguf(await openAsBlob('model-q4_0.gguf'));
 * const gen = await compileGenerator(model, { device, maxLen: 256, weights });
 * await gen.loadStateDict(values);
 * ```
 */
export async function loadGguf(source: GgufSource, opts: GgufLoadOptions = {}): Promise<GgufModel> {
  const reader = rangeReader(source);
  const header = await readHeader(reader);
  if (!header.littleEndian) throw new GgufError('big-endian GGUF files are not supported');
  const metadata = header.metadata as unknown as GgufMetadata;
  const infos = header.tensorInfos.map((t) => ({ name: t.name, shape: t.shape.map(Number), type: Number(t.dtype), offset: Number(header.tensorDataOffset + t.offset) }));
  const tensors: GgufTensor[] = infos.map((t) => ({ name: t.name, shape: t.shape, type: typeName(t.type) }));
  for (const t of infos) if (dataBytes(t.type, 1) === undefined) throw new GgufError(`tensor '${t.name}' has GGML type ${typeName(t.type)}, which neura does not read (F32, F16, Q8_0 and Q4_0 only)`, t.name);
  const embd = infos.find((t) => t.name === 'token_embd.weight');
  if (embd?.shape.length !== 2) throw new GgufError("the file has no 2-D tensor 'token_embd.weight'", 'token_embd.weight');
  const model = llamaFromGguf(metadata, { vocab: embd.shape[1], tiedHead: !infos.some((t) => t.name === 'output.weight') });
  const config = model.config;
  const linears = linearWeights(model);

  // the format kept packed: the one asked for, or the file's when every Linear weight shares it
  const linearTypes = new Set(infos.filter((t) => linears.has(hfNameOf(t.name) ?? '')).map((t) => QUANT[t.type]));
  const fileFormat = linearTypes.size === 1 ? [...linearTypes][0] : undefined;
  const weights: WeightFormat = opts.weights ?? fileFormat ?? 'f32';

  const torch: Record<string, TensorValue> = {};
  const packed: Record<string, TensorValue> = {};
  const spec = model.stateDictSpec();
  for (const t of infos) {
    const name = hfNameOf(t.name);
    if (name === undefined) throw new GgufError(`tensor '${t.name}' ${fmtShape(t.shape)} has no counterpart in neura's Llama`, t.name);
    // ggml's ne is innermost first: [K] or [K, N] for N rows of K
    const [k, n] = t.shape.length === 1 ? [t.shape[0], 1] : t.shape;
    if (t.shape.length > 2) throw new GgufError(`tensor '${t.name}' ${fmtShape(t.shape)} is not 1-D or 2-D`, t.name);
    const count = k * n;
    const size = dataBytes(t.type, count);
    if (size === undefined || !Number.isInteger(size)) throw new GgufError(`tensor '${t.name}' of ${typeName(t.type)} has ${k} values per row, not whole blocks of 32`, t.name);
    if (t.offset + size > reader.size) throw new GgufError(`tensor '${t.name}' runs past the end of the file (${t.offset + size} > ${reader.size} bytes)`, t.name);
    const bytes = await reader.read(t.offset, t.offset + size);
    const heads = permutedHeads(t.name, config);
    const order = heads > 0 ? hfRowOrder(n, heads) : undefined;
    const format = QUANT[t.type];
    if (format !== undefined && format === weights && linears.has(name)) {
      // kept packed: rows are output columns, as matmulQ8 / matmulQ4 read them; the model's weight is [K, N]
      const want = spec.get(name)?.shape;
      if (!want || want[0] !== k || want[1] !== n) throw new GgufError(`tensor '${t.name}' ${fmtShape(t.shape)} → '${name}' is [${k}, ${n}] (K, N), the model expects ${fmtShape(want ?? [])}`, t.name);
      const { q, d } = packedOf(t.name, format, bytes, n, k);
      const names = quantNames(name, format);
      packed[names.qs] = order ? { ...q, data: reorderRows(q.data as Int32Array, q.shape[1], order) } : q;
      packed[names.d] = order ? { ...d, data: reorderRows(d.data as Int32Array, d.shape[1], order) } : d;
      continue;
    }
    const rows = floatRows(t.name, t.type, bytes, n, k);
    torch[name] = { shape: t.shape.length === 1 ? [k] : [n, k], dtype: 'f32', data: order ? reorderRows(rows, k, order) : rows };
  }
  // torch layout → neura's (Linears transposed), every tensor checked against the model; the packed ones fill the rest
  const packedNames = new Set(Object.keys(packed).map((p) => p.replace(/\.q[48]_0\.(qs|d)$/, '')));
  let values: Record<string, TensorValue>;
  try {
    values = importTorchStateDict(torch, model, { ...model.torchImportOptions(), partial: packedNames.size > 0 });
  } catch (e) {
    if (!(e instanceof TorchImportError)) throw e;
    throw new GgufError(`the file's tensors do not fit the model its metadata describes (by their Hugging Face names): ${e.problems.join('; ')}`);
  }
  for (const name of spec.keys()) if (!(name in values) && !packedNames.has(name)) throw new GgufError(`the model's '${name}' is not in the file`, name);
  return { model, values: { ...values, ...packed }, weights, metadata, tensors };
}

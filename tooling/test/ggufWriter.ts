// Test helper: writes a GGUF file (version 3, little-endian, 32-byte alignment) from metadata and tensors given as
// raw bytes, so tests can build the small files they read (nothing can be downloaded). Follows ggml's gguf.md:
// header (magic, version, tensor and key counts), key/value pairs, tensor infos (name, dims innermost first, type,
// offset into the data), padding, then the data with each tensor aligned. No validation: tests write bad files too.

/** GGML tensor type ids (ggml.h `enum ggml_type`). */
export const GGML = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 8, Q6_K: 14, BF16: 30 } as const;

/** A metadata value: its GGUF value type and value (arrays: of strings or u32 only). */
export type GgufKv = { type: 'u32' | 'f32' | 'string' | 'bool'; value: number | string | boolean } | { type: 'string[]'; value: string[] };

/** A tensor to write: GGUF dims (innermost first: [K, N] for N rows of K), GGML type and its bytes. */
export interface GgufTensorData {
  readonly name: string;
  readonly shape: readonly number[];
  readonly type: number;
  readonly data: Uint8Array;
}

const ALIGN = 32;

/** The bytes of a GGUF file holding `kv` and `tensors` (in order). */
export function writeGguf(kv: Readonly<Record<string, GgufKv>>, tensors: readonly GgufTensorData[]): Uint8Array {
  const parts: number[] = [];
  const u8 = (v: number) => parts.push(v & 0xff);
  const u32 = (v: number) => {
    for (let i = 0; i < 4; i++) u8(v >>> (8 * i));
  };
  const u64 = (v: number) => {
    u32(v % 2 ** 32);
    u32(Math.floor(v / 2 ** 32));
  };
  const f32 = (v: number) => {
    for (const b of new Uint8Array(new Float32Array([v]).buffer)) u8(b);
  };
  const str = (s: string) => {
    const b = new TextEncoder().encode(s);
    u64(b.length);
    for (const x of b) u8(x);
  };
  u32(0x46554747); // "GGUF"
  u32(3);
  u64(tensors.length);
  u64(Object.keys(kv).length);
  for (const [key, v] of Object.entries(kv)) {
    str(key);
    if (v.type === 'u32') {
      u32(4);
      u32(v.value as number);
    } else if (v.type === 'f32') {
      u32(6);
      f32(v.value as number);
    } else if (v.type === 'bool') {
      u32(7);
      u8(v.value ? 1 : 0);
    } else if (v.type === 'string') {
      u32(8);
      str(v.value as string);
    } else {
      u32(9);
      u32(8);
      const list = v.value as string[];
      u64(list.length);
      for (const s of list) str(s);
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    str(t.name);
    u32(t.shape.length);
    for (const d of t.shape) u64(d);
    u32(t.type);
    u64(offset);
    offsets.push(offset);
    offset = Math.ceil((offset + t.data.length) / ALIGN) * ALIGN;
  }
  while (parts.length % ALIGN) u8(0);
  const start = parts.length;
  const out = new Uint8Array(start + offset);
  out.set(parts);
  for (const [i, t] of tensors.entries()) out.set(t.data, start + offsets[i]);
  return out;
}

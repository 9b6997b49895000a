// safetensors encoding/decoding: round trips, files written by Python (every dtype), and malformed files
// that must fail with a clear SafetensorsError without allocating what their header claims.

import { readFileSync } from 'node:fs';
import { tensor } from '@neura/ir';
import { decodeSafetensors, encodeSafetensors, SafetensorsError } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const fixture = (name: string) => readFileSync(new URL(`../../../tooling/fixtures/safetensors/${name}`, import.meta.url));

/** A file with this header object and `data` bytes after it. */
function file(header: unknown, data: Uint8Array = new Uint8Array(0), lengthOverride?: bigint): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, lengthOverride ?? BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

describe('safetensors', () => {
  it('round-trips f32, i32 and bool tensors with metadata', () => {
    const tensors = {
      'a.weight': tensor([2, 3], [1, -2.5, 3e-8, 4, 5, 1e30]),
      ids: tensor([3], [0, -7, 2147483647], 'i32'),
      flags: tensor([2], [1, 0], 'bool'),
    };
    const bytes = encodeSafetensors(tensors, { note: 'hi' });
    const headerLen = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLen) % 8).toBe(0);
    const back = decodeSafetensors(bytes.buffer as ArrayBuffer);
    expect(back.metadata).toEqual({ note: 'hi' });
    expect(back.fileDtypes).toEqual({ 'a.weight': 'F32', ids: 'I32', flags: 'BOOL' });
    for (const [name, v] of Object.entries(tensors)) {
      expect(back.tensors[name].shape).toEqual(v.shape);
      expect(back.tensors[name].dtype).toBe(v.dtype);
      expect(Array.from(back.tensors[name].data)).toEqual(Array.from(v.data));
    }
  });

  it('reads every dtype of a file written by Python', () => {
    const f = decodeSafetensors(fixture('dtypes.safetensors'));
    const expected = JSON.parse(f.metadata.expected) as Record<string, number[]>;
    expect(Object.keys(f.tensors).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, values] of Object.entries(expected)) expect(Array.from(f.tensors[name].data), name).toEqual(f.tensors[name].dtype === 'f32' ? values.map((v) => Math.fround(v)) : values);
    expect(f.tensors.f16.shape).toEqual([2, 2]);
    expect(f.tensors.i64.dtype).toBe('i32');
    expect(f.tensors.bool.dtype).toBe('bool');
    expect(f.tensors.empty.shape).toEqual([0, 3]);
  });

  const malformed: [string, Uint8Array, RegExp][] = [
    ['a file shorter than the length field', new Uint8Array(5), /too short/],
    ['a header length past the end', file({}, new Uint8Array(0), 1000n), /header length 1000 runs past the end/],
    ['a header length of 2⁶⁴ − 1', file({}, new Uint8Array(0), 0xffffffffffffffffn), /runs past the end/],
    ['a header that is not JSON', (() => { const b = file({ a: 1 }); b[8] = 0x7b; b[9] = 0x7b; return b; })(), /not valid UTF-8 JSON/],
    ['a header that is an array', file([1, 2]), /must be a JSON object/],
    ['an unknown dtype', file({ t: { dtype: 'F8_E4M3', shape: [1], data_offsets: [0, 1] } }, new Uint8Array(1)), /tensor 't': unsupported dtype "F8_E4M3"/],
    ['offsets past the end of the data', file({ t: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, new Uint8Array(8)), /tensor 't': data_offsets \[0, 16\] run past the end of the data \(8 bytes\)/],
    ['a huge declared shape', file({ t: { dtype: 'F32', shape: [1e9, 1e9], data_offsets: [0, 8] } }, new Uint8Array(8)), /shape \[1000000000, 1000000000\] of F32 needs 4000000000000000000 bytes, data_offsets give 8/],
    ['a shape that disagrees with its byte span', file({ t: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8)), /needs 12 bytes, data_offsets give 8/],
    ['negative extents', file({ t: { dtype: 'F32', shape: [-2], data_offsets: [0, 8] } }, new Uint8Array(8)), /shape must be an array of non-negative integers/],
    ['reversed offsets', file({ t: { dtype: 'U8', shape: [0], data_offsets: [4, 2] } }, new Uint8Array(4)), /end before they begin/],
    [
      'overlapping tensors',
      file({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, new Uint8Array(8)),
      /overlaps the previous tensor/,
    ],
    ['trailing bytes no tensor covers', file({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, new Uint8Array(8)), /cover 4 bytes but the file holds 8/],
    ['non-string metadata', file({ __metadata__: { step: 3 } }), /__metadata__ 'step' must be a string/],
  ];
  for (const [what, bytes, message] of malformed)
    it(`rejects ${what} with a SafetensorsError`, () => {
      expect(() => decodeSafetensors(bytes)).toThrowError(SafetensorsError);
      expect(() => decodeSafetensors(bytes)).toThrowError(message);
    });

  it('rejects an I64 value that does not fit in i32', () => {
    const data = new Uint8Array(8);
    new DataView(data.buffer).setBigInt64(0, 1n << 40n, true);
    expect(() => decodeSafetensors(file({ big: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, data))).toThrowError(/I64 value 1099511627776 at index 0 does not fit in i32/);
  });

  it("keeps a tensor named '__proto__' as an ordinary tensor", () => {
    const t = tensor([1], [7]);
    const input: Record<string, typeof t> = { b: tensor([1], [2]) };
    Object.defineProperty(input, '__proto__', { value: t, enumerable: true }); // an own property, as JSON.parse makes
    const back = decodeSafetensors(encodeSafetensors(input));
    expect(Object.keys(back.tensors).sort()).toEqual(['__proto__', 'b']);
    expect(Object.getOwnPropertyDescriptor(back.tensors, '__proto__')?.value.data).toEqual(new Float32Array([7]));
    expect(Object.getPrototypeOf(back.tensors)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(back.fileDtypes, '__proto__')?.value).toBe('F32');
  });

  it('rejects a header that names one tensor twice', () => {
    const f32 = new Uint8Array(new Float32Array([1]).buffer);
    const json = '{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}, "w" :{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"__metadata__":{"w":"x"}}';
    const h = new TextEncoder().encode(json);
    const bytes = new Uint8Array(8 + h.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(h.length), true);
    bytes.set(h, 8);
    bytes.set(f32, 8 + h.length);
    expect(() => decodeSafetensors(bytes)).toThrow(SafetensorsError);
    expect(() => decodeSafetensors(bytes)).toThrow(/tensor 'w' appears twice/);
    // a name repeated only inside a value (a metadata key) is no duplicate
    const ok = file({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] }, __metadata__: { w: 'w' } }, f32);
    expect(decodeSafetensors(ok).metadata).toEqual({ w: 'w' });
  });
});

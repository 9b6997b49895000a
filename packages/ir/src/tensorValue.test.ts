import { describe, expect, it } from 'vitest';
import { f32Data, initialValue, tensor } from './tensorValue.js';

describe('f32Data', () => {
  it('returns the Float32Array of an f32 value itself, and names the value and what it holds otherwise', () => {
    const v = tensor([2], [1.5, -2]);
    expect(f32Data(v, 'logits')).toBe(v.data);
    expect(() => f32Data(tensor([2], [1, 2], 'i32'), 'logits')).toThrow(new TypeError('logits: expected f32 data in a Float32Array, got i32 in a Int32Array'));
    expect(() => f32Data({ shape: [1], dtype: 'f32', data: new Float64Array(1) }, 'x')).toThrow(/x: expected f32 data in a Float32Array, got f32 in a Float64Array/);
  });
});

describe('initialValue with zeroRow', () => {
  it('zeroes that row after the fill (nn.Embedding padding_idx) and rejects a row the shape lacks', () => {
    const plain = initialValue({ kind: 'normal', mean: 0, std: 1, seed: 7 }, [4, 3]);
    const v = initialValue({ kind: 'normal', mean: 0, std: 1, seed: 7, zeroRow: 2 }, [4, 3]);
    expect(Array.from(v.data.slice(6, 9))).toEqual([0, 0, 0]);
    expect(Array.from(v.data.slice(0, 6))).toEqual(Array.from(plain.data.slice(0, 6)));
    expect(Array.from(v.data.slice(9))).toEqual(Array.from(plain.data.slice(9)));
    expect(() => initialValue({ kind: 'ones', zeroRow: 4 }, [4, 3], 'f32', 'emb.weight')).toThrow(/parameter 'emb.weight': init zeroRow 4 is not a row of \[4, 3\]/);
  });
});

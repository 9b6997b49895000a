import { describe, expect, it } from 'vitest';
import { f32Data, tensor } from './tensorValue.js';

describe('f32Data', () => {
  it('returns the Float32Array of an f32 value itself, and names the value and what it holds otherwise', () => {
    const v = tensor([2], [1.5, -2]);
    expect(f32Data(v, 'logits')).toBe(v.data);
    expect(() => f32Data(tensor([2], [1, 2], 'i32'), 'logits')).toThrow(new TypeError('logits: expected f32 data in a Float32Array, got i32 in a Int32Array'));
    expect(() => f32Data({ shape: [1], dtype: 'f32', data: new Float64Array(1) }, 'x')).toThrow(/x: expected f32 data in a Float32Array, got f32 in a Float64Array/);
  });
});

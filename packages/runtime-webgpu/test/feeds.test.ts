// checkFeedsObject: what Session.step checks before reading feeds by name (no device needed).
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { checkFeedsObject } from '../src/feeds.js';

describe('checkFeedsObject', () => {
  const expected = () => 'x f32[2,3], y i32[2]';
  // step(null) used to be a bare TypeError from Object.keys.
  it('rejects null, arrays, bare tensors and primitives with an InputError naming the expected inputs', () => {
    for (const bad of [null, undefined, 3, 'x', [new Float32Array(6)], new Float32Array(6), { shape: [2, 3], dtype: 'f32', data: new Float32Array(6) }]) {
      expect(() => checkFeedsObject(bad, expected)).toThrow(InputError);
      expect(() => checkFeedsObject(bad, expected)).toThrow(/step expects an object of named feeds.*expected inputs: x f32\[2,3\], y i32\[2\]/);
    }
    expect(() => checkFeedsObject(null, expected)).toThrow(/got null/);
  });

  it('accepts an object of named feeds', () => {
    expect(() => checkFeedsObject({ x: new Float32Array(6), y: new Int32Array(2) }, expected)).not.toThrow();
    expect(() => checkFeedsObject({}, expected)).not.toThrow();
    // inputs named `shape` and `data` are feeds, not a bare tensor
    const feeds = { shape: new Float32Array(2), data: new Float32Array(3) };
    expect(() => checkFeedsObject(feeds, expected, (n) => n === 'shape' || n === 'data')).not.toThrow();
  });
});

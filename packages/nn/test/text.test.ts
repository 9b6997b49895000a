// Character-level text data: the tokenizer round-trips text over a sorted vocabulary and names unknown
// characters; random windows pair each token with the next one and are reproducible from a seed.

import { CharTokenizer, randomWindows, Rng } from '@neura/nn';
import { describe, expect, it } from 'vitest';

describe('CharTokenizer and randomWindows', () => {
  it('round-trips text and rejects characters outside the vocabulary', () => {
    const tok = CharTokenizer.fromText('hello, world — “quoted”');
    expect(tok.chars[0]).toBe(' ');
    expect(tok.size).toBe(new Set('hello, world — “quoted”').size);
    expect(tok.decode(tok.encode('world — hello'))).toBe('world — hello');
    expect(() => tok.encode('hex')).toThrow(/character "x" at 2 is not in the vocabulary/);
    expect(() => tok.decode([99])).toThrow(/id 99 is outside/);
  });

  it('draws windows whose targets are the next tokens, reproducibly', () => {
    const data = Int32Array.from({ length: 100 }, (_, i) => i);
    const a = randomWindows(data, 3, 5, new Rng(4));
    for (let b = 0; b < 3; b++)
      for (let t = 0; t < 5; t++) {
        expect(a.targets[b * 5 + t]).toBe(a.tokens[b * 5 + t] + 1);
        if (t > 0) expect(a.tokens[b * 5 + t]).toBe(a.tokens[b * 5 + t - 1] + 1);
      }
    expect(Array.from(randomWindows(data, 3, 5, new Rng(4)).tokens)).toEqual(Array.from(a.tokens));
    expect(() => randomWindows(data.subarray(0, 5), 1, 5, new Rng(1))).toThrow(/too few/);
  });
});

// Sampling the next token: greedy at temperature 0, top-k and top-p keep only the most likely tokens, a seed
// reproduces a draw sequence, and frequencies follow the softmax.

import { argmax, Rng, sampleToken } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const logits = [1.0, 3.0, 2.5, -1.0, 0.0];
const draw = (n: number, opts: Parameters<typeof sampleToken>[1], seed = 1) => {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => sampleToken(logits, opts, rng));
};

describe('sampleToken', () => {
  it('is greedy at temperature 0 and with topK 1', () => {
    expect(argmax(logits)).toBe(1);
    expect(new Set(draw(50, { temperature: 0 }))).toEqual(new Set([1]));
    expect(new Set(draw(50, { topK: 1 }))).toEqual(new Set([1]));
  });

  it('keeps only the top-k tokens, or the nucleus of probability topP', () => {
    expect(new Set(draw(400, { topK: 2 }))).toEqual(new Set([1, 2]));
    // softmax(logits): p(1) ≈ 0.52, p(2) ≈ 0.32, so topP 0.5 keeps token 1 alone and 0.6 keeps two
    expect(new Set(draw(200, { topP: 0.5 }))).toEqual(new Set([1]));
    expect(new Set(draw(400, { topP: 0.6 }))).toEqual(new Set([1, 2]));
  });

  it('reproduces a sequence from a seed, and differs with another seed', () => {
    expect(draw(30, { temperature: 0.8 }, 7)).toEqual(draw(30, { temperature: 0.8 }, 7));
    expect(draw(30, { temperature: 0.8 }, 7)).not.toEqual(draw(30, { temperature: 0.8 }, 8));
  });

  it('draws with the softmax frequencies (temperature 1)', () => {
    const n = 20000;
    const counts = new Array(logits.length).fill(0);
    for (const t of draw(n, {})) counts[t]++;
    const z = logits.reduce((s, l) => s + Math.exp(l), 0);
    for (const [i, l] of logits.entries()) expect(Math.abs(counts[i] / n - Math.exp(l) / z)).toBeLessThan(0.015);
  });

  it('rejects bad options by name', () => {
    expect(() => draw(1, { temperature: -1 })).toThrow(/temperature must be ≥ 0/);
    expect(() => draw(1, { topK: 0 })).toThrow(/topK must be an integer ≥ 1/);
    expect(() => draw(1, { topP: 0 })).toThrow(/topP must be in \(0, 1\]/);
  });
});

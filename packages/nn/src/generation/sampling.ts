// Choosing the next token from logits on the host: temperature, top-k and top-p (nucleus) filtering, then a
// draw from a seeded Rng (so a seed reproduces a sample exactly). Temperature 0 is greedy (argmax). Must not
// allocate per call beyond one index array; ties break toward the lower token id.

import type { Rng } from '../rng.js';

/** How the next token is chosen. */
export interface SamplingOptions {
  /** Divides the logits (default 1); 0 picks the most likely token. */
  temperature?: number;
  /** Keep only the k most likely tokens (default: all). */
  topK?: number;
  /** Keep the smallest set of most likely tokens whose probability reaches p (default 1: all). */
  topP?: number;
}

/** Checks sampling options, naming the bad one. */
export function checkSampling(o: SamplingOptions): void {
  if (o.temperature !== undefined && !(o.temperature >= 0 && Number.isFinite(o.temperature))) throw new RangeError(`sampling: temperature must be ≥ 0, got ${o.temperature}`);
  if (o.topK !== undefined && !(Number.isInteger(o.topK) && o.topK >= 1)) throw new RangeError(`sampling: topK must be an integer ≥ 1, got ${o.topK}`);
  if (o.topP !== undefined && !(o.topP > 0 && o.topP <= 1)) throw new RangeError(`sampling: topP must be in (0, 1], got ${o.topP}`);
}

/** The index of the largest value (the first on ties). */
export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Draws a token id from `logits` under the options, using `rng`. */
export function sampleToken(logits: ArrayLike<number>, opts: SamplingOptions, rng: Rng): number {
  checkSampling(opts);
  const t = opts.temperature ?? 1;
  if (t === 0 || opts.topK === 1) return argmax(logits);
  const n = logits.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) max = Math.max(max, logits[i]);
  const probs = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) total += probs[i] = Math.exp((logits[i] - max) / t);
  for (let i = 0; i < n; i++) probs[i] /= total;
  let order = Array.from({ length: n }, (_, i) => i);
  if (opts.topK !== undefined || (opts.topP ?? 1) < 1) {
    order.sort((a, b) => probs[b] - probs[a] || a - b);
    if (opts.topK !== undefined) order = order.slice(0, opts.topK);
    if ((opts.topP ?? 1) < 1) {
      let cum = 0;
      let keep = 0;
      while (keep < order.length && cum < (opts.topP as number)) cum += probs[order[keep++]];
      order = order.slice(0, Math.max(1, keep));
    }
  }
  let mass = 0;
  for (const i of order) mass += probs[i];
  let u = rng.next() * mass;
  for (const i of order) {
    u -= probs[i];
    if (u < 0) return i;
  }
  return order[order.length - 1];
}

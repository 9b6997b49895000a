// Character-level text data for language models: a tokenizer whose vocabulary is the sorted set of characters
// of a corpus, and random training windows (tokens [B, T] and next-token targets [B, T]) drawn by a seeded
// Rng into preallocated buffers. Browser-safe (strings in, typed arrays out); reading files is the caller's.

import type { Rng } from '../rng.js';
import type { TextTokenizer } from './textTokenizer.js';

/** Maps characters to ids 0..V−1 (sorted by code point) and back. */
export class CharTokenizer implements TextTokenizer {
  /** The vocabulary, one character per id. */
  readonly chars: readonly string[];
  private readonly ids: Map<string, number>;

  constructor(chars: Iterable<string>) {
    this.chars = [...new Set(chars)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.ids = new Map(this.chars.map((c, i) => [c, i]));
  }

  /** A tokenizer over every character that occurs in `text`. */
  static fromText(text: string): CharTokenizer {
    return new CharTokenizer(text);
  }

  /** Vocabulary size. */
  get size(): number {
    return this.chars.length;
  }

  /** Vocabulary size (the `TextTokenizer` name of `size`). */
  get vocabSize(): number {
    return this.chars.length;
  }

  /** Text → ids; a character outside the vocabulary is an error naming it and its position. */
  encode(text: string): Int32Array {
    const chars = [...text];
    const out = new Int32Array(chars.length);
    for (let i = 0; i < chars.length; i++) {
      const id = this.ids.get(chars[i]);
      if (id === undefined) throw new RangeError(`CharTokenizer: character ${JSON.stringify(chars[i])} at ${i} is not in the vocabulary of ${this.size}`);
      out[i] = id;
    }
    return out;
  }

  /** Ids → text. */
  decode(ids: Iterable<number>): string {
    let s = '';
    for (const id of ids) {
      const c = this.chars[id];
      if (c === undefined) throw new RangeError(`CharTokenizer: id ${id} is outside [0, ${this.size})`);
      s += c;
    }
    return s;
  }
}

/** One language-model batch: tokens and their next tokens, [batch, context] each (buffers reused). */
export interface LmBatch {
  readonly tokens: Int32Array;
  readonly targets: Int32Array;
}

/** Random windows of `data`: `tokens[b] = data[s..s+T)`, `targets[b] = data[s+1..s+T]`, s drawn from `rng`. */
export function randomWindows(data: Int32Array, batch: number, context: number, rng: Rng, into?: LmBatch): LmBatch {
  if (data.length < context + 1) throw new RangeError(`randomWindows: ${data.length} tokens are too few for a context of ${context}`);
  const out = into ?? { tokens: new Int32Array(batch * context), targets: new Int32Array(batch * context) };
  for (let b = 0; b < batch; b++) {
    const s = rng.int(data.length - context);
    out.tokens.set(data.subarray(s, s + context), b * context);
    out.targets.set(data.subarray(s + 1, s + context + 1), b * context);
  }
  return out;
}

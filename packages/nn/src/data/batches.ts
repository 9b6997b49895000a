// Mini-batches over an in-memory dataset: a seeded shuffle per epoch and preallocated batch buffers, so the
// training loop allocates nothing per step. Incomplete last batches are dropped (static shapes).

import { mulberry32 } from '@neura/ir';

/** One mini-batch: features [batch, features] and labels [batch]. Buffers are reused between batches. */
export interface Batch {
  /** Features, [batch, features] row-major. */
  readonly x: Float32Array;
  /** Class labels, [batch]. */
  readonly labels: Int32Array;
}

/** Options of `batches`. */
export interface BatchOptions {
  /** Examples per batch (the last partial batch is dropped). */
  batchSize: number;
  /** Shuffle with this seed each epoch (epoch index is mixed in); no shuffle when undefined. */
  shuffleSeed?: number;
  /** Epoch index mixed into the shuffle seed (default 0). */
  epoch?: number;
}

/** Yields full mini-batches of a dataset with `features` floats per example. */
export function* batches(data: { count: number; images: Float32Array; labels: Int32Array }, features: number, opts: BatchOptions): Generator<Batch> {
  const { batchSize } = opts;
  const order = Int32Array.from({ length: data.count }, (_, i) => i);
  if (opts.shuffleSeed !== undefined) {
    const rand = mulberry32(opts.shuffleSeed * 7919 + (opts.epoch ?? 0));
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  }
  const x = new Float32Array(batchSize * features);
  const labels = new Int32Array(batchSize);
  for (let start = 0; start + batchSize <= data.count; start += batchSize) {
    for (let b = 0; b < batchSize; b++) {
      const i = order[start + b];
      x.set(data.images.subarray(i * features, (i + 1) * features), b * features);
      labels[b] = data.labels[i];
    }
    yield { x, labels };
  }
}

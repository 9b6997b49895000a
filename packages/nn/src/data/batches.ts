// Mini-batches over an in-memory dataset: a seeded shuffle per epoch and preallocated batch buffers, so the
// training loop allocates nothing per step. An incomplete last batch is dropped (default), or yielded with fewer
// rows (`lastBatch: 'partial'`) for a step compiled with `batchInputs`, which pads it itself.

import { mulberry32 } from '@neura/ir';

/** One mini-batch: features [batch, features] and labels [batch]. Buffers are reused between batches. */
export interface Batch {
  readonly x: Float32Array;
  readonly labels: Int32Array;
}

/** Options of `batches`. */
export interface BatchOptions {
  batchSize: number;
  /** Shuffle with this seed each epoch (epoch index is mixed in); no shuffle when undefined. */
  shuffleSeed?: number;
  epoch?: number;
  /** The last batch when fewer than `batchSize` examples remain: dropped (default) or yielded with fewer rows. */
  lastBatch?: 'drop' | 'partial';
}

/** Yields the mini-batches of a dataset with `features` floats per example (a partial last one only if asked). */
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
  const end = opts.lastBatch === 'partial' ? data.count : data.count - (data.count % batchSize);
  for (let start = 0; start < end; start += batchSize) {
    const rows = Math.min(batchSize, end - start);
    for (let b = 0; b < rows; b++) {
      const i = order[start + b];
      x.set(data.images.subarray(i * features, (i + 1) * features), b * features);
      labels[b] = data.labels[i];
    }
    yield rows === batchSize ? { x, labels } : { x: x.subarray(0, rows * features), labels: labels.subarray(0, rows) };
  }
}

// Dropout as a layer: in training mode x/(1 − p) where kept, else 0 (ir's hash-based dropout, the same on
// every device); in evaluation mode the identity. The mask varies per step through ONE shared i32 scalar
// graph input, `dropoutOffset`, which the Trainer feeds (from its Rng) whenever the graph declares it; each
// layer mixes its own name into the seed, so two Dropout layers never share a mask.

import { GraphError, type Graph, hashName, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** The name of the i32 scalar input that varies every dropout mask per step. */
export const DROPOUT_OFFSET = 'dropoutOffset';

/** The graph's `dropoutOffset` input, created on first use. */
export function dropoutOffset(g: Graph): Tensor {
  const have = g.byName(DROPOUT_OFFSET);
  if (have) {
    if (have.op !== 'input' || have.dtype !== 'i32' || have.shape.length !== 0)
      throw new GraphError(`'${DROPOUT_OFFSET}' must be an i32 scalar input, the graph has a ${have.op} [${have.shape.join(', ')}]:${have.dtype}`, 'Dropout');
    return have;
  }
  return g.input(DROPOUT_OFFSET, [], 'i32');
}

/** Zeroes elements with probability `p` in training mode (scaling the rest by 1/(1 − p)); identity in eval. */
export class Dropout extends Module {
  constructor(
    /** Probability of zeroing an element, in [0, 1) (default 0.5). */
    readonly p = 0.5,
    /** Added to the per-layer seed (default 0). */
    readonly seed = 0,
  ) {
    super();
    if (!(p >= 0 && p < 1)) throw new GraphError(`Dropout: p must be in [0, 1), got ${p}`, 'Dropout');
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (!this.training || this.p === 0) return x;
    return g.dropout(x, this.p, (this.seed + hashName(prefix ?? 'dropout')) >>> 0, dropoutOffset(g));
  }
}

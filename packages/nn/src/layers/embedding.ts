// Embedding: a lookup table [num, dim] gathered by i32 ids (PyTorch's nn.Embedding; init N(0, 1) unless
// given). With `paddingIdx`, as torch: the table's row at that id starts at zero, positions holding the id embed
// to that row (an imported non-zero row comes out as stored), and the row gets no gradient (stopGradient).

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Options of an embedding table. */
export interface EmbeddingOptions {
  /** The id whose row starts at zero and gets no gradient (negative counts from the end, as torch). */
  paddingIdx?: number;
  /** First value of the table (default N(0, 1), PyTorch's). */
  init?: Init;
}

/** `ids [...] i32 → [..., dim]`; leaf `weight [num, dim]`. */
export class Embedding extends Module {
  /** The normalised padding id, if any. */
  readonly paddingIdx?: number;
  constructor(
    /** Number of embeddings (the vocabulary size); ids must be in [0, num). */
    readonly num: number,
    /** Features per embedding. */
    readonly dim: number,
    options: EmbeddingOptions = {},
  ) {
    super();
    if (options.paddingIdx !== undefined) {
      const p = options.paddingIdx < 0 ? options.paddingIdx + num : options.paddingIdx;
      if (!Number.isInteger(p) || p < 0 || p >= num) throw new GraphError(`Embedding(${num}, ${dim}): paddingIdx ${options.paddingIdx} is outside [-${num}, ${num})`, 'Embedding');
      this.paddingIdx = p;
    }
    const init: Init = options.init ?? { kind: 'normal', mean: 0, std: 1, seed: 0 };
    this.registerParameter('weight', [num, dim], this.paddingIdx === undefined ? init : { ...init, zeroRow: this.paddingIdx });
  }
  forward(g: Graph, ids: Tensor, prefix?: string): Tensor {
    if (ids.dtype !== 'i32') throw new GraphError(`Embedding '${prefix ?? ''}': ids must be i32, got ${ids.dtype}`, 'Embedding');
    const e = g.gather(this.param(g, prefix, 'weight'), ids);
    if (this.paddingIdx === undefined) return e;
    // torch returns the stored row and only masks its gradient: the same value, detached at padding positions
    return g.where(g.reshape(g.eq(ids, this.paddingIdx), [...ids.shape, 1]), g.stopGradient(e), e);
  }
  /** The table leaf (for a tied output head: logits = x·weightᵀ). */
  weight(g: Graph, prefix?: string): Tensor {
    return this.param(g, prefix, 'weight');
  }
}

// Embedding: a lookup table [num, dim] gathered by i32 ids (PyTorch's nn.Embedding; init N(0, 1) unless
// given). With `paddingIdx`, positions holding that id embed to zeros and send no gradient to the table
// (torch keeps that row at zero and never updates it; here the row's value is never read, so a model
// imported from torch behaves the same).

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Options of an embedding table. */
export interface EmbeddingOptions {
  /** The id whose embedding is zero and gets no gradient (negative counts from the end, as torch). */
  paddingIdx?: number;
  /** First value of the table (default N(0, 1), PyTorch's). */
  init?: Init;
}

/** `ids [...] i32 → [..., dim]`; leaf `weight [num, dim]`. */
export class Embedding extends Module {
  /** The normalised padding id, if any. */
  readonly paddingIdx?: number;
  constructor(
    readonly num: number,
    readonly dim: number,
    options: EmbeddingOptions = {},
  ) {
    super();
    if (options.paddingIdx !== undefined) {
      const p = options.paddingIdx < 0 ? options.paddingIdx + num : options.paddingIdx;
      if (!Number.isInteger(p) || p < 0 || p >= num) throw new GraphError(`Embedding(${num}, ${dim}): paddingIdx ${options.paddingIdx} is outside [-${num}, ${num})`, 'Embedding');
      this.paddingIdx = p;
    }
    this.registerParameter('weight', [num, dim], options.init ?? { kind: 'normal', mean: 0, std: 1, seed: 0 });
  }
  forward(g: Graph, ids: Tensor, prefix?: string): Tensor {
    if (ids.dtype !== 'i32') throw new GraphError(`Embedding '${prefix ?? ''}': ids must be i32, got ${ids.dtype}`, 'Embedding');
    const e = g.gather(this.param(g, prefix, 'weight'), ids);
    if (this.paddingIdx === undefined) return e;
    return g.where(g.reshape(g.eq(ids, this.paddingIdx), [...ids.shape, 1]), 0, e);
  }
  /** The table leaf (for a tied output head: logits = x·weightᵀ). */
  weight(g: Graph, prefix?: string): Tensor {
    return this.param(g, prefix, 'weight');
  }
}

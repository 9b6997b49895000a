// Batch normalisation over the channel axis 1 (BatchNorm1d: [N, C] or [N, C, L]; BatchNorm2d: [N, C, H, W]),
// PyTorch's semantics: in training mode it normalises by the batch mean and biased variance and updates the
// buffers running_mean/running_var (momentum 0.1, the running variance unbiased: ·n/(n − 1)) and
// num_batches_tracked; in eval mode it uses the running statistics. Expressed with graph ops (reductions and
// pointwise), so autograd gives the full gradient through the batch statistics and the e-graph fuses it.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Options of BatchNorm1d/2d. */
export interface BatchNormOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Weight of the new batch statistic in the running average (default 0.1). */
  momentum?: number;
  /** Learnable per-channel weight and bias (default true). */
  affine?: boolean;
  /** Keep running statistics for eval mode (default true); without them eval mode uses batch statistics too. */
  trackRunningStats?: boolean;
}

abstract class BatchNormBase extends Module {
  /** Added to the variance before the rsqrt (default 1e-5). */
  readonly eps: number;
  /** Weight of the new batch statistic in the running averages (default 0.1, PyTorch's). */
  readonly momentum: number;
  /** Whether the layer has a learnable per-channel weight and bias. */
  readonly affine: boolean;
  /** Whether running statistics are kept and used in eval mode. */
  readonly trackRunningStats: boolean;
  constructor(
    /** Channels C (axis 1 of the input). */
    readonly numFeatures: number,
    private readonly ranks: readonly number[],
    options: BatchNormOptions,
  ) {
    super();
    this.eps = options.eps ?? 1e-5;
    this.momentum = options.momentum ?? 0.1;
    this.affine = options.affine ?? true;
    this.trackRunningStats = options.trackRunningStats ?? true;
    if (!(Number.isInteger(numFeatures) && numFeatures >= 1)) throw new GraphError(`${this.constructor.name}: numFeatures ${numFeatures} must be an integer ≥ 1`, 'BatchNorm');
    if (this.affine) {
      this.registerParameter('weight', [numFeatures], { kind: 'ones' });
      this.registerParameter('bias', [numFeatures], { kind: 'zeros' });
    }
    if (this.trackRunningStats) {
      this.registerBuffer('running_mean', [numFeatures], { kind: 'zeros' });
      this.registerBuffer('running_var', [numFeatures], { kind: 'ones' });
      this.registerBuffer('num_batches_tracked', [], { kind: 'zeros' }, 'i32');
    }
  }

  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    const name = this.constructor.name;
    if (!this.ranks.includes(x.shape.length) || x.shape[1] !== this.numFeatures)
      throw new GraphError(`${name}(${this.numFeatures}) '${prefix ?? ''}': input [${x.shape.join(', ')}] must be ${this.ranks.map((r) => `rank ${r}`).join(' or ')} with ${this.numFeatures} channels on axis 1`, name);
    const c = this.numFeatures;
    const perChannel = x.shape.map((_, i) => (i === 1 ? c : 1));
    const axes = x.shape.map((_, i) => i).filter((i) => i !== 1);
    // leaves in PyTorch's state-dict order: weight, bias, then the buffers
    const weight = this.affine ? this.param(g, prefix, 'weight') : undefined;
    const bias = this.affine ? this.param(g, prefix, 'bias') : undefined;
    let y: Tensor;
    if (this.training || !this.trackRunningStats) {
      const count = x.shape.reduce((a, b) => a * b, 1) / c;
      const mean = g.mean(x, axes, true);
      const centred = g.sub(x, mean);
      const variance = g.mean(g.square(centred), axes, true);
      y = g.mul(centred, g.rsqrt(g.add(variance, this.eps)));
      if (this.training && this.trackRunningStats) {
        if (count < 2) throw new GraphError(`${name} '${prefix ?? ''}': training needs more than 1 value per channel, input [${x.shape.join(', ')}]`, name);
        const m = this.momentum;
        const rm = this.buffer(g, prefix, 'running_mean');
        const rv = this.buffer(g, prefix, 'running_var');
        const nbt = this.buffer(g, prefix, 'num_batches_tracked');
        g.update(rm, g.add(g.mul(rm, 1 - m), g.mul(g.reshape(mean, [c]), m)));
        g.update(rv, g.add(g.mul(rv, 1 - m), g.mul(g.reshape(variance, [c]), (m * count) / (count - 1))));
        g.update(nbt, g.add(nbt, 1));
      }
      if (weight && bias) y = g.add(g.mul(y, g.reshape(weight, perChannel)), g.reshape(bias, perChannel));
    } else {
      // eval: one per-channel scale and shift, x·scale + shift; the counter is declared (same state dict) but unused
      this.buffer(g, prefix, 'num_batches_tracked');
      let scale = g.rsqrt(g.add(this.buffer(g, prefix, 'running_var'), this.eps));
      if (weight) scale = g.mul(scale, weight);
      let shift = g.neg(g.mul(this.buffer(g, prefix, 'running_mean'), scale));
      if (bias) shift = g.add(shift, bias);
      y = g.add(g.mul(x, g.reshape(scale, perChannel)), g.reshape(shift, perChannel));
    }
    return y;
  }
}

/** Batch normalisation of [N, C] or [N, C, L] over all axes but the channels. */
export class BatchNorm1d extends BatchNormBase {
  constructor(numFeatures: number, options: BatchNormOptions = {}) {
    super(numFeatures, [2, 3], options);
  }
}

/** Batch normalisation of images [N, C, H, W] over N, H and W. */
export class BatchNorm2d extends BatchNormBase {
  constructor(numFeatures: number, options: BatchNormOptions = {}) {
    super(numFeatures, [4], options);
  }
}

// LayerNorm and RMSNorm over the last axis, as PyTorch's nn.LayerNorm / nn.RMSNorm (elementwise affine on by
// default; weight starts at ones, bias at zeros). Decomposed through ir's builders, so the e-graph fuses the
// reductions; no running statistics, the same in training and evaluation mode.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Options of a normalisation layer. */
export interface NormOptions {
  /** Added to the variance (mean square) before the rsqrt (LayerNorm default 1e-5, RMSNorm default 1e-6). */
  eps?: number;
  /** Learn a per-feature scale (and, for LayerNorm, shift); default true. */
  elementwiseAffine?: boolean;
  /** LayerNorm only: learn the shift (default true; nanoGPT's `bias=False` turns it off). */
  bias?: boolean;
}

function checkFeatures(what: string, features: number, x: Tensor, prefix?: string): void {
  if (x.shape[x.shape.length - 1] !== features)
    throw new GraphError(`${what}(${features}) '${prefix ?? ''}': input [${x.shape.join(', ')}] has ${x.shape[x.shape.length - 1]} features in its last axis`, what);
}

/** (x − mean)/√(var + eps)·weight + bias over the last axis; leaves `weight [features]`, `bias [features]`. */
export class LayerNorm extends Module {
  /** Added to the variance before the rsqrt (default 1e-5). */
  readonly eps: number;
  constructor(
    /** Size of the last axis, normalised over. */
    readonly features: number,
    /** Epsilon and affine options (see NormOptions). */
    readonly options: NormOptions = {},
  ) {
    super();
    this.eps = options.eps ?? 1e-5;
    if (options.elementwiseAffine !== false) {
      this.registerParameter('weight', [features], { kind: 'ones' });
      if (options.bias !== false) this.registerParameter('bias', [features], { kind: 'zeros' });
    }
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    checkFeatures('LayerNorm', this.features, x, prefix);
    const affine = this.options.elementwiseAffine !== false;
    const w = affine ? this.param(g, prefix, 'weight') : undefined;
    const b = affine && this.options.bias !== false ? this.param(g, prefix, 'bias') : undefined;
    return g.layerNorm(x, w, b, { eps: this.eps });
  }
}

/** x/√(mean(x²) + eps)·weight over the last axis (LLaMA's norm); leaf `weight [features]`. */
export class RMSNorm extends Module {
  /** Added to the mean square before the rsqrt (default 1e-6). */
  readonly eps: number;
  constructor(
    /** Size of the last axis, normalised over. */
    readonly features: number,
    /** Epsilon and affine options (see NormOptions). */
    readonly options: Omit<NormOptions, 'bias'> = {},
  ) {
    super();
    this.eps = options.eps ?? 1e-6;
    if (options.elementwiseAffine !== false) this.registerParameter('weight', [features], { kind: 'ones' });
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    checkFeatures('RMSNorm', this.features, x, prefix);
    return g.rmsNorm(x, this.options.elementwiseAffine !== false ? this.param(g, prefix, 'weight') : undefined, { eps: this.eps });
  }
}

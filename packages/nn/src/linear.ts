// A fully connected layer y = x·W + b with W stored [in, out] (so the forward matmul needs no transpose).
// Initialisation follows PyTorch's nn.Linear: uniform(-1/sqrt(in), 1/sqrt(in)) for weight and bias.

import { GraphError, type Graph, hashName, type Tensor } from '@neura/ir';
import { type Module, paramName, ReLU, Sequential } from './module.js';

/** Options of a linear layer. */
export interface LinearOptions {
  /** Add a bias (default true). */
  bias?: boolean;
  /** Seed offset for the initialiser (default: derived from the parameter name). */
  seed?: number;
}

/** Fully connected layer: `x [N, in] → [N, out]`. */
export class Linear implements Module {
  constructor(
    readonly inFeatures: number,
    readonly outFeatures: number,
    readonly options: LinearOptions = {},
  ) {}

  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape[x.shape.length - 1] !== this.inFeatures)
      throw new GraphError(
        `Linear(${this.inFeatures}, ${this.outFeatures}) '${prefix ?? ''}': input has ${x.shape[x.shape.length - 1]} features, expected ${this.inFeatures} (input shape [${x.shape.join(', ')}])`,
        'Linear',
      );
    const bound = 1 / Math.sqrt(this.inFeatures);
    const init = (name: string) => ({ kind: 'uniform' as const, low: -bound, high: bound, seed: (this.options.seed ?? 0) + hashName(name) });
    const wName = paramName(prefix, 'weight');
    const w = g.param(wName, [this.inFeatures, this.outFeatures], init(wName));
    if (this.options.bias === false) return g.matmul(x, w);
    const bName = paramName(prefix, 'bias');
    return g.add(g.matmul(x, w), g.param(bName, [this.outFeatures], init(bName)));
  }
}

/** A multi-layer perceptron: Linear + ReLU between every pair of sizes, no activation after the last. */
export function mlp(sizes: readonly number[], options: LinearOptions = {}): Module {
  const layers: Module[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    layers.push(new Linear(sizes[i], sizes[i + 1], options));
    if (i + 2 < sizes.length) layers.push(new ReLU());
  }
  return new Sequential(...layers);
}

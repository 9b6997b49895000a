// A fully connected layer y = x·W + b with W stored [in, out] (so the forward matmul needs no transpose;
// PyTorch stores [out, in]: transpose when importing). Initialisation is PyTorch's nn.Linear default:
// kaiming_uniform(a=√5) for the weight and U(±1/√in) for the bias, i.e. both U(±1/√in). An attached
// `LinearAdapter` (LoRA, see lora.ts) adds its own term to the output; its modules become the Linear's children.

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { kaimingUniform, Module } from '../module.js';
import { ReLU } from './activation.js';
import { Sequential } from './containers.js';

/** Options of a linear layer. */
export interface LinearOptions {
  /** Add a bias (default true). */
  bias?: boolean;
  /** Seed offset for the initialiser (default 0; each leaf also hashes its full name into its seed). */
  seed?: number;
  /** Overrides the weight's init (e.g. GPT-2's N(0, 0.02)); a seeded init still hashes in the leaf's name. */
  weightInit?: Init;
  /** Overrides the bias's init (e.g. zeros). */
  biasInit?: Init;
}

/** A term added to a Linear's output (LoRA's low-rank update); its modules are registered as the Linear's children. */
export interface LinearAdapter {
  /** Children registered on the Linear under these names (their leaves are named `<linear>.<name>.…`). */
  readonly modules: readonly (readonly [string, Module])[];
  /** The term added to `x·W + b` for the Linear's input `x`, the Linear being named `prefix`. */
  delta(g: Graph, x: Tensor, prefix: string | undefined): Tensor;
}

/**
 * Fully connected layer: `x [..., in] → [..., out]`; leaves `weight [in, out]`, `bias [out]` (torch stores
 * `[out, in]`; `importTorchStateDict` transposes).
 *
 * @example
 * ```ts
 * const fc = new Linear(784, 10);
 * const g = new Graph();
 * const logits = fc.forward(g, g.input('x', [32, 784]), 'fc');   // [32, 10]; params `fc.weight`, `fc.bias`
 * ```
 */
export class Linear extends Module {
  constructor(
    /** Input features (the last axis of the input). */
    readonly inFeatures: number,
    /** Output features. */
    readonly outFeatures: number,
    /** Bias, initialisers and adapters (see LinearOptions). */
    readonly options: LinearOptions = {},
  ) {
    super();
    const init = kaimingUniform(inFeatures, options.seed ?? 0);
    this.registerParameter('weight', [inFeatures, outFeatures], options.weightInit ?? init);
    if (options.bias !== false) this.registerParameter('bias', [outFeatures], options.biasInit ?? init);
  }

  private attached?: LinearAdapter;

  /** The adapter attached with `attachAdapter`, if any. */
  get adapter(): LinearAdapter | undefined {
    return this.attached;
  }

  /** Attaches an adapter (at most one: a second is an error), registering its modules as children. */
  attachAdapter(adapter: LinearAdapter, what = 'attachAdapter'): void {
    if (this.attached) throw new GraphError(`Linear(${this.inFeatures}, ${this.outFeatures}).${what}: this layer already has an adapter (LoRA applied twice?)`, 'Linear');
    for (const [name, m] of adapter.modules) this.registerModule(name, m);
    this.attached = adapter;
  }

  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape[x.shape.length - 1] !== this.inFeatures)
      throw new GraphError(
        `Linear(${this.inFeatures}, ${this.outFeatures}) '${prefix ?? ''}': input has ${x.shape[x.shape.length - 1]} features, expected ${this.inFeatures} (input shape [${x.shape.join(', ')}])`,
        'Linear',
      );
    const xw = g.matmul(x, this.param(g, prefix, 'weight'));
    const y = this.options.bias === false ? xw : g.add(xw, this.param(g, prefix, 'bias'));
    return this.attached ? g.add(y, this.attached.delta(g, x, prefix)) : y;
  }
}

/** A multi-layer perceptron: Linear + ReLU between every pair of sizes, no activation after the last. */
export function mlp(sizes: readonly number[], options: LinearOptions = {}): Sequential {
  const layers: Module[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    layers.push(new Linear(sizes[i], sizes[i + 1], options));
    if (i + 2 < sizes.length) layers.push(new ReLU());
  }
  return new Sequential(...layers);
}

// GroupNorm as a layer (PyTorch's nn.GroupNorm): channels split into groups, each normalised over its
// channels and positions, then a per-channel affine (weight ones, bias zeros). The same in training and
// evaluation mode: no running statistics.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Group normalisation of [N, C, ...]; leaves `weight [C]`, `bias [C]` when affine. */
export class GroupNorm extends Module {
  constructor(
    /** Groups G; must divide `numChannels`. */
    readonly numGroups: number,
    /** Channels C (axis 1 of the input). */
    readonly numChannels: number,
    /** `eps` (default 1e-5) and `affine` (learnable weight and bias, default true). */
    readonly options: { eps?: number; affine?: boolean } = {},
  ) {
    super();
    if (!(Number.isInteger(numGroups) && numGroups >= 1 && numChannels % numGroups === 0))
      throw new GraphError(`GroupNorm(${numGroups}, ${numChannels}): the groups must divide the channels`, 'GroupNorm');
    if (options.affine !== false) {
      this.registerParameter('weight', [numChannels], { kind: 'ones' });
      this.registerParameter('bias', [numChannels], { kind: 'zeros' });
    }
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape.length < 2 || x.shape[1] !== this.numChannels)
      throw new GraphError(`GroupNorm(${this.numGroups}, ${this.numChannels}) '${prefix ?? ''}': input [${x.shape.join(', ')}] needs ${this.numChannels} channels on axis 1`, 'GroupNorm');
    const affine = this.options.affine !== false;
    return g.groupNorm(x, this.numGroups, affine ? this.param(g, prefix, 'weight') : undefined, affine ? this.param(g, prefix, 'bias') : undefined, { eps: this.options.eps });
  }
}

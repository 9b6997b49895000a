// Flatten and Unflatten: reshapes as layers (no leaves). Flatten merges axes startDim..endDim (default all
// after the batch, PyTorch's default); Unflatten splits one axis into a given shape (one entry may be -1).

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Merges axes `startDim..endDim` into one (default: everything after the batch axis). */
export class Flatten extends Module {
  constructor(
    /** First axis merged (default 1; negative counts from the end). */
    readonly startDim = 1,
    /** Last axis merged, inclusive (default -1, the last). */
    readonly endDim = -1,
  ) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    const r = x.shape.length;
    const start = this.startDim < 0 ? this.startDim + r : this.startDim;
    const end = this.endDim < 0 ? this.endDim + r : this.endDim;
    if (start < 0 || end >= r || start > end)
      throw new GraphError(`Flatten: axes ${this.startDim}..${this.endDim} do not fit shape [${x.shape.join(', ')}]`, 'Flatten');
    const merged = x.shape.slice(start, end + 1).reduce((a, b) => a * b, 1);
    return g.reshape(x, [...x.shape.slice(0, start), merged, ...x.shape.slice(end + 1)]);
  }
}

/** Splits axis `dim` into `sizes` (whose product must equal its extent; one entry may be -1). */
export class Unflatten extends Module {
  constructor(
    /** The axis split (negative counts from the end). */
    readonly dim: number,
    /** The extents it is split into. */
    readonly sizes: readonly number[],
  ) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    const r = x.shape.length;
    const d = this.dim < 0 ? this.dim + r : this.dim;
    if (d < 0 || d >= r) throw new GraphError(`Unflatten: axis ${this.dim} out of range for shape [${x.shape.join(', ')}]`, 'Unflatten');
    const known = this.sizes.filter((s) => s !== -1).reduce((a, b) => a * b, 1);
    const sizes = this.sizes.map((s) => (s === -1 ? x.shape[d] / known : s));
    if (this.sizes.filter((s) => s === -1).length > 1 || sizes.some((s) => !Number.isInteger(s) || s < 0) || sizes.reduce((a, b) => a * b, 1) !== x.shape[d])
      throw new GraphError(`Unflatten: [${this.sizes.join(', ')}] does not split axis ${this.dim} of extent ${x.shape[d]} (shape [${x.shape.join(', ')}])`, 'Unflatten');
    return g.reshape(x, [...x.shape.slice(0, d), ...sizes, ...x.shape.slice(d + 1)]);
  }
}

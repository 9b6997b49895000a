// Layers are builders: `forward(g, x)` adds the layer's nodes (and, on first use, its parameters) to a graph.
// A module owns no data: parameter values live in the session that runs the graph. Names are hierarchical
// (`0.weight`, `encoder.1.bias`) so checkpoints and optimizer state line up with the layer tree.

import type { Graph, Tensor } from '@neura/ir';

/** A layer: adds its computation on `x` to a graph. */
export interface Module {
  /** Adds this layer's nodes for input `x`; `prefix` names its parameters. */
  forward(g: Graph, x: Tensor, prefix?: string): Tensor;
}

/** Joins a parameter name to its owner's prefix. */
export function paramName(prefix: string | undefined, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

/** Applies layers in order; layer i's parameters are prefixed with `i`. */
export class Sequential implements Module {
  readonly layers: readonly Module[];
  constructor(...layers: Module[]) {
    this.layers = layers;
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    return this.layers.reduce((h, layer, i) => layer.forward(g, h, paramName(prefix, String(i))), x);
  }
}

/** Rectified linear unit as a layer. */
export class ReLU implements Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.relu(x);
  }
}

/** Flattens all axes after the first (the batch). */
export class Flatten implements Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.reshape(x, [x.shape[0], -1]);
  }
}

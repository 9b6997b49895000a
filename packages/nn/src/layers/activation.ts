// Activation layers: stateless modules around the graph's elementwise ops (ReLU, LeakyReLU, GELU, SiLU,
// Sigmoid, Tanh, Softmax, Identity). No leaves; the same in training and evaluation mode.

import type { Graph, Tensor } from '@neura/ir';
import { Module } from '../module.js';

/** Rectified linear unit as a layer. */
export class ReLU extends Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.relu(x);
  }
}

/** max(x, αx) (PyTorch's negative_slope, default 0.01). */
export class LeakyReLU extends Module {
  /** @param negativeSlope - α, the slope for x < 0 (default 0.01). */
  constructor(readonly negativeSlope = 0.01) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    return g.leakyRelu(x, this.negativeSlope);
  }
}

/** GELU, exact (erf) by default or the tanh approximation. */
export class GELU extends Module {
  /** @param approximate - `'none'` (exact erf, default) or `'tanh'` (the tanh approximation). */
  constructor(readonly approximate: 'none' | 'tanh' = 'none') {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    return g.gelu(x, { approximate: this.approximate });
  }
}

/** x·sigmoid(x). */
export class SiLU extends Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.silu(x);
  }
}

/** Logistic sigmoid. */
export class Sigmoid extends Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.sigmoid(x);
  }
}

/** Hyperbolic tangent. */
export class Tanh extends Module {
  forward(g: Graph, x: Tensor): Tensor {
    return g.tanh(x);
  }
}

/** Softmax along an axis (default the last). */
export class Softmax extends Module {
  /** @param axis - the axis normalised over (default -1, the last). */
  constructor(readonly axis = -1) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    return g.softmax(x, this.axis);
  }
}

/** Returns its input (a placeholder, e.g. a shortcut without projection). */
export class Identity extends Module {
  forward(_g: Graph, x: Tensor): Tensor {
    return x;
  }
}

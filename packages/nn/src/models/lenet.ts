// LeNet-5 for 28×28 single-channel images (MNIST), in its common modern form: ReLU and max pooling instead of
// tanh and subsampling, the first convolution padded to keep 28×28 (LeCun et al. 1998 fed 32×32 images).
// Leaf names follow torch.nn.Sequential: features.{0,3}.weight/bias, classifier.{0,2,4}.weight/bias.

import type { Graph, Tensor } from '@neura/ir';
import { ReLU } from '../layers/activation.js';
import { Sequential } from '../layers/containers.js';
import { Conv2d } from '../layers/conv.js';
import { Flatten } from '../layers/flatten.js';
import { Linear } from '../layers/linear.js';
import { MaxPool2d } from '../layers/pool.js';
import { Module } from '../module.js';

/** LeNet-5: `x [N, 1, 28, 28] → logits [N, classes]` (61.7k parameters for 10 classes). */
export class LeNet5 extends Module {
  /** Convolutions, ReLUs and max pools: [N, 1, 28, 28] → [N, 16, 5, 5]. */
  readonly features = this.registerModule(
    'features',
    new Sequential(new Conv2d(1, 6, 5, { padding: 2 }), new ReLU(), new MaxPool2d(2), new Conv2d(6, 16, 5), new ReLU(), new MaxPool2d(2)),
  );
  /** The fully connected layers: 400 → 120 → 84 → classes. */
  readonly classifier: Sequential;
  /** @param classes - number of output classes (default 10). */
  constructor(readonly classes = 10) {
    super();
    this.classifier = this.registerModule('classifier', new Sequential(new Linear(16 * 5 * 5, 120), new ReLU(), new Linear(120, 84), new ReLU(), new Linear(84, classes)));
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    const f = this.child('features', g, x, prefix);
    return this.child('classifier', g, new Flatten().forward(g, f), prefix);
  }
}

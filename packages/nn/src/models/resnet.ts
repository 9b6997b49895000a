// A small ResNet for 28×28 single-channel images (MNIST): a 3×3 stem, three stages of basic residual blocks
// (He et al. 2016; widths 16/32/64, the later stages halving the resolution), global average pooling and a
// linear head. Convolutions feeding a BatchNorm have no bias; the shortcut is a 1×1 conv + BatchNorm when the
// shape changes. Leaf names as torchvision's: conv1, bn1, layer1.0.conv1, layer2.0.downsample.0, fc.

import type { Graph, Tensor } from '@neura/ir';
import { BatchNorm2d } from '../layers/batchNorm.js';
import { Sequential } from '../layers/containers.js';
import { Conv2d } from '../layers/conv.js';
import { Linear } from '../layers/linear.js';
import { AdaptiveAvgPool2d } from '../layers/pool.js';
import { Module } from '../module.js';

/** Two 3×3 conv + BatchNorm layers with an identity (or 1×1 projection) shortcut, ReLU after the sum. */
export class BasicBlock extends Module {
  /** The 1×1 conv + BatchNorm projection of the shortcut, when stride or channels change. */
  readonly downsample?: Sequential;
  constructor(
    /** Input channels. */
    readonly inChannels: number,
    /** Output channels. */
    readonly outChannels: number,
    /** Stride of the first conv (2 halves the resolution; default 1). */
    readonly stride = 1,
  ) {
    super();
    this.registerModule('conv1', new Conv2d(inChannels, outChannels, 3, { stride, padding: 1, bias: false }));
    this.registerModule('bn1', new BatchNorm2d(outChannels));
    this.registerModule('conv2', new Conv2d(outChannels, outChannels, 3, { padding: 1, bias: false }));
    this.registerModule('bn2', new BatchNorm2d(outChannels));
    if (stride !== 1 || inChannels !== outChannels)
      this.downsample = this.registerModule('downsample', new Sequential(new Conv2d(inChannels, outChannels, 1, { stride, bias: false }), new BatchNorm2d(outChannels)));
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    let h = g.relu(this.child('bn1', g, this.child('conv1', g, x, prefix), prefix));
    h = this.child('bn2', g, this.child('conv2', g, h, prefix), prefix);
    const shortcut = this.downsample ? this.child('downsample', g, x, prefix) : x;
    return g.relu(g.add(h, shortcut));
  }
}

/** Options of the small ResNet. */
export interface SmallResNetOptions {
  /** Channels per stage (default [16, 32, 64]); every stage after the first halves the resolution. */
  widths?: readonly number[];
  /** Basic blocks per stage (default 1 each: 8 layers with weights, ResNet-8). */
  blocks?: readonly number[];
  /** Input channels (default 1). */
  inChannels?: number;
  /** Output classes (default 10). */
  classes?: number;
}

/** A small ResNet: `x [N, C, H, W] → logits [N, classes]`. */
export class SmallResNet extends Module {
  /** Number of stages. */
  readonly stages: number;
  /** @param options - widths, blocks, input channels and classes (see SmallResNetOptions). */
  constructor(readonly options: SmallResNetOptions = {}) {
    super();
    const widths = options.widths ?? [16, 32, 64];
    const blocks = options.blocks ?? widths.map(() => 1);
    this.registerModule('conv1', new Conv2d(options.inChannels ?? 1, widths[0], 3, { padding: 1, bias: false }));
    this.registerModule('bn1', new BatchNorm2d(widths[0]));
    let c = widths[0];
    widths.forEach((w, s) => {
      const stage: BasicBlock[] = [];
      for (let b = 0; b < (blocks[s] ?? 1); b++) {
        stage.push(new BasicBlock(c, w, b === 0 && s > 0 ? 2 : 1));
        c = w;
      }
      this.registerModule(`layer${s + 1}`, new Sequential(...stage));
    });
    this.stages = widths.length;
    this.registerModule('avgpool', new AdaptiveAvgPool2d(1));
    this.registerModule('fc', new Linear(c, options.classes ?? 10));
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    let h = g.relu(this.child('bn1', g, this.child('conv1', g, x, prefix), prefix));
    for (let s = 1; s <= this.stages; s++) h = this.child(`layer${s}`, g, h, prefix);
    h = this.child('avgpool', g, h, prefix);
    return this.child('fc', g, g.reshape(h, [h.shape[0], h.shape[1]]), prefix);
  }
}

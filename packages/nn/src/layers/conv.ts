// Convolution layers, NCHW: Conv2d (stride, padding incl. 'same'/'valid', dilation, groups) and
// ConvTranspose2d (its adjoint, with outputPadding). Weights follow PyTorch's layout and default init:
// Conv2d w [O, C/groups, KH, KW], ConvTranspose2d w [Cin, Cout/groups, KH, KW]; kaiming_uniform(a=√5) =
// U(±1/√fanIn) with fanIn = w.shape[1]·KH·KW, the same bound for the bias.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { kaimingUniform, Module } from '../module.js';

/** A number for both axes or an [H, W] pair. */
export type Pair = number | [number, number];

const pair = (v: Pair): [number, number] => (typeof v === 'number' ? [v, v] : [v[0], v[1]]);

/** Options of Conv2d. */
export interface Conv2dOptions {
  /** Step between windows (default 1). */
  stride?: Pair;
  /** Zero padding per side, or 'valid' (none) / 'same' (output size = input size; stride 1 only). */
  padding?: Pair | 'valid' | 'same';
  /** Spacing between kernel taps (default 1). */
  dilation?: Pair;
  /** Channel groups (default 1); must divide both channel counts. */
  groups?: number;
  /** Add a bias (default true). */
  bias?: boolean;
  /** Seed offset for the initialiser. */
  seed?: number;
}

function checkChannels(layer: string, inC: number, outC: number, groups: number): void {
  if (![inC, outC, groups].every((v) => Number.isInteger(v) && v >= 1) || inC % groups !== 0 || outC % groups !== 0)
    throw new GraphError(`${layer}(${inC}, ${outC}): groups ${groups} must divide both channel counts`, layer);
}

/** 2-D convolution: `x [N, inChannels, H, W] → [N, outChannels, Ho, Wo]`; leaves `weight`, `bias`. */
export class Conv2d extends Module {
  /** Kernel size [KH, KW]. */
  readonly kernelSize: [number, number];
  /** Stride [along H, along W]. */
  readonly stride: [number, number];
  /** Zero padding per side [along H, along W] (resolved from 'valid'/'same'). */
  readonly padding: [number, number];
  /** Dilation [along H, along W]. */
  readonly dilation: [number, number];
  /** Channel groups. */
  readonly groups: number;
  constructor(
    /** Input channels. */
    readonly inChannels: number,
    /** Output channels. */
    readonly outChannels: number,
    kernelSize: Pair,
    /** The options as given. */
    readonly options: Conv2dOptions = {},
  ) {
    super();
    this.kernelSize = pair(kernelSize);
    this.stride = pair(options.stride ?? 1);
    this.dilation = pair(options.dilation ?? 1);
    this.groups = options.groups ?? 1;
    checkChannels('Conv2d', inChannels, outChannels, this.groups);
    const p = options.padding ?? 0;
    if (p === 'same') {
      const total = this.dilation.map((d, i) => d * (this.kernelSize[i] - 1));
      if (this.stride.some((s) => s !== 1) || total.some((t) => t % 2 !== 0))
        throw new GraphError(`Conv2d: padding 'same' needs stride 1 and an even dilated kernel extent − 1 (kernel [${this.kernelSize}], dilation [${this.dilation}])`, 'Conv2d');
      this.padding = [total[0] / 2, total[1] / 2];
    } else this.padding = p === 'valid' ? [0, 0] : pair(p);
    const [kh, kw] = this.kernelSize;
    const init = kaimingUniform((inChannels / this.groups) * kh * kw, options.seed ?? 0);
    this.registerParameter('weight', [outChannels, inChannels / this.groups, kh, kw], init);
    if (options.bias !== false) this.registerParameter('bias', [outChannels], init);
  }

  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape.length !== 4 || x.shape[1] !== this.inChannels)
      throw new GraphError(`Conv2d(${this.inChannels}, ${this.outChannels}) '${prefix ?? ''}': input [${x.shape.join(', ')}] must be [N, ${this.inChannels}, H, W]`, 'Conv2d');
    const bias = this.options.bias === false ? undefined : this.param(g, prefix, 'bias');
    return g.conv2d(x, this.param(g, prefix, 'weight'), bias, { stride: this.stride, padding: this.padding, dilation: this.dilation, groups: this.groups });
  }
}

/** Options of ConvTranspose2d. */
export interface ConvTranspose2dOptions {
  /** Step of the forward convolution this transposes (default 1). */
  stride?: Pair;
  /** Padding of the forward convolution, removed from each side of the output (default 0). */
  padding?: Pair;
  /** Extra rows/columns on the bottom/right of the output (< stride or < dilation), to pick among sizes. */
  outputPadding?: Pair;
  /** Spacing between kernel taps (default 1). */
  dilation?: Pair;
  /** Channel groups (default 1); must divide both channel counts. */
  groups?: number;
  /** Add a bias (default true). */
  bias?: boolean;
  /** Seed offset for the initialiser. */
  seed?: number;
}

/** Transposed 2-D convolution: `[N, inChannels, H, W] → [N, outChannels, (H−1)s − 2p + d(K−1) + op + 1, …]`. */
export class ConvTranspose2d extends Module {
  /** Kernel size [KH, KW]. */
  readonly kernelSize: [number, number];
  /** Channel groups. */
  readonly groups: number;
  constructor(
    /** Input channels. */
    readonly inChannels: number,
    /** Output channels. */
    readonly outChannels: number,
    kernelSize: Pair,
    /** The options as given. */
    readonly options: ConvTranspose2dOptions = {},
  ) {
    super();
    this.kernelSize = pair(kernelSize);
    this.groups = options.groups ?? 1;
    checkChannels('ConvTranspose2d', inChannels, outChannels, this.groups);
    const [kh, kw] = this.kernelSize;
    // PyTorch computes the fan-in of this weight from its axis 1 (outChannels/groups), as for Conv2d's
    const init = kaimingUniform((outChannels / this.groups) * kh * kw, options.seed ?? 0);
    this.registerParameter('weight', [inChannels, outChannels / this.groups, kh, kw], init);
    if (options.bias !== false) this.registerParameter('bias', [outChannels], init);
  }

  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape.length !== 4 || x.shape[1] !== this.inChannels)
      throw new GraphError(`ConvTranspose2d(${this.inChannels}, ${this.outChannels}) '${prefix ?? ''}': input [${x.shape.join(', ')}] must be [N, ${this.inChannels}, H, W]`, 'ConvTranspose2d');
    const o = this.options;
    const bias = o.bias === false ? undefined : this.param(g, prefix, 'bias');
    return g.convTranspose2d(x, this.param(g, prefix, 'weight'), bias, { stride: o.stride, padding: o.padding, outputPadding: o.outputPadding, dilation: o.dilation, groups: this.groups });
  }
}

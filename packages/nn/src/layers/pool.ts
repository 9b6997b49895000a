// Pooling layers, NCHW: MaxPool2d (with PyTorch's dilation, ceil_mode and return_indices) and AvgPool2d (PyTorch
// defaults: stride = kernel, floor mode, padding counted in the mean) and AdaptiveAvgPool2d (output size fixed; PyTorch's windows
// [⌊i·H/Ho⌋, ⌈(i+1)·H/Ho⌉)). The adaptive pool is a global mean at 1×1, one avgPool2d when the sizes divide,
// and otherwise a mean per output window joined by concat (fine for the small outputs it is used with).

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { Module } from '../module.js';
import type { Pair } from './conv.js';

const pair = (v: Pair): [number, number] => (typeof v === 'number' ? [v, v] : [v[0], v[1]]);

/** Options of the fixed-window pools. */
export interface PoolOptions {
  /** Default: the kernel size. */
  stride?: Pair;
  /** Implicit padding per side (default 0). */
  padding?: Pair;
}

function check4d(layer: string, x: Tensor): void {
  if (x.shape.length !== 4) throw new GraphError(`${layer}: input [${x.shape.join(', ')}] must be [N, C, H, W]`, layer);
}

/** A fixed-window pool (AvgPool2d; MaxPool2d has its own options). */
abstract class WindowPool2d extends Module {
  protected abstract readonly op: 'avgPool2d';
  constructor(
    /** Window size (a number: square). */
    readonly kernelSize: Pair,
    /** Stride and padding (see PoolOptions). */
    readonly options: PoolOptions = {},
  ) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    check4d('AvgPool2d', x);
    return g[this.op](x, pair(this.kernelSize), { stride: this.options.stride, padding: this.options.padding });
  }
}

/** Options of MaxPool2d (PyTorch's nn.MaxPool2d arguments). */
export interface MaxPool2dOptions extends PoolOptions {
  /** Spacing between window taps (default 1). */
  dilation?: Pair;
  /** Round output sizes up, keeping a last partial window that starts inside the input or its left padding. */
  ceilMode?: boolean;
  /** Also give the argmax positions: use `forwardWithIndices` (forward returns one tensor, so it refuses). */
  returnIndices?: boolean;
}

/** Window maxima. */
export class MaxPool2d extends Module {
  constructor(
    /** Window size (a number: square). */
    readonly kernelSize: Pair,
    /** Stride, padding, dilation, ceil mode and indices (see MaxPool2dOptions). */
    readonly options: MaxPool2dOptions = {},
  ) {
    super();
  }
  forward(g: Graph, x: Tensor): Tensor {
    if (this.options.returnIndices)
      throw new GraphError('MaxPool2d(returnIndices: true): forward gives one tensor; call forwardWithIndices(g, x) for [values, indices]', 'MaxPool2d');
    check4d('MaxPool2d', x);
    return g.maxPool2d(x, pair(this.kernelSize), this.graphOptions());
  }
  /** `[values, indices]`: indices i32, each the position iy·W + ix of its window's first maximum in its H×W plane (PyTorch's). */
  forwardWithIndices(g: Graph, x: Tensor): [Tensor, Tensor] {
    check4d('MaxPool2d', x);
    return g.maxPool2dWithIndices(x, pair(this.kernelSize), this.graphOptions());
  }
  private graphOptions() {
    const { stride, padding, dilation, ceilMode } = this.options;
    const p = (v: Pair | undefined) => (v === undefined ? undefined : pair(v));
    return { stride: p(stride), padding: p(padding), dilation: p(dilation), ceilMode };
  }
}

/** Window means (zero padding counted, PyTorch's count_include_pad). */
export class AvgPool2d extends WindowPool2d {
  /** The ir op this pool builds. */
  protected readonly op = 'avgPool2d';
}

/** Means over adaptive windows to a fixed output size `[Ho, Wo]` (a number: square). */
export class AdaptiveAvgPool2d extends Module {
  /** Output size [Ho, Wo]. */
  readonly outputSize: [number, number];
  constructor(outputSize: Pair) {
    super();
    this.outputSize = pair(outputSize);
    if (!this.outputSize.every((v) => Number.isInteger(v) && v >= 1)) throw new GraphError(`AdaptiveAvgPool2d: output size [${this.outputSize}] must be integers ≥ 1`, 'AdaptiveAvgPool2d');
  }
  forward(g: Graph, x: Tensor): Tensor {
    check4d('AdaptiveAvgPool2d', x);
    const [, , h, w] = x.shape;
    const [ho, wo] = this.outputSize;
    if (ho === 1 && wo === 1) return g.mean(x, [2, 3], true);
    if (h % ho === 0 && w % wo === 0) return g.avgPool2d(x, [h / ho, w / wo]);
    const win = (i: number, n: number, out: number) => [Math.floor((i * n) / out), Math.ceil(((i + 1) * n) / out)];
    const rows: Tensor[] = [];
    for (let i = 0; i < ho; i++) {
      const [y0, y1] = win(i, h, ho);
      const cols: Tensor[] = [];
      for (let j = 0; j < wo; j++) {
        const [x0, x1] = win(j, w, wo);
        cols.push(g.mean(g.slice(x, [0, 0, y0, x0], [x.shape[0], x.shape[1], y1, x1]), [2, 3], true));
      }
      rows.push(cols.length === 1 ? cols[0] : g.concat(cols, 3));
    }
    return rows.length === 1 ? rows[0] : g.concat(rows, 2);
  }
}

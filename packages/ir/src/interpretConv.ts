// Reference semantics of NCHW convolution and pooling and their backward ops. One visitor enumerates every
// (output, input, weight) triple of a convolution, so the forward op and both gradients are the same loop
// with a different accumulation; pooling likewise shares one window visitor.

import type { Node } from './graph.js';
import { alloc, type Ctx, out } from './interpretCore.js';
import type { Conv2dAttrs, MaxPoolAttrs, PoolAttrs } from './ops.js';
import type { TensorValue } from './tensorValue.js';

/** Calls fn(xi, wi, yi) for each product x[xi]·w[wi] that conv2d sums into y[yi] (padding taps skipped). */
function convVisit(x: readonly number[], w: readonly number[], y: readonly number[], a: Conv2dAttrs, fn: (xi: number, wi: number, yi: number) => void): void {
  const [n, c, h, wd] = x;
  const [o, cg, kh, kw] = w;
  const [ho, wo] = [y[2], y[3]];
  const og = o / a.groups;
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < o; oc++) {
      const g = Math.floor(oc / og);
      for (let oy = 0; oy < ho; oy++)
        for (let ox = 0; ox < wo; ox++) {
          const yi = ((b * o + oc) * ho + oy) * wo + ox;
          for (let ic = 0; ic < cg; ic++)
            for (let ky = 0; ky < kh; ky++) {
              const iy = oy * a.stride[0] - a.padding[0] + ky * a.dilation[0];
              if (iy < 0 || iy >= h) continue;
              for (let kx = 0; kx < kw; kx++) {
                const ix = ox * a.stride[1] - a.padding[1] + kx * a.dilation[1];
                if (ix < 0 || ix >= wd) continue;
                fn(((b * c + g * cg + ic) * h + iy) * wd + ix, ((oc * cg + ic) * kh + ky) * kw + kx, yi);
              }
            }
        }
    }
}

const finish = (node: Node, acc: Float64Array, ctx: Ctx): TensorValue => {
  const d = alloc(node.shape, 'f32', ctx);
  for (let i = 0; i < d.length; i++) d[i] = ctx.round(acc[i]);
  return out(node, d);
};

/** conv2d. */
export function interpretConv2d(node: Node<'conv2d'>, [x, w]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const acc = new Float64Array(node.shape.reduce((p, d) => p * d, 1));
  convVisit(x.shape, w.shape, node.shape, node.attrs, (xi, wi, yi) => {
    acc[yi] += x.data[xi] * w.data[wi];
  });
  return finish(node, acc, ctx);
}

/** conv2dGradInput: dx[xi] = Σ dy[yi]·w[wi]. */
export function interpretConv2dGradInput(node: Node<'conv2dGradInput'>, [dy, w]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const acc = new Float64Array(node.shape.reduce((p, d) => p * d, 1));
  convVisit(node.shape, w.shape, dy.shape, node.attrs, (xi, wi, yi) => {
    acc[xi] += dy.data[yi] * w.data[wi];
  });
  return finish(node, acc, ctx);
}

/** conv2dGradWeight: dw[wi] = Σ x[xi]·dy[yi]. */
export function interpretConv2dGradWeight(node: Node<'conv2dGradWeight'>, [x, dy]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const acc = new Float64Array(node.shape.reduce((p, d) => p * d, 1));
  convVisit(x.shape, node.shape, dy.shape, node.attrs, (xi, wi, yi) => {
    acc[wi] += x.data[xi] * dy.data[yi];
  });
  return finish(node, acc, ctx);
}

/**
 * Calls fn(yi, taps) per output element with the flat input indices of its window in scan order (rows, then
 * columns; padding taps and, in ceil mode, taps past the input omitted).
 */
function poolVisit(x: readonly number[], y: readonly number[], a: PoolAttrs & Partial<MaxPoolAttrs>, fn: (yi: number, taps: readonly number[]) => void): void {
  const [n, c, h, w] = x;
  const [ho, wo] = [y[2], y[3]];
  const [dh, dw] = a.dilation ?? [1, 1];
  const taps: number[] = [];
  for (let p = 0; p < n * c; p++)
    for (let oy = 0; oy < ho; oy++)
      for (let ox = 0; ox < wo; ox++) {
        taps.length = 0;
        for (let ky = 0; ky < a.kernel[0]; ky++) {
          const iy = oy * a.stride[0] - a.padding[0] + ky * dh;
          if (iy < 0 || iy >= h) continue;
          for (let kx = 0; kx < a.kernel[1]; kx++) {
            const ix = ox * a.stride[1] - a.padding[1] + kx * dw;
            if (ix >= 0 && ix < w) taps.push((p * h + iy) * w + ix);
          }
        }
        fn((p * ho + oy) * wo + ox, taps);
      }
}

/** The first tap holding the window's maximum. */
const argmaxTap = (x: TensorValue, taps: readonly number[]) => taps.reduce((best, t) => (x.data[t] > x.data[best] ? t : best), taps[0]);

/** maxPool2d. */
export function interpretMaxPool2d(node: Node<'maxPool2d'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const d = alloc(node.shape, 'f32', ctx);
  poolVisit(x.shape, node.shape, node.attrs, (yi, taps) => {
    d[yi] = x.data[argmaxTap(x, taps)];
  });
  return out(node, d);
}

/** maxPool2dGrad: each dy goes to its window's first maximum. */
export function interpretMaxPool2dGrad(node: Node<'maxPool2dGrad'>, [x, dy]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const acc = new Float64Array(x.data.length);
  poolVisit(x.shape, dy.shape, node.attrs, (yi, taps) => {
    acc[argmaxTap(x, taps)] += dy.data[yi];
  });
  return finish(node, acc, ctx);
}

/** maxPool2dIndices: the index iy·W + ix within its plane of each window's first maximum, as i32. */
export function interpretMaxPool2dIndices(node: Node<'maxPool2dIndices'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const plane = x.shape[2] * x.shape[3];
  const d = alloc(node.shape, 'i32', ctx);
  poolVisit(x.shape, node.shape, node.attrs, (yi, taps) => {
    d[yi] = argmaxTap(x, taps) % plane;
  });
  return out(node, d);
}

/** avgPool2d: the sum over the window's in-range taps over the full window size. */
export function interpretAvgPool2d(node: Node<'avgPool2d'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const area = node.attrs.kernel[0] * node.attrs.kernel[1];
  const d = alloc(node.shape, 'f32', ctx);
  poolVisit(x.shape, node.shape, node.attrs, (yi, taps) => {
    let s = 0;
    for (const t of taps) s += x.data[t];
    d[yi] = ctx.round(s / area);
  });
  return out(node, d);
}

/** avgPool2dGrad: each dy spread evenly over its window. */
export function interpretAvgPool2dGrad(node: Node<'avgPool2dGrad'>, [dy]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const area = node.attrs.kernel[0] * node.attrs.kernel[1];
  const acc = new Float64Array(node.shape.reduce((p, d) => p * d, 1));
  poolVisit(node.shape, dy.shape, node.attrs, (yi, taps) => {
    for (const t of taps) acc[t] += dy.data[yi] / area;
  });
  return finish(node, acc, ctx);
}

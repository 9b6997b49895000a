// Shape and dtype inference for NCHW convolution and pooling and their backward ops. Output extents follow
// PyTorch (floor division; max pooling also ceil mode); each failure names the op and the operands' shapes.

import { arity, fail, float, type Rule, type TensorType } from './inferCore.js';
import type { Conv2dAttrs, MaxPoolAttrs, OpAttrs, PoolAttrs } from './ops.js';
import { fmtShape, sameShape } from './shape.js';

/** Output extent of a window sweep along one axis. */
export const convExtent = (size: number, kernel: number, stride: number, padding: number, dilation: number): number =>
  Math.floor((size + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1;

const pairs = (op: string, ins: readonly TensorType[], a: Partial<Conv2dAttrs & PoolAttrs>) => {
  for (const k of ['stride', 'dilation', 'kernel'] as const)
    if (a[k] && !(a[k].length === 2 && a[k].every((v) => Number.isInteger(v) && v >= 1))) fail(op, `${k} [${a[k]}] must be two integers ≥ 1`, ins);
  if (a.padding && !(a.padding.length === 2 && a.padding.every((v) => Number.isInteger(v) && v >= 0))) fail(op, `padding [${a.padding}] must be two integers ≥ 0`, ins);
};

const nchw = (op: string, ins: readonly TensorType[], i: number, what: string) => {
  float(op, ins, i);
  if (ins[i].shape.length !== 4) fail(op, `${what} must be 4-D [N, C, H, W], got ${fmtShape(ins[i].shape)}`, ins);
};

/** The output shape of conv2d of x [N, C, H, W] by w [O, C/groups, KH, KW], or a failure. */
function convShape(op: string, ins: readonly TensorType[], x: readonly number[], w: readonly number[], a: Conv2dAttrs): number[] {
  pairs(op, ins, a);
  const [n, c, h, wd] = x;
  const [o, cg, kh, kw] = w;
  if (!(Number.isInteger(a.groups) && a.groups >= 1) || c % a.groups !== 0 || o % a.groups !== 0)
    fail(op, `groups ${a.groups} must divide input channels ${c} and output channels ${o}`, ins);
  if (cg !== c / a.groups) fail(op, `weight ${fmtShape(w)} needs C/groups = ${c / a.groups} input channels, has ${cg}`, ins);
  const ho = convExtent(h, kh, a.stride[0], a.padding[0], a.dilation[0]);
  const wo = convExtent(wd, kw, a.stride[1], a.padding[1], a.dilation[1]);
  if (ho < 1 || wo < 1) fail(op, `the kernel ${kh}×${kw} (dilated) does not fit the padded input ${h}×${wd}`, ins);
  return [n, o, ho, wo];
}

/** conv2d. */
export const inferConv2d: Rule<OpAttrs['conv2d']> = (ins, a) => {
  arity('conv2d', ins, 2);
  nchw('conv2d', ins, 0, 'x');
  nchw('conv2d', ins, 1, 'the weight');
  return { shape: convShape('conv2d', ins, ins[0].shape, ins[1].shape, a), dtype: 'f32' };
};

/** conv2dGradInput: [dy, w] → x's shape. */
export const inferConv2dGradInput: Rule<OpAttrs['conv2dGradInput']> = (ins, a) => {
  arity('conv2dGradInput', ins, 2);
  nchw('conv2dGradInput', ins, 0, 'dy');
  nchw('conv2dGradInput', ins, 1, 'the weight');
  const [dy, w] = [ins[0].shape, ins[1].shape];
  const x = [dy[0], w[1] * a.groups, a.inputSize[0], a.inputSize[1]];
  if (!sameShape(convShape('conv2dGradInput', ins, x, w, a), dy)) fail('conv2dGradInput', `dy does not match a conv2d of input ${fmtShape(x)}`, ins);
  return { shape: x, dtype: 'f32' };
};

/** conv2dGradWeight: [x, dy] → w's shape. */
export const inferConv2dGradWeight: Rule<OpAttrs['conv2dGradWeight']> = (ins, a) => {
  arity('conv2dGradWeight', ins, 2);
  nchw('conv2dGradWeight', ins, 0, 'x');
  nchw('conv2dGradWeight', ins, 1, 'dy');
  const [x, dy] = [ins[0].shape, ins[1].shape];
  const w = [dy[1], x[1] / a.groups, a.kernelSize[0], a.kernelSize[1]];
  if (!sameShape(convShape('conv2dGradWeight', ins, x, w, a), dy)) fail('conv2dGradWeight', `dy does not match a conv2d by a weight ${fmtShape(w)}`, ins);
  return { shape: w, dtype: 'f32' };
};

/**
 * Output extent of a pool along one axis, as PyTorch's pooling_output_shape: in ceil mode the division rounds
 * up, then a last window that would start past the input and its left padding is dropped.
 */
export const poolExtent = (size: number, kernel: number, stride: number, padding: number, dilation: number, ceilMode: boolean): number => {
  if (!ceilMode) return convExtent(size, kernel, stride, padding, dilation);
  const out = Math.floor((size + 2 * padding - dilation * (kernel - 1) - 1 + stride - 1) / stride) + 1;
  return (out - 1) * stride >= size + padding ? out - 1 : out;
};

/** The output shape of a pool over x [N, C, H, W] (dilation and ceil mode for max pools). */
function poolShape(op: string, ins: readonly TensorType[], x: readonly number[], a: PoolAttrs & Partial<MaxPoolAttrs>): number[] {
  pairs(op, ins, a);
  if (a.padding[0] * 2 > a.kernel[0] || a.padding[1] * 2 > a.kernel[1]) fail(op, `padding [${a.padding}] must be at most half the kernel [${a.kernel}]`, ins);
  if (a.ceilMode !== undefined && typeof a.ceilMode !== 'boolean') fail(op, `ceilMode ${a.ceilMode} must be a boolean`, ins);
  const [dh, dw] = a.dilation ?? [1, 1];
  const ho = poolExtent(x[2], a.kernel[0], a.stride[0], a.padding[0], dh, a.ceilMode ?? false);
  const wo = poolExtent(x[3], a.kernel[1], a.stride[1], a.padding[1], dw, a.ceilMode ?? false);
  if (ho < 1 || wo < 1) fail(op, `the window [${a.kernel}] does not fit the padded input`, ins);
  return [x[0], x[1], ho, wo];
}

/** maxPool2d, maxPool2dIndices (i32) and avgPool2d. */
export const inferPool =
  (op: 'maxPool2d' | 'maxPool2dIndices' | 'avgPool2d'): Rule<PoolAttrs> =>
  (ins, a) => {
    arity(op, ins, 1);
    nchw(op, ins, 0, 'x');
    return { shape: poolShape(op, ins, ins[0].shape, a), dtype: op === 'maxPool2dIndices' ? 'i32' : 'f32' };
  };

/** maxPool2dIndices: [x] → i32 of the pooled shape. */
export const inferMaxPool2dIndices: Rule<OpAttrs['maxPool2dIndices']> = inferPool('maxPool2dIndices');

/** maxPool2dGrad: [x, dy] → x's shape. */
export const inferMaxPool2dGrad: Rule<OpAttrs['maxPool2dGrad']> = (ins, a) => {
  arity('maxPool2dGrad', ins, 2);
  nchw('maxPool2dGrad', ins, 0, 'x');
  if (!sameShape(poolShape('maxPool2dGrad', ins, ins[0].shape, a), ins[1].shape)) fail('maxPool2dGrad', 'dy does not match the pooled shape', ins);
  return ins[0];
};

/** avgPool2dGrad: [dy] → the input's shape. */
export const inferAvgPool2dGrad: Rule<OpAttrs['avgPool2dGrad']> = (ins, a) => {
  arity('avgPool2dGrad', ins, 1);
  nchw('avgPool2dGrad', ins, 0, 'dy');
  const dy = ins[0].shape;
  const x = [dy[0], dy[1], a.inputSize[0], a.inputSize[1]];
  if (!sameShape(poolShape('avgPool2dGrad', ins, x, a), dy)) fail('avgPool2dGrad', `dy does not match pooling an input ${fmtShape(x)}`, ins);
  return { shape: x, dtype: 'f32' };
};

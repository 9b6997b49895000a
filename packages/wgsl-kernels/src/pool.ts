// NCHW max and average pooling and their gradients as direct loops: a thread per element of the result (the
// gradients gather-style: each input element sums the windows that touch it, so no atomics). Padded taps are
// skipped (never the max for maxPool, counted in the avgPool divisor: count_include_pad, as the interpreter).

import type { MaxPoolAttrs, PoolAttrs } from '@neura/ir';
import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, type BufferVar, inputVar, outputVar, perElementDispatch, planOf } from './shader.js';
import { f32Lit, u32Lit } from './wgsl.js';

/** A plan of one thread-per-element dispatch. */
const perElementPlan = (spec: KernelSpec, caps: DeviceCaps, strategy: string, buffers: readonly BufferVar[], n: number, body: string): KernelPlan =>
  planOf([perElementDispatch(spec, caps, { strategy, buffers, n, body })]);

/** The dilation of a pool (1 for avgPool) on axis i, as a WGSL factor (` * d`, or nothing at 1: same WGSL as before). */
const dil = (a: PoolAttrs & Partial<MaxPoolAttrs>, i: 0 | 1): string => {
  const d = a.dilation?.[i] ?? 1;
  return d === 1 ? '' : ` * ${d}`;
};

/** WGSL scanning the window of output (oy, ox) of plane p: `visit` runs per in-range tap with `ti` (flat index). */
function windowScan(a: PoolAttrs, H: number, W: number, oy: string, ox: string, p: string, visit: string): string {
  return `for (var ky = 0; ky < ${a.kernel[0]}; ky = ky + 1) {
  let iy = ${oy} * ${a.stride[0]} - ${a.padding[0]} + ky${dil(a, 0)};
  if (iy < 0 || iy >= ${H}) { continue; }
  for (var kx = 0; kx < ${a.kernel[1]}; kx = kx + 1) {
    let ix = ${ox} * ${a.stride[1]} - ${a.padding[1]} + kx${dil(a, 1)};
    if (ix < 0 || ix >= ${W}) { continue; }
    let ti = (${p} * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix);
    ${visit}
  }
}`;
}

/** WGSL computing `best`, the flat index of the first maximum in window (oy, ox) of plane p (padding never wins). */
const firstMax = (a: PoolAttrs, H: number, W: number, oy: string, ox: string, p: string) => `var best = 0xffffffffu;
var bv = 0.0;
${windowScan(a, H, W, oy, ox, p, 'let v = x[ti]; if (best == 0xffffffffu || v > bv) { best = ti; bv = v; }')}`;

/** WGSL looping over the outputs (oy, ox) whose window covers input (iy, ix); `visit` runs per output. */
function coveringWindows(a: PoolAttrs, HO: number, WO: number, visit: string): string {
  const [sh, sw] = a.stride;
  return `for (var ky = 0; ky < ${a.kernel[0]}; ky = ky + 1) {
  let ty = iy + ${a.padding[0]} - ky${dil(a, 0)};
  if (ty < 0 || ty % ${sh} != 0 || ty / ${sh} >= ${HO}) { continue; }
  let oy = ty / ${sh};
  for (var kx = 0; kx < ${a.kernel[1]}; kx = kx + 1) {
    let tx = ix + ${a.padding[1]} - kx${dil(a, 1)};
    if (tx < 0 || tx % ${sw} != 0 || tx / ${sw} >= ${WO}) { continue; }
    let ox = tx / ${sw};
    ${visit}
  }
}`;
}

/** Plane index and spatial coordinates of element `o` of an [N, C, H, W] tensor. */
const planeOf = (H: number, W: number, y: string, x: string) => `let ${x} = i32(o % ${u32Lit(W)});
let ${y} = i32((o / ${u32Lit(W)}) % ${u32Lit(H)});
let p = o / ${u32Lit(W * H)};`;

type PoolOp = 'maxPool2d' | 'maxPool2dGrad' | 'maxPool2dIndices' | 'avgPool2d' | 'avgPool2dGrad';

/**
 * A pool kernel: a thread per element of the node's result; `body` gets the window attributes and the extents
 * of the full-resolution planes (H, W: the forward input) and of the pooled planes (HO, WO: the forward output).
 */
function poolPlan(spec: KernelSpec<PoolOp>, caps: DeviceCaps, strategy: string, buffers: readonly BufferVar[], body: (a: PoolAttrs, p: { H: number; W: number; HO: number; WO: number }) => string): KernelPlan {
  const grad = spec.node.op === 'maxPool2dGrad' || spec.node.op === 'avgPool2dGrad';
  const [, , H, W] = grad ? spec.node.shape : spec.inputs[0].shape;
  const [, , HO, WO] = grad ? spec.inputs[spec.inputs.length - 1].shape : spec.node.shape; // dy is the last operand
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  return perElementPlan(spec, caps, strategy, buffers, n, body(spec.node.attrs, { H, W, HO, WO }));
}

/** `maxPool2d`: the first maximum of each window. */
export function maxPool2dKernel(spec: KernelSpec<'maxPool2d'>, caps: DeviceCaps): KernelPlan {
  const strategy = `maxPool2d ${spec.node.attrs.kernel.join('x')}: a thread per output`;
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ['x']).buffers, (a, { H, W, HO, WO }) => `${planeOf(HO, WO, 'oy', 'ox')}
${firstMax(a, H, W, 'oy', 'ox', 'p')}
y[o] = bv;`);
}

/** `maxPool2dIndices`: the position iy·W + ix in its plane of each window's first maximum, as i32. */
export function maxPool2dIndicesKernel(spec: KernelSpec<'maxPool2dIndices'>, caps: DeviceCaps): KernelPlan {
  const strategy = `maxPool2dIndices ${spec.node.attrs.kernel.join('x')}: a thread per output`;
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ['x']).buffers, (a, { H, W, HO, WO }) => `${planeOf(HO, WO, 'oy', 'ox')}
${firstMax(a, H, W, 'oy', 'ox', 'p')}
y[o] = i32(best % ${u32Lit(H * W)});`);
}

/** `maxPool2dGrad` [x, dy] → dx: each input element sums dy of the windows whose first maximum it is. */
export function maxPool2dGradKernel(spec: KernelSpec<'maxPool2dGrad'>, caps: DeviceCaps): KernelPlan {
  const strategy = 'maxPool2dGrad (gather-style): a thread per input element re-finds the maxima of the windows covering it';
  const buffers = [inputVar(spec, 0, 'x'), inputVar(spec, 1, 'dy'), outputVar(spec)];
  return poolPlan(spec, caps, strategy, buffers, (a, { H, W, HO, WO }) => `${planeOf(H, W, 'iy', 'ix')}
var acc = 0.0;
${coveringWindows(a, HO, WO, `{\n${firstMax(a, H, W, 'oy', 'ox', 'p')}\n    if (best == o) { acc = acc + dy[(p * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)]; }\n    }`)}
y[o] = acc;`);
}

/** `avgPool2d`: the sum of in-range taps over KH·KW (count_include_pad). */
export function avgPool2dKernel(spec: KernelSpec<'avgPool2d'>, caps: DeviceCaps): KernelPlan {
  const strategy = `avgPool2d ${spec.node.attrs.kernel.join('x')}: a thread per output`;
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ['x']).buffers, (a, { H, W, HO, WO }) => `${planeOf(HO, WO, 'oy', 'ox')}
var acc = 0.0;
${windowScan(a, H, W, 'oy', 'ox', 'p', 'acc = acc + x[ti];')}
y[o] = acc / ${f32Lit(a.kernel[0] * a.kernel[1])};`);
}

/** `avgPool2dGrad` [dy] → dx: each input element sums dy / (KH·KW) of the windows covering it. */
export function avgPool2dGradKernel(spec: KernelSpec<'avgPool2dGrad'>, caps: DeviceCaps): KernelPlan {
  const strategy = 'avgPool2dGrad (gather-style): a thread per input element';
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ['dy']).buffers, (a, { H, W, HO, WO }) => `${planeOf(H, W, 'iy', 'ix')}
var acc = 0.0;
${coveringWindows(a, HO, WO, `acc = acc + dy[(p * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)];`)}
y[o] = acc / ${f32Lit(a.kernel[0] * a.kernel[1])};`);
}

// NCHW convolution and pooling, forward and backward, as direct loops with every extent baked: a thread per
// output element (conv2d, conv2dGradInput, pools and their gradients, gather-style: each input element sums the
// windows that touch it, so no atomics) and a workgroup per weight element for conv2dGradWeight (its sum runs
// over N·Ho·Wo, usually far longer than the weight count). Simple and correct; an implicit-GEMM conv belongs
// here once conv speed matters. Padded taps are skipped (zero for conv, never the max for maxPool, counted in
// the avgPool divisor: count_include_pad, as the interpreter).

import type { MaxPoolAttrs, PoolAttrs } from '@neura/ir';
import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, type BufferVar, inputVar, outputVar, perElementDispatch, perWorkgroupMain, planOf, shaderDispatch } from './shader.js';
import { f32Lit, linearGrid, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** Decomposes `o` into NCHW coordinates `n, c, yy, xx` of `shape`. */
const nchw = (shape: readonly number[], [n, c, y, x]: [string, string, string, string]) => {
  const [, C, H, W] = shape;
  return `let ${x} = i32(o % ${u32Lit(W)});
let ${y} = i32((o / ${u32Lit(W)}) % ${u32Lit(H)});
let ${c} = (o / ${u32Lit(W * H)}) % ${u32Lit(C)};
let ${n} = o / ${u32Lit(W * H * C)};`;
};

/** A plan of one thread-per-element dispatch (every conv and pool kernel but conv2dGradWeight). */
const perElementPlan = (spec: KernelSpec, caps: DeviceCaps, strategy: string, buffers: readonly BufferVar[], n: number, body: string): KernelPlan =>
  planOf([perElementDispatch(spec, caps, { strategy, buffers, n, body })]);

/** Channels per thread: the largest of 4, 2, 1 dividing `n` (each tap's activation is loaded once for all). */
const channelTile = (n: number): number => (n % 4 === 0 ? 4 : n % 2 === 0 ? 2 : 1);
const tileVars = (t: number) => Array.from({ length: t }, (_, i) => `acc${i}`);

/** `conv2d` [x, w] → y: a thread per output pixel and tile of T output channels sums C/groups·KH·KW taps. */
export function conv2dKernel(spec: KernelSpec<'conv2d'>, caps: DeviceCaps): KernelPlan {
  const a = spec.node.attrs;
  const [, C, H, W] = spec.inputs[0].shape;
  const [O, CG, KH, KW] = spec.inputs[1].shape;
  const [N, , HO, WO] = spec.node.shape;
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const T = channelTile(OG);
  const acc = tileVars(T);
  const { buffers, name } = bindOperands(spec, [0, 1], ['x', 'w']);
  const body = `${nchw([N, O / T, HO, WO], ['b', 'ot', 'oy', 'ox'])}
let oc0 = ot * ${u32Lit(T)};
let g = oc0 / ${u32Lit(OG)};
${acc.map((v) => `var ${v} = 0.0;`).join('\n')}
for (var ic = 0u; ic < ${u32Lit(CG)}; ic = ic + 1u) {
  for (var ky = 0; ky < ${KH}; ky = ky + 1) {
    let iy = oy * ${a.stride[0]} - ${a.padding[0]} + ky * ${a.dilation[0]};
    if (iy < 0 || iy >= ${H}) { continue; }
    for (var kx = 0; kx < ${KW}; kx = kx + 1) {
      let ix = ox * ${a.stride[1]} - ${a.padding[1]} + kx * ${a.dilation[1]};
      if (ix < 0 || ix >= ${W}) { continue; }
      let xv = ${name(0)}[((b * ${u32Lit(C)} + g * ${u32Lit(CG)} + ic) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix)];
      let wi = ((oc0 * ${u32Lit(CG)} + ic) * ${u32Lit(KH)} + u32(ky)) * ${u32Lit(KW)} + u32(kx);
${acc.map((v, t) => `      ${v} = fma(xv, ${name(1)}[wi${t ? ` + ${u32Lit(t * CG * KH * KW)}` : ''}], ${v});`).join('\n')}
    }
  }
}
let yo = ((b * ${u32Lit(O)} + oc0) * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox);
${acc.map((v, t) => `y[yo${t ? ` + ${u32Lit(t * HO * WO)}` : ''}] = ${v};`).join('\n')}`;
  return perElementPlan(spec, caps, `direct conv2d: a thread per output pixel × ${T} output channels, ${CG}x${KH}x${KW} taps`, buffers, n / T, body);
}

/** `conv2dGradInput` [dy, w] → dx: a thread per input pixel and tile of T input channels sums the outputs whose window covers it. */
export function conv2dGradInputKernel(spec: KernelSpec<'conv2dGradInput'>, caps: DeviceCaps): KernelPlan {
  const a = spec.node.attrs;
  const [, O, HO, WO] = spec.inputs[0].shape;
  const [, CG, KH, KW] = spec.inputs[1].shape;
  const [N, C, H, W] = spec.node.shape;
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const T = channelTile(CG);
  const acc = tileVars(T);
  const { buffers, name } = bindOperands(spec, [0, 1], ['dy', 'w']);
  const [sh, sw] = a.stride;
  const body = `${nchw([N, C / T, H, W], ['b', 'ct', 'iy', 'ix'])}
let c0 = ct * ${u32Lit(T)};
let g = c0 / ${u32Lit(CG)};
let ic0 = c0 % ${u32Lit(CG)};
${acc.map((v) => `var ${v} = 0.0;`).join('\n')}
for (var q = 0u; q < ${u32Lit(OG)}; q = q + 1u) {
  let oc = g * ${u32Lit(OG)} + q;
  for (var ky = 0; ky < ${KH}; ky = ky + 1) {
    let ty = iy + ${a.padding[0]} - ky * ${a.dilation[0]};
    if (ty < 0 || ty % ${sh} != 0 || ty / ${sh} >= ${HO}) { continue; }
    for (var kx = 0; kx < ${KW}; kx = kx + 1) {
      let tx = ix + ${a.padding[1]} - kx * ${a.dilation[1]};
      if (tx < 0 || tx % ${sw} != 0 || tx / ${sw} >= ${WO}) { continue; }
      let dv = ${name(0)}[((b * ${u32Lit(O)} + oc) * ${u32Lit(HO)} + u32(ty / ${sh})) * ${u32Lit(WO)} + u32(tx / ${sw})];
      let wi = ((oc * ${u32Lit(CG)} + ic0) * ${u32Lit(KH)} + u32(ky)) * ${u32Lit(KW)} + u32(kx);
${acc.map((v, t) => `      ${v} = fma(dv, ${name(1)}[wi${t ? ` + ${u32Lit(t * KH * KW)}` : ''}], ${v});`).join('\n')}
    }
  }
}
let xo = ((b * ${u32Lit(C)} + c0) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix);
${acc.map((v, t) => `y[xo${t ? ` + ${u32Lit(t * H * W)}` : ''}] = ${v};`).join('\n')}`;
  return perElementPlan(spec, caps, `conv2dGradInput (gather-style transposed conv): a thread per input pixel × ${T} input channels`, buffers, n / T, body);
}

/** `conv2dGradWeight` [x, dy] → dw: a workgroup per weight element, threads split N·Ho·Wo, tree sum. */
export function conv2dGradWeightKernel(spec: KernelSpec<'conv2dGradWeight'>, caps: DeviceCaps): KernelPlan {
  const a = spec.node.attrs;
  const [N, C, H, W] = spec.inputs[0].shape;
  const [, O, HO, WO] = spec.inputs[1].shape;
  const [, CG, KH, KW] = spec.node.shape;
  const nw = numel(spec.node.shape);
  if (nw === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const total = N * HO * WO;
  // threads per weight element: each sums ≥ 32 products, so short sums (small batches, late layers) do not pay
  // a 256-wide tree of barriers for a handful of products each (measured: LeNet's conv2 at batch 16, 3.4× faster)
  const wg = Math.min(linearWorkgroupSize(caps), 256, Math.max(32, 2 ** Math.floor(Math.log2(Math.max(1, total / 32)))));
  const g = linearGrid(spec, nw, caps);
  const { buffers, name } = bindOperands(spec, [0, 1], ['x', 'dy']);
  const body = `let kx = i32(o % ${u32Lit(KW)});
let ky = i32((o / ${u32Lit(KW)}) % ${u32Lit(KH)});
let ic = (o / ${u32Lit(KW * KH)}) % ${u32Lit(CG)};
let oc = o / ${u32Lit(KW * KH * CG)};
let c = (oc / ${u32Lit(OG)}) * ${u32Lit(CG)} + ic;
var acc = 0.0;
for (var t = lid; t < ${u32Lit(total)}; t = t + ${u32Lit(wg)}) {
  let ox = i32(t % ${u32Lit(WO)});
  let oy = i32((t / ${u32Lit(WO)}) % ${u32Lit(HO)});
  let b = t / ${u32Lit(WO * HO)};
  let iy = oy * ${a.stride[0]} - ${a.padding[0]} + ky * ${a.dilation[0]};
  let ix = ox * ${a.stride[1]} - ${a.padding[1]} + kx * ${a.dilation[1]};
  if (iy >= 0 && iy < ${H} && ix >= 0 && ix < ${W}) {
    acc = fma(${name(0)}[((b * ${u32Lit(C)} + c) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix)], ${name(1)}[((b * ${u32Lit(O)} + oc) * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)], acc);
  }
}
let s = wg_sum(acc, lid);
if (lid == 0u) { y[o] = s; }`;
  const strategy = `conv2dGradWeight: a workgroup of ${wg} per weight element sums ${total} products (tree in shared memory)`;
  return planOf([shaderDispatch(spec, { strategy, buffers, main: perWorkgroupMain(wg, g.index, u32Lit(nw), body), workgroupSize: wg, grid: g.grid })]);
}

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

// NCHW convolution forward and backward as direct loops with every extent baked: a thread per output element
// (conv2d; conv2dGradInput gather-style: each input element sums the windows that touch it, so no atomics) and a
// workgroup per weight element for conv2dGradWeight. The fallback of the implicit GEMM (convGemm.ts) where tiles
// would be mostly padding (depthwise, a few channels) or do not fit the device; conv.ts holds the rule.

import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, type BufferVar, perElementDispatch, perWorkgroupMain, planOf, shaderDispatch } from './shader.js';
import { linearGrid, linearWorkgroupSize, u32Lit } from './wgsl.js';

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
export function conv2dDirectKernel(spec: KernelSpec<'conv2d'>, caps: DeviceCaps): KernelPlan {
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
export function conv2dGradInputDirectKernel(spec: KernelSpec<'conv2dGradInput'>, caps: DeviceCaps): KernelPlan {
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
export function conv2dGradWeightDirectKernel(spec: KernelSpec<'conv2dGradWeight'>, caps: DeviceCaps): KernelPlan {
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

// The three NCHW convolution ops as implicit GEMMs (convGemm.ts), per channel group g, im2col never materialised:
//   conv2d            y[n,o,·]  : M = O/G  N = N·Ho·Wo  K = C/G·Kh·Kw   A = w (rows),  B = im2col(x) gathered
//   conv2dGradInput   dx[n,c,·] : M = C/G  N = N·H·W    K = O/G·Kh·Kw   A = wᵀ per group, B = dy gathered through
//                                 the transposed window (a tap counts where (i + pad − k·dil) is a multiple of stride)
//   conv2dGradWeight  dw[o,c,·] : M = O/G  N = C/G·Kh·Kw K = N·Ho·Wo    A = dy, B = im2col(x)ᵀ gathered
// Padding taps read 0 (they add nothing, as the interpreter skips them). A 1x1 kernel without padding drops the
// window arithmetic: its B is a strided read of x (conv2d) and of dy (the gradients), i.e. a plain matmul.
// With a stride, conv2dGradInput splits by phase (`convGradInputPhasesOf`): input pixels with the same
// (iy + pad) mod stride have the same taps (those with ky·dil ≡ that residue), so each phase is a GEMM over its own
// pixels and its own taps only, not stride² times the work with most taps masked out.

import { numel } from '@neura/ir';
import type { KernelSpec } from './kernel.js';
import type { ImplicitGemm } from './convGemm.js';
import { bindOperands } from './shader.js';
import { u32Lit } from './wgsl.js';

/** The conv ops that have an implicit-GEMM form. */
export type ConvOp = 'conv2d' | 'conv2dGradInput' | 'conv2dGradWeight';

/** Extents of a convolution, read from the op's operands and result. */
interface ConvDims {
  Nb: number;
  C: number;
  H: number;
  W: number;
  O: number;
  CG: number;
  OG: number;
  KH: number;
  KW: number;
  HO: number;
  WO: number;
}

function dimsOf(spec: KernelSpec<ConvOp>): ConvDims {
  const { node, inputs } = spec;
  const x = node.op === 'conv2dGradInput' ? node.shape : inputs[0].shape;
  const w = node.op === 'conv2dGradWeight' ? node.shape : inputs[1].shape;
  const y = node.op === 'conv2d' ? node.shape : node.op === 'conv2dGradInput' ? inputs[0].shape : inputs[1].shape;
  const [Nb, C, H, W] = x;
  const [O, CG, KH, KW] = w;
  return { Nb, C, H, W, O, CG, OG: O / node.attrs.groups, KH, KW, HO: y[2], WO: y[3] };
}

/** A 1x1 kernel without padding: every tap is in range, no window arithmetic. */
const pointwiseWindow = (spec: KernelSpec<ConvOp>, d: ConvDims) => d.KH === 1 && d.KW === 1 && spec.node.attrs.padding[0] === 0 && spec.node.attrs.padding[1] === 0;

/** ` + c` or ` - |c|` for an i32 constant. */
const plus = (c: number) => (c < 0 ? ` - ${-c}` : ` + ${c}`);

/** `(i32 expr) * f`, leaving out a factor of 1. */
const times = (e: string, f: number) => (f === 1 ? e : `${e} * ${f}`);

/** The implicit GEMM of a conv op (see the table at the top). */
export function convGemmOf(spec: KernelSpec<ConvOp>): ImplicitGemm {
  const d = dimsOf(spec);
  const a = spec.node.attrs;
  const [s0, s1] = a.stride;
  const [p0, p1] = a.padding;
  const [d0, d1] = a.dilation;
  const { Nb, C, H, W, O, CG, OG, KH, KW, HO, WO } = d;
  const KHW = KH * KW;
  const HW = H * W;
  const HWo = HO * WO;
  const pw = pointwiseWindow(spec, d);
  const groups = a.groups;
  const outSize = numel(spec.node.shape);
  const U = u32Lit;
  const inRange = (iy: string, ix: string) => `${iy} >= 0 && ${iy} < ${H} && ${ix} >= 0 && ${ix} < ${W}`;
  if (spec.node.op === 'conv2d') {
    const { buffers, name } = bindOperands(spec, [0, 1], ['x', 'w']);
    const K = CG * KHW;
    return {
      spec,
      M: OG,
      N: Nb * HWo,
      K,
      groups,
      buffers: buffers.slice(0, -1),
      a: { fast: 'k', setup: (m, s) => `let wr${s} = (g * ${U(OG)} + ${m}) * ${U(K)};`, load: (k, s, r) => `${r} = ${name(1)}[wr${s} + ${k}];` },
      b: pw
        ? {
            fast: 'x',
            setup: (n, s) => `let p${s} = ${n} % ${U(HWo)}; let xb${s} = (${n} / ${U(HWo)}) * ${U(C * HW)} + g * ${U(CG * HW)} + (p${s} / ${U(WO)}) * ${U(s0 * W)} + (p${s} % ${U(WO)}) * ${U(s1)};`,
            load: (k, s, r) => `${r} = ${name(0)}[xb${s} + ${k} * ${U(HW)}];`,
          }
        : {
            fast: 'x',
            setup: (n, s) =>
              `let p${s} = ${n} % ${U(HWo)}; let iy${s} = ${times(`i32(p${s} / ${U(WO)})`, s0)} - ${p0}; let ix${s} = ${times(`i32(p${s} % ${U(WO)})`, s1)} - ${p1}; let xb${s} = (${n} / ${U(HWo)}) * ${U(C * HW)} + g * ${U(CG * HW)};`,
            kpart: (k, q) =>
              `let ci${q} = (${k} / ${U(KHW)}) * ${U(HW)}; let t${q} = ${k} % ${U(KHW)}; let ky${q} = ${times(`i32(t${q} / ${U(KW)})`, d0)}; let kx${q} = ${times(`i32(t${q} % ${U(KW)})`, d1)};`,
            load: (_, s, r, q) => `let iy = iy${s} + ky${q}; let ix = ix${s} + kx${q}; if (${inRange('iy', 'ix')}) { ${r} = ${name(0)}[xb${s} + ci${q} + u32(iy) * ${U(W)} + u32(ix)]; }`,
          },
      outColumn: (n, s) => `let cb${s} = (${n} / ${U(HWo)}) * ${U(O * HWo)} + g * ${U(OG * HWo)} + ${n} % ${U(HWo)};`,
      rowStride: HWo,
      outSize,
      what: `conv2d: y = w · im2col(x)`,
    };
  }
  if (spec.node.op === 'conv2dGradInput') {
    const { buffers, name } = bindOperands(spec, [0, 1], ['dy', 'w']);
    // a tap of input pixel (iy, ix) reads dy at ((iy + pad − ky·dil) / stride, …) where that divides exactly
    const tap = (t: string, st: number, lim: number) => (st === 1 ? `${t} >= 0 && ${t} < ${lim}` : `${t} >= 0 && ${t} % ${st} == 0 && ${t} / ${st} < ${lim}`);
    const at = (t: string, st: number) => (st === 1 ? `u32(${t})` : `u32(${t} / ${st})`);
    return {
      spec,
      M: CG,
      N: Nb * HW,
      K: OG * KHW,
      groups,
      buffers: buffers.slice(0, -1),
      a: {
        fast: 'k',
        setup: (m, s) => `let wr${s} = g * ${U(OG * CG * KHW)} + ${m} * ${U(KHW)};`,
        kpart: (k, q) => `let wk${q} = (${k} / ${U(KHW)}) * ${U(CG * KHW)} + ${k} % ${U(KHW)};`,
        load: (_, s, r, q) => `${r} = ${name(1)}[wr${s} + wk${q}];`,
      },
      b:
        pw && s0 === 1 && s1 === 1
          ? {
              fast: 'x',
              setup: (n, s) => `let db${s} = (${n} / ${U(HW)}) * ${U(O * HWo)} + g * ${U(OG * HWo)} + ${n} % ${U(HW)};`,
              load: (k, s, r) => `${r} = ${name(0)}[db${s} + ${k} * ${U(HWo)}];`,
            }
          : {
              fast: 'x',
              setup: (n, s) =>
                `let p${s} = ${n} % ${U(HW)}; let ty${s} = i32(p${s} / ${U(W)}) + ${p0}; let tx${s} = i32(p${s} % ${U(W)}) + ${p1}; let db${s} = (${n} / ${U(HW)}) * ${U(O * HWo)} + g * ${U(OG * HWo)};`,
              kpart: (k, q) =>
                `let qo${q} = (${k} / ${U(KHW)}) * ${U(HWo)}; let t${q} = ${k} % ${U(KHW)}; let ky${q} = ${times(`i32(t${q} / ${U(KW)})`, d0)}; let kx${q} = ${times(`i32(t${q} % ${U(KW)})`, d1)};`,
              load: (_, s, r, q) =>
                `let ty = ty${s} - ky${q}; let tx = tx${s} - kx${q}; if (${tap('ty', s0, HO)} && ${tap('tx', s1, WO)}) { ${r} = ${name(0)}[db${s} + qo${q} + ${at('ty', s0)} * ${U(WO)} + ${at('tx', s1)}]; }`,
            },
      outColumn: (n, s) => `let cb${s} = (${n} / ${U(HW)}) * ${U(C * HW)} + g * ${U(CG * HW)} + ${n} % ${U(HW)};`,
      rowStride: HW,
      outSize,
      what: `conv2dGradInput: dx = wᵀ · dy gathered through the transposed window`,
    };
  }
  const { buffers, name } = bindOperands(spec, [0, 1], ['x', 'dy']);
  const N = CG * KHW;
  return {
    spec,
    M: OG,
    N,
    K: Nb * HWo,
    groups,
    buffers: buffers.slice(0, -1),
    a: {
      fast: 'k',
      setup: (m, s) => `let ar${s} = (g * ${U(OG)} + ${m}) * ${U(HWo)};`,
      kpart: (k, q) => `let ak${q} = (${k} / ${U(HWo)}) * ${U(O * HWo)} + ${k} % ${U(HWo)};`,
      load: (_, s, r, q) => `${r} = ${name(1)}[ak${q} + ar${s}];`,
    },
    b: pw
      ? {
          fast: 'k',
          setup: (n, s) => `let xo${s} = (g * ${U(CG)} + ${n}) * ${U(HW)};`,
          kpart: (k, q) => `let p${q} = ${k} % ${U(HWo)}; let bk${q} = (${k} / ${U(HWo)}) * ${U(C * HW)} + (p${q} / ${U(WO)}) * ${U(s0 * W)} + (p${q} % ${U(WO)}) * ${U(s1)};`,
          load: (_, s, r, q) => `${r} = ${name(0)}[bk${q} + xo${s}];`,
        }
      : {
          fast: 'k',
          setup: (n, s) =>
            `let t${s} = ${n} % ${U(KHW)}; let oy${s} = ${times(`i32(t${s} / ${U(KW)})`, d0)} - ${p0}; let ox${s} = ${times(`i32(t${s} % ${U(KW)})`, d1)} - ${p1}; let xo${s} = (g * ${U(CG)} + ${n} / ${U(KHW)}) * ${U(HW)};`,
          kpart: (k, q) =>
            `let p${q} = ${k} % ${U(HWo)}; let bk${q} = (${k} / ${U(HWo)}) * ${U(C * HW)}; let py${q} = ${times(`i32(p${q} / ${U(WO)})`, s0)}; let px${q} = ${times(`i32(p${q} % ${U(WO)})`, s1)};`,
          load: (_, s, r, q) => `let iy = py${q} + oy${s}; let ix = px${q} + ox${s}; if (${inRange('iy', 'ix')}) { ${r} = ${name(0)}[bk${q} + xo${s} + u32(iy) * ${U(W)} + u32(ix)]; }`,
        },
    outColumn: (n, s) => `let cb${s} = g * ${U(OG * N)} + ${n};`,
    rowStride: N,
    outSize,
    what: `conv2dGradWeight: dw = dy · im2col(x)ᵀ`,
  };
}

/**
 * The taps of phase r along one axis: ky with ky·d ≡ r (mod s), as first + u·step for u < count (solutions of a
 * linear congruence: an arithmetic progression); and the input positions of the phase, i0 + j·s for j < extent.
 */
function phaseAxis(r: number, s: number, d: number, k: number, p: number, size: number) {
  const taps = Array.from({ length: k }, (_, t) => t).filter((t) => (((t * d - r) % s) + s) % s === 0);
  const step = taps.length > 1 ? taps[1] - taps[0] : 1;
  const i0 = (((r - p) % s) + s) % s;
  const first = taps[0] ?? 0;
  // dy row of (i0 + j·s, first + u·step): j + base − u·delta (both exact divisions: every term ≡ r mod s; no taps: unused)
  return { first, step, count: taps.length, i0, extent: i0 < size ? Math.ceil((size - i0) / s) : 0, base: taps.length ? (i0 + p - first * d) / s : 0, delta: taps.length > 1 ? (step * d) / s : 0 };
}

/**
 * conv2dGradInput with a stride, as one GEMM per phase (ry, rx) of (iy + pad) mod stride: M = C/G, N = N·(its
 * pixels), K = O/G·(its taps). A phase without taps has K = 0 (its pixels get zeros); one without pixels is left out.
 */
export function convGradInputPhasesOf(spec: KernelSpec<'conv2dGradInput'>): ImplicitGemm[] {
  const d = dimsOf(spec);
  const a = spec.node.attrs;
  const { Nb, C, H, W, O, CG, OG, KH, KW, HO, WO } = d;
  const KHW = KH * KW;
  const HW = H * W;
  const HWo = HO * WO;
  const U = u32Lit;
  const { buffers, name } = bindOperands(spec, [0, 1], ['dy', 'w']);
  const out: ImplicitGemm[] = [];
  for (let ry = 0; ry < a.stride[0]; ry++)
    for (let rx = 0; rx < a.stride[1]; rx++) {
      const y = phaseAxis(ry, a.stride[0], a.dilation[0], KH, a.padding[0], H);
      const x = phaseAxis(rx, a.stride[1], a.dilation[1], KW, a.padding[1], W);
      const PP = y.extent * x.extent;
      if (PP === 0) continue;
      const NV = Math.max(1, x.count);
      const UV = Math.max(1, y.count * x.count);
      out.push({
        spec,
        M: CG,
        N: Nb * PP,
        K: OG * y.count * x.count,
        groups: a.groups,
        buffers: buffers.slice(0, -1),
        a: {
          fast: 'k',
          setup: (m, s) => `let wr${s} = g * ${U(OG * CG * KHW)} + ${m} * ${U(KHW)};`,
          kpart: (k, q) => `let wk${q} = (${k} / ${U(UV)}) * ${U(CG * KHW)} + (${U(y.first)} + ((${k} % ${U(UV)}) / ${U(NV)}) * ${U(y.step)}) * ${U(KW)} + ${U(x.first)} + (${k} % ${U(NV)}) * ${U(x.step)};`,
          load: (_, s, r, q) => `${r} = ${name(1)}[wr${s} + wk${q}];`,
        },
        b: {
          fast: 'x',
          setup: (n, s) =>
            `let oy${s} = i32((${n} % ${U(PP)}) / ${U(x.extent)})${plus(y.base)}; let ox${s} = i32(${n} % ${U(x.extent)})${plus(x.base)}; let db${s} = (${n} / ${U(PP)}) * ${U(O * HWo)} + g * ${U(OG * HWo)};`,
          kpart: (k, q) => `let qo${q} = (${k} / ${U(UV)}) * ${U(HWo)}; let u${q} = ${times(`i32((${k} % ${U(UV)}) / ${U(NV)})`, y.delta)}; let v${q} = ${times(`i32(${k} % ${U(NV)})`, x.delta)};`,
          load: (_, s, r, q) => `let oy = oy${s} - u${q}; let ox = ox${s} - v${q}; if (oy >= 0 && oy < ${HO} && ox >= 0 && ox < ${WO}) { ${r} = ${name(0)}[db${s} + qo${q} + u32(oy) * ${U(WO)} + u32(ox)]; }`,
        },
        outColumn: (n, s) =>
          `let cb${s} = (${n} / ${U(PP)}) * ${U(C * HW)} + g * ${U(CG * HW)} + (${U(y.i0)} + ((${n} % ${U(PP)}) / ${U(x.extent)}) * ${U(a.stride[0])}) * ${U(W)} + ${U(x.i0)} + (${n} % ${U(x.extent)}) * ${U(a.stride[1])};`,
        rowStride: HW,
        outSize: numel(spec.node.shape),
        what: `conv2dGradInput, phase (${ry}, ${rx}) of the stride: dx = wᵀ · dy over its ${y.count}x${x.count} taps`,
        tag: `:phase${ry}${rx}`,
      });
    }
  return out;
}

// `rope`: rotary position embedding, half-split (rotate_half / HF-LLaMA style) over [..., T, D]: the position is
// the index along axis −2; pair (a = x[i], b = x[i + D/2]) rotates by θ = t·base^(−2i/D) (inverse: by −θ).
// A thread per output element reads its pair. θ is formed in f32 from a baked inverse frequency, reduced to
// [−π, π] in two steps (Cody–Waite) before cos/sin, since WGSL bounds sin/cos error only on [−π, π].

import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, perElementDispatch, planOf } from './shader.js';
import { f32Lit, u32Lit } from './wgsl.js';

/** `rope` over the last two axes. */
export function ropeKernel(spec: KernelSpec<'rope'>, caps: DeviceCaps): KernelPlan {
  const { base, inverse } = spec.node.attrs;
  const s = spec.inputs[0].shape;
  const [t, dim] = [s[s.length - 2], s[s.length - 1]];
  const half = dim / 2;
  const n = numel(s);
  if (n === 0) return EMPTY_PLAN;
  const inv = Array.from({ length: half }, (_, i) => f32Lit(base ** ((-2 * i) / dim)));
  const { buffers } = bindOperands(spec, [0], ['x']);
  const body = `let i = o % ${u32Lit(dim)};
let row = o / ${u32Lit(dim)};
let pos = f32(row % ${u32Lit(t)});
let lo = i < ${u32Lit(half)};
let f = select(i - ${u32Lit(half)}, i, lo);
let th = pos * INV[f];
let kq = round(th * 0.159154943);
let r = (th - kq * 6.28125) - kq * 0.00193530717;
let c = cos(r);
let sn = ${inverse ? '-' : ''}sin(r);
let a = x[select(o - ${u32Lit(half)}, o, lo)];
let b = x[select(o, o + ${u32Lit(half)}, lo)];
y[o] = select(b * c + a * sn, a * c - b * sn, lo);`;
  const decls = [`const INV = array<f32, ${half}>(${inv.join(', ')});`];
  return planOf([perElementDispatch(spec, caps, { strategy: `rope: half-split rotation over [${t}, ${dim}]${inverse ? ' (inverse)' : ''}`, buffers, decls, n, body })]);
}

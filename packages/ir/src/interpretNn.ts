// Reference semantics of attention (forward and gradient), rotary embedding and dropout. Attention works in
// float64 per (leading index) head, materialising the scores: clarity over speed. Dropout's mask is a pure
// function of (seed, offset, flat index) so that GPU kernels reproduce it bit for bit.

import type { Node } from './graph.js';
import type { AttentionWindow } from './ops.js';
import { alloc, type Ctx, out } from './interpretCore.js';
import { numel } from './shape.js';
import type { TensorValue } from './tensorValue.js';

interface AttentionDims {
  heads: number;
  tq: number;
  tk: number;
  d: number;
  dv: number;
}

const dimsOf = (q: TensorValue, k: TensorValue, v: TensorValue): AttentionDims => {
  const r = q.shape.length;
  return { heads: numel(q.shape.slice(0, -2)), tq: q.shape[r - 2], tk: k.shape[r - 2], d: q.shape[r - 1], dv: v.shape[r - 1] };
};

/** Row i of head h's scores scale·q_i·k_j into `s` (−∞ where the causal mask hides key j). */
function scoreRow(q: TensorValue, k: TensorValue, m: AttentionDims, h: number, i: number, causal: boolean, scale: number, s: Float64Array): void {
  const [qo, ko] = [h * m.tq * m.d, h * m.tk * m.d];
  for (let j = 0; j < m.tk; j++) {
    if (causal && j > i) {
      s[j] = -Infinity;
      continue;
    }
    let acc = 0;
    for (let c = 0; c < m.d; c++) acc += q.data[qo + i * m.d + c] * k.data[ko + j * m.d + c];
    s[j] = acc * scale;
  }
}

/** The forward for all heads: output softmax(s)·v and each query row's log-sum-exp. */
function attentionForward(q: TensorValue, k: TensorValue, v: TensorValue, causal: boolean, scale: number): { o: Float64Array; lse: Float64Array } {
  const m = dimsOf(q, k, v);
  const o = new Float64Array(m.heads * m.tq * m.dv);
  const lse = new Float64Array(m.heads * m.tq);
  const s = new Float64Array(m.tk);
  for (let h = 0; h < m.heads; h++)
    for (let i = 0; i < m.tq; i++) {
      scoreRow(q, k, m, h, i, causal, scale, s);
      let mx = -Infinity;
      for (let j = 0; j < m.tk; j++) mx = Math.max(mx, s[j]);
      let z = 0;
      for (let j = 0; j < m.tk; j++) z += s[j] = Math.exp(s[j] - mx);
      const row = h * m.tq + i;
      lse[row] = mx + Math.log(z);
      for (let c = 0; c < m.dv; c++) {
        let acc = 0;
        for (let j = 0; j < m.tk; j++) acc += s[j] * v.data[(h * m.tk + j) * m.dv + c];
        o[row * m.dv + c] = acc / z;
      }
    }
  return { o, lse };
}

/**
 * The gradient with respect to one operand from the given log-sum-exp L and Δ (attentionGrad's definition):
 * P = exp(s − L), dS = P ⊙ (dO·vᵀ − Δ); dq = scale·dS·k, dk = scale·dSᵀ·q, dv = Pᵀ·dO.
 */
function attentionGradient(ins: readonly TensorValue[], causal: boolean, scale: number, wrt: 'q' | 'k' | 'v'): Float64Array {
  const [q, k, v, dO, L, delta] = ins;
  const m = dimsOf(q, k, v);
  const res = new Float64Array({ q: q.data.length, k: k.data.length, v: v.data.length }[wrt]);
  const s = new Float64Array(m.tk);
  for (let h = 0; h < m.heads; h++)
    for (let i = 0; i < m.tq; i++) {
      const row = h * m.tq + i;
      scoreRow(q, k, m, h, i, causal, scale, s);
      for (let j = 0; j < m.tk; j++) {
        const p = Math.exp(s[j] - L.data[row]);
        if (p === 0) continue;
        const [ko, vo] = [(h * m.tk + j) * m.d, (h * m.tk + j) * m.dv];
        if (wrt === 'v') {
          for (let c = 0; c < m.dv; c++) res[vo + c] += p * dO.data[row * m.dv + c];
          continue;
        }
        let dp = 0;
        for (let c = 0; c < m.dv; c++) dp += dO.data[row * m.dv + c] * v.data[vo + c];
        const ds = p * (dp - delta.data[row]) * scale;
        if (wrt === 'q') for (let c = 0; c < m.d; c++) res[row * m.d + c] += ds * k.data[ko + c];
        else for (let c = 0; c < m.d; c++) res[ko + c] += ds * q.data[row * m.d + c];
      }
    }
  return res;
}

const rounded = (node: Node, src: Float64Array, ctx: Ctx): TensorValue => {
  const d = alloc(node.shape, 'f32', ctx);
  for (let i = 0; i < d.length; i++) d[i] = ctx.round(src[i]);
  return out(node, d);
};

/**
 * Axes `ax` and `ax + 1` of `data` (shape `shape`, `ax` counted from the end when negative) swapped: a seq-major
 * operand ([..., T, H, D], or [..., T, H] for lse and delta) seen heads-major, or a heads-major result put back.
 */
function swapAxes(data: ArrayLike<number>, shape: readonly number[], ax: number): { data: Float64Array; shape: number[] } {
  const a = ax < 0 ? shape.length + ax : ax;
  const [outer, x, y, inner] = [numel(shape.slice(0, a)), shape[a], shape[a + 1], numel(shape.slice(a + 2))];
  const res = new Float64Array(data.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < x; i++)
      for (let j = 0; j < y; j++)
        for (let c = 0; c < inner; c++) res[((o * y + j) * x + i) * inner + c] = data[((o * x + i) * y + j) * inner + c];
  const sw = [...shape];
  [sw[a], sw[a + 1]] = [shape[a + 1], shape[a]];
  return { data: res, shape: sw };
}

/** Heads [off, off + heads) of a seq-major [..., T, W, D] tensor: [..., T, heads, D]. */
function headWindow(t: TensorValue, heads: number, off: number): TensorValue {
  const s = t.shape;
  const [w, d] = [s[s.length - 2], s[s.length - 1]];
  const rows = numel(s.slice(0, -2));
  const data = new Float64Array(rows * heads * d);
  for (let r = 0; r < rows; r++) for (let e = 0; e < heads * d; e++) data[r * heads * d + e] = t.data[(r * w + off) * d + e];
  return { ...t, shape: [...s.slice(0, -2), heads, d], data } as TensorValue;
}

/** The operands as the op reads them: q, k, v (the first three) cut to their head windows, if the op has them. */
function windowed(ins: readonly TensorValue[], a: Attrs): TensorValue[] {
  const w = a.window;
  return w ? ins.map((t, i) => (i < 3 ? headWindow(t, w.heads, w.offsets[i]) : t)) : [...ins];
}

/** The operands heads-major: q, k, v, dOut swap axes −3/−2, lse and delta (rank one less) −2/−1. */
function headsMajor(ins: readonly TensorValue[], seqMajor: boolean | undefined): TensorValue[] {
  if (!seqMajor) return [...ins];
  const rank = ins[0].shape.length;
  return ins.map((t) => ({ ...t, ...swapAxes(t.data, t.shape, t.shape.length === rank ? -3 : -2) }) as TensorValue);
}

/** A heads-major result in `node`'s layout: swapped back at axes `ax`, `ax + 1` (−3 for a tensor, −2 for lse). */
function inLayout(node: Node | { readonly shape: readonly number[] }, res: Float64Array, seqMajor: boolean | undefined, ax: -3 | -2): Float64Array {
  if (!seqMajor) return res;
  const a = node.shape.length + ax;
  const hm = [...node.shape];
  [hm[a], hm[a + 1]] = [node.shape[a + 1], node.shape[a]];
  return swapAxes(res, hm, ax).data;
}

type Attrs = { causal: boolean; scale: number; seqMajor?: boolean; deltaFromOut?: boolean; window?: AttentionWindow };

/** The forward on operands in `attrs`' layout: output and log-sum-exp, heads-major. */
const forwardOf = (ins: readonly TensorValue[], a: Attrs) => {
  const [q, k, v] = windowed(ins, a);
  const [hq, hk, hv] = headsMajor(v ? [q, k, v] : [q, k], a.seqMajor);
  const noValues = { shape: [...hk.shape.slice(0, -1), 0], dtype: hk.dtype, data: new Float64Array(0) } as TensorValue;
  return attentionForward(hq, hk, hv ?? noValues, a.causal, a.scale);
};

/** attention: softmax(scale·q·kᵀ (+ causal mask))·v. */
export function interpretAttention(node: Node<'attention'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  return rounded(node, inLayout(node, forwardOf(ins, node.attrs).o, node.attrs.seqMajor, -3), ctx);
}

/** attentionLse: log Σ_j exp(scale·q_i·k_j) over each query row's unmasked keys. */
export function interpretAttentionLse(node: Node<'attentionLse'>, [q, k]: readonly TensorValue[], ctx: Ctx): TensorValue {
  return rounded(node, inLayout(node, forwardOf([q, k], node.attrs).lse, node.attrs.seqMajor, -2), ctx);
}

/** The gradients' operands with Δ: operand 5 as given, or (`deltaFromOut`) rowsum(dOut ⊙ O) of the output O there. */
function withDelta(ins: readonly TensorValue[], deltaFromOut: boolean | undefined): TensorValue[] {
  if (!deltaFromOut) return [...ins];
  const [dO, o] = [ins[3], ins[5]];
  const n = dO.shape[dO.shape.length - 1];
  const delta = new Float64Array(n === 0 ? 0 : dO.data.length / n);
  for (let r = 0; r < delta.length; r++) {
    let acc = 0;
    for (let c = 0; c < n; c++) acc += dO.data[r * n + c] * o.data[r * n + c];
    delta[r] = acc;
  }
  return [...ins.slice(0, 5), { shape: dO.shape.slice(0, -1), dtype: 'f32', data: delta } as TensorValue];
}

/** attentionGrad: one of dq, dk, dv (from the given log-sum-exp and Δ). */
export function interpretAttentionGrad(node: Node<'attentionGrad'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { causal, scale, wrt, seqMajor, deltaFromOut } = node.attrs;
  return rounded(node, inLayout(node, attentionGradient(headsMajor(withDelta(windowed(ins, node.attrs), deltaFromOut), seqMajor), causal, scale, wrt), seqMajor, -3), ctx);
}

/** attentionWithLse: result 0 attention's output, result 1 the log-sum-exp (`pick`); `node` gives the result's shape. */
export function interpretAttentionWithLse(node: Node, attrs: Attrs, ins: readonly TensorValue[], index: number, ctx: Ctx): TensorValue {
  const r = forwardOf(ins, attrs);
  return rounded(node, index === 0 ? inLayout(node, r.o, attrs.seqMajor, -3) : inLayout(node, r.lse, attrs.seqMajor, -2), ctx);
}

/** attentionGradKV: result 0 dk, result 1 dv (`pick`); `node` gives the result's shape. */
export function interpretAttentionGradKV(node: Node, attrs: Attrs, ins: readonly TensorValue[], index: number, ctx: Ctx): TensorValue {
  const g = attentionGradient(headsMajor(withDelta(windowed(ins, attrs), attrs.deltaFromOut), attrs.seqMajor), attrs.causal, attrs.scale, index === 0 ? 'k' : 'v');
  return rounded(node, inLayout(node, g, attrs.seqMajor, -3), ctx);
}

/** attentionGradQKV: dq, dk and dv joined along the head axis: [..., T, 3H, D] (seq-major). */
export function interpretAttentionGradQKV(node: Node<'attentionGradQKV'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { causal, scale, seqMajor, deltaFromOut } = node.attrs;
  const s = node.shape;
  const [h, d] = [s[s.length - 2] / 3, s[s.length - 1]];
  const part = { shape: [...s.slice(0, -2), h, d] };
  const hm = headsMajor(withDelta(windowed(ins, node.attrs), deltaFromOut), seqMajor);
  const grads = (['q', 'k', 'v'] as const).map((wrt) => inLayout(part, attentionGradient(hm, causal, scale, wrt), seqMajor, -3));
  const row = h * d;
  const res = new Float64Array(numel(s));
  for (let r = 0; r < res.length / (3 * row); r++) for (const [p, g] of grads.entries()) res.set(g.subarray(r * row, (r + 1) * row), (3 * r + p) * row);
  return rounded(node, res, ctx);
}

/** rope: rotate half-split pairs by position-dependent angles. */
export function interpretRope(node: Node<'rope'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const s = x.shape;
  const [t, dim] = [s[s.length - 2], s[s.length - 1]];
  const half = dim / 2;
  const rows = numel(s) / dim;
  const sign = node.attrs.inverse ? -1 : 1;
  const d = alloc(node.shape, 'f32', ctx);
  for (let row = 0; row < rows; row++) {
    const pos = row % t;
    for (let i = 0; i < half; i++) {
      const theta = pos * node.attrs.base ** ((-2 * i) / dim);
      const [c, sn] = [Math.cos(theta), sign * Math.sin(theta)];
      const [a, b] = [x.data[row * dim + i], x.data[row * dim + i + half]];
      d[row * dim + i] = ctx.round(a * c - b * sn);
      d[row * dim + i + half] = ctx.round(b * c + a * sn);
    }
  }
  return out(node, d);
}

/** Chris Wellons' lowbias32 integer hash (u32 → u32), written with Math.imul so WGSL u32 math matches. */
export function lowbias32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether dropout keeps flat element `index`: lowbias32(index ^ lowbias32(seed + offset)) ≥ floor(p·2³²). */
export function dropoutKeeps(index: number, p: number, seed: number, offset = 0): boolean {
  const key = lowbias32((seed + offset) >>> 0);
  return lowbias32((index ^ key) >>> 0) >= Math.floor(p * 4294967296);
}

/** dropout: x·(1/(1 − p)) where kept, 0 elsewhere. */
export function interpretDropout(node: Node<'dropout'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const [x, off] = ins;
  const { p, seed } = node.attrs;
  const keyOffset = off ? off.data[0] : 0;
  const scale = ctx.round(1 / (1 - p));
  const d = alloc(node.shape, 'f32', ctx);
  for (let i = 0; i < d.length; i++) d[i] = dropoutKeeps(i, p, seed, keyOffset) ? ctx.round(x.data[i] * scale) : 0;
  return out(node, d);
}

// Reference semantics of attention (forward and gradient), rotary embedding and dropout. Attention works in
// float64 per (leading index) head, materialising the scores: clarity over speed. Dropout's mask is a pure
// function of (seed, offset, flat index) so that GPU kernels reproduce it bit for bit.

import type { Node } from './graph.js';
import { alloc, type Ctx, out } from './interpretCore.js';
import { numel } from './shape.js';
import type { TensorValue } from './tensorValue.js';

interface AttentionGrads {
  o: Float64Array;
  dq: Float64Array;
  dk: Float64Array;
  dv: Float64Array;
}

/** Attention for all heads; with `dO` also its gradients (dS = P ⊙ (dP − rowsum(dP ⊙ P))). */
function attentionCore(q: TensorValue, k: TensorValue, v: TensorValue, causal: boolean, scale: number, dO?: TensorValue): AttentionGrads {
  const r = q.shape.length;
  const [tq, d] = [q.shape[r - 2], q.shape[r - 1]];
  const tk = k.shape[r - 2];
  const dv = v.shape[r - 1];
  const heads = numel(q.shape.slice(0, -2));
  const res: AttentionGrads = {
    o: new Float64Array(heads * tq * dv),
    dq: new Float64Array(dO ? q.data.length : 0),
    dk: new Float64Array(dO ? k.data.length : 0),
    dv: new Float64Array(dO ? v.data.length : 0),
  };
  const p = new Float64Array(tq * tk);
  for (let h = 0; h < heads; h++) {
    const [qo, ko, vo, oo] = [h * tq * d, h * tk * d, h * tk * dv, h * tq * dv];
    for (let i = 0; i < tq; i++) {
      let mx = -Infinity;
      for (let j = 0; j < tk; j++) {
        let s = -Infinity;
        if (!causal || j <= i) {
          s = 0;
          for (let c = 0; c < d; c++) s += q.data[qo + i * d + c] * k.data[ko + j * d + c];
          s *= scale;
        }
        p[i * tk + j] = s;
        mx = Math.max(mx, s);
      }
      let z = 0;
      for (let j = 0; j < tk; j++) z += p[i * tk + j] = Math.exp(p[i * tk + j] - mx);
      for (let j = 0; j < tk; j++) p[i * tk + j] /= z;
      for (let c = 0; c < dv; c++) {
        let s = 0;
        for (let j = 0; j < tk; j++) s += p[i * tk + j] * v.data[vo + j * dv + c];
        res.o[oo + i * dv + c] = s;
      }
    }
    if (!dO) continue;
    for (let i = 0; i < tq; i++) {
      const dp = new Float64Array(tk);
      let rowDot = 0;
      for (let j = 0; j < tk; j++) {
        let s = 0;
        for (let c = 0; c < dv; c++) s += dO.data[oo + i * dv + c] * v.data[vo + j * dv + c];
        dp[j] = s;
        rowDot += s * p[i * tk + j];
      }
      for (let j = 0; j < tk; j++) {
        const pij = p[i * tk + j];
        for (let c = 0; c < dv; c++) res.dv[vo + j * dv + c] += pij * dO.data[oo + i * dv + c];
        const ds = pij * (dp[j] - rowDot) * scale;
        if (ds === 0) continue;
        for (let c = 0; c < d; c++) {
          res.dq[qo + i * d + c] += ds * k.data[ko + j * d + c];
          res.dk[ko + j * d + c] += ds * q.data[qo + i * d + c];
        }
      }
    }
  }
  return res;
}

const rounded = (node: Node, src: Float64Array, ctx: Ctx): TensorValue => {
  const d = alloc(node.shape, 'f32', ctx);
  for (let i = 0; i < d.length; i++) d[i] = ctx.round(src[i]);
  return out(node, d);
};

/** attention: softmax(scale·q·kᵀ (+ causal mask))·v. */
export function interpretAttention(node: Node<'attention'>, [q, k, v]: readonly TensorValue[], ctx: Ctx): TensorValue {
  return rounded(node, attentionCore(q, k, v, node.attrs.causal, node.attrs.scale).o, ctx);
}

/** attentionGrad: one of dq, dk, dv. */
export function interpretAttentionGrad(node: Node<'attentionGrad'>, [q, k, v, dO]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const r = attentionCore(q, k, v, node.attrs.causal, node.attrs.scale, dO);
  return rounded(node, { q: r.dq, k: r.dk, v: r.dv }[node.attrs.wrt], ctx);
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

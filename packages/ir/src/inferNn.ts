// Shape and dtype inference for the neural-network ops with their own kernels: attention (and its gradient),
// rotary embedding and dropout (and, below, convolution and pooling). Each failure names the op and the
// operands' shapes.

import { arity, fail, float, type Rule, type TensorType } from './inferCore.js';
import type { AttentionAttrs, OpAttrs } from './ops.js';
import { fmtShape, sameShape } from './shape.js';

/** Axes −3 and −2 swapped (a seq-major operand seen heads-major, or back). */
export const swapSeqHeads = (s: readonly number[]): number[] => [...s.slice(0, -3), s[s.length - 2], s[s.length - 3], s[s.length - 1]];

const attentionType = (op: string, ins: readonly TensorType[], seqMajor?: boolean): TensorType => {
  if (seqMajor) {
    if (ins.slice(0, 3).some((t) => t.shape.length < 3)) fail(op, 'seq-major q, k and v must have rank ≥ 3 ([..., T, H, D])', ins);
    const o = attentionType(op, ins.slice(0, 3).map((t) => ({ ...t, shape: swapSeqHeads(t.shape) })));
    return { ...o, shape: swapSeqHeads(o.shape) };
  }
  const [q, k, v] = ins;
  for (let i = 0; i < 3; i++) float(op, ins, i);
  const r = q.shape.length;
  if (r < 2 || k.shape.length !== r || v.shape.length !== r) fail(op, 'q, k and v must have the same rank ≥ 2 ([..., T, D])', ins);
  const lead = q.shape.slice(0, -2);
  if (!sameShape(k.shape.slice(0, -2), lead) || !sameShape(v.shape.slice(0, -2), lead))
    fail(op, `leading axes differ: q ${fmtShape(q.shape)}, k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  if (k.shape[r - 1] !== q.shape[r - 1]) fail(op, `q and k head sizes differ: ${q.shape[r - 1]} vs ${k.shape[r - 1]}`, ins);
  if (v.shape[r - 2] !== k.shape[r - 2]) fail(op, `k and v lengths differ: ${k.shape[r - 2]} vs ${v.shape[r - 2]}`, ins);
  return { shape: [...lead, q.shape[r - 2], v.shape[r - 1]], dtype: 'f32' };
};

/**
 * The operands as the op reads them: with head windows (`AttentionAttrs.window`), q, k and v (the first `n`) cut to
 * their windows' heads; the rest as given. Checks the window against each operand's heads.
 */
export function windowedTypes(op: string, ins: readonly TensorType[], a: AttentionAttrs, n: number): TensorType[] {
  const w = a.window;
  if (!w) return [...ins];
  if (!a.seqMajor) fail(op, 'head windows (window) need the seq-major layout (seqMajor)', ins);
  if (!(Number.isInteger(w.heads) && w.heads > 0) || w.offsets.length !== 3)
    fail(op, `window must have heads ≥ 1 and three offsets (q, k, v), got heads ${w.heads}, offsets [${w.offsets.join(', ')}]`, ins);
  return ins.map((t, i) => {
    if (i >= n) return t;
    const s = t.shape;
    const [r, off] = [s.length, w.offsets[i]];
    if (r < 3 || !Number.isInteger(off) || off < 0 || off + w.heads > s[r - 2])
      fail(op, `operand ${'qkv'[i]} ${fmtShape(s)}: head window [${off}, ${off + w.heads}) is outside its heads (axis −2)`, ins);
    return { ...t, shape: [...s.slice(0, -2), w.heads, s[r - 1]] };
  });
}

/** attention: q, k, v → [..., Tq, Dv]. */
export const inferAttention: Rule<OpAttrs['attention']> = (ins, a) => {
  arity('attention', ins, 3);
  return attentionType('attention', windowedTypes('attention', ins, a, 3), a.seqMajor);
};

/** attentionLse: q, k → [..., Tq]. */
export const inferAttentionLse: Rule<OpAttrs['attentionLse']> = (ins, a) => {
  arity('attentionLse', ins, 2);
  const [q, k] = windowedTypes('attentionLse', ins, a, 2);
  attentionType('attentionLse', [q, k, k], a.seqMajor);
  return { shape: q.shape.slice(0, -1), dtype: 'f32' };
};

/** attentionGrad: q, k, v, dOut, lse, delta → the gradient of one operand. */
export const inferAttentionGrad: Rule<OpAttrs['attentionGrad']> = (given, a) => {
  arity('attentionGrad', given, 6);
  const ins = windowedTypes('attentionGrad', given, a, 3);
  const o = attentionType('attentionGrad', ins, a.seqMajor);
  if (!sameShape(ins[3].shape, o.shape)) fail('attentionGrad', `dOut must be ${fmtShape(o.shape)}, got ${fmtShape(ins[3].shape)}`, ins);
  const rows = o.shape.slice(0, -1);
  for (const [i, name] of [[4, 'lse'], [5, 'delta']] as const) {
    float('attentionGrad', ins, i);
    if (i === 5 && a.deltaFromOut) {
      if (!sameShape(ins[i].shape, o.shape)) fail('attentionGrad', `out (operand 5 with deltaFromOut) must be ${fmtShape(o.shape)} as dOut, got ${fmtShape(ins[i].shape)}`, ins);
    } else if (!sameShape(ins[i].shape, rows)) fail('attentionGrad', `${name} must be ${fmtShape(rows)} (a value per query row), got ${fmtShape(ins[i].shape)}`, ins);
  }
  return ins[{ q: 0, k: 1, v: 2 }[a.wrt]];
};

/** attentionWithLse: q, k, v → attention's output [..., Tq, Dv] (result 1, the log-sum-exp, is [..., Tq]). */
export const inferAttentionWithLse: Rule<OpAttrs['attentionWithLse']> = (ins, a) => {
  arity('attentionWithLse', ins, 3);
  return attentionType('attentionWithLse', windowedTypes('attentionWithLse', ins, a, 3), a.seqMajor);
};

/** attentionGradKV: attentionGrad's operands, v shaped as k → dk (result 1, dv, has the same type). */
export const inferAttentionGradKV: Rule<OpAttrs['attentionGradKV']> = (ins, a) => {
  arity('attentionGradKV', ins, 6);
  const [, k, v] = windowedTypes('attentionGradKV', ins, a, 3);
  if (!sameShape(k.shape, v.shape)) fail('attentionGradKV', `v must be shaped as k (its two results share a type): k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  return inferAttentionGrad(ins, { ...a, wrt: 'k' });
};

/** attentionGradQKV: attentionGrad's operands, seq-major, q, k and v of one shape → [..., T, 3H, D] (dq, dk, dv along the heads). */
export const inferAttentionGradQKV: Rule<OpAttrs['attentionGradQKV']> = (ins, a) => {
  arity('attentionGradQKV', ins, 6);
  if (!a.seqMajor) fail('attentionGradQKV', 'needs the seq-major layout (seqMajor): its result joins dq, dk and dv along the head axis', ins);
  const [q, k, v] = windowedTypes('attentionGradQKV', ins, a, 3);
  if (!sameShape(q.shape, k.shape) || !sameShape(k.shape, v.shape))
    fail('attentionGradQKV', `q, k and v must have one shape (their gradients join along the heads): q ${fmtShape(q.shape)}, k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  const dq = inferAttentionGrad(ins, { ...a, wrt: 'q' });
  const r = dq.shape.length;
  return { ...dq, shape: [...dq.shape.slice(0, -2), 3 * dq.shape[r - 2], dq.shape[r - 1]] };
};

/** rope: same shape, even last axis. */
export const inferRope: Rule<OpAttrs['rope']> = (ins) => {
  arity('rope', ins, 1);
  float('rope', ins, 0);
  const s = ins[0].shape;
  if (s.length < 2 || s[s.length - 1] % 2 !== 0) fail('rope', `input must be [..., T, D] with D even, got ${fmtShape(s)}`, ins);
  return ins[0];
};

/** dropout: same shape; an optional i32 scalar offset mixed into the seed. */
export const inferDropout: Rule<OpAttrs['dropout']> = (ins, a) => {
  if (ins.length !== 1 && ins.length !== 2) fail('dropout', `expects 1 or 2 operands, got ${ins.length}`, ins);
  float('dropout', ins, 0);
  if (ins.length === 2 && (ins[1].dtype !== 'i32' || ins[1].shape.length !== 0)) fail('dropout', 'the seed offset must be an i32 scalar', ins);
  if (!(a.p >= 0 && a.p < 1)) fail('dropout', `p must be in [0, 1), got ${a.p}`, ins);
  if (!(Number.isInteger(a.seed) && a.seed >= 0 && a.seed <= 0xffffffff)) fail('dropout', `seed must be a u32, got ${a.seed}`, ins);
  return ins[0];
};

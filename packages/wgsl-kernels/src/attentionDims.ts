// The dimensions of an attention-family op (heads, query and key lengths, head sizes) and the WGSL row index of
// its two layouts, shared by the flash kernels (flashAttention.ts) and the tiled gradients
// (flashAttentionTiledGrad.ts).

import { type AttentionAttrs, numel } from '@neura/ir';
import type { KernelSpec } from './kernel.js';
import { u32Lit } from './wgsl.js';

/** Heads (product of the leading axes), query and key lengths, and the q/k and v head sizes of an attention op. */
export interface AttentionDims {
  /** Heads in all: the product of the leading axes (seq-major: of those before T, times H). */
  readonly heads: number;
  /** Seq-major layout ([..., T, H, D]): H, the heads per sequence; 0 for the heads-major layout. */
  readonly seqHeads: number;
  /** Query positions T_q. */
  readonly tq: number;
  /** Key/value positions T_k. */
  readonly tk: number;
  /** Features per head of q and k. */
  readonly d: number;
  /** Features per head of v (and of the output). */
  readonly dv: number;
  /**
   * Seq-major tensors stored as head windows of wider rows, by binding name (q, k, v; the results y, y2): absent
   * where a tensor's rows hold exactly its H heads.
   */
  readonly views: Readonly<Partial<Record<ViewedTensor, HeadView>>>;
}

/** The tensors of an attention kernel that may be head windows of wider tensors. */
export type ViewedTensor = 'q' | 'k' | 'v' | 'y' | 'y2';

/** A seq-major tensor's rows inside a wider one: `width` heads per (…, t) row, this tensor's first head at `offset`. */
export interface HeadView {
  readonly width: number;
  readonly offset: number;
}

/** The dimensions of an attention-family spec (operands q, k[, v, ...]; `attentionLse` has no v: Dv = 0). */
export function attentionDims(spec: KernelSpec): AttentionDims {
  const [q, k, v] = spec.inputs;
  const r = q.shape.length;
  const dv = v ? v.shape[r - 1] : 0;
  const { seqMajor, window } = spec.node.attrs as AttentionAttrs;
  if (seqMajor) {
    const h = window ? window.heads : q.shape[r - 2];
    const views: Partial<Record<ViewedTensor, HeadView>> = {};
    if (window) for (const [i, t] of spec.inputs.slice(0, 3).entries()) views[(['q', 'k', 'v'] as const)[i]] = { width: t.shape[r - 2], offset: window.offsets[i] };
    return { heads: numel(q.shape.slice(0, -3)) * h, seqHeads: h, tq: q.shape[r - 3], tk: k.shape[r - 3], d: q.shape[r - 1], dv, views };
  }
  return { heads: numel(q.shape.slice(0, -2)), seqHeads: 0, tq: q.shape[r - 2], tk: k.shape[r - 2], d: q.shape[r - 1], dv, views: {} };
}

/** The same dimensions with results written as head windows (a packed gradient writing into one wider tensor). */
export const withResultViews = (dm: AttentionDims, y?: HeadView, y2?: HeadView): AttentionDims => ({ ...dm, views: { ...dm.views, ...(y ? { y } : {}), ...(y2 ? { y2 } : {}) } });

/**
 * WGSL for the flat row index of row `t` of head `h` (a WGSL u32 variable) in a tensor of `rows` rows per head:
 * heads-major h·T + t; seq-major (b, n) = (h / H, h % H) at (b·T + t)·H + n, or (b·T + t)·W + offset + n in a head
 * window (`view`: the binding's name in `dm.views`). Rows of q, k, v, dOut and the results
 * are D or Dv floats long at that index; lse and delta hold one float there.
 */
export const rowIndex = (dm: AttentionDims, t: string, rows: number, view?: ViewedTensor): string => {
  if (dm.seqHeads === 0) return `(h * ${u32Lit(rows)} + ${t})`;
  // a head window: rows of `width` heads, this tensor's heads from `offset` (the columns of a fused projection)
  const v = view ? dm.views[view] : undefined;
  const [width, off] = v ? [v.width, v.offset] : [dm.seqHeads, 0];
  return `((h / ${u32Lit(dm.seqHeads)}) * ${u32Lit(rows * width)} + (${t}) * ${u32Lit(width)} + ${off > 0 ? `${u32Lit(off)} + ` : ''}h % ${u32Lit(dm.seqHeads)})`;
};


/**
 * `dst = Δ` of query row `ri` (a WGSL u32) from its dO and output rows (`dout`, `rowdot` as vec4 arrays, `v4` vec4
 * each), written out so that all its loads are in flight at once (a loop would wait on each pair in turn).
 */
export const rowDelta = (ri: string, v4: number, dst = 'val') =>
  `${dst} = ${Array.from({ length: v4 }, (_, c) => `dot(dout[${ri} * ${u32Lit(v4)} + ${u32Lit(c)}], rowdot[${ri} * ${u32Lit(v4)} + ${u32Lit(c)}])`).join(' + ')};`;

/**
 * The read bindings 0–5 of every attention-gradient kernel: q, k, v, dO, the log-sum-exp and `rowdot` — Δ per query
 * row, or (deltaFromOut) attention's output rows, Δ = dO·O computed where the rows' statistics are staged.
 */
export function gradReadBindings(deltaFromOut: boolean): string[] {
  return [
    '@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;',
    '@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;',
    '@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;',
    '@group(0) @binding(3) var<storage, read> dout: array<vec4<f32>>;',
    '@group(0) @binding(4) var<storage, read> lse: array<f32>;',
    `@group(0) @binding(5) var<storage, read> rowdot: array<${deltaFromOut ? 'vec4<f32>' : 'f32'}>;`,
  ];
}

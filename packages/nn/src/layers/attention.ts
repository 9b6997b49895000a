// Multi-head self-attention with grouped-query heads (kvHeads ≤ heads, each K/V head shared by heads/kvHeads
// query heads, as LLaMA's repeat_kv), optional rotary embeddings and a causal mask, in two parameter layouts:
// `fused` (nanoGPT: one `c_attn` [W, (H + 2·Hkv)·D] and `c_proj`) and `separate` (LLaMA / HF: `q_proj`,
// `k_proj`, `v_proj`, `o_proj`). Two graphs from the same leaves: `forward` over a whole sequence (ir's
// attention op, or decomposed as softmax(masked_fill(scale·q·kᵀ, −∞))·v with the mask built in-graph by
// `Graph.futureMask`, which compileTraining recognizes as the op again), and `decode` for one new token against a
// KV cache held in state buffers (`<prefix>.cache.k/v` [B, Hkv, maxLen, D]) that the step updates in place.
// RoPE pairs features half-split (i, i + D/2; HF LLaMA's rotate_half, ir's rope op) or interleaved (2i, 2i + 1;
// GPT-J, Meta LLaMA): interleaved is run as half-split on q and k with each head's features reordered evens
// then odds, which gives the same scores q·k (the same reorder of both), so the same output.
// Invariant: decode at position t computes what forward computes for row t (tested to float tolerance).

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { Module, paramName } from '../module.js';
import { Dropout } from './dropout.js';
import { Linear } from './linear.js';

/** Options of a self-attention layer. */
export interface AttentionOptions {
  /** Query heads (must divide the width). */
  heads: number;
  /** Key/value heads (must divide `heads`; default `heads`: plain multi-head attention). */
  kvHeads?: number;
  /** Mask future positions (default true). */
  causal?: boolean;
  /** Biases on the projections (default true). */
  bias?: boolean;
  /** Bias on the output projection (default `bias`; Qwen2 has q/k/v biases and none here). */
  outBias?: boolean;
  /** Rotary position embedding of q and k with this base (default 10000) and pair layout (see RopeLayout); off when absent. */
  rope?: { base?: number; layout?: RopeLayout };
  /** Parameter layout (default 'separate'). */
  layout?: 'fused' | 'separate';
  /** ir's attention op (default) or decomposed matmul/softmax, masked in-graph (`Graph.futureMask`, −∞ fill). */
  kernel?: 'op' | 'decomposed';
  /** Std of the normal init of the input projections and of the output projection (default: Linear's init). */
  init?: { std: number; outStd?: number };
  /** Dropout on the output (residual dropout, nanoGPT's `resid_dropout`). */
  dropout?: number;
}

/** Which features RoPE rotates together: 'half' (i, i + D/2; HF LLaMA, default) or 'interleaved' (2i, 2i + 1; GPT-J, Meta LLaMA). */
export type RopeLayout = 'half' | 'interleaved';

/** The per-step inputs of a decode graph, shared by every attention layer of a model. */
export interface DecodeContext {
  /** Positions the cache holds. */
  readonly maxLen: number;
  /** [maxLen, 1] f32: 1 at the position being written, 0 elsewhere. */
  readonly slot: Tensor;
  /** [1, maxLen] f32 additive mask: 0 at positions ≤ the current one, −1e9 after. */
  readonly mask: Tensor;
}

/** Self-attention `x [B, T, W] → [B, T, W]` (see the file header for layouts and the KV-cache decode). */
export class MultiheadAttention extends Module {
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  private readonly names: readonly string[];
  private readonly lins = new Map<string, Linear>();
  private readonly drop?: Dropout;

  constructor(
    readonly width: number,
    readonly options: AttentionOptions,
  ) {
    super();
    const h = options.heads;
    const hkv = options.kvHeads ?? h;
    if (!(Number.isInteger(h) && h > 0 && width % h === 0)) throw new GraphError(`MultiheadAttention: width ${width} is not a multiple of heads ${h}`, 'MultiheadAttention');
    if (!(Number.isInteger(hkv) && hkv > 0 && h % hkv === 0)) throw new GraphError(`MultiheadAttention: heads ${h} is not a multiple of kvHeads ${hkv}`, 'MultiheadAttention');
    this.heads = h;
    this.kvHeads = hkv;
    this.headDim = width / h;
    if (options.rope?.layout !== undefined && options.rope.layout !== 'half' && options.rope.layout !== 'interleaved')
      throw new GraphError(`MultiheadAttention: rope layout must be 'half' or 'interleaved', got '${String(options.rope.layout)}'`, 'MultiheadAttention');
    if (options.rope && this.headDim % 2 !== 0) throw new GraphError(`MultiheadAttention: rotary embeddings need an even head size, got ${this.headDim}`, 'MultiheadAttention');
    const bias = options.bias !== false;
    const outBias = options.outBias ?? bias;
    const normal = (std: number): Init => ({ kind: 'normal', mean: 0, std, seed: 0 });
    const inInit = options.init ? { weightInit: normal(options.init.std), biasInit: { kind: 'zeros' } as Init } : {};
    const outInit = options.init ? { weightInit: normal(options.init.outStd ?? options.init.std), biasInit: { kind: 'zeros' } as Init } : {};
    const kvWidth = hkv * this.headDim;
    const add = (name: string, m: Linear) => this.lins.set(name, this.registerModule(name, m));
    if (options.layout === 'fused') {
      add('c_attn', new Linear(width, width + 2 * kvWidth, { bias, ...inInit }));
      add('c_proj', new Linear(width, width, { bias: outBias, ...outInit }));
      this.names = ['c_attn', 'c_proj'];
    } else {
      add('q_proj', new Linear(width, width, { bias, ...inInit }));
      add('k_proj', new Linear(width, kvWidth, { bias, ...inInit }));
      add('v_proj', new Linear(width, kvWidth, { bias, ...inInit }));
      add('o_proj', new Linear(width, width, { bias: outBias, ...outInit }));
      this.names = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];
    }
    if (options.dropout) this.drop = this.registerModule('resid_dropout', new Dropout(options.dropout));
  }

  /** Self-attention over whole sequences: `x [B, T, W] → [B, T, W]`. */
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape.length !== 3 || x.shape[2] !== this.width)
      throw new GraphError(`MultiheadAttention(${this.width}) '${prefix ?? ''}': expected x [B, T, ${this.width}], got [${x.shape.join(', ')}]`, 'MultiheadAttention');
    const [b, t] = x.shape;
    return g.reshape(this.forwardRows(g, g.reshape(x, [b * t, this.width]), b, t, prefix), [b, t, this.width]);
  }

  /** The same on rows `x [B·T, W]` (the residual stream of a transformer stays 2-D): → [B·T, W]. */
  forwardRows(g: Graph, x: Tensor, batch: number, seq: number, prefix?: string): Tensor {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    const { q, k, v } = this.project(g, x, prefix);
    const split = (y: Tensor, n: number) => g.transpose(g.reshape(y, [batch, seq, n, d]), [0, 2, 1, 3]); // [B, n, T, D]
    let qh = split(q, h);
    let kh = split(k, hkv);
    const vh = this.repeatKv(g, split(v, hkv), batch, seq);
    if (this.options.rope) {
      qh = g.rope(qh, { base: this.options.rope.base });
      kh = g.rope(kh, { base: this.options.rope.base });
    }
    kh = this.repeatKv(g, kh, batch, seq);
    const scale = 1 / Math.sqrt(d);
    const causal = this.options.causal !== false;
    let o: Tensor; // [B, H, T, D]
    if (this.options.kernel === 'decomposed') {
      let scores = g.mul(g.matmul(qh, kh, { transB: true }), scale);
      // masked_fill(−∞) as nanoGPT, built in-graph: the optimizer can prove it causal and fuse the whole attention
      if (causal) scores = g.where(g.futureMask(seq), Number.NEGATIVE_INFINITY, scores);
      o = g.matmul(g.softmax(scores), vh);
    } else o = g.attention(qh, kh, vh, { causal, scale });
    return this.output(g, g.reshape(g.transpose(o, [0, 2, 1, 3]), [batch * seq, this.width]), prefix);
  }

  /**
   * One decode step: `x [B, W]` (the new token's rows) attends to every cached position ≤ the current one;
   * writes this token's K/V into the cache (state `<prefix>.cache.k/v`, updated in place) → [B, W].
   */
  decodeRows(g: Graph, x: Tensor, ctx: DecodeContext, prefix?: string): Tensor {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    const batch = x.shape[0];
    const { q, k, v } = this.project(g, x, prefix);
    const heads = (y: Tensor, n: number) => g.reshape(y, [batch, n, 1, d]); // [B, n, 1, D]
    // place the new row at its position (zeros elsewhere): rope then rotates it by that position's angle
    const place = (y: Tensor) => g.mul(y, ctx.slot); // [B, n, 1, D] · [maxLen, 1] → [B, n, maxLen, D]
    let kPlaced = place(heads(k, hkv));
    const vPlaced = place(heads(v, hkv));
    let qh = heads(q, h);
    if (this.options.rope) {
      kPlaced = g.rope(kPlaced, { base: this.options.rope.base });
      qh = g.sum(g.rope(place(qh), { base: this.options.rope.base }), 2, true);
    }
    const keep = g.sub(1, ctx.slot);
    const cache = (name: string, placed: Tensor) => {
      const s = g.state(paramName(prefix, `cache.${name}`), [batch, hkv, ctx.maxLen, d]);
      const next = g.add(g.mul(s, keep), placed);
      g.update(s, next);
      return next;
    };
    const kc = cache('k', kPlaced);
    const vc = cache('v', vPlaced);
    const qg = g.reshape(qh, [batch, hkv, h / hkv, d]); // query heads grouped by the K/V head they share
    const scores = g.add(g.mul(g.matmul(qg, kc, { transB: true }), 1 / Math.sqrt(d)), ctx.mask); // [B, Hkv, G, maxLen]
    const o = g.matmul(g.softmax(scores), vc); // [B, Hkv, G, D]
    return this.output(g, g.reshape(o, [batch, this.width]), prefix);
  }

  /** q [N, H·D], k and v [N, Hkv·D] from rows x [N, W] (q and k reordered for interleaved RoPE). */
  private project(g: Graph, x: Tensor, prefix?: string): { q: Tensor; k: Tensor; v: Tensor } {
    const lin = (name: string, y: Tensor) => this.linear(name).forward(g, y, paramName(prefix, name));
    let q: Tensor;
    let k: Tensor;
    let v: Tensor;
    if (this.options.layout === 'fused') {
      const kvWidth = this.kvHeads * this.headDim;
      [q, k, v] = g.split(lin('c_attn', x), [this.width, kvWidth, kvWidth], -1);
    } else [q, k, v] = [lin('q_proj', x), lin('k_proj', x), lin('v_proj', x)];
    if (this.options.rope?.layout === 'interleaved') [q, k] = [this.evensThenOdds(g, q, this.heads), this.evensThenOdds(g, k, this.kvHeads)];
    return { q, k, v };
  }

  /** Rows [N, n·D] with each head's features reordered (0, 2, …, D−2, 1, 3, …, D−1): interleaved pairs become half-split ones. */
  private evensThenOdds(g: Graph, y: Tensor, n: number): Tensor {
    const [rows] = y.shape;
    const d = this.headDim;
    return g.reshape(g.transpose(g.reshape(y, [rows, n, d / 2, 2]), [0, 1, 3, 2]), [rows, n * d]);
  }

  private output(g: Graph, o: Tensor, prefix?: string): Tensor {
    const name = this.names[this.names.length - 1];
    const y = this.linear(name).forward(g, o, paramName(prefix, name));
    return this.drop ? this.drop.forward(g, y, paramName(prefix, 'resid_dropout')) : y;
  }

  private linear(name: string): Linear {
    return this.lins.get(name) as Linear;
  }

  /** [B, Hkv, T, D] → [B, H, T, D], each K/V head repeated for its group of query heads. */
  private repeatKv(g: Graph, y: Tensor, batch: number, seq: number): Tensor {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    if (h === hkv) return y;
    const e = g.expand(g.reshape(y, [batch, hkv, 1, seq, d]), [batch, hkv, h / hkv, seq, d]);
    return g.reshape(e, [batch, h, seq, d]);
  }
}

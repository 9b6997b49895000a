// A pre-norm transformer block, x + attn(norm₁(x)) then x + mlp(norm₂(x)), in two naming/architecture styles:
// 'gpt' (nanoGPT: `ln_1`, `attn` with fused `c_attn`/`c_proj`, `ln_2`, `mlp.c_fc`/`mlp.c_proj` with GELU,
// LayerNorm) and 'llama' (HF LLaMA: `input_layernorm`, `self_attn.{q,k,v,o}_proj`, `post_attention_layernorm`,
// `mlp.{gate,up,down}_proj` with SwiGLU, RMSNorm, RoPE, grouped-query heads, no biases). The residual stream
// is rows [B·T, W] (reshapes are free aliases); `forward` takes and returns [B, T, W] for standalone use.

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { Module, paramName } from '../module.js';
import { type DecodeContext, MultiheadAttention, type RopeLayout } from './attention.js';
import { Dropout } from './dropout.js';
import { LayerNorm, RMSNorm } from './layerNorm.js';
import { Linear } from './linear.js';

/** The feed-forward part: GELU MLP (`c_fc` → GELU, exact unless `gelu: 'tanh'` → `c_proj`) or SwiGLU (`down(silu(gate(x)) · up(x))`). */
export class MLP extends Module {
  private readonly drop?: Dropout;
  private readonly lins = new Map<string, Linear>();
  constructor(
    readonly width: number,
    readonly hidden: number,
    readonly options: { kind?: 'gelu' | 'swiglu'; gelu?: 'none' | 'tanh'; bias?: boolean; init?: { std: number; outStd?: number }; dropout?: number } = {},
  ) {
    super();
    const bias = options.bias !== false;
    const normal = (std: number): Init => ({ kind: 'normal', mean: 0, std, seed: 0 });
    const zeros: Init = { kind: 'zeros' };
    const inInit = options.init ? { weightInit: normal(options.init.std), biasInit: zeros } : {};
    const outInit = options.init ? { weightInit: normal(options.init.outStd ?? options.init.std), biasInit: zeros } : {};
    const add = (name: string, m: Linear) => this.lins.set(name, this.registerModule(name, m));
    if (options.kind === 'swiglu') {
      add('gate_proj', new Linear(width, hidden, { bias, ...inInit }));
      add('up_proj', new Linear(width, hidden, { bias, ...inInit }));
      add('down_proj', new Linear(hidden, width, { bias, ...outInit }));
    } else {
      add('c_fc', new Linear(width, hidden, { bias, ...inInit }));
      add('c_proj', new Linear(hidden, width, { bias, ...outInit }));
    }
    if (options.dropout) this.drop = this.registerModule('dropout', new Dropout(options.dropout));
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    const lin = (name: string, y: Tensor) => (this.lins.get(name) as Linear).forward(g, y, paramName(prefix, name));
    const y =
      this.options.kind === 'swiglu'
        ? lin('down_proj', g.mul(g.silu(lin('gate_proj', x)), lin('up_proj', x)))
        : lin('c_proj', g.gelu(lin('c_fc', x), { approximate: this.options.gelu ?? 'none' }));
    return this.drop ? this.drop.forward(g, y, paramName(prefix, 'dropout')) : y;
  }
}

/** Options of a transformer block. */
export interface TransformerBlockOptions {
  width: number;
  heads: number;
  /** Grouped-query K/V heads (default `heads`). */
  kvHeads?: number;
  /** 'gpt' (default) or 'llama': names, norm, MLP kind, biases and RoPE as in the file header. */
  style?: 'gpt' | 'llama';
  /** MLP hidden size (default 4·width for 'gpt'; LLaMA's ⌈(8/3·width)/multipleOf⌉·multipleOf, multipleOf 32, for 'llama'). */
  hidden?: number;
  /** Biases in projections (default: true for 'gpt', false for 'llama'). */
  bias?: boolean;
  /** Biases on the attention's q/k/v projections only, overriding `bias` there (Qwen2: true). */
  qkvBias?: boolean;
  /** Norm epsilon (default 1e-5 for LayerNorm, 1e-6 for RMSNorm). */
  eps?: number;
  /** 'gpt' only: GELU form (default 'none', exact erf as nanoGPT's nn.GELU(); 'tanh' is GPT-2's gelu_new). */
  gelu?: 'none' | 'tanh';
  /** 'llama' only: RoPE base (default 10000). */
  ropeBase?: number;
  /** 'llama' only: RoPE pairs, 'half' (HF, default) or 'interleaved' (Meta's original checkpoints, GPT-J). */
  ropeLayout?: RopeLayout;
  /** Attention through ir's op (default) or decomposed with an in-graph causal mask. */
  kernel?: 'op' | 'decomposed';
  /** Normal init std of projections, and of the two output projections (GPT-2: 0.02 and 0.02/√(2·layers)). */
  init?: { std: number; outStd?: number };
  /** Residual dropout (attention output and MLP output). */
  dropout?: number;
}

/** LLaMA's MLP width for a model width: 8/3·width rounded up to a multiple of `multipleOf`. */
export function llamaHidden(width: number, multipleOf = 32): number {
  return Math.ceil(Math.floor((8 * width) / 3) / multipleOf) * multipleOf;
}

/** Pre-norm decoder block (causal self-attention + MLP), see the file header. */
export class TransformerBlock extends Module {
  readonly style: 'gpt' | 'llama';
  readonly attn: MultiheadAttention;
  readonly mlp: MLP;
  private readonly n: readonly [string, string, string]; // norm₁, attention, norm₂ names
  private readonly norms: readonly [Module, Module];

  constructor(readonly options: TransformerBlockOptions) {
    super();
    const { width, heads } = options;
    const style = (this.style = options.style ?? 'gpt');
    const llama = style === 'llama';
    const bias = options.bias ?? !llama;
    const norm = () => (llama ? new RMSNorm(width, { eps: options.eps }) : new LayerNorm(width, { eps: options.eps, bias }));
    this.n = llama ? ['input_layernorm', 'self_attn', 'post_attention_layernorm'] : ['ln_1', 'attn', 'ln_2'];
    const norm1 = this.registerModule(this.n[0], norm());
    this.attn = this.registerModule(
      this.n[1],
      new MultiheadAttention(width, {
        heads,
        kvHeads: options.kvHeads,
        bias: options.qkvBias ?? bias,
        outBias: bias,
        layout: llama ? 'separate' : 'fused',
        rope: llama ? { base: options.ropeBase ?? 10000, layout: options.ropeLayout } : undefined,
        kernel: options.kernel,
        init: options.init,
        dropout: options.dropout,
      }),
    );
    this.norms = [norm1, this.registerModule(this.n[2], norm())];
    const hidden = options.hidden ?? (llama ? llamaHidden(width) : 4 * width);
    this.mlp = this.registerModule('mlp', new MLP(width, hidden, { kind: llama ? 'swiglu' : 'gelu', gelu: options.gelu, bias, init: options.init, dropout: options.dropout }));
  }

  /** `x [B, T, W] → [B, T, W]`. */
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    if (x.shape.length !== 3) throw new GraphError(`TransformerBlock '${prefix ?? ''}': expected x [B, T, W], got [${x.shape.join(', ')}]`, 'TransformerBlock');
    const [b, t, w] = x.shape;
    return g.reshape(this.forwardRows(g, g.reshape(x, [b * t, w]), b, t, prefix), [b, t, w]);
  }

  /** On rows `x [B·T, W]` → [B·T, W]. */
  forwardRows(g: Graph, x: Tensor, batch: number, seq: number, prefix?: string): Tensor {
    return this.body(g, x, prefix, (h) => this.attn.forwardRows(g, h, batch, seq, paramName(prefix, this.n[1])));
  }

  /** One decode step on rows `x [B, W]` against the attention's KV cache → [B, W]. */
  decodeRows(g: Graph, x: Tensor, ctx: DecodeContext, prefix?: string): Tensor {
    return this.body(g, x, prefix, (h) => this.attn.decodeRows(g, h, ctx, paramName(prefix, this.n[1])));
  }

  private body(g: Graph, x: Tensor, prefix: string | undefined, attend: (h: Tensor) => Tensor): Tensor {
    const norm = (i: 0 | 2, y: Tensor) => this.norms[i / 2].forward(g, y, paramName(prefix, this.n[i]));
    const h = g.add(x, attend(norm(0, x)));
    return g.add(h, this.mlp.forward(g, norm(2, h), paramName(prefix, 'mlp')));
  }
}

// A LLaMA-style decoder in Hugging Face's layout: `model.embed_tokens`, blocks `model.layers.<i>`
// (input_layernorm, self_attn.{q,k,v,o}_proj with RoPE and grouped-query heads, post_attention_layernorm,
// mlp.{gate,up,down}_proj SwiGLU), `model.norm` (RMSNorm) and `lm_head` (or the embedding reused), no
// biases, init N(0, 0.02). Positions come only from RoPE, so the sequence length is free.

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import type { DecodeContext, RopeLayout } from '../layers/attention.js';
import type { ModuleList } from '../layers/containers.js';
import { Embedding } from '../layers/embedding.js';
import { RMSNorm } from '../layers/layerNorm.js';
import type { Linear } from '../layers/linear.js';
import { Module, paramName } from '../module.js';
import { blockDecode, blockRows, blockStack, CausalLM, headLogits, lmHead } from './causalLm.js';

/** Size and options of a LLaMA-style model. */
export interface LlamaConfig {
  readonly vocab: number;
  readonly layers: number;
  readonly heads: number;
  readonly width: number;
  /** Grouped-query K/V heads (default `heads`). */
  readonly kvHeads?: number;
  /** SwiGLU hidden size (default LLaMA's ⌈8/3·width⌉ to a multiple of 32). */
  readonly hidden?: number;
  /** RMSNorm epsilon (default 1e-6). */
  readonly eps?: number;
  /** RoPE base (default 10000). */
  readonly ropeBase?: number;
  /** RoPE pairs: 'half' (HF LLaMA's rotate_half, default) or 'interleaved' (Meta's original checkpoints). */
  readonly ropeLayout?: RopeLayout;
  /** Biases on q/k/v_proj (Qwen2's attention; default false). */
  readonly qkvBias?: boolean;
  /** Reuse `model.embed_tokens` as the output head (default false). */
  readonly tiedHead?: boolean;
  /** Attention through ir's op (default) or decomposed with an in-graph causal mask. */
  readonly attention?: 'op' | 'decomposed';
}

/** `model.*`: embedding, blocks, final norm (run by Llama). */
class LlamaModel extends Module {
  readonly embed_tokens: Embedding;
  readonly layers: ModuleList;
  readonly norm: RMSNorm;
  constructor(c: LlamaConfig) {
    super();
    const init: Init = { kind: 'normal', mean: 0, std: 0.02, seed: 0 };
    this.embed_tokens = this.registerModule('embed_tokens', new Embedding(c.vocab, c.width, { init }));
    const block = { width: c.width, heads: c.heads, kvHeads: c.kvHeads, style: 'llama', hidden: c.hidden, eps: c.eps, ropeBase: c.ropeBase, ropeLayout: c.ropeLayout, qkvBias: c.qkvBias, kernel: c.attention, init: { std: 0.02 } } as const;
    this.layers = this.registerModule('layers', blockStack(c.layers, block));
    this.norm = this.registerModule('norm', new RMSNorm(c.width, { eps: c.eps }));
  }
  forward(): Tensor {
    throw new GraphError('Llama.model is run by Llama (use llama.forward)', 'Llama');
  }
}

/** A LLaMA-style language model (HF names; see the file header). */
export class Llama extends CausalLM {
  readonly vocab: number;
  readonly maxContext = undefined;
  readonly model: LlamaModel;
  readonly lm_head?: Linear;

  constructor(readonly config: LlamaConfig) {
    super();
    CausalLM.checkSizes('Llama', config, ['vocab', 'layers', 'heads', 'width']);
    this.vocab = config.vocab;
    this.model = this.registerModule('model', new LlamaModel(config));
    if (!config.tiedHead) this.lm_head = this.registerModule('lm_head', lmHead(config.width, config.vocab));
  }

  logitsRows(g: Graph, tokens: Tensor, prefix?: string): Tensor {
    const [b, t] = this.checkTokens(tokens, prefix);
    const p = (name: string) => paramName(prefix, `model.${name}`);
    let x = g.reshape(this.model.embed_tokens.forward(g, tokens, p('embed_tokens')), [b * t, this.config.width]);
    x = blockRows(g, this.model.layers, x, b, t, p('layers'));
    return this.head(g, this.model.norm.forward(g, x, p('norm')), prefix);
  }

  decodeRows(g: Graph, token: Tensor, _pos: Tensor, ctx: DecodeContext, prefix?: string): Tensor {
    const p = (name: string) => paramName(prefix, `model.${name}`);
    let x = this.model.embed_tokens.forward(g, token, p('embed_tokens'));
    x = blockDecode(g, this.model.layers, x, ctx, p('layers'));
    return this.head(g, this.model.norm.forward(g, x, p('norm')), prefix);
  }

  /** Options for `importTorchStateDict(torch, llama, …)` with an HF state dict (drops `rotary_emb.inv_freq`; a tied head reads either name). */
  torchImportOptions(): { ignore: RegExp; tied?: Readonly<Record<string, string>> } {
    const ignore = /\.rotary_emb\.inv_freq$/;
    return this.config.tiedHead ? { ignore, tied: { 'lm_head.weight': 'model.embed_tokens.weight' } } : { ignore };
  }

  private head(g: Graph, x: Tensor, prefix?: string): Tensor {
    return headLogits(g, x, this.lm_head, this.model.embed_tokens, 'model.embed_tokens', prefix);
  }
}

// GPT in nanoGPT's layout (Karpathy's model.py): `transformer.wte` token and `transformer.wpe` position
// embeddings, blocks `transformer.h.<i>` (ln_1, attn.c_attn/c_proj, ln_2, mlp.c_fc/c_proj), `transformer.ln_f`,
// and `lm_head` (or the token table reused, `tiedHead`: one tensor, `transformer.wte.weight`, that torch files may
// name `lm_head.weight` too). MLP GELU is exact erf by default (nanoGPT's nn.GELU()). GPT-2 init: N(0, 0.02), residual projections
// N(0, 0.02/√(2·layers)), zero biases. Built on the module tree; compiled with compileTraining like any graph.
// Linear weights are [in, out] here and [out, in] in torch: `torchImportOptions` says which to transpose.

import { GraphError, type Graph, type Init, type Tensor } from '@neura/ir';
import { adamW } from '@neura/optim';
import { buildTrainingStep } from '../compileTraining.js';
import type { DecodeContext } from '../layers/attention.js';
import { Dropout } from '../layers/dropout.js';
import { Embedding } from '../layers/embedding.js';
import { LayerNorm } from '../layers/layerNorm.js';
import type { Linear } from '../layers/linear.js';
import type { ModuleList } from '../layers/containers.js';
import { Module, paramName } from '../module.js';
import { recognizedForward } from '../recognizedForward.js';
import { blockDecode, blockRows, blockStack, CausalLM, headLogits, lmHead } from './causalLm.js';

/** Size and options of a GPT. */
export interface GptConfig {
  /** Vocabulary size V. */
  readonly vocab: number;
  /** Context length (positions of `wpe`, nanoGPT's block_size). */
  readonly context: number;
  /** Transformer blocks. */
  readonly layers: number;
  /** Attention heads per block (must divide `width`). */
  readonly heads: number;
  /** Model width (embedding size). */
  readonly width: number;
  /** Grouped-query K/V heads (default `heads`). */
  readonly kvHeads?: number;
  /** Reuse `transformer.wte` as the output head (default false: a separate `lm_head`); nanoGPT ties them. */
  readonly tiedHead?: boolean;
  /** A bias on `lm_head` (default false, as nanoGPT; not with `tiedHead`). */
  readonly headBias?: boolean;
  /** LayerNorm epsilon (default 1e-5, GPT-2's layer_norm_epsilon). */
  readonly eps?: number;
  /** Biases in Linear and LayerNorm (default true). */
  readonly bias?: boolean;
  /** Dropout on embeddings and residual branches in training mode (default 0). */
  readonly dropout?: number;
  /** GELU form: 'none' (default) is exact erf, nanoGPT's and PyTorch's nn.GELU(); 'tanh' is HF gpt2's gelu_new. */
  readonly gelu?: 'none' | 'tanh';
  /** ir's attention op (default) or decomposed matmul/softmax with an in-graph −∞ causal mask (no mask input). */
  readonly attention?: 'op' | 'decomposed';
  /** Sequences per step, for `buildGptStep` (the training graph's batch). */
  readonly batch?: number;
}

/** `transformer.*`: the embeddings, the blocks and the final norm (a container; GPT runs it). */
class GptTransformer extends Module {
  readonly wte: Embedding;
  readonly wpe: Embedding;
  readonly drop?: Dropout;
  readonly h: ModuleList;
  readonly ln_f: LayerNorm;
  constructor(c: GptConfig) {
    super();
    const normal = (std: number): Init => ({ kind: 'normal', mean: 0, std, seed: 0 });
    this.wte = this.registerModule('wte', new Embedding(c.vocab, c.width, { init: normal(0.02) }));
    this.wpe = this.registerModule('wpe', new Embedding(c.context, c.width, { init: normal(0.02) }));
    if (c.dropout) this.drop = this.registerModule('drop', new Dropout(c.dropout));
    const init = { std: 0.02, outStd: 0.02 / Math.sqrt(2 * c.layers) };
    const block = { width: c.width, heads: c.heads, kvHeads: c.kvHeads, style: 'gpt', bias: c.bias, eps: c.eps, gelu: c.gelu ?? 'none', kernel: c.attention, dropout: c.dropout, init } as const;
    this.h = this.registerModule('h', blockStack(c.layers, block));
    this.ln_f = this.registerModule('ln_f', new LayerNorm(c.width, { eps: c.eps, bias: c.bias }));
  }
  forward(): Tensor {
    throw new GraphError('GPT.transformer is run by GPT (use gpt.forward)', 'GPT');
  }
}

/** A GPT language model (nanoGPT names; see the file header). */
export class GPT extends CausalLM {
  readonly vocab: number;
  readonly maxContext: number;
  readonly transformer: GptTransformer;
  readonly lm_head?: Linear;

  constructor(readonly config: GptConfig) {
    super();
    const c = config;
    CausalLM.checkSizes('GPT', c, ['vocab', 'context', 'layers', 'heads', 'width']);
    this.vocab = c.vocab;
    this.maxContext = c.context;
    this.transformer = this.registerModule('transformer', new GptTransformer(c));
    if (c.tiedHead && c.headBias) throw new GraphError('GPT: headBias needs a separate lm_head (tiedHead is set)', 'GPT');
    if (!c.tiedHead) this.lm_head = this.registerModule('lm_head', lmHead(c.width, c.vocab, c.headBias ?? false));
  }

  logitsRows(g: Graph, tokens: Tensor, prefix?: string): Tensor {
    const [b, t] = this.checkTokens(tokens, prefix);
    const tr = this.transformer;
    const p = (name: string) => paramName(prefix, `transformer.${name}`);
    const w = this.config.width;
    const wpe = tr.wpe.weight(g, p('wpe'));
    const pos = t === this.maxContext ? wpe : g.slice(wpe, [0, 0], [t, w]);
    let x = g.reshape(g.add(tr.wte.forward(g, tokens, p('wte')), pos), [b * t, w]);
    if (tr.drop) x = tr.drop.forward(g, x, p('drop'));
    x = blockRows(g, tr.h, x, b, t, p('h'));
    return this.head(g, tr.ln_f.forward(g, x, p('ln_f')), prefix);
  }

  decodeRows(g: Graph, token: Tensor, pos: Tensor, ctx: DecodeContext, prefix?: string): Tensor {
    const tr = this.transformer;
    const p = (name: string) => paramName(prefix, `transformer.${name}`);
    if (ctx.maxLen > this.maxContext) throw new GraphError(`GPT: a cache of ${ctx.maxLen} positions exceeds the context of ${this.maxContext}`, 'GPT');
    let x = g.add(tr.wte.forward(g, token, p('wte')), g.gather(tr.wpe.weight(g, p('wpe')), pos)); // [B, W] + [1, W]
    x = blockDecode(g, tr.h, x, ctx, p('h'));
    return this.head(g, tr.ln_f.forward(g, x, p('ln_f')), prefix);
  }

  /**
   * Options for `importTorchStateDict(torch, gpt, …)` with a nanoGPT or HF state dict: drops the `attn.bias`
   * masks and, with a tied head, takes `lm_head.weight` as `transformer.wte.weight` (either name or both).
   */
  torchImportOptions(): { ignore: RegExp; tied?: Readonly<Record<string, string>> } {
    const ignore = /\.attn\.(bias|masked_bias)$/;
    return this.config.tiedHead ? { ignore, tied: { 'lm_head.weight': 'transformer.wte.weight' } } : { ignore };
  }

  private head(g: Graph, x: Tensor, prefix?: string): Tensor {
    return headLogits(g, x, this.lm_head, this.transformer.wte, 'transformer.wte', prefix);
  }
}

/**
 * A GPT's whole training step as one graph (forward, loss output, backward, AdamW lr 3e-4, wd 0.1), uncompiled,
 * for e-graph benchmarks and tests; attention defaults to 'decomposed' here (matmul/softmax/matmul, as users write it).
 * The forward's hand-written attention is recognized before grad as compileTraining does (`recognize: false`
 * keeps it decomposed, as compileTraining's `optimize: false`), so the step is the one users' sessions optimize.
 */
export function buildGptStep(c: GptConfig, opts: { recognize?: boolean } = {}): Graph {
  if (c.batch === undefined) throw new GraphError('buildGptStep: the config needs a batch size', 'GPT');
  const forward = new GPT({ ...c, attention: c.attention ?? 'decomposed' }).trainingGraph(c.batch);
  const { graph, loss } = opts.recognize === false ? forward : recognizedForward(forward.graph, forward.loss);
  buildTrainingStep(graph, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.1 }) });
  return graph;
}

// The shape every decoder-only language model here shares (GPT, LLaMA): logits for whole sequences (for
// training and evaluation) and logits for one new token against a KV cache (for generation), from the same
// parameter leaves, plus the standard training graph (inputs `tokens`/`targets` [B, T] i32, mean
// cross-entropy). Must not compile anything: graphs in, graphs out.

import { GraphError, Graph, type Tensor, type TensorValue, tensor } from '@neura/ir';
import type { DecodeContext } from '../layers/attention.js';
import { ModuleList } from '../layers/containers.js';
import type { Embedding } from '../layers/embedding.js';
import { Linear } from '../layers/linear.js';
import { TransformerBlock, type TransformerBlockOptions } from '../layers/transformerBlock.js';
import { Module, paramName } from '../module.js';

/** A causal language model training graph. */
export interface LmGraph {
  readonly graph: Graph;
  /** Mean next-token cross-entropy (scalar). */
  readonly loss: Tensor;
  /** [B·T, V] */
  readonly logits: Tensor;
}

/** A decoder-only language model: whole-sequence logits and KV-cache decode from one set of leaves. */
export abstract class CausalLM extends Module {
  /** Vocabulary size V. */
  abstract readonly vocab: number;
  /** Longest sequence the model accepts (learned positions), or undefined when unbounded (RoPE). */
  abstract readonly maxContext: number | undefined;

  /** Logits of every position, as rows: `tokens [B, T] i32 → [B·T, V]`. */
  abstract logitsRows(g: Graph, tokens: Tensor, prefix?: string): Tensor;

  /**
   * Logits of one new token per sequence: `token [B] i32` at position `pos` ([1] i32, the same for the batch)
   * attends to the KV caches (state leaves the call declares and updates) → [B, V].
   */
  abstract decodeRows(g: Graph, token: Tensor, pos: Tensor, ctx: DecodeContext, prefix?: string): Tensor;

  /** `tokens [B, T] i32 → logits [B, T, V]`. */
  forward(g: Graph, tokens: Tensor, prefix?: string): Tensor {
    const [b, t] = this.checkTokens(tokens, prefix);
    return g.reshape(this.logitsRows(g, tokens, prefix), [b, t, this.vocab]);
  }

  /**
   * A new graph with inputs `tokens` and `targets` [batch, seq] i32 and the mean cross-entropy `loss`; targets equal
   * to `ignoreIndex` count for nothing (pad them so to train on sequences shorter than `seq`, see `batchInputs`).
   */
  trainingGraph(batch: number, seq = this.maxContext, opts: { ignoreIndex?: number } = {}): LmGraph {
    if (seq === undefined) throw new GraphError(`${this.constructor.name}.trainingGraph: give the sequence length`, 'CausalLM');
    const graph = new Graph();
    const tokens = graph.input('tokens', [batch, seq], 'i32');
    const targets = graph.input('targets', [batch, seq], 'i32');
    const logits = this.logitsRows(graph, tokens);
    const flat = graph.reshape(targets, [batch * seq]);
    return { graph, logits, loss: opts.ignoreIndex === undefined ? graph.crossEntropy(logits, flat) : graph.crossEntropy(logits, flat, { ignoreIndex: opts.ignoreIndex }) };
  }

  /** Throws unless each of `keys` of `config` is a positive integer (the sizes a model cannot be built without). */
  protected static checkSizes<C>(model: string, config: C, keys: readonly (keyof C & string)[]): void {
    for (const k of keys)
      if (!(Number.isInteger(config[k]) && (config[k] as number) > 0)) throw new GraphError(`${model}: ${k} must be a positive integer, got ${config[k]}`, model);
  }

  /** Checks `tokens [B, T] i32` (T within `maxContext`) and returns [B, T]. */
  protected checkTokens(tokens: Tensor, prefix?: string): [number, number] {
    if (tokens.dtype !== 'i32' || tokens.shape.length !== 2)
      throw new GraphError(`${this.constructor.name} '${prefix ?? ''}': tokens must be i32 [B, T], got [${tokens.shape.join(', ')}]:${tokens.dtype}`, 'CausalLM');
    const [b, t] = tokens.shape;
    if (this.maxContext !== undefined && t > this.maxContext)
      throw new GraphError(`${this.constructor.name}: ${t} tokens exceed the context of ${this.maxContext}`, 'CausalLM');
    return [b, t];
  }
}

/** `layers` transformer blocks of the same options (the `h` / `layers` list of a decoder). */
export function blockStack(layers: number, options: TransformerBlockOptions): ModuleList {
  return new ModuleList(Array.from({ length: layers }, () => new TransformerBlock(options)));
}

/** Runs every block of `blocks` over rows `x [B·T, W]`, block i under `prefix.i`. */
export function blockRows(g: Graph, blocks: ModuleList, x: Tensor, batch: number, seq: number, prefix: string): Tensor {
  for (let l = 0; l < blocks.length; l++) x = (blocks.at(l) as TransformerBlock).forwardRows(g, x, batch, seq, `${prefix}.${l}`);
  return x;
}

/** Runs every block of `blocks` over one new token per sequence `x [B, W]` against the KV caches of `ctx`. */
export function blockDecode(g: Graph, blocks: ModuleList, x: Tensor, ctx: DecodeContext, prefix: string): Tensor {
  for (let l = 0; l < blocks.length; l++) x = (blocks.at(l) as TransformerBlock).decodeRows(g, x, ctx, `${prefix}.${l}`);
  return x;
}

/** A language-model head `[width] → [vocab]`, N(0, 0.02), without bias unless asked (GPT-2 and LLaMA alike). */
export function lmHead(width: number, vocab: number, bias = false): Linear {
  return new Linear(width, vocab, { bias, weightInit: { kind: 'normal', mean: 0, std: 0.02, seed: 0 }, biasInit: { kind: 'zeros' } });
}

/** Logits of rows `x`: through `head` when the model has one, else through the token table reused (tied). */
export function headLogits(g: Graph, x: Tensor, head: Linear | undefined, tokens: Embedding, tokensName: string, prefix?: string): Tensor {
  if (head) return head.forward(g, x, paramName(prefix, 'lm_head'));
  return g.matmul(x, tokens.weight(g, paramName(prefix, tokensName)), { transB: true });
}

/** An additive causal mask value [T, T] (0 on and below the diagonal, −1e9 above) for graphs that take their mask as an input. */
export function causalMask(context: number): TensorValue {
  const data = new Float32Array(context * context);
  for (let i = 0; i < context; i++) for (let j = i + 1; j < context; j++) data[i * context + j] = -1e9;
  return tensor([context, context], data);
}

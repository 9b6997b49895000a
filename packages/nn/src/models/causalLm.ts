// The shape every decoder-only language model here shares (GPT, LLaMA): logits for whole sequences (for
// training and evaluation) and logits for one new token against a KV cache (for generation), from the same
// parameter leaves, plus the standard training graph (inputs `tokens`/`targets` [B, T] i32, mean
// cross-entropy). Must not compile anything: graphs in, graphs out.

import { GraphError, Graph, type Tensor, type TensorValue, tensor } from '@neura/ir';
import type { DecodeContext } from '../layers/attention.js';
import { Module } from '../module.js';

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

  /** A new graph with inputs `tokens` and `targets` [batch, seq] i32 and the mean cross-entropy `loss`. */
  trainingGraph(batch: number, seq = this.maxContext): LmGraph {
    if (seq === undefined) throw new GraphError(`${this.constructor.name}.trainingGraph: give the sequence length`, 'CausalLM');
    const graph = new Graph();
    const tokens = graph.input('tokens', [batch, seq], 'i32');
    const targets = graph.input('targets', [batch, seq], 'i32');
    const logits = this.logitsRows(graph, tokens);
    return { graph, logits, loss: graph.crossEntropy(logits, graph.reshape(targets, [batch * seq])) };
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

/** The additive causal mask feed [T, T] of decomposed attention: 0 on and below the diagonal, −1e9 above. */
export function causalMask(context: number): TensorValue {
  const data = new Float32Array(context * context);
  for (let i = 0; i < context; i++) for (let j = i + 1; j < context; j++) data[i * context + j] = -1e9;
  return tensor([context, context], data);
}

// A GPT (pre-LN decoder-only transformer) built from decomposed ir ops, and its whole training step (forward,
// cross-entropy, autograd backward, AdamW update), used by e-graph benchmarks and the f64 equivalence test.
// Must not hide work in fused ops: attention is decomposed (batched matmuls, scale, additive mask, softmax as
// exp(logSoftmax)) unless `attention: 'op'` asks for ir's attention op; the causal mask is an input `mask`
// [T, T] (0 / -1e9: ir has no iota to build it from); layer norm is ir's decomposed builder.

import { grad } from '@neura/autograd';
import { Graph, type Init, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { adamW } from '@neura/optim';

/** Size of a GPT. */
export interface GptConfig {
  /** Transformer blocks. */
  readonly layers: number;
  /** Attention heads per block (must divide `width`). */
  readonly heads: number;
  /** Model width (embedding size). */
  readonly width: number;
  /** Context length T (tokens per sequence). */
  readonly context: number;
  /** Sequences per step B. */
  readonly batch: number;
  /** Vocabulary size V. */
  readonly vocab: number;
  /** Attention decomposed into primitives (default) or as ir's fused `attention` op. */
  readonly attention?: 'decomposed' | 'op';
}

/** The forward graph's named tensors: the loss and the logits. */
export interface GptForward {
  readonly loss: Tensor;
  readonly logits: Tensor;
}

const normal = (std: number, name: string): Init => ({ kind: 'normal', mean: 0, std, seed: seedOf(name) });

function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return (h >>> 1) % 2147483647;
}

/** Layer norm over the last axis (ir's decomposed builder) with its own weight and bias. */
function layerNorm(g: Graph, x: Tensor, name: string): Tensor {
  const w = x.shape[x.shape.length - 1];
  return g.layerNorm(x, g.param(`${name}.weight`, [w], { kind: 'ones' }), g.param(`${name}.bias`, [w], { kind: 'zeros' }));
}

/** x [N, in] · W [in, out] + b. */
function linear(g: Graph, x: Tensor, out: number, name: string, std = 0.02): Tensor {
  const w = g.param(`${name}.weight`, [x.shape[1], out], normal(std, `${name}.weight`));
  const b = g.param(`${name}.bias`, [out], { kind: 'zeros' });
  return g.add(g.matmul(x, w), b);
}

/** Causal self-attention of x [B·T, W]; `mask` [T, T] is added to the scores. */
function attention(g: Graph, x: Tensor, mask: Tensor, c: GptConfig, name: string): Tensor {
  const { batch: b, context: t, heads: h, width: w } = c;
  const d = w / h;
  const split = (y: Tensor) => g.transpose(g.reshape(y, [b, t, h, d]), [0, 2, 1, 3]); // [B, H, T, D]
  const q = split(linear(g, x, w, `${name}.q`));
  const k = split(linear(g, x, w, `${name}.k`));
  const v = split(linear(g, x, w, `${name}.v`));
  let att: Tensor; // [B, H, T, D]
  if (c.attention === 'op') att = g.attention(q, k, v, { causal: true, scale: 1 / Math.sqrt(d) });
  else {
    const scores = g.add(g.mul(g.matmul(q, k, { transB: true }), 1 / Math.sqrt(d)), mask); // [B, H, T, T]
    att = g.matmul(g.softmax(scores), v);
  }
  const o = g.reshape(g.transpose(att, [0, 2, 1, 3]), [b * t, w]);
  return linear(g, o, w, `${name}.proj`, 0.02 / Math.sqrt(2 * c.layers));
}

/** The forward pass into `g`: inputs `tokens` [B·T] i32, `targets` [B·T] i32, `mask` [T, T] (unused with `attention: 'op'`). */
export function gptForward(g: Graph, c: GptConfig): GptForward {
  if (c.width % c.heads !== 0) throw new Error(`gpt: width ${c.width} is not a multiple of heads ${c.heads}`);
  const n = c.batch * c.context;
  const tokens = g.input('tokens', [n], 'i32');
  const targets = g.input('targets', [n], 'i32');
  const mask = g.input('mask', [c.context, c.context]);
  const wte = g.param('wte', [c.vocab, c.width], normal(0.02, 'wte'));
  const wpe = g.param('wpe', [c.context, c.width], normal(0.01, 'wpe'));
  const pos = g.reshape(g.add(g.reshape(g.gather(wte, tokens), [c.batch, c.context, c.width]), wpe), [n, c.width]);
  let x = pos;
  for (let l = 0; l < c.layers; l++) {
    const name = `h${l}`;
    x = g.add(x, attention(g, layerNorm(g, x, `${name}.ln1`), mask, c, `${name}.attn`));
    const hidden = g.gelu(linear(g, layerNorm(g, x, `${name}.ln2`), 4 * c.width, `${name}.fc`), { approximate: 'tanh' });
    x = g.add(x, linear(g, hidden, c.width, `${name}.mlpProj`, 0.02 / Math.sqrt(2 * c.layers)));
  }
  const final = layerNorm(g, x, 'lnF');
  const logits = g.matmul(final, g.param('lmHead', [c.width, c.vocab], normal(0.02, 'lmHead')));
  return { loss: g.crossEntropy(logits, targets), logits };
}

/** The whole training step: forward, output `loss`, backward by autograd, AdamW (lr 3e-4) updates. */
export function buildGptStep(c: GptConfig): Graph {
  const g = new Graph();
  const { loss } = gptForward(g, c);
  g.output('loss', loss);
  const params = g.leaves('param');
  adamW({ lr: 3e-4, weightDecay: 0.1 }).apply(g, params, grad(g, loss, params));
  return g;
}

/** The causal mask feed [T, T]: 0 on and below the diagonal, −1e9 above. */
export function causalMask(context: number): TensorValue {
  const data = new Float64Array(context * context);
  for (let i = 0; i < context; i++) for (let j = i + 1; j < context; j++) data[i * context + j] = -1e9;
  return tensor([context, context], data);
}

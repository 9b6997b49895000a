// The mapping between a Hugging Face `config.json` and a neura model: GPT-2 (`gpt2`) → GPT, LLaMA / SmolLM2
// (`llama`) → Llama, Qwen2 (`qwen2`) → Llama with q/k/v biases, and back. Every field that changes the math is
// either carried over exactly (eps, RoPE base, GELU form, tied head, GQA) or, when neura cannot reproduce it,
// rejected with a PretrainedConfigError naming the field and its value: never silently approximated.

import type { TransformerBlock } from '../layers/transformerBlock.js';
import { GPT, type GptConfig } from '../models/gpt.js';
import { Llama, type LlamaConfig } from '../models/llama.js';

/** A config.json as parsed JSON. */
export type HfConfig = Readonly<Record<string, unknown>>;

/** The Hugging Face architectures this loader understands. */
export type HfModelType = 'gpt2' | 'llama' | 'qwen2';

/** A config.json field neura cannot reproduce (or that is missing / malformed). */
export class PretrainedConfigError extends Error {
  /** Always `'PretrainedConfigError'`. */
  override readonly name = 'PretrainedConfigError';
  constructor(
    message: string,
    /** The config.json field at fault. */
    readonly field: string,
    /** Its value (undefined when missing). */
    readonly value?: unknown,
  ) {
    super(message);
  }
}

/** A neura model built from a config.json, with the options to import its torch state dict. */
export interface HfModel {
  /** config.json's `model_type`. */
  readonly modelType: HfModelType;
  /** The neura model the config describes (random weights until loaded). */
  readonly model: GPT | Llama;
}

const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** Reads config fields, failing with the field's name. */
class Fields {
  constructor(
    readonly c: HfConfig,
    readonly type: string,
  ) {}
  has(k: string): boolean {
    return this.c[k] !== undefined && this.c[k] !== null;
  }
  int(k: string, dflt?: number): number {
    const v = this.has(k) ? this.c[k] : dflt;
    if (!(Number.isInteger(v) && (v as number) > 0)) throw new PretrainedConfigError(`${this.type} config: '${k}' must be a positive integer, got ${show(this.c[k])}`, k, this.c[k]);
    return v as number;
  }
  num(k: string, dflt: number): number {
    const v = this.has(k) ? this.c[k] : dflt;
    if (typeof v !== 'number' || !(v > 0)) throw new PretrainedConfigError(`${this.type} config: '${k}' must be a positive number, got ${show(this.c[k])}`, k, this.c[k]);
    return v;
  }
  bool(k: string, dflt: boolean): boolean {
    const v = this.has(k) ? this.c[k] : dflt;
    if (typeof v !== 'boolean') throw new PretrainedConfigError(`${this.type} config: '${k}' must be true or false, got ${show(this.c[k])}`, k, this.c[k]);
    return v;
  }
  /** Throws unless field `k` is absent or one of `ok` (`why` says what neura lacks). */
  only(k: string, ok: readonly unknown[], why: string): void {
    if (this.has(k) && !ok.includes(this.c[k]))
      throw new PretrainedConfigError(`${this.type} config: ${k} = ${show(this.c[k])} is not supported (${why})`, k, this.c[k]);
  }
}

/** Builds the neura model a config.json describes (see the file header for what is rejected). */
export function modelFromHfConfig(config: HfConfig): HfModel {
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new PretrainedConfigError('config.json must be a JSON object', 'config', config);
  const type = config.model_type;
  if (type === 'gpt2') return { modelType: type, model: new GPT(gptConfig(new Fields(config, type))) };
  if (type === 'llama' || type === 'qwen2') return { modelType: type, model: new Llama(llamaConfig(new Fields(config, type))) };
  throw new PretrainedConfigError(`config.json: model_type ${show(type)} is not supported (supported: gpt2, llama, qwen2)`, 'model_type', type);
}

/** HF GPT2Config → GptConfig. */
function gptConfig(f: Fields): GptConfig {
  const width = f.int('n_embd');
  f.only('n_inner', [4 * width], `neura's GPT MLP is 4·n_embd = ${4 * width} wide`);
  f.only('scale_attn_weights', [true], 'attention is always scaled by 1/√head_dim');
  f.only('scale_attn_by_inverse_layer_idx', [false], 'no per-layer attention scaling');
  f.only('add_cross_attention', [false], 'decoder-only, no cross-attention');
  const act = f.c.activation_function ?? 'gelu_new';
  const gelu = act === 'gelu_new' || act === 'gelu_pytorch_tanh' ? 'tanh' : act === 'gelu' ? 'none' : undefined;
  if (!gelu) throw new PretrainedConfigError(`gpt2 config: activation_function = ${show(act)} is not supported (gelu_new, gelu_pytorch_tanh or gelu)`, 'activation_function', act);
  return {
    vocab: f.int('vocab_size'),
    context: f.int('n_positions'),
    layers: f.int('n_layer'),
    heads: f.int('n_head'),
    width,
    eps: f.num('layer_norm_epsilon', 1e-5),
    gelu,
    tiedHead: f.bool('tie_word_embeddings', true),
  };
}

/** HF LlamaConfig / Qwen2Config → LlamaConfig. */
function llamaConfig(f: Fields): LlamaConfig {
  const qwen = f.type === 'qwen2';
  const width = f.int('hidden_size');
  const heads = f.int('num_attention_heads');
  f.only('hidden_act', ['silu'], 'the MLP is SwiGLU with SiLU');
  f.only('head_dim', [width / heads], `head_dim is hidden_size / num_attention_heads = ${width / heads}`);
  f.only('mlp_bias', [false], 'the MLP has no biases');
  if (!qwen) f.only('attention_bias', [false], 'LLaMA attention has no biases here (Qwen2 has q/k/v biases)');
  f.only('rope_scaling', [], 'plain RoPE only');
  if (qwen) {
    f.only('use_sliding_window', [false], 'full causal attention only');
    const slid = Array.isArray(f.c.layer_types) ? f.c.layer_types.find((t) => t !== 'full_attention') : undefined;
    if (slid !== undefined) throw new PretrainedConfigError(`qwen2 config: layer_types contains ${show(slid)}, which is not supported (full causal attention only)`, 'layer_types', f.c.layer_types);
  }
  return {
    vocab: f.int('vocab_size'),
    layers: f.int('num_hidden_layers'),
    heads,
    width,
    kvHeads: f.int('num_key_value_heads', heads),
    hidden: f.int('intermediate_size'),
    eps: f.num('rms_norm_eps', 1e-6),
    ropeBase: ropeTheta(f),
    ropeLayout: 'half', // HF's rotate_half
    qkvBias: qwen,
    tiedHead: f.bool('tie_word_embeddings', false),
  };
}

/** RoPE base: `rope_theta`, or transformers 5's `rope_parameters` (only `rope_type: 'default'`). */
function ropeTheta(f: Fields): number {
  const p = f.c.rope_parameters;
  if (p === undefined || p === null) return f.num('rope_theta', 10000);
  if (typeof p !== 'object' || Array.isArray(p)) throw new PretrainedConfigError(`${f.type} config: rope_parameters must be an object, got ${show(p)}`, 'rope_parameters', p);
  const rp = p as Record<string, unknown>;
  if ((rp.rope_type ?? 'default') !== 'default')
    throw new PretrainedConfigError(`${f.type} config: rope_parameters.rope_type = ${show(rp.rope_type)} is not supported (plain RoPE only)`, 'rope_parameters.rope_type', rp.rope_type);
  const theta = rp.rope_theta ?? f.c.rope_theta ?? 10000;
  if (typeof theta !== 'number' || !(theta > 0)) throw new PretrainedConfigError(`${f.type} config: rope_theta must be a positive number, got ${show(theta)}`, 'rope_parameters.rope_theta', theta);
  return theta;
}

/**
 * The config.json of a neura GPT or Llama (the fields that define its math), over `base` (e.g. the loaded
 * config, for token ids and the like); throws for a model HF's GPT2 / Llama / Qwen2 classes cannot express.
 */
export function hfConfigOf(model: GPT | Llama, base: HfConfig = {}): Record<string, unknown> {
  const no = (what: string) => {
    throw new PretrainedConfigError(`${model.constructor.name} cannot be saved as a Hugging Face model: ${what}`, 'model');
  };
  if (model instanceof GPT) {
    const c = model.config;
    if ((c.kvHeads ?? c.heads) !== c.heads) no('GPT-2 has no grouped-query heads');
    if (c.bias === false) no('GPT-2 has biases');
    if (c.headBias) no('GPT-2 has no lm_head bias');
    return {
      ...base,
      architectures: ['GPT2LMHeadModel'],
      model_type: 'gpt2',
      vocab_size: c.vocab,
      n_positions: c.context,
      n_embd: c.width,
      n_layer: c.layers,
      n_head: c.heads,
      n_inner: null,
      activation_function: (c.gelu ?? 'none') === 'tanh' ? 'gelu_new' : 'gelu',
      layer_norm_epsilon: c.eps ?? 1e-5,
      tie_word_embeddings: c.tiedHead ?? false,
    };
  }
  const c = model.config;
  if ((c.ropeLayout ?? 'half') !== 'half') no("HF LLaMA's RoPE is rotate_half ('half'), the model's is interleaved");
  const qwen = c.qkvBias === true;
  const { rope_parameters: _drop, ...rest } = base;
  return {
    ...rest,
    architectures: [qwen ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM'],
    model_type: qwen ? 'qwen2' : 'llama',
    vocab_size: c.vocab,
    hidden_size: c.width,
    intermediate_size: (model.model.layers.at(0) as TransformerBlock).mlp.hidden,
    num_hidden_layers: c.layers,
    max_position_embeddings: base.max_position_embeddings ?? 2048, // RoPE has no limit; HF wants a number
    num_attention_heads: c.heads,
    num_key_value_heads: c.kvHeads ?? c.heads,
    head_dim: c.width / c.heads,
    hidden_act: 'silu',
    rms_norm_eps: c.eps ?? 1e-6,
    rope_theta: c.ropeBase ?? 10000,
    rope_scaling: null,
    tie_word_embeddings: c.tiedHead ?? false,
    ...(qwen ? { use_sliding_window: false } : { attention_bias: false, mlp_bias: false }),
  };
}

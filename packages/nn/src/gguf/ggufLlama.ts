// A GGUF file's LLaMA (`general.architecture = llama`) as neura's Llama: its metadata → LlamaConfig, GGUF tensor names
// (token_embd, blk.N.attn_q, …, output_norm, output) → the Hugging Face names neura's Llama uses, and the row order
// of attn_q / attn_k undone. llama.cpp's convert_hf_to_gguf.py permutes those rows from HF's rotate-half layout to
// the interleaved pairs of Meta's checkpoints (`LlamaModel.permute`: reshape(heads, 2, D/2, K).swapaxes(1, 2)), so
// that GGUF row h·D + 2i + j holds HF row h·D + j·D/2 + i. Pure: no file reading (loadGguf.ts).

import { Llama, type LlamaConfig } from '../models/llama.js';
import { GgufError } from './ggufError.js';

/** GGUF metadata as read (numbers, strings, bigints, arrays). */
export type GgufMetadata = Readonly<Record<string, unknown>>;

/** GGUF's per-block tensor names → the HF module path under `model.layers.N.` */
const BLOCK_NAMES: Readonly<Record<string, string>> = {
  attn_norm: 'input_layernorm',
  attn_q: 'self_attn.q_proj',
  attn_k: 'self_attn.k_proj',
  attn_v: 'self_attn.v_proj',
  attn_output: 'self_attn.o_proj',
  ffn_norm: 'post_attention_layernorm',
  ffn_gate: 'mlp.gate_proj',
  ffn_up: 'mlp.up_proj',
  ffn_down: 'mlp.down_proj',
};

const TOP_NAMES: Readonly<Record<string, string>> = { token_embd: 'model.embed_tokens', output_norm: 'model.norm', output: 'lm_head' };

/** The HF / neura name of a GGUF LLaMA tensor (`blk.3.attn_q.weight` → `model.layers.3.self_attn.q_proj.weight`); undefined if it has none. */
export function hfNameOf(ggufName: string): string | undefined {
  const m = /^blk\.(\d+)\.(\w+)\.weight$/.exec(ggufName);
  if (m) return BLOCK_NAMES[m[2]] === undefined ? undefined : `model.layers.${m[1]}.${BLOCK_NAMES[m[2]]}.weight`;
  const t = /^(\w+)\.weight$/.exec(ggufName);
  return t && TOP_NAMES[t[1]] !== undefined ? `${TOP_NAMES[t[1]]}.weight` : undefined;
}

/** The heads whose rows llama.cpp permuted in GGUF tensor `ggufName` (attn_q: heads, attn_k: K/V heads), else 0. */
export function permutedHeads(ggufName: string, config: LlamaConfig): number {
  if (/^blk\.\d+\.attn_q\.weight$/.test(ggufName)) return config.heads;
  if (/^blk\.\d+\.attn_k\.weight$/.test(ggufName)) return config.kvHeads ?? config.heads;
  return 0;
}

/**
 * The HF row order of a tensor whose `rows` rows llama.cpp permuted for `heads` heads: `hfRow[r]` is the GGUF row that
 * holds HF row r (see the file header).
 */
export function hfRowOrder(rows: number, heads: number): Int32Array {
  const d = rows / heads;
  if (!Number.isInteger(d) || d % 2 !== 0) throw new GgufError(`a permuted attention weight of ${rows} rows does not split into ${heads} heads of an even size`);
  const order = new Int32Array(rows);
  for (let h = 0; h < heads; h++) for (let i = 0; i < d / 2; i++) for (let j = 0; j < 2; j++) order[h * d + j * (d / 2) + i] = h * d + 2 * i + j;
  return order;
}

/**
 * The shortest decimal that is `v` in f32: GGUF stores floats as f32 (a config's rms_norm_eps 1e-6 is read back as
 * 9.99999997e-7), and this gives back the number the config said, so the model equals the one fromPretrained builds.
 */
function shortestF32(v: number): number {
  for (let p = 1; p <= 9; p++) {
    const d = Number(v.toPrecision(p));
    if (Math.fround(d) === v) return d;
  }
  return v;
}

/** Reads a metadata key of the architecture (`llama.<key>`), failing with the key's name. */
function reader(meta: GgufMetadata) {
  const value = (key: string) => {
    const v = meta[`llama.${key}`];
    return typeof v === 'bigint' ? Number(v) : v;
  };
  return {
    has: (key: string) => value(key) !== undefined,
    int(key: string): number {
      const v = value(key);
      if (!(Number.isInteger(v) && (v as number) > 0)) throw new GgufError(`GGUF metadata 'llama.${key}' must be a positive integer, got ${String(v)}`, `llama.${key}`);
      return v as number;
    },
    num(key: string, dflt?: number): number {
      const v = value(key) ?? dflt;
      if (typeof v !== 'number' || !(v > 0)) throw new GgufError(`GGUF metadata 'llama.${key}' must be a positive number, got ${String(v)}`, `llama.${key}`);
      return shortestF32(v);
    },
    raw: value,
  };
}

/**
 * The Llama a GGUF file describes; `vocab` and whether the head is tied come from its tensors when the metadata does
 * not say (`token_embd` rows, no `output` tensor). A key whose value neura cannot reproduce is a GgufError naming it.
 */
export function llamaFromGguf(meta: GgufMetadata, opts: { vocab: number; tiedHead: boolean }): Llama {
  const arch = meta['general.architecture'];
  if (arch !== 'llama') throw new GgufError(`GGUF general.architecture '${String(arch)}' is not supported (only 'llama')`, 'general.architecture');
  const f = reader(meta);
  const width = f.int('embedding_length');
  const heads = f.int('attention.head_count');
  const kvHeads = f.has('attention.head_count_kv') ? f.int('attention.head_count_kv') : heads;
  if (f.has('rope.dimension_count') && f.int('rope.dimension_count') !== width / heads)
    throw new GgufError(`GGUF llama.rope.dimension_count = ${String(f.raw('rope.dimension_count'))} is not supported (RoPE over the whole head of ${width / heads})`, 'llama.rope.dimension_count');
  const scaling = f.raw('rope.scaling.type');
  if (scaling !== undefined && scaling !== 'none') throw new GgufError(`GGUF llama.rope.scaling.type = '${String(scaling)}' is not supported (plain RoPE only)`, 'llama.rope.scaling.type');
  if (f.has('expert_count') && f.int('expert_count') > 1) throw new GgufError('GGUF llama.expert_count: mixture-of-experts models are not supported', 'llama.expert_count');
  const vocab = f.has('vocab_size') ? f.int('vocab_size') : opts.vocab;
  return new Llama({
    vocab,
    layers: f.int('block_count'),
    heads,
    width,
    kvHeads,
    hidden: f.int('feed_forward_length'),
    eps: f.num('attention.layer_norm_rms_epsilon'), // required, as llama.cpp requires it
    ropeBase: f.num('rope.freq_base', 10000),
    ropeLayout: 'half', // attn_q / attn_k rows are put back in HF's order as they are read
    tiedHead: opts.tiedHead,
  });
}

// GGUF loading against the safetensors path. tooling/fixtures/gguf/ holds llama-untied (a transformers LLaMA, see
// tooling/fixtures/hf/) converted by llama.cpp's own gguf-py as its convert script does (q/k rows permuted;
// gguf_fixtures.py): F32, all-Q8_0, and Q4_0 projections with a Q8_0 embedding and head. Loaded with loadGguf, the
// weights equal fromPretrained's (F32) or its quantization by neura's quantizers (which give ggml's bytes), and the
// logits equal; files written here (ggufWriter.ts) cover F16 and what must be refused.

import { readFileSync } from 'node:fs';
import { dequantizeQ8_0, f16Bits, f16round, Graph, interpret, quantizeQ4_0, quantizeQ8_0, type TensorValue, tensor } from '@neura/ir';
import { fromPretrained, hfStateDict, Llama, quantizeGraph, quantizeStateDict, quantNames, type WeightFormat } from '@neura/nn';
import { GgufError, hfRowOrder, loadGguf } from '@neura/nn/gguf';
import { describe, expect, it } from 'vitest';
import { GGML, writeGguf } from '../../../tooling/test/ggufWriter.js';
import { quantizableWeights } from '../src/quantizeWeights.js';

const fixture = (name: string) => readFileSync(new URL(`../../../tooling/fixtures/gguf/${name}`, import.meta.url));
const hfDir = new URL('../../../tooling/fixtures/hf/llama-untied/', import.meta.url);
const hf = await fromPretrained({ config: readFileSync(new URL('config.json', hfDir)), files: [readFileSync(new URL('model.safetensors', hfDir))] });
const TOKENS = [[1, 5, 9, 63, 0, 17]];

/** Logits [1, T, V] of `model` on `values` (interpreter, f64), through `weights`' quantized graph when not f32. */
function logits(p: { model: typeof hf.model; values: Record<string, TensorValue> }, weights: WeightFormat = 'f32'): number[] {
  const g = new Graph();
  g.output('logits', p.model.forward(g, g.input('tokens', [1, TOKENS[0].length], 'i32')));
  const q = weights === 'f32' ? undefined : quantizableWeights(g, weights);
  const graph = q ? quantizeGraph(g, q) : g;
  return Array.from(interpret(graph, { tokens: tensor([1, TOKENS[0].length], TOKENS.flat(), 'i32') }, q ? quantizeStateDict(p.values, q) : p.values, 'f64').outputs.logits.data);
}

describe('loadGguf (files written by llama.cpp’s gguf-py)', () => {
  it('F32: the model and every value fromPretrained gives for the same weights (q/k rows un-permuted), so the same logits', async () => {
    const g = await loadGguf(fixture('llama-untied-f32.gguf'));
    expect(g.weights).toBe('f32');
    expect(g.model.config).toMatchObject({ vocab: 64, layers: 2, heads: 4, kvHeads: 2, width: 32, hidden: 64, eps: 1e-6, ropeBase: 10000, tiedHead: false });
    expect(Object.keys(g.values).sort()).toEqual(Object.keys(hf.values).sort());
    for (const [name, v] of Object.entries(hf.values)) expect(Array.from(g.values[name].data), name).toEqual(Array.from(v.data));
    expect(g.tensors.find((t) => t.name === 'blk.0.attn_k.weight')).toEqual({ name: 'blk.0.attn_k.weight', shape: [32, 16], type: 'F32' });
    expect(logits(g)).toEqual(logits(hf));
  });

  it("Q8_0: Linear weights stay packed, equal to neura's quantization of the safetensors weights; the embedding is dequantized", async () => {
    const g = await loadGguf(fixture('llama-untied-q8_0.gguf'));
    expect(g.weights).toBe('q8_0');
    const q = quantNames('model.layers.1.self_attn.q_proj.weight', 'q8_0');
    const want = quantizeQ8_0(hf.values['model.layers.1.self_attn.q_proj.weight']); // [in, out]: rows are output features, HF's order
    expect(Array.from(g.values[q.qs].data)).toEqual(Array.from(want.q.data));
    expect(Array.from(g.values[q.d].data)).toEqual(Array.from(want.d.data));
    expect(g.values['model.layers.1.self_attn.q_proj.weight']).toBeUndefined();
    const embd = hf.values['model.embed_tokens.weight']; // [vocab, width]: rows of K = width
    const deq = dequantizeQ8_0(quantizeQ8_0(embd, { transposed: true }), 32); // [width, vocab]
    expect(Array.from(g.values['model.embed_tokens.weight'].data)).toEqual(Array.from({ length: 64 * 32 }, (_, i) => deq.data[(i % 32) * 64 + Math.floor(i / 32)]));
    const ref = { model: hf.model, values: { ...hf.values, 'model.embed_tokens.weight': g.values['model.embed_tokens.weight'] } };
    expect(logits(g, 'q8_0')).toEqual(logits(ref, 'q8_0'));
  });

  it('Q4_0 projections with a Q8_0 head: mixed, so f32 by default; with weights q4_0 the projections stay packed and the head is dequantized (quantized to Q4_0 as it loads)', async () => {
    const bytes = fixture('llama-untied-q4_0.gguf');
    const mixed = await loadGguf(bytes);
    expect(mixed.weights).toBe('f32');
    expect(Object.keys(mixed.values).sort()).toEqual(Object.keys(hf.values).sort());
    const g = await loadGguf(new Blob([bytes]), { weights: 'q4_0' }); // a Blob (a browser File), read by ranges
    expect(g.weights).toBe('q4_0');
    for (const name of ['model.layers.0.self_attn.q_proj.weight', 'model.layers.0.self_attn.k_proj.weight', 'model.layers.1.mlp.down_proj.weight']) {
      const want = quantizeQ4_0(hf.values[name]);
      expect(Array.from(g.values[quantNames(name, 'q4_0').qs].data), name).toEqual(Array.from(want.q.data));
      expect(Array.from(g.values[quantNames(name, 'q4_0').d].data), name).toEqual(Array.from(want.d.data));
    }
    const head = hf.values['lm_head.weight']; // [width, vocab]
    expect(Array.from(g.values['lm_head.weight'].data)).toEqual(Array.from(dequantizeQ8_0(quantizeQ8_0(head), 32).data));
    const ref = { model: hf.model, values: { ...hf.values, 'model.embed_tokens.weight': g.values['model.embed_tokens.weight'], 'lm_head.weight': g.values['lm_head.weight'] } };
    expect(logits(g, 'q4_0')).toEqual(logits(ref, 'q4_0'));
  });
});

describe("llama.cpp's q/k row permutation", () => {
  it('is undone by hfRowOrder: GGUF row h·D + 2i + j holds HF row h·D + j·D/2 + i', () => {
    // one head of D = 6: llama.cpp's permute stores HF rows in the order [0 3 1 4 2 5]; HF row r is GGUF row order[r]
    expect(Array.from(hfRowOrder(6, 1))).toEqual([0, 2, 4, 1, 3, 5]);
    expect(Array.from(hfRowOrder(8, 2))).toEqual([0, 2, 1, 3, 4, 6, 5, 7]);
    expect(() => hfRowOrder(6, 2)).toThrow(GgufError); // heads of 3 rows: no pairs
  });
});

/** llama.cpp's LlamaModel.permute of [rows, K] f32 data for `heads` heads: reshape(heads, 2, D/2, K).swapaxes(1, 2). */
function llamaCppPermute(data: Float32Array, rows: number, k: number, heads: number): Float32Array {
  const d = rows / heads;
  const out = new Float32Array(data.length);
  for (let h = 0; h < heads; h++)
    for (let j = 0; j < 2; j++) for (let i = 0; i < d / 2; i++) out.set(data.subarray((h * d + j * (d / 2) + i) * k, (h * d + j * (d / 2) + i + 1) * k), (h * d + 2 * i + j) * k);
  return out;
}

const LLAMA_KV = {
  'general.architecture': { type: 'string', value: 'llama' },
  'llama.embedding_length': { type: 'u32', value: 32 },
  'llama.block_count': { type: 'u32', value: 1 },
  'llama.feed_forward_length': { type: 'u32', value: 64 },
  'llama.attention.head_count': { type: 'u32', value: 4 },
  'llama.attention.head_count_kv': { type: 'u32', value: 2 },
  'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
} as const;

/** A GGUF file (written here) of a tied 1-layer LLaMA with the given weights in `type` (F32 or F16), as llama.cpp converts them. */
function tiedFile(values: Record<string, TensorValue>, type: number, extra: { kv?: Record<string, unknown>; tensors?: Parameters<typeof writeGguf>[1]; drop?: string } = {}): Uint8Array {
  const torch = hfStateDict(tiedModel, values);
  const names: Record<string, string> = { 'model.embed_tokens.weight': 'token_embd.weight', 'model.norm.weight': 'output_norm.weight' };
  const block: Record<string, string> = { input_layernorm: 'attn_norm', 'self_attn.q_proj': 'attn_q', 'self_attn.k_proj': 'attn_k', 'self_attn.v_proj': 'attn_v', 'self_attn.o_proj': 'attn_output', post_attention_layernorm: 'ffn_norm', 'mlp.gate_proj': 'ffn_gate', 'mlp.up_proj': 'ffn_up', 'mlp.down_proj': 'ffn_down' };
  const tensors = Object.entries(torch).flatMap(([n, v]) => {
    const name = names[n] ?? `blk.0.${block[n.split('.').slice(3, -1).join('.')]}.weight`;
    const [rows, k] = v.shape.length === 1 ? [1, v.shape[0]] : v.shape;
    let data: Float32Array = Float32Array.from(v.data);
    if (n.endsWith('q_proj.weight')) data = llamaCppPermute(data, rows, k, 4);
    if (n.endsWith('k_proj.weight')) data = llamaCppPermute(data, rows, k, 2);
    const t = v.shape.length === 1 ? GGML.F32 : type; // norms stay F32, as llama.cpp keeps them
    const bytes = t === GGML.F16 ? new Uint8Array(Uint16Array.from(data, f16Bits).buffer) : new Uint8Array(data.buffer);
    return name === extra.drop ? [] : [{ name, shape: [...v.shape].reverse(), type: t, data: bytes }];
  });
  const kv = Object.fromEntries(Object.entries({ ...LLAMA_KV, ...extra.kv }).filter(([, v]) => v !== undefined)); // undefined: a key left out
  return writeGguf(kv as Parameters<typeof writeGguf>[0], [...tensors, ...(extra.tensors ?? [])]);
}

const tiedModel = new Llama({ vocab: 64, layers: 1, heads: 4, kvHeads: 2, width: 32, hidden: 64, eps: 1e-5, tiedHead: true });
const tiedValues = tiedModel.initialState();

describe('loadGguf (files written here)', () => {
  it('F16 weights widen to f32 exactly; a missing output tensor ties the head; vocab comes from token_embd without llama.vocab_size', async () => {
    const g = await loadGguf(tiedFile(tiedValues, GGML.F16));
    expect(g.model.config).toMatchObject({ vocab: 64, tiedHead: true, eps: 1e-5 }); // the f32 1e-5 read back as the decimal it came from
    for (const [name, v] of Object.entries(tiedValues)) expect(Array.from(g.values[name].data), name).toEqual(Array.from(v.data, f16round));
    const want = { model: tiedModel, values: Object.fromEntries(Object.entries(tiedValues).map(([n, v]) => [n, { ...v, data: Float32Array.from(v.data, f16round) }])) };
    expect(logits(g)).toEqual(logits(want));
    expect(g.tensors.find((t) => t.name === 'blk.0.ffn_up.weight')?.type).toBe('F16');
  });

  it('a tensor of another GGML type is a GgufError naming the tensor and its type', async () => {
    const q6 = { name: 'output.weight', shape: [32, 64], type: GGML.Q6_K, data: new Uint8Array(64 * 210) };
    const e = await loadGguf(tiedFile(tiedValues, GGML.F32, { tensors: [q6] })).catch((x) => x);
    expect(e).toBeInstanceOf(GgufError);
    expect(e.message).toMatch(/tensor 'output.weight' has GGML type Q6_K, which neura does not read \(F32, F16, Q8_0 and Q4_0 only\)/);
    expect(e.where).toBe('output.weight');
  });

  it('refuses another architecture, RoPE scaling, an unknown tensor, a missing weight and bytes that are not GGUF, naming each', async () => {
    const fails = async (bytes: Uint8Array, what: RegExp) => expect(loadGguf(bytes)).rejects.toThrow(what);
    await fails(tiedFile(tiedValues, GGML.F32, { kv: { 'general.architecture': { type: 'string', value: 'gpt2' } } }), /general.architecture 'gpt2' is not supported/);
    await fails(tiedFile(tiedValues, GGML.F32, { kv: { 'llama.rope.scaling.type': { type: 'string', value: 'yarn' } } }), /llama.rope.scaling.type = 'yarn' is not supported/);
    await fails(tiedFile(tiedValues, GGML.F32, { kv: { 'llama.attention.layer_norm_rms_epsilon': undefined } }), /layer_norm_rms_epsilon' must be a positive number, got undefined/);
    const extra = { name: 'rope_freqs.weight', shape: [4], type: GGML.F32, data: new Uint8Array(16) };
    await fails(tiedFile(tiedValues, GGML.F32, { tensors: [extra] }), /tensor 'rope_freqs.weight' \[4\] has no counterpart/);
    await fails(tiedFile(tiedValues, GGML.F32, { drop: 'blk.0.ffn_up.weight' }), /do not fit the model .*the model's 'model.layers.0.mlp.up_proj.weight' \[32, 64\] is not in the state dict/);
    await fails(new TextEncoder().encode('not a gguf file at all, just text'), /not a readable GGUF file/);
  });
});

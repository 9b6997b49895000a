// Hugging Face checkpoints in and out. tooling/fixtures/hf/<name>/ holds checkpoints in save_pretrained's layout
// and float64 reference logits: from real `transformers` (hf_fixtures.py) or, where it could not run, from
// hf_reference.py's transcription of its forward (logits.json's "generator" says which). GPT-2 (tanh and exact
// GELU, eps, F16 file), LLaMA (tied, untied, sharded, BF16 file) and Qwen2 (q/k/v biases) reproduce those logits
// on the interpreter; bad configs name the field; export round-trips.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { decodeSafetensors, exportPretrained, fromPretrained, GPT, hfStateDict, Llama, modelFromHfConfig, type Pretrained, PretrainedConfigError, PretrainedFileError } from '@neura/nn';
import { loadPretrainedDir, savePretrainedDir } from '@neura/nn/node';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../tooling/fixtures/hf/', import.meta.url);
const dir = (name: string) => new URL(`${name}/`, ROOT).pathname;
const NAMES = ['gpt2', 'gpt2-gelu-eps', 'gpt2-f16', 'llama-tied', 'llama-untied', 'llama-sharded', 'llama-bf16', 'qwen2-tied', 'qwen2-untied'];

interface Reference {
  generator?: string;
  tokens: number[][];
  shape: number[];
  logits: number[];
}
const reference = (name: string): Reference => JSON.parse(readFileSync(join(dir(name), 'logits.json'), 'utf8'));

/** The model's logits [B, T, V] for `tokens` on the interpreter, in `precision`. */
function logits(p: Pick<Pretrained, 'model' | 'values'>, tokens: number[][], precision: 'f32' | 'f64'): TensorValue['data'] {
  const [b, t] = [tokens.length, tokens[0].length];
  const g = new Graph();
  g.output('logits', p.model.forward(g, g.input('tokens', [b, t], 'i32')));
  return interpret(g, { tokens: tensor([b, t], tokens.flat(), 'i32') }, p.values, precision).outputs.logits.data;
}

/** The error `run` throws (fails the test if it returns). */
async function thrown(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

/**
 * How close our float64 logits must be to the reference's. transformers computes LLaMA's and Qwen2's RMSNorm
 * (`hidden_states.to(torch.float32)`) and RoPE tables (inv_freq, cos and sin in float32 with autocast off) in float32
 * even in a float64 model, so its logits carry f32 rounding there (~1e-6 seen); GPT-2 has no such step. A wrong eps,
 * theta or layout moves logits by 1e-3 or more.
 */
const f64Tolerance = (name: string) => (reference(name).generator === 'transformers' && !name.startsWith('gpt2') ? 2e-5 : 1e-9);

describe('fromPretrained reproduces the reference logits', () => {
  for (const name of NAMES)
    it(`${name}: logits equal ${reference(name).generator ?? 'transformers'}'s (f64 to ${f64Tolerance(name)}, f32 to 1e-4)`, async () => {
      const p = await loadPretrainedDir(dir(name));
      const ref = reference(name);
      expect(ref.shape).toEqual([2, 8, 64]);
      expect(logits(p, ref.tokens, 'f64')).toBeAllclose(ref.logits, { rtol: f64Tolerance(name), atol: f64Tolerance(name) });
      expect(logits(p, ref.tokens, 'f32')).toBeAllclose(ref.logits, { rtol: 1e-4, atol: 1e-4 });
    });

  it('builds the architecture, numerics and head the config names', async () => {
    const gpt = await loadPretrainedDir(dir('gpt2-gelu-eps'));
    expect(gpt.modelType).toBe('gpt2');
    expect(gpt.model).toBeInstanceOf(GPT);
    expect((gpt.model as GPT).config).toMatchObject({ gelu: 'none', eps: 1e-3, tiedHead: true, width: 32, heads: 4, layers: 2, context: 16 });
    expect((await loadPretrainedDir(dir('gpt2'))).model.config).toMatchObject({ gelu: 'tanh', eps: 1e-5 });
    const qwen = await loadPretrainedDir(dir('qwen2-untied'));
    expect(qwen.model).toBeInstanceOf(Llama);
    expect(qwen.model.config).toMatchObject({ qkvBias: true, kvHeads: 2, hidden: 64, tiedHead: false, ropeBase: 10000 });
    expect(Object.keys(qwen.values)).toContain('model.layers.0.self_attn.q_proj.bias');
    expect(Object.keys(qwen.values)).not.toContain('model.layers.0.self_attn.o_proj.bias');
    expect((await loadPretrainedDir(dir('llama-tied'))).model.config).toMatchObject({ qkvBias: false, tiedHead: true, eps: 1e-5 });
  });

  it('reads half-precision files (F16, BF16) widened to f32', async () => {
    expect(new Set(Object.values((await loadPretrainedDir(dir('gpt2-f16'))).fileDtypes))).toEqual(new Set(['F16']));
    expect(new Set(Object.values((await loadPretrainedDir(dir('llama-bf16'))).fileDtypes))).toEqual(new Set(['BF16']));
  });

  it('loads a sharded checkpoint through its index, and from buffers in memory in any order', async () => {
    const files = readdirSync(dir('llama-sharded'));
    const shards = files.filter((f) => f.endsWith('.safetensors'));
    expect(files).toContain('model.safetensors.index.json');
    expect(shards.length).toBeGreaterThan(1);
    const viaDir = await loadPretrainedDir(dir('llama-sharded'));
    const inMemory = await fromPretrained({ config: readFileSync(join(dir('llama-sharded'), 'config.json')), files: shards.reverse().map((f) => readFileSync(join(dir('llama-sharded'), f))) });
    expect(Object.keys(inMemory.values).sort()).toEqual(Object.keys(viaDir.values).sort());
    for (const [n, v] of Object.entries(viaDir.values)) expect(Array.from(inMemory.values[n].data), n).toEqual(Array.from(v.data));
  });

  it('rejects a shard the index names but the loader lacks, and a tensor the index places elsewhere', async () => {
    const d = dir('llama-sharded');
    const read = (n: string) => readFileSync(join(d, n));
    const index = JSON.parse(read('model.safetensors.index.json').toString());
    const [first] = Object.values(index.weight_map) as string[];
    const missing = await thrown(() => fromPretrained(async (n) => (n === first ? undefined : read(n))));
    expect(missing).toBeInstanceOf(PretrainedFileError);
    expect(missing.message).toContain(first);
    const name = Object.keys(index.weight_map).find((k) => index.weight_map[k] !== first) as string;
    const moved = { ...index, weight_map: { ...index.weight_map, [name]: first } };
    const wrong = await thrown(() => fromPretrained(async (n) => (n === 'model.safetensors.index.json' ? new TextEncoder().encode(JSON.stringify(moved)) : read(n))));
    expect(wrong).toBeInstanceOf(PretrainedFileError);
    expect(wrong.message).toContain(`'${name}'`);
  });
});

describe('config fields neura cannot reproduce are errors naming the field', () => {
  const llama = JSON.parse(readFileSync(join(dir('llama-untied'), 'config.json'), 'utf8'));
  const qwen = JSON.parse(readFileSync(join(dir('qwen2-untied'), 'config.json'), 'utf8'));
  const gpt2 = JSON.parse(readFileSync(join(dir('gpt2'), 'config.json'), 'utf8'));
  const cases: [string, Record<string, unknown>, string, unknown][] = [
    ['llama rope_scaling', { ...llama, rope_scaling: { rope_type: 'linear', factor: 2 } }, 'rope_scaling', { rope_type: 'linear', factor: 2 }],
    ['llama rope_parameters of another type', { ...llama, rope_parameters: { rope_type: 'llama3', rope_theta: 5e5 } }, 'rope_parameters.rope_type', 'llama3'],
    ['llama attention_bias', { ...llama, attention_bias: true }, 'attention_bias', true],
    ['llama mlp_bias', { ...llama, mlp_bias: true }, 'mlp_bias', true],
    ['llama hidden_act gelu', { ...llama, hidden_act: 'gelu' }, 'hidden_act', 'gelu'],
    ['llama head_dim', { ...llama, head_dim: 16 }, 'head_dim', 16],
    ['qwen2 sliding window', { ...qwen, use_sliding_window: true }, 'use_sliding_window', true],
    ['gpt2 activation relu', { ...gpt2, activation_function: 'relu' }, 'activation_function', 'relu'],
    ['gpt2 n_inner', { ...gpt2, n_inner: 48 }, 'n_inner', 48],
    ['gpt2 layer-scaled attention', { ...gpt2, scale_attn_by_inverse_layer_idx: true }, 'scale_attn_by_inverse_layer_idx', true],
    ['unknown model_type', { ...llama, model_type: 'mistral' }, 'model_type', 'mistral'],
    ['missing size', { ...llama, hidden_size: undefined }, 'hidden_size', undefined],
  ];
  for (const [what, config, field, value] of cases)
    it(`${what} → PretrainedConfigError on '${field}'`, async () => {
      const e = await thrown(() => modelFromHfConfig(config));
      expect(e).toBeInstanceOf(PretrainedConfigError);
      expect((e as PretrainedConfigError).field).toBe(field);
      expect((e as PretrainedConfigError).value).toEqual(value);
      expect(e.message).toContain(field.split('.').at(-1));
    });

  it("reads RoPE's base from transformers 5's rope_parameters (rope_type default)", () => {
    const { rope_theta: _, ...v5 } = llama;
    const m = modelFromHfConfig({ ...v5, rope_parameters: { rope_type: 'default', rope_theta: 500000 } }).model as Llama;
    expect(m.config.ropeBase).toBe(500000);
    expect((modelFromHfConfig(v5).model as Llama).config.ropeBase).toBe(10000); // transformers' default
  });

  it('the unmodified fixture configs all build', () => {
    for (const name of NAMES) expect(() => modelFromHfConfig(JSON.parse(readFileSync(join(dir(name), 'config.json'), 'utf8')))).not.toThrow();
  });
});

describe('exportPretrained writes what transformers saves', () => {
  for (const name of NAMES.filter((n) => n !== 'llama-sharded'))
    it(`${name}: names, shapes and dtypes equal the HF file's; re-import is bit-identical`, async () => {
      const p = await loadPretrainedDir(dir(name));
      const files = exportPretrained(p.model, p.values, p.config);
      const ours = decodeSafetensors(files['model.safetensors']);
      const theirs = readdirSync(dir(name))
        .filter((f) => f.endsWith('.safetensors'))
        .map((f) => decodeSafetensors(readFileSync(join(dir(name), f))).tensors)
        .reduce((a, b) => Object.assign(a, b), {});
      expect(Object.keys(ours.tensors).sort()).toEqual(Object.keys(theirs).sort());
      for (const [n, v] of Object.entries(theirs)) {
        expect(ours.tensors[n].shape, n).toEqual(v.shape);
        expect(Array.from(ours.tensors[n].data), n).toEqual(Array.from(v.data)); // f16/bf16 widen exactly
      }
      expect(ours.metadata).toEqual({ format: 'pt' });
      const back = await fromPretrained({ config: files['config.json'], files: [files['model.safetensors']] });
      expect(back.model.config).toEqual(p.model.config);
      for (const [n, v] of Object.entries(p.values)) expect(Array.from(back.values[n].data), n).toEqual(Array.from(v.data));
    });

  it('a sharded checkpoint saves to one file through savePretrainedDir and loads back identically', async () => {
    const p = await loadPretrainedDir(dir('llama-sharded'));
    const out = mkdtempSync(join(tmpdir(), 'neura-hf-'));
    try {
      await savePretrainedDir(out, p.model, p.values, p.config);
      expect(readdirSync(out).sort()).toEqual(['config.json', 'model.safetensors']);
      const back = await loadPretrainedDir(out);
      expect(Object.keys(back.values).sort()).toEqual(Object.keys(p.values).sort());
      for (const [n, v] of Object.entries(p.values)) expect(Array.from(back.values[n].data), n).toEqual(Array.from(v.data));
      expect(hfStateDict(back.model, back.values)['lm_head.weight'].shape).toEqual([64, 32]); // nn.Linear [out, in]
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('refuses a model HF cannot express, naming why', async () => {
    const gqa = new GPT({ vocab: 8, context: 4, layers: 1, heads: 2, kvHeads: 1, width: 4 });
    expect((await thrown(() => exportPretrained(gqa, gqa.initialState()))).message).toContain('grouped-query');
    const inter = new Llama({ vocab: 8, layers: 1, heads: 2, width: 4, ropeLayout: 'interleaved' });
    expect((await thrown(() => exportPretrained(inter, inter.initialState()))).message).toContain('interleaved');
  });
});

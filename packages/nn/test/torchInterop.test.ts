// PyTorch interop against torch 1.13 in float64 (fixtures/torch_import_fixtures.py): nn.Embedding's padding_idx,
// a tied nanoGPT saved the way `safetensors.torch.save_model` saves it (one of the two tied names) reproduced on
// the interpreter with exact and tanh GELU, tied names on import and export, lm_head bias, and RoPE in both the
// half-split and the interleaved pair layouts.

import { readFileSync } from 'node:fs';
import { grad } from '@neura/autograd';
import { Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, decodeSafetensors, Embedding, exportTorchStateDict, GPT, type GptConfig, importTorchStateDict, Llama, MultiheadAttention, type RopeLayout, TorchImportError } from '@neura/nn';
import { adam } from '@neura/optim';
import { describe, expect, it } from 'vitest';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/torch-import.json', import.meta.url), 'utf8'));
const nano = decodeSafetensors(readFileSync(new URL('./fixtures/nanogpt-tied.safetensors', import.meta.url)));
const f64 = (shape: number[], values: number[]): TensorValue => ({ shape, dtype: 'f32', data: Float64Array.from(values) });

/** The problems an import reports (fails the test if it does not throw a TorchImportError). */
function importProblems(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(TorchImportError);
    return (e as TorchImportError).problems.join('\n');
  }
  throw new Error('expected a TorchImportError');
}

describe('Embedding with paddingIdx, as torch.nn.Embedding', () => {
  const c = fixtures.embedding;
  it('starts the padding row at zero, returns the stored row (an imported non-zero one) and gives it no gradient', () => {
    const emb = new Embedding(c.num, c.dim, { paddingIdx: c.paddingIdx });
    const init = emb.initialState('emb')['emb.weight'].data;
    expect(Array.from(init.slice(3 * c.dim, 4 * c.dim))).toEqual([0, 0, 0]); // paddingIdx -2 → row 3
    expect(Array.from(init.slice(0, c.dim)).every((v) => v !== 0)).toBe(true);

    const g = new Graph();
    const ids = g.input('ids', [2, 3], 'i32');
    const out = emb.forward(g, ids, 'emb');
    g.output('out', out);
    const [dw] = grad(g, g.sum(g.mul(out, g.input('coef', [2, 3, c.dim]))), [g.byName('emb.weight') as Tensor]);
    g.output('dw', dw);
    const r = interpret(g, { ids: tensor([2, 3], c.ids, 'i32'), coef: f64([2, 3, c.dim], c.coef) }, { 'emb.weight': f64([c.num, c.dim], c.weight) }, 'f64');
    expect(r.outputs.out.data).toBeAllclose(c.out, { rtol: 1e-12, atol: 1e-12 });
    expect(Array.from(r.outputs.out.data.slice(0, c.dim)).every((v) => v !== 0)).toBe(true); // the stored padding row
    expect(r.outputs.dw.data).toBeAllclose(c.grad, { rtol: 1e-12, atol: 1e-12 });
    expect(Array.from(r.outputs.dw.data.slice(3 * c.dim, 4 * c.dim))).toEqual([0, 0, 0]);
  });

  it('leaves the padding row unchanged through an Adam step (no weight decay), as torch does', () => {
    const emb = new Embedding(c.num, c.dim, { paddingIdx: c.paddingIdx });
    const g = new Graph();
    const out = emb.forward(g, g.input('ids', [2, 3], 'i32'), 'emb');
    buildTrainingStep(g, { loss: g.sum(g.mul(out, g.input('coef', [2, 3, c.dim]))), optimizer: adam({ lr: 0.1 }) });
    const before = f64([c.num, c.dim], c.weight);
    const r = interpret(g, { ids: tensor([2, 3], c.ids, 'i32'), coef: f64([2, 3, c.dim], c.coef) }, { 'emb.weight': before }, 'f64');
    const after = r.updates['emb.weight'].data;
    expect(Array.from(after.slice(3 * c.dim, 4 * c.dim))).toEqual(Array.from(before.data.slice(3 * c.dim, 4 * c.dim)));
    expect(Array.from(after.slice(0, c.dim))).not.toEqual(Array.from(before.data.slice(0, c.dim))); // id 0 is used: it moves
  });
});

describe('a tied nanoGPT from safetensors.torch.save_model', () => {
  const cfg = JSON.parse(nano.metadata.config);
  const config: GptConfig = { vocab: cfg.vocab_size, context: cfg.block_size, layers: cfg.n_layer, heads: cfg.n_head, width: cfg.n_embd, bias: cfg.bias, tiedHead: true };
  const tokens = JSON.parse(nano.metadata.tokens) as number[][];

  function logits(model: GPT, params: Record<string, TensorValue>): TensorValue['data'] {
    const g = new Graph();
    g.output('logits', model.forward(g, g.input('tokens', [2, config.context], 'i32')));
    return interpret(g, { tokens: tensor([2, config.context], tokens.flat(), 'i32') }, params, 'f64').outputs.logits.data;
  }

  it('holds only lm_head.weight of the tied pair (what save_model keeps)', () => {
    expect(Object.keys(nano.tensors)).toContain('lm_head.weight');
    expect(Object.keys(nano.tensors)).not.toContain('transformer.wte.weight');
  });

  it("imports with the model's options and reproduces nanoGPT's logits (exact GELU by default)", () => {
    const model = new GPT(config);
    const params = importTorchStateDict(nano.tensors, model, model.torchImportOptions());
    expect(Object.keys(params).sort()).toEqual([...model.stateDictSpec().keys()].sort());
    expect(logits(model, params)).toBeAllclose(JSON.parse(nano.metadata.logits), { rtol: 0, atol: 1e-6 });
  });

  it("reproduces the tanh-GELU logits with gelu: 'tanh' (HF gpt2's gelu_new), which differ from the exact ones", () => {
    const model = new GPT({ ...config, gelu: 'tanh' });
    const got = logits(model, importTorchStateDict(nano.tensors, model, model.torchImportOptions()));
    expect(got).toBeAllclose(JSON.parse(nano.metadata.logits_tanh), { rtol: 0, atol: 1e-6 });
    expect(() => expect(got).toBeAllclose(JSON.parse(nano.metadata.logits), { rtol: 0, atol: 1e-6 })).toThrow();
  });

  it('accepts either name or both (equal) for the tied pair, and names both when they differ', () => {
    const model = new GPT(config);
    const opts = model.torchImportOptions();
    const wte = nano.tensors['lm_head.weight'];
    const { 'lm_head.weight': _, ...onlyWte } = nano.tensors;
    const want = importTorchStateDict(nano.tensors, model, opts)['transformer.wte.weight'];
    expect(importTorchStateDict({ ...onlyWte, 'transformer.wte.weight': wte }, model, opts)['transformer.wte.weight'].data).toEqual(want.data);
    expect(importTorchStateDict({ ...nano.tensors, 'transformer.wte.weight': wte }, model, opts)['transformer.wte.weight'].data).toEqual(want.data);
    const other = { ...wte, data: wte.data.map((v, i) => (i === 5 ? v + 1 : v)) };
    expect(importProblems(() => importTorchStateDict({ ...nano.tensors, 'transformer.wte.weight': other }, model, opts))).toMatch(
      /tied torch 'transformer.wte.weight' \[11, 8\] and 'lm_head.weight' \[11, 8\] differ/,
    );
  });

  it('still names missing and extra tensors', () => {
    const model = new GPT(config);
    const opts = model.torchImportOptions();
    const { 'lm_head.weight': _, 'transformer.ln_f.bias': __, ...rest } = nano.tensors;
    const text = importProblems(() => importTorchStateDict({ ...rest, 'transformer.extra': tensor([1], [0]) }, model, opts));
    expect(text).toMatch(/the model's 'transformer.wte.weight' \[11, 8\] is not in the state dict/);
    expect(text).toMatch(/the model's 'transformer.ln_f.bias' \[8\] is not in the state dict/);
    expect(text).toMatch(/torch 'transformer.extra' \[1\] has no counterpart/);
    // an untied model needs both tensors: the tied file lacks the token table
    const untied = new GPT({ ...config, tiedHead: false });
    expect(importProblems(() => importTorchStateDict(nano.tensors, untied, untied.torchImportOptions()))).toMatch(/the model's 'transformer.wte.weight' \[11, 8\] is not in the state dict/);
  });

  it("exports what PyTorch's state_dict holds: both tied names as one tensor, Linear weights [out, in]", () => {
    const model = new GPT(config);
    const opts = model.torchImportOptions();
    const out = exportTorchStateDict(importTorchStateDict(nano.tensors, model, opts), model, opts);
    expect(out['lm_head.weight']).toBe(out['transformer.wte.weight']);
    for (const [name, v] of Object.entries(nano.tensors)) {
      if (/\.attn\.bias$/.test(name)) continue; // the causal-mask buffers nanoGPT keeps and neura does not
      expect(out[name].shape, name).toEqual(v.shape);
      expect(Array.from(out[name].data), name).toEqual(Array.from(v.data));
    }
  });

  it('adds a bias to lm_head with headBias (off by default, as nanoGPT), and refuses it on a tied head', () => {
    expect(new GPT({ ...config, tiedHead: false }).namedParameters().some(([n]) => n === 'lm_head.bias')).toBe(false);
    const model = new GPT({ ...config, tiedHead: false, headBias: true });
    const tied = importTorchStateDict(nano.tensors, new GPT(config), new GPT(config).torchImportOptions());
    const w = nano.tensors['lm_head.weight'];
    const bias = f64([config.vocab], Array.from({ length: config.vocab }, (_, i) => 0.1 * i - 0.3));
    const params = { ...tied, 'lm_head.weight': { shape: [w.shape[1], w.shape[0]], dtype: 'f32' as const, data: transpose(w) }, 'lm_head.bias': bias };
    const want = (JSON.parse(nano.metadata.logits) as number[]).map((v, i) => v + bias.data[i % config.vocab]);
    expect(logits(model, params)).toBeAllclose(want, { rtol: 0, atol: 1e-6 });
    expect(() => new GPT({ ...config, headBias: true })).toThrow(/headBias needs a separate lm_head/);
  });
});

describe('a tied Llama through export and import', () => {
  it("round-trips an HF-layout dict holding only lm_head.weight of the tied pair, ignoring rotary_emb.inv_freq", () => {
    const model = new Llama({ vocab: 10, layers: 1, heads: 2, width: 8, tiedHead: true });
    const opts = model.torchImportOptions();
    const state = model.initialState();
    const torchDict = exportTorchStateDict(state, model, opts);
    expect(torchDict['lm_head.weight']).toBe(torchDict['model.embed_tokens.weight']);
    expect(Array.from(torchDict['model.layers.0.self_attn.q_proj.weight'].data)).toEqual(Array.from(transpose(state['model.layers.0.self_attn.q_proj.weight'])));
    const { 'model.embed_tokens.weight': _, ...saved } = torchDict;
    const back = importTorchStateDict({ ...saved, 'model.layers.0.self_attn.rotary_emb.inv_freq': tensor([2], [1, 0.1]) }, model, opts);
    expect(Object.keys(back).sort()).toEqual(Object.keys(state).sort());
    for (const [n, v] of Object.entries(state)) expect(Array.from(back[n].data), n).toEqual(Array.from(v.data));
  });
});

function transpose(v: TensorValue): Float64Array {
  const [r, c] = v.shape;
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = v.data[i * c + j];
  return out;
}

describe('RoPE pair layouts against torch', () => {
  const run = (fixture: { config: Record<string, number>; state: Record<string, number[][]>; x: number[] }, layout?: RopeLayout) => {
    const { batch, seq, width, heads, kvHeads, base } = fixture.config;
    const mha = new MultiheadAttention(width, { heads, kvHeads, bias: false, rope: { base, layout } });
    const torchState = Object.fromEntries(Object.entries(fixture.state).map(([k, v]) => [k, f64([v.length, v[0].length], v.flat())]));
    const g = new Graph();
    g.output('y', mha.forward(g, g.input('x', [batch, seq, width])));
    return interpret(g, { x: f64([batch, seq, width], fixture.x) }, importTorchStateDict(torchState, mha), 'f64').outputs.y.data;
  };

  it("matches HF LLaMA's rotate_half with the default (half) layout", () => {
    expect(run(fixtures.ropeHalf)).toBeAllclose(fixtures.ropeHalf.y, { rtol: 1e-10, atol: 1e-10 });
  });

  it("matches Meta LLaMA / GPT-J's interleaved pairs with layout 'interleaved' (and not with 'half')", () => {
    expect(run(fixtures.ropeInterleaved, 'interleaved')).toBeAllclose(fixtures.ropeInterleaved.y, { rtol: 1e-10, atol: 1e-10 });
    expect(() => expect(run(fixtures.ropeInterleaved, 'half')).toBeAllclose(fixtures.ropeInterleaved.y, { rtol: 1e-4, atol: 1e-4 })).toThrow();
    expect(() => new MultiheadAttention(8, { heads: 2, rope: { layout: 'pairs' as RopeLayout } })).toThrow(/rope layout must be 'half' or 'interleaved', got 'pairs'/);
  });
});

// GPT and LLaMA on the module tree, against the reference interpreter: nanoGPT / HF parameter names and
// shapes, and the KV-cache decode graph fed one token at a time gives the same logits as the full forward
// pass over the whole sequence (learned positions, RoPE, grouped-query heads, tied and untied heads).

import { grad } from '@neura/autograd';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { buildDecodeGraph, type CausalLM, decodeFeeds, Dropout, Embedding, GPT, Llama, MultiheadAttention, TransformerBlock } from '@neura/nn';
import { describe, expect, it } from 'vitest';

/** Full-forward logits [T, V] for one sequence on the interpreter (f64); decomposed attention masks in-graph. */
function fullLogits(model: CausalLM, tokens: number[]): number[] {
  const t = tokens.length;
  const full = new Graph();
  full.output('logits', model.forward(full, full.input('tokens', [1, t], 'i32')));
  const feeds: Record<string, TensorValue> = { tokens: tensor([1, t], tokens, 'i32') };
  return Array.from(interpret(full, feeds, model.initialState(), 'f64').outputs.logits.data);
}

/** The decode graph fed one token at a time (KV caches carried as state), logits concatenated. */
function decodeLogits(model: CausalLM, tokens: number[], maxLen: number): number[] {
  const { graph, logits } = buildDecodeGraph(model, maxLen);
  graph.output('logits', logits);
  let s: Record<string, TensorValue> = model.initialState();
  const got: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const f = decodeFeeds(tokens[i], i, maxLen);
    const feeds = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, tensor(graph.byName(k)?.shape ?? [], v, v instanceof Int32Array ? 'i32' : 'f32')]));
    const r = interpret(graph, feeds, s, 'f64');
    got.push(...r.outputs.logits.data);
    s = { ...s, ...r.updates };
  }
  return got;
}

describe('GPT (nanoGPT layout)', () => {
  it("names its leaves as nanoGPT's state dict", () => {
    const gpt = new GPT({ vocab: 11, context: 8, layers: 2, heads: 2, width: 8 });
    const names = gpt.namedParameters().map(([n, s]) => `${n} [${s.shape.join(',')}]`);
    expect(names).toEqual([
      'transformer.wte.weight [11,8]',
      'transformer.wpe.weight [8,8]',
      ...[0, 1].flatMap((l) => [
        `transformer.h.${l}.ln_1.weight [8]`,
        `transformer.h.${l}.ln_1.bias [8]`,
        `transformer.h.${l}.attn.c_attn.weight [8,24]`,
        `transformer.h.${l}.attn.c_attn.bias [24]`,
        `transformer.h.${l}.attn.c_proj.weight [8,8]`,
        `transformer.h.${l}.attn.c_proj.bias [8]`,
        `transformer.h.${l}.ln_2.weight [8]`,
        `transformer.h.${l}.ln_2.bias [8]`,
        `transformer.h.${l}.mlp.c_fc.weight [8,32]`,
        `transformer.h.${l}.mlp.c_fc.bias [32]`,
        `transformer.h.${l}.mlp.c_proj.weight [32,8]`,
        `transformer.h.${l}.mlp.c_proj.bias [8]`,
      ]),
      'transformer.ln_f.weight [8]',
      'transformer.ln_f.bias [8]',
      'lm_head.weight [8,11]',
    ]);
    expect(new GPT({ vocab: 11, context: 8, layers: 1, heads: 2, width: 8, tiedHead: true }).namedParameters().some(([n]) => n.startsWith('lm_head'))).toBe(false);
  });

  it('a training graph builds forward, loss and gradients for every parameter', () => {
    const gpt = new GPT({ vocab: 7, context: 4, layers: 1, heads: 2, width: 8 });
    const { graph, loss, logits } = gpt.trainingGraph(2);
    expect(logits.shape).toEqual([8, 7]);
    const params = graph.leaves('param');
    expect(params.map((p) => p.attrs.name).sort()).toEqual(gpt.namedParameters().map(([n]) => n).sort());
    const grads = grad(graph, loss, params);
    expect(grads.map((gr) => gr.shape)).toEqual(params.map((p) => p.shape));
  });

  for (const [what, cfg] of [
    ['untied head', {}],
    ['tied head and grouped-query heads', { tiedHead: true, heads: 4, kvHeads: 2 }],
    ['decomposed attention', { attention: 'decomposed' as const }],
  ] as const)
    it(`decodes with a KV cache exactly as the full forward pass (${what})`, () => {
      const gpt = new GPT({ vocab: 13, context: 8, layers: 2, heads: 2, width: 8, ...cfg });
      const tokens = [3, 1, 4, 1, 5, 9, 2];
      expect(decodeLogits(gpt, tokens, 8)).toBeAllclose(fullLogits(gpt, tokens), { rtol: 1e-9, atol: 1e-9 });
    });
});

describe('LLaMA-style model', () => {
  it('names its leaves as HF LLaMA (no biases, SwiGLU, RMSNorm, GQA projections)', () => {
    const m = new Llama({ vocab: 10, layers: 1, heads: 4, kvHeads: 2, width: 16 });
    expect(m.namedParameters().map(([n, s]) => `${n} [${s.shape.join(',')}]`)).toEqual([
      'model.embed_tokens.weight [10,16]',
      'model.layers.0.input_layernorm.weight [16]',
      'model.layers.0.self_attn.q_proj.weight [16,16]',
      'model.layers.0.self_attn.k_proj.weight [16,8]',
      'model.layers.0.self_attn.v_proj.weight [16,8]',
      'model.layers.0.self_attn.o_proj.weight [16,16]',
      'model.layers.0.post_attention_layernorm.weight [16]',
      'model.layers.0.mlp.gate_proj.weight [16,64]',
      'model.layers.0.mlp.up_proj.weight [16,64]',
      'model.layers.0.mlp.down_proj.weight [64,16]',
      'model.norm.weight [16]',
      'lm_head.weight [16,10]',
    ]);
  });

  it('decodes with a KV cache exactly as the full forward pass (RoPE, grouped-query heads)', () => {
    const m = new Llama({ vocab: 10, layers: 2, heads: 4, kvHeads: 2, width: 16 });
    const tokens = [1, 7, 7, 2, 0, 9];
    expect(decodeLogits(m, tokens, 9)).toBeAllclose(fullLogits(m, tokens), { rtol: 1e-9, atol: 1e-9 });
  });

  it('decodes with interleaved RoPE pairs exactly as its full forward pass, which differs from half-split pairs', () => {
    const m = new Llama({ vocab: 10, layers: 1, heads: 4, kvHeads: 2, width: 16, ropeLayout: 'interleaved' });
    const tokens = [1, 7, 7, 2, 0];
    const full = fullLogits(m, tokens);
    expect(decodeLogits(m, tokens, 6)).toBeAllclose(full, { rtol: 1e-9, atol: 1e-9 });
    expect(() => expect(fullLogits(new Llama({ ...m.config, ropeLayout: 'half' }), tokens)).toBeAllclose(full, { rtol: 1e-6, atol: 1e-6 })).toThrow();
  });
});

describe('layers', () => {
  it('Embedding with a padding index starts that row at zero and sends it no gradient', () => {
    const g = new Graph();
    const ids = g.input('ids', [4], 'i32');
    const emb = new Embedding(5, 3, { paddingIdx: 0 });
    const out = emb.forward(g, ids, 'emb');
    const loss = g.sum(g.mul(out, g.input('w', [4, 3])));
    g.output('out', out);
    const [dw] = grad(g, loss, [g.byName('emb.weight') as ReturnType<Graph['input']>]);
    g.output('dw', dw);
    const r = interpret(g, { ids: tensor([4], [0, 2, 0, 4], 'i32'), w: tensor([4, 3], Array.from({ length: 12 }, (_, i) => i + 1)) }, emb.initialState('emb'), 'f64');
    const o = Array.from(r.outputs.out.data);
    expect(o.slice(0, 3)).toEqual([0, 0, 0]);
    expect(o.slice(3, 6).every((v) => v !== 0)).toBe(true);
    expect(Array.from(r.outputs.dw.data).slice(0, 3)).toEqual([0, 0, 0]); // the padding row
    expect(Array.from(r.outputs.dw.data).slice(6, 9)).toEqual([4, 5, 6]);
    expect(() => new Embedding(5, 3, { paddingIdx: 5 })).toThrow(/paddingIdx 5 is outside/);
  });

  it('Dropout drops in training mode with a per-step offset input and is the identity in eval mode', () => {
    const d = new Dropout(0.5);
    const g = new Graph();
    const x = g.input('x', [64]);
    g.output('y', d.forward(g, x, 'drop'));
    const ones = tensor([64], new Array(64).fill(1));
    const run = (offset: number) => Array.from(interpret(g, { x: ones, dropoutOffset: tensor([], [offset], 'i32') }, {}, 'f64').outputs.y.data);
    const a = run(0);
    expect(a.every((v) => v === 0 || v === 2)).toBe(true);
    expect(a.filter((v) => v === 0).length).toBeGreaterThan(10);
    expect(run(1)).not.toEqual(a);
    const e = new Graph();
    const ex = e.input('x', [4]);
    expect(d.eval().forward(e, ex, 'drop')).toBe(ex);
  });

  it('MultiheadAttention and TransformerBlock check their inputs and sizes', () => {
    expect(() => new MultiheadAttention(10, { heads: 3 })).toThrow(/width 10 is not a multiple of heads 3/);
    expect(() => new MultiheadAttention(12, { heads: 4, kvHeads: 3 })).toThrow(/heads 4 is not a multiple of kvHeads 3/);
    const g = new Graph();
    expect(() => new TransformerBlock({ width: 8, heads: 2 }).forward(g, g.input('x', [4, 8]))).toThrow(/expected x \[B, T, W\]/);
  });
});

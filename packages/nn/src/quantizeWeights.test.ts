import { dequantizeQ4_0, dequantizeQ8_0, Graph, interpret, quantizeQ4_0, quantizeQ8_0, tensor, type TensorValue } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { buildDecodeGraph, decodeFeeds } from './generation/generator.js';
import { GPT } from './models/gpt.js';
import { Llama } from './models/llama.js';
import { q8Names, quantizableWeights, quantizeGraph, quantizeStateDict, quantNames, type WeightFormat, weightsFor } from './quantizeWeights.js';

describe('quantizeGraph', () => {
  it("reads a GPT decode step's Linear weights through matmulQ8: the interpreter gives the f32 graph's values on the dequantized weights, KV-cache updates included", () => {
    const model = new GPT({ vocab: 13, context: 8, layers: 1, heads: 2, width: 40, tiedHead: true });
    const { graph, logits } = buildDecodeGraph(model, 8);
    graph.output('logits', logits);
    const weights = quantizableWeights(graph);
    // the tied token table is read by a gather and by the head: it stays f32
    expect([...weights.keys()].sort()).toEqual(['transformer.h.0.attn.c_attn.weight', 'transformer.h.0.attn.c_proj.weight', 'transformer.h.0.mlp.c_fc.weight', 'transformer.h.0.mlp.c_proj.weight']);
    const q = quantizeGraph(graph, weights);
    expect(q.nodes.filter((n) => n.op === 'matmulQ8')).toHaveLength(4);
    expect(q.byName('transformer.h.0.attn.c_attn.weight')).toBeUndefined();
    expect(q.updates).toHaveLength(graph.updates.length);

    const state = model.initialState();
    const deq: Record<string, TensorValue> = { ...state };
    for (const [name, w] of weights) deq[name] = dequantizeQ8_0(quantizeQ8_0(state[name]), w.shape[0]);
    const feeds = Object.fromEntries(Object.entries(decodeFeeds(5, 0, 8)).map(([k, v]) => [k, tensor(k === 'decodeMask' ? [1, 8] : [1], v, v instanceof Int32Array ? 'i32' : 'f32')]));
    const want = interpret(graph, feeds, deq);
    const got = interpret(q, feeds, quantizeStateDict(state, weights));
    expect(Array.from(got.outputs.logits.data)).toBeAllclose(Array.from(want.outputs.logits.data), { rtol: 1e-9, atol: 1e-12 });
    for (const [name, v] of Object.entries(want.updates)) expect(Array.from(got.updates[name].data)).toBeAllclose(Array.from(v.data), { rtol: 1e-9, atol: 1e-12 });
  });

  it('quantizes every projection of a LLaMA (grouped-query attention, SwiGLU) and keeps its values on the dequantized weights', () => {
    const model = new Llama({ vocab: 11, layers: 1, heads: 4, kvHeads: 2, width: 32, hidden: 48 });
    const { graph, logits } = buildDecodeGraph(model, 4);
    graph.output('logits', logits);
    const weights = quantizableWeights(graph);
    expect(weights.size).toBe(7 + 1); // q, k, v, o, gate, up, down and the untied lm_head
    const state = model.initialState();
    const deq: Record<string, TensorValue> = { ...state };
    expect([...weights.values()].some((w) => w.transposed)).toBe(false); // Linear weights are [in, out]
    for (const [name, w] of weights) deq[name] = dequantizeQ8_0(quantizeQ8_0(state[name]), w.shape[0]);
    const feeds = Object.fromEntries(Object.entries(decodeFeeds(3, 0, 4)).map(([k, v]) => [k, tensor(k === 'decodeMask' ? [1, 4] : [1], v, v instanceof Int32Array ? 'i32' : 'f32')]));
    const want = interpret(graph, feeds, deq).outputs.logits;
    const got = interpret(quantizeGraph(graph, weights), feeds, quantizeStateDict(state, weights)).outputs.logits;
    expect(Array.from(got.data)).toBeAllclose(Array.from(want.data), { rtol: 1e-9, atol: 1e-12 });
  });

  it("reads a LLaMA's projections through matmulQ4 with q4_0, on the Q4_0-dequantized weights' values", () => {
    const model = new Llama({ vocab: 11, layers: 1, heads: 4, kvHeads: 2, width: 32, hidden: 48 });
    const { graph, logits } = buildDecodeGraph(model, 4);
    graph.output('logits', logits);
    const weights = weightsFor(graph, 'q4_0');
    expect(weights.size).toBe(8);
    const q = quantizeGraph(graph, weights);
    expect(q.nodes.filter((n) => n.op === 'matmulQ4')).toHaveLength(8);
    expect(q.nodes.filter((n) => n.op === 'matmulQ8')).toHaveLength(0);
    const state = model.initialState();
    const packed = quantizeStateDict(state, weights);
    const up = 'model.layers.0.mlp.up_proj.weight';
    expect(packed[quantNames(up, 'q4_0').qs].shape).toEqual([48, 4]); // N = 48 columns of K = 32: one block of 4 words
    expect(packed[up]).toBeUndefined();
    const deq: Record<string, TensorValue> = { ...state };
    for (const [name, w] of weights) deq[name] = dequantizeQ4_0(quantizeQ4_0(state[name]), w.shape[0]);
    const feeds = Object.fromEntries(Object.entries(decodeFeeds(3, 0, 4)).map(([k, v]) => [k, tensor(k === 'decodeMask' ? [1, 4] : [1], v, v instanceof Int32Array ? 'i32' : 'f32')]));
    const want = interpret(graph, feeds, deq).outputs.logits;
    const got = interpret(q, feeds, packed).outputs.logits;
    expect(Array.from(got.data)).toBeAllclose(Array.from(want.data), { rtol: 1e-9, atol: 1e-12 });
  });

  it('quantizes a weight read transposed (transB) in PyTorch layout, and skips one read both ways or used otherwise', () => {
    const g = new Graph();
    const x = g.input('x', [2, 64]);
    const wt = g.param('head', [5, 64]); // [N, K], read as transB
    const both = g.param('both', [64, 64]);
    const other = g.param('other', [64, 3]);
    g.output('a', g.matmul(x, wt, { transB: true }));
    g.output('b', g.add(g.matmul(x, both), g.matmul(x, both, { transB: true })));
    g.output('c', g.add(g.matmul(x, other), g.sum(other)));
    const w = quantizableWeights(g);
    expect([...w.keys()]).toEqual(['head']);
    expect(w.get('head')?.transposed).toBe(true);
    const values = quantizeStateDict({ head: tensor([5, 64], Array.from({ length: 320 }, (_, i) => Math.sin(i))) }, w);
    expect(Object.keys(values).sort()).toEqual([q8Names('head').d, q8Names('head').qs].sort());
    expect(values[q8Names('head').qs].shape).toEqual([5, 16]);
    expect(() => quantizeStateDict({ head: tensor([64, 5], new Array(320).fill(0)) }, w)).toThrow(/quantize 'head': expected \[5, 64\], got \[64, 5\]/);
  });
});

describe('weightsFor', () => {
  it('quantizes nothing for f32, and refuses an unknown format or a q8_0 request that no weight meets', () => {
    const g = new Graph();
    const x = g.input('x', [2, 4]);
    const w = g.param('w', [4, 3], { kind: 'zeros' });
    g.output('y', g.matmul(x, w));
    expect(weightsFor(g, undefined).size).toBe(0);
    expect(weightsFor(g, 'f32').size).toBe(0);
    expect([...weightsFor(g, 'q8_0').keys()]).toEqual(['w']);
    expect([...weightsFor(g, 'q4_0').values()].map((v) => v.format)).toEqual(['q4_0']);
    expect(() => weightsFor(g, 'q2_k' as WeightFormat)).toThrow(/weights must be 'f32', 'q8_0' or 'q4_0', got 'q2_k'/);
    const plain = new Graph();
    plain.output('y', plain.relu(plain.input('x', [2, 4])));
    expect(() => weightsFor(plain, 'q8_0')).toThrow(/found no weight to quantize/);
    expect(() => weightsFor(plain, 'q4_0')).toThrow(/'q4_0' found no weight to quantize/);
  });
});

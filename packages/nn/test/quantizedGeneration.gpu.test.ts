// Weight-only Q8_0 inference on a real adapter: a GPT's decode step compiled with `weights: 'q8_0'` reads every
// Linear weight as int8 blocks through matmulQ8. Its logits equal the f32 model's run on the dequantized weights
// (the kernel dequantizes exactly what quantizeQ8_0 stored), stay within a stated tolerance of the f32 model's, and
// the quantized weights take ~1/3.76 of the bytes (34 per 32 weights, as GGUF).

import { bufferBytes, dequantizeQ8_0, type Graph, interpret, isOp, numel, quantizeQ8_0, type TensorValue, tensor } from '@neura/ir';
import { compileGenerator, compileInference, GPT, q8Names, quantizableWeights } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Graph as G } from '@neura/ir';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

/** Bytes of the graph's param and state leaves whose names pass `keep`. */
const leafBytes = (g: Graph, keep: (name: string) => boolean) =>
  g.nodes.filter((n) => isOp(n, 'param', 'state') && keep(n.attrs.name)).reduce((s, n) => s + bufferBytes(n.dtype, numel(n.shape)), 0);

async function logitsOf(model: GPT, weights: Record<string, TensorValue>, tokens: readonly number[], q8: boolean) {
  const gen = await compileGenerator(model, { device, maxLen: 16, ...(q8 ? { weights: 'q8_0' as const } : {}) });
  await gen.loadStateDict(weights);
  const out: number[][] = [];
  for (let i = 0; i < tokens.length; i++) out.push(Array.from((await gen.step(tokens[i], i)) as Float32Array));
  const graph = gen.session.backend === 'webgpu' ? gen.session.graph : undefined;
  gen.dispose();
  return { out, graph: graph as Graph };
}

describe("compileGenerator(model, { weights: 'q8_0' })", () => {
  it('decodes with int8 Linear weights: the dequantized model exactly, the f32 model within 2% of the logits scale, in 1/3.76 of the bytes', async () => {
    const model = new GPT({ vocab: 29, context: 16, layers: 2, heads: 2, width: 64, tiedHead: false });
    const weights = model.initialState();
    const tokens = [3, 17, 5, 28, 0, 9];
    const f32 = await logitsOf(model, weights, tokens, false);
    const q8 = await logitsOf(model, weights, tokens, true);

    // which weights were quantized: every Linear's (attention, MLP, output head), not the embeddings
    const probe = new G();
    probe.output('logits', model.forward(probe, probe.input('tokens', [1, 4], 'i32')));
    const names = [...quantizableWeights(probe).keys()].sort();
    expect(names).toContain('lm_head.weight');
    expect(names).toContain('transformer.h.0.mlp.c_fc.weight');
    expect(names.some((n) => n.includes('wte') || n.includes('wpe'))).toBe(false);
    expect(names).toHaveLength(2 * 4 + 1);

    // the same model with each weight replaced by its dequantized value, in f32: what the kernel must compute
    const deq: Record<string, TensorValue> = { ...weights };
    for (const n of names) deq[n] = dequantizeQ8_0(quantizeQ8_0(weights[n]), weights[n].shape[0]);
    const exact = await logitsOf(model, deq, tokens, false);
    expect(q8.out.flat()).toBeAllclose(exact.out.flat(), { rtol: 1e-4, atol: 1e-5 });

    // against the f32 model: the largest logit error relative to the logits' largest magnitude
    const a = q8.out.flat();
    const b = f32.out.flat();
    const scale = Math.max(...b.map(Math.abs));
    const worst = Math.max(...a.map((v, i) => Math.abs(v - b[i])));
    expect(worst / scale).toBeLessThan(0.02);
    expect(worst).toBeGreaterThan(0); // really quantized

    // device bytes of the quantized weights vs the same weights in f32
    const f32Bytes = leafBytes(f32.graph, (n) => names.includes(n));
    const q8Bytes = leafBytes(q8.graph, (n) => names.some((w) => n === q8Names(w).qs || n === q8Names(w).d));
    expect(f32Bytes / q8Bytes).toBeGreaterThan(3.6);
    expect(f32Bytes / q8Bytes).toBeLessThan(3.77);
    expect(leafBytes(q8.graph, (n) => names.includes(n))).toBe(0); // no f32 copy of a quantized weight
  });

  it('compileInference loads f32 weights by their names, quantizing on the host (K = 40: a padded block); refuses q8_0 on the CPU', async () => {
    const g = new G();
    const x = g.input('x', [3, 40]);
    const y = g.linear(x, g.param('fc.weight', [40, 7]), g.param('fc.bias', [7]));
    const infer = await compileInference(g, { outputs: { y }, device, weights: 'q8_0' });
    const w = tensor([40, 7], Array.from({ length: 280 }, (_, i) => Math.sin(i * 0.37)));
    const bias = tensor([7], [0.1, -0.2, 0.3, 0, 0.5, -0.6, 0.7]);
    const xs = tensor([3, 40], Array.from({ length: 120 }, (_, i) => Math.cos(i * 0.11)));
    await infer.load({ 'fc.weight': w, 'fc.bias': bias });
    const got = (await infer.run({ x: xs.data as Float32Array })).y;
    const ref = g.clone();
    ref.output('y', y);
    const want = interpret(ref, { x: xs }, { 'fc.weight': dequantizeQ8_0(quantizeQ8_0(w), 40), 'fc.bias': bias }).outputs.y;
    expect(Array.from(got.data)).toBeAllclose(Array.from(want.data), { rtol: 1e-5, atol: 1e-5 });
    const sd = await infer.stateDict();
    expect(Object.keys(sd).sort()).toEqual(['fc.bias', 'fc.weight.q8_0.d', 'fc.weight.q8_0.qs']);
    await expect(compileInference(g, { outputs: { y }, device: 'cpu', weights: 'q8_0' })).rejects.toThrow(/weights 'q8_0' runs on WebGPU only/);
    infer.dispose();
  });
});

// Weight-only Q8_0 / Q4_0 inference on a real adapter: a GPT's decode step compiled with `weights: 'q8_0'` reads
// every Linear weight as int8 blocks through matmulQ8 (`'q4_0'`: 4-bit blocks through matmulQ4). Its logits equal the
// f32 model's run on the dequantized weights (the kernel dequantizes exactly what the quantizer stored), stay within a
// stated tolerance of the f32 model's, and the quantized weights take ~1/3.76 (Q8_0: 34 bytes per 32 weights, as
// GGUF) or ~1/7.1 (Q4_0: 18 bytes per 32) of the bytes.

import { bufferBytes, dequantizeQ4_0, dequantizeQ8_0, type Graph, interpret, isOp, numel, quantizeQ4_0, quantizeQ8_0, type TensorValue, tensor } from '@neura/ir';
import { compileGenerator, compileInference, GPT, q8Names, quantizableWeights, quantNames, type WeightFormat } from '@neura/nn';
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

async function logitsOf(model: GPT, weights: Record<string, TensorValue>, tokens: readonly number[], q8: boolean | WeightFormat) {
  const format = q8 === true ? 'q8_0' : q8 === false ? 'f32' : q8;
  const gen = await compileGenerator(model, { device, maxLen: 16, weights: format });
  await gen.loadStateDict(weights);
  const out: number[][] = [];
  for (let i = 0; i < tokens.length; i++) out.push(Array.from((await gen.step(tokens[i], i)) as Float32Array));
  const graph = gen.session.backend === 'webgpu' ? gen.session.graph : undefined;
  const dispatches = gen.session.backend === 'webgpu' ? gen.session.session.stats.dispatchesPerStep : 0;
  gen.dispose();
  return { out, graph: graph as Graph, dispatches };
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

  it("decodes with 4-bit weights (q4_0): the Q4_0-dequantized model exactly, the f32 model within 20% of the logits scale, in 1/7.1 of the bytes", async () => {
    const model = new GPT({ vocab: 29, context: 16, layers: 2, heads: 2, width: 64, tiedHead: false });
    const weights = model.initialState();
    const tokens = [3, 17, 5, 28, 0, 9];
    const f32 = await logitsOf(model, weights, tokens, false);
    const q8 = await logitsOf(model, weights, tokens, 'q8_0');
    const q4 = await logitsOf(model, weights, tokens, 'q4_0');
    const probe = new G();
    probe.output('logits', model.forward(probe, probe.input('tokens', [1, 4], 'i32')));
    const names = [...quantizableWeights(probe).keys()];
    const deq: Record<string, TensorValue> = { ...weights };
    for (const n of names) deq[n] = dequantizeQ4_0(quantizeQ4_0(weights[n]), weights[n].shape[0]);
    const exact = await logitsOf(model, deq, tokens, false);
    expect(q4.out.flat()).toBeAllclose(exact.out.flat(), { rtol: 1e-4, atol: 1e-5 });

    // Q4_0's step is |max|/8 against Q8_0's |max|/127: ~16x the weight error, so the logit error is ~16x q8_0's
    // (measured on llvmpipe: 0.102 vs 0.0061 of the logits' scale, 16.6x). Bound: 20% of the scale (2x the measured
    // value), and 8x to 32x q8_0's error (the step ratio 15.9 within a factor of 2)
    const b = f32.out.flat();
    const scale = Math.max(...b.map(Math.abs));
    const worst = (a: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]))) / scale;
    expect(worst(q4.out.flat())).toBeLessThan(0.2);
    expect(worst(q4.out.flat()) / worst(q8.out.flat())).toBeGreaterThan(8);
    expect(worst(q4.out.flat()) / worst(q8.out.flat())).toBeLessThan(32);

    const f32Bytes = leafBytes(f32.graph, (n) => names.includes(n));
    const q4Bytes = leafBytes(q4.graph, (n) => names.some((w) => n === quantNames(w, 'q4_0').qs || n === quantNames(w, 'q4_0').d));
    expect(f32Bytes / q4Bytes).toBeGreaterThan(6.5);
    expect(f32Bytes / q4Bytes).toBeLessThan(7.12); // 128 bytes of f32 per 18 of Q4_0
    expect(leafBytes(q4.graph, (n) => names.includes(n))).toBe(0);
    expect(q4.graph.nodes.filter((n) => n.op === 'matmulQ4').length).toBeGreaterThan(0);
  });

  it("fuses each Linear's bias, GELU and residual add into the quantized matmul: a decode step has f32's dispatch count", async () => {
    // before the quantized matmuls took an epilogue, each bias add stayed a kernel of its own (GPT 6x384 on an
    // H100: 96 dispatches per token in f32, 115 with q8_0 or q4_0)
    const model = new GPT({ vocab: 29, context: 16, layers: 2, heads: 2, width: 64, tiedHead: false });
    const weights = model.initialState();
    const f32 = await logitsOf(model, weights, [3], false);
    for (const format of ['q8_0', 'q4_0'] as const) {
      const q = await logitsOf(model, weights, [3], format);
      expect(q.dispatches, format).toBe(f32.dispatches);
      const op = format === 'q8_0' ? 'matmulQ8' : 'matmulQ4';
      const epilogues = q.graph.nodes.flatMap((n) => (isOp(n, op) && n.attrs.expr ? [JSON.stringify(n.attrs.expr)] : []));
      expect(epilogues.length, format).toBeGreaterThanOrEqual(2 * 4); // every block's four Linears carry their bias
      expect(epilogues.some((e) => e.includes('gelu')), format).toBe(true);
    }
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

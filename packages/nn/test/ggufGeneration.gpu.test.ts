// A GGUF file's 4-bit weights on a real adapter: llama-untied-q4_0.gguf (written by llama.cpp's gguf-py; see
// tooling/fixtures/gguf_fixtures.py) loaded with loadGguf and decoded by compileGenerator with weights 'q4_0' gives
// the logits of the f32 model on the same weights dequantized: the packed blocks reach matmulQ4 as the file holds them.

import { readFileSync } from 'node:fs';
import { dequantizeQ4_0, quantizeQ4_0, type TensorValue } from '@neura/ir';
import { compileGenerator, quantNames } from '@neura/nn';
import { loadGguf } from '@neura/nn/gguf';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

describe('a GGUF Q4_0 LLaMA on the GPU', () => {
  it("decodes with the file's packed Q4_0 weights as the f32 model does on them dequantized", async () => {
    const { model, values, weights } = await loadGguf(readFileSync(new URL('../../../tooling/fixtures/gguf/llama-untied-q4_0.gguf', import.meta.url)), { weights: 'q4_0' });
    expect(weights).toBe('q4_0');
    // the same weights in f32: packed leaves dequantized; the head (Q8_0 in the file, dequantized by loadGguf) as the
    // session quantizes it to Q4_0 on load
    const deq: Record<string, TensorValue> = {};
    for (const [name, spec] of model.stateDictSpec()) {
      const q = quantNames(name, 'q4_0');
      if (values[q.qs]) deq[name] = dequantizeQ4_0({ q: values[q.qs], d: values[q.d] }, spec.shape[0]);
      else if (name === 'lm_head.weight') deq[name] = dequantizeQ4_0(quantizeQ4_0(values[name]), spec.shape[0]);
      else deq[name] = values[name];
    }
    const run = async (w: 'q4_0' | 'f32', state: Record<string, TensorValue>) => {
      const gen = await compileGenerator(model, { device, maxLen: 8, weights: w });
      await gen.loadStateDict(state);
      const out: number[] = [];
      for (const [i, t] of [1, 5, 9, 63, 0].entries()) out.push(...((await gen.step(t, i)) as Float32Array));
      gen.dispose();
      return out;
    };
    // a packed weight needs both its leaves: one alone is refused, naming it, and nothing loads
    const gen = await compileGenerator(model, { device, maxLen: 8, weights: 'q4_0' });
    const lone = { ...values };
    delete lone[quantNames('model.layers.0.mlp.up_proj.weight', 'q4_0').d];
    await expect(gen.loadStateDict(lone)).rejects.toThrow(/unknown: model.layers.0.mlp.up_proj.weight.q4_0.qs .*missing: model.layers.0.mlp.up_proj.weight/);
    gen.dispose();
    const q4 = await run('q4_0', values);
    const f32 = await run('f32', deq);
    expect(q4).toBeAllclose(f32, { rtol: 1e-4, atol: 1e-5 });
  });
});

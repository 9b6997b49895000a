// Generation on a real adapter: the compiled decode graph (KV cache in state buffers) gives, token by token,
// the logits the interpreter computes for the full sequence; `generate` streams seeded samples, greedy
// decoding continues the argmax chain, and a full cache rolls over to the last half of the tokens.

import { Graph, interpret, tensor } from '@neura/ir';
import { argmax, compileGenerator, GPT, Llama } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

describe('KV-cache generation on the GPU', () => {
  it('incremental logits equal the full forward pass (GPT and a GQA LLaMA)', async () => {
    for (const model of [new GPT({ vocab: 11, context: 8, layers: 2, heads: 2, width: 8 }), new Llama({ vocab: 11, layers: 1, heads: 4, kvHeads: 2, width: 8, hidden: 16 })]) {
      const tokens = [2, 7, 1, 8, 2, 8];
      const full = new Graph();
      full.output('logits', model.forward(full, full.input('tokens', [1, tokens.length], 'i32')));
      const want = interpret(full, { tokens: tensor([1, tokens.length], tokens, 'i32') }, model.initialState(), 'f64').outputs.logits.data;
      const gen = await compileGenerator(model, { device, maxLen: 8 });
      await gen.loadStateDict(model.initialState());
      const got: number[] = [];
      for (let i = 0; i < tokens.length; i++) got.push(...((await gen.step(tokens[i], i)) as Float32Array));
      expect(got).toBeAllclose(Array.from(want), { rtol: 1e-4, atol: 1e-5 });
      gen.dispose();
    }
  });

  it('streams seeded samples, greedy chains and rolls over a full cache', async () => {
    const model = new GPT({ vocab: 11, context: 6, layers: 1, heads: 2, width: 8 });
    const gen = await compileGenerator(model, { device });
    await gen.loadStateDict(model.initialState());
    const take = async (it: AsyncIterable<number>) => {
      const out: number[] = [];
      for await (const t of it) out.push(t);
      return out;
    };
    const a = await take(gen.generate([1, 2], { maxTokens: 10, temperature: 1, seed: 3 }));
    expect(a).toHaveLength(10); // 2 + 10 tokens > 6 positions: the cache rolled over
    expect(await take(gen.generate([1, 2], { maxTokens: 10, temperature: 1, seed: 3 }))).toEqual(a);
    const greedy = await take(gen.generate([4], { maxTokens: 3, temperature: 0 }));
    const first = argmax((await gen.prefill([4])) as Float32Array);
    expect(greedy[0]).toBe(first);
    const second = argmax((await gen.prefill([4, first])) as Float32Array);
    expect(greedy[1]).toBe(second);
    expect(await take(gen.generate([4], { maxTokens: 5, temperature: 0, stop: [greedy[1]] }))).toEqual(greedy.slice(0, 2));
    await expect(gen.loadStateDict({})).rejects.toThrow(/missing: transformer.wte.weight/);
    gen.dispose();
  });
});

// Batched generation on a real adapter: `generateBatch` over prompts of different lengths yields, row by row,
// exactly what `generate` yields for each prompt alone (greedy and seeded sampling, through a cache roll-over,
// per-row stop tokens, fewer prompts than the batch), for GPT (learned positions) and a GQA LLaMA (RoPE).

import { tensor } from '@neura/ir';
import { type CausalLM, compileGenerator, GPT, Llama } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

/** The model's state with every value drawn from [-1, 1): attention then matters to the next token. */
function randomState(model: CausalLM) {
  let x = 12345;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return Object.fromEntries(Object.entries(model.initialState()).map(([k, v]) => [k, tensor(v.shape, Array.from(v.data, rand), v.dtype)]));
}

const take = async (it: AsyncIterable<number>) => {
  const out: number[] = [];
  for await (const t of it) out.push(t);
  return out;
};

const prompts = [[3], [9, 4, 7], Int32Array.from([1, 2, 5, 0, 6])]; // lengths 1, 3, 5

describe('Generator.generateBatch', () => {
  for (const [name, make] of [
    ['GPT', () => new GPT({ vocab: 11, context: 8, layers: 2, heads: 2, width: 8 })],
    ['Llama', () => new Llama({ vocab: 11, layers: 1, heads: 4, kvHeads: 2, width: 8, hidden: 16 })],
  ] as const) {
    it(`${name}: each row yields what generate yields for its prompt alone`, async () => {
      const model = make();
      const state = randomState(model);
      const single = await compileGenerator(model, { device, maxLen: 8 });
      await single.loadStateDict(state);
      const batched = await compileGenerator(model, { device, maxLen: 8, batch: 4 }); // 3 prompts in a batch of 4
      await batched.loadStateDict(state);
      // 5 + 9 tokens > 8 positions: the cache rolls over mid-way
      for (const opts of [{ maxTokens: 9, temperature: 0 }, { maxTokens: 9, temperature: 1, topK: 5, seed: 7 }]) {
        const alone = [];
        for (const p of prompts) alone.push(await take(single.generate(p, opts)));
        expect(await batched.generateBatch(prompts, opts)).toEqual(alone);
        // generate on the batched generator (row 0) agrees as well
        expect(await take(batched.generate(prompts[1], opts))).toEqual(alone[1]);
        // a generate stream interleaved with the batch: each re-runs its own tokens after the other wrote the cache
        const [both, one] = await Promise.all([batched.generateBatch(prompts, opts), take(batched.generate(prompts[2], opts))]);
        expect(both).toEqual(alone);
        expect(one).toEqual(alone[2]);
      }
      // per-row seeds and stop tokens
      const opts = { maxTokens: 6, temperature: 1, seeds: [1, 2, 3] };
      const alone = [];
      for (let i = 0; i < 3; i++) alone.push(await take(single.generate(prompts[i], { ...opts, seed: opts.seeds[i] })));
      expect(await batched.generateBatch(prompts, opts)).toEqual(alone);
      const stop = [alone[0][1]];
      const stopped = await batched.generateBatch(prompts, { ...opts, stop });
      for (let i = 0; i < 3; i++) expect(stopped[i]).toEqual(await take(single.generate(prompts[i], { ...opts, seed: opts.seeds[i], stop })));
      expect(stopped[0]).toHaveLength(2);
      single.dispose();
      batched.dispose();
    });
  }

  it('streams steps: a row reading its prompt yields undefined', async () => {
    const model = new GPT({ vocab: 11, context: 8, layers: 1, heads: 2, width: 8 });
    const gen = await compileGenerator(model, { device, batch: 2 });
    await gen.loadStateDict(randomState(model));
    const steps = [];
    for await (const s of gen.generateBatchSteps([[1], [2, 3, 4]], { maxTokens: 2, temperature: 0 })) steps.push(s.map((t) => t !== undefined));
    expect(steps).toEqual([[true, false], [true, false], [false, true], [false, true]]);
    gen.dispose();
  });

  it('rejects more prompts than the batch, a prompt longer than the cache, and an empty prompt', async () => {
    const model = new GPT({ vocab: 11, context: 8, layers: 1, heads: 2, width: 8 });
    const gen = await compileGenerator(model, { device, maxLen: 4, batch: 2 });
    await gen.loadStateDict(randomState(model));
    await expect(gen.generateBatch([[1], [2], [3]], { maxTokens: 1 })).rejects.toThrow(/3 prompts exceed the generator's batch of 2/);
    await expect(gen.generateBatch([[1], [1, 2, 3, 4, 5]], { maxTokens: 1 })).rejects.toThrow(/prompt 1 has 5 tokens, more than the cache of 4/);
    await expect(gen.generateBatch([[]], { maxTokens: 1 })).rejects.toThrow(/prompt 0 is empty/);
    await expect(gen.generateBatch([[1], [11]], { maxTokens: 1 })).rejects.toThrow(/prompt 1 id 11/);
    await expect(gen.generateBatch([[1]], { maxTokens: 1, seeds: [1, 2] })).rejects.toThrow(/2 seeds for 1 prompts/);
    gen.dispose();
  });
});

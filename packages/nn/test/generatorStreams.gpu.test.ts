// Generator edge cases on a real adapter: two `generate` streams interleaved on one generator each yield exactly
// what they yield alone (the KV cache is not shared between them), and a cache of one position (`maxLen: 1`,
// softmax over a row of length 1) generates the chain the interpreter predicts.

import { Graph, interpret, tensor } from '@neura/ir';
import { argmax, compileGenerator, GPT } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

/** The model's state with every value drawn from [-1, 1): attention then matters to the next token. */
function randomState(model: GPT) {
  let x = 12345;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  return Object.fromEntries(Object.entries(model.initialState()).map(([k, v]) => [k, tensor(v.shape, Array.from(v.data, rand), v.dtype)]));
}

const take = async (it: AsyncIterable<number>) => {
  const out: number[] = [];
  for await (const t of it) out.push(t);
  return out;
};

describe('Generator streams', () => {
  it('two interleaved generate streams are independent (each yields what it yields alone)', async () => {
    const model = new GPT({ vocab: 11, context: 6, layers: 1, heads: 2, width: 8 });
    const gen = await compileGenerator(model, { device });
    await gen.loadStateDict(randomState(model));
    const optsA = { maxTokens: 8, temperature: 1, seed: 3 }; // 2 + 8 > 6: A also rolls its cache over
    const optsB = { maxTokens: 5, temperature: 0 };
    const aloneA = await take(gen.generate([1, 2], optsA));
    const aloneB = await take(gen.generate([9, 4, 7], optsB));

    // strict alternation: A, B, A, B, ... (each `next` awaited before the other's)
    const a = gen.generate([1, 2], optsA);
    const b = gen.generate([9, 4, 7], optsB);
    const gotA: number[] = [];
    const gotB: number[] = [];
    for (let done = { a: false, b: false }; !done.a || !done.b; ) {
      if (!done.a) {
        const r = await a.next();
        if (r.done) done.a = true;
        else gotA.push(r.value);
      }
      if (!done.b) {
        const r = await b.next();
        if (r.done) done.b = true;
        else gotB.push(r.value);
      }
    }
    expect(gotA).toEqual(aloneA);
    expect(gotB).toEqual(aloneB);

    // concurrent: both iterated at once (their cache updates queue behind each other)
    const [c, d] = await Promise.all([take(gen.generate([1, 2], optsA)), take(gen.generate([9, 4, 7], optsB))]);
    expect(c).toEqual(aloneA);
    expect(d).toEqual(aloneB);
    gen.dispose();
  });

  it('maxLen 1 generates end to end and matches the interpreter', async () => {
    const model = new GPT({ vocab: 11, context: 6, layers: 2, heads: 2, width: 8 });
    const state = randomState(model);
    const gen = await compileGenerator(model, { device, maxLen: 1 });
    await gen.loadStateDict(state);
    // a one-token context: the logits of [t] alone, from the full forward pass on the interpreter
    const g = new Graph();
    const tokens = g.input('tokens', [1, 1], 'i32');
    g.output('logits', model.forward(g, tokens));
    const logitsOf = (t: number) => interpret(g, { tokens: tensor([1, 1], [t], 'i32') }, state, 'f64').outputs.logits.data;
    for (const t of [0, 5, 10]) expect((await gen.step(t, 0)) as Float32Array).toBeAllclose(Array.from(logitsOf(t)), { rtol: 1e-4, atol: 1e-5 });

    // greedy: every token after the first is predicted from the one before it alone (the cache holds one position)
    const got = await take(gen.generate([3], { maxTokens: 6, temperature: 0 }));
    const want: number[] = [];
    for (let prev = 3; want.length < 6; ) want.push((prev = argmax(Float32Array.from(logitsOf(prev)))));
    expect(got).toEqual(want);
    // sampled: as many tokens as asked, all in the vocabulary, reproducible by seed
    const sampled = await take(gen.generate([3, 4], { maxTokens: 5, temperature: 1, seed: 7 }));
    expect(sampled).toHaveLength(5);
    for (const t of sampled) expect(t >= 0 && t < 11).toBe(true);
    expect(await take(gen.generate([3, 4], { maxTokens: 5, temperature: 1, seed: 7 }))).toEqual(sampled);
    gen.dispose();
  });
});

// generate() takes any ArrayLike<number> prompt (number[], Int32Array, Uint32Array) alike, and rejects a bad
// prompt id naming it and its position. A fake decode session (logits favour (token + 1) % V) stands in for the GPU.

import { Generator } from '@neura/nn';
import { describe, expect, it } from 'vitest';

const V = 7;
function fakeGenerator(maxLen: number): { gen: Generator; fed: number[][] } {
  const fed: number[][] = [];
  const session = {
    session: {
      step: async (feeds: Record<string, Int32Array | Float32Array>) => {
        const token = feeds.token[0];
        fed.push([token, feeds.pos[0]]);
        const data = new Float32Array(V);
        data[(token + 1) % V] = 5;
        return { outputs: { logits: { shape: [1, V], dtype: 'f32', data } } };
      },
    },
    dispose() {},
  };
  const model = { vocab: V, stateDictSpec: () => new Map() };
  // biome-ignore lint/suspicious/noExplicitAny: test doubles
  return { gen: new Generator(model as any, session as any, maxLen), fed };
}

async function run(prompt: ArrayLike<number>, maxLen = 16, maxTokens = 6): Promise<{ out: number[]; fed: number[][] }> {
  const { gen, fed } = fakeGenerator(maxLen);
  const out: number[] = [];
  for await (const t of gen.generate(prompt, { maxTokens, temperature: 0 })) out.push(t);
  return { out, fed };
}

describe('generate prompt types', () => {
  it('an Int32Array or Uint32Array prompt generates what the same number[] does (also past the cache crop)', async () => {
    for (const maxLen of [16, 4]) {
      const ref = await run([2, 3, 1], maxLen);
      expect(ref.out).toEqual([2, 3, 4, 5, 6, 0]);
      expect(await run(Int32Array.from([2, 3, 1]), maxLen)).toEqual(ref);
      expect(await run(Uint32Array.from([2, 3, 1]), maxLen)).toEqual(ref);
    }
  });

  it('rejects a prompt id outside the vocabulary or not an integer, naming it and its position', async () => {
    await expect(run(Int32Array.from([1, -1]))).rejects.toThrow(/prompt id -1 at position 1/);
    await expect(run([0, 1, V])).rejects.toThrow(/prompt id 7 at position 2.*\[0, 7\)/);
    await expect(run([1.5])).rejects.toThrow(/prompt id 1.5 at position 0/);
  });
});

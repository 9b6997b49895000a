// The demo GPT's generation (what the GPT worker answers the page's requestWorker with), on the software adapter:
// the same weights, prompt and seed write the same text (web:check compares it after an OPFS restore), every new
// character is streamed once in order, 40 training steps change the text, and a prompt character outside the
// vocabulary or an empty prompt is a RangeError naming it.
import { createDevice } from '@neura/runtime-webgpu';
import { describe, expect, it } from 'vitest';
import { gptModel } from './models.js';

describe('the demo GPT generates on request', () => {
  it('writes deterministic text from the current weights, streamed a character at a time', async () => {
    const device = await createDevice();
    const text = 'the quick brown fox jumps over the lazy dog. '.repeat(40);
    const model = await gptModel(text, device, 2);
    const streamed: string[] = [];
    const a = await model.generate({ prompt: 'the q', maxTokens: 12, seed: 3 }, (c) => streamed.push(c));
    expect(a).toHaveLength(12);
    expect(streamed.join('')).toBe(a);
    expect([...a].every((c) => model.chars.includes(c))).toBe(true);
    expect(await model.generate({ prompt: 'the q', maxTokens: 12, seed: 3 })).toBe(a);
    for (let s = 0; s < 40; s++) await model.train.session.step(model.next(s, 40).feeds);
    expect(await model.generate({ prompt: 'the q', maxTokens: 12, seed: 3 })).not.toBe(a); // the trained weights
    await expect(model.generate({ prompt: 'thé', maxTokens: 2 })).rejects.toThrow(/the prompt's character "é" at 2 is not in the model's vocabulary/);
    await expect(model.generate({ prompt: '', maxTokens: 2 })).rejects.toThrow(/the prompt is empty/);
    device.destroy();
  }, 180_000);
});

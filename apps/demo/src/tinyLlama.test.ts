// The base model of `pnpm finetune` without pre-training (no GPU): a Hugging Face folder that loads back with
// `loadPretrainedDir` / `loadTokenizer`, with the same bytes for the same seed and other weights for another.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Llama } from '@neura/nn';
import { loadPretrainedDir, loadTokenizer } from '@neura/nn/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyLlama } from './tinyLlama.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neura-tiny-llama-'));
  await Promise.all([makeTinyLlama(join(dir, 'a'), { seed: 5 }), makeTinyLlama(join(dir, 'b'), { seed: 5 }), makeTinyLlama(join(dir, 'c'), { seed: 6 })]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('makeTinyLlama', () => {
  it('writes a llama folder that loads back with its tokenizer', async () => {
    const config = JSON.parse(await readFile(join(dir, 'a', 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'llama', hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, bos_token_id: 1 });
    const { model, values } = await loadPretrainedDir(join(dir, 'a'));
    expect(model).toBeInstanceOf(Llama);
    const tok = await loadTokenizer(join(dir, 'a'));
    expect(model.vocab).toBe(tok.vocabSize);
    const w = values['model.layers.0.self_attn.q_proj.weight'].data;
    const std = Math.sqrt(Array.from(w).reduce((s, x) => s + x * x, 0) / w.length);
    expect(std).toBeGreaterThan(0.018);
    expect(std).toBeLessThan(0.022);
    expect(tok.decode(tok.encode('Fellow citizens — 2021', { addSpecialTokens: false }))).toBe('Fellow citizens — 2021'); // byte fallback
  });

  it('is deterministic from the seed', async () => {
    const bytes = (d: string) => readFile(join(dir, d, 'model.safetensors'));
    expect((await bytes('a')).equals(await bytes('b'))).toBe(true);
    expect((await bytes('a')).equals(await bytes('c'))).toBe(false);
  });
});

// `pnpm finetune` end to end on the software adapter: a few LoRA steps on a tiny random base written by
// `makeTinyLlama`, then checks of what the command prints and writes: the JSON line, an adapter file that holds
// only PEFT-named lora tensors, and a merged export that reloads to the LoRA model's logits (on the interpreter).

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { applyLora, decodeSafetensors, loadLoraStateDict, type Pretrained } from '@neura/nn';
import { loadPretrainedDir } from '@neura/nn/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyLlama } from './tinyLlama.js';

const SCRIPT = fileURLToPath(new URL('./finetune.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');

let dir: string;
let json: Record<string, unknown>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'neura-finetune-'));
  await makeTinyLlama(join(dir, 'base'), { seed: 3 }); // random weights, no pre-training: no GPU needed
  // 8 steps: with the LLaMA tokenizer written by Python `tokenizers` (its merges, so its token stream) 4 steps at this
  // learning rate left the validation loss flat (6.3345 → 6.3439); 8 bring it to 6.2809
  const flags = ['--base', join(dir, 'base'), '--out', join(dir, 'out'), '--steps', '8', '--batch', '4', '--context', '32', '--eval-every', '8', '--eval-batches', '1'];
  const { stdout } = await promisify(execFile)(process.execPath, [TSX, '--conditions=@neura/source', SCRIPT, ...flags, '--sample-tokens', '6', '--from-year', '2020', '--lr', '0.05', '--require-improvement'], {
    maxBuffer: 1 << 24,
  });
  json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Logits [1, T, V] of `p` for `tokens` on the interpreter (f64). */
function logits(p: Pick<Pretrained, 'model' | 'values'>, tokens: number[]): TensorValue['data'] {
  const g = new Graph();
  g.output('logits', p.model.forward(g, g.input('tokens', [1, tokens.length], 'i32')));
  return interpret(g, { tokens: tensor([1, tokens.length], tokens, 'i32') }, p.values, 'f64').outputs.logits.data;
}

describe('pnpm finetune', () => {
  it('ends with a JSON line of parameter counts, losses and a sample', () => {
    // rank 8 on q/o (64 → 64) and v (64 → 32: two kv heads of 16) in each of 2 blocks: A [in, 8] + B [8, out]
    const perBlock = 8 * (64 + 64) + 8 * (64 + 32) + 8 * (64 + 64);
    expect(json.trainableParams).toBe(2 * perBlock);
    // the base: embedding and head 556×64 each (the fixture LLaMA tokenizer's vocabulary); per block 4 attention + 3 MLP (hidden 192) matrices and 2 norms; final norm
    const base = 2 * 556 * 64 + 2 * (64 * 64 + 64 * 32 * 2 + 64 * 64 + 3 * 64 * 192 + 2 * 64) + 64;
    expect(json.totalParams).toBe(base + 2 * perBlock);
    expect(Number.isFinite(json.firstValLoss)).toBe(true);
    expect(Number.isFinite(json.valLoss)).toBe(true);
    expect(json.valLoss).toBeLessThan(json.firstValLoss as number); // --require-improvement would have exited 1 otherwise
    expect(json.sample).toMatch(/^The /);
  });

  it('saves only the lora tensors in the adapter file, in PEFT names and layout', async () => {
    const file = decodeSafetensors(await readFile(join(dir, 'out', 'adapter_model.safetensors')));
    const names = Object.keys(file.tensors).sort();
    expect(names).toHaveLength(12); // 2 blocks × q, v, o × A, B
    for (const n of names) expect(n).toMatch(/^base_model\.model\.model\.layers\.[01]\.self_attn\.[qvo]_proj\.lora_[AB]\.weight$/);
    expect(file.tensors['base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight'].shape).toEqual([8, 64]);
    expect(file.tensors['base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight'].shape).toEqual([32, 8]);
    const config = JSON.parse(await readFile(join(dir, 'out', 'adapter_config.json'), 'utf8'));
    expect(config).toMatchObject({ peft_type: 'LORA', r: 8, lora_alpha: 16, target_modules: ['q_proj', 'v_proj', 'o_proj'] });
  });

  it('exports a merged model that reloads to the logits of the base with the adapter', async () => {
    const tokens = [1, 45, 120, 7, 300, 88, 15, 260];
    const merged = await loadPretrainedDir(join(dir, 'out', 'merged'));
    const withLora = await loadPretrainedDir(join(dir, 'base'));
    const base = logits(withLora, tokens);
    applyLora(withLora.model, { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj', 'o_proj'] });
    const adapter = decodeSafetensors(await readFile(join(dir, 'out', 'adapter_model.safetensors'))).tensors;
    const lora = logits({ model: withLora.model, values: { ...withLora.values, ...loadLoraStateDict(withLora.model, adapter, { format: 'peft' }) } }, tokens);
    expect(merged.model.parameterCount()).toBe(json.totalParams as number - (json.trainableParams as number));
    expect(merged.values['model.layers.0.mlp.up_proj.weight'].data).toEqual(withLora.values['model.layers.0.mlp.up_proj.weight'].data); // untouched
    expect(logits(merged, tokens)).toBeAllclose(lora, { rtol: 1e-5, atol: 1e-6 });
    expect(logits(merged, tokens)).not.toBeAllclose(base, { rtol: 1e-5, atol: 1e-6 }); // the adapter changed the model
  });

  it('exits 2 naming the folder when --base is no model folder', async () => {
    const run = promisify(execFile)(process.execPath, [TSX, '--conditions=@neura/source', SCRIPT, '--base', join(dir, 'missing')]);
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(`--base ${join(dir, 'missing')} has no config.json`) });
  });
});

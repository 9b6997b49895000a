// The base model of `pnpm finetune`: a tiny LLaMA-shaped model written as a Hugging Face folder (config.json with
// model_type llama, model.safetensors, tokenizer.json + tokenizer_config.json), since no model can be downloaded
// here. Weights are N(0, 0.02) drawn from a seed (same seed → same bytes); optionally pre-trained for a few steps
// on older State of the Union addresses so that fine-tuning adapts a model that already knows some English. The
// tokenizer is the repo's LLaMA-style BPE fixture with byte fallback, so any text encodes. Node-only (file IO).

import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TensorValue } from '@neura/ir';
import { compileTraining, cosineLr, type LmBatch, Llama, type LlamaConfig, randomWindows, Rng } from '@neura/nn';
import { loadTokenizer, savePretrainedDir } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import type { NeuraDevice } from '@neura/runtime-webgpu';
import { loadSotu } from './sotu.js';

/** Where `pnpm finetune` keeps its base model (git-ignored). */
export const DEFAULT_BASE_DIR = fileURLToPath(new URL('../.models/tiny-llama', import.meta.url));

/** The tokenizer the base model uses: tooling/fixtures/tokenizers/llama (LLaMA-style BPE, byte fallback). */
export const TOKENIZER_DIR = fileURLToPath(new URL('../../../tooling/fixtures/tokenizers/llama', import.meta.url));

/** Options of `makeTinyLlama`. */
export interface TinyLlamaOptions {
  /** Seed of the weights and of the pre-training data order (default 1). */
  readonly seed?: number;
  readonly layers?: number;
  readonly width?: number;
  readonly heads?: number;
  readonly kvHeads?: number;
  /** Pre-training steps on the addresses of `pretrainYears` (default 0: random weights). */
  readonly pretrainSteps?: number;
  /** Years of the pre-training text (default 1900–1950, older than the fine-tuning text). */
  readonly pretrainYears?: { readonly from: number; readonly to: number };
  /** Pre-train on at most this many characters of that text, its start (default 300 000: encoding is slow). */
  readonly pretrainChars?: number;
  readonly batch?: number;
  readonly context?: number;
  /** Needed when `pretrainSteps` > 0. */
  readonly device?: NeuraDevice;
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
}

/** N(0, std) by Box–Muller from `rng`, as f32. */
function normal(rng: Rng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rng.next())) * std;
    const t = 2 * Math.PI * rng.next();
    out[i] = r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** A Llama's values with every matrix N(0, 0.02) from `seed` (in state-dict order) and norms at one. */
export function seededValues(model: Llama, seed: number): Record<string, TensorValue> {
  const rng = new Rng(seed);
  const values = model.initialState();
  for (const [name, v] of Object.entries(values))
    if (v.shape.length === 2) values[name] = { shape: v.shape, dtype: 'f32', data: normal(rng, v.data.length, 0.02) };
  return values;
}

/**
 * Writes the tiny base model and its tokenizer into `dir` as a Hugging Face folder (see the file header) and
 * returns the model's config and final pre-training loss (NaN without pre-training).
 */
export async function makeTinyLlama(dir: string, opts: TinyLlamaOptions = {}): Promise<{ config: LlamaConfig; pretrainLoss: number }> {
  const seed = opts.seed ?? 1;
  const tok = await loadTokenizer(TOKENIZER_DIR);
  const config: LlamaConfig = { vocab: tok.vocabSize, layers: opts.layers ?? 2, width: opts.width ?? 64, heads: opts.heads ?? 4, kvHeads: opts.kvHeads ?? 2 };
  const model = new Llama(config);
  let values = seededValues(model, seed);
  let pretrainLoss = Number.NaN;
  const steps = opts.pretrainSteps ?? 0;
  if (steps > 0) {
    if (!opts.device) throw new Error('makeTinyLlama: pre-training needs a device');
    const years = opts.pretrainYears ?? { from: 1900, to: 1950 };
    const { text, files } = await loadSotu(years);
    const ids = tok.encode(text.slice(0, opts.pretrainChars ?? 300_000), { addSpecialTokens: false });
    const batch = opts.batch ?? 8;
    const context = opts.context ?? 64;
    opts.log?.(`pre-training the base: ${files} addresses ${years.from}–${years.to}, first ${ids.length} tokens, ${steps} steps`);
    const t = model.trainingGraph(batch, context);
    const lr = t.graph.input('lr', []);
    const session = await compileTraining(t.graph, { loss: t.loss, optimizer: adamW({ lr, weightDecay: 0.1 }), device: opts.device, initialState: values });
    const rng = new Rng(seed);
    const schedule = cosineLr(3e-3, { warmup: Math.min(50, Math.floor(steps / 10)), finalLr: 3e-4 });
    const lrFeed = new Float32Array(1);
    const buf: LmBatch = { tokens: new Int32Array(batch * context), targets: new Int32Array(batch * context) };
    for (let step = 1; step <= steps; step++) {
      const b = randomWindows(ids, batch, context, rng, buf);
      lrFeed[0] = schedule(step - 1, steps);
      const read = step % 50 === 0 || step === steps;
      const loss = await session.step({ tokens: b.tokens, targets: b.targets, lr: lrFeed }, { readLoss: read });
      if (loss !== undefined) {
        pretrainLoss = loss;
        opts.log?.(`pre-train step ${step}/${steps}: loss ${loss.toFixed(4)}`);
      }
    }
    const trained = await session.stateDict(); // also holds the optimizer's state: keep the model's leaves
    values = Object.fromEntries([...model.stateDictSpec().keys()].map((n) => [n, trained[n]]));
    session.dispose();
  }
  // HF fields beyond the math: token ids (the tokenizer's) and the dtype the weights are stored in
  const base = { bos_token_id: tok.bosTokenId, eos_token_id: tok.eosTokenId, torch_dtype: 'float32' };
  await savePretrainedDir(dir, model, values, base);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await copyFile(join(TOKENIZER_DIR, f), join(dir, f));
  return { config, pretrainLoss };
}

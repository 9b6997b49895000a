// Node-only Hugging Face checkpoint folders: `loadPretrainedDir` reads config.json and model.safetensors (or
// the index and its shards) through `fromPretrained`; `savePretrainedDir` writes `exportPretrained`'s files
// atomically. Must stay out of the browser entry (`node:` imports); re-exported only from `@neura/nn/node`.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TensorValue } from '@neura/ir';
import type { GPT } from '../models/gpt.js';
import type { Llama } from '../models/llama.js';
import { exportPretrained } from '../pretrained/exportPretrained.js';
import { fromPretrained, type Pretrained } from '../pretrained/fromPretrained.js';
import type { HfConfig } from '../pretrained/hfConfig.js';
import { writeFileAtomic } from './checkpointFile.js';

/** Loads a Hugging Face checkpoint folder (e.g. a `save_pretrained` output) into a neura model and its values. */
export async function loadPretrainedDir(dir: string): Promise<Pretrained> {
  return fromPretrained(async (name) => {
    try {
      return await readFile(join(dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  });
}

/** Writes config.json and model.safetensors of a neura GPT / Llama into `dir` (created if missing). */
export async function savePretrainedDir(dir: string, model: GPT | Llama, values: Readonly<Record<string, TensorValue>>, baseConfig?: HfConfig): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(exportPretrained(model, values, baseConfig))) await writeFileAtomic(join(dir, name), bytes);
}

// Node-only: reads a Hugging Face tokenizer folder (tokenizer.json, and tokenizer_config.json when present) and
// builds a `Tokenizer`. Behind `@neura/nn/node` (file IO); a browser fetches the same two files and calls
// `Tokenizer.fromJSON`. Errors name the file that is missing or is not JSON.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '../tokenizer/tokenizer.js';
import { TokenizerError } from '../tokenizer/tokenizerError.js';

async function readJson(path: string, optional: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if (optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenizerError(`loadTokenizer: cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(`loadTokenizer: ${path} is not JSON: ${(e as Error).message}`);
  }
}

/** Loads the tokenizer in folder `dir` (a Hugging Face model folder: tokenizer.json [+ tokenizer_config.json]). */
export async function loadTokenizer(dir: string): Promise<Tokenizer> {
  const json = await readJson(join(dir, 'tokenizer.json'), false);
  const config = await readJson(join(dir, 'tokenizer_config.json'), true);
  return Tokenizer.fromJSON(json, config ?? {});
}

// Saving a neura GPT or Llama as a Hugging Face checkpoint: config.json and one model.safetensors with torch
// names and layouts (nn.Linear weights [out, in] for LLaMA / Qwen2, GPT-2's Conv1D weights [in, out] as they
// are here), F32, `format: pt` metadata, a tied head stored once (as `save_pretrained` does). Pure bytes out;
// writing a folder is `savePretrainedDir` in `@neura/nn/node`.

import type { TensorValue } from '@neura/ir';
import { encodeSafetensors } from '../checkpoint/safetensors.js';
import { exportTorchStateDict, TorchImportError } from '../checkpoint/torchImport.js';
import { GPT } from '../models/gpt.js';
import type { Llama } from '../models/llama.js';
import { HF_FILES, hfImportOptions } from './fromPretrained.js';
import { type HfConfig, hfConfigOf } from './hfConfig.js';

/** The state dict a `transformers` model of this architecture holds (names, layouts), from neura values. */
export function hfStateDict(model: GPT | Llama, values: Readonly<Record<string, TensorValue>>): Record<string, TensorValue> {
  const opts = hfImportOptions(model);
  const missing = [...model.stateDictSpec().keys()].filter((n) => !(n in values));
  if (missing.length) throw new TorchImportError(missing.map((n) => `the values lack the model's '${n}'`));
  // no `tied`: save_pretrained writes a tied pair once, under the embedding's name
  return exportTorchStateDict(values, model, model instanceof GPT ? { transposed: opts.transposed } : {});
}

/** config.json and model.safetensors bytes of a neura model, loadable by `AutoModelForCausalLM.from_pretrained`. */
export function exportPretrained(model: GPT | Llama, values: Readonly<Record<string, TensorValue>>, baseConfig: HfConfig = {}): Record<string, Uint8Array> {
  const config = hfConfigOf(model, baseConfig);
  return {
    [HF_FILES.config]: new TextEncoder().encode(`${JSON.stringify(config, null, 2)}\n`),
    [HF_FILES.weights]: encodeSafetensors(hfStateDict(model, values), { format: 'pt' }),
  };
}

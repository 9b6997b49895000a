// Loading a Hugging Face checkpoint (config.json + model.safetensors, or model.safetensors.index.json and its
// shards) into a neura GPT or Llama and its parameter values. Browser-safe: bytes come in as buffers or through
// a fetch-like loader; reading a folder is `loadPretrainedDir` in `@neura/nn/node`. Half-precision tensors are
// widened to f32 (exactly). Every tensor of the files must land in the model and every param must be found.

import type { TensorValue } from '@neura/ir';
import { decodeSafetensors, type SafetensorsDType, setOwn } from '../checkpoint/safetensors.js';
import { importTorchStateDict, type TorchImportOptions } from '../checkpoint/torchImport.js';
import { GPT } from '../models/gpt.js';
import type { Llama } from '../models/llama.js';
import { type HfConfig, type HfModelType, modelFromHfConfig, PretrainedConfigError } from './hfConfig.js';

/** The file names of a Hugging Face checkpoint folder. */
export const HF_FILES = {
  /** The model's configuration. */
  config: 'config.json',
  /** The weights of an unsharded checkpoint. */
  weights: 'model.safetensors',
  /** A sharded checkpoint's map of tensor name → shard file. */
  index: 'model.safetensors.index.json',
} as const;

/** A checkpoint already in memory: the config (parsed or as text/bytes) and every safetensors file (shards in any order). */
export interface PretrainedFiles {
  /** config.json, parsed or as text / bytes. */
  readonly config: HfConfig | string | Uint8Array | ArrayBuffer;
  /** Every safetensors file of the checkpoint (shards in any order). */
  readonly files: readonly (Uint8Array | ArrayBuffer)[];
}

/** Fetches one file of a checkpoint by name (`config.json`, …); resolves undefined when it does not exist. */
export type PretrainedLoader = (name: string) => Promise<Uint8Array | ArrayBuffer | undefined>;

/** A loaded checkpoint: the model, its values by neura name (for `loadStateDict` / `initialState` / `interpret`). */
export interface Pretrained {
  /** config.json's `model_type` (gpt2, llama, qwen2). */
  readonly modelType: HfModelType;
  /** The neura model built from the config. */
  readonly model: GPT | Llama;
  /** The weights by neura name. */
  readonly values: Record<string, TensorValue>;
  /** The config.json as read (pass it to `exportPretrained` to keep its other fields). */
  readonly config: HfConfig;
  /** The dtype each torch tensor had in the files (F32, F16, BF16, …). */
  readonly fileDtypes: Readonly<Record<string, SafetensorsDType>>;
}

/** A checkpoint file that is missing or inconsistent (the index names a shard or tensor that is not there, …). */
export class PretrainedFileError extends Error {
  /** Always `'PretrainedFileError'`. */
  override readonly name = 'PretrainedFileError';
}

/** The torch-name ↔ neura-name options for a model built by `modelFromHfConfig`. */
export function hfImportOptions(model: GPT | Llama): TorchImportOptions {
  if (!(model instanceof GPT)) return model.torchImportOptions(); // HF LLaMA names and [out, in] Linears: neura's own
  // GPT-2's Conv1D keeps weights [in, out], as neura: only a separate lm_head (an nn.Linear) is transposed.
  // Checkpoints saved from GPT2Model (the hub's `gpt2`) lack the `transformer.` prefix.
  const rename = (n: string) => (n.startsWith('transformer.') || n.startsWith('lm_head.') ? n : `transformer.${n}`);
  return { ...model.torchImportOptions(), rename, transposed: new Set(model.lm_head ? ['lm_head.weight'] : []) };
}

/** Builds the model a checkpoint describes and imports its weights (see the file header). */
export async function fromPretrained(source: PretrainedFiles | PretrainedLoader): Promise<Pretrained> {
  if (typeof source !== 'function') return fromFiles(source);
  const need = async (name: string) => {
    const b = await source(name);
    if (!b) throw new PretrainedFileError(`checkpoint file '${name}' not found`);
    return b;
  };
  const config = await need(HF_FILES.config);
  const index = await source(HF_FILES.index);
  if (!index) return fromFiles({ config, files: [await need(HF_FILES.weights)] });
  const weightMap = parseIndex(index);
  const shards = [...new Set(Object.values(weightMap))].sort();
  const files = await Promise.all(shards.map(need));
  return fromFiles({ config, files }, { weightMap, shards });
}

/** `fromPretrained` on buffers in memory. */
function fromFiles(src: PretrainedFiles, index?: { weightMap: Record<string, string>; shards: string[] }): Pretrained {
  const config = parseJson(src.config, HF_FILES.config) as HfConfig;
  const { modelType, model } = modelFromHfConfig(config);
  if (src.files.length === 0) throw new PretrainedFileError('no safetensors file given');
  const torch: Record<string, TensorValue> = {};
  const fileDtypes: Record<string, SafetensorsDType> = {};
  src.files.forEach((bytes, i) => {
    const f = decodeSafetensors(bytes);
    const where = index ? `'${index.shards[i]}'` : `file ${i}`;
    for (const [name, v] of Object.entries(f.tensors)) {
      if (name in torch) throw new PretrainedFileError(`tensor '${name}' appears in two safetensors files (again in ${where})`);
      if (index && index.weightMap[name] !== index.shards[i]) throw new PretrainedFileError(`tensor '${name}' is in ${where}, the index puts it in ${show(index.weightMap[name])}`);
      setOwn(torch, name, v);
      setOwn(fileDtypes, name, f.fileDtypes[name]);
    }
  });
  if (index) for (const [name, shard] of Object.entries(index.weightMap)) if (!(name in torch)) throw new PretrainedFileError(`the index puts tensor '${name}' in '${shard}', which does not hold it`);
  const values = importTorchStateDict(torch, model, hfImportOptions(model));
  return { modelType, model, values, config, fileDtypes };
}

/** `model.safetensors.index.json` → its weight_map (tensor name → shard file name). */
function parseIndex(bytes: Uint8Array | ArrayBuffer): Record<string, string> {
  const index = parseJson(bytes, HF_FILES.index) as { weight_map?: unknown };
  const map = index?.weight_map;
  if (!map || typeof map !== 'object' || Array.isArray(map) || !Object.values(map).every((v) => typeof v === 'string' && v !== ''))
    throw new PretrainedFileError(`${HF_FILES.index}: weight_map must be an object of tensor name → shard file name`);
  return map as Record<string, string>;
}

function parseJson(v: HfConfig | string | Uint8Array | ArrayBuffer, file: string): unknown {
  if (!(typeof v === 'string' || v instanceof Uint8Array || v instanceof ArrayBuffer)) return v;
  const text = typeof v === 'string' ? v : new TextDecoder().decode(v);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PretrainedConfigError(`${file} is not valid JSON: ${(e as Error).message}`, file);
  }
}

const show = (v: unknown) => JSON.stringify(v) ?? String(v);

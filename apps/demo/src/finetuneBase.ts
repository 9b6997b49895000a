// `pnpm finetune:make-base`: writes the tiny LLaMA-shaped base model of `pnpm finetune` (random weights from a
// seed, optionally pre-trained a few steps on 1900–1950 addresses) and its tokenizer as a Hugging Face folder.
// `pnpm finetune` does this itself with the defaults when the folder is missing.

import { resolve } from 'node:path';
import { createDevice } from '@neura/runtime-webgpu';
import { type FlagSpec, parseFlagsOrExit } from './cli.js';
import { DEFAULT_BASE_DIR, makeTinyLlama } from './tinyLlama.js';

const SUMMARY =
  'Writes a tiny LLaMA-shaped model (config.json, model.safetensors, tokenizer.json) with seeded random weights,\n' +
  'optionally pre-trained on State of the Union addresses of 1900–1950, as the base model of `pnpm finetune`.';

const FLAGS = {
  out: { kind: 'string', default: DEFAULT_BASE_DIR, help: 'folder to write' },
  seed: { kind: 'int', default: 1, help: 'seed of the weights and of the pre-training data order' },
  layers: { kind: 'int', min: 1, default: 2, help: 'transformer blocks' },
  width: { kind: 'int', min: 2, default: 64, help: 'model width' },
  heads: { kind: 'int', min: 1, default: 4, help: 'attention heads' },
  'kv-heads': { kind: 'int', min: 1, default: 2, help: 'key/value heads (grouped-query; must divide --heads)' },
  'pretrain-steps': { kind: 'int', min: 0, default: 200, help: 'pre-training steps (0: random weights)' },
} as const satisfies Record<string, FlagSpec>;

const args = parseFlagsOrExit('pnpm finetune:make-base', SUMMARY, FLAGS, process.argv.slice(2));
const out = resolve(process.env.INIT_CWD ?? '', args.out); // relative to where pnpm was typed (it runs in apps/demo)
const device = args['pretrain-steps'] > 0 ? await createDevice() : undefined;
const { config, pretrainLoss } = await makeTinyLlama(out, {
  seed: args.seed,
  layers: args.layers,
  width: args.width,
  heads: args.heads,
  kvHeads: args['kv-heads'],
  pretrainSteps: args['pretrain-steps'],
  device,
  log: (l) => console.error(l),
});
device?.destroy();
console.log(JSON.stringify({ dir: out, ...config, pretrainSteps: args['pretrain-steps'], pretrainLoss }));

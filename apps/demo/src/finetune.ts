// `pnpm finetune`: LoRA fine-tuning of a Hugging Face LLaMA-shaped checkpoint on recent State of the Union
// addresses, on WebGPU. Loads the base folder (`loadPretrainedDir` + `loadTokenizer`; the tiny base of
// `pnpm finetune:make-base` is written first when the default folder is missing), attaches rank-8 adapters to the
// attention projections (`applyLora`: everything else frozen), trains them with AdamW, prints trainable vs total
// parameters, train/validation loss (nats per token) and a sample, writes the adapter alone (PEFT's
// adapter_model.safetensors + adapter_config.json) and a merged model (`mergeLora` → `savePretrainedDir`), and
// prints one JSON line last (stdout). Validation is the last 10% of the fine-tuning text.

import { access, copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GraphError } from '@neura/ir';
import {
  applyLora,
  compileGenerator,
  compileInference,
  compileTraining,
  cosineLr,
  encodeSafetensors,
  generateText,
  type LmBatch,
  Llama,
  loraStateDict,
  mergeLora,
  modelFromHfConfig,
  randomWindows,
  Rng,
} from '@neura/nn';
import { loadPretrainedDir, loadTokenizer, savePretrainedDir, writeFileAtomic } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';
import { CliError, type FlagSpec, parseFlagsOrExit } from './cli.js';
import { loadSotu } from './sotu.js';
import { DEFAULT_BASE_DIR, makeTinyLlama } from './tinyLlama.js';

const SUMMARY =
  'Fine-tunes a LLaMA-shaped Hugging Face checkpoint with LoRA on recent State of the Union addresses on WebGPU,\n' +
  'prints trainable vs total parameters, train and validation loss (nats per token) and a sample, saves the adapter\n' +
  '(PEFT format) and the merged model, and prints one JSON line last.';

const FLAGS = {
  base: { kind: 'string', default: DEFAULT_BASE_DIR, help: 'base model folder (config.json, model.safetensors, tokenizer.json); the default is made when missing' },
  out: { kind: 'string', default: fileURLToPath(new URL('../.models/tiny-llama-lora', import.meta.url)), help: 'output folder (adapter + merged/)' },
  steps: { kind: 'int', min: 1, default: 200, help: 'training steps' },
  batch: { kind: 'int', min: 1, default: 8, help: 'sequences per step' },
  context: { kind: 'int', min: 2, default: 64, help: 'tokens per sequence' },
  rank: { kind: 'int', min: 1, default: 8, help: 'LoRA rank' },
  alpha: { kind: 'number', default: 16, help: 'LoRA alpha (the update is scaled by alpha/rank)' },
  'lora-dropout': { kind: 'number', min: 0, max: 0.9, default: 0, help: "dropout on the adapters' input in training" },
  targets: { kind: 'string', default: 'q_proj,v_proj,o_proj', help: 'comma-separated Linear names that get adapters' },
  lr: { kind: 'number', min: 0, default: 1e-2, help: 'peak learning rate (AdamW, warm-up then cosine decay)' },
  'from-year': { kind: 'int', default: 2001, help: 'fine-tune on the addresses from this year on' },
  'eval-every': { kind: 'int', min: 1, default: 50, help: 'measure validation loss every N steps' },
  'eval-batches': { kind: 'int', min: 1, default: 8, help: 'validation batches per measurement' },
  'sample-tokens': { kind: 'int', min: 0, default: 100, help: 'tokens to generate at the end' },
  temperature: { kind: 'number', min: 0, default: 0.8, help: 'sampling temperature (0: greedy)' },
  'top-k': { kind: 'int', min: 1, help: 'sample from the k most likely tokens' },
  prompt: { kind: 'string', default: 'The ', help: 'text the sample starts from' },
  seed: { kind: 'int', default: 1, help: 'seed of the adapters, data order, dropout and sampling' },
  'require-improvement': { kind: 'boolean', help: 'exit 1 unless the final validation loss is below the first (CI smoke run)' },
} as const satisfies Record<string, FlagSpec>;

const args = parseFlagsOrExit('pnpm finetune', SUMMARY, FLAGS, process.argv.slice(2), (f) => {
  if (!f.targets.split(',').some((t) => t.trim())) throw new CliError('--targets must name at least one Linear');
});
const { batch, context, steps } = args;
// paths are relative to where `pnpm finetune` was typed (pnpm runs the script in apps/demo and names that in INIT_CWD)
const baseDir = resolve(process.env.INIT_CWD ?? '', args.base);
const outDir = resolve(process.env.INIT_CWD ?? '', args.out);
const log = (line: string) => console.error(line);

/** A bad base folder or flag found after parsing: the message and exit status 2, as a bad command line. */
function fail(message: string): never {
  console.error(`pnpm finetune: ${message}`);
  process.exit(2);
}

const makeBase = baseDir === DEFAULT_BASE_DIR && !(await exists(join(baseDir, 'config.json')));
if (!makeBase)
  for (const f of ['config.json', 'tokenizer.json'])
    if (!(await exists(join(baseDir, f)))) fail(`--base ${baseDir} has no ${f} (a Hugging Face model folder; pnpm finetune:make-base writes one)`);
const device = await createDevice();
if (makeBase) {
  log(`neura finetune: no base model in ${baseDir}; writing the tiny one (pnpm finetune:make-base)`);
  await makeTinyLlama(baseDir, { pretrainSteps: 200, device, log });
}

// base model and tokenizer, as any Hugging Face folder
const base = await loadPretrainedDir(baseDir);
if (!(base.model instanceof Llama)) fail(`--base ${baseDir} is a ${base.modelType} checkpoint; pnpm finetune takes llama or qwen2`);
const model = base.model;
const tok = await loadTokenizer(baseDir);
if (tok.vocabSize > model.vocab) fail(`--base ${baseDir}: the tokenizer has ${tok.vocabSize} ids, the model's vocab_size is only ${model.vocab}`);
const totalBase = model.parameterCount();
let wrapped: string[];
try {
  wrapped = applyLora(model, {
    rank: args.rank,
    alpha: args.alpha,
    dropout: args['lora-dropout'],
    targets: args.targets.split(',').map((t) => t.trim()).filter(Boolean),
    seed: args.seed,
  });
} catch (err) {
  if (!(err instanceof GraphError)) throw err;
  fail(`--targets ${args.targets}: ${err.message}`); // e.g. names that match no Linear: the message lists them
}
const trainableParams = model.parameterCount({ trainable: true });
const totalParams = model.parameterCount();

// data: the addresses from --from-year on, as tokens (no BOS: windows cut through the running text)
const { text, files } = await loadSotu({ from: args['from-year'] });
const ids = tok.encode(text, { addSpecialTokens: false });
const split = Math.floor(ids.length * 0.9);
const train = ids.subarray(0, split);
const val = ids.subarray(split);
if (val.length < context + 1) fail(`--from-year ${args['from-year']}: ${ids.length} tokens leave too little validation text for --context ${context}`);
log(
  `neura finetune: adapter ${device.name}; base ${baseDir} (${base.modelType}, ${(totalBase / 1e6).toFixed(2)}M parameters); ` +
    `${files} addresses from ${args['from-year']}, ${ids.length} tokens (vocab ${tok.vocabSize})`,
);
log(`LoRA rank ${args.rank}, alpha ${args.alpha} on ${wrapped.length} Linears (${wrapped.join(', ')})`);
log(`trainable params: ${trainableParams} || all params: ${totalParams} || trainable%: ${((100 * trainableParams) / totalParams).toFixed(4)}`);

// training step (frozen base: no gradients or optimizer state for it) and evaluation pass share leaf names
const t = model.train().trainingGraph(batch, context);
const lrInput = t.graph.input('lr', []);
const compileStart = performance.now();
const session = await compileTraining(t.graph, { loss: t.loss, optimizer: adamW({ lr: lrInput, weightDecay: 0 }), device, initialState: base.values });
const e = model.eval().trainingGraph(batch, context);
const evaluator = await compileInference(e.graph, { outputs: { loss: e.loss }, device });
const compileMs = performance.now() - compileStart;

const rng = new Rng(args.seed);
const schedule = cosineLr(args.lr, { warmup: Math.min(20, Math.floor(steps / 10)), finalLr: args.lr / 10 });
const lrFeed = new Float32Array(1);
const offsetFeed = new Int32Array(1);
const buf: LmBatch = { tokens: new Int32Array(batch * context), targets: new Int32Array(batch * context) };

/** Mean loss over the same `eval-batches` validation windows every time (a fixed seed). */
async function valLoss(): Promise<number> {
  await evaluator.loadStateDict(await session.stateDict());
  const r = new Rng(12345);
  let sum = 0;
  for (let i = 0; i < args['eval-batches']; i++) {
    const b = randomWindows(val, batch, context, r, buf);
    sum += (await evaluator.run({ tokens: b.tokens, targets: b.targets })).loss.data[0];
  }
  return sum / args['eval-batches'];
}

const firstValLoss = await valLoss();
log(`step 0: val loss ${firstValLoss.toFixed(4)} (compile ${(compileMs / 1000).toFixed(1)} s)`);
let trainLoss = Number.NaN;
let lastVal = firstValLoss;
let trainMs = 0;
const logEvery = Math.min(args['eval-every'], 25);
for (let step = 1; step <= steps; step++) {
  const t0 = performance.now();
  const b = randomWindows(train, batch, context, rng, buf);
  lrFeed[0] = schedule(step - 1, steps);
  offsetFeed[0] = rng.int(1 << 30);
  const feeds: Record<string, Int32Array | Float32Array> = { tokens: b.tokens, targets: b.targets, lr: lrFeed };
  if (args['lora-dropout'] > 0) feeds.dropoutOffset = offsetFeed;
  const read = step % logEvery === 0 || step === steps;
  const loss = await session.step(feeds, { readLoss: read });
  trainMs += performance.now() - t0;
  if (loss !== undefined) {
    if (!Number.isFinite(loss)) throw new Error(`training diverged: loss ${loss} at step ${step}`);
    trainLoss = loss;
  }
  if (step % args['eval-every'] === 0 || step === steps) {
    lastVal = await valLoss();
    log(`step ${step}/${steps}: train loss ${trainLoss.toFixed(4)}, val loss ${lastVal.toFixed(4)}, ${((step * batch * context) / (trainMs / 1000)).toFixed(0)} tokens/s`);
  } else if (read) log(`step ${step}/${steps}: train loss ${trainLoss.toFixed(4)}`);
}
const values = await session.stateDict();

// a sample from the fine-tuned model (the KV-cache generator runs the adapters as they are, unmerged)
const promptIds = Array.from(tok.encode(args.prompt, { addSpecialTokens: false }));
const gen = await compileGenerator(model, { device, maxLen: promptIds.length + Math.max(args['sample-tokens'], 1) });
await gen.loadStateDict(values);
let sample = args.prompt;
for await (const piece of generateText(gen, tok, promptIds, { maxTokens: args['sample-tokens'], temperature: args.temperature, topK: args['top-k'], seed: args.seed })) sample += piece;
log(`--- sample ---\n${sample}\n--------------`);

// the adapter alone, as PEFT saves it (adapter_model.safetensors in torch layout + adapter_config.json) ...
const adapter = loraStateDict(model, values, { format: 'peft' });
await mkdir(outDir, { recursive: true });
await writeFileAtomic(join(outDir, 'adapter_model.safetensors'), encodeSafetensors(adapter, { format: 'pt' }));
const adapterConfig = {
  peft_type: 'LORA',
  task_type: 'CAUSAL_LM',
  base_model_name_or_path: baseDir,
  r: args.rank,
  lora_alpha: args.alpha,
  lora_dropout: args['lora-dropout'],
  target_modules: [...new Set(wrapped.map((n) => n.split('.').at(-1)))],
  bias: 'none',
  fan_in_fan_out: false,
  inference_mode: true,
};
await writeFileAtomic(join(outDir, 'adapter_config.json'), new TextEncoder().encode(`${JSON.stringify(adapterConfig, null, 2)}\n`));
// ... and merged into the base (merge_and_unload): a plain checkpoint of the base's architecture, with its tokenizer
const plain = modelFromHfConfig(base.config).model;
const merged = mergeLora(model, values); // also holds the optimizer's state: keep the plain model's leaves
await savePretrainedDir(join(outDir, 'merged'), plain, Object.fromEntries([...plain.stateDictSpec().keys()].map((n) => [n, merged[n]])), base.config);
for (const f of ['tokenizer.json', 'tokenizer_config.json']) if (await exists(join(baseDir, f))) await copyFile(join(baseDir, f), join(outDir, 'merged', f));
log(`wrote ${join(outDir, 'adapter_model.safetensors')} (${Object.keys(adapter).length} tensors) and ${join(outDir, 'merged')}/`);

console.log(
  JSON.stringify({
    adapter: device.name,
    steps,
    batch,
    context,
    rank: args.rank,
    targets: wrapped,
    trainableParams,
    totalParams,
    firstValLoss,
    valLoss: lastVal,
    trainLoss,
    msPerStep: trainMs / steps,
    compileMs: Math.round(compileMs),
    out: outDir,
    sample,
  }),
);
gen.dispose();
evaluator.dispose();
session.dispose();
device.destroy();
if (args['require-improvement'] && !(lastVal < firstValLoss)) {
  console.error(`pnpm finetune: validation loss ${lastVal} did not improve on ${firstValLoss}`);
  process.exit(1);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}


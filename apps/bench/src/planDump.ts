// Prints a GPT training step's plan (dispatch labels, counted) on Dawn's null backend, which offers shader-f16 without
// subgroup matrices (the portable mixed path) and validates everything without running it: plans without a GPU.
// Usage: node planDump.mjs <workload prefix | LxW> <fp32|mixed>  (e.g. gpt-2x128, or 4x128 for a 4-layer width-128 GPT);
// PLAN_ONLY=1: the optimizer's plan alone (compileTraining's graph steps, no kernels), for steps too big for the null
// device's memory (gpt-6x384): prints the plan's dispatches and its nodes counted by op. PLAN_GRAPH=1: the plan's graph too.

import { optimize } from '@neura/egraph';
import { printGraph } from '@neura/ir';
import { autocast, buildTrainingStep, GPT, recognizedForward } from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, createDevice } from '@neura/runtime-webgpu';
import { nullGpu } from './nullGpu.js';
import { buildGpt, GPT_WORKLOADS, type GptWorkload, MIXED_LOSS_SCALE } from './workloads/gpt.js';

const arg = process.argv[2] ?? 'gpt-2x128';
const custom = /^(\d+)x(\d+)$/.exec(arg);
const w: GptWorkload | undefined = custom
  ? { name: `gpt-${arg}`, config: { layers: Number(custom[1]), heads: 4, width: Number(custom[2]), context: 64, batch: 16, vocab: 65, attention: 'op', gelu: 'tanh' } }
  : GPT_WORKLOADS.find((x) => x.name.startsWith(arg));
if (!w) throw new Error(`planDump: no workload ${arg}`);
const dev = await createDevice({ gpu: await nullGpu() });
const precision = (process.argv[3] ?? 'mixed') as 'mixed' | 'fp32';
if (process.env.PLAN_ONLY) {
  // compileTraining's steps on the portable path (autocast under mixed, loss scale as buildGpt's), then optimize
  const c = w.config;
  const built = new GPT(c).trainingGraph(c.batch);
  const fwd = recognizedForward(built.graph, built.loss);
  const { graph, loss } = precision === 'mixed' ? autocast(fwd.graph, fwd.loss) : fwd;
  buildTrainingStep(graph, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), ...(precision === 'mixed' ? { lossScale: MIXED_LOSS_SCALE } : {}) });
  const { graph: plan, report } = optimize(graph, { limits: capsFor(dev, precision) });
  const byOp = new Map<string, number>();
  for (const id of plan.live()) byOp.set(plan.nodes[id].op, (byOp.get(plan.nodes[id].op) ?? 0) + 1);
  console.log(report.dispatchesAfter);
  console.log([...byOp].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join('\n'));
  if (process.env.PLAN_GRAPH) console.log(printGraph(plan));
  process.exit(0);
}
const { train, batches } = await buildGpt(w, dev, precision as 'mixed');
const prof = await train.session.profile(batches[0]);
const counts = new Map<string, number>();
for (const r of prof.summary({ flopsPerSecond: 1, bytesPerSecond: 1 }).rows) {
  const k = r.label.replace(/#\d+/, '');
  counts.set(k, (counts.get(k) ?? 0) + 1);
}
console.log(train.stats.dispatchesPerStep);
console.log([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, c]) => `${c} ${k}`).join('\n'));
// PLAN_GRAPH=1: the optimized step's graph too (ops, dtypes, attributes)
if (process.env.PLAN_GRAPH) console.log(printGraph(train.graph));
process.exit(0);

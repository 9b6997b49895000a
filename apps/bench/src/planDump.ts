// Prints a GPT training step's plan (dispatch labels, counted) on Dawn's null backend, which offers shader-f16 without
// subgroup matrices (the portable mixed path) and validates everything without running it: plans without a GPU.
// Usage: node planDump.mjs <workload prefix | LxW> <fp32|mixed>  (e.g. gpt-2x128, or 4x128 for a 4-layer width-128 GPT)

import { printGraph } from '@neura/ir';
import { createDevice } from '@neura/runtime-webgpu';
import { nullGpu } from './nullGpu.js';
import { buildGpt, GPT_WORKLOADS, type GptWorkload } from './workloads/gpt.js';

const arg = process.argv[2] ?? 'gpt-2x128';
const custom = /^(\d+)x(\d+)$/.exec(arg);
const w: GptWorkload | undefined = custom
  ? { name: `gpt-${arg}`, config: { layers: Number(custom[1]), heads: 4, width: Number(custom[2]), context: 64, batch: 16, vocab: 65, attention: 'op', gelu: 'tanh' } }
  : GPT_WORKLOADS.find((x) => x.name.startsWith(arg));
if (!w) throw new Error(`planDump: no workload ${arg}`);
const dev = await createDevice({ gpu: await nullGpu() });
const { train, batches } = await buildGpt(w, dev, (process.argv[3] ?? 'mixed') as 'mixed');
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

// The largest GPT that trains within a memory budget, with and without recompute (issue 11). A ladder of GPT shapes
// (layers × width at a fixed context, batch and head size, ordered by parameter count) is searched, by bisection,
// for the largest step that fits the budget: stored (the default plan: ir's estimate of its bytes) and with
// `memoryBudget` (memory-aware schedule, recomputation in the backward). Each winner is compiled through
// `compileTraining` and trained a few steps on this adapter: bytes allocated (the runtime's report), step time.
// Usage: tsx --conditions=@neura/source src/memoryBudget.ts --budget 48MB [--ctx 32] [--batch 4] [--head 16]
//        [--layers 1,2,4] [--widths 32,64,128] [--steps 4] [--also 6x384] [--out results/x.md]
// (`--also`: GPTs trained both ways besides the ladder's winners, e.g. the bench's reference workload.)

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MemoryBudgetError, optimize } from '@neura/egraph';
import { estimateGraphMemory } from '@neura/ir';
import { buildGptStep, compileTraining, GPT, type GptConfig } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { registeredKernelOps } from '@neura/wgsl-kernels';
import { summarize } from './timing.js';
import { gptBatches } from './workloads/gpt.js';

const { values: args } = parseArgs({
  options: {
    budget: { type: 'string', default: '48MB' },
    ctx: { type: 'string', default: '32' },
    batch: { type: 'string', default: '4' },
    head: { type: 'string', default: '16' },
    vocab: { type: 'string', default: '65' },
    layers: { type: 'string', default: '1,2,3,4,6,8' },
    widths: { type: 'string', default: '32,48,64,96,128,192,256' },
    steps: { type: 'string', default: '4' },
    also: { type: 'string', default: '' },
    out: { type: 'string' },
  },
});

/** `48MB`, `2GB`, `1.5e9` → bytes (decimal units, as the reports print them). */
function parseBytes(s: string): number {
  const m = /^([\d.e+]+)\s*(B|kB|KB|MB|GB)?$/i.exec(s.trim());
  if (!m) throw new Error(`memoryBudget bench: cannot read '${s}' as bytes (e.g. 48MB, 2GB)`);
  const unit = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9 }[(m[2] ?? 'B').toLowerCase()] as number;
  return Number(m[1]) * unit;
}

const budget = parseBytes(args.budget as string);
const [ctx, batch, head, vocab, steps] = [args.ctx, args.batch, args.head, args.vocab, args.steps].map(Number);
const list = (s: string) => s.split(',').map(Number);
const fmt = (b: number) => (b >= 1e9 ? `${(b / 1e9).toFixed(3)} GB` : `${(b / 1e6).toFixed(2)} MB`);

type Config = GptConfig & { batch: number };
const params = (c: Config) => c.layers * 12 * c.width * c.width + c.vocab * c.width * 2 + c.context * c.width;
const ladder: Config[] = list(args.layers as string)
  .flatMap((layers) => list(args.widths as string).map((width) => ({ layers, width, heads: Math.max(1, width / head), context: ctx, batch, vocab, attention: 'op' as const })))
  .filter((c) => c.width % head === 0)
  .sort((a, b) => params(a) - params(b));

const device: NeuraDevice = await createDevice();
const limits = { limits: device.caps, customKernelOps: registeredKernelOps() };
const name = (c: Config) => `${c.layers}×${c.width} ctx ${c.context} b ${c.batch}`;

/** Whether a config's step fits: stored (its default plan's estimate) or with recompute (optimize under the budget). */
function fits(c: Config, recompute: boolean): { ok: boolean; bytes: number; ms: number } {
  const t0 = performance.now();
  if (!recompute) {
    const bytes = estimateGraphMemory(optimize(buildGptStep(c), limits).graph).bytesAllocated;
    return { ok: bytes <= budget, bytes, ms: performance.now() - t0 };
  }
  try {
    const r = optimize(buildGptStep(c), { ...limits, memoryBudget: budget });
    return { ok: true, bytes: r.report.memory?.after ?? 0, ms: performance.now() - t0 };
  } catch (e) {
    if (!(e instanceof MemoryBudgetError)) throw e;
    return { ok: false, bytes: e.smallest, ms: performance.now() - t0 };
  }
}

/** The largest ladder entry that fits (bisection over the ladder, parameter count ascending). */
function largest(recompute: boolean): { config?: Config; tried: string[] } {
  let [lo, hi] = [0, ladder.length - 1];
  let best: Config | undefined;
  const tried: string[] = [];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const f = fits(ladder[mid], recompute);
    tried.push(`${name(ladder[mid])}: ${f.ok ? 'fits' : 'over'} (${fmt(f.bytes)}, optimize ${Math.round(f.ms)} ms)`);
    console.error(`${recompute ? 'recompute' : 'stored'} ${tried[tried.length - 1]}`);
    if (f.ok) [best, lo] = [ladder[mid], mid + 1];
    else hi = mid - 1;
  }
  return { config: best, tried };
}

/** Compiles and trains a config for a few steps: bytes allocated, synced step time, loss, what the optimizer did. */
async function train(c: Config, recompute: boolean) {
  const t0 = performance.now();
  const { graph, loss } = new GPT(c).trainingGraph(c.batch);
  const session = await compileTraining(graph, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device, ...(recompute ? { memoryBudget: budget } : {}) });
  const compileMs = performance.now() - t0;
  const batches = gptBatches({ name: name(c), config: c });
  const samples: number[] = [];
  let last: number | undefined;
  for (let i = 0; i < steps + 1; i++) {
    const s0 = performance.now();
    last = await session.step(batches[i % batches.length], { readLoss: true });
    if (i > 0) samples.push(performance.now() - s0); // the first step pays pipeline warm-up
  }
  const out = {
    config: name(c),
    params: params(c),
    bytesAllocated: session.stats.bytesAllocated,
    dispatches: session.stats.dispatchesPerStep,
    stepMs: summarize(samples).medianMs,
    loss: last,
    recomputed: session.report?.memory?.recomputed ?? 0,
    estimate: session.report?.memory?.after ?? estimateGraphMemory(session.graph).bytesAllocated,
    compileMs,
  };
  session.dispose();
  return out;
}

const adapter = device.name;
const configOf = (layers: number, width: number): Config => ({ layers, width, heads: Math.max(1, width / head), context: ctx, batch, vocab, attention: 'op' });
const rows: string[] = [];
const notes: string[] = [];
const row = (mode: string, r: Awaited<ReturnType<typeof train>>) =>
  `| ${mode} | ${r.config} | ${(r.params / 1e6).toFixed(2)} M | ${fmt(r.estimate)} | ${fmt(r.bytesAllocated)}${r.bytesAllocated > budget ? ' (over)' : ''} | ${r.recomputed} | ${r.dispatches} | ${r.stepMs.toFixed(1)} ms | ${r.loss?.toFixed(3)} |`;
for (const recompute of [false, true]) {
  const { config, tried } = largest(recompute);
  notes.push(`- ${recompute ? 'with recompute' : 'stored'}: ${tried.join('; ')}`);
  if (!config) {
    rows.push(`| ${recompute ? 'recompute' : 'stored'} | none of the ladder fits | | | | | | | |`);
    continue;
  }
  const r = await train(config, recompute);
  console.error(JSON.stringify(r));
  rows.push(row(recompute ? 'recompute' : 'stored', r));
  // the recompute winner without a budget: what its memory-saving plan costs in time, and what storing needs
  if (recompute) rows.push(row('same GPT, stored', await train(config, false)));
}
for (const spec of (args.also as string).split(',').filter(Boolean)) {
  const [layers, width] = spec.split('x').map(Number);
  const c = configOf(layers, width);
  rows.push(row('stored (--also)', await train(c, false)));
  try {
    rows.push(row('recompute (--also)', await train(c, true)));
  } catch (e) {
    if (!(e instanceof MemoryBudgetError)) throw e;
    rows.push(`| recompute (--also) | ${name(c)}: ${e.message} | | | | | | | |`);
  }
}
const md = [
  `# Largest GPT within ${fmt(budget)} (${adapter})`,
  '',
  `\`memoryBudget.ts --budget ${args.budget} --ctx ${ctx} --batch ${batch} --head ${head} --layers ${args.layers} --widths ${args.widths}${args.also ? ` --also ${args.also}` : ''}\`, ${new Date().toISOString().slice(0, 10)}. ` +
    'Stored: the default plan (no budget) must fit by itself; recompute: `compileTraining({ memoryBudget })`. Bytes: ir\'s estimate and the runtime\'s ' +
    'allocation (which adds split-K scratch); step time: median of synced steps after one warm-up, loss read back each step.',
  '',
  '| mode | largest GPT (layers × width) | params | estimate | bytes allocated | recomputed operands | dispatches | step | loss |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
  'Bisection over the ladder (parameter count ascending):',
  ...notes,
  '',
].join('\n');
console.log(md);
if (args.out) writeFileSync(args.out as string, md);
device.destroy();

// `npx tsx --conditions=@neura/source src/tune.ts [--only gpt-6x384-ctx256-b64-adamw,...] [--squares 1024,2048]
// [--repeats 5] [--warmup-ms 30] [--clock gpu|wall] [--cache DIR] [--json FILE] [--compare] [--rounds 6]
// [--budget-s S] [--table FILE]`: the per-shape matmul autotuner on the matmul shapes of GPT training steps (after
// the e-graph's choices) and of square n x n x n products. Per shape the default (the heuristic), every fitting
// candidate (each checked, each run --warmup-ms before timing) and the winner are timed on this adapter and printed:
// default ms, winner ms, speedup. --json writes the adapter (key and info) and every shape's figures after each shape
// (a run cut short still leaves its table). --budget-s: shapes left when it has passed are skipped (listed).
// --compare then times the first GPT workload's step with the heuristic and with the tuned table (the shipped table
// off in both) in alternating rounds of 5 synced steps (--rounds), so a machine's drifting load hits both.
// --table FILE: no tuning, compare with FILE's `tuning` (a --json output). --cache DIR keeps choices per adapter.
// The device is created with exact (unquantized) timestamps. Measures; asserts nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compileTraining, GPT } from '@neura/nn';
import { fileTuningCache } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import { adapterKey, createDevice, matmulShapesOf, type ShapeTuning, tuneMatmul } from '@neura/runtime-webgpu';
import { type MatmulShape, type MatmulTuning, matmulShapeKey } from '@neura/wgsl-kernels';
import { GPT_WORKLOADS, gptBatches } from './workloads/gpt.js';
import { summarize } from './timing.js';
import { timeSyncedSteps } from './workloads/stepFigures.js';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'gpt-6x384-ctx256-b64-adamw' },
    squares: { type: 'string', default: '' },
    repeats: { type: 'string', default: '5' },
    clock: { type: 'string' },
    cache: { type: 'string' },
    json: { type: 'string' },
    compare: { type: 'boolean', default: false },
    'budget-s': { type: 'string' },
    table: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    'warmup-ms': { type: 'string', default: '30' },
  },
});
const device = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] }); // exact GPU timestamps
console.log(`device: ${device.name}; adapter key: ${adapterKey(device)}`);
const workloads = args.only
  .split(',')
  .filter(Boolean)
  .map((n) => {
    const w = GPT_WORKLOADS.find((x) => x.name === n);
    if (!w) throw new Error(`unknown workload ${n} (known: ${GPT_WORKLOADS.map((x) => x.name).join(', ')})`);
    return w;
  });
/** The workload's step with `matmulTuning` alone (no shipped table), or with the heuristic alone. */
const buildStep = (w: (typeof GPT_WORKLOADS)[number], matmulTuning?: MatmulTuning) => {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  return compileTraining(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device, shippedMatmulTuning: false, ...(matmulTuning ? { matmulTuning } : {}) });
};

// the shapes, each once, with the workloads they come from
const shapes = new Map<string, { shape: MatmulShape; from: string[] }>();
const add = (s: MatmulShape, from: string) => {
  const k = matmulShapeKey(s);
  if (!shapes.has(k)) shapes.set(k, { shape: s, from: [] });
  shapes.get(k)?.from.push(from);
};
for (const w of workloads) {
  const train = await buildStep(w);
  for (const s of matmulShapesOf(train.graph)) add(s, w.name);
  train.dispose();
}
for (const n of args.squares.split(',').filter(Boolean).map(Number)) add({ m: n, n, k: n, transA: false, transB: false, batches: 1 }, `square ${n}`);

const clock = args.clock === 'wall' || args.clock === 'gpu' ? args.clock : undefined;
const cache = args.cache ? fileTuningCache(args.cache) : undefined;
const rows: (ShapeTuning & { from: string[]; defaultMs?: number; bestMs?: number })[] = [];
const tuning: Record<string, string> = {};
if (args.table) {
  Object.assign(tuning, JSON.parse(readFileSync(args.table, 'utf8')).tuning);
  shapes.clear();
}
const t0 = performance.now();
let usedClock = '';
const write = () =>
  args.json && writeFileSync(args.json, `${JSON.stringify({ device: device.name, adapter: adapterKey(device), adapterInfo: device.adapterInfo, clock: usedClock, repeats: Number(args.repeats), tuning, shapes: rows }, null, 1)}\n`);
console.log('shape (MxNxK:trans:batches) | from | choice | default ms | best ms | speedup | best candidate | its ms | rejected');
const skipped: string[] = [];
for (const { shape, from } of shapes.values()) {
  if (args['budget-s'] && performance.now() - t0 > Number(args['budget-s']) * 1000) {
    skipped.push(matmulShapeKey(shape));
    continue;
  }
  const r = await tuneMatmul(device, [shape], { repeats: Number(args.repeats), warmupMs: Number(args['warmup-ms']), ...(clock ? { clock } : {}), ...(cache ? { cache } : {}) });
  usedClock = r.clock;
  const s = r.shapes[0];
  const def = s.timings.find((t) => t.name === 'default');
  const best = s.timings.find((t) => t.name === s.choice);
  const fastest = s.timings.filter((t) => t.ok && t.name !== 'default').sort((a, b) => a.msPerStep - b.msPerStep)[0];
  const rejected = s.timings.filter((t) => !t.ok && !t.why?.startsWith('does not fit')).map((t) => `${t.name}: ${t.why}`);
  const speed = def && best ? `${(def.msPerStep / best.msPerStep).toFixed(2)}x` : s.cached ? 'cached' : '';
  console.log(`${s.key} | ${from.join(', ')} | ${s.choice} | ${def?.msPerStep.toFixed(4) ?? ''} | ${best?.msPerStep.toFixed(4) ?? ''} | ${speed} | ${fastest?.name ?? ''} | ${fastest?.msPerStep.toFixed(4) ?? ''} | ${rejected.join('; ')}`);
  Object.assign(tuning, r.tuning);
  rows.push({ ...s, from, defaultMs: def?.msPerStep, bestMs: best?.msPerStep });
  write();
}
if (skipped.length) console.log(`budget spent: ${skipped.length} shapes not tuned: ${skipped.join(', ')}`);
console.log(`${shapes.size - skipped.length} shapes tuned in ${((performance.now() - t0) / 1000).toFixed(1)} s (${usedClock} clock)`);
console.log(`table: ${JSON.stringify(tuning)}`);

if (args.compare && workloads.length > 0) {
  const w = workloads[0];
  const batches = gptBatches(w);
  const sessions = { heuristic: await buildStep(w), tuned: await buildStep(w, tuning) };
  const samples: Record<string, number[]> = { heuristic: [], tuned: [] };
  for (const t of Object.values(sessions)) await timeSyncedSteps(t, batches, { steps: 1, warmup: 2, warmupMs: 500 });
  for (let round = 0; round < Number(args.rounds); round++)
    for (const [name, t] of Object.entries(sessions)) {
      const r = await timeSyncedSteps(t, batches, { steps: 5, warmup: 1 });
      samples[name].push(r.medianMs);
    }
  const figures: Record<string, unknown> = {};
  for (const [name, t] of Object.entries(sessions)) {
    const s = summarize(samples[name]);
    const gpu = device.features.has('timestamp-query') ? (await t.session.profile(batches[0])).summary().gpuMs : undefined;
    console.log(`${w.name} ${name}: synced ${s.medianMs.toFixed(3)} ms (median of ${s.samples} alternating rounds' medians; p10 ${s.p10Ms.toFixed(3)}, p90 ${s.p90Ms.toFixed(3)})${gpu === undefined ? '' : `, GPU ${gpu.toFixed(3)} ms`}, ${t.stats.dispatchesPerStep} dispatches`);
    figures[name] = { ...s, rounds: samples[name], gpuMs: gpu, dispatches: t.stats.dispatchesPerStep };
    t.dispose();
  }
  if (args.json) writeFileSync(args.json.replace(/\.json$/, '-step.json'), `${JSON.stringify({ workload: w.name, figures }, null, 1)}\n`);
}
device.destroy();

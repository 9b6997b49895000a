// Device entry (bundled to .devkit/NAME.mjs): tiled fp32 matmul variants on the GPT 6x384 step's matmul shapes and
// on squares 1024 / 2048 / 4096, wall clock per matmul: each variant runs ≥ --warm-ms of back-to-back steps first
// (the H200 reads up to 6x slow right after idle gaps: timestamps over 10 passes, taken after a compile, collapsed
// to ~6 TFLOP/s late in a process), then the median over 7 blocks of ~25 ms of steps, one sync per block (the
// bench's own matmul method, workloads/matmul.ts). Each variant forces one
// tiled configuration (`matmulKernel(spec, caps, [cfg])`: split-K and skinny decisions kept, with that tile);
// `default` is the shipped heuristic. `--toggles a,b` creates the device with those Dawn toggles (e.g.
// enable_integer_range_analysis_in_robustness), `--gpt` also times whole GPT 6x384 steps (synced, 10 steps) with the
// shipped generator. Every row is appended to `--out` as one JSON line as soon as it is measured (a timeout keeps
// what was done). Measures; asserts nothing. python/reference.py times cuBLAS on the same shapes.

import { appendFileSync } from 'node:fs';
import { Graph } from '@neura/ir';
import { parseArgs } from 'node:util';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { generateKernel, isSpecOf, type KernelGenerator, MATMUL_CONFIG_BY_NAME, type MatmulConfig, matmulKernel } from '@neura/wgsl-kernels';
import { GPT_WORKLOADS, timeGptWith } from './workloads/gpt.js';
import { GPT_MATMULS, type MatmulShape } from './workloads/kernels.js';
import { summarize } from './timing.js';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: 'matmul-variants.jsonl' },
    tag: { type: 'string', default: '' },
    toggles: { type: 'string', default: '' },
    configs: { type: 'string', default: '' },
    shapes: { type: 'string', default: '' },
    gpt: { type: 'boolean', default: false },
    'warm-ms': { type: 'string', default: '250' },
    squares: { type: 'string', default: '1024,2048' },
  },
});

const SQUARES: MatmulShape[] = args.squares.split(',').map(Number).map((n) => ({ name: `square-${n}`, m: n, n, k: n, transA: false, transB: false }));
const shapes = [...SQUARES, ...GPT_MATMULS].filter((s) => !args.shapes || args.shapes.split(',').some((x) => s.name.startsWith(x)));

/** A configuration by name (`128x64x16/8x8+u+db`), also one not in the candidate table (bench only). */
function configOf(name: string): MatmulConfig {
  const known = MATMUL_CONFIG_BY_NAME.get(name);
  if (known) return known;
  const m = /^(\d+)x(\d+)x(\d+)\/(\d+)x(\d+)((?:\+u|\+db|\+ka)*)$/.exec(name);
  if (!m) throw new Error(`matmulVariants: cannot read configuration name '${name}'`);
  const [bm, bn, bk, tm, tn] = m.slice(1, 6).map(Number);
  return { bm, bn, bk, tm, tn, minTiles: 0, unroll: m[6].includes('+u'), db: m[6].includes('+db'), ka: m[6].includes('+ka') };
}

/** Median ms per matmul of shape `s` under `gen` (wall clock, warmed; see the header) and the plan's dispatch labels. */
async function timeShape(s: MatmulShape, device: NeuraDevice, gen: KernelGenerator | undefined): Promise<{ ms: number; p10: number; p90: number; plan: string }> {
  const g = new Graph();
  const a = g.param('a', s.transA ? [s.k, s.m] : [s.m, s.k], { kind: 'uniform', low: -1, high: 1, seed: 1 });
  const b = g.param('b', s.transB ? [s.n, s.k] : [s.k, s.n], { kind: 'uniform', low: -1, high: 1, seed: 2 });
  g.output('c', g.matmul(a, b, { transA: s.transA, transB: s.transB }));
  const session = await compile(g, device, { label: s.name, ...(gen ? { generator: gen } : {}) });
  const plan = `${session.stats.dispatchesPerStep} dispatches`;
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < Number(args['warm-ms'])) {
    for (let i = 0; i < 5; i++) await session.step({});
    await session.sync();
    n += 5;
  }
  const per = Math.max(5, Math.min(100, Math.round((25 * n) / (performance.now() - t0))));
  const samples: number[] = [];
  for (let blk = 0; blk < 7; blk++) {
    const t1 = performance.now();
    for (let i = 0; i < per; i++) await session.step({});
    await session.sync();
    samples.push((performance.now() - t1) / per);
  }
  session.dispose();
  const t = summarize(samples);
  return { ms: t.medianMs, p10: t.p10Ms, p90: t.p90Ms, plan };
}

const forced = (cfg: MatmulConfig): KernelGenerator => (spec, caps) => (isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') ? matmulKernel(spec, caps, [cfg]) : generateKernel(spec, caps));
const variants: [string, KernelGenerator | undefined][] = [['default', undefined], ...args.configs.split(',').filter(Boolean).map((n): [string, KernelGenerator] => [n, forced(configOf(n))])];

const toggles = args.toggles.split(',').filter(Boolean);
const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization', ...(toggles.length ? [`enable-dawn-features=${toggles.join(',')}`] : [])] });
const tag = args.tag || (toggles.length ? toggles.join('+') : 'plain');
const put = (row: Record<string, unknown>) => appendFileSync(args.out, `${JSON.stringify({ tag, ...row })}\n`);
console.error(`[variants ${tag}] ${dev.name}; ${shapes.length} shapes x ${variants.length} variants`);

for (const s of shapes) {
  for (const [name, gen] of variants) {
    try {
      const r = await timeShape(s, dev, gen);
      const tflops = (2 * s.m * s.n * s.k) / (r.ms * 1e-3) / 1e12;
      put({ shape: s.name, variant: name, ...r, tflops });
      console.error(`[variants ${tag}] ${s.name} ${name}: ${r.ms.toFixed(4)} ms ${tflops.toFixed(1)} TF/s`);
    } catch (e) {
      put({ shape: s.name, variant: name, error: String(e).slice(0, 300) });
      console.error(`[variants ${tag}] ${s.name} ${name}: failed ${String(e).slice(0, 200)}`);
    }
  }
}
if (args.gpt) {
  const gpt = GPT_WORKLOADS.find((w) => w.name.startsWith('gpt-6x384')) as (typeof GPT_WORKLOADS)[number];
  const t = await timeGptWith(gpt, dev, generateKernel, { steps: 10, warmup: 3 });
  put({ shape: 'gpt-6x384-step', variant: 'default', ms: t.medianMs });
  console.error(`[variants ${tag}] gpt-6x384 step (synced, shipped kernels): ${t.medianMs.toFixed(3)} ms`);
}
dev.destroy();
process.exit(0);

// The GPT 6x384 step under `precision: 'mixed'` with the shipped subgroup-matrix tilings against the tilings they
// replaced (2x2 subgroups, no row padding), in one process, alternating A B A B so that a drift over the process's
// life (standalone kernel timings late in a process read slow) shows instead of favouring one side. The whole-step
// time is the figure that counts: the per-shape sweep (sgmSweep.ts) runs many kernels in one process.
//   node .devkit/mixed-tilings.mjs [--rounds 2] [--steps 30] [--out FILE]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { capsFor, createDevice } from '@neura/runtime-webgpu';
import { generateKernel, isSpecOf, type KernelGenerator, matmulProblemOf, type SubgroupMatrixTiling, subgroupMatrixPlan } from '@neura/wgsl-kernels';
import { GPT_WORKLOADS, timeGptWith } from './workloads/gpt.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' }, steps: { type: 'string', default: '30' }, out: { type: 'string' } } });
const log = (s: string) => console.error(`[mixed-tilings] ${s}`);
const dev = await createDevice({ mixedPrecision: true });
const caps = capsFor(dev, 'mixed');
const shape = caps.mixedMatmul;
if (!shape) throw new Error('mixed-tilings: no subgroup-matrix shape');

/** The tilings shipped before 2026-12-07 and their rule: the first with enough tiles, else the smallest. */
const BEFORE: readonly (SubgroupMatrixTiling & { minTiles: number })[] = [
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, minTiles: 256 },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, minTiles: 128 },
  { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, minTiles: 0 },
];
const before: KernelGenerator = (spec, c) => {
  if (!(isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') && c.mixedMatmul)) return generateKernel(spec, c);
  const p = matmulProblemOf(spec);
  const tiles = (t: SubgroupMatrixTiling) => Math.ceil(p.M / (t.sgm * t.fm * shape.m)) * Math.ceil((p.N * p.batches) / (t.sgn * t.fn * shape.n));
  const t = BEFORE.find((x) => tiles(x) >= x.minTiles) ?? BEFORE[BEFORE.length - 1];
  // a shape the shipped rule sends to the fp32 kernels (skinny, no tiling fits) keeps them
  const shipped = generateKernel(spec, c);
  if (!shipped.dispatches.some((d) => d.code.includes('subgroup_matrix'))) return shipped;
  return subgroupMatrixPlan(p, c, t) ?? shipped;
};

const w = GPT_WORKLOADS.find((x) => x.name.startsWith('gpt-6x384'));
if (!w) throw new Error('mixed-tilings: no gpt-6x384 workload');
const rows: { variant: string; round: number; medianMs: number; p10Ms: number }[] = [];
for (let round = 0; round < Number(args.rounds); round++)
  for (const [variant, gen] of [
    ['shipped (2x4/4x4/p8 …)', generateKernel],
    ['before (2x2/4x4 …, no pad)', before],
  ] as const) {
    const t = await timeGptWith(w, dev, gen, { steps: Number(args.steps), warmup: 5 }, 'mixed');
    rows.push({ variant, round, medianMs: t.medianMs, p10Ms: t.p10Ms });
    log(`round ${round} ${variant}: median ${t.medianMs.toFixed(3)} ms (p10 ${t.p10Ms.toFixed(3)})`);
  }
const doc = { adapter: dev.name, workload: w.name, rows };
if (args.out) writeFileSync(args.out, JSON.stringify(doc, null, 1));
console.log(JSON.stringify(doc));
dev.destroy();

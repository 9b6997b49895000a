// `--profile device` entry for the profiler (bundled to .devkit/profile.mjs): measures the DRAM bandwidth, then
// profiles one training step of each GPT workload (GPU timestamps per dispatch) and writes, per workload, the
// per-kernel roofline table (<name>-profile.md) and the Chrome/Perfetto trace (<name>-trace.json) into --out-dir.
// The synced step time (one pass, no timestamps) is measured beside it, so the table's share of GPU time can be
// read against the real step.

import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDevice, type Precision, type RooflineCeilings } from '@neura/runtime-webgpu';
import { measureBandwidth } from './bandwidth.js';
import { timeSyncedSteps } from './workloads/stepFigures.js';
import { buildGpt, GPT_WORKLOADS, timeGptWith } from './workloads/gpt.js';
import { generateKernel, isSpecOf, type KernelGenerator, MATMUL_CONFIGS, type MatmulConfig, matmulKernel } from '@neura/wgsl-kernels';
import { benchAttention, benchMatmulShape, FLASH_SWEEP, GPT_MATMULS, withFlashConfig } from './workloads/kernels.js';

/** H200 fp32 peak without tensor cores (datasheet, H200.md); the bandwidth is measured. */
const PEAK_FP32 = 67e12;

const { values: args } = parseArgs({ options: { precision: { type: 'string', default: 'fp32' }, 'out-dir': { type: 'string', default: '.' }, only: { type: 'string' }, top: { type: 'string', default: '45' }, kernels: { type: 'boolean', default: false }, sweep: { type: 'boolean', default: false }, 'sweep-gpt': { type: 'boolean', default: false }, autocast: { type: 'boolean' } } });
const outDir = args['out-dir'] as string;
mkdirSync(outDir, { recursive: true });
const log = (s: string) => console.error(`[profile] ${s}`);
// --precision mixed: the GPT steps under `precision: 'mixed'` (files named <workload>-mixed-…; the roofline's compute
// ceiling stays the fp32 peak, so read the FLOP column as a rate, not a fraction of the tensor cores)
const precision = args.precision as Precision;
if (precision !== 'fp32' && precision !== 'mixed') throw new Error(`--precision must be 'fp32' or 'mixed', got '${precision}'`);
// --autocast (with --precision mixed): activations stored as f16 (compileTraining's autocast: true); files tagged -autocast
const tag = precision === 'mixed' ? (args.autocast ? '-mixed-autocast' : '-mixed') : '';
const dev = await createDevice({ mixedPrecision: precision === 'mixed', dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
log(`adapter ${dev.name}; features ${[...dev.features].join(', ')}`);
const bw = await measureBandwidth(dev);
log(`copy bandwidth ${(bw.bytesPerSecond / 1e9).toFixed(0)} GB/s (${bw.medianMs.toFixed(3)} ms for ${bw.bytes / 2 ** 20} MiB)`);
const ceilings: RooflineCeilings = { flopsPerSecond: PEAK_FP32, bytesPerSecond: bw.bytesPerSecond };
const summary: Record<string, unknown> = { adapter: dev.adapterInfo, bandwidth: bw, peakFp32: PEAK_FP32 };

for (const w of GPT_WORKLOADS) {
  if (args.only && !args.only.split(',').some((o) => w.name.startsWith(o))) continue;
  const { train, batches } = await buildGpt(w, dev, precision, args.autocast);
  // the bench's loop and lengths (GPT: 50 steps after ≥ 1 s of warm-up, a new batch each step), so both report one figure
  const synced = await timeSyncedSteps(train, batches, { steps: 50, warmup: 5, warmupMs: 1000 });
  const profile = await train.session.profile(batches[0]);
  const s = profile.summary(ceilings);
  const table = profile.table({ top: Number(args.top), ceilings });
  const head = `# ${w.name}: per-kernel profile (${precision}, ${dev.name}, ${new Date().toISOString().slice(0, 10)})\n\nSynced step (one pass, no timestamps, the bench's loop): median ${synced.medianMs.toFixed(3)} ms over ${synced.samples} steps; ${train.stats.dispatchesPerStep} dispatches; timestamps ${profile.quantized ? 'QUANTIZED (Dawn timestamp_quantization)' : 'exact'}.\n\n`;
  writeFileSync(`${outDir}/${w.name}${tag}-profile.md`, `${head}${table}\n`);
  writeFileSync(`${outDir}/${w.name}${tag}-trace.json`, JSON.stringify(profile.trace()));
  log(`${w.name}: synced ${synced.medianMs.toFixed(3)} ms, GPU ${s.gpuMs.toFixed(3)} ms over ${s.dispatches} dispatches`);
  console.log(`\n## ${w.name}\n${head}${profile.table({ top: 25, ceilings })}`);
  summary[w.name] = { syncedMs: synced.medianMs, gpuMs: s.gpuMs, spanMs: s.spanMs, dispatches: s.dispatches, rows: s.rows.map((r) => ({ ...r, kernel: r.kernel && { ...r.kernel } })) };
  train.dispose();
}
if (args.kernels) {
  // kernel-level figures of the GPT step's shapes (GPU time, timestamps)
  const kernels: Record<string, unknown> = {};
  for (const m of GPT_MATMULS) {
    const r = await benchMatmulShape(m, dev);
    kernels[`matmul-${m.name}`] = r;
    log(`matmul ${m.name}: ${r.medianMs.toFixed(3)} ms, ${r.tflops?.toFixed(2)} TFLOP/s [${r.plan.slice(0, 120)}]`);
  }
  const a = await benchAttention(dev);
  kernels['attention-fwd-bwd-b64h6t256d64-causal'] = a;
  log(`attention fwd+bwd B64 H6 T256 D64 causal: ${a.medianMs.toFixed(3)} ms (${a.dispatches} dispatches: ${a.plan} = ${a.dispatchMs.map((x) => x.toFixed(3)).join(' + ')})`);
  summary.kernels = kernels;
}
if (args.sweep || args['sweep-gpt']) {
  // flash shapes on attention fwd+bwd (not with --sweep-gpt), then whole GPT steps with other tiled-matmul preferences
  const sweep: Record<string, unknown> = {};
  for (const cfg of args.sweep ? FLASH_SWEEP : []) {
    const key = `attention-fwd-bwd rows ${cfg.rows} tile ${cfg.tile}`;
    try {
      const r = await benchAttention(dev, undefined, 10, cfg);
      sweep[key] = r;
      log(`sweep ${key}: ${r.medianMs.toFixed(3)} ms [${r.dispatchMs.map((x) => x.toFixed(3)).join(' ')}]`);
    } catch (e) {
      sweep[key] = { error: String(e).slice(0, 200) };
    }
  }
  // whole GPT 6x384 steps with other tiled-matmul preferences (split-K and skinny decisions kept) and flash shapes
  const gpt = GPT_WORKLOADS.find((w) => w.name.startsWith('gpt-6x384')) as (typeof GPT_WORKLOADS)[number];
  const prefer = (first: MatmulConfig): KernelGenerator => {
    const list = [first, ...MATMUL_CONFIGS.slice(1)];
    return (spec, caps) => (isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') ? matmulKernel(spec, caps, list) : generateKernel(spec, caps));
  };
  const big = { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 256 } as const;
  const variants: [string, KernelGenerator][] = [
    ['shipped', generateKernel],
    ['matmul 128x64x16/8x8 k unrolled first', prefer({ ...big, unroll: true })],
    ['matmul 128x64x16/8x8 unrolled + double-buffered first', prefer({ ...big, unroll: true, db: true })],
    ['matmul 128x128x8/8x8 unrolled + double-buffered first', prefer({ bm: 128, bn: 128, bk: 8, tm: 8, tn: 8, minTiles: 256, unroll: true, db: true })],
    ['matmul 64x64x16/8x4 k unrolled (second)', (spec, caps) => (isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') ? matmulKernel(spec, caps, [{ ...big, unroll: true }, { ...MATMUL_CONFIGS[1], unroll: true }, ...MATMUL_CONFIGS.slice(2)]) : generateKernel(spec, caps))],
    ['shipped again (drift check)', generateKernel],
    ['matmul 128x64x8/8x8 first', prefer({ bm: 128, bn: 64, bk: 8, tm: 8, tn: 8, minTiles: 256 })],
    ['matmul 128x128x16/8x8 first', prefer({ bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 256 })],
    ['matmul 64x128x16/8x8 first', prefer({ bm: 64, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 256 })],
    ['flash rows 32 tile 32', withFlashConfig({ rows: 32, tile: 32 })],
    ['flash rows 128 tile 32', withFlashConfig({ rows: 128, tile: 32 })],
  ];
  for (const [name, gen] of variants) {
    try {
      const t = await timeGptWith(gpt, dev, gen, { steps: 10, warmup: 3 });
      sweep[`gpt-6x384 step, ${name}`] = t;
      log(`sweep gpt-6x384 step, ${name}: ${t.medianMs.toFixed(3)} ms`);
    } catch (e) {
      sweep[`gpt-6x384 step, ${name}`] = { error: String(e).slice(0, 300) };
      log(`sweep gpt-6x384 step, ${name}: failed ${String(e).slice(0, 200)}`);
    }
  }
  summary.sweep = sweep;
}
writeFileSync(`${outDir}/profile-summary.json`, JSON.stringify(summary));
dev.destroy();
process.exit(0);

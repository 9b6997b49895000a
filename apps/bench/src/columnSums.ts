// `columnSums` device entry (bundled to .devkit/colsum.mjs): column reductions [rows, cols] → [cols] (the GPT
// step's bias gradients and layer-norm dγ/dβ) in their two forms, the one-pass column strips (several geometries)
// and the two-pass split (partials over chunks of rows, then one combine for every result), as GPU time per
// reduction and fraction of the measured DRAM copy bandwidth; then the GPT 6x384 step (synced, dispatches, the
// in-step time of its column reductions) as shipped and with every columns reduction forced to two passes.
// Each timed graph reduces enough copies of its input (> 2x the H200's 50 MB L2) that a dispatch never re-reads
// what the previous one left in L2. Writes one JSON summary and a markdown table into --out-dir.

import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Graph, type PwExpr } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import {
  type ColumnsForm,
  COLUMN_STRIPS,
  generateKernel,
  isSpecOf,
  type KernelGenerator,
  pointwiseReduceKernel,
  pointwiseReduceMultiKernel,
  reduceKernel,
} from '@neura/wgsl-kernels';
import { measureBandwidth } from './bandwidth.js';
import { buildGpt, GPT_WORKLOADS, timeGptWith } from './workloads/gpt.js';
import { timeSyncedSteps } from './workloads/stepFigures.js';

const { values: args } = parseArgs({ options: { 'out-dir': { type: 'string', default: '.' }, rows: { type: 'string', default: '16384' }, cols: { type: 'string', default: '64,128,256,384,1152,1536' }, 'skip-gpt': { type: 'boolean', default: false }, dry: { type: 'boolean', default: false }, repeats: { type: 'string', default: '20' } } });
const outDir = args['out-dir'] as string;
mkdirSync(outDir, { recursive: true });
const log = (s: string) => console.error(`[colsum] ${s}`);

/** Every columns reduction planned in `columns` form; everything else as shipped. */
const withColumns =
  (columns: ColumnsForm): KernelGenerator =>
  (spec, caps) =>
    isSpecOf(spec, 'sum', 'mean', 'reduceMax', 'reduceMin')
      ? reduceKernel(spec, caps, columns)
      : isSpecOf(spec, 'pointwiseReduce')
        ? pointwiseReduceKernel(spec, caps, columns)
        : isSpecOf(spec, 'pointwiseReduceMulti')
          ? pointwiseReduceMultiKernel(spec, caps, columns)
          : generateKernel(spec, caps);

const FORMS: [string, ColumnsForm][] = [
  ['split (2 passes)', { form: 'split' }],
  [`strips ${COLUMN_STRIPS.strip}/${COLUMN_STRIPS.threads} (shipped)`, { form: 'strips' }],
  ['strips 8/256', { form: 'strips', strips: { strip: 8, threads: 256 } }],
  ['strips 4/1024', { form: 'strips', strips: { strip: 4, threads: 1024 } }],
  ['strips 16/1024', { form: 'strips', strips: { strip: 16, threads: 1024 } }],
];

type Kind = 'sum' | 'pointwiseReduce' | 'pointwiseReduceMulti';
const I = (index: number): PwExpr => ({ op: 'in', index });
const MUL: PwExpr = { op: 'mul', a: I(0), b: I(1) };

/** A graph of `copies` independent column reductions of `kind` over [rows, cols]; bytes each reads. */
function graphOf(kind: Kind, rows: number, cols: number, copies: number): { g: Graph; bytes: number } {
  const g = new Graph();
  const shape = [rows, cols];
  const init = (seed: number) => ({ kind: 'uniform' as const, low: -1, high: 1, seed });
  for (let c = 0; c < copies; c++) {
    const a = g.param(`a${c}`, shape, init(2 * c + 1));
    if (kind === 'sum') g.output(`y${c}`, g.sum(a, 0));
    else {
      const b = g.param(`b${c}`, shape, init(2 * c + 2));
      if (kind === 'pointwiseReduce') g.output(`y${c}`, g.node('pointwiseReduce', [a, b], { expr: MUL, shape, reduce: 'sum', axes: [0], keepdims: false, post: I(0) }));
      else {
        // a layer norm's dβ = Σ dY and dγ = Σ dY·x̂ from one read
        const m = g.node('pointwiseReduceMulti', [a, b], { results: [{ expr: I(0), post: I(0) }, { expr: MUL, post: I(0) }], shape, reduce: 'sum', axes: [0], keepdims: false });
        g.output(`y${c}`, m);
        g.output(`z${c}`, g.node('pick', [m], { index: 1 }));
      }
    }
  }
  return { g, bytes: rows * cols * 4 * (kind === 'sum' ? 1 : 2) };
}

/** GPU ms per reduction (median over repeats of the step's total / copies) and its dispatches. */
async function timeForm(dev: NeuraDevice, kind: Kind, rows: number, cols: number, columns: ColumnsForm, repeats: number) {
  const one = rows * cols * 4 * (kind === 'sum' ? 1 : 2);
  const copies = Math.max(2, Math.ceil(160e6 / one));
  const { g, bytes } = graphOf(kind, rows, cols, copies);
  const session = await compile(g, dev, { label: `colsum-${kind}-${cols}`, generator: withColumns(columns) });
  const n = session.stats.dispatchesPerStep;
  if (args.dry) {
    // adapters without timestamps: compile and run once (the bundle's smoke test)
    await session.step({});
    session.dispose();
    return { ms: 1, minMs: 1, bytes, dispatches: n / copies, labels: [] };
  }
  const p = await session.profile({}, { repeats: repeats + 3 });
  const per: number[] = [];
  for (let r = 3; r < repeats + 3; r++) {
    let t = 0;
    for (let i = 0; i < n; i++) t += (p.timings[r * n + i].endNs - p.timings[r * n + i].startNs) * 1e-6;
    per.push(t / copies);
  }
  per.sort((x, y) => x - y);
  const labels = p.timings.slice(0, n / copies).map((t) => t.label.replace(/#.*/, ''));
  session.dispose();
  return { ms: per[Math.floor(per.length / 2)], minMs: per[0], bytes, dispatches: n / copies, labels };
}

const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
log(`adapter ${dev.name}`);
const bw = args.dry ? { bytesPerSecond: 1e9 } : await measureBandwidth(dev);
log(`copy bandwidth ${(bw.bytesPerSecond / 1e9).toFixed(0)} GB/s`);
const summary: Record<string, unknown> = { adapter: dev.adapterInfo, date: new Date().toISOString(), copyBytesPerSecond: bw.bytesPerSecond };
const md: string[] = [];
const repeats = Number(args.repeats);

// the GPT step first: a fresh process's figures (standalone timings late in a process read slow)
if (!args['skip-gpt'] && !args.dry) {
  const w = GPT_WORKLOADS.find((x) => x.name.startsWith('gpt-6x384')) as (typeof GPT_WORKLOADS)[number];
  const { train, batches } = await buildGpt(w, dev);
  const synced = await timeSyncedSteps(train, batches, { steps: 50, warmup: 5, warmupMs: 1000 });
  const profile = await train.session.profile(batches[0]);
  const s = profile.summary({ flopsPerSecond: 67e12, bytesPerSecond: bw.bytesPerSecond });
  const columnRows = s.rows.filter((r) => /^(sum|pointwiseReduce|pointwiseReduceMulti)\[\d+x(\d+)->\2(x\d+)?\]/.test(r.label));
  const columnMs = columnRows.reduce((a, r) => a + r.ms, 0);
  const columnDispatches = columnRows.reduce((a, r) => a + r.dispatches, 0);
  const byClass = new Map<string, { n: number; ms: number; dispatches: number }>();
  for (const r of columnRows) {
    const k = r.label.replace(/[:#].*$/, '');
    const e = byClass.get(k) ?? { n: 0, ms: 0, dispatches: 0 };
    byClass.set(k, { n: e.n + 1, ms: e.ms + r.ms, dispatches: e.dispatches + r.dispatches });
  }
  const split = await timeGptWith(w, dev, withColumns({ form: 'split' }), { steps: 20, warmup: 5 });
  const shipped = await timeGptWith(w, dev, generateKernel, { steps: 20, warmup: 5 });
  log(`gpt-6x384: synced ${synced.medianMs.toFixed(3)} ms, ${train.stats.dispatchesPerStep} dispatches; GPU ${s.gpuMs.toFixed(3)} ms; column reductions ${columnMs.toFixed(3)} ms in ${columnDispatches} dispatches; compile() A/B: shipped ${shipped.medianMs.toFixed(3)} ms, columns forced split ${split.medianMs.toFixed(3)} ms`);
  summary.gpt = { syncedMs: synced.medianMs, dispatches: train.stats.dispatchesPerStep, gpuMs: s.gpuMs, columnMs, columnDispatches, byClass: Object.fromEntries(byClass), abShippedMs: shipped.medianMs, abSplitMs: split.medianMs };
  md.push(`## GPT 6x384 step (${w.name})\n`);
  md.push(`Synced ${synced.medianMs.toFixed(3)} ms (median of ${synced.samples}), ${train.stats.dispatchesPerStep} dispatches, GPU ${s.gpuMs.toFixed(3)} ms (one profiled step).`);
  md.push(`Column reductions in the step: ${columnMs.toFixed(3)} ms over ${columnDispatches} dispatches.`);
  md.push(`Same step through compile(), 20 synced steps each: shipped ${shipped.medianMs.toFixed(3)} ms; every columns reduction forced to two passes ${split.medianMs.toFixed(3)} ms.\n`);
  md.push('| kernel | count | dispatches | total ms | µs each | GB/s each | of copy BW |');
  md.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [k, e] of byClass) {
    const m = /\[(\d+)x(\d+)->/.exec(k);
    const bytes = m ? Number(m[1]) * Number(m[2]) * 4 * (k.startsWith('sum') ? 1 : 2) : 0;
    const each = e.ms / e.n;
    md.push(`| ${k} | ${e.n} | ${e.dispatches} | ${e.ms.toFixed(3)} | ${(each * 1e3).toFixed(1)} | ${(bytes / (each * 1e-3) / 1e9).toFixed(0)} | ${((bytes / (each * 1e-3) / bw.bytesPerSecond) * 100).toFixed(0)}% |`);
  }
  md.push('');
  train.dispose();
}

// standalone forms
const rows = Number(args.rows);
const kernels: Record<string, unknown> = {};
md.push(`## Column reductions alone (${rows} rows; GPU µs per reduction, fraction of the ${(bw.bytesPerSecond / 1e9).toFixed(0)} GB/s copy)\n`);
md.push(`| reduction | ${FORMS.map(([n]) => n).join(' | ')} |`);
md.push(`| --- | ${FORMS.map(() => '---:').join(' | ')} |`);
const shapes: [Kind, number][] = [
  ...(args.cols as string).split(',').map((c): [Kind, number] => ['sum', Number(c)]),
  ['pointwiseReduce', 384],
  ['pointwiseReduceMulti', 384],
];
for (const [kind, cols] of shapes) {
  const cells: string[] = [];
  for (const [name, columns] of FORMS) {
    const key = `${kind}[${rows}x${cols}] ${name}`;
    try {
      const r = await timeForm(dev, kind, rows, cols, columns, repeats);
      const frac = r.bytes / (r.ms * 1e-3) / bw.bytesPerSecond;
      kernels[key] = { ...r, fraction: frac };
      cells.push(`${(r.ms * 1e3).toFixed(1)} µs, ${(frac * 100).toFixed(0)}% (${r.dispatches})`);
      log(`${key}: ${(r.ms * 1e3).toFixed(1)} µs, ${(frac * 100).toFixed(0)}% of copy BW, ${r.dispatches} dispatches [${r.labels.join(' + ')}]`);
    } catch (e) {
      kernels[key] = { error: String(e).slice(0, 300) };
      cells.push('failed');
      log(`${key}: failed ${String(e).slice(0, 200)}`);
    }
  }
  md.push(`| ${kind}[${rows}x${cols}] | ${cells.join(' | ')} |`);
}
summary.kernels = kernels;
writeFileSync(`${outDir}/colsum-summary.json`, JSON.stringify(summary, null, 1));
writeFileSync(`${outDir}/colsum.md`, `${md.join('\n')}\n`);
console.log(md.join('\n'));
dev.destroy();
process.exit(0);

// Convolutions, direct loops vs implicit GEMM, on the ResNet-8 b128 Adam training step (workloads/cnn.ts's model,
// shapes and feeds): per variant the synced step time (the bench's loop), the dispatch count, the loss after one
// step (both variants must agree) and each conv dispatch's GPU time from the profiler's timestamps; then the
// per-conv-kernel table, old beside new. Bundled to .devkit/conv-bench.mjs for the GPU machine; prints JSON last.
// With --sweep, the step again with each implicit-GEMM tile forced on every conv, and the per-kernel table by tile.
//   node .devkit/conv-bench.mjs [--steps 50] [--repeats 5] [--batch 128] [--sweep] [--out conv-bench.json]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { optimize } from '@neura/egraph';
import { Graph } from '@neura/ir';
import { buildTrainingStep, SmallResNet } from '@neura/nn';
import { adam } from '@neura/optim';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { CONV_GEMM_OPS, type ConvPath, type ConvTile, convKernelWith, generateKernel, isSpecOf, type KernelGenerator } from '@neura/wgsl-kernels';
import { timeSessionSteps } from './timing.js';
import { feedBatches } from './workloads/stepFigures.js';

const { values: args } = parseArgs({
  options: { steps: { type: 'string', default: '50' }, repeats: { type: 'string', default: '5' }, sweep: { type: 'boolean', default: false }, batch: { type: 'string', default: '128' }, out: { type: 'string' } },
});
const batch = Number(args.batch);
const log = (s: string) => console.error(`[conv-bench] ${s}`);

/** Tiles the sweep forces (BM x BN x BK / TM x TN): the shipped ones (convGemm.ts CONV_TILES) and BK = 32. */
const SWEEP: ConvTile[] = [
  [64, 128, 16, 8, 8], [32, 128, 16, 4, 8], [16, 128, 16, 4, 4], [64, 64, 16, 8, 4], [32, 64, 16, 4, 8], [16, 64, 16, 4, 4],
  [64, 128, 32, 8, 8], [32, 128, 32, 4, 8], [16, 128, 32, 4, 4], [16, 256, 16, 4, 8],
].map(([bm, bn, bk, tm, tn]) => ({ bm, bn, bk, tm, tn }));
const tileName = (t: ConvTile) => `${t.bm}x${t.bn}x${t.bk}/${t.tm}x${t.tn}`;

/** The step's generator with the conv ops on `path` (every other op as shipped), the GEMM's tile forced with `tile`. */
const generatorOn = (path: ConvPath, tile?: ConvTile): KernelGenerator => {
  const conv = convKernelWith(path, tile);
  return (spec, caps) => (isSpecOf(spec, ...CONV_GEMM_OPS) ? conv(spec, caps) : generateKernel(spec, caps));
};

interface VariantFigures {
  path: ConvPath;
  tile?: string;
  medianMs: number;
  p10Ms: number;
  dispatches: number;
  loss: number;
  gpuMs: number;
  convGpuMs: number;
  /** Per conv dispatch label (in step order): GPU ms per step. */
  convKernels: Record<string, number>;
}

async function runVariant(dev: NeuraDevice, path: ConvPath, tile?: ConvTile): Promise<VariantFigures> {
  const model = new SmallResNet();
  const g = new Graph();
  const loss = g.crossEntropy(model.forward(g, g.input('x', [batch, 1, 28, 28])), g.input('labels', [batch], 'i32'));
  buildTrainingStep(g, { loss, optimizer: adam({ lr: 1e-3 }) });
  const { graph } = optimize(g, { limits: dev.caps });
  const session = await compile(graph, dev, { label: `resnet8-b${batch}-conv-${path}`, generator: generatorOn(path, tile) });
  const batches = feedBatches(4, (b) => ({
    x: Float32Array.from({ length: batch * 784 }, (_, i) => Math.sin(i * 0.37 + b)),
    labels: Int32Array.from({ length: batch }, (_, i) => (i * 7 + b) % 10),
  }));
  // the loss of the third step (same graph, same initial weights: both variants must agree to rounding)
  await session.step(batches[0]);
  await session.step(batches[1]);
  await session.step(batches[2]); // its loss depends on two steps' gradients (Adam's first update is about sign(g) only)
  const first = (await session.read('loss')).data[0];
  const t = await timeSessionSteps(session, batches, Number(args.steps), 10);
  const repeats = Number(args.repeats);
  // per-dispatch GPU time where the adapter has timestamps (software adapters do not: then step times only)
  const timings = dev.features.has('timestamp-query') ? (await session.profile(batches[0], { repeats })).timings : [];
  const convKernels: Record<string, number> = {};
  let gpuNs = 0;
  for (const d of timings) {
    const ns = d.endNs - d.startNs;
    gpuNs += ns;
    if (/^conv2d/.test(d.label)) convKernels[d.label] = (convKernels[d.label] ?? 0) + ns / 1e6 / repeats;
  }
  const dispatches = session.stats.dispatchesPerStep;
  session.dispose();
  const convGpuMs = Object.values(convKernels).reduce((a, b) => a + b, 0);
  const r = { path, ...(tile ? { tile: tileName(tile) } : {}), medianMs: t.medianMs, p10Ms: t.p10Ms, dispatches, loss: first, gpuMs: gpuNs / 1e6 / repeats, convGpuMs, convKernels };
  log(`${path}${tile ? ` ${tileName(tile)}` : ''}: step ${t.medianMs.toFixed(3)} ms (p10 ${t.p10Ms.toFixed(3)}), ${dispatches} dispatches, GPU ${r.gpuMs.toFixed(3)} ms of which conv ${convGpuMs.toFixed(3)} ms, first loss ${first}`);
  return r;
}

const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
log(`adapter ${dev.name}`);
const variants: VariantFigures[] = [];
for (const path of ['direct', 'auto', 'direct', 'auto'] as const) variants.push(await runVariant(dev, path));
const [oldV, newV] = [variants[2], variants[3]]; // the second round: clocks settled
// the per-kernel table: conv dispatches of both variants matched by op and shape (labels differ in their suffix)
const key = (label: string) => label.replace(/:.*$/, '');
const rows = new Map<string, { old: number; new: number; newLabels: string[] }>();
for (const [label, ms] of Object.entries(oldV.convKernels)) {
  const r = rows.get(key(label)) ?? { old: 0, new: 0, newLabels: [] };
  r.old += ms;
  rows.set(key(label), r);
}
for (const [label, ms] of Object.entries(newV.convKernels)) {
  const r = rows.get(key(label)) ?? { old: 0, new: 0, newLabels: [] };
  r.new += ms;
  r.newLabels.push(label);
  rows.set(key(label), r);
}
const table = [
  `| conv kernel (op[output shape]) | direct ms | implicit GEMM ms | speed-up | GEMM dispatches |`,
  `| --- | ---: | ---: | ---: | --- |`,
  ...[...rows].map(([k, r]) => `| ${k} | ${r.old.toFixed(4)} | ${r.new.toFixed(4)} | ${(r.old / r.new).toFixed(2)}x | ${r.newLabels.join(', ')} |`),
  `| **all conv dispatches** | ${oldV.convGpuMs.toFixed(3)} | ${newV.convGpuMs.toFixed(3)} | ${(oldV.convGpuMs / newV.convGpuMs).toFixed(2)}x | |`,
].join('\n');
const summary = `ResNet-8 b${batch} Adam step on ${dev.name}: direct ${oldV.medianMs.toFixed(3)} ms (${oldV.dispatches} dispatches), implicit GEMM ${newV.medianMs.toFixed(3)} ms (${newV.dispatches} dispatches); third-step loss ${oldV.loss} vs ${newV.loss}`;
console.log(`\n${summary}\n\n${table}\n`);
const sweep: VariantFigures[] = [];
if (args.sweep) {
  for (const tile of SWEEP) {
    try {
      sweep.push(await runVariant(dev, 'gemm', tile));
    } catch (e) {
      log(`gemm ${tileName(tile)}: failed ${String(e).slice(0, 200)}`);
    }
  }
  const keys = [...new Set(sweep.flatMap((v) => Object.keys(v.convKernels).map(key)))];
  const per = (v: VariantFigures, k: string) => Object.entries(v.convKernels).reduce((t, [l, ms]) => (key(l) === k ? t + ms : t), 0);
  console.log(
    [
      `| conv kernel | direct | shipped rule | ${sweep.map((v) => v.tile).join(' | ')} |`,
      `| --- | ---: | ---: | ${sweep.map(() => '---:').join(' | ')} |`,
      ...keys.map((k) => `| ${k} | ${(rows.get(k)?.old ?? 0).toFixed(4)} | ${(rows.get(k)?.new ?? 0).toFixed(4)} | ${sweep.map((v) => per(v, k).toFixed(4)).join(' | ')} |`),
      `| step ms | ${oldV.medianMs.toFixed(3)} | ${newV.medianMs.toFixed(3)} | ${sweep.map((v) => v.medianMs.toFixed(3)).join(' | ')} |`,
    ].join('\n'),
  );
}
const json = JSON.stringify({ adapter: dev.adapterInfo, batch, variants, sweep, summary });
if (args.out) writeFileSync(args.out, json);
console.log(json);
dev.destroy();
process.exit(0);

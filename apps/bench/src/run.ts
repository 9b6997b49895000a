// `pnpm bench` (quick local pass, software adapter) and the H200 bundle's entry (`--profile device`): runs
// neura's workloads on the current WebGPU adapter and prints one JSON document (or writes it with --out).
// The PyTorch side (python/reference.py) runs in the same device command; report.ts joins both.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { capsFor, createDevice, PrecisionError } from '@neura/runtime-webgpu';
import { nullGpu } from './nullGpu.js';
import { benchEgraphSaturation } from './egraphSaturation.js';
import { benchCnn, CNN_WORKLOADS } from './workloads/cnn.js';
import { benchMatmul } from './workloads/matmul.js';
import { benchMatmulShape } from './workloads/kernels.js';
import { benchGpt, buildGpt, GPT_WORKLOADS } from './workloads/gpt.js';
import { benchMlp, MLP_WORKLOADS } from './workloads/mlp.js';
import { stepFigures, type SyncedTiming, timeSyncedSteps } from './workloads/stepFigures.js';

const USAGE = `pnpm bench [options]: neura's workloads on this machine's WebGPU adapter, one JSON document out
  --profile local|device  local: small sizes for the software adapter (default); device: the GPU machine's sizes
  --out FILE              write the JSON there instead of printing it
  --only a,b              run only workloads whose names start with one of these (matmul, mlp, gpt, cnn, egraph, …)
  --phases                split each synced step's host time into phases (feeds, encode, submit, …)
  --null-device           Dawn's null backend: no GPU work, every figure is host time
  --help                  this text`;

const args = (() => {
  try {
    return parseArgs({
      options: {
        profile: { type: 'string', default: 'local' },
        out: { type: 'string' },
        only: { type: 'string' },
        phases: { type: 'boolean', default: false },
        'null-device': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
})();
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.profile !== 'local' && args.profile !== 'device') {
  console.error(`--profile must be 'local' or 'device', got '${args.profile}'\n\n${USAGE}`);
  process.exit(2);
}
const device = args.profile === 'device';
const only = args.only?.split(',');
const want = (name: string) => !only || only.some((o) => name.startsWith(o));

// --null-device: Dawn's null backend, which runs no GPU work: every figure is host time (feeds, encoding, submit)
const dev = args['null-device'] ? await createDevice({ gpu: await nullGpu() }) : await createDevice();
const log = (s: string) => console.error(`[bench] ${s}`);
// --phases: where the host time of each synced step goes (hostPhases.ts)
const phases = args.phases ? dev : undefined;
const phaseText = (r: { synced: SyncedTiming }) =>
  r.synced.phases ? ` [${Object.entries(r.synced.phases).map(([k, v]) => `${k} ${k === 'samples' ? v : v.toFixed(3)}`).join(', ')}]` : '';
log(`adapter ${dev.name}`);
const results: Record<string, unknown> = {};

if (want('matmul')) {
  for (const n of device ? [1024, 2048, 4096] : [128, 256]) {
    const r = await benchMatmul(n, dev, device ? { blocks: 10, perBlock: n >= 4096 ? 5 : 20 } : { blocks: 3, perBlock: 2 });
    log(`matmul ${n}: ${r.medianMs.toFixed(3)} ms, ${r.tflops.toFixed(2)} TFLOP/s`);
    results[`matmul-${n}`] = r;
  }
}
for (const w of MLP_WORKLOADS) {
  if (!want(w.name)) continue;
  const r = await benchMlp(w, dev, { ...(device ? { steps: 300, warmup: 30, warmupMs: 1000, blocks: 10 } : { steps: 20, warmup: 3, blocks: 2 }), phases });
  log(`${w.name}: synced ${r.synced.medianMs.toFixed(3)} ms, pipelined ${r.pipelined.medianMs.toFixed(3)} ms, ${r.dispatchesPerStep} dispatches${phaseText(r)}`);
  results[w.name] = r;
}
for (const w of GPT_WORKLOADS) {
  if (!want(w.name) || (!device && w.config.width > 128)) continue;
  try {
    const r = await benchGpt(w, dev, { ...(device ? { steps: 50, warmup: 5, warmupMs: 1000 } : { steps: 2, warmup: 1 }), phases });
    log(`${w.name}: synced ${r.synced.medianMs.toFixed(3)} ms, ${r.dispatchesPerStep} dispatches, compile ${r.compileMs.toFixed(0)} ms${phaseText(r)}`);
    results[w.name] = r;
  } catch (e) {
    log(`${w.name}: failed: ${e instanceof Error ? e.message : String(e)}`);
    results[w.name] = { error: String(e).slice(0, 500) };
  }
}
for (const w of CNN_WORKLOADS) {
  if (!want(w.name) || (!device && w.model !== 'lenet')) continue;
  try {
    const r = await benchCnn(w, dev, { ...(device ? { steps: 100, warmup: 10, warmupMs: 1000 } : { steps: 2, warmup: 1 }), phases });
    log(`${w.name}: synced ${r.synced.medianMs.toFixed(3)} ms, ${r.dispatchesPerStep} dispatches, compile ${r.compileMs.toFixed(0)} ms${phaseText(r)}`);
    results[w.name] = r;
  } catch (e) {
    log(`${w.name}: failed: ${e instanceof Error ? e.message : String(e)}`);
    results[w.name] = { error: String(e).slice(0, 500) };
  }
}
// precision: 'mixed' (f16 matmul operands on tensor cores, f32 accumulation) where the adapter offers subgroup
// matrices: a second device made with the Dawn toggles that expose them, after the fp32 rows (which keep their own
// device); rows under results.mixed. Each GPT row has its losses over 20 steps on batch 0 (the first is comparable
// with the fp32 row's `firstLoss`: same initial weights, same batch).
if (!args['null-device'] && (want('matmul-4096') || GPT_WORKLOADS.some((w) => want(w.name)))) {
  const mixed: Record<string, unknown> = {};
  results.mixed = mixed;
  const mdev = await createDevice({ mixedPrecision: true });
  try {
    capsFor(mdev, 'mixed');
    if (want('matmul-4096')) {
      // the step's form: f16 operands in memory (autocast's f16 activations), f32 result, GPU time of the kernel
      // (f32 params would time a path that rounds 16-byte f32 loads, which no activation product of the step takes)
      const n = device ? 4096 : 256;
      const r = await benchMatmulShape({ name: `square-${n}`, m: n, n, k: n, transA: false, transB: false }, mdev, device ? 20 : 3, undefined, 'mixed', undefined, 'f16');
      log(`matmul ${n} mixed (f16 operands, GPU time): ${r.medianMs.toFixed(3)} ms, ${r.tflops?.toFixed(2)} TFLOP/s, ${r.plan}`);
      mixed[`matmul-${n}`] = { n, operands: 'f16', timing: 'gpu', ...r };
    }
    for (const w of GPT_WORKLOADS) {
      if (!want(w.name) || (!device && w.config.width > 128)) continue;
      try {
        const t0 = performance.now();
        const { train, batches } = await buildGpt(w, mdev, 'mixed');
        const losses: number[] = [];
        for (let i = 0; i < 20; i++) losses.push(await train.step(batches[0], { readLoss: true }));
        const compileAndTrainMs = performance.now() - t0;
        const synced = await timeSyncedSteps(train, batches, device ? { steps: 50, warmup: 5, warmupMs: 1000 } : { steps: 2, warmup: 1 });
        log(`${w.name} mixed: synced ${synced.medianMs.toFixed(3)} ms, ${train.stats.dispatchesPerStep} dispatches, losses ${losses[0].toFixed(4)} → ${losses[losses.length - 1].toFixed(4)}`);
        mixed[w.name] = { synced, losses, compileAndTrainMs, ...stepFigures(train) };
        train.dispose();
      } catch (e) {
        log(`${w.name} mixed: failed: ${e instanceof Error ? e.message : String(e)}`);
        mixed[w.name] = { error: String(e).slice(0, 500) };
      }
    }
  } catch (e) {
    if (!(e instanceof PrecisionError)) throw e;
    log(`mixed precision not offered here: ${e.message}`);
    mixed.unavailable = e.message;
  } finally {
    mdev.destroy();
  }
}
if (want('egraph')) {
  const r = await benchEgraphSaturation();
  log(`egraph saturation: ${Math.round(r.enodesPerSecond)} e-nodes/s`);
  results['egraph-saturation'] = r;
}

const doc = {
  framework: 'neura',
  date: new Date().toISOString(),
  node: process.version,
  adapter: dev.adapterInfo,
  adapterName: dev.name,
  profile: args.profile,
  results,
};
const text = JSON.stringify(doc);
if (args.out) writeFileSync(args.out, text);
else console.log(text);
dev.destroy();
process.exit(0);

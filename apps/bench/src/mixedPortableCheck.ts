// The portable path of `precision: 'mixed'` (`shader-f16` without subgroup matrices, as browsers offer it) on a GPU:
// the device is made with the Dawn toggle that exposes f16 on NVIDIA Vulkan but without asking for the experimental
// subgroup-matrix feature, so mixed runs as f16 storage read by the fp32 tiled kernels (f32 accumulation). Checks
// (shared with mixedF16Check.ts, f16Checks.ts): f16 kernels of every matmul form, and the GPT 2x128 autocast training
// graph's loss and gradients, against the interpreter on the same f16-policy graphs; then compileTraining's default
// mixed step (GPT 2x128: losses over steps against fp32) and GPT 6x384 synced step times, fp32 vs portable mixed.
// Prints a JSON summary (exit 1 when a check fails). Bundle and run:
//   node .devkit/mixed-portable.mjs [--out=FILE] [--steps=N] [--only=kernels,gpt-2x128,train,timing]
// `--null-device` runs every code path on Dawn's null backend (shader-f16, no subgroup matrices, nothing computed):
// a smoke test of the bundle on a machine without such a GPU; its numbers are garbage.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compileTraining, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, createDevice, mixedPath, type NeuraDevice, type Precision, SUBGROUP_MATRIX_FEATURE, tensorCoreShortfall } from '@neura/runtime-webgpu';
import { nullGpu } from './nullGpu.js';
import { f16KernelChecks, gptAutocastCheck, gptStepTimes } from './f16Checks.js';
import { gptBatches, GPT_WORKLOADS, MIXED_LOSS_SCALE } from './workloads/gpt.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, steps: { type: 'string', default: '30' }, only: { type: 'string' }, 'null-device': { type: 'boolean' } } });
const want = (x: string) => !args.only || args.only.split(',').some((o) => x.startsWith(o));
const log = (s: string) => console.error(`[mixed-portable] ${s}`);
const results: Record<string, unknown> = {};
const save = () => {
  if (args.out) writeFileSync(args.out, JSON.stringify(results, null, 1));
};
const finish = (code: number) => {
  console.log(JSON.stringify(results, null, 1));
  save();
  process.exit(code);
};

// shader-f16 without the subgroup-matrix feature: not `mixedPrecision: true` (which requests it). Dawn may want
// allow_unsafe_apis for the f16 toggle; with it the adapter offers subgroup matrices, but the device is not given them.
const f16Toggle = 'vulkan_enable_f16_on_nvidia';
let dev: NeuraDevice = args['null-device']
  ? await createDevice({ gpu: await nullGpu() })
  : await createDevice({ dawnOptions: [`enable-dawn-features=${f16Toggle}`, 'disable-dawn-features=timestamp_quantization'] });
results.toggles = [f16Toggle];
if (!dev.features.has('shader-f16')) {
  dev.destroy();
  dev = await createDevice({ dawnOptions: [`enable-dawn-features=${f16Toggle},allow_unsafe_apis`, 'disable-dawn-features=timestamp_quantization'] });
  results.toggles = [f16Toggle, 'allow_unsafe_apis'];
}
results.adapter = { name: dev.name, info: dev.adapterInfo, features: [...dev.features].sort() };
log(`adapter ${dev.name}; features ${[...dev.features].sort().join(', ')}`);
if (!dev.features.has('shader-f16') || dev.features.has(SUBGROUP_MATRIX_FEATURE)) {
  results.error = `this check needs a device with 'shader-f16' and without '${SUBGROUP_MATRIX_FEATURE}'; got ${[...dev.features].join(', ')}`;
  log(results.error as string);
  finish(2);
}
results.path = mixedPath(dev);
results.whyNoTensorCores = tensorCoreShortfall(dev).why;
results.mixedCaps = { mixedMatmul: capsFor(dev, 'mixed').mixedMatmul ?? null, mixedF16Storage: capsFor(dev, 'mixed').mixedF16Storage ?? null };
if (results.path !== 'portable') {
  results.error = `expected the portable path, got '${String(results.path)}'`;
  finish(2);
}
const failed: string[] = [];

// (1) f16 kernels against the interpreter (f16 operands, f32 accumulation, an f16 result rounded once)
if (want('kernels')) {
  const k = await f16KernelChecks(dev, log);
  results.kernels = k;
  for (const [name, c] of Object.entries(k)) if (!c.ok) failed.push(name);
  save();
}

// (2) GPT 2x128 under autocast: loss and gradients from the device against the interpreter on the same graph
if (want('gpt-2x128')) {
  const r = await gptAutocastCheck(dev, log);
  results['gpt-2x128'] = r;
  if (!r.ok) failed.push('gpt-2x128');
  save();
}

// (3) compileTraining's default under mixed here (f16 storage): GPT 2x128 losses over 20 steps on one batch, vs fp32
if (want('train')) {
  const w = GPT_WORKLOADS[0];
  const losses = async (precision: Precision) => {
    const { graph, loss } = new GPT(w.config).trainingGraph(w.config.batch);
    const train = await compileTraining(graph, { loss, optimizer: adamW({ lr: 3e-3 }), device: dev, precision, ...(precision === 'mixed' ? { lossScale: MIXED_LOSS_SCALE } : {}) });
    const f16Nodes = train.graph.nodes.filter((n) => n.dtype === 'f16').length;
    const batch = gptBatches(w, 1)[0];
    const out: number[] = [];
    for (let i = 0; i < 20; i++) out.push((await train.step(batch, { readLoss: true })) as number);
    train.dispose();
    return { losses: out, f16Nodes };
  };
  const fp32 = await losses('fp32');
  const mixed = await losses('mixed');
  const firstRel = Math.abs(mixed.losses[0] - fp32.losses[0]) / fp32.losses[0];
  const lastRel = Math.abs(mixed.losses[19] - fp32.losses[19]) / fp32.losses[19];
  const ok = mixed.f16Nodes > 0 && firstRel < 1e-2 && mixed.losses[19] < mixed.losses[0] * 0.9 && lastRel < 0.05;
  results['gpt-2x128-train'] = { fp32: fp32.losses, mixed: mixed.losses, f16Nodes: mixed.f16Nodes, firstRel, lastRel, ok };
  log(`gpt-2x128 train: first loss ${mixed.losses[0]} vs fp32 ${fp32.losses[0]}, 20th ${mixed.losses[19]} vs ${fp32.losses[19]}`);
  if (!ok) failed.push('gpt-2x128-train');
  save();
}

// (4) GPT 6x384 synced step times: fp32 vs mixed on the portable path (f16 storage, fp32 tiled matmuls)
if (want('timing')) {
  // a failure here (e.g. memory) is reported in the summary; the checks above stand
  results['gpt-6x384-timing'] = await gptStepTimes(
    dev,
    1,
    [
      { name: 'fp32', precision: 'fp32' },
      { name: 'mixed-portable', precision: 'mixed' },
    ],
    Number(args.steps),
    log,
    save,
  ).catch((e: unknown) => ({ error: String(e) }));
}

results.failed = failed;
results.ok = failed.length === 0;
finish(failed.length ? 1 : 0);

// The f16-storage check of `precision: 'mixed'` for a GPU with `shader-f16` (CI's software adapters lack it):
// (1) f16 kernels (a fused pointwise chain with casts, an f16 reduction, f16 matmuls of every transpose form with and
// without an epilogue) against the interpreter on the same graphs; (2) a GPT 2x128 training graph under autocast's
// policy: loss and every parameter's gradient from the device against the interpreter on that f16-policy graph;
// (3) GPT 6x384 synced step times: fp32, mixed with f32 storage (`autocast: false`, the old mixed) and mixed with f16
// storage, static and dynamic loss scale. The checks are shared with mixedPortableCheck.ts (f16Checks.ts). Bundle and run:
//   node .devkit/f16-check.mjs [--out=FILE] [--steps=N] [--only=kernels,gpt-2x128,timing]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { capsFor, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { f16KernelChecks, gptAutocastCheck, gptStepTimes } from './f16Checks.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, steps: { type: 'string', default: '30' }, only: { type: 'string' } } });
const want = (x: string) => !args.only || args.only.split(',').some((o) => x.startsWith(o));
const log = (s: string) => console.error(`[f16-check] ${s}`);
const results: Record<string, unknown> = {};
const save = () => {
  if (args.out) writeFileSync(args.out, JSON.stringify(results, null, 1));
};

const dev: NeuraDevice = await createDevice({ mixedPrecision: true, dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
results.adapter = { name: dev.name, shaderF16: dev.features.has('shader-f16'), subgroupMatrixConfigs: dev.adapterInfo.subgroupMatrixConfigs };
try {
  results.mixedCaps = capsFor(dev, 'mixed').mixedMatmul;
} catch (e) {
  results.error = String(e);
  log(`skipped: ${String(e)}`);
  console.log(JSON.stringify(results, null, 1));
  save();
  process.exit(0);
}

// (1) f16 kernels against the interpreter (tolerance: a few f16 ulps of the largest value)
if (want('kernels')) {
  results.kernels = await f16KernelChecks(dev, log);
  save();
}

// (2) GPT 2x128 under autocast: loss and gradients from the device against the interpreter on the same graph
if (want('gpt-2x128')) {
  results['gpt-2x128'] = await gptAutocastCheck(dev, log);
  save();
}

// (3) GPT 6x384 step times: fp32, mixed with f32 storage (autocast: false), mixed with f16 storage
if (want('timing')) {
  results['gpt-6x384-timing'] = await gptStepTimes(
    dev,
    1,
    [
      { name: 'fp32', precision: 'fp32' },
      { name: 'mixed-f32-storage', precision: 'mixed', autocast: false },
      { name: 'mixed-f16-storage', precision: 'mixed', autocast: true },
      // compileTraining's default under mixed: PyTorch's GradScaler semantics (a non-finite step skipped)
      { name: 'mixed-f16-storage-dynamic-scale', precision: 'mixed', autocast: true, lossScale: 'dynamic' },
    ],
    Number(args.steps),
    log,
    save,
  );
}

console.log(JSON.stringify(results, null, 1));
save();

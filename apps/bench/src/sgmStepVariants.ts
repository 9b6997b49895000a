// The GPT 6x384 mixed training step (autocast's f16 storage, static loss scale as the bench's) with its
// subgroup-matrix matmuls as shipped and with tiling fields set over every chosen tiling (where the result fits),
// alternating A B A B in one process: GPU time of a step (sum of its dispatches, and of its matmul dispatches), synced
// step time, and the loss after 5 steps from the same initial state (the variants must train alike). The kernel
// harness's standalone timings read slow (idle clocks between runs): the step is the figure that counts.
// Run: node sgm-step-variants.mjs [--rounds 2] [--steps 30] [--variants db,bk64] [--out FILE]
// --null-device: only generates the step's kernels under each variant and has Dawn's null backend compile their WGSL.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { capsFor, compile, createDevice, parseDawnOptions } from '@neura/runtime-webgpu';
import { type DeviceCaps, generateKernel, isSpecOf, type KernelGenerator, type KernelSpec, loadKernels, matmulMixedKernel, matmulPartialsKernel, type SubgroupMatrixTiling, withF16Storage } from '@neura/wgsl-kernels';
import { nullGpu } from './nullGpu.js';
import { timeSessionSteps } from './timing.js';
import { GPT_WORKLOADS, gptBatches, mixedGptStep } from './workloads/gpt.js';
import { gpuMedian } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { 'null-device': { type: 'boolean', default: false }, rounds: { type: 'string', default: '2' }, steps: { type: 'string', default: '30' }, variants: { type: 'string', default: 'db,bk64' }, out: { type: 'string' } } });
const log = (s: string) => console.error(`[sgm-step-variants] ${s}`);

/** Named overrides of the chosen tiling. */
const OVERRIDES: Record<string, Partial<SubgroupMatrixTiling>> = {
  db: { db: true },
  bk64: { bk: 64 },
  unpadded: { pad: 0 },
  bands8: { group: 8 },
  rows2: { perRound: 2 },
  rows4: { perRound: 4 },
  sgn2: { sgn: 2 },
  'sgn2+rows4': { sgn: 2, perRound: 4 },
  memory: { results: 'memory' },
};

const unknownVariant = (v: string): never => {
  throw new Error(`sgm-step-variants: unknown variant '${v}' (known: ${Object.keys(OVERRIDES).join(', ')})`);
};

/** A generator that plans the matmuls (and weight-gradient partials) with `override` over the chosen tiling. */
const withOverride =
  (override: Partial<SubgroupMatrixTiling>): KernelGenerator =>
  (spec, caps) => {
    if (isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue')) return withF16Storage(spec, matmulMixedKernel(spec, caps, override), caps, true);
    if (isSpecOf(spec, 'matmulPartials')) return withF16Storage(spec, matmulPartialsKernel(spec, caps, override), caps, true);
    return generateKernel(spec, caps);
  };

const nullDevice = args['null-device'] ?? false;
const dev = await createDevice({ mixedPrecision: true, ...(nullDevice ? { gpu: await nullGpu(['enable-dawn-features=allow_unsafe_apis']) } : {}), dawnOptions: [...parseDawnOptions(process.env.NEURA_DAWN_OPTIONS ?? ''), 'disable-dawn-features=timestamp_quantization'] });
// Dawn's null backend offers no subgroup matrices: its caps get the H100's tensor-core shape (WGSL validation only)
const caps: DeviceCaps = nullDevice ? { ...capsFor(dev, 'mixed'), mixedMatmul: { m: 16, n: 16, k: 16 }, maxComputeWorkgroupStorageSize: 49152 } : capsFor(dev, 'mixed');
const gpt = GPT_WORKLOADS[1];
const step = mixedGptStep(gpt, caps);
const batches = gptBatches(gpt);
const variants: [string, KernelGenerator][] = [['shipped', generateKernel], ...args.variants.split(',').map((v): [string, KernelGenerator] => [v, withOverride(OVERRIDES[v] ?? unknownVariant(v))])];
// the step's matmul kernels, as the compiler hands them to a generator
const matmulSpecs = step
  .live()
  .map((id) => step.nodes[id])
  .filter((node) => /^(matmul|fusedMatmul)/.test(node.op))
  .map((node) => ({ node, inputs: node.inputs.map((i) => ({ shape: step.nodes[i].shape, dtype: step.nodes[i].dtype })) }) as unknown as KernelSpec);
await loadKernels(['matmul', 'matmulPartials'], { mixed: true });
// an override applies only where it fits the device: how many of the step's matmuls a variant really changes
const changedBy = (generator: KernelGenerator) =>
  matmulSpecs.filter((spec) => generator(spec, caps).dispatches.some((d, i) => d.code !== generateKernel(spec, caps).dispatches[i]?.code)).length;
for (const [variant, generator] of variants.slice(1)) log(`${variant}: changes ${changedBy(generator)} of ${matmulSpecs.length} matmul kernels`);
if (nullDevice) {
  let errors = 0;
  for (const [variant, generator] of variants)
    for (const spec of matmulSpecs) {
      for (const d of generator(spec, caps).dispatches) {
        const module = dev.gpu.createShaderModule({ code: d.code });
        const bad = (await module.getCompilationInfo()).messages.filter((m) => m.type === 'error');
        // (no pipeline: the null device's 16 KiB of workgroup memory would refuse what the caps above allow)
        errors += bad.length;
        log(`${variant} ${d.label}: ${bad.length ? `ERRORS ${bad.map((m) => `${m.lineNum}: ${m.message}`).join(' | ')}` : 'valid'} (${d.code.split('\n')[1].slice(0, 160)})`);
      }
    }
  log(`${errors} errors`);
  process.exit(errors ? 1 : 0);
}
const rows: Record<string, unknown>[] = [];
for (let round = 0; round < Number(args.rounds); round++)
  for (const [variant, generator] of variants) {
    try {
      const session = await compile(step, dev, { precision: 'mixed', label: `${gpt.name}-${variant}`, generator });
      const g = await gpuMedian(session, 5, batches[0]);
      const matmulMs = g.labels.reduce((sum, l, i) => sum + (/^matmul/.test(l) ? g.dispatchMs[i] : 0), 0);
      const synced = await timeSessionSteps(session, batches, Number(args.steps), 5);
      session.dispose();
      const fresh = await compile(step, dev, { precision: 'mixed', label: `${gpt.name}-${variant}`, generator });
      let loss = 0;
      for (let i = 0; i < 5; i++) loss = (await fresh.step(batches[i % batches.length], { read: ['loss'] })).outputs.loss.data[0];
      fresh.dispose();
      const perKernel = Object.fromEntries(g.labels.map((l, i) => [l, +g.dispatchMs[i].toFixed(4)]).filter(([l]) => /^matmul/.test(String(l))));
      rows.push({ variant, round, changedMatmuls: variant === 'shipped' ? 0 : changedBy(generator), gpuMs: +g.medianMs.toFixed(3), matmulGpuMs: +matmulMs.toFixed(3), syncedMedianMs: +synced.medianMs.toFixed(3), dispatches: g.labels.length, lossAfter5: loss, ...(round === 0 ? { perKernel } : {}) });
      log(`round ${round} ${variant}: GPU ${g.medianMs.toFixed(2)} ms (matmuls ${matmulMs.toFixed(2)}), synced ${synced.medianMs.toFixed(2)} ms, loss after 5 ${loss}`);
    } catch (e) {
      rows.push({ variant, round, error: String(e).slice(0, 1500) });
      log(`round ${round} ${variant}: ERROR ${String(e).slice(0, 800)}`);
    }
    if (args.out) writeFileSync(args.out, JSON.stringify({ adapter: dev.name, workload: gpt.name, rows }, null, 1));
  }
console.log(JSON.stringify({ adapter: dev.name, workload: gpt.name, rows: rows.map(({ perKernel: _, ...r }) => r) }));
dev.destroy();
process.exit(0);

// `matmul sweep` device entry (bundled to .devkit/matmul-sweep.mjs): times every tiled-matmul candidate
// (MATMUL_CANDIDATES) on every GPT 6x384 matmul shape and 4096², each shape's plan otherwise as shipped
// (skinny and split-K decisions kept, split-K with the candidate's tile), plus the shipped choice; then the same
// for a few candidates on a device with Dawn's robustness off (bounds clamps removed), to size that cost.
// Writes matmul-sweep.json into --out-dir. GPU time from timestamps, median of 10 passes.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { generateKernel, type KernelGenerator, MATMUL_CANDIDATES, type MatmulConfig, matmulConfigName, matmulKernel } from '@neura/wgsl-kernels';
import { benchMatmulShape, GPT_MATMULS } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { 'out-dir': { type: 'string', default: '.' }, robust: { type: 'string', default: '' } } });
const log = (s: string) => console.error(`[sweep] ${s}`);
const prefer =
  (cfg: MatmulConfig): KernelGenerator =>
  (spec, caps) =>
    spec.node.op === 'matmul' || spec.node.op === 'fusedMatmul' ? matmulKernel(spec, caps, [cfg]) : generateKernel(spec, caps);

const result: Record<string, unknown> = {};
const save = () => writeFileSync(`${args['out-dir']}/matmul-sweep.json`, JSON.stringify(result));

/** Sweeps into result[tag], saved after each shape (a timeout keeps what was done). */
async function sweep(dev: NeuraDevice, configs: readonly MatmulConfig[], tag: string): Promise<void> {
  const out: Record<string, Record<string, unknown>> = {};
  result[tag] = out;
  for (const s of GPT_MATMULS) {
    const row: Record<string, unknown> = {};
    for (const [name, gen] of [['shipped', generateKernel] as const, ...configs.map((c) => [matmulConfigName(c), prefer(c)] as const)]) {
      try {
        const r = await benchMatmulShape(s, dev, 10, undefined, gen);
        row[name] = { ms: r.medianMs, tflops: r.tflops, plan: r.plan };
      } catch (e) {
        row[name] = { error: String(e).slice(0, 200) };
      }
    }
    const best = Object.entries(row).filter(([, v]) => (v as { tflops?: number }).tflops).sort((a, b) => (b[1] as { tflops: number }).tflops - (a[1] as { tflops: number }).tflops);
    log(`${tag} ${s.name}: shipped ${(row.shipped as { tflops?: number }).tflops?.toFixed(2)} TF; best ${best.slice(0, 4).map(([n, v]) => `${n} ${(v as { tflops: number }).tflops.toFixed(2)}`).join(', ')}`);
    out[s.name] = row;
    save();
  }
}

const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
log(`adapter ${dev.name}; features ${[...dev.features].join(', ')}`);
Object.assign(result, { adapter: dev.adapterInfo, features: [...dev.features] });
await sweep(dev, MATMUL_CANDIDATES, 'robust');
dev.destroy();
const few = (args.robust as string).split(',').filter(Boolean);
if (few.length) {
  const dev2 = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization', 'enable-dawn-features=disable_robustness'] });
  await sweep(dev2, MATMUL_CANDIDATES.filter((c) => few.includes(matmulConfigName(c))), 'noRobustness');
  dev2.destroy();
}
process.exit(0);

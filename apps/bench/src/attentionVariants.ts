// `attentionVariants` device entry (bundled to .devkit/attn.mjs): attention forward + backward at B64 H6 T256 D64
// causal, heads-major and seq-major (the GPT step's layout), with the shipped flash kernels and with the gradient
// variants (row kernels, tiled shapes), GPU time per dispatch (median of repeats). Writes a JSON summary to --out.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDevice } from '@neura/runtime-webgpu';
import type { FlashConfig } from '@neura/wgsl-kernels';
import { benchAttention } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { out: { type: 'string', default: 'attention-variants.json' }, repeats: { type: 'string', default: '20' } } });
const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
console.error(`[attention] adapter ${dev.name}; workgroup storage ${dev.caps.maxComputeWorkgroupStorageSize} B`);
const variants: [string, FlashConfig | undefined][] = [
  ['shipped', undefined],
  ['grad rows (previous kernels)', { rows: 64, tile: 16, grad: 'rows' }],
  ['grad tiled 64 threads x 16', { rows: 64, tile: 16, tiled: { threads: 64, partners: 16 } }],
  ['grad tiled 64 threads x 8', { rows: 64, tile: 16, tiled: { threads: 64, partners: 8 } }],
  ['grad tiled 128 threads x 16, fwd 128 rows', { rows: 128, tile: 16 }],
];
const out: Record<string, unknown> = { adapter: dev.adapterInfo, caps: dev.caps };
for (const seqMajor of [true, false])
  for (const [name, cfg] of variants) {
    const key = `${seqMajor ? 'seq-major' : 'heads-major'} ${name}`;
    try {
      const r = await benchAttention(dev, undefined, Number(args.repeats), cfg, seqMajor);
      out[key] = r;
      console.log(`${key}: ${r.medianMs.toFixed(3)} ms (${r.plan} = ${r.dispatchMs.map((x) => x.toFixed(3)).join(' + ')})`);
    } catch (e) {
      out[key] = { error: String(e).slice(0, 300) };
      console.log(`${key}: ERROR ${String(e).slice(0, 300)}`);
    }
  }
writeFileSync(args.out as string, JSON.stringify(out, null, 1));
dev.destroy();

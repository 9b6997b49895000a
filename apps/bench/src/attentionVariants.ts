// `attentionVariants` device entry (bundled to .devkit/attn-bench.mjs): one flash-attention variant per process
// (`--variant NAME`; fresh processes, since standalone timings late in a process read slow): attention forward +
// backward at B64 H6 T256 D64 causal in the GPT step's seq-major layout (GPU time per dispatch, median of
// repeats), then the GPT 6x384 step compiled with that variant: synced step time and the attention kernels'
// in-step GPU time (one profiled step). Appends a JSON line to --out. `--list` prints the variant names;
// `--forward FORM` times one forward kernel alone instead.

import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { optimize } from '@neura/egraph';
import { Graph } from '@neura/ir';
import { buildTrainingStep, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { compile, createDevice } from '@neura/runtime-webgpu';
import { type DeviceCaps, type FlashConfig, flashAttentionGradKVPlan, flashAttentionGradPlan, generateKernel, type KernelGenerator, type KernelSpec } from '@neura/wgsl-kernels';
import { timeAsync } from './timing.js';
import { GPT_WORKLOADS } from './workloads/gpt.js';
import { type AttentionForwardForm, benchAttention, benchAttentionForward, withFlashConfig } from './workloads/kernels.js';

const VARIANTS: Record<string, FlashConfig | undefined> = {
  shipped: undefined,
  'grad rows': { rows: 64, tile: 16, grad: 'rows' },
  'grad tiled 128x32': { rows: 64, tile: 16, grad: 'tiled', tiled: { threads: 128, partners: 32 } },
  'grad tiled 128x16': { rows: 64, tile: 16, grad: 'tiled', tiled: { threads: 128, partners: 16 } },
  'grad tiled 64x32': { rows: 64, tile: 16, grad: 'tiled', tiled: { threads: 64, partners: 32 } },
  'grad tiled 256x32': { rows: 64, tile: 16, grad: 'tiled', tiled: { threads: 256, partners: 32 } },
  // the matmul-style gradients (flashAttentionGemmGrad.ts): threads, anchors x partners, thread tile, D chunk
  'grad gemm': { rows: 64, tile: 16, grad: 'gemm' },
  // (a shape whose workgroup memory does not fit a pass, e.g. dk + dv at k16 with 64 x 64 tiles, runs that pass on
  // the shipped shape: compare per-dispatch times)
  ...gemmVariant(256, 64, 64, 4, 16),
  ...gemmVariant(256, 64, 64, 4, 8),
  ...gemmVariant(256, 128, 32, 4, 8),
  ...gemmVariant(256, 32, 128, 4, 8),
  ...gemmVariant(128, 64, 64, 4, 16),
  ...gemmVariant(128, 64, 64, 4, 8),
  ...gemmVariant(128, 64, 64, 8, 8),
  ...gemmVariant(128, 64, 32, 4, 16),
  ...gemmVariant(64, 64, 64, 8, 8),
  ...gemmVariant(64, 64, 64, 8, 4),
};

/** A forced matmul-style gradient shape, named 'grad gemm <threads> <anchors>x<partners> <rows>x<partners a thread> k<chunk>'. */
function gemmVariant(threads: number, anchors: number, partners: number, rowsPerThread: number, chunk: number): Record<string, FlashConfig> {
  const tp = partners / (threads / (anchors / rowsPerThread)); // partners a thread (anchor groups × partner groups)
  return { [`grad gemm ${threads} ${anchors}x${partners} ${rowsPerThread}x${tp} k${chunk}`]: { rows: 64, tile: 16, grad: 'gemm', gemm: { threads, anchors, partners, rowsPerThread, chunk } } };
}

/**
 * The strategy line of the dq and dk + dv kernels a configuration runs at the bench's shape (B64 T256 H6 D64 causal,
 * seq-major) on these caps: says which kernel and shape ran, forced shapes that do not fit falling back included.
 */
function gradKernels(caps: DeviceCaps, cfg?: FlashConfig): { dq: string; dkdv: string } {
  const g = new Graph();
  const shapes = [[64, 256, 6, 64], [64, 256, 6, 64], [64, 256, 6, 64], [64, 256, 6, 64], [64, 256, 6], [64, 256, 6, 64]];
  const leaves = shapes.map((s, i) => g.input(`x${i}`, s));
  const attrs = { causal: true, scale: 0.125, seqMajor: true, deltaFromOut: true };
  const inputs = shapes.map((shape) => ({ shape, dtype: 'f32' as const }));
  const strategy = (code: string) => code.split('\n')[1].replace(/^\/\/ /, '');
  const dq = flashAttentionGradPlan({ node: g.node('attentionGrad', leaves, { ...attrs, wrt: 'q' }), inputs } as KernelSpec<'attentionGrad'>, caps, cfg);
  const kv = flashAttentionGradKVPlan({ node: g.node('attentionGradKV', leaves, attrs), inputs } as KernelSpec<'attentionGradKV'>, caps, ['k', 'v'], cfg);
  return { dq: strategy(dq.dispatches[0].code), dkdv: strategy(kv.dispatches[0].code) };
}

const { values: args } = parseArgs({ options: { out: { type: 'string', default: 'attention-variants.jsonl' }, variant: { type: 'string', default: 'shipped' }, list: { type: 'boolean', default: false }, 'skip-gpt': { type: 'boolean', default: false }, workload: { type: 'string', default: 'gpt-6x384' }, small: { type: 'boolean', default: false }, forward: { type: 'string' }, 'heads-major': { type: 'boolean', default: false }, windows: { type: 'boolean', default: false } } });
if (args.list) {
  console.log(Object.keys(VARIANTS).join('\n'));
  process.exit(0);
}
// --forward FORM [--heads-major]: one forward kernel alone (attention, attentionLse or attentionWithLse), then exit
if (args.forward) {
  const form = args.forward as AttentionForwardForm;
  if (!['attention', 'attentionLse', 'attentionWithLse'].includes(form)) throw new Error(`attentionVariants: --forward takes attention, attentionLse or attentionWithLse, got '${form}'`);
  const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
  const r = await benchAttentionForward(dev, form, !args['heads-major'], undefined, 20, args.windows);
  console.log(`forward ${form} ${args['heads-major'] ? 'heads-major' : 'seq-major'}${args.windows ? ', head windows of a fused QKV' : ''}: ${r.medianMs.toFixed(3)} ms (${r.plan} = ${r.dispatchMs.map((x) => x.toFixed(3)).join(' + ')})`);
  appendFileSync(args.out as string, `${JSON.stringify({ forward: form, headsMajor: args['heads-major'], windows: args.windows, ...r })}\n`);
  dev.destroy();
  process.exit(0);
}
const name = args.variant as string;
if (!(name in VARIANTS)) throw new Error(`attentionVariants: unknown --variant '${name}' (one of: ${Object.keys(VARIANTS).join(', ')})`);
const cfg = VARIANTS[name];
const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
const out: Record<string, unknown> = { variant: name, cfg, kernels: gradKernels(dev.caps, cfg) };
console.log(`${name}: dq kernel: ${(out.kernels as { dq: string }).dq}\n${name}: dk+dv kernel: ${(out.kernels as { dkdv: string }).dkdv}`);
// --small: a smoke run on adapters without timestamps (no timings of attention alone, no profile)
const a = args.small ? undefined : await benchAttention(dev, undefined, 20, cfg, true);
out.attention = a;
if (a) console.log(`${name}: attention fwd+bwd seq-major ${a.medianMs.toFixed(3)} ms (${a.plan} = ${a.dispatchMs.map((x) => x.toFixed(3)).join(' + ')})`);
if (!args['skip-gpt']) {
  const w = GPT_WORKLOADS.find((x) => x.name.startsWith(args.workload as string)) as (typeof GPT_WORKLOADS)[number];
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  const { graph } = optimize(g, { limits: dev.caps });
  const generator: KernelGenerator = cfg ? withFlashConfig(cfg) : generateKernel;
  const session = await compile(graph, dev, { label: `${w.name}-${name}`, generator });
  const n = c.batch * c.context;
  const feeds = { tokens: Int32Array.from({ length: n }, (_, i) => (i * 31 + 7) % c.vocab), targets: Int32Array.from({ length: n }, (_, i) => (i * 17 + 3) % c.vocab) };
  const t = await timeAsync(
    async () => {
      await session.step(feeds);
      await session.sync();
    },
    15,
    3,
  );
  const p = args.small ? { timings: [] } : await session.profile(feeds);
  const per: Record<string, number[]> = {};
  for (const d of p.timings) {
    if (!d.label.startsWith('attention')) continue;
    const kind = d.label.replace(/#\d+$/, '');
    (per[kind] ??= []).push((d.endNs - d.startNs) * 1e-6);
  }
  const inStep = Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v.reduce((s, x) => s + x, 0) / v.length]));
  out.gpt = { syncedMs: t.medianMs, dispatches: session.stats.dispatchesPerStep, attentionInStepMs: inStep };
  console.log(`${name}: ${w.name} synced ${t.medianMs.toFixed(3)} ms, ${session.stats.dispatchesPerStep} dispatches; attention in step (ms per dispatch): ${Object.entries(inStep).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}`);
  session.dispose();
}
appendFileSync(args.out as string, `${JSON.stringify(out)}\n`);
dev.destroy();

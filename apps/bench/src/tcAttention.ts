// The tensor-core attention forward (wgsl-kernels' flashAttentionSubgroupMatrix.ts, `FlashConfig.tensorCores`):
// (1) output and log-sum-exp against the interpreter on the same f16-rounded q, k, v, for odd lengths, both masks,
// head windows of a fused projection and D = 32, 64, 128, beside the shipped fp32 flash kernel's error; (2) GPU time
// of the GPT 6x384 step's attention forward (B64 T256 H6 D64, causal, seq-major windows), shipped vs tensor cores.
// With --null-device: only generates every case's kernels and has Dawn's null backend validate them (no GPU).
//   node .devkit/tc-attention.mjs [--null-device] [--out FILE] [--repeats N]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { optimize } from '@neura/egraph';
import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { capsFor, compile, createDevice } from '@neura/runtime-webgpu';
import { type DeviceCaps, defaultFlashConfig, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { nullGpu } from './nullGpu.js';
import { withFlashConfig } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { 'null-device': { type: 'boolean', default: false }, out: { type: 'string' }, repeats: { type: 'string', default: '20' } } });
const log = (s: string) => console.error(`[tc-attention] ${s}`);
const results: Record<string, unknown> = {};
const save = () => args.out && writeFileSync(args.out, JSON.stringify(results, null, 1));

const nullDevice = args['null-device'] ?? false;
const dev = await createDevice({ mixedPrecision: true, ...(nullDevice ? { gpu: await nullGpu(['enable-dawn-features=allow_unsafe_apis']) } : {}), dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
// Dawn's null backend offers no subgroup matrices: its caps get the H100's tensor-core shape (WGSL validation only)
const caps: DeviceCaps = nullDevice ? { ...capsFor(dev, 'mixed'), mixedMatmul: { m: 16, n: 16, k: 16 }, maxComputeWorkgroupStorageSize: 49152 } : capsFor(dev, 'mixed');
results.adapter = { name: dev.name, mixedMatmul: caps.mixedMatmul };
log(`adapter ${dev.name}; tensor-core shape ${JSON.stringify(caps.mixedMatmul)}`);

interface Case {
  readonly name: string;
  readonly b: number;
  readonly t: number;
  readonly h: number;
  readonly d: number;
  readonly causal: boolean;
  /** q, k, v as head windows of one [B, T, 3H, D] projection (the GPT step's layout). */
  readonly fused: boolean;
}

const CASES: readonly Case[] = [
  { name: 'odd-causal-fused-d64', b: 2, t: 100, h: 3, d: 64, causal: true, fused: true },
  { name: 'odd-full-d32', b: 2, t: 77, h: 2, d: 32, causal: false, fused: false },
  { name: 'causal-d128', b: 1, t: 130, h: 2, d: 128, causal: true, fused: false },
  { name: 'one-tile-d16', b: 3, t: 9, h: 1, d: 16, causal: true, fused: true },
];
const GPT: Case = { name: 'gpt-6x384-forward', b: 64, t: 256, h: 6, d: 64, causal: true, fused: true };

/** The attention forward and its log-sum-exp in one attentionWithLse (as in the GPT step's plan), optimized. */
function forwardGraph(c: Case): Graph {
  const g = new Graph();
  const attrs = { causal: c.causal, scale: 1 / Math.sqrt(c.d), seqMajor: true };
  const [q, k, v] = c.fused ? g.split(g.input('qkv', [c.b, c.t, 3 * c.h, c.d]), 3, 2) : ['q', 'k', 'v'].map((n) => g.input(n, [c.b, c.t, c.h, c.d]));
  // the one kernel writing both results, as the GPT step's plan has it (result 1 read through a pick)
  const both = g.node('attentionWithLse', [q, k, v], attrs);
  g.output('o', both);
  g.output('lse', g.node('pick', [both], { index: 1 }));
  return optimize(g, { limits: caps }).graph;
}

/** Uniform values in [-2, 2) rounded to f16 (what autocast's producers store), seeded. */
function feedsOf(c: Case): Record<string, TensorValue> {
  let s = 12345;
  const f16 = new Float32Array(1);
  const rnd = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s / 2 ** 32) * 4 - 2;
  };
  const half = (x: number) => {
    // round to the nearest f16 (11 significant bits) through Math.fround on a scaled value
    if (x === 0) return 0;
    const e = Math.floor(Math.log2(Math.abs(x)));
    const q = 2 ** (e - 10);
    f16[0] = Math.round(x / q) * q;
    return f16[0];
  };
  const make = (shape: number[]) => tensor(shape, Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => half(rnd())));
  return c.fused ? { qkv: make([c.b, c.t, 3 * c.h, c.d]) } : { q: make([c.b, c.t, c.h, c.d]), k: make([c.b, c.t, c.h, c.d]), v: make([c.b, c.t, c.h, c.d]) };
}

const shipped = defaultFlashConfig(caps);
const tc = { ...shipped, tensorCores: true };

if (nullDevice) {
  // every case's kernels generated with tensor cores and their WGSL compiled by Dawn
  await loadKernels(['attention', 'attentionLse', 'attentionWithLse'], { mixed: true });
  const gen = withFlashConfig(tc);
  const out: Record<string, unknown> = {};
  for (const c of [...CASES, GPT]) {
    const graph = forwardGraph(c);
    for (const id of graph.live()) {
      const node = graph.nodes[id];
      if (!node.op.startsWith('attention')) continue;
      const spec = { node, inputs: node.inputs.map((i) => ({ shape: graph.nodes[i].shape, dtype: graph.nodes[i].dtype })) } as unknown as KernelSpec;
      const plan = gen(spec, caps);
      const errors: string[] = [];
      for (const d of plan.dispatches) {
        dev.gpu.pushErrorScope('validation');
        const module = dev.gpu.createShaderModule({ code: d.code });
        const info = await module.getCompilationInfo();
        errors.push(...info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}: ${m.message}`));
        // (no pipeline: the null device's 16 KiB of workgroup memory would refuse what the caps above allow)
        const e = await dev.gpu.popErrorScope();
        if (e) errors.push(e.message.slice(0, 600));
      }
      out[`${c.name} ${node.op}`] = { dispatches: plan.dispatches.map((d) => d.code.split('\n')[1]), errors };
      log(`${c.name} ${node.op}: ${errors.length ? `ERRORS ${errors.join(' | ')}` : 'valid'}`);
    }
  }
  results.validation = out;
  save();
  console.log(JSON.stringify(results, null, 1));
  process.exit(0);
}

// (1) against the interpreter
const checks: Record<string, unknown> = {};
for (const c of CASES) {
  const graph = forwardGraph(c);
  const feeds = feedsOf(c);
  const ref = interpret(graph, feeds, {}, 'f32').outputs;
  const row: Record<string, unknown> = {};
  for (const [name, cfg] of [['shipped', shipped], ['tensor-cores', tc]] as const) {
    try {
      const session = await compile(graph, dev, { precision: 'mixed', label: c.name, generator: withFlashConfig(cfg) });
      const got = (await session.step(feeds, { read: ['o', 'lse'] })).outputs;
      session.dispose();
      const err = (k: 'o' | 'lse') => Array.from(got[k].data).reduce((m, x, i) => Math.max(m, Math.abs(x - ref[k].data[i])), 0);
      const big = (k: 'o' | 'lse') => Array.from(ref[k].data).reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      // P is rounded to f16 before P·V (as FlashAttention does): a few f16 ulps of the largest output
      const ok = err('o') <= 4e-3 * big('o') && err('lse') <= 1e-3 * (1 + big('lse'));
      row[name] = { ok, outErr: err('o'), outMax: big('o'), lseErr: err('lse'), lseMax: big('lse') };
      log(`check ${c.name} ${name}: ${ok ? 'ok' : 'FAIL'} out ${err('o').toExponential(2)} of ${big('o').toFixed(2)}, lse ${err('lse').toExponential(2)}`);
    } catch (e) {
      row[name] = { error: String(e).slice(0, 1200) };
      log(`check ${c.name} ${name}: ERROR ${String(e).slice(0, 600)}`);
    }
  }
  checks[c.name] = row;
  save();
}
results.checks = checks;
results.checksFailed = Object.values(checks).filter((r) => !(r as { 'tensor-cores'?: { ok?: boolean } })['tensor-cores']?.ok).length;
save();

// (2) GPU time of the GPT step's attention forward
const timing: Record<string, unknown> = {};
const graph = forwardGraph(GPT);
const feeds = feedsOf(GPT);
const repeats = Number(args.repeats);
for (const [name, cfg] of [['shipped', shipped], ['tensor-cores', tc]] as const) {
  try {
    const session = await compile(graph, dev, { precision: 'mixed', label: GPT.name, generator: withFlashConfig(cfg) });
    const n = session.stats.dispatchesPerStep;
    const p = await session.profile(feeds, { repeats: repeats + 3 });
    const per: number[] = [];
    for (let r = 3; r < repeats + 3; r++) per.push(Array.from({ length: n }, (_, i) => (p.timings[r * n + i].endNs - p.timings[r * n + i].startNs) * 1e-6).reduce((a, b) => a + b, 0));
    per.sort((a, b) => a - b);
    const ms = per[Math.floor(per.length / 2)];
    // causal: half the T² scores; 2 matmuls of 2·T·T·D FLOPs each (the FLOP count FlashAttention papers use)
    const flops = (2 * 2 * GPT.b * GPT.h * GPT.t * GPT.t * GPT.d) / 2;
    timing[name] = { medianMs: ms, tflops: flops / (ms * 1e-3) / 1e12, plan: p.timings.slice(0, n).map((t) => t.label) };
    log(`${GPT.name} ${name}: ${ms.toFixed(4)} ms, ${(flops / (ms * 1e-3) / 1e12).toFixed(1)} TFLOP/s`);
    session.dispose();
  } catch (e) {
    timing[name] = { error: String(e).slice(0, 1200) };
    log(`${GPT.name} ${name}: ERROR ${String(e).slice(0, 600)}`);
  }
}
results.timing = timing;
save();
console.log(JSON.stringify(results, null, 1));
dev.destroy();
process.exit(0);

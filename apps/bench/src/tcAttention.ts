// The tensor-core attention gradients (wgsl-kernels' flashAttentionSubgroupMatrixGrad.ts, `FlashConfig.tensorCores`):
// (1) dq, dk, dv (and the forward's output and log-sum-exp) against the interpreter on the same f16-rounded q, k,
// v, dO, for odd lengths, both masks, head windows of a fused projection and D = 16, 32, 64, 128, beside the
// shipped fp32 kernels' error; (2) GPU time per dispatch of the GPT 6x384 step's attention forward and backward
// (B64 T256 H6 D64, causal, seq-major windows), shipped vs tensor cores; (3) the GPT 6x384 mixed step's GPU time and
// its loss after 5 steps: shipped and with tensor-core gradients.
// With --null-device: only generates every case's kernels and has Dawn's null backend validate them (no GPU).
//   node .devkit/tc-attention.mjs [--null-device] [--out FILE] [--repeats N]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { grad } from '@neura/autograd';
import { optimize } from '@neura/egraph';
import { f16round, Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { capsFor, compile, createDevice } from '@neura/runtime-webgpu';
import { type DeviceCaps, defaultFlashConfig, type KernelSpec, loadKernels } from '@neura/wgsl-kernels';
import { nullGpu } from './nullGpu.js';
import { GPT_WORKLOADS, gptBatches, mixedGptStep } from './workloads/gpt.js';
import { gpuMedian, withFlashConfig } from './workloads/kernels.js';

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
const GPT_ATTENTION: Case = { name: 'gpt-6x384-forward', b: 64, t: 256, h: 6, d: 64, causal: true, fused: true };

/**
 * The attention forward and its log-sum-exp in one attentionWithLse (as in the GPT step's plan), optimized; with
 * `backward`, from primitives, plus the gradient of Σ o·dO with respect to q, k, v as output dqkv (one
 * [B, T, 3H, D] gradient for a fused projection) or dq, dk, dv.
 */
function forwardGraph(c: Case, backward = false): Graph {
  const g = new Graph();
  const attrs = { causal: c.causal, scale: 1 / Math.sqrt(c.d), seqMajor: true };
  const [q, k, v] = c.fused ? g.split(g.input('qkv', [c.b, c.t, 3 * c.h, c.d]), 3, 2) : ['q', 'k', 'v'].map((n) => g.input(n, [c.b, c.t, c.h, c.d]));
  if (!backward) {
    // the one kernel writing both results, as the GPT step's plan has it (result 1 read through a pick)
    const both = g.node('attentionWithLse', [q, k, v], attrs);
    g.output('o', both);
    g.output('lse', g.node('pick', [both], { index: 1 }));
  } else {
    // primitives (the fused ops are the optimizer's): the plan has attentionWithLse and the gradients' kernels
    const o = g.attention(q, k, v, attrs);
    g.output('o', o);
    g.output('lse', g.node('attentionLse', [q, k], attrs));
    const leaves = (c.fused ? ['qkv'] : ['q', 'k', 'v']).map((n) => g.byName(n) as Tensor);
    const grads = grad(g, g.sum(g.mul(o, g.input('dout', [c.b, c.t, c.h, c.d]))), leaves);
    for (const [i, n] of (c.fused ? ['dqkv'] : ['dq', 'dk', 'dv']).entries()) g.output(n, grads[i]);
  }
  return optimize(g, { limits: caps }).graph;
}

/** Uniform values in [-2, 2) rounded to f16 (what autocast's producers store), seeded. */
function feedsOf(c: Case): Record<string, TensorValue> {
  let s = 12345;
  const rnd = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s / 2 ** 32) * 4 - 2;
  };
  const make = (shape: number[]) => tensor(shape, Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => f16round(rnd())));
  const dout = make([c.b, c.t, c.h, c.d]);
  return c.fused ? { qkv: make([c.b, c.t, 3 * c.h, c.d]), dout } : { q: make([c.b, c.t, c.h, c.d]), k: make([c.b, c.t, c.h, c.d]), v: make([c.b, c.t, c.h, c.d]), dout };
}

const shipped = defaultFlashConfig(caps);
const tc = { ...shipped, tensorCores: true };

if (nullDevice) {
  // every case's kernels generated with tensor cores and their WGSL compiled by Dawn
  await loadKernels(['attention', 'attentionLse', 'attentionWithLse'], { mixed: true });
  const gen = withFlashConfig(tc);
  const out: Record<string, unknown> = {};
  for (const c of [...CASES, GPT_ATTENTION]) {
    const graph = forwardGraph(c, true);
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
  const graph = forwardGraph(c, true);
  const feeds = feedsOf(c);
  const ref = interpret(graph, feeds, {}, 'f32').outputs;
  const names = Object.keys(ref);
  const row: Record<string, unknown> = {};
  for (const [name, cfg] of [['shipped', shipped], ['tensor-cores', tc]] as const) {
    try {
      const session = await compile(graph, dev, { precision: 'mixed', label: c.name, generator: withFlashConfig(cfg) });
      const got = (await session.step(feeds, { read: names })).outputs;
      session.dispose();
      const err = (k: string) => Array.from(got[k].data).reduce((m, x, i) => Math.max(m, Math.abs(x - ref[k].data[i])), 0);
      const big = (k: string) => Array.from(ref[k].data).reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      // P and dS are rounded to f16 before their products (as FlashAttention does): a few f16 ulps of the largest
      // value (8e-3 for the gradients, whose dS·K sums many rounded terms); L to 1e-3
      const figures = Object.fromEntries(names.map((k) => [k, { err: err(k), max: big(k), ok: err(k) <= (k === 'lse' ? 1e-3 * (1 + big(k)) : k === 'o' ? 4e-3 * big(k) : 8e-3 * big(k)) }]));
      const ok = Object.values(figures).every((f) => f.ok);
      row[name] = { ok, ...figures };
      log(`check ${c.name} ${name}: ${ok ? 'ok' : 'FAIL'} ${names.map((k) => `${k} ${figures[k].err.toExponential(2)} of ${figures[k].max.toFixed(2)}`).join(', ')}`);
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

// (2) GPU time of the GPT step's attention forward and backward (per dispatch: forward, dq, dk + dv)
const timing: Record<string, unknown> = {};
const graph = forwardGraph(GPT_ATTENTION, true);
const feeds = feedsOf(GPT_ATTENTION);
const repeats = Number(args.repeats);
for (const [name, cfg] of [['shipped', shipped], ['tensor-cores', tc]] as const) {
  try {
    const session = await compile(graph, dev, { precision: 'mixed', label: GPT_ATTENTION.name, generator: withFlashConfig(cfg) });
    const { medianMs: ms, labels, dispatchMs } = await gpuMedian(session, repeats, feeds);
    // causal: half the T² scores; forward 2 matmuls of 2·T·T·D FLOPs each, backward 2.5x that (FlashAttention's count)
    const flops = (3.5 * 2 * 2 * GPT_ATTENTION.b * GPT_ATTENTION.h * GPT_ATTENTION.t * GPT_ATTENTION.t * GPT_ATTENTION.d) / 2;
    timing[name] = { medianMs: ms, tflops: flops / (ms * 1e-3) / 1e12, plan: labels, dispatchMs: dispatchMs.map((x) => +x.toFixed(4)) };
    log(`${GPT_ATTENTION.name} ${name}: ${ms.toFixed(4)} ms, ${(flops / (ms * 1e-3) / 1e12).toFixed(1)} TFLOP/s`);
    session.dispose();
  } catch (e) {
    timing[name] = { error: String(e).slice(0, 1200) };
    log(`${GPT_ATTENTION.name} ${name}: ERROR ${String(e).slice(0, 600)}`);
  }
}
results.timing = timing;
save();

// (3) the GPT 6x384 mixed training step (autocast, static loss scale as the bench's), shipped and with tensor-core
// attention gradients: GPU time of one step (sum of its dispatches) and the loss after 5 steps from the same init.
// (Run h100-2026-12-07-s4b also timed the plan with autocast's weight gradients folded into the update, since
// reverted as slower.)
const gpt = GPT_WORKLOADS[1];
const step = mixedGptStep(gpt, caps);
const steps: Record<string, unknown> = {};
for (const [name, cfg] of [['shipped', shipped], ['tensor-core gradients', tc]] as const) {
  try {
    const session = await compile(step, dev, { precision: 'mixed', label: gpt.name, generator: withFlashConfig(cfg) });
    const batches = gptBatches(gpt);
    const n = session.stats.dispatchesPerStep;
    const { medianMs } = await gpuMedian(session, 5, batches[0]);
    session.dispose();
    // the loss after 5 steps from the same initial state (profiling ran steps too: a fresh session)
    const fresh = await compile(step, dev, { precision: 'mixed', label: gpt.name, generator: withFlashConfig(cfg) });
    let loss = 0;
    for (let i = 0; i < 5; i++) loss = (await fresh.step(batches[i % 4], { read: ['loss'] })).outputs.loss.data[0];
    fresh.dispose();
    steps[name] = { gpuMsMedian: medianMs, dispatches: n, lossAfter5: loss };
    log(`${gpt.name} step ${name}: GPU ${medianMs.toFixed(2)} ms over ${n} dispatches, loss after 5 steps ${loss}`);
  } catch (e) {
    steps[name] = { error: String(e).slice(0, 1200) };
    log(`${gpt.name} step ${name}: ERROR ${String(e).slice(0, 600)}`);
  }
  save();
}
results.step = steps;
save();
console.log(JSON.stringify(results, null, 1));
dev.destroy();
process.exit(0);

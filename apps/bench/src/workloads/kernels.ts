// Kernel-level workloads of the GPT 6x384 step, timed on the GPU (timestamps per dispatch, median over
// repeats): each matmul shape of the step (forward, input gradient, weight gradient) and attention forward +
// backward at B64 H6 T256 D64. python/reference.py times the same shapes with CUDA events (cuBLAS, SDPA).

import { optimize } from '@neura/egraph';
import { Graph, type TensorValue, tensor } from '@neura/ir';
import { compile, type FeedValue, type NeuraDevice, type Precision, seededUniform } from '@neura/runtime-webgpu';
import { type FlashConfig, flashAttentionGradKVPlan, flashAttentionGradPlan, flashAttentionGradQKVPlan, flashAttentionLsePlan, flashAttentionPlan, flashAttentionWithLsePlan, generateKernel, isSpecOf, type KernelGenerator, type MatmulConfig, matmulPlanWith } from '@neura/wgsl-kernels';

/** One matmul shape: C[M,N] = op(A)·op(B) with reduction K. */
export interface MatmulShape {
  readonly name: string;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly transA: boolean;
  readonly transB: boolean;
}

/** The matmul shapes of the GPT 6x384 step (batch·context = 16384 rows, width 384, MLP 1536). */
export const GPT_MATMULS: readonly MatmulShape[] = [
  { name: 'fwd-16384x384x384', m: 16384, n: 384, k: 384, transA: false, transB: false },
  { name: 'fwd-fc-16384x1536x384', m: 16384, n: 1536, k: 384, transA: false, transB: false },
  { name: 'fwd-proj-16384x384x1536', m: 16384, n: 384, k: 1536, transA: false, transB: false },
  { name: 'dx-16384x384x384-Bt', m: 16384, n: 384, k: 384, transA: false, transB: true },
  { name: 'dx-16384x1536x384-Bt', m: 16384, n: 1536, k: 384, transA: false, transB: true },
  { name: 'dx-16384x384x1536-Bt', m: 16384, n: 384, k: 1536, transA: false, transB: true },
  { name: 'dw-384x384x16384-At', m: 384, n: 384, k: 16384, transA: true, transB: false },
  { name: 'dw-384x1536x16384-At', m: 384, n: 1536, k: 16384, transA: true, transB: false },
  { name: 'dw-1536x384x16384-At', m: 1536, n: 384, k: 16384, transA: true, transB: false },
  { name: 'square-4096', m: 4096, n: 4096, k: 4096, transA: false, transB: false },
];

/** GPU time of a kernel workload: median over repeats of the summed dispatch times. */
export interface KernelTiming {
  readonly medianMs: number;
  readonly minMs: number;
  readonly dispatches: number;
  readonly tflops?: number;
  readonly plan: string;
  /** Median time of each dispatch of one pass, in plan order (ms). */
  readonly dispatchMs: readonly number[];
}

/** Median GPU time of one pass over the session's dispatches, `repeats` passes back to back in one submission. */
export async function gpuMedian(session: Awaited<ReturnType<typeof compile>>, repeats: number, feeds: Readonly<Record<string, FeedValue>> = {}): Promise<{ medianMs: number; minMs: number; labels: string[]; dispatchMs: number[] }> {
  const n = session.stats.dispatchesPerStep;
  // the GPU's clocks follow its recent load: half a second of steps first, or a kernel timed after an idle gap
  // reads 2-3x slow (H100, 2026-12-07 s5: fwd-fc 16384x1536x384 0.91 ms alone, 0.33 ms inside the GPT step)
  for (const t0 = performance.now(); performance.now() - t0 < 500; ) {
    await session.step(feeds);
    await session.sync();
  }
  const p = await session.profile(feeds, { repeats: repeats + 3 });
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ms = (r: number, i: number) => (p.timings[r * n + i].endNs - p.timings[r * n + i].startNs) * 1e-6;
  const per: number[] = [];
  for (let r = 3; r < repeats + 3; r++) per.push(Array.from({ length: n }, (_, i) => ms(r, i)).reduce((a, b) => a + b, 0));
  const dispatchMs = Array.from({ length: n }, (_, i) => med(Array.from({ length: repeats }, (_, r) => ms(r + 3, i))));
  return { medianMs: med(per), minMs: Math.min(...per), labels: p.timings.slice(0, n).map((t) => t.label), dispatchMs };
}

/** Tiled configurations to sweep (the autotuner's candidates): shipped ones and deeper/wider variants. */
export const MATMUL_SWEEP: readonly MatmulConfig[] = [
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 0 },
  { bm: 128, bn: 64, bk: 32, tm: 8, tn: 8, minTiles: 0 },
  { bm: 128, bn: 64, bk: 8, tm: 8, tn: 8, minTiles: 0 },
  { bm: 64, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 0 },
  { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 0 },
  { bm: 128, bn: 128, bk: 32, tm: 8, tn: 8, minTiles: 0 },
  { bm: 64, bn: 64, bk: 32, tm: 8, tn: 4, minTiles: 0 },
  { bm: 128, bn: 64, bk: 16, tm: 16, tn: 4, minTiles: 0 },
];

/** A generator that plans every matmul with `cfg` (everything else as usual). */
export const withMatmulConfig = (cfg: MatmulConfig): KernelGenerator => (spec, caps) => (isSpecOf(spec, 'matmul') ? matmulPlanWith(spec, caps, cfg) : generateKernel(spec, caps));

/**
 * Times one matmul shape (operands resident, random), optionally with a fixed tiled configuration or under a
 * precision policy; `operands: 'f16'`: A and B are f16 inputs (autocast's f16 storage), fed once, and C is f16.
 */
export async function benchMatmulShape(s: MatmulShape, device: NeuraDevice, repeats = 10, cfg?: MatmulConfig, precision: Precision = 'fp32', generator?: KernelGenerator, operands: 'f32' | 'f16' = 'f32'): Promise<KernelTiming> {
  const g = new Graph();
  const [sa, sb] = [s.transA ? [s.k, s.m] : [s.m, s.k], s.transB ? [s.n, s.k] : [s.k, s.n]];
  const f16 = operands === 'f16';
  const a = f16 ? g.input('a', sa, 'f16') : g.param('a', sa, { kind: 'uniform', low: -1, high: 1, seed: 1 });
  const b = f16 ? g.input('b', sb, 'f16') : g.param('b', sb, { kind: 'uniform', low: -1, high: 1, seed: 2 });
  g.output('c', g.matmul(a, b, { transA: s.transA, transB: s.transB }));
  const gen = generator ?? (cfg ? withMatmulConfig(cfg) : undefined);
  const session = await compile(g, device, { label: s.name, precision, ...(gen ? { generator: gen } : {}) });
  const random = (shape: number[], seed: number) => tensor(shape, seededUniform(shape[0] * shape[1], seed), 'f16');
  const r = await gpuMedian(session, repeats, f16 ? { a: random(sa, 1), b: random(sb, 2) } : {});
  session.dispose();
  return { medianMs: r.medianMs, minMs: r.minMs, dispatches: r.labels.length, tflops: (2 * s.m * s.n * s.k) / (r.medianMs * 1e-3) / 1e12, plan: r.labels.join(' + '), dispatchMs: r.dispatchMs };
}

/** Flash variants to sweep: rows per workgroup x staged tile rows. */
export const FLASH_SWEEP: readonly FlashConfig[] = [32, 64, 128].flatMap((rows) => [16, 32, 64].map((tile) => ({ rows, tile })));

/** A generator that plans attention and its gradients with a fixed flash configuration. */
export const withFlashConfig =
  (cfg: FlashConfig): KernelGenerator =>
  (spec, caps) =>
    isSpecOf(spec, 'attention')
      ? flashAttentionPlan(spec, caps, cfg)
      : isSpecOf(spec, 'attentionLse')
        ? flashAttentionLsePlan(spec, caps, cfg)
        : isSpecOf(spec, 'attentionGrad')
          ? flashAttentionGradPlan(spec, caps, cfg)
          : isSpecOf(spec, 'attentionWithLse')
            ? flashAttentionWithLsePlan(spec, caps, { out: spec.results?.[0] !== 'unused', lse: spec.results?.[1] !== 'unused' }, cfg)
            : isSpecOf(spec, 'attentionGradKV')
              ? flashAttentionGradKVPlan(spec, caps, (['k', 'v'] as const).filter((_, r) => spec.results?.[r] !== 'unused'), cfg)
              : isSpecOf(spec, 'attentionGradQKV')
                ? flashAttentionGradQKVPlan(spec, caps, cfg)
                : generateKernel(spec, caps);

/**
 * Times causal attention forward + backward (B, H, T, D) as autograd builds it: the forward, its log-sum-exp,
 * Δ = rowsum(dO ⊙ O) and the three gradients, optimized (Δ's product fuses into its sum) and compiled.
 */
export async function benchAttention(device: NeuraDevice, dims = { b: 64, h: 6, t: 256, d: 64 }, repeats = 10, cfg?: FlashConfig, seqMajor = false): Promise<KernelTiming> {
  const { b, h, t, d } = dims;
  const g = new Graph();
  // seq-major ([B, T, H, D]) is the GPT step's layout (head split and merge folded into attention)
  const shape = seqMajor ? [b, t, h, d] : [b, h, t, d];
  const init = (seed: number) => ({ kind: 'uniform' as const, low: -1, high: 1, seed });
  const q = g.param('q', shape, init(1));
  const k = g.param('k', shape, init(2));
  const v = g.param('v', shape, init(3));
  const dout = g.param('dout', shape, init(4));
  const attrs = { causal: true, scale: 1 / Math.sqrt(d), ...(seqMajor ? { seqMajor } : {}) };
  const o = g.attention(q, k, v, attrs);
  g.output('o', o);
  const lse = g.node('attentionLse', [q, k], attrs);
  const delta = g.sum(g.mul(dout, o), -1);
  for (const wrt of ['q', 'k', 'v'] as const) g.output(`d${wrt}`, g.node('attentionGrad', [q, k, v, dout, lse, delta], { ...attrs, wrt }));
  const { graph } = optimize(g, { limits: device.caps });
  const session = await compile(graph, device, { label: 'attention', ...(cfg ? { generator: withFlashConfig(cfg) } : {}) });
  const r = await gpuMedian(session, repeats);
  session.dispose();
  // causal fwd ≈ 2·(2·T²/2·D) per head, bwd ≈ 2.5× fwd (the FLOP count FlashAttention papers use)
  const fwd = 4 * b * h * (t * t) / 2 * d;
  return { medianMs: r.medianMs, minMs: r.minMs, dispatches: r.labels.length, tflops: (3.5 * fwd) / (r.medianMs * 1e-3) / 1e12, plan: r.labels.join(' + '), dispatchMs: r.dispatchMs };
}

/** Attention's forward kernels, one op each (not optimized: the op runs as built). */
export type AttentionForwardForm = 'attention' | 'attentionLse' | 'attentionWithLse';

/**
 * Times one forward kernel of causal attention (B, H, T, D) alone: attention's output, the log-sum-exp, or both
 * from one kernel (`attentionWithLse`, both results read). In-step, attentionWithLse took 0.335 ms where the
 * seq-major bench's separate attention and attentionLse took 0.186 + 0.162 (H200, 2026-12-04): this isolates it.
 */
export async function benchAttentionForward(device: NeuraDevice, form: AttentionForwardForm, seqMajor: boolean, dims = { b: 64, h: 6, t: 256, d: 64 }, repeats = 20, windows = false): Promise<KernelTiming> {
  const { b, h, t, d } = dims;
  const g = new Graph();
  const shape = seqMajor ? [b, t, h, d] : [b, h, t, d];
  if (windows && !seqMajor) throw new Error('benchAttentionForward: head windows are seq-major');
  const init = (seed: number) => ({ kind: 'uniform' as const, low: -1, high: 1, seed });
  // windows: q, k and v as head windows of one fused [B, T, 3H, D] projection, the GPT step's form
  const qkv = windows ? g.param('qkv', [b, t, 3 * h, d], init(1)) : undefined;
  const [q, k, v] = qkv ? [qkv, qkv, qkv] : [1, 2, 3].map((seed) => g.param(`x${seed}`, shape, init(seed)));
  const attrs = { causal: true, scale: 1 / Math.sqrt(d), ...(seqMajor ? { seqMajor } : {}), ...(windows ? { window: { heads: h, offsets: [0, h, 2 * h] } } : {}) };
  if (form === 'attentionLse') g.output('lse', g.node('attentionLse', [q, k], attrs));
  else {
    const m = g.node(form, [q, k, v], attrs);
    g.output('o', m);
    if (form === 'attentionWithLse') g.output('lse', g.node('pick', [m], { index: 1 }));
  }
  const session = await compile(g, device, { label: `attention-forward-${form}` });
  const r = await gpuMedian(session, repeats);
  session.dispose();
  const flops = (form === 'attentionLse' ? 2 : 4) * b * h * ((t * t) / 2) * d;
  return { medianMs: r.medianMs, minMs: r.minMs, dispatches: r.labels.length, tflops: flops / (r.medianMs * 1e-3) / 1e12, plan: r.labels.join(' + '), dispatchMs: r.dispatchMs };
}

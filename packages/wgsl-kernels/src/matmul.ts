// `matmul` and `fusedMatmul` (C = act(op(A)·op(B) + bias)): two kernel families, both specialised to the shapes.
// - tiled: a workgroup computes a BM x BN tile stepping through K in BK slices staged in workgroup memory
//   (vec4 rows As[k][m/4], Bs[k][n/4], no padding); each thread owns TM x TN outputs as TM/4 x TN/4 vec4 chunks
//   interleaved across the tile (chunk i*TY + ty, j*TX + tx), so vec4 shared reads and output stores are
//   contiguous across threads. Global loads are vec4 when the contiguous dimension of an operand is a multiple of
//   4 (else scalar), prefetched into registers one slice ahead of the compute.
// - skinny (small M, few tiles): tiles waste most of their work and leave most of the GPU idle when M is tiny
//   (batch 32 MNIST: [32,784]·[784,128] is 2–4 tiles), so a workgroup computes RM rows x WN columns with its
//   threads splitting K S ways (lanes laid out so the operand read along k or n is coalesced), then sums the S
//   partials in workgroup memory. No second pass, no atomics.
// Configuration heuristic (the whole of it): skinny if M ≤ 64 and 32x32 tiles would be < 128 workgroups (and not
// Aᵀ·Bᵀ); split-K for a long K over few tiles; MATMUL_LARGE for a large unbatched A·B; else the first tiled
// configuration in MATMUL_CONFIGS that fits the device and yields at least its `minTiles` workgroups (else the
// smallest that fits). Measured on the H200 (Dawn/Vulkan, timestamp queries over
// 20 back-to-back dispatches, median of 5; figures by each table below): this file's defaults run 27.3 / 34.7 /
// 35.1 TFLOP/s at n = 1024 / 2048 / 4096 (PLATFORM.md's plain 64x64/4x4 kernel: 9.2 / 24.1 / 26.0).
// Batch axes (numpy-broadcast) go to grid z; each workgroup offsets A, B, the bias and C by baked batch strides.
// Any M, N, K: tile loads outside the matrices stage zeros, stores are bounds-checked. Must not exceed `caps`.

import { broadcastStrides, numel, splitKFor } from '@neura/ir';
import type { Binding, DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, header, indexMath, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit } from './wgsl.js';
import { type MatmulEpilogueHook, matmulEpilogueHook } from './matmulEpilogue.js';
import { reluOf } from './scalarOps.js';

/** A tiled matmul configuration: tile BM x BN x BK, TM x TN outputs per thread (multiples of 4). */
export interface MatmulConfig {
  /** Output rows per workgroup tile (BM). */
  readonly bm: number;
  /** Output columns per workgroup tile (BN). */
  readonly bn: number;
  /** K slice staged per iteration (BK). */
  readonly bk: number;
  /** Output rows per thread (TM). */
  readonly tm: number;
  /** Output columns per thread (TN). */
  readonly tn: number;
  /** Used only when the output has at least this many tiles (else the next configuration). */
  readonly minTiles: number;
  /** Two workgroup-memory slices: the next slice is stored while the current one is read (one barrier per slice). */
  readonly db?: boolean;
  /** The inner k loop over a slice written out BK times (constant workgroup-memory offsets). */
  readonly unroll?: boolean;
  /**
   * A staged k-contiguous (As[m][k/4], rows padded by one vec4) where A is read along k in vec4s (A not transposed,
   * K a multiple of 4): each global vec4 is one workgroup-memory store instead of four scalar stores that collide
   * on one bank, and a thread reads one vec4 of 4 k values per row. Elsewhere the usual [k][m/4] layout.
   */
  readonly ka?: boolean;
}

/**
 * Tiled configurations, preferred first. Measured on the H200 (Dawn/Vulkan, 2026-12, TFLOP/s at n = 1024 / 2048
 * / 4096): 128x64x16/8x8 20.5 / 34.7 / 35.1; 128x128x16/8x8 14.6 / 33.8 / 34.5; 64x64x16/8x4 27.3 / 32.0 / 33.3;
 * 64x64x16/4x4 25.2 / 28.5 / 29.7; 32x32x16/4x4 22.6 / 23.8 / 24.7. A big tile needs many tiles to fill the GPU
 * (n = 1024 is 128 tiles of 128x64: 20.5 TF vs 27.3 for 64x64; 1000x128x784: 32x32 6.96 TF vs 64x64 4.79).
 * The first two need only 128 invocations and ≤ 12 KiB (the WebGPU defaults).
 */
export const MATMUL_CONFIGS: readonly MatmulConfig[] = [
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 256 },
  { bm: 64, bn: 64, bk: 16, tm: 8, tn: 4, minTiles: 128 },
  { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4, minTiles: 0 },
  { bm: 16, bn: 16, bk: 16, tm: 4, tn: 4, minTiles: 0 },
];

/**
 * The tiling for large A·B (neither operand transposed): 128x128x16, 8x8 per thread (256 threads), k unrolled, A
 * staged k-contiguous (`ka`). H200 (apps/bench/results/matmul-variants-h200-2026-12-04.md; wall clock per matmul,
 * warmed, TFLOP/s): 4096² 38.9 and 2048² 37.4 (MATMUL_CONFIGS' choice: 34.8 / 33.8 in the bench), 16384x384x1536
 * 36.9 (31.6 in the GPT step's profile), 16384x1536x384 35.2 (34.4 there), 16384x384x384 32.0 (29.9 for the best
 * other tiling); slower with Bᵀ (16384x1536x384 NT 28.0 vs 32–36) and with few tiles (1024²: 17.5 vs 24.6); with Aᵀ
 * (split-K weight gradients) on par, not faster. So `matmulKernel` takes it only for an unbatched A·B with
 * K and N multiples of 4 and at least `minTiles` of its tiles (the conditions it was measured under).
 */
export const MATMUL_LARGE: MatmulConfig = { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 256, unroll: true, ka: true };

/** Whether `matmulKernel` takes MATMUL_LARGE for this problem (see there). */
export function prefersLarge(p: Pick<MatmulProblem, 'M' | 'N' | 'K' | 'transA' | 'transB' | 'batches'>, caps: DeviceCaps): boolean {
  const c = MATMUL_LARGE;
  return !p.transA && !p.transB && p.batches === 1 && p.K % 4 === 0 && p.N % 4 === 0 && Math.ceil(p.M / c.bm) * Math.ceil(p.N / c.bn) >= c.minTiles && matmulConfigFits(c, caps);
}

/**
 * Tuning candidates (bench sweeps and the GPU tests check each one): tile shapes x {k loop, k unrolled,
 * unrolled + double-buffered workgroup memory}, and the A-k-contiguous (`ka`) tilings measured on the H200.
 * `minTiles` is 0: a candidate is chosen per shape, not by count.
 */
export const MATMUL_CANDIDATES: readonly MatmulConfig[] = (
  [
    [128, 64, 16, 8, 8],
    [128, 64, 8, 8, 8],
    [128, 128, 8, 8, 8],
    [128, 128, 16, 8, 8],
    [64, 128, 16, 8, 8],
    [64, 64, 16, 8, 4],
    [32, 32, 16, 4, 4],
  ] as const
).flatMap(([bm, bn, bk, tm, tn]): MatmulConfig[] => [
  { bm, bn, bk, tm, tn, minTiles: 0 },
  { bm, bn, bk, tm, tn, minTiles: 0, unroll: true },
  { bm, bn, bk, tm, tn, minTiles: 0, unroll: true, db: true },
]).concat([
  { ...MATMUL_LARGE, minTiles: 0 },
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 0, unroll: true, ka: true },
  { bm: 128, bn: 64, bk: 8, tm: 8, tn: 8, minTiles: 0, unroll: true, db: true, ka: true },
  { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8, minTiles: 0, unroll: true, db: true, ka: true },
]);

/** A configuration's short name: 128x64x16/8x8, +u (k unrolled), +db (double-buffered), +ka (A staged k-contiguous). */
export const matmulConfigName = (c: MatmulConfig) => `${c.bm}x${c.bn}x${c.bk}/${c.tm}x${c.tn}${c.unroll ? '+u' : ''}${c.db ? '+db' : ''}${c.ka ? '+ka' : ''}`;

/**
 * The skinny (split-K) kernel is used when M ≤ SKINNY_MAX_M and 32x32 tiles would give fewer than
 * SKINNY_MAX_TILES workgroups (not for Aᵀ·Bᵀ, whose A reads do not coalesce). H200: [32,784]·[784,128] 6.6 µs
 * skinny vs 28.4 µs for the best tile; [64,384]·[384,384] 6.6 vs 15.3; [64,1024]·[1024,1024] 21.9 vs 37.1;
 * but [64,4096]·[4096,4096] 404 vs 238 (256 tiles) and [32,1024]·[4096,1024]ᵀ 46 vs 37 (128 tiles).
 */
export const SKINNY_MAX_M = 64;
/** See SKINNY_MAX_M. */
export const SKINNY_MAX_TILES = 128;

/** Whether a matmul of this shape takes the skinny kernel (see SKINNY_MAX_M). */
export function prefersSkinny(m: number, n: number, transA: boolean, transB: boolean): boolean {
  return m <= SKINNY_MAX_M && Math.ceil(m / 32) * Math.ceil(n / 32) < SKINNY_MAX_TILES && !(transA && transB);
}

const threadsOf = (c: MatmulConfig) => (c.bn / c.tn) * (c.bm / c.tm);
/** Workgroup memory bytes of a configuration (with `ka`, A's padded rows: the most it can take). */
export const sharedBytesOf = (c: MatmulConfig) => ((c.ka ? c.bk + 4 : c.bk) * c.bm + c.bk * c.bn) * 4 * (c.db ? 2 : 1);

/** Whether a configuration fits the device's limits. */
export function matmulConfigFits(c: MatmulConfig, caps: DeviceCaps): boolean {
  return (
    threadsOf(c) <= caps.maxComputeInvocationsPerWorkgroup &&
    c.bn / c.tn <= caps.maxComputeWorkgroupSizeX &&
    c.bm / c.tm <= caps.maxComputeWorkgroupSizeY &&
    sharedBytesOf(c) <= caps.maxComputeWorkgroupStorageSize
  );
}

/** Picks the tiled configuration for an M x N output: the first that fits and has its `minTiles`. */
export function chooseMatmulConfig(m: number, n: number, caps: DeviceCaps, configs: readonly MatmulConfig[] = MATMUL_CONFIGS): MatmulConfig | undefined {
  const fits = configs.filter((c) => matmulConfigFits(c, caps));
  return fits.find((c) => Math.ceil(m / c.bm) * Math.ceil(n / c.bn) >= c.minTiles) ?? fits[fits.length - 1];
}

/** The skinny kernel's layout: RM rows x WN columns per workgroup, K split S ways (WN * S threads). */
export interface SkinnyConfig {
  /** Output rows per workgroup (RM). */
  readonly rm: number;
  /** Output columns per workgroup (WN). */
  readonly wn: number;
  /** Ways K is split among threads (S). */
  readonly s: number;
}

/**
 * Skinny layout for these caps: 256 threads (or the device's most, a power of two), RM = 8 rows, and K split
 * widely, since these shapes are latency-bound: B read along n (not transB): 8 column lanes x 32 k-splits
 * (H200, [32,784]·[784,128]: 6.6 µs; 32 lanes x 8: 24 µs); B read along k (transB): 16 k-lanes x 16 columns.
 */
export function chooseSkinnyConfig(m: number, transB: boolean, caps: DeviceCaps): SkinnyConfig | undefined {
  let nt = 256;
  while (nt > caps.maxComputeInvocationsPerWorkgroup || nt > caps.maxComputeWorkgroupSizeX) nt /= 2;
  if (nt < 16) return undefined;
  const rm = Math.min(8, m);
  const s = transB ? 16 : Math.min(32, nt / 8);
  const cfg = { rm, wn: nt / s, s };
  return rm * nt * 4 <= caps.maxComputeWorkgroupStorageSize ? cfg : undefined;
}

/** A matmul node as its kernels see it (shapes, transposes, epilogue, batch offsets). */
export interface MatmulProblem {
  /** The node and operand types being compiled. */
  readonly spec: KernelSpec<MatmulOp | 'matmulPartials'>;
  /** Output rows M. */
  readonly M: number;
  /** Output columns N. */
  readonly N: number;
  /** Inner extent K. */
  readonly K: number;
  /** A is stored transposed ([K, M]). */
  readonly transA: boolean;
  /** B is stored transposed ([N, K]). */
  readonly transB: boolean;
  /** A bias row is added (fusedMatmul). */
  readonly hasBias: boolean;
  /** ReLU is applied to the result (fusedMatmul). */
  readonly relu: boolean;
  /** A pointwise epilogue (`matmulEpilogue`), applied where each element is stored. */
  readonly epi?: MatmulEpilogueHook;
  /** Output batch axes (numpy-broadcast of A's and B's) and their count. */
  readonly batch: readonly number[];
  /** Number of output batches (product of `batch`). */
  readonly batches: number;
  /** WGSL lets `aoff`, `boff`, `yoff`, `zbias`: this workgroup's batch offsets (from wid.z). */
  readonly offsets: string;
}

/** The ops a matmul kernel computes. */
export type MatmulOp = 'matmul' | 'fusedMatmul' | 'matmulEpilogue';

/** The shape of a matmul problem: M x N x K, operand transposes, output batches (what a tuning entry is keyed by). */
export interface MatmulShape {
  /** Output rows M. */
  readonly m: number;
  /** Output columns N. */
  readonly n: number;
  /** Inner extent K. */
  readonly k: number;
  /** A is stored transposed (default false). */
  readonly transA?: boolean;
  /** B is stored transposed (default false). */
  readonly transB?: boolean;
  /** Output batches (default 1). */
  readonly batches?: number;
}

/** The shape of a matmul node from its output shape, its A operand's shape and its transposes. */
export function matmulShapeOf(out: readonly number[], a: readonly number[], transA: boolean, transB: boolean): MatmulShape {
  const rank = out.length;
  return { m: out[rank - 2], n: out[rank - 1], k: transA ? a[a.length - 2] : a[a.length - 1], transA, transB, batches: numel(out.slice(0, rank - 2)) };
}

/** The problem of a matmul node. */
export function matmulProblemOf(spec: KernelSpec<MatmulOp>): MatmulProblem {
  const { node } = spec;
  const attrs = node.attrs;
  const hasBias = node.op === 'fusedMatmul' && node.attrs.bias;
  const relu = node.op === 'fusedMatmul' && node.attrs.activation === 'relu';
  const rank = node.shape.length;
  const a = spec.inputs[0].shape;
  const { m: M, n: N, k: K } = matmulShapeOf(node.shape, a, attrs.transA, attrs.transB);
  const batch = node.shape.slice(0, rank - 2);
  const batches = numel(batch);
  let offsets = 'let aoff = 0u; let boff = 0u; let yoff = 0u; let zbias = 0u;';
  if (batch.length) {
    const sa = broadcastStrides(a.slice(0, -2), batch).map((x) => x * M * K);
    const sb = broadcastStrides(spec.inputs[1].shape.slice(0, -2), batch).map((x) => x * K * N);
    const sz = hasBias ? broadcastStrides(spec.inputs[2].shape, node.shape).slice(0, rank - 2) : batch.map(() => 0);
    offsets = `${indexMath('wid.z', batch, [sa, sb, sz], ['aoff', 'boff', 'zbias'], 'z').split('\n').join(' ')} let yoff = wid.z * ${u32Lit(M * N)};`;
  }
  return { spec, M, N, K, transA: attrs.transA, transB: attrs.transB, hasBias, relu, epi: matmulEpilogueHook(spec), batch, batches, offsets };
}

/**
 * Split-K for a long reduction over few output tiles (the weight gradients of a transformer: [384,16384]·
 * [16384,1536] is 72 tiles of 128x64, half a wave on 132 multiprocessors): the first config that fits, and S
 * splits so that tiles·S ≈ SPLIT_K_TARGET_WORKGROUPS (when tiles < a quarter of it), each split a multiple of BK.
 * Not for batched matmuls.
 */
export function chooseSplitK(m: number, n: number, k: number, batches: number, caps: DeviceCaps, configs: readonly MatmulConfig[] = MATMUL_CONFIGS): { cfg: MatmulConfig; splits: number; chunk: number } | undefined {
  const cfg = configs.find((c) => matmulConfigFits(c, caps));
  if (!cfg) return undefined;
  // partial sums live in scratch: one storage binding; splits are a dispatch dimension
  const split = splitKFor(m, n, k, batches, { rows: cfg.bm, cols: cfg.bn, slice: cfg.bk }, caps.maxStorageBufferBindingSize, caps.maxComputeWorkgroupsPerDimension);
  return split && { cfg, ...split };
}

/**
 * `matmul` and `fusedMatmul` (bias, relu epilogue): skinny for small M, split-K for long K over few tiles, else
 * tiled: MATMUL_LARGE for a large A·B (with the shipped list only), else the first of `configs` that fits.
 */
export function matmulKernel(spec: KernelSpec<MatmulOp>, caps: DeviceCaps, configs: readonly MatmulConfig[] = MATMUL_CONFIGS): KernelPlan {
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0) return { dispatches: [], scratch: [] };
  if (prefersSkinny(p.M, p.N * p.batches, p.transA, p.transB)) {
    const s = chooseSkinnyConfig(p.M, p.transB, caps);
    if (s) return skinnyPlan(p, s, caps);
  }
  const split = chooseSplitK(p.M, p.N, p.K, p.batches, caps, configs);
  if (split) return tiledPlan(p, split.cfg, caps, split);
  if (configs === MATMUL_CONFIGS && prefersLarge(p, caps)) return tiledPlan(p, MATMUL_LARGE, caps);
  const cfg = chooseMatmulConfig(p.M, p.N * p.batches, caps, configs);
  if (!cfg) {
    const c = configs[configs.length - 1];
    checkWorkgroupMemory(spec, sharedBytesOf(c), caps);
    return kernelError(spec, `needs ${threadsOf(c)} invocations per workgroup, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  }
  return tiledPlan(p, cfg, caps);
}

/** A matmul plan with a given configuration (for benchmarks and tests); throws if it does not fit. */
export function matmulPlanWith(spec: KernelSpec<MatmulOp>, caps: DeviceCaps, cfg: MatmulConfig | SkinnyConfig): KernelPlan {
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0) return { dispatches: [], scratch: [] };
  if ('rm' in cfg) return skinnyPlan(p, cfg, caps);
  if (!matmulConfigFits(cfg, caps)) kernelError(spec, `configuration ${JSON.stringify(cfg)} does not fit the device`);
  return tiledPlan(p, cfg, caps);
}

/** Operand bindings; A and B may be one node (one binding, then read as scalars). */
export function bindMatmul(p: MatmulProblem, vecA: boolean, vecB: boolean, withEpilogue = true) {
  const { spec } = p;
  const same = spec.node.inputs[0] === spec.node.inputs[1];
  const va = vecA && !same;
  const vb = vecB && !same;
  const bindings: Binding[] = [{ source: { kind: 'input', index: 0 }, access: 'read', dtype: 'f32' }];
  const decl = [`@group(0) @binding(0) var<storage, read> a: array<${va ? 'vec4<f32>' : 'f32'}>;`];
  if (!same) {
    bindings.push({ source: { kind: 'input', index: 1 }, access: 'read', dtype: 'f32' });
    decl.push(`@group(0) @binding(1) var<storage, read> b: array<${vb ? 'vec4<f32>' : 'f32'}>;`);
  }
  if (p.hasBias) {
    decl.push(`@group(0) @binding(${bindings.length}) var<storage, read> bias: array<f32>;`);
    bindings.push({ source: { kind: 'input', index: 2 }, access: 'read', dtype: 'f32' });
  }
  if (p.epi && withEpilogue) {
    const e = p.epi.declare(bindings.length);
    bindings.push(...e.bindings);
    decl.push(...e.decl);
  }
  return { bindings, decl, A: 'a', B: same ? 'a' : 'b', va, vb };
}

/** WGSL expression of the bias at (r, c), or '' without bias. */
export function biasAt(p: MatmulProblem, r: string, c: string): string {
  if (!p.hasBias) return '';
  const st = broadcastStrides(p.spec.inputs[2].shape, p.spec.node.shape);
  const [bs0, bs1] = st.slice(st.length - 2);
  const terms = [p.batch.length ? 'zbias' : '', bs0 ? `${r} * ${u32Lit(bs0)}` : '', bs1 ? (bs1 === 1 ? c : `${c} * ${u32Lit(bs1)}`) : ''].filter(Boolean);
  return `bias[${terms.join(' + ') || '0u'}]`;
}

/** What a matmul computes, for kernel header comments. */
/**
 * The statements that finish four adjacent outputs `v` (row `r`, columns `c`..`c+3`) and store them: bias, relu and
 * the epilogue (not on a split-K partial: the reduction pass applies them), then a vec4 or per-column store.
 */
export function storeVec4(p: MatmulProblem, partial: boolean, vecOut: boolean): string[] {
  const parts: string[] = [];
  if (p.hasBias && !partial) parts.push(`v = v + vec4<f32>(${[0, 1, 2, 3].map((x) => biasAt(p, 'r', `min(c + ${u32Lit(x)}, N - 1u)`)).join(', ')});`);
  if (p.relu && !partial) parts.push(`v = ${reluOf('v', true)};`); // NaN and −0 pass through (scalarOps)
  if (p.epi && !partial) {
    const epi = p.epi;
    parts.push(`v = vec4<f32>(${[0, 1, 2, 3].map((x) => epi.at(`v.${'xyzw'[x]}`, `yoff + r * N + min(c + ${u32Lit(x)}, N - 1u)`)).join(', ')});`);
  }
  if (vecOut) parts.push('if (c < N) { y[(yoff + r * N + c) / 4u] = v; }');
  else parts.push(['x', 'y', 'z', 'w'].map((cc, x) => `if (c + ${u32Lit(x)} < N) { y[yoff + r * N + c + ${u32Lit(x)}] = v.${cc}; }`).join(' '));
  return parts;
}

/** Operands of a `matmulEpilogue` or `matmulPartials` read rounded to f16 (its `round` flags). */
export function roundedOperands(spec: KernelSpec): number[] {
  if (spec.node.op !== 'matmulEpilogue' && spec.node.op !== 'matmulPartials') return [];
  const r = (spec.node as KernelSpec<'matmulEpilogue' | 'matmulPartials'>['node']).attrs.round;
  return [0, 1].filter((i) => r?.[i]);
}

export const matmulWhat = (p: MatmulProblem) => `${p.transA ? 'Aᵀ' : 'A'}·${p.transB ? 'Bᵀ' : 'B'}${p.hasBias ? ' + bias' : ''}${p.relu ? ', relu' : ''}${p.epi ? `, ${p.epi.what}` : ''}`;

/**
 * The tiled kernel; with `split`, each of the `splits` workgroup layers (grid z) sums its chunk of K into its own
 * partial product: into scratch, then summed by a reduce pass, or (`partialsOut`) into the node's own [S, M, N]
 * output, with no second pass (`matmulPartials`).
 */
export function tiledPlan(p: MatmulProblem, cfg: MatmulConfig, caps: DeviceCaps, split?: { splits: number; chunk: number; partialsOut?: boolean }): KernelPlan {
  const { spec, M, N, K, transA, transB } = p;
  const { bm, bn, bk, tm, tn } = cfg;
  const tx = bn / tn;
  const ty = bm / tm;
  const nt = tx * ty;
  if (split && (p.batches !== 1 || split.chunk % bk !== 0)) kernelError(spec, `split-K needs an unbatched matmul and a chunk that is a multiple of BK=${bk}`);
  const grid: [number, number, number] = [Math.ceil(N / bn), Math.ceil(M / bm), split ? split.splits : p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max))
    kernelError(spec, `needs a ${grid.join('x')} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  checkWorkgroupMemory(spec, sharedBytesOf(cfg), caps);
  // vec4 global loads along each operand's contiguous dimension when it is a multiple of 4.
  // under split-K the epilogue runs in the reduction pass (splitReduce): not bound here
  const { bindings, decl, A, B, va, vb } = bindMatmul(p, transA ? M % 4 === 0 : K % 4 === 0, transB ? K % 4 === 0 : N % 4 === 0, !split);
  const vecOut = N % 4 === 0;
  // A staged k-contiguous (see MatmulConfig.ka): only where A arrives as vec4s along k
  const kA = !!cfg.ka && !transA && va && bk % 4 === 0;
  // Workgroup memory indexing: flat vec4 arrays (As[k * BM/4 + x/4]), or with `ka` two-dimensional (As[k][x/4];
  // As[m][k/4] where A is k-contiguous) — each form is the one measured for its configurations (see MATMUL_LARGE).
  const twoD = !!cfg.ka;
  /** The vec4 at row `k`, vec4 column `x` of a [k][x/4] array `sh` whose rows hold `w` vec4s. */
  const at = (sh: string, k: string, x: string, w: number) => {
    if (twoD) return `${sh}[${k}][${x}]`;
    const kk = k.includes(' + ') && !(k.startsWith('(') && k.endsWith(')')) ? `(${k})` : k;
    return `${sh}[${kk} * ${u32Lit(w)} + ${x}]`;
  };
  if (split && p.hasBias) {
    // the bias is added by the reduction pass: unbind it here
    decl.pop();
    bindings.pop();
  }
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${vecOut ? 'vec4<f32>' : 'f32'}>;`);
  bindings.push(split && !split.partialsOut ? { source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' } : { source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });

  // Tile loads: each operand's BK x B{M,N} slice in units of its global load (vec4 or scalar), NT at a time, into
  // registers (`fetch`, for the slice at k = kt), then into workgroup memory (`store`) at As[k][x/4][x%4], where x
  // is the row (A) or column (B) inside the tile. The next slice is fetched while the current one is computed.
  interface Load { regs: string[]; fetch: string[]; store: (slot: number) => string[] }
  const tileLoad = (which: 'A' | 'B'): Load => {
    const isA = which === 'A';
    const buf = isA ? A : B;
    const vec = isA ? va : vb;
    const bx = isA ? bm : bn; // tile extent along m (A) or n (B)
    const ext = isA ? 'M' : 'N';
    const g0 = isA ? 'row0' : 'col0';
    const sh = isA ? 'As' : 'Bs';
    // Contiguous dim in global memory: k when (A, !transA) or (B, transB); else m/n.
    const alongK = isA ? !transA : transB;
    const w = vec ? 4 : 1;
    const units = (bx * bk) / w;
    const per = Math.ceil(units / nt);
    const kRows = isA && kA; // As[m][k/4]: a slot is BM rows
    const stores: ((so: string) => string)[] = [];
    const out: Load = { regs: [], fetch: [], store: (slot) => stores.map((f) => f(slot ? `${u32Lit(slot * (kRows ? bx : bk))} + ` : '')) };
    for (let l = 0; l < per; l++) {
      const r = `${which.toLowerCase()}r${l}`;
      out.regs.push(`var ${r}: ${vec ? 'vec4<f32>' : 'f32'};`);
      const e = `(lid + ${u32Lit(l * nt)})`;
      const guard = units % nt === 0 || l < per - 1 ? '' : `if (${e} < ${u32Lit(units)}) `;
      // coordinates of this unit: x (m or n inside the tile), k (inside the slice)
      const coords = alongK ? `let x = ${e} / ${u32Lit(bk / w)}; let k = (${e} % ${u32Lit(bk / w)}) * ${u32Lit(w)};` : `let k = ${e} / ${u32Lit(bx / w)}; let x = (${e} % ${u32Lit(bx / w)}) * ${u32Lit(w)};`;
      const gx = `${g0} + x`;
      const gk = 'kt + k';
      const index = `${isA ? 'aoff' : 'boff'} + ${isA ? (transA ? `(${gk}) * M + ${gx}` : `(${gx}) * K + ${gk}`) : transB ? `(${gx}) * K + ${gk}` : `(${gk}) * N + ${gx}`}`;
      const zero = vec ? 'vec4<f32>()' : '0.0';
      out.fetch.push(`${guard}{ ${coords} ${r} = ${zero}; if (${gx} < ${ext} && ${gk} < K) { ${r} = ${buf}[${vec ? `(${index}) / 4u` : index}]; } }`);
      const w4 = bx / 4;
      if (kRows) stores.push((so) => `${guard}{ ${coords} ${sh}[${so}x][k / 4u] = ${r}; }`);
      else if (!vec) stores.push((so) => `${guard}{ ${coords} ${at(sh, `${so}k`, 'x / 4u', w4)}[x % 4u] = ${r}; }`);
      else if (alongK) stores.push((so) => `${guard}{ ${coords} ${['x', 'y', 'z', 'w'].map((c, q) => `${at(sh, `${so}(k + ${u32Lit(q)})`, 'x / 4u', w4)}[x % 4u] = ${r}.${c};`).join(' ')} }`);
      else stores.push((so) => `${guard}{ ${coords} ${at(sh, `${so}k`, 'x / 4u', w4)} = ${r}; }`);
    }
    return out;
  };
  const la = tileLoad('A');
  const lb = tileLoad('B');
  const mi = tm / 4;
  const nj = tn / 4;
  const lines: string[] = [];
  const L = (s: string, d = 1) => lines.push(`${'  '.repeat(d)}${s}`);
  // acc{row}_{j}: vec4 of columns chunk j for thread row `row` (0..TM-1 = chunk i, component q)
  for (let r = 0; r < tm; r++) for (let j = 0; j < nj; j++) L(`var acc${r}_${j} = vec4<f32>();`);
  for (const s of [...la.regs, ...lb.regs]) L(s);
  // K range of this workgroup: all of K, or its split's chunk [kbeg, kend) (a multiple of BK from kbeg)
  L(split ? `let kbeg = wid.z * ${u32Lit(split.chunk)}; let kend = min(K, kbeg + ${u32Lit(split.chunk)});` : 'let kbeg = 0u; let kend = K;');
  L('{ let kt = kbeg;');
  for (const s of [...la.fetch, ...lb.fetch]) L(s, 2);
  L('}');
  // One k step of the slice in workgroup-memory slot `slot` (0, or 1 when double-buffered), k a WGSL expression or
  // literal. Workgroup memory is [k][x/4] so that, with k a constant (unrolled) or the loop index, the clamped part
  // of each index (robustness) is the same `c + ty` / `c + tx` for every k: computed once, not per load.
  const step = (k: string, slot: number, d: number) => {
    if (kA) return stepKA(k, slot, d);
    const ks = slot ? `(${u32Lit(slot * bk)} + ${k})` : k;
    for (let i = 0; i < mi; i++) L(`let a${i} = ${at('As', ks, `${u32Lit(i * ty)} + ty`, bm / 4)};`, d);
    for (let j = 0; j < nj; j++) L(`let b${j} = ${at('Bs', ks, `${u32Lit(j * tx)} + tx`, bn / 4)};`, d);
    for (let i = 0; i < mi; i++)
      for (let q = 0; q < 4; q++) L(Array.from({ length: nj }, (_, j) => `acc${i * 4 + q}_${j} = fma(vec4<f32>(a${i}.${'xyzw'[q]}), b${j}, acc${i * 4 + q}_${j});`).join(' '), d);
  };
  // With A k-contiguous: four k steps at once (k a multiple of 4); thread row (i, q) is tile row i*4*TY + q*TY + ty,
  // so the rows a subgroup reads at once are adjacent (the padded row stride spreads them over the banks).
  const stepKA = (k: string, slot: number, d: number) => {
    const ks = slot ? `${u32Lit(slot * bk)} + ${k}` : k;
    for (let i = 0; i < mi; i++)
      for (let q = 0; q < 4; q++) L(`let a${i}_${q} = As[${u32Lit(slot * bm + (i * 4 + q) * ty)} + ty][(${k}) / 4u];`, d);
    for (let c = 0; c < 4; c++) {
      for (let j = 0; j < nj; j++) L(`let b${j}_${c} = Bs[${ks} + ${u32Lit(c)}][${u32Lit(j * tx)} + tx];`, d);
      for (let i = 0; i < mi; i++)
        for (let q = 0; q < 4; q++) L(Array.from({ length: nj }, (_, j) => `acc${i * 4 + q}_${j} = fma(vec4<f32>(a${i}_${q}.${'xyzw'[c]}), b${j}_${c}, acc${i * 4 + q}_${j});`).join(' '), d);
    }
  };
  const kStep = kA ? 4 : 1;
  const slice = (slot: number, d: number) => {
    if (!cfg.unroll) {
      L(`for (var k = 0u; k < BK; k = k + ${u32Lit(kStep)}) {`, d);
      step('k', slot, d + 1);
      L('}', d);
    } else for (let k = 0; k < bk; k += kStep) { L('{', d); step(u32Lit(k), slot, d + 1); L('}', d); }
  };
  if (!cfg.db) {
    L('for (var k0 = kbeg; k0 < kend; k0 = k0 + BK) {');
    for (const s of [...la.store(0), ...lb.store(0)]) L(s, 2);
    L('workgroupBarrier();', 2);
    L('if (k0 + BK < kend) { let kt = k0 + BK;', 2);
    for (const s of [...la.fetch, ...lb.fetch]) L(s, 3);
    L('}', 2);
    slice(0, 2);
    L('workgroupBarrier();', 2);
    L('}');
  } else {
    // Slice 0 staged in slot 0 before the loop. Each half-step computes the slice at k0 from one slot while the
    // next slice (held in registers) is stored into the other slot and the one after is fetched, then one barrier.
    // The loop body is written out for both slots (k0 advances 2·BK), so every slot offset is a constant.
    for (const s of [...la.store(0), ...lb.store(0)]) L(s);
    L('if (kbeg + BK < kend) { let kt = kbeg + BK;');
    for (const s of [...la.fetch, ...lb.fetch]) L(s, 2);
    L('}');
    L('workgroupBarrier();');
    L('for (var k0 = kbeg; k0 < kend; k0 = k0 + 2u * BK) {');
    for (const slot of [0, 1]) {
      const at = slot ? 'k0 + BK' : 'k0';
      const d = slot ? 3 : 2;
      if (slot) L('if (k0 + BK < kend) {', 2);
      L(`if (${at} + BK < kend) {`, d);
      for (const s of [...la.store(1 - slot), ...lb.store(1 - slot)]) L(s, d + 1);
      L('}', d);
      L(`if (${at} + 2u * BK < kend) { let kt = ${at} + 2u * BK;`, d);
      for (const s of [...la.fetch, ...lb.fetch]) L(s, d + 1);
      L('}', d);
      slice(slot, d);
      L('workgroupBarrier();', d);
      if (slot) L('}', 2);
    }
    L('}');
  }
  // Epilogue: thread row r = chunk i, component q → global row row0 + (i*TY + ty)*4 + q; columns chunk j → col0 + (j*TX + tx)*4.
  for (let i = 0; i < mi; i++)
    for (let q = 0; q < 4; q++) {
      const r = i * 4 + q;
      L(kA ? `{ let r = row0 + ${u32Lit((i * 4 + q) * ty)} + ty; if (r < M) {` : `{ let r = row0 + (${u32Lit(i * ty)} + ty) * 4u + ${u32Lit(q)}; if (r < M) {`);
      for (let j = 0; j < nj; j++) {
        const parts = [`let c = col0 + (${u32Lit(j * tx)} + tx) * 4u;`, `var v = acc${r}_${j};`, ...storeVec4(p, split !== undefined, vecOut)];
        L(`{ ${parts.join(' ')} }`, 2);
      }
      L('} }');
    }
  const body = lines.join('\n');
  const loads = `${va ? 'vec4' : 'scalar'} A loads, ${vb ? 'vec4' : 'scalar'} B loads, ${vecOut ? 'vec4' : 'scalar'} stores`;
  const slots = cfg.db ? 2 : 1;
  const code = `${header(spec, `tiled matmul ${matmulWhat(p)}: M=${M} N=${N} K=${K}, tile ${bm}x${bn}x${bk}${cfg.db ? ' double-buffered' : ''}${cfg.unroll ? ', k unrolled' : ''}${kA ? ', A staged k-contiguous' : ''}, ${tm}x${tn} per thread, ${tx}x${ty} threads, ${loads}`)}${decl.join('\n')}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
const BM = ${u32Lit(bm)};
const BN = ${u32Lit(bn)};
const BK = ${u32Lit(bk)};
var<workgroup> As: ${kA ? `array<array<vec4<f32>, ${bk / 4 + 1}>, ${slots * bm}>` : twoD ? `array<array<vec4<f32>, ${bm / 4}>, ${slots * bk}>` : `array<vec4<f32>, ${(slots * bk * bm) / 4}>`};
var<workgroup> Bs: ${twoD ? `array<array<vec4<f32>, ${bn / 4}>, ${slots * bk}>` : `array<vec4<f32>, ${(slots * bk * bn) / 4}>`};

@compute @workgroup_size(${tx}, ${ty})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let tx = lid3.x;
  let ty = lid3.y;
  ${split ? `let aoff = 0u; let boff = 0u; let yoff = wid.z * ${u32Lit(M * N)};` : p.offsets}
${body}
}
`;
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join('x')}x` : ''}${M}x${K}x${N}`);
  const main: Dispatch = { label: split ? `${label}:split${split.splits}` : label, code, bindings, workgroupSize: [tx, ty, 1], grid };
  if (!split || split.partialsOut) return { dispatches: [main], scratch: [] };
  return { dispatches: [main, splitReduce(p, split.splits, caps, label)], scratch: [split.splits * M * N * 4] };
}

/** Split-K's second pass: y = act(Σ_s partial[s] + bias), a thread per output vec4 (or element). */
export function splitReduce(p: MatmulProblem, splits: number, caps: DeviceCaps, label: string): Dispatch {
  const { spec, M, N } = p;
  const vec = N % 4 === 0;
  const w = vec ? 4 : 1;
  const ty = vec ? 'vec4<f32>' : 'f32';
  const bindings: Binding[] = [{ source: { kind: 'scratch', index: 0 }, access: 'read', dtype: 'f32' }];
  const decl = [`@group(0) @binding(0) var<storage, read> part: array<${ty}>;`];
  if (p.hasBias) {
    decl.push('@group(0) @binding(1) var<storage, read> bias: array<f32>;');
    bindings.push({ source: { kind: 'input', index: 2 }, access: 'read', dtype: 'f32' });
  }
  if (p.epi) {
    const e = p.epi.declare(bindings.length);
    bindings.push(...e.bindings);
    decl.push(...e.decl);
  }
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${ty}>;`);
  bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  const units = (M * N) / w;
  const wg = linearWorkgroupSize(caps, 256);
  const g = linearGrid(spec, Math.ceil(units / wg), caps);
  const bias = p.hasBias
    ? vec
      ? `v = v + vec4<f32>(${[0, 1, 2, 3].map((x) => biasAt(p, 'r', `c + ${u32Lit(x)}`)).join(', ')});`
      : `v = v + ${biasAt(p, 'r', 'c')};`
    : '';
  const code = `${header(spec, `split-K reduction: sums ${splits} partial products${p.hasBias ? ', adds the bias' : ''}${p.relu ? ', relu' : ''}; a thread per output ${vec ? 'vec4' : 'element'}`)}${decl.join('\n')}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let e = (${g.index}) * ${u32Lit(wg)} + lid;
  if (e >= ${u32Lit(units)}) { return; }
  let r = (e * ${u32Lit(w)}) / ${u32Lit(N)};
  let c = (e * ${u32Lit(w)}) % ${u32Lit(N)};
  var v = part[e];
  for (var s = 1u; s < ${u32Lit(splits)}; s = s + 1u) { v = v + part[s * ${u32Lit(units)} + e]; }
  ${bias}
  ${p.relu ? `v = ${reluOf('v', vec)};` : ''}
  ${p.epi ? `v = ${epiSplit(p.epi, vec)};` : ''}
  y[e] = v;
}
`;
  return { label: `${label}:reduce`, code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid };
}

/** The epilogue in split-K's reduction pass: element e (vec4 e of four outputs) is output e·w (a batch of one). */
function epiSplit(epi: MatmulEpilogueHook, vec: boolean): string {
  if (!vec) return epi.at('v', 'e');
  return `vec4<f32>(${[0, 1, 2, 3].map((x) => epi.at(`v.${'xyzw'[x]}`, `e * 4u + ${u32Lit(x)}`)).join(', ')})`;
}

function skinnyPlan(p: MatmulProblem, cfg: SkinnyConfig, caps: DeviceCaps): KernelPlan {
  const { spec, M, N, K, transA, transB } = p;
  const { rm, wn, s } = cfg;
  const nt = wn * s;
  const grid: [number, number, number] = [Math.ceil(N / wn), Math.ceil(M / rm), p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max))
    kernelError(spec, `needs a ${grid.join('x')} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  checkWorkgroupMemory(spec, rm * nt * 4, caps);
  const { bindings, decl, A, B } = bindMatmul(p, false, false);
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<f32>;`);
  bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  // Lanes: k-split fastest when B is read along k (transB), column fastest otherwise, so B reads coalesce.
  const lane = transB ? `let ks = lid % ${u32Lit(s)}; let nl = lid / ${u32Lit(s)};` : `let nl = lid % ${u32Lit(wn)}; let ks = lid / ${u32Lit(wn)};`;
  const aAt = (r: number) => (transA ? `${A}[aoff + k * M + m0 + ${u32Lit(r)}]` : `${A}[aoff + (m0 + ${u32Lit(r)}) * K + k]`);
  const bAt = transB ? `${B}[boff + n * K + k]` : `${B}[boff + k * N + n]`;
  const rows = Array.from({ length: rm }, (_, r) => r);
  const full = M % rm === 0;
  const accs = rows.map((r) => `var acc${r} = 0.0;`).join(' ');
  const fmas = rows.map((r) => (full ? `acc${r} = fma(${aAt(r)}, bv, acc${r});` : `if (m0 + ${u32Lit(r)} < M) { acc${r} = fma(${aAt(r)}, bv, acc${r}); }`)).join('\n      ');
  const parts = rows.map((r) => `part[${u32Lit(r * nt)} + lid] = acc${r};`).join(' ');
  const bias = biasAt(p, 'm', 'n');
  const code = `${header(spec, `skinny matmul ${matmulWhat(p)}: M=${M} N=${N} K=${K}, ${rm} rows x ${wn} columns per workgroup, K split ${s} ways (${transB ? 'k' : 'column'} lanes fastest), partials summed in workgroup memory`)}${decl.join('\n')}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
const S = ${u32Lit(s)};
var<workgroup> part: array<f32, ${rm * nt}>;

@compute @workgroup_size(${nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.y * ${u32Lit(rm)};
  ${p.offsets}
  ${lane}
  let n = wid.x * ${u32Lit(wn)} + nl;
  ${accs}
  if (n < N) {
    for (var k = ks; k < K; k = k + S) {
      let bv = ${bAt};
      ${fmas}
    }
  }
  ${parts}
  workgroupBarrier();
  for (var o = lid; o < ${u32Lit(rm * wn)}; o = o + ${u32Lit(nt)}) {
    let r = o / ${u32Lit(wn)};
    let c = o % ${u32Lit(wn)};
    let m = m0 + r;
    let n = wid.x * ${u32Lit(wn)} + c;
    if (m < M && n < N) {
      var v = 0.0;
      for (var q = 0u; q < S; q = q + 1u) { v = v + part[r * ${u32Lit(nt)} + ${transB ? 'c * S + q' : `q * ${u32Lit(wn)} + c`}]; }
${bias ? `      v = v + ${bias};\n` : ''}${p.relu ? `      v = ${reluOf('v')};\n` : ''}${p.epi ? `      v = ${p.epi.at('v', 'yoff + m * N + n')};\n` : ''}      y[yoff + m * N + n] = v;
    }
  }
}
`;
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join('x')}x` : ''}${M}x${K}x${N}`);
  return { dispatches: [{ label, code, bindings, workgroupSize: [nt, 1, 1], grid }], scratch: [] };
}

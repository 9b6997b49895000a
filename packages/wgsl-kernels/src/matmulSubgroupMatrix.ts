// Mixed-precision matmul on subgroup matrices (Dawn's `chromium-experimental-subgroup-matrix`: tensor cores on
// NVIDIA through VK_KHR_cooperative_matrix): f16 operands, f32 accumulation, f32 in memory. Chosen only under
// the `precision: 'mixed'` policy (`caps.mixedMatmul` set by the runtime); fp32 stays the default.
// - A workgroup of SGM x SGN subgroups (32 lanes each) computes a BM x BN tile; each subgroup FM x FN result
//   matrices of m x n. K is stepped in BK slices: each operand's slice is read from global memory (vec4 where the
//   contiguous dimension allows), rounded to f16 as it is read, and staged in workgroup memory in the operand's own layout, so
//   the transposed forms only flip the row/column-major flag of `subgroupMatrixLoad` (Aᵀ: the left matrix is
//   loaded column-major; Bᵀ: the right one). The next slice is fetched into registers while this one computes.
// - Results leave through workgroup memory (one FM row of result matrices at a time), where each lane applies
//   bias / relu / the `matmulEpilogue` expression per element and stores with bounds checks; a plain product on
//   a shape of whole m x n blocks is stored straight from the result matrices instead (faster: H200, 4096³, 79.7
//   vs 52.1 TFLOP/s with one matrix per round staged).
// - Split-K (weight gradients: K = batch·context over few output tiles) writes partial products to scratch and
//   reuses matmul.ts's reduction pass (which applies the epilogue).
// Subgroup-matrix offsets depend on the subgroup index, which WGSL's uniformity analysis cannot prove uniform
// per subgroup: `diagnostic(off, chromium.subgroup_matrix_uniformity)` (every lane of a subgroup computes the
// same offsets). Needs `shader-f16`, `subgroups` and the feature; the runtime checks them before setting caps.

import type { DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { bindMatmul, type MatmulOp, type MatmulProblem, matmulKernel, matmulProblemOf, matmulWhat, prefersSkinny, roundedOperands, splitReduce, storeVec4 } from './matmul.js';
import { header, kernelError, labelOf, u32Lit } from './wgsl.js';

/** A subgroup-matrix shape the device offers for f16 operands and f32 results (left m x k, right k x n). */
export interface SubgroupMatrixShape {
  /** Rows of the left and result matrices. */
  readonly m: number;
  /** Columns of the right and result matrices. */
  readonly n: number;
  /** Inner extent. */
  readonly k: number;
}

/** A subgroup-matrix tiling: SGM x SGN subgroups, each FM x FN result matrices, K slices of BK. */
export interface SubgroupMatrixTiling {
  /** Subgroups along M (SGM). */
  readonly sgm: number;
  /** Subgroups along N (SGN). */
  readonly sgn: number;
  /** Result matrices per subgroup along M (FM). */
  readonly fm: number;
  /** Result matrices per subgroup along N (FN). */
  readonly fn: number;
  /** K slice staged per iteration (BK). */
  readonly bk: number;
  /**
   * Two workgroup-memory slices: the next slice is stored while this one is computed, one barrier per slice
   * instead of two. Not shipped: slower on the H100 where measured (2026-12-07: 2x4/4x4, 8.2 vs 11.4 TFLOP/s on a
   * weight gradient); still a candidate for `subgroupMatrixPlan(p, caps, t)`.
   */
  readonly db?: boolean;
  /**
   * f16 elements added to each staged row (a multiple of 8: rows stay 16-byte aligned). Unpadded rows of 64 or
   * 256 bytes put the 8 rows a matrix load reads at once on the same banks of workgroup memory.
   */
  readonly pad?: number;
  /**
   * Workgroups walk the output in bands of this many tile rows (column by column inside a band) instead of row
   * by row, so the workgroups running at once share A's and B's tiles in L2 (0 or absent: row by row).
   */
  readonly group?: number;
  /**
   * Aᵀ transposed while staged ([m][k], loaded row-major) instead of staged as it lies in memory ([k][m]) and
   * loaded column-major. Not shipped. It was suspected of being inexact (H100, 2026-12-07: 2x4 subgroups of 4x4 matrices
   * under split-K up to 0.3 % small against the interpreter), but the shipped column-major form gives the same
   * deviation on the same check (`h100-2026-12-07-s3-sgm-check.json`: split-K Aᵀ whole blocks 0.0151 of 63.2;
   * matmulPartials ×8 whole blocks 0.0059 of 22.5 under every tiling), so it is not this staging form. Nor is it
   * the tensor cores' f32 accumulation as such: cuBLAS's fp16 product on the same K = 2048 shape is off by 2.1e-4 of
   * 61.9 (`h100-2026-12-07-s4-tc-accuracy.json`). The cause is not found.
   */
  readonly transposeA?: boolean;
  /**
   * How a slice reaches workgroup memory: 'vec4' (the default) has each lane read 4 contiguous elements and store
   * them as 4 f16 stores, 8 bytes apart across lanes (2-way bank conflicts, 2 wavefronts per store at least);
   * 'lanes' has consecutive lanes read and store consecutive elements, so each f16 store of a subgroup covers 64
   * contiguous bytes (one wavefront). Not shipped: half as fast on every GPT 6x384 shape and 4096³ (H100,
   * 2026-12-07, `h100-2026-12-07-s3-sgm-staging.json`: 15.4 vs 29.0 TFLOP/s at 4096³ under the sweep's generator),
   * the four times as many global loads costing more than the stores save.
   */
  readonly stage?: 'vec4' | 'lanes';
  /**
   * Operands stored as f16 (autocast's f16 storage) are loaded by `subgroupMatrixLoad` straight from their storage
   * buffers: no workgroup staging, no barriers in the main loop (the L1 cache shares the tiles between subgroups).
   * Needs f16 operands in memory and M, N, K multiples of the matrix shape. Not shipped: `subgroupMatrixLoad` from
   * storage is slow through Dawn on NVIDIA (H100, 2026-12-07 s5, `h100-2026-12-07-s5-abl-f16.jsonl`: 13–16 TFLOP/s at
   * 4096³ against 109 for the shipped staging on the same f16 operands). Staging slices by matrix copies (load a
   * 16x16 block from storage, `subgroupMatrixStore` it into the slice: sgm-ablation's `copy-staged`) was as slow
   * there (22.5 TFLOP/s; 29.4 vs 28.2 ms for the GPT 6x384 mixed step where its operands allowed it), and so was
   * binding f16 operands as array<vec2<u32>> bit-cast to vec4<f16> (`u32-loads`, 42 TFLOP/s).
   */
  readonly direct?: boolean;
  /**
   * Result matrices each subgroup stages per round when results leave through workgroup memory (a divisor of FN;
   * default 1, or the whole row with direct loads where it fits): each round costs two barriers, which a K = 384
   * product's epilogue has more of than its main loop (32 against 24 with 4x4 matrices). Not shipped until the step
   * times it (`sgm-step-variants --variants rows2,sgn2+rows4`, prepared in `h100-2026-12-07-s5.md`, not yet run).
   */
  readonly perRound?: number;
  /**
   * How results that need per-element work (an epilogue, an f16 output) leave: 'staged' (the default) through
   * workgroup memory a matrix per round, two barriers a round; 'memory' stores every result matrix straight to the
   * output (f32) or to f32 scratch (an f16 output), then after one barrier each lane reads four adjacent products
   * back (from L2: the tile was just written) and applies the epilogue. Needs whole m x n blocks (else 'staged');
   * frees the result staging's workgroup memory. Not shipped: it passes every form the staging passes against the
   * interpreter, but the mixed GPT 6x384 step's matmuls take 18.4 ms with it against 16.4 staged (H100, 2026-12-08,
   * `h100-2026-12-08-s7.md`), so the epilogue kernels' cost is not the staging's barriers.
   */
  readonly results?: 'staged' | 'memory';
}

/** Lanes per subgroup the kernel assumes (NVIDIA: 32; the runtime checks the adapter's subgroup size). */
export const SUBGROUP_MATRIX_LANES = 32;

/**
 * Tilings, preferred first. H100, 2026-12-07 (apps/bench/results/h100-2026-12-07-sgm-sweep.md): 8 subgroups (2x4)
 * of 4x4 matrices, 32-deep slices, rows padded by 8 halves was the fastest tiling measured on 9 of the GPT 6x384
 * step's 10 matmul shapes and 4096³ (1.2–4.3x the earlier 2x2 tiling without padding; the padding alone gave
 * 1.7x at 4096³). A big tile is used only when the output has enough of them to fill the GPU, or when split-K
 * will fill it (a long K over few tiles: weight gradients); else the next. The 2x2 rows (needed where results are
 * staged through workgroup memory) take the same padding.
 */
const TILINGS: readonly (SubgroupMatrixTiling & { minTiles: number })[] = [
  { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, minTiles: 128 },
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, pad: 8, minTiles: 128 },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, pad: 8, minTiles: 64 },
  { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, pad: 8, minTiles: 0 },
];

const tileOf = (t: SubgroupMatrixTiling, s: SubgroupMatrixShape) => ({ bm: t.sgm * t.fm * s.m, bn: t.sgn * t.fn * s.n, nt: t.sgm * t.sgn * SUBGROUP_MATRIX_LANES });
/** f16 elements of one staged slice of an operand: rows of `inner` (the contiguous extent) plus the padding. */
const sliceOf = (t: SubgroupMatrixTiling, bx: number, alongK: boolean) => (alongK ? bx * (t.bk + (t.pad ?? 0)) : t.bk * (bx + (t.pad ?? 0)));
/** Whether A's slice is staged k-contiguous ([m][k]): A·B, or Aᵀ transposed while staged (`transposeA`). */
const aAlongK = (t: SubgroupMatrixTiling, transA: boolean) => !transA || t.transposeA === true;
/**
 * Workgroup memory of a tiling: the f16 slices of A and B (padded rows counted as A·B's; a transpose moves the
 * padding to the other dimension, never more than 8 rows' worth more), and the f32 staging of one result matrix per
 * subgroup unless results are stored straight from the matrices.
 */
const bytesOf = (t: SubgroupMatrixTiling, s: SubgroupMatrixShape, staged: boolean) => {
  const { bm, bn } = tileOf(t, s);
  const slices = t.direct ? 0 : Math.max(sliceOf(t, bm, true), sliceOf(t, bm, false)) + Math.max(sliceOf(t, bn, true), sliceOf(t, bn, false));
  return slices * 2 * (t.db ? 2 : 1) + (staged ? t.sgm * t.sgn * (t.perRound ?? 1) * s.m * s.n * 4 : 0);
};

/** Whether a tiling fits the device's limits (`staged`: results leave through workgroup memory). */
function fits(t: SubgroupMatrixTiling, s: SubgroupMatrixShape, caps: DeviceCaps, staged = true): boolean {
  const { nt } = tileOf(t, s);
  return nt <= caps.maxComputeInvocationsPerWorkgroup && nt <= caps.maxComputeWorkgroupSizeX && bytesOf(t, s, staged) <= caps.maxComputeWorkgroupStorageSize && t.bk % s.k === 0 && (t.pad ?? 0) % 8 === 0 && t.fn % (t.perRound ?? 1) === 0;
}

/**
 * The tiling for an M x N output (batches included in N's count), or undefined when none fits the device
 * (`staged`: results may leave through workgroup memory, which needs room for them; `splitK`: a long reduction
 * that split-K spreads over many workgroups, so the biggest tile that fits is taken).
 */
export function chooseSubgroupMatrixTiling(m: number, n: number, s: SubgroupMatrixShape, caps: DeviceCaps, staged = true, splitK = false): SubgroupMatrixTiling | undefined {
  const ok = TILINGS.filter((t) => fits(t, s, caps, staged));
  if (splitK) return ok[0];
  return ok.find((t) => Math.ceil(m / tileOf(t, s).bm) * Math.ceil(n / tileOf(t, s).bn) >= t.minTiles) ?? ok[ok.length - 1];
}

/** Whether a reduction is long enough for split-K (as `splitOf` requires), whatever the tile. */
const longReduction = (p: MatmulProblem) => p.batches === 1 && p.K >= 512 && p.K >= 4 * Math.max(p.M, p.N);

/** Split-K for long reductions over few tiles (as matmul.ts's chooseSplitK, for this tile): splits and chunk, or undefined. */
function splitOf(p: MatmulProblem, t: SubgroupMatrixTiling, s: SubgroupMatrixShape, caps: DeviceCaps): { splits: number; chunk: number } | undefined {
  const { M, N, K } = p;
  if (!longReduction(p)) return undefined;
  const { bm, bn } = tileOf(t, s);
  const tiles = Math.ceil(M / bm) * Math.ceil(N / bn);
  if (tiles >= 128) return undefined;
  let splits = Math.min(Math.ceil(512 / tiles), Math.floor(K / 128), Math.floor(caps.maxStorageBufferBindingSize / (M * N * 4)), caps.maxComputeWorkgroupsPerDimension);
  if (splits < 2) return undefined;
  const chunk = Math.ceil(K / splits / t.bk) * t.bk;
  splits = Math.ceil(K / chunk);
  return splits < 2 ? undefined : { splits, chunk };
}

/**
 * The matmul generator of the registry: under the mixed-precision policy (`caps.mixedMatmul`) a subgroup-matrix
 * plan, except for shapes that take the skinny kernel (M ≤ 64: latency-bound, no tile to fill) or that no tiling
 * fits; otherwise, and always without the policy, matmul.ts's fp32 kernels.
 */
export function matmulMixedKernel(spec: KernelSpec<MatmulOp>, caps: DeviceCaps, override?: Partial<SubgroupMatrixTiling>): KernelPlan {
  if (!caps.mixedMatmul) return matmulKernel(spec, caps);
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0 || prefersSkinny(p.M, p.N * p.batches, p.transA, p.transB)) return matmulKernel(spec, caps);
  return subgroupMatrixPlan(p, caps, undefined, override) ?? matmulKernel(spec, caps);
}

/**
 * Whether results may need workgroup staging (an epilogue, blocks that straddle the output's edge, or an f16 output,
 * which is converted per element as it is stored).
 */
const stagedOf = (p: MatmulProblem, s: SubgroupMatrixShape) => p.hasBias || p.relu || p.epi !== undefined || p.M % s.m !== 0 || p.N % s.n !== 0 || p.spec.node.dtype === 'f16';

/** Whether results leave through memory (`results: 'memory'` on whole blocks of a product that is not split). */
const viaMemory = (p: MatmulProblem, s: SubgroupMatrixShape, t: SubgroupMatrixTiling) => t.results === 'memory' && p.M % s.m === 0 && p.N % s.n === 0;

/** Whether both operands are f16 in memory and every dimension is whole matrices (`direct` loads). */
export function directFits(p: MatmulProblem, s: SubgroupMatrixShape): boolean {
  const rounded = roundedOperands(p.spec);
  return [0, 1].every((i) => p.spec.inputs[i].dtype === 'f16' && !rounded.includes(i)) && p.M % s.m === 0 && p.N % s.n === 0 && p.K % s.k === 0;
}

/** `override`'s fields set over tiling `t` where the result fits the device (a bench's variant), else `t`. */
function overridden(t: SubgroupMatrixTiling | undefined, override: Partial<SubgroupMatrixTiling> | undefined, s: SubgroupMatrixShape, caps: DeviceCaps, staged: boolean) {
  const o = t && override && { ...t, ...override };
  return o && fits(o, s, caps, staged) ? o : t;
}

/**
 * The mixed-precision plan of a matmul (tiling chosen per shape unless given; `override`: fields set over the chosen
 * one where that fits, as benches compare variants of the shipped choice), or undefined when no tiling fits.
 */
export function subgroupMatrixPlan(p: MatmulProblem, caps: DeviceCaps, given?: SubgroupMatrixTiling, override?: Partial<SubgroupMatrixTiling>): KernelPlan | undefined {
  const s = caps.mixedMatmul;
  if (!s) return kernelError(p.spec, 'a subgroup-matrix plan needs caps.mixedMatmul (precision: mixed)');
  const t = overridden(given ?? chooseSubgroupMatrixTiling(p.M, p.N * p.batches, s, caps, stagedOf(p, s), longReduction(p)), override, s, caps, stagedOf(p, s));
  if (!t) return undefined;
  if (given && !fits(given, s, caps, stagedOf(p, s))) kernelError(p.spec, `subgroup-matrix tiling ${JSON.stringify(given)} does not fit the device`);
  const split = splitOf(p, t, s, caps);
  const main = mainDispatch(p, s, t, caps, split);
  // results finished from memory keep an f16 output's f32 products in scratch
  if (!split) return { dispatches: [main], scratch: main.bindings.some((b) => b.source.kind === 'scratch') ? [p.batches * p.M * p.N * 4] : [] };
  return { dispatches: [main, splitReduce(p, split.splits, caps, main.label.replace(/:split\d+$/, ''))], scratch: [split.splits * p.M * p.N * 4] };
}

/**
 * `matmulPartials` on subgroup matrices: the node's `splits` partial products of op(A)·op(B), partial s (grid z)
 * summing K's chunk s into the node's own [S, M, N] output (the chunk from ir's `splitKChunk`, so the interpreter and
 * the kernel sum the same products), or undefined when no tiling fits.
 */
export function subgroupMatrixPartialsPlan(p: MatmulProblem, splits: number, chunk: number, caps: DeviceCaps, override?: Partial<SubgroupMatrixTiling>): KernelPlan | undefined {
  const s = caps.mixedMatmul;
  if (!s) return kernelError(p.spec, 'a subgroup-matrix plan needs caps.mixedMatmul (precision: mixed)');
  const t = overridden(chooseSubgroupMatrixTiling(p.M, p.N, s, caps, stagedOf(p, s), true), override, s, caps, stagedOf(p, s));
  if (!t) return undefined;
  return { dispatches: [mainDispatch(p, s, t, caps, { splits, chunk, partialsOut: true })], scratch: [] };
}

/** WGSL lets `row0`, `col0`: the tile of this workgroup, row by row or in bands of `group` tile rows. */
function tileIndex(grid: readonly number[], group: number, bm: number, bn: number): string {
  const [gx, gy] = grid;
  if (group <= 1 || gy <= group) return `  let row0 = wid.y * ${u32Lit(bm)};\n  let col0 = wid.x * ${u32Lit(bn)};`;
  // band b holds tile rows b·G .. b·G + G - 1 (the last band may be shorter); inside it tiles go down, then across
  return [
    `  let lin = wid.y * ${u32Lit(gx)} + wid.x; let band = lin / ${u32Lit(group * gx)}; let inb = lin % ${u32Lit(group * gx)};`,
    `  let rows = min(${u32Lit(group)}, ${u32Lit(gy)} - band * ${u32Lit(group)});`,
    `  let row0 = (band * ${u32Lit(group)} + inb % rows) * ${u32Lit(bm)};`,
    `  let col0 = (inb / rows) * ${u32Lit(bn)};`,
  ].join('\n');
}

/**
 * The main dispatch; with `split`, grid layer z sums K's chunk z into partial product z: in scratch for the
 * reduction pass, or (`partialsOut`) in the node's own [S, M, N] output.
 */
function mainDispatch(p: MatmulProblem, s: SubgroupMatrixShape, t: SubgroupMatrixTiling, caps: DeviceCaps, split?: { splits: number; chunk: number; partialsOut?: boolean }): Dispatch {
  const { spec, M, N, K, transA, transB } = p;
  const { sgm, sgn, fm, fn, bk } = t;
  const { bm, bn, nt } = tileOf(t, s);
  const grid: [number, number, number] = [Math.ceil(N / bn), Math.ceil(M / bm), split ? split.splits : p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max)) kernelError(spec, `needs a ${grid.join('x')} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  const epilogue = !split && (p.hasBias || p.relu || p.epi !== undefined);
  // staged results: a row of FN matrices per round where the workgroup memory allows (direct loads stage no slices)
  const rounds = t.perRound ?? (t.direct && sgm * sgn * fn * s.m * s.n * 4 <= caps.maxComputeWorkgroupStorageSize ? fn : 1);
  // straight stores need whole m x n result matrices (a matrix is wholly inside the output or wholly outside) and
  // an f32 output: an f16 one is written through the staged rows, where f16Storage.ts converts each store
  const direct = !epilogue && M % s.m === 0 && N % s.n === 0 && spec.node.dtype !== 'f16';
  // results through memory: products stored straight to y (f32) or to f32 scratch `ys` (an f16 output), read back
  const memory = !direct && !split && viaMemory(p, s, t);
  const f16Out = spec.node.dtype === 'f16';
  // scalar bindings: lane-by-lane staging reads one element per lane; direct loads take the buffer as array<f16>
  const scalar = t.stage === 'lanes' || t.direct === true;
  const vecA = !scalar && (transA ? M % 4 === 0 : K % 4 === 0);
  const vecB = !scalar && (transB ? K % 4 === 0 : N % 4 === 0);
  if (t.direct && (!directFits(p, s) || (split && split.chunk % s.k !== 0)))
    kernelError(spec, `direct subgroup-matrix loads need f16 operands in memory and M, N, K${split ? ` and the split-K chunk (${split.chunk})` : ''} multiples of ${s.m}, ${s.n}, ${s.k}`);
  const { bindings, decl, A, B, va, vb } = bindMatmul(p, vecA, vecB, !split);
  if (split && p.hasBias) {
    decl.pop(); // the bias is added by the reduction pass
    bindings.pop();
  }
  // y is array<f32> where result matrices are stored into it (subgroupMatrixStore takes a scalar array)
  const vecOut = !direct && !(memory && !f16Out) && N % 4 === 0;
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${vecOut ? 'vec4<f32>' : 'f32'}>;`);
  bindings.push(split && !split.partialsOut ? { source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' } : { source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  if (memory && f16Out) {
    decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> ys: array<f32>;`);
    bindings.push({ source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' });
  }
  const products = memory && f16Out ? 'ys' : 'y';

  // Slice loads: unit e (w elements along the operand's contiguous dimension) of the slice at kt into register r,
  // then rounded to f16 into As ([m][k], or [k][m] for Aᵀ) / Bs ([k][n], or [n][k] for Bᵀ), contiguous as in memory;
  // with `transposeA`, Aᵀ is transposed as it is stored (lanes walk k first, so a subgroup's stores fill consecutive
  // halves). Loads past the chunk's end (`kend`: K, or a split's last k) read zeros.
  const regs: string[] = [];
  const fetch: string[] = [];
  const store: string[] = [];
  const operand = (isA: boolean) => {
    const trans = isA ? transA : transB;
    const vec = isA ? va : vb;
    const w = vec ? 4 : 1;
    const bx = isA ? bm : bn;
    const alongK = isA ? !trans : trans;
    const flip = isA && trans && t.transposeA === true; // Aᵀ staged as [m][k]
    const inner = alongK ? bk : bx;
    const row = (flip ? bk : inner) + (t.pad ?? 0); // staged row stride
    const units = (bx * bk) / w;
    const buf = isA ? A : B;
    const g0 = isA ? 'row0' : 'col0';
    const ext = isA ? 'M' : 'N';
    const x = alongK ? 'o' : 'i0';
    const k = alongK ? 'i0' : 'o';
    const index = `${isA ? 'aoff' : 'boff'} + ${isA ? (trans ? `(kt + ${k}) * M + ${g0} + ${x}` : `(${g0} + ${x}) * K + kt + ${k}`) : trans ? `(${g0} + ${x}) * K + kt + ${k}` : `(kt + ${k}) * N + ${g0} + ${x}`}`;
    // registers hold the prefetched slice already rounded to f16 (half the registers of f32)
    const ty = vec ? 'vec4<f16>' : 'f16';
    for (let l = 0; l < Math.ceil(units / nt); l++) {
      const r = `${isA ? 'a' : 'b'}r${l}`;
      const e = `(lid + ${u32Lit(l * nt)})`;
      const guard = units % nt === 0 ? '' : `if (${e} < ${u32Lit(units)}) `;
      // flipped Aᵀ: o is k inside the slice and i0 the first of w rows of m (so `index` reads the same elements)
      const at = flip
        ? `let o = ${e} / ${u32Lit(bk)} * ${u32Lit(w)}; let i0 = ${e} % ${u32Lit(bk)};`
        : `let i0 = (${e} % ${u32Lit(inner / w)}) * ${u32Lit(w)}; let o = ${e} / ${u32Lit(inner / w)};`;
      const [fx, fk] = flip ? ['o', 'i0'] : [x, k];
      const fIndex = flip ? `aoff + (kt + i0) * M + row0 + o` : index;
      regs.push(`var ${r}: ${ty};`);
      fetch.push(`${guard}{ ${at} ${r} = ${ty}(); if (${g0} + ${fx} < ${ext} && kt + ${fk} < kend) { ${r} = ${ty}(${buf}[${vec ? `(${fIndex}) / 4u` : fIndex}]); } }`);
      const sh = isA ? 'As' : 'Bs';
      // double buffering: the slice being stored starts at sA / sB (0 or one slice)
      const base = t.db ? `${isA ? 'sA' : 'sB'} + ` : '';
      const lanes = vec ? [0, 1, 2, 3].map((q) => [` + ${u32Lit(q)}`, `.${'xyzw'[q]}`]) : [['', '']];
      const put = flip
        ? lanes.map(([dq, c]) => `${sh}[${base}(o${dq}) * ${u32Lit(row)} + i0] = ${r}${c};`).join(' ')
        : lanes.map(([dq, c]) => `${sh}[s${dq}] = ${r}${c};`).join(' ');
      store.push(`${guard}{ ${at} ${flip ? '' : `let s = ${base}o * ${u32Lit(row)} + i0; `}${put} }`);
    }
  };
  if (!t.direct) {
    operand(true);
    operand(false);
  }

  const pad = t.pad ?? 0;
  const aLen = sliceOf(t, bm, aAlongK(t, transA));
  const bLen = sliceOf(t, bn, transB);
  const L = `subgroup_matrix_left<f16, ${s.k}, ${s.m}>`;
  const R = `subgroup_matrix_right<f16, ${s.n}, ${s.k}>`;
  const C = `subgroup_matrix_result<f32, ${s.n}, ${s.m}>`;
  // double buffering: the slice being computed starts at rA / rB
  const load = (ty: string, off: string, colMajor: boolean, stride: number) => {
    const left = ty.includes('left');
    return `subgroupMatrixLoad<${ty}, ${colMajor ? 'col_major' : 'row_major'}>(&${left ? 'As' : 'Bs'}, ${t.db ? `${left ? 'rA' : 'rB'} + ` : ''}${off}, ${u32Lit(stride)})`;
  };
  const lines: string[] = [];
  const emit = (x: string, d = 1) => lines.push(`${'  '.repeat(d)}${x}`);
  for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) emit(`var c${i}_${j}: ${C};`);
  if (!t.direct) emit(regs.join(' '));
  emit(split ? `let kbeg = wid.z * ${u32Lit(split.chunk)}; let kend = min(K, kbeg + ${u32Lit(split.chunk)});` : 'let kbeg = 0u; let kend = K;');
  if (!t.direct) {
    emit('{ let kt = kbeg;');
    for (const f of fetch) emit(f, 2);
    emit('}');
  }
  const compute = () => {
    for (let kk = 0; kk < bk; kk += s.k) {
      emit('{', 2);
      for (let i = 0; i < fm; i++) {
        const m = `sm * ${u32Lit(fm * s.m)} + ${u32Lit(i * s.m)}`;
        emit(`let l${i} = ${!aAlongK(t, transA) ? load(L, `${u32Lit(kk * (bm + pad))} + ${m}`, true, bm + pad) : load(L, `(${m}) * ${u32Lit(bk + pad)} + ${u32Lit(kk)}`, false, bk + pad)};`, 3);
      }
      for (let j = 0; j < fn; j++) {
        const n = `sn * ${u32Lit(fn * s.n)} + ${u32Lit(j * s.n)}`;
        emit(`let r${j} = ${transB ? load(R, `(${n}) * ${u32Lit(bk + pad)} + ${u32Lit(kk)}`, true, bk + pad) : load(R, `${u32Lit(kk * (bn + pad))} + ${n}`, false, bn + pad)};`, 3);
      }
      for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) emit(`c${i}_${j} = subgroupMatrixMultiplyAccumulate(l${i}, r${j}, c${i}_${j});`, 3);
      emit('}', 2);
    }
  };
  if (t.direct) {
    // every subgroup loads its own left and right matrices from the storage buffers, s.k deep per step; matrices
    // wholly past M or N (M, N multiples of the matrix shape) are skipped and stay zero
    const rowOf = (i: number) => `row0 + sm * ${u32Lit(fm * s.m)} + ${u32Lit(i * s.m)}`;
    const colOf = (j: number) => `col0 + sn * ${u32Lit(fn * s.n)} + ${u32Lit(j * s.n)}`;
    const global = (ty: string, buf: string, off: string, colMajor: boolean, stride: string) => `subgroupMatrixLoad<${ty}, ${colMajor ? 'col_major' : 'row_major'}>(&${buf}, ${off}, ${stride})`;
    emit(`for (var k0 = kbeg; k0 < kend; k0 = k0 + ${u32Lit(s.k)}) {`);
    for (let i = 0; i < fm; i++) {
      const off = transA ? `aoff + k0 * M + ${rowOf(i)}` : `aoff + (${rowOf(i)}) * K + k0`;
      emit(`var l${i}: ${L}; if (${rowOf(i)} < M) { l${i} = ${global(L, A, off, transA, transA ? 'M' : 'K')}; }`, 2);
    }
    for (let j = 0; j < fn; j++) {
      const off = transB ? `boff + (${colOf(j)}) * K + k0` : `boff + k0 * N + ${colOf(j)}`;
      emit(`var r${j}: ${R}; if (${colOf(j)} < N) { r${j} = ${global(R, B, off, transB, transB ? 'K' : 'N')}; }`, 2);
    }
    for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) emit(`c${i}_${j} = subgroupMatrixMultiplyAccumulate(l${i}, r${j}, c${i}_${j});`, 2);
    emit('}');
  } else if (!t.db) {
    emit(`for (var k0 = kbeg; k0 < kend; k0 = k0 + ${u32Lit(bk)}) {`);
    for (const x of store) emit(x, 2);
    emit('workgroupBarrier();', 2);
    emit(`if (k0 + ${u32Lit(bk)} < kend) { let kt = k0 + ${u32Lit(bk)};`, 2);
    for (const f of fetch) emit(f, 3);
    emit('}', 2);
    compute();
    emit('workgroupBarrier();', 2);
    emit('}');
  } else {
    // slice 0 stored before the loop; each step stores slice i+1 into the other half, fetches slice i+2 into
    // registers, computes slice i, then one barrier
    const sa = u32Lit(aLen);
    const sb = u32Lit(bLen);
    emit('{ let sA = 0u; let sB = 0u;');
    for (const x of store) emit(x, 2);
    emit('}');
    emit(`if (kbeg + ${u32Lit(bk)} < kend) { let kt = kbeg + ${u32Lit(bk)};`);
    for (const f of fetch) emit(f, 2);
    emit('}');
    emit('workgroupBarrier();');
    emit('var cur = 0u;');
    emit(`for (var k0 = kbeg; k0 < kend; k0 = k0 + ${u32Lit(bk)}) {`);
    emit(`let rA = cur * ${sa}; let rB = cur * ${sb}; let sA = ${sa} - rA; let sB = ${sb} - rB;`, 2);
    emit(`if (k0 + ${u32Lit(bk)} < kend) {`, 2);
    for (const x of store) emit(x, 3);
    emit('}', 2);
    emit(`if (k0 + ${u32Lit(2 * bk)} < kend) { let kt = k0 + ${u32Lit(2 * bk)};`, 2);
    for (const f of fetch) emit(f, 3);
    emit('}', 2);
    compute();
    emit('workgroupBarrier();', 2);
    emit('cur = 1u - cur;', 2);
    emit('}');
  }

  // Results. Rows of result matrix (i, j) start at row0 + sm·FM·m + i·m, columns at col0 + sn·FN·n + j·n.
  const r0 = (i: number) => `row0 + sm * ${u32Lit(fm * s.m)} + ${u32Lit(i * s.m)}`;
  const c0 = (j: number) => `col0 + sn * ${u32Lit(fn * s.n)} + ${u32Lit(j * s.n)}`;
  if (direct || memory) {
    for (let i = 0; i < fm; i++)
      for (let j = 0; j < fn; j++) emit(`if (${r0(i)} < M && ${c0(j)} < N) { subgroupMatrixStore<row_major>(&${products}, yoff + (${r0(i)}) * N + ${c0(j)}, c${i}_${j}, N); }`);
  }
  if (memory) {
    // every subgroup's products visible to the whole workgroup; then lane lid finishes 4 adjacent outputs at a time
    emit('storageBarrier();');
    emit(`for (var e = lid; e < ${u32Lit((bm * bn) / 4)}; e = e + ${u32Lit(nt)}) {`);
    emit(`let r = row0 + e / ${u32Lit(bn / 4)}; let c = col0 + (e % ${u32Lit(bn / 4)}) * 4u; let q = yoff + r * N + c;`, 2);
    const parts = [`var v = vec4<f32>(${products}[q], ${products}[q + 1u], ${products}[q + 2u], ${products}[q + 3u]);`, ...storeVec4(p, false, vecOut)];
    emit(`if (r < M && c < N) { ${parts.join(' ')} }`, 2);
    emit('}');
  } else if (!direct) {
    // `round` result matrices per subgroup and round: subgroup sg stages matrices (i, j..j+round-1) as m x n
    // row-major blocks, its lanes finish and store them. One matrix per round keeps the big tilings within 48 KiB of
    // workgroup memory beside the staged slices; direct loads stage no slices, so a whole row of matrices fits (a
    // quarter of the barriers).
    const per = (s.m * s.n) / 4; // vec4 per block
    const block = s.m * s.n;
    for (let i = 0; i < fm; i++) {
      for (let j = 0; j < fn; j += rounds) {
        for (let q = 0; q < rounds; q++) emit(`subgroupMatrixStore<row_major>(&Cs, sg * ${u32Lit(rounds * block)}${q ? ` + ${u32Lit(q * block)}` : ''}, c${i}_${j + q}, ${u32Lit(s.n)});`);
        emit('workgroupBarrier();');
        emit(`for (var e = sl; e < ${u32Lit(rounds * per)}; e = e + ${u32Lit(SUBGROUP_MATRIX_LANES)}) {`);
        // element e of the round: matrix jj of the row, vec4 ee of it
        const [jj, ee] = rounds > 1 ? ['jj', 'ee'] : ['', 'e'];
        const at = rounds > 1 ? `let jj = e / ${u32Lit(per)}; let ee = e % ${u32Lit(per)}; ` : '';
        emit(`${at}let r = ${r0(i)} + ${ee} / ${u32Lit(s.n / 4)}; let c = ${c0(j)}${jj ? ` + ${jj} * ${u32Lit(s.n)}` : ''} + (${ee} % ${u32Lit(s.n / 4)}) * 4u; let q = sg * ${u32Lit(rounds * block)} + e * 4u;`, 2);
        const parts = ['var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]);', ...storeVec4(p, split !== undefined, vecOut)];
        emit(`if (r < M) { ${parts.join(' ')} }`, 2);
        emit('}');
        emit('workgroupBarrier();');
      }
    }
  }
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join('x')}x` : ''}${M}x${K}x${N}`);
  const code = `${header(spec, `subgroup-matrix matmul ${matmulWhat(p)} (f16 operands, f32 accumulation): M=${M} N=${N} K=${K}, tile ${bm}x${bn}x${bk}, ${sgm}x${sgn} subgroups of ${fm}x${fn} ${s.m}x${s.n}x${s.k} matrices${t.db ? ', double-buffered' : ''}${pad && !t.direct ? `, rows padded by ${pad}` : ''}${t.direct ? ', f16 operands loaded straight from memory' : t.stage === 'lanes' ? ', staged lane by lane' : ''}${(t.group ?? 0) > 1 && grid[1] > (t.group ?? 0) ? `, tiles in bands of ${t.group} rows` : ''}${t.direct ? '' : `, ${va ? 'vec4' : 'scalar'} A loads, ${vb ? 'vec4' : 'scalar'} B loads`}, ${direct ? 'results stored directly' : memory ? `results stored to ${products}, then finished from memory` : 'results staged per row of matrices'}${split ? `, split-K ${split.splits}` : ''}`)}enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
${decl.join('\n')}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
${t.direct ? '' : `var<workgroup> As: array<f16, ${aLen * (t.db ? 2 : 1)}>;\nvar<workgroup> Bs: array<f16, ${bLen * (t.db ? 2 : 1)}>;\n`}${direct || memory ? '' : `var<workgroup> Cs: array<f32, ${sgm * sgn * s.m * s.n * rounds}>;\n`}
@compute @workgroup_size(${nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
${tileIndex(grid, t.group ?? 0, bm, bn)}
  let sg = lid / ${u32Lit(SUBGROUP_MATRIX_LANES)};
  let sl = lid % ${u32Lit(SUBGROUP_MATRIX_LANES)};
  let sm = sg / ${u32Lit(sgn)};
  let sn = sg % ${u32Lit(sgn)};
  ${split ? `let aoff = 0u; let boff = 0u; let yoff = wid.z * ${u32Lit(M * N)};` : p.offsets}
${lines.join('\n')}
}
`;
  return { label: split ? `${label}:split${split.splits}` : label, code, bindings, workgroupSize: [nt, 1, 1], grid };
}

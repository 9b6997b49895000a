// The implicit-GEMM engine of the convolutions: C[M, N] = A[M, K] · B[K, N] per channel group, where A and B are
// never materialised: each operand's tile loader gathers element (x, k) from global memory through WGSL its op
// supplies (convIm2col.ts: padding taps read as 0, stride, dilation), and C[m][n] lands at an op-given flat index.
// Tiling as matmul.ts's: a BM x BN tile per workgroup stepping through K in BK slices staged in workgroup memory
// (vec4 rows As[k][m/4], Bs[k][n/4]; rows of an operand loaded along k padded by one vec4 against bank conflicts),
// each thread TM x TN outputs as vec4 chunks interleaved across the tile, the next slice prefetched into registers
// while the current one is computed. Split-K (grid z = groups x splits): partial products into scratch, then a
// reduction pass. Pure WGSL generation; must not exceed `caps` (callers check `convTileFits` first).

import type { DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { type BufferVar, outputVar, perElementDispatch, planOf, scratchVar, shaderCode } from './shader.js';
import { checkWorkgroupMemory, kernelError, labelOf, u32Lit } from './wgsl.js';

/** A tile of the implicit GEMM: BM x BN outputs per workgroup, BK of K per slice, TM x TN per thread (multiples of 4). */
export interface ConvTile {
  /** Output rows per workgroup (BM). */
  readonly bm: number;
  /** Output columns per workgroup (BN). */
  readonly bn: number;
  /** K slice staged per iteration (BK). */
  readonly bk: number;
  /** Output rows per thread (TM). */
  readonly tm: number;
  /** Output columns per thread (TN). */
  readonly tn: number;
}

/**
 * Tiles, largest first (64x128/8x8 is matmul.ts's 128x64/8x8 turned: conv outputs are few channels x many
 * pixels). 128 invocations and ≤ 13 KiB at most (the WebGPU defaults); the last two for 64- and 32-thread limits.
 */
export const CONV_TILES: readonly ConvTile[] = [
  { bm: 64, bn: 128, bk: 16, tm: 8, tn: 8 },
  { bm: 32, bn: 128, bk: 16, tm: 4, tn: 8 },
  { bm: 16, bn: 128, bk: 16, tm: 4, tn: 4 },
  { bm: 64, bn: 64, bk: 16, tm: 8, tn: 4 },
  { bm: 32, bn: 64, bk: 16, tm: 4, tn: 8 },
  { bm: 16, bn: 64, bk: 16, tm: 4, tn: 4 },
  { bm: 16, bn: 32, bk: 16, tm: 4, tn: 4 },
];

/** A tile's short name, 64x128x16/8x8. */
export const convTileName = (t: ConvTile) => `${t.bm}x${t.bn}x${t.bk}/${t.tm}x${t.tn}`;

const threadsOf = (t: ConvTile) => (t.bm / t.tm) * (t.bn / t.tn);
/** Workgroup memory of a tile (both operands' rows padded by a vec4: the most it can take). */
export const convTileBytes = (t: ConvTile) => t.bk * (t.bm + 4 + t.bn + 4) * 4;

/** Whether a tile fits the device's limits. */
export function convTileFits(t: ConvTile, caps: DeviceCaps): boolean {
  return (
    threadsOf(t) <= caps.maxComputeInvocationsPerWorkgroup &&
    t.bn / t.tn <= caps.maxComputeWorkgroupSizeX &&
    t.bm / t.tm <= caps.maxComputeWorkgroupSizeY &&
    convTileBytes(t) <= caps.maxComputeWorkgroupStorageSize
  );
}

/** Workgroups a tiling should give to fill the GPU (matmul.ts's second configuration asks the same: a wave on ~132 SMs). */
export const CONV_MIN_WORKGROUPS = 128;

/**
 * The tile for an M x N output (x `groups`): among those that fit and whose padded area is ≤ 1.4x the output (a
 * tile mostly outside the matrix wastes its work), the largest that still gives CONV_MIN_WORKGROUPS workgroups,
 * else the one giving most (ResNet's last stage, 64 x 6272: 49 tiles of 64x128 leave most SMs idle; 196 of
 * 32x64); the largest first, then the squarest; with none that lean, the one wasting least. `fill` false (split-K fills the GPU instead): the largest
 * lean one. Undefined when none fits.
 */
export function chooseConvTile(m: number, n: number, caps: DeviceCaps, groups = 1, fill = true): ConvTile | undefined {
  const fits = CONV_TILES.filter((t) => convTileFits(t, caps));
  const waste = (t: ConvTile) => (Math.ceil(m / t.bm) * t.bm * Math.ceil(n / t.bn) * t.bn) / (m * n);
  const count = (t: ConvTile) => Math.ceil(m / t.bm) * Math.ceil(n / t.bn) * groups;
  const lean = fits.filter((t) => waste(t) <= 1.4);
  if (!lean.length) return [...fits].sort((a, b) => waste(a) - waste(b))[0];
  if (!fill) return lean[0];
  // the most outputs per workgroup, then the fewest operand loads per output (BM + BN: squarer)
  const best = (ts: ConvTile[]) => [...ts].sort((a, b) => b.bm * b.bn - a.bm * a.bn || a.bm + a.bn - (b.bm + b.bn))[0];
  const full = lean.filter((t) => count(t) >= CONV_MIN_WORKGROUPS);
  if (full.length) return best(full);
  const most = Math.max(...lean.map(count));
  return best(lean.filter((t) => count(t) === most));
}

/** One operand of an implicit GEMM: how its tile loader reads element (x, k), x a row of A or a column of B. */
export interface GatherOperand {
  /** The index consecutive threads load along (the one contiguous in global memory). */
  readonly fast: 'x' | 'k';
  /** WGSL statements run once per distinct x of a thread's loads, before the k loop (`x`: a u32); names end in `s`. */
  setup(x: string, s: string): string;
  /** WGSL statements run once per distinct k of a thread's loads in a slice (`k`: a u32, maybe ≥ K); names end in `q`. */
  kpart?(k: string, q: string): string;
  /** WGSL statements that set `r` (already 0.0) to element (x, k): x's values from `setup` (s), k's from `kpart` (q). */
  load(k: string, s: string, r: string, q: string): string;
}

/** An implicit GEMM per channel group: C[M, N] = A[M, K] · B[K, N], operands gathered, C scattered. */
export interface ImplicitGemm {
  /** The node being compiled (for labels and errors). */
  readonly spec: KernelSpec;
  /** Rows M, columns N and inner extent K of each group's product. */
  readonly M: number;
  readonly N: number;
  readonly K: number;
  /** Channel groups (grid z; WGSL `g` in the operands' code). */
  readonly groups: number;
  /** The operands' buffers (read-only); the output or scratch is appended by the engine. */
  readonly buffers: readonly BufferVar[];
  /** Rows of A. */
  readonly a: GatherOperand;
  /** Columns of B. */
  readonly b: GatherOperand;
  /** WGSL statements declaring `cb{s}`, the flat output index of C[0][n] in group g (n a u32 < N). */
  outColumn(n: string, s: string): string;
  /** Flat-index step between rows of C. */
  readonly rowStride: number;
  /** Elements of the node's output (partial products are this long each). */
  readonly outSize: number;
  /** What the GEMM computes, for the header comment. */
  readonly what: string;
  /** Appended to the dispatch label where one node is several GEMMs (`:phase01`). */
  readonly tag?: string;
}

/** A split of K into `splits` chunks of `chunk` (a multiple of BK; the last may be shorter). */
export interface ConvSplitK {
  readonly splits: number;
  readonly chunk: number;
}

/** Workgroups split-K aims for (as ir's SPLIT_K_TARGET_WORKGROUPS: a few waves of an H100/H200's 132 SMs). */
const SPLIT_TARGET = 512;
/** The least of K one split sums (shorter chunks cost more in partial traffic than they win). */
const SPLIT_MIN_CHUNK = 256;

/**
 * Split-K for a long K over few tiles (a weight gradient: K = N·Ho·Wo, e.g. 128·28·28 = 100352, over a 16 x 144
 * output): splits so that tiles x splits ≈ SPLIT_TARGET, each at least SPLIT_MIN_CHUNK, partials within one
 * storage binding, splits x groups within the grid. Undefined when one pass already has enough tiles.
 */
export function chooseConvSplitK(g: Pick<ImplicitGemm, 'M' | 'N' | 'K' | 'groups' | 'outSize'>, tile: ConvTile, caps: DeviceCaps): ConvSplitK | undefined {
  const tiles = Math.ceil(g.M / tile.bm) * Math.ceil(g.N / tile.bn) * g.groups;
  if (tiles >= SPLIT_TARGET / 4 || g.K < 2 * SPLIT_MIN_CHUNK) return undefined;
  const splits = Math.min(Math.ceil(SPLIT_TARGET / tiles), Math.floor(g.K / SPLIT_MIN_CHUNK), Math.floor(caps.maxStorageBufferBindingSize / (g.outSize * 4)), Math.floor(caps.maxComputeWorkgroupsPerDimension / g.groups));
  if (splits < 2) return undefined;
  const chunk = Math.ceil(g.K / splits / tile.bk) * tile.bk;
  return { splits: Math.ceil(g.K / chunk), chunk };
}

/** The grid of a GEMM's main pass, or a reason it exceeds the device. */
export function convGemmGrid(g: Pick<ImplicitGemm, 'M' | 'N' | 'groups'>, tile: ConvTile, splits: number): [number, number, number] {
  return [Math.ceil(g.N / tile.bn), Math.ceil(g.M / tile.bm), g.groups * splits];
}

/** The plan of an implicit GEMM with this tile (and split): one tiled dispatch, plus the reduction when split. */
export function implicitGemmPlan(g: ImplicitGemm, tile: ConvTile, caps: DeviceCaps, split?: ConvSplitK): KernelPlan {
  const { spec } = g;
  const splits = split?.splits ?? 1;
  const grid = convGemmGrid(g, tile, splits);
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((d) => d > max)) kernelError(spec, `needs a ${grid.join('x')} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  const pow2 = (v: number) => v > 0 && (v & (v - 1)) === 0;
  if (![tile.bm, tile.bn, tile.bk, tile.bm / tile.tm, tile.bn / tile.tn].every(pow2) || tile.tm % 4 || tile.tn % 4)
    kernelError(spec, `the implicit-GEMM tile ${convTileName(tile)} needs power-of-two extents and thread counts, TM and TN multiples of 4`);
  if (!convTileFits(tile, caps)) kernelError(spec, `the implicit-GEMM tile ${convTileName(tile)} does not fit the device`);
  checkWorkgroupMemory(spec, convTileBytes(tile), caps);
  if (split && split.chunk % tile.bk !== 0) kernelError(spec, `the split-K chunk ${split.chunk} is not a multiple of the tile's k slice ${tile.bk}`);
  const label = `${labelOf(spec.node)}:gemm${g.groups > 1 ? `x${g.groups}` : ''}[${g.M}x${g.K}x${g.N}]${g.tag ?? ''}`;
  const main = mainDispatch(g, tile, grid, split, split ? `${label}:split${splits}` : label);
  if (!split) return planOf([main]);
  return planOf([main, reduceDispatch(g, splits, caps, `${label}:reduce`)], [splits * g.outSize * 4]);
}

function mainDispatch(g: ImplicitGemm, tile: ConvTile, grid: [number, number, number], split: ConvSplitK | undefined, label: string): Dispatch {
  const { spec, M, N, K } = g;
  const { bm, bn, bk, tm, tn } = tile;
  const tx = bn / tn;
  const ty = bm / tm;
  const nt = tx * ty;
  const out: BufferVar = split ? scratchVar(0, 'y', 'read_write') : outputVar(spec);
  const buffers = [...g.buffers, out];
  const lines: string[] = [];
  const L = (s: string, d = 1) => lines.push(`${'  '.repeat(d)}${s}`);
  // Operand tiles: a unit e = lid + l·NT is one element (x, kl) of the BK x BX slice; its x and kl are the same for
  // every slice, so the gather's x part is computed once (setup) and its k part once per slice and distinct kl
  // (kpart): units sharing an x or a kl share that WGSL (sizes are powers of two, so the shared ones are exact).
  interface Tile { regs: string[]; setup: string[]; fetch: string[]; store: string[]; row: number }
  const operand = (which: 'a' | 'b'): Tile => {
    const op = which === 'a' ? g.a : g.b;
    const bx = which === 'a' ? bm : bn;
    const ext = which === 'a' ? 'M' : 'N';
    const x0 = which === 'a' ? 'row0' : 'col0';
    const sh = which === 'a' ? 'As' : 'Bs';
    const row = bx / 4 + (op.fast === 'k' ? 1 : 0); // vec4s per k row: padded where threads store down a column
    const t: Tile = { regs: [], setup: [], fetch: [], store: [], row };
    const units = bx * bk;
    if (units % nt !== 0) kernelError(spec, `the tile ${convTileName(tile)} slice of ${which.toUpperCase()} (${units}) is not a multiple of its ${nt} threads`);
    // (lid + c) % D and (lid + c) / D for lid < NT, c a multiple of NT, D and NT powers of two
    const mod = (c: number, D: number) => (nt >= D ? `lid % ${u32Lit(D)}` : `lid + ${u32Lit(c % D)}`);
    const div = (c: number, D: number) => (nt >= D ? `lid / ${u32Lit(D)} + ${u32Lit(c / D)}` : u32Lit(Math.floor(c / D)));
    const xs = new Map<string, string>();
    const ks = new Map<string, string>();
    const fetch: string[] = [];
    for (let l = 0; l < units / nt; l++) {
      const c = l * nt;
      const [x, kl] = op.fast === 'x' ? [mod(c, bx), div(c, bx)] : [div(c, bk), mod(c, bk)];
      let s = xs.get(x);
      if (s === undefined) {
        s = `${which}${xs.size}`;
        xs.set(x, s);
        t.setup.push(`let x${s} = ${x}; let ok${s} = ${x0} + x${s} < ${ext};`, op.setup(`(${x0} + x${s})`, s));
      }
      let q = ks.get(kl);
      if (q === undefined) {
        q = `${which}${ks.size}`;
        ks.set(kl, q);
        t.setup.push(`let kl${q} = ${kl};`);
        fetch.push(`let k${q} = kt + kl${q};${op.kpart ? ` ${op.kpart(`k${q}`, q)}` : ''}`);
      }
      const r = `r${which}${l}`;
      t.regs.push(`var ${r} = 0.0;`);
      fetch.push(`${r} = 0.0; if (ok${s} && k${q} < K) { ${op.load(`k${q}`, s, r, q)} }`);
      t.store.push(`${sh}[kl${q} * ${u32Lit(row)} + x${s} / 4u][x${s} % 4u] = ${r};`);
    }
    t.fetch.push(`{ ${fetch.join(' ')} }`);
    return t;
  };
  const ta = operand('a');
  const tb = operand('b');
  L(`let row0 = wid.y * ${u32Lit(bm)};`);
  L(`let col0 = wid.x * ${u32Lit(bn)};`);
  L('let tx = lid3.x;');
  L('let ty = lid3.y;');
  L(g.groups === 1 ? 'let g = 0u;' : split ? `let g = wid.z / ${u32Lit(split.splits)};` : 'let g = wid.z;');
  L(split ? `let kbeg = (wid.z % ${u32Lit(split.splits)}) * ${u32Lit(split.chunk)}; let kend = min(K, kbeg + ${u32Lit(split.chunk)});` : 'let kbeg = 0u; let kend = K;');
  const mi = tm / 4;
  const nj = tn / 4;
  for (let r = 0; r < tm; r++) for (let j = 0; j < nj; j++) L(`var acc${r}_${j} = vec4<f32>();`);
  for (const s of [...ta.regs, ...tb.regs, ...ta.setup, ...tb.setup]) L(s);
  L('{ let kt = kbeg;');
  for (const s of [...ta.fetch, ...tb.fetch]) L(s, 2);
  L('}');
  L('for (var k0 = kbeg; k0 < kend; k0 = k0 + BK) {');
  for (const s of [...ta.store, ...tb.store]) L(s, 2);
  L('workgroupBarrier();', 2);
  L('if (k0 + BK < kend) { let kt = k0 + BK;', 2);
  for (const s of [...ta.fetch, ...tb.fetch]) L(s, 3);
  L('}', 2);
  // the slice, k unrolled (constant workgroup-memory offsets); thread rows (i*TY + ty)*4 + q, columns (j*TX + tx)*4 + c
  for (let k = 0; k < bk; k++) {
    L('{', 2);
    for (let i = 0; i < mi; i++) L(`let a${i} = As[${u32Lit(k * ta.row + i * ty)} + ty];`, 3);
    for (let j = 0; j < nj; j++) L(`let b${j} = Bs[${u32Lit(k * tb.row + j * tx)} + tx];`, 3);
    for (let i = 0; i < mi; i++)
      for (let q = 0; q < 4; q++) L(Array.from({ length: nj }, (_, j) => `acc${i * 4 + q}_${j} = fma(vec4<f32>(a${i}.${'xyzw'[q]}), b${j}, acc${i * 4 + q}_${j});`).join(' '), 3);
    L('}', 2);
  }
  L('workgroupBarrier();', 2);
  L('}');
  // Epilogue: each column's output offset once, then a row step per row (C's rows are a fixed stride apart).
  const part = split ? `(wid.z % ${u32Lit(split.splits)}) * ${u32Lit(g.outSize)} + ` : '';
  for (let j = 0; j < nj; j++)
    for (let c = 0; c < 4; c++) {
      const s = `${j}_${c}`;
      L(`let n${s} = col0 + (${u32Lit(j * tx)} + tx) * 4u + ${u32Lit(c)};`);
      L(g.outColumn(`n${s}`, s));
    }
  for (let i = 0; i < mi; i++)
    for (let q = 0; q < 4; q++) {
      L(`{ let r = row0 + (${u32Lit(i * ty)} + ty) * 4u + ${u32Lit(q)}; if (r < M) {`);
      L(`let ro = ${part}r * ${u32Lit(g.rowStride)};`, 2);
      for (let j = 0; j < nj; j++) L(['x', 'y', 'z', 'w'].map((cc, c) => `if (n${j}_${c} < N) { y[ro + cb${j}_${c}] = acc${i * 4 + q}_${j}.${cc}; }`).join(' '), 2);
      L('} }');
    }
  const main = `@compute @workgroup_size(${tx}, ${ty})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
${lines.join('\n')}
}
`;
  const decls = [
    `const M = ${u32Lit(M)};`,
    `const N = ${u32Lit(N)};`,
    `const K = ${u32Lit(K)};`,
    `const BK = ${u32Lit(bk)};`,
    `var<workgroup> As: array<vec4<f32>, ${bk * ta.row}>;`,
    `var<workgroup> Bs: array<vec4<f32>, ${bk * tb.row}>;`,
  ];
  const strategy = `implicit GEMM ${g.what}: M=${M} N=${N} K=${K}${g.groups > 1 ? ` per group (${g.groups})` : ''}, tile ${convTileName(tile)}, ${tx}x${ty} threads, operands gathered on the fly${split ? `, K split ${split.splits} ways (chunks of ${split.chunk}) into partial sums` : ''}`;
  const code = shaderCode(spec, { strategy, buffers, decls, main }, nt);
  return { label, code, bindings: buffers.map((b) => b.binding), workgroupSize: [tx, ty, 1], grid };
}

/** Split-K's second pass: y = Σ_s partial[s], a thread per output vec4 (or element). */
function reduceDispatch(g: ImplicitGemm, splits: number, caps: DeviceCaps, label: string): Dispatch {
  const vec = g.outSize % 4 === 0;
  const element = vec ? 'vec4<f32>' : undefined;
  const n = vec ? g.outSize / 4 : g.outSize;
  const buffers = [{ ...scratchVar(0, 'part', 'read'), element }, outputVar(g.spec, 'y', { element })];
  const body = `var v = part[o];
for (var s = 1u; s < ${u32Lit(splits)}; s = s + 1u) { v = v + part[s * ${u32Lit(n)} + o]; }
y[o] = v;`;
  const strategy = `split-K reduction of the implicit GEMM: sums ${splits} partial products, a thread per output ${vec ? 'vec4' : 'element'}`;
  return { ...perElementDispatch(g.spec, caps, { strategy, buffers, n, body }), label };
}

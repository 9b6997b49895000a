// The kernels of the weight-only quantized matmuls (`matmulQ8`, `matmulQ4`): x [R, K] (any leading axes, rows
// contiguous) times a weight in GGUF blocks of 32 along K (one f16 scale per block, 2 per word of `d`), the weight
// dequantized as it is loaded (never a dequantized copy in memory), f32 accumulation. Two shapes of kernel: a few
// rows (decoding: R ≤ QUANT_GEMV_MAX_ROWS) give each output column's blocks to 8 threads that read consecutive
// bytes, then sum; more rows use a 16 x 64 output tile per workgroup with the K slice of x and the dequantized weight
// block in workgroup memory. A format (matmulQ8.ts, matmulQ4.ts) says how its words are read and dequantized.
// An epilogue (bias, GELU, residual: the op's `expr`) runs on each stored element. Must not exceed `caps`.

import { q8Blocks } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { matmulEpilogueHook } from './matmulEpilogue.js';
import { computeMain, inputVar, outputVar, planOf, shaderDispatch } from './shader.js';
import { checkWorkgroupMemory, kernelError, u32Lit } from './wgsl.js';

/** Rows up to which the kernel is a matrix-vector product per row (decode steps), not a tiled product. */
export const QUANT_GEMV_MAX_ROWS = 8;

const WG = 64; // threads per workgroup: within compatibility mode's 128
const GEMV_COLS = 8; // columns per workgroup of the few-rows kernel; 8 threads per column
const TILE_R = 16; // output rows per workgroup of the tiled kernel (4 per thread)
/** Output columns per workgroup of the tiled kernel (4 per thread): the row stride of its weight block `ws`. */
export const QUANT_TILE_N = 64;

/** The f16 scale of block `b` of column `n`, from its word of two halves. */
export const blockScale = (n: string, b: string) => `unpack2x16float(bitcast<u32>(d[${n} * DWORDS + ${b} / 2u]))[${b} % 2u]`;

/** What a weight format puts into the shared kernels: its words per block and the code that dequantizes them. */
export interface QuantizedFormat {
  /** The format's name in kernel descriptions ('Q8_0'). */
  readonly name: string;
  /** i32 words of `q` per block of 32 weights (`WORDS` = blocks · this). */
  readonly wordsPerBlock: number;
  /** How a weight is rebuilt, for descriptions ('d·q'). */
  readonly dequantized: string;
  /** What 8 threads of a column read per step of the few-rows kernel, for descriptions ('half blocks'). */
  readonly gemvUnit: string;
  /**
   * The few-rows kernel's loop: thread `t` of column `n` adds its share of the column's weights times x to `acc[r]`
   * for each row r (`xVec(r, k)`: x[r][k..k+3] as a vec4<f32>); `q` is read as vec4<i32>.
   */
  readonly gemvLoop: (rows: readonly number[], xVec: (r: number, k: string) => string) => string;
  /**
   * The tiled kernel's weight load for block `b`: the 64 columns from `n0`, dequantized into
   * `ws[k * QUANT_TILE_N + c]` (columns past N as 0), by the workgroup's 64 threads (`lid`).
   */
  readonly tiledLoad: string;
}

/** A quantized matmul of `format`: the few-rows kernel for R ≤ QUANT_GEMV_MAX_ROWS, else the tiled one. */
export function quantizedMatmulKernel(spec: KernelSpec<'matmulQ8' | 'matmulQ4'>, caps: DeviceCaps, format: QuantizedFormat): KernelPlan {
  const x = spec.inputs[0].shape;
  const K = x[x.length - 1];
  const N = spec.node.shape[spec.node.shape.length - 1];
  const R = K === 0 ? 0 : x.reduce((a, b) => a * b, 1) / K;
  if (R === 0 || N === 0) return planOf([]);
  if (WG > caps.maxComputeInvocationsPerWorkgroup) kernelError(spec, `needs ${WG} invocations per workgroup, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  // an epilogue (bias, GELU, residual: `expr`) binds its extra operands after y and runs on each stored element
  const hook = matmulEpilogueHook(spec);
  const epi = hook?.shaderParts();
  const at = (v: string, o: string) => (epi ? `epilogue(${v}, ${o})` : v);
  const storage = 4 + (epi?.buffers.length ?? 0);
  if (caps.maxStorageBuffersPerShaderStage < storage) kernelError(spec, `binds ${storage} storage buffers, more than maxStorageBuffersPerShaderStage (device value ${caps.maxStorageBuffersPerShaderStage})`);
  const blocks = q8Blocks(K);
  const consts = [`const R = ${u32Lit(R)};`, `const K = ${u32Lit(K)};`, `const N = ${u32Lit(N)};`, `const BLOCKS = ${u32Lit(blocks)};`, `const WORDS = ${u32Lit(blocks * format.wordsPerBlock)};`, `const DWORDS = ${u32Lit(Math.ceil(blocks / 2))};`];
  const buffers = [inputVar(spec, 0, 'x'), inputVar(spec, 1, 'q'), inputVar(spec, 2, 'd'), outputVar(spec), ...(epi?.buffers ?? [])];
  const what = hook ? `, ${hook.what}` : '';
  // x past K (the last block's padding) is read as 0, never out of bounds
  const xAt = (row: string, k: string) => (K % 32 === 0 ? `x[${row} * K + ${k}]` : `select(0.0, x[${row} * K + min(${k}, K - 1u)], ${k} < K)`);
  const grid = (gx: number, gy: number): [number, number, number] => {
    const max = caps.maxComputeWorkgroupsPerDimension;
    if (gx > max || gy > max) kernelError(spec, `needs ${gx} x ${gy} workgroups, more than maxComputeWorkgroupsPerDimension (device value ${max})`);
    return [gx, gy, 1];
  };
  if (R <= QUANT_GEMV_MAX_ROWS) {
    checkWorkgroupMemory(spec, WG * R * 4, caps);
    const rows = Array.from({ length: R }, (_, r) => r);
    const x4 = K % 32 === 0; // whole blocks of x are read as vec4s; else per element, guarded
    const xVec = (r: number, k: string) => (x4 ? `x[(${r}u * K + ${k}) / 4u]` : `vec4<f32>(${[0, 1, 2, 3].map((j) => xAt(`${r}u`, `${k} + ${j}u`)).join(', ')})`);
    const body = `let c = lid / 8u;
let t = lid % 8u;
let n = wid.x * ${u32Lit(GEMV_COLS)} + c;
var acc: array<f32, ${R}>;
if (n < N) {
${format.gemvLoop(rows, xVec)}
}
${rows.map((r) => `part[${r * WG}u + lid] = acc[${r}];`).join('\n')}
workgroupBarrier();
if (t == 0u && n < N) {
${rows.map((r) => `  y[${r}u * N + n] = ${at(Array.from({ length: 8 }, (_, i) => `part[${r * WG}u + lid + ${i}u]`).join(' + '), `${r}u * N + n`)};`).join('\n')}
}`;
    return planOf([
      shaderDispatch(spec, {
        strategy: `${format.name} weight, ${R} row(s): 8 threads per output column read its ${format.gemvUnit} (16 bytes each, consecutive), dequantize ${format.dequantized} in registers, then sum${what}`,
        buffers: [{ ...buffers[0], element: x4 ? 'vec4<f32>' : undefined }, { ...buffers[1], element: 'vec4<i32>' }, ...buffers.slice(2)],
        decls: [...consts, `var<workgroup> part: array<f32, ${WG * R}>;`, ...(epi?.decls ?? [])],
        main: computeMain(WG, '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32', body),
        workgroupSize: WG,
        grid: grid(Math.ceil(N / GEMV_COLS), 1),
      }),
    ]);
  }
  checkWorkgroupMemory(spec, (TILE_R * 32 + 32 * QUANT_TILE_N) * 4, caps);
  const body = `let n0 = wid.x * ${u32Lit(QUANT_TILE_N)};
let r0 = wid.y * ${u32Lit(TILE_R)};
let tn = lid % 16u;
let tr = lid / 16u;
var acc: array<vec4<f32>, 4>;
for (var b = 0u; b < BLOCKS; b++) {
  // x's K slice: 16 rows x 32
  for (var i = 0u; i < 8u; i++) {
    let e = lid + i * 64u;
    let r = r0 + e / 32u;
    let k = b * 32u + e % 32u;
    xs[e] = select(0.0, ${xAt('min(r, R - 1u)', 'k')}, r < R);
  }
${format.tiledLoad}
  workgroupBarrier();
  for (var kk = 0u; kk < 32u; kk++) {
    let w = vec4<f32>(${[0, 1, 2, 3].map((j) => `ws[kk * ${u32Lit(QUANT_TILE_N)} + tn * 4u + ${j}u]`).join(', ')});
${[0, 1, 2, 3].map((i) => `    acc[${i}] += xs[(tr * 4u + ${i}u) * 32u + kk] * w;`).join('\n')}
  }
  workgroupBarrier();
}
for (var i = 0u; i < 4u; i++) {
  let r = r0 + tr * 4u + i;
  for (var j = 0u; j < 4u; j++) {
    let n = n0 + tn * 4u + j;
    if (r < R && n < N) { y[r * N + n] = ${at('acc[i][j]', 'r * N + n')}; }
  }
}`;
  return planOf([
    shaderDispatch(spec, {
      strategy: `${format.name} weight, tiled ${TILE_R}x${QUANT_TILE_N} per workgroup (4x4 per thread), per block of 32 along K: x's slice and the dequantized weight block in workgroup memory${what}`,
      buffers,
      decls: [...consts, `var<workgroup> xs: array<f32, ${TILE_R * 32}>;`, `var<workgroup> ws: array<f32, ${32 * QUANT_TILE_N}>;`, ...(epi?.decls ?? [])],
      main: computeMain(WG, '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32', body),
      workgroupSize: WG,
      grid: grid(Math.ceil(N / QUANT_TILE_N), Math.ceil(R / TILE_R)),
    }),
  ]);
}

// `matmulQ8`: x [R, K] (any leading axes, rows contiguous) times a Q8_0 weight (ir's quantQ8.ts: int8 blocks of 32
// along K, 4 per i32 word, one f16 scale per block, 2 per word, read with unpack2x16float), the weight dequantized as it is loaded (w = d·q: never a
// dequantized copy in memory), f32 accumulation. Two shapes of kernel: a few rows (decoding: R ≤ 8) split each
// column's blocks over 8 threads that read consecutive words, then sum; more rows use a 16 x 64 output tile per
// workgroup with the K slice of x and the dequantized weight block in workgroup memory. Must not exceed `caps`.

import { q8Blocks } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { matmulEpilogueHook } from './matmulEpilogue.js';
import { computeMain, inputVar, outputVar, planOf, shaderDispatch } from './shader.js';
import { checkWorkgroupMemory, kernelError, u32Lit } from './wgsl.js';

/** Rows up to which the kernel is a matrix-vector product per row (decode steps), not a tiled product. */
export const Q8_GEMV_MAX_ROWS = 8;

const WG = 64; // threads per workgroup: within compatibility mode's 128
const GEMV_COLS = 8; // columns per workgroup of the few-rows kernel; 8 threads per column
const TILE_R = 16; // output rows per workgroup of the tiled kernel (4 per thread)
const TILE_N = 64; // output columns per workgroup of the tiled kernel (4 per thread)

/** The f16 scale of block `b` of column `n`, from its word of two halves. */
const scale = (n: string, b: string) => `unpack2x16float(bitcast<u32>(d[${n} * DWORDS + ${b} / 2u]))[${b} % 2u]`;

/** The int8 value j (0–3) of a packed word, sign-extended, as f32. */
const byte = (word: string, j: number) => `f32(extractBits(${word}, ${8 * j}u, 8u))`;

/** `matmulQ8`: the few-rows kernel for R ≤ Q8_GEMV_MAX_ROWS, else the tiled one. */
export function matmulQ8Kernel(spec: KernelSpec<'matmulQ8'>, caps: DeviceCaps): KernelPlan {
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
  const consts = [`const R = ${u32Lit(R)};`, `const K = ${u32Lit(K)};`, `const N = ${u32Lit(N)};`, `const BLOCKS = ${u32Lit(blocks)};`, `const WORDS = ${u32Lit(blocks * 8)};`, `const DWORDS = ${u32Lit(Math.ceil(blocks / 2))};`];
  const buffers = [inputVar(spec, 0, 'x'), inputVar(spec, 1, 'q'), inputVar(spec, 2, 'd'), outputVar(spec), ...(epi?.buffers ?? [])];
  const what = hook ? `, ${hook.what}` : '';
  // x past K (the last block's zero padding) is read as 0, never out of bounds
  const xAt = (row: string, k: string) => (K % 32 === 0 ? `x[${row} * K + ${k}]` : `select(0.0, x[${row} * K + min(${k}, K - 1u)], ${k} < K)`);
  const grid = (gx: number, gy: number): [number, number, number] => {
    const max = caps.maxComputeWorkgroupsPerDimension;
    if (gx > max || gy > max) kernelError(spec, `needs ${gx} x ${gy} workgroups, more than maxComputeWorkgroupsPerDimension (device value ${max})`);
    return [gx, gy, 1];
  };
  if (R <= Q8_GEMV_MAX_ROWS) {
    checkWorkgroupMemory(spec, WG * R * 4, caps);
    const rows = Array.from({ length: R }, (_, r) => r);
    // whole blocks of x (K a multiple of 32) are read as vec4s; else per element, guarded
    const x4 = K % 32 === 0;
    const xVec = (r: number, k: string) => (x4 ? `x[(${r}u * K + ${k}) / 4u]` : `vec4<f32>(${[0, 1, 2, 3].map((j) => xAt(`${r}u`, `${k} + ${j}u`)).join(', ')})`);
    // thread t of a column reads its half blocks t, t + 8, …: 8 threads read 128 consecutive bytes of the weight
    const body = `let c = lid / 8u;
let t = lid % 8u;
let n = wid.x * ${u32Lit(GEMV_COLS)} + c;
var acc: array<f32, ${R}>;
if (n < N) {
  for (var h = t; h < BLOCKS * 2u; h += 8u) {
    let s = ${scale('n', '(h / 2u)')};
    let v = q[n * (WORDS / 4u) + h];
${[0, 1, 2, 3]
  .map(
    (e) => `    let w${e} = s * vec4<f32>(${[0, 1, 2, 3].map((j) => byte(`v[${e}]`, j)).join(', ')});
${rows.map((r) => `    acc[${r}] += dot(w${e}, ${xVec(r, `h * 16u + ${4 * e}u`)});`).join('\n')}`,
  )
  .join('\n')}
  }
}
${rows.map((r) => `part[${r * WG}u + lid] = acc[${r}];`).join('\n')}
workgroupBarrier();
if (t == 0u && n < N) {
${rows.map((r) => `  y[${r}u * N + n] = ${at(Array.from({ length: 8 }, (_, i) => `part[${r * WG}u + lid + ${i}u]`).join(' + '), `${r}u * N + n`)};`).join('\n')}
}`;
    return planOf([
      shaderDispatch(spec, {
        strategy: `Q8_0 weight, ${R} row(s): 8 threads per output column read its half blocks (16 bytes each, consecutive), dequantize d·q in registers, then sum${what}`,
        buffers: [{ ...buffers[0], element: x4 ? 'vec4<f32>' : undefined }, { ...buffers[1], element: 'vec4<i32>' }, ...buffers.slice(2)],
        decls: [...consts, `var<workgroup> part: array<f32, ${WG * R}>;`, ...(epi?.decls ?? [])],
        main: computeMain(WG, '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32', body),
        workgroupSize: WG,
        grid: grid(Math.ceil(N / GEMV_COLS), 1),
      }),
    ]);
  }
  checkWorkgroupMemory(spec, (TILE_R * 32 + 32 * TILE_N) * 4, caps);
  const body = `let n0 = wid.x * ${u32Lit(TILE_N)};
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
  // the weight block of 64 columns, dequantized as it is loaded: ws[k][c] = d·q
  for (var i = 0u; i < 8u; i++) {
    let e = lid + i * 64u;
    let c = e / 8u;
    let wi = e % 8u;
    let n = n0 + c;
    var word = 0i;
    var s = 0.0;
    if (n < N) {
      word = q[n * WORDS + b * 8u + wi];
      s = ${scale('n', 'b')};
    }
${[0, 1, 2, 3].map((j) => `    ws[(wi * 4u + ${j}u) * ${u32Lit(TILE_N)} + c] = s * ${byte('word', j)};`).join('\n')}
  }
  workgroupBarrier();
  for (var kk = 0u; kk < 32u; kk++) {
    let w = vec4<f32>(${[0, 1, 2, 3].map((j) => `ws[kk * ${u32Lit(TILE_N)} + tn * 4u + ${j}u]`).join(', ')});
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
      strategy: `Q8_0 weight, tiled ${TILE_R}x${TILE_N} per workgroup (4x4 per thread), per block of 32 along K: x's slice and the dequantized weight block in workgroup memory${what}`,
      buffers,
      decls: [...consts, `var<workgroup> xs: array<f32, ${TILE_R * 32}>;`, `var<workgroup> ws: array<f32, ${32 * TILE_N}>;`, ...(epi?.decls ?? [])],
      main: computeMain(WG, '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32', body),
      workgroupSize: WG,
      grid: grid(Math.ceil(N / TILE_N), Math.ceil(R / TILE_R)),
    }),
  ]);
}

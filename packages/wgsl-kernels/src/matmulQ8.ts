// `matmulQ8`: the quantized matmul kernels (quantizedMatmul.ts) for a Q8_0 weight (ir's quantQ8.ts: int8 blocks of
// 32 along K, 4 per i32 word, one f16 scale per block, 2 per word, read with unpack2x16float): w = d·q.

import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { blockScale, QUANT_GEMV_MAX_ROWS, QUANT_TILE_N, type QuantizedFormat, quantizedMatmulKernel } from './quantizedMatmul.js';
import { u32Lit } from './wgsl.js';

/** Rows up to which the kernel is a matrix-vector product per row (decode steps), not a tiled product. */
export const Q8_GEMV_MAX_ROWS = QUANT_GEMV_MAX_ROWS;

/** The int8 value j (0–3) of a packed word, sign-extended, as f32. */
const byte = (word: string, j: number) => `f32(extractBits(${word}, ${8 * j}u, 8u))`;

/** Q8_0: 8 words per block; a few-rows thread reads half blocks (4 words) t, t + 8, …: 128 consecutive bytes per column. */
const Q8_0: QuantizedFormat = {
  name: 'Q8_0',
  wordsPerBlock: 8,
  dequantized: 'd·q',
  gemvUnit: 'half blocks',
  gemvLoop: (rows, xVec) => `  for (var h = t; h < BLOCKS * 2u; h += 8u) {
    let s = ${blockScale('n', '(h / 2u)')};
    let v = q[n * (WORDS / 4u) + h];
${[0, 1, 2, 3]
  .map(
    (e) => `    let w${e} = s * vec4<f32>(${[0, 1, 2, 3].map((j) => byte(`v[${e}]`, j)).join(', ')});
${rows.map((r) => `    acc[${r}] += dot(w${e}, ${xVec(r, `h * 16u + ${4 * e}u`)});`).join('\n')}`,
  )
  .join('\n')}
  }`,
  tiledLoad: `  // the weight block of 64 columns, dequantized as it is loaded: ws[k][c] = d·q
  for (var i = 0u; i < 8u; i++) {
    let e = lid + i * 64u;
    let c = e / 8u;
    let wi = e % 8u;
    let n = n0 + c;
    var word = 0i;
    var s = 0.0;
    if (n < N) {
      word = q[n * WORDS + b * 8u + wi];
      s = ${blockScale('n', 'b')};
    }
${[0, 1, 2, 3].map((j) => `    ws[(wi * 4u + ${j}u) * ${u32Lit(QUANT_TILE_N)} + c] = s * ${byte('word', j)};`).join('\n')}
  }`,
};

/** `matmulQ8`: the few-rows kernel for R ≤ Q8_GEMV_MAX_ROWS, else the tiled one. */
export function matmulQ8Kernel(spec: KernelSpec<'matmulQ8'>, caps: DeviceCaps): KernelPlan {
  return quantizedMatmulKernel(spec, caps, Q8_0);
}

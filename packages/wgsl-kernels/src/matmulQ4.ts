// `matmulQ4`: the quantized matmul kernels (quantizedMatmul.ts) for a Q4_0 weight (ir's quantQ4.ts: 4-bit blocks of
// 32 along K, a block's 16 bytes in 4 i32 words with q[j] in byte j's low nibble and q[j + 16] in its high one, one
// f16 scale per block, 2 per word): w = (q − 8)·d.

import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { blockScale, QUANT_TILE_N, type QuantizedFormat, quantizedMatmulKernel } from './quantizedMatmul.js';
import { u32Lit } from './wgsl.js';

/** The four low (`hi` false: q[4e..4e+3]) or high (q[16+4e..]) nibbles of word `u` (a u32) as q − 8, a vec4<f32>. */
const nibbles = (u: string, hi: boolean) => `vec4<f32>((vec4<u32>(${u}) >> vec4<u32>(${[0, 8, 16, 24].map((s) => `${s + (hi ? 4 : 0)}u`).join(', ')})) & vec4<u32>(15u)) - vec4<f32>(8.0)`;

/** Q4_0: 4 words per block; a few-rows thread reads blocks t, t + 8, …: 128 consecutive bytes per column. */
const Q4_0: QuantizedFormat = {
  name: 'Q4_0',
  wordsPerBlock: 4,
  dequantized: '(q − 8)·d',
  gemvUnit: 'blocks',
  gemvLoop: (rows, xVec) => `  for (var b = t; b < BLOCKS; b += 8u) {
    let s = ${blockScale('n', 'b')};
    let v = bitcast<vec4<u32>>(q[n * BLOCKS + b]);
${[0, 1, 2, 3]
  .map(
    (e) => `    let lo${e} = s * (${nibbles(`v[${e}]`, false)});
    let hi${e} = s * (${nibbles(`v[${e}]`, true)});
${rows.map((r) => `    acc[${r}] += dot(lo${e}, ${xVec(r, `b * 32u + ${4 * e}u`)}) + dot(hi${e}, ${xVec(r, `b * 32u + ${16 + 4 * e}u`)});`).join('\n')}`,
  )
  .join('\n')}
  }`,
  // padding columns read 0x88888888: nibbles of 8, weight 0
  tiledLoad: `  // the weight block of 64 columns (4 words each), dequantized as it is loaded: ws[k][c] = (q − 8)·d
  for (var i = 0u; i < 4u; i++) {
    let e = lid + i * 64u;
    let c = e / 4u;
    let wi = e % 4u;
    let n = n0 + c;
    var word = 0x88888888u;
    var s = 0.0;
    if (n < N) {
      word = bitcast<u32>(q[n * WORDS + b * 4u + wi]);
      s = ${blockScale('n', 'b')};
    }
    let lo = s * (${nibbles('word', false)});
    let hi = s * (${nibbles('word', true)});
${[0, 1, 2, 3].map((j) => `    ws[(wi * 4u + ${j}u) * ${u32Lit(QUANT_TILE_N)} + c] = lo[${j}];\n    ws[(16u + wi * 4u + ${j}u) * ${u32Lit(QUANT_TILE_N)} + c] = hi[${j}];`).join('\n')}
  }`,
};

/** `matmulQ4`: the few-rows kernel for R ≤ QUANT_GEMV_MAX_ROWS, else the tiled one. */
export function matmulQ4Kernel(spec: KernelSpec<'matmulQ4'>, caps: DeviceCaps): KernelPlan {
  return quantizedMatmulKernel(spec, caps, Q4_0);
}

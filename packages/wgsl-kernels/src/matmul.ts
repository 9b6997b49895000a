// `matmul` and `fusedMatmul`: a tiled shared-memory kernel with register blocking. Each workgroup computes a
// BM x BN tile of C = op(A)·op(B) stepping through K in BK slices staged in workgroup memory; each thread owns a
// TM x TN block of accumulators (rows ty + i*TY, columns tx + j*TX, so stores and shared reads are contiguous).
// Transposes are flags (they change only the tile loads); the epilogue adds a broadcast bias and applies relu.
// Any M, N, K: loads outside the matrices stage zeros, stores are bounds-checked. Must not exceed `caps`.

import { broadcastStrides } from '@neura/ir';
import type { Activation } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { bindOperands, checkWorkgroupMemory, header, kernelError, labelOf, u32Lit } from './wgsl.js';

/** A matmul tiling: tile BM x BN x BK, TM x TN outputs per thread, (BN/TN) x (BM/TM) threads. */
export interface MatmulConfig {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
  readonly tm: number;
  readonly tn: number;
}

/** The configurations, largest first: 64x64 (256 threads), 32x32 (64 threads), 16x16 (16 threads). */
export const MATMUL_CONFIGS: readonly MatmulConfig[] = [
  { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 },
  { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4 },
  { bm: 16, bn: 16, bk: 16, tm: 4, tn: 4 },
];

/** Below this many 64x64 output tiles the 32x32 configuration is preferred (more workgroups in flight). */
export const LARGE_TILE_MIN_TILES = 64;

const threadsOf = (c: MatmulConfig) => (c.bn / c.tn) * (c.bm / c.tm);
/** Workgroup memory of a configuration in bytes (one padding column for k-contiguous loads). */
export const sharedBytesOf = (c: MatmulConfig) => (c.bk * (c.bm + 1) + c.bk * (c.bn + 1)) * 4;

/** Whether a configuration fits the device's limits. */
export function matmulConfigFits(c: MatmulConfig, caps: DeviceCaps): boolean {
  return (
    threadsOf(c) <= caps.maxComputeInvocationsPerWorkgroup &&
    c.bn / c.tn <= caps.maxComputeWorkgroupSizeX &&
    c.bm / c.tm <= caps.maxComputeWorkgroupSizeY &&
    sharedBytesOf(c) <= caps.maxComputeWorkgroupStorageSize
  );
}

/** Picks the configuration for an M x N output on this device. */
export function chooseMatmulConfig(m: number, n: number, caps: DeviceCaps): MatmulConfig | undefined {
  const fits = MATMUL_CONFIGS.filter((c) => matmulConfigFits(c, caps));
  if (!fits.length) return undefined;
  const [first, second] = fits;
  if (first.bm === 64 && second && Math.ceil(m / 64) * Math.ceil(n / 64) < LARGE_TILE_MIN_TILES) return second;
  return first;
}

/** `matmul` and `fusedMatmul` (bias, relu epilogue). */
export function matmulKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const attrs = node.attrs as { transA: boolean; transB: boolean; bias?: boolean; activation?: Activation };
  const { transA, transB } = attrs;
  const hasBias = node.op === 'fusedMatmul' && attrs.bias === true;
  const relu = node.op === 'fusedMatmul' && attrs.activation === 'relu';
  const [M, N] = node.shape;
  const K = transA ? spec.inputs[0].shape[0] : spec.inputs[0].shape[1];
  const flops = 2 * M * N * K + (hasBias ? M * N : 0) + (relu ? M * N : 0);
  if (M === 0 || N === 0) return { dispatches: [], scratch: [], flops: 0 };
  const cfg = chooseMatmulConfig(M, N, caps);
  if (!cfg) {
    const c = MATMUL_CONFIGS[MATMUL_CONFIGS.length - 1];
    checkWorkgroupMemory(spec, sharedBytesOf(c), caps);
    return kernelError(spec, `needs ${threadsOf(c)} invocations per workgroup, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  }
  const { bm, bn, bk, tm, tn } = cfg;
  const tx = bn / tn;
  const ty = bm / tm;
  const nt = tx * ty;
  const grid: [number, number, number] = [Math.ceil(N / bn), Math.ceil(M / bm), 1];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid[0] > max || grid[1] > max)
    kernelError(spec, `needs a ${grid[0]}x${grid[1]} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  const { bindings, name, declarations } = bindOperands(spec, hasBias ? [0, 1, 2] : [0, 1], ['a', 'b', 'bias']);
  const A = name(0);
  const B = name(1);
  // Shared layouts: As[k][m] and Bs[k][n]; rows padded by one when the global load walks k (avoids bank conflicts).
  const sa = transA ? bm : bm + 1;
  const sb = transB ? bn + 1 : bn;
  const lines: string[] = [];
  const L = (s: string, d = 1) => lines.push(`${'  '.repeat(d)}${s}`);

  for (let i = 0; i < tm; i++) for (let j = 0; j < tn; j++) L(`var acc${i}${j} = 0.0;`);
  L('for (var k0 = 0u; k0 < K; k0 = k0 + BK) {');
  for (let l = 0; l < (bm * bk) / nt; l++) {
    L(`{ let e = lid + ${u32Lit(l * nt)};`, 2);
    if (transA) L(`let k = e / BM; let m = e % BM; let gm = row0 + m; let gk = k0 + k;`, 3);
    else L(`let m = e / BK; let k = e % BK; let gm = row0 + m; let gk = k0 + k;`, 3);
    L(`var v = 0.0; if (gm < M && gk < K) { v = ${A}[${transA ? 'gk * M + gm' : 'gm * K + gk'}]; }`, 3);
    L(`As[k * SA + m] = v; }`, 3);
  }
  for (let l = 0; l < (bn * bk) / nt; l++) {
    L(`{ let e = lid + ${u32Lit(l * nt)};`, 2);
    if (transB) L(`let n = e / BK; let k = e % BK; let gn = col0 + n; let gk = k0 + k;`, 3);
    else L(`let k = e / BN; let n = e % BN; let gn = col0 + n; let gk = k0 + k;`, 3);
    L(`var v = 0.0; if (gn < N && gk < K) { v = ${B}[${transB ? 'gn * K + gk' : 'gk * N + gn'}]; }`, 3);
    L(`Bs[k * SB + n] = v; }`, 3);
  }
  L('workgroupBarrier();', 2);
  L('for (var k = 0u; k < BK; k = k + 1u) {', 2);
  for (let i = 0; i < tm; i++) L(`let a${i} = As[k * SA + ty + ${u32Lit(i * ty)}];`, 3);
  for (let j = 0; j < tn; j++) L(`let b${j} = Bs[k * SB + tx + ${u32Lit(j * tx)}];`, 3);
  for (let i = 0; i < tm; i++) L(Array.from({ length: tn }, (_, j) => `acc${i}${j} = fma(a${i}, b${j}, acc${i}${j});`).join(' '), 3);
  L('}', 2);
  L('workgroupBarrier();', 2);
  L('}');
  let biasIdx = '';
  if (hasBias) {
    const [bs0, bs1] = broadcastStrides(spec.inputs[2].shape, [M, N]);
    const terms = [bs0 ? `r * ${u32Lit(bs0)}` : '', bs1 ? (bs1 === 1 ? 'c' : `c * ${u32Lit(bs1)}`) : ''].filter(Boolean);
    biasIdx = terms.join(' + ') || '0u';
  }
  for (let i = 0; i < tm; i++)
    for (let j = 0; j < tn; j++) {
      const v = [`var v = acc${i}${j};`, hasBias ? ` v = v + ${name(2)}[${biasIdx}];` : '', relu ? ' v = max(v, 0.0);' : ''].join('');
      L(`{ let r = row0 + ty + ${u32Lit(i * ty)}; let c = col0 + tx + ${u32Lit(j * tx)}; if (r < M && c < N) { ${v} y[r * N + c] = v; } }`);
    }

  const what = `${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'}${hasBias ? ' + bias' : ''}${relu ? ', relu' : ''}`;
  checkWorkgroupMemory(spec, sharedBytesOf(cfg), caps);
  const code = `${header(spec, `tiled matmul ${what}: M=${M} N=${N} K=${K}, tile ${bm}x${bn}x${bk}, ${tm}x${tn} per thread, ${tx}x${ty} threads`)}${declarations}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
const BM = ${u32Lit(bm)};
const BN = ${u32Lit(bn)};
const BK = ${u32Lit(bk)};
const SA = ${u32Lit(sa)};
const SB = ${u32Lit(sb)};
var<workgroup> As: array<f32, ${bk * sa}>;
var<workgroup> Bs: array<f32, ${bk * sb}>;

@compute @workgroup_size(${tx}, ${ty})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let tx = lid3.x;
  let ty = lid3.y;
${lines.join('\n')}
}
`;
  const label = labelOf(node, `${M}x${K}x${N}`);
  return { dispatches: [{ label, code, bindings, workgroupSize: [tx, ty, 1], grid }], scratch: [], flops };
}

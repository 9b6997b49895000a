// Flash-attention forward on subgroup matrices (tensor cores), for `precision: 'mixed'`: attention's output and/or
// its log-sum-exp with q, k, v read as f16 (rounded as they are staged; autocast stores them f16-rounded already)
// and f32 accumulation, as PyTorch's SDPA under autocast computes it.
// A workgroup of 4 subgroups owns 64 query rows of one head (16 per subgroup); its Q rows are staged once and held
// as left matrices in registers. Key tiles of BK rows are staged as f16 in workgroup memory. Two passes over the key
// tiles, so that no accumulator ever needs rescaling (a subgroup matrix cannot be scaled per row):
// - pass 1: S = Q·Kᵀ on the matrices, stored to workgroup memory; each query row's max m and sum l of exp(s − m)
//   updated online by the row's two lanes (subgroupShuffleXor joins their halves). L = m + log l per row.
// - pass 2 (output wanted): S again, P = exp(scale·s − L) (0 where masked) stored as f16, and O += P·V on the
//   matrices. P is already normalised, so O is the output.
// Causal masks are top-left aligned (key j > query i masked); key tiles past the block's last query are skipped.
// Opt-in (`FlashConfig.tensorCores`) until its numerics and speed are measured on a GPU; flashAttention.ts
// chooses it.

import { type AttentionDims, rowIndex } from './attentionDims.js';
import type { Binding, DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, f32Lit, header, kernelError, labelOf, u32Lit } from './wgsl.js';

/** Query rows per workgroup (4 subgroups of 16) and lanes per subgroup the kernel assumes (NVIDIA: 32). */
const ROWS = 64;
const LANES = 32;
const THREADS = (ROWS / 16) * LANES;
/** f16 elements each staged row is padded by (so consecutive rows start on different banks), and f32 for scores. */
const PAD16 = 8;
const PAD32 = 4;
const MASKED = '-3.0e38';

/**
 * What the forward writes, each as the result index of the node it goes to (`null`: the node's only result):
 * attention's output, the log-sum-exp per query row, or both.
 */
export interface TensorCoreForwardWrites {
  readonly out?: number | null;
  readonly lse?: number | null;
}

const outputSource = (index: number | null) => (index === null ? ({ kind: 'output' } as const) : ({ kind: 'output', index } as const));

/** Workgroup memory of the kernel with key tiles of `bk` rows. */
function smemBytes(d: number, dv: number, bk: number, withV: boolean): number {
  const qp = ROWS * Math.max(d + PAD16, bk + PAD16) * 2; // Q's rows, then P's
  const kv = bk * (d + PAD16) * 2 + (withV ? bk * (dv + PAD16) * 2 : 0);
  const s = Math.max(ROWS * (bk + PAD32), (ROWS / 16) * 256) * 4; // scores, then one output matrix per subgroup
  return qp + kv + s;
}

/** Key rows per staged tile: the most of 64, 32, 16 whose workgroup memory fits, or 0. */
function keyTile(d: number, dv: number, caps: DeviceCaps, withV: boolean): number {
  return [64, 32, 16].find((bk) => smemBytes(d, dv, bk, withV) <= caps.maxComputeWorkgroupStorageSize) ?? 0;
}

/** Whether the tensor-core forward runs on these caps and dimensions (16x16x16 f16 matrices, D and Dv multiples of 16 up to 128). */
export function tensorCoreAttentionFits(dm: AttentionDims, caps: DeviceCaps, withV = true): boolean {
  const s = caps.mixedMatmul;
  const dv = withV ? dm.dv : 16;
  return (
    s !== undefined &&
    s.m === 16 &&
    s.n === 16 &&
    s.k === 16 &&
    caps.subgroups &&
    caps.shaderF16 &&
    THREADS <= caps.maxComputeInvocationsPerWorkgroup &&
    THREADS <= caps.maxComputeWorkgroupSizeX &&
    dm.d % 16 === 0 &&
    dv % 16 === 0 &&
    dm.d <= 128 &&
    dv <= 128 &&
    keyTile(dm.d, dv, caps, withV) > 0
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * Stages rows [j0, j0 + bk) of `src` (n floats each, `rows` per head) into f16 `dst` rows of `stride`, zeros past the
 * end: a vec4 load, four f16 stores.
 */
const stage = (dm: AttentionDims, dst: string, src: 'q' | 'k' | 'v', r0: string, n: number, rows: number, count: number, stride: number) =>
  `for (var e = lid; e < ${u32Lit((count * n) / 4)}; e = e + ${u32Lit(THREADS)}) {
      let rr = e / ${u32Lit(n / 4)};
      let cc = (e % ${u32Lit(n / 4)}) * 4u;
      var val = vec4<f32>();
      if (${r0} + rr < ${u32Lit(rows)}) { val = ${src}[${rowIndex(dm, `${r0} + rr`, rows, dm.views[src] ? src : undefined)} * ${u32Lit(n / 4)} + e % ${u32Lit(n / 4)}]; }
      let o = rr * ${u32Lit(stride)} + cc;
      ${dst}[o] = f16(val.x); ${dst}[o + 1u] = f16(val.y); ${dst}[o + 2u] = f16(val.z); ${dst}[o + 3u] = f16(val.w);
    }`;

/** The kernel (see the file header). Binds q, k, then v and the output when it writes the output, then the log-sum-exp. */
export function tensorCoreForwardPlan(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, writes: TensorCoreForwardWrites): KernelPlan {
  const withV = writes.out !== undefined;
  const withLse = writes.lse !== undefined;
  if (!tensorCoreAttentionFits(dm, caps, withV)) kernelError(spec, 'the tensor-core attention forward does not fit these dimensions or caps');
  const { tq, tk, d } = dm;
  const dv = withV ? dm.dv : 0;
  const bk = keyTile(d, withV ? dv : 16, caps, withV);
  const QST = d + PAD16;
  const KST = d + PAD16;
  const VST = dv + PAD16;
  const PST = bk + PAD16;
  const SST = bk + PAD32;
  const L = 'subgroup_matrix_left<f16, 16, 16>';
  const R = 'subgroup_matrix_right<f16, 16, 16>';
  const C = 'subgroup_matrix_result<f32, 16, 16>';
  const smem = smemBytes(d, withV ? dv : 16, bk, withV);
  checkWorkgroupMemory(spec, smem, caps);
  const decl = [
    '@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;',
    '@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;',
    ...(withV ? ['@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;', '@group(0) @binding(3) var<storage, read_write> y: array<f32>;'] : []),
    ...(withLse ? [`@group(0) @binding(${withV ? 4 : 2}) var<storage, read_write> lse: array<f32>;`] : []),
  ];
  // S = Q·Kᵀ for the staged key tile into Ss (this subgroup's 16 rows): Kᵀ is K's rows read column-major
  const scores = range(bk / 16)
    .map(
      (jb) => `{
      var acc: ${C};
      ${range(d / 16)
        .map((t) => `acc = subgroupMatrixMultiplyAccumulate(ql${t}, subgroupMatrixLoad<${R}, col_major>(&Ks, ${u32Lit(jb * 16 * KST + t * 16)}, ${u32Lit(KST)}), acc);`)
        .join('\n      ')}
      subgroupMatrixStore<row_major>(&Ss, sg * ${u32Lit(16 * SST)} + ${u32Lit(jb * 16)}, acc, ${u32Lit(SST)});
    }`,
    )
    .join('\n    ');
  // this lane's scores: row r of its subgroup, columns c = 2i + half (the pair of lanes of a row interleaved)
  const keyValid = (j: string) => (causal ? `(${j} < ${u32Lit(tk)} && ${j} <= qi)` : `${j} < ${u32Lit(tk)}`);
  const score = (c: string) => `Ss[(sg * 16u + r) * ${u32Lit(SST)} + ${c}] * ${f32Lit(scale)}`;
  const pass1 = `for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bk)}) {
    ${stage(dm, 'Ks', 'k', 'j0', d, tk, bk, KST)}
    workgroupBarrier();
    ${scores}
    workgroupBarrier();
    var mt = ${MASKED};
    for (var i = 0u; i < ${u32Lit(bk / 2)}; i = i + 1u) {
      let c = 2u * i + half;
      if (${keyValid('j0 + c')}) { mt = max(mt, ${score('c')}); }
    }
    mt = max(mt, subgroupShuffleXor(mt, 1u));
    let mn = max(m, mt);
    var ls = 0.0;
    for (var i = 0u; i < ${u32Lit(bk / 2)}; i = i + 1u) {
      let c = 2u * i + half;
      if (${keyValid('j0 + c')}) { ls = ls + exp(${score('c')} - mn); }
    }
    ls = ls + subgroupShuffleXor(ls, 1u);
    l = l * exp(m - mn) + ls;
    m = mn;
    workgroupBarrier();
  }`;
  const pass2 = `${range(dv / 16)
    .map((j) => `var o${j}: ${C};`)
    .join(' ')}
  for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bk)}) {
    ${stage(dm, 'Ks', 'k', 'j0', d, tk, bk, KST)}
    ${stage(dm, 'Vs', 'v', 'j0', dv, tk, bk, VST)}
    workgroupBarrier();
    ${scores}
    workgroupBarrier();
    for (var i = 0u; i < ${u32Lit(bk / 2)}; i = i + 1u) {
      let c = 2u * i + half;
      var p = 0.0;
      if (${keyValid('j0 + c')}) { p = exp(${score('c')} - lrow); }
      QPs[(sg * 16u + r) * ${u32Lit(PST)} + c] = f16(p);
    }
    workgroupBarrier();
    ${range(bk / 16)
      .map(
        (kk) => `{
      let pl = subgroupMatrixLoad<${L}, row_major>(&QPs, sg * ${u32Lit(16 * PST)} + ${u32Lit(kk * 16)}, ${u32Lit(PST)});
      ${range(dv / 16)
        .map((j) => `o${j} = subgroupMatrixMultiplyAccumulate(pl, subgroupMatrixLoad<${R}, row_major>(&Vs, ${u32Lit(kk * 16 * VST + j * 16)}, ${u32Lit(VST)}), o${j});`)
        .join('\n      ')}
    }`,
      )
      .join('\n    ')}
    workgroupBarrier();
  }
  ${range(dv / 16)
    .map(
      (j) => `subgroupMatrixStore<row_major>(&Ss, sg * 256u, o${j}, 16u);
  workgroupBarrier();
  for (var e = sl; e < 256u; e = e + ${u32Lit(LANES)}) {
    let qq = q0 + sg * 16u + e / 16u;
    if (qq < ${u32Lit(tq)}) { y[${rowIndex(dm, 'qq', tq)} * ${u32Lit(dv)} + ${u32Lit(j * 16)} + e % 16u] = Ss[sg * 256u + e]; }
  }
  workgroupBarrier();`,
    )
    .join('\n  ')}`;
  const what = withV ? (withLse ? 'forward and log-sum-exp' : 'forward') : 'log-sum-exp';
  const code = `${header(spec, `flash attention ${what} on subgroup matrices (f16 operands, f32 accumulation): 64 query rows per workgroup (4 subgroups of 16), key tiles of ${bk}, ${withV ? 'two passes (statistics, then normalised P·V)' : 'one pass'}${causal ? ', causal tiles skipped' : ''}`)}enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
${decl.join('\n')}

var<workgroup> QPs: array<f16, ${ROWS * Math.max(QST, PST)}>;
var<workgroup> Ks: array<f16, ${bk * KST}>;
${withV ? `var<workgroup> Vs: array<f16, ${bk * VST}>;\n` : ''}var<workgroup> Ss: array<f32, ${Math.max(ROWS * SST, (ROWS / 16) * 256)}>;

@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sl: u32) {
  let h = wid.y;
  let q0 = wid.x * ${u32Lit(ROWS)};
  let sg = lid / ${u32Lit(LANES)};
  ${stage(dm, 'QPs', 'q', 'q0', d, tq, ROWS, QST)}
  workgroupBarrier();
  ${range(d / 16)
    .map((t) => `let ql${t} = subgroupMatrixLoad<${L}, row_major>(&QPs, sg * ${u32Lit(16 * QST)} + ${u32Lit(t * 16)}, ${u32Lit(QST)});`)
    .join('\n  ')}
  workgroupBarrier();
  let r = sl / 2u;
  let half = sl % 2u;
  let qi = q0 + sg * 16u + r;
  let tend = ${causal ? `min(q0 + ${u32Lit(ROWS)}, ${u32Lit(tk)})` : u32Lit(tk)};
  var m = ${MASKED};
  var l = 0.0;
  ${pass1}
  let lrow = select(0.0, m + log(l), qi < ${u32Lit(tq)} && l > 0.0);
  ${withLse ? `if (half == 0u && qi < ${u32Lit(tq)}) { lse[${rowIndex(dm, 'qi', tq)}] = lrow; }` : ''}
  ${withV ? pass2 : ''}
}
`;
  const bindings: Binding[] = (withV ? [0, 1, 2] : [0, 1]).map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  if (writes.out !== undefined) bindings.push({ source: outputSource(writes.out), access: 'read_write', dtype: 'f32' });
  if (writes.lse !== undefined) bindings.push({ source: outputSource(writes.lse), access: 'read_write', dtype: 'f32' });
  const grid: [number, number, number] = [Math.ceil(tq / ROWS), dm.heads, 1];
  if (grid[0] > caps.maxComputeWorkgroupsPerDimension || grid[1] > caps.maxComputeWorkgroupsPerDimension)
    kernelError(spec, `needs a ${grid[0]}x${grid[1]} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${caps.maxComputeWorkgroupsPerDimension})`);
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [THREADS, 1, 1], grid }], scratch: [] };
}

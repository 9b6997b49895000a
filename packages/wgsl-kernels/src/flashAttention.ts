// Flash attention for `attention`, `attentionLse`, `attentionWithLse`, `attentionGrad` and `attentionGradKV` when D
// and Dv are multiples of 4 (≤ 128): a
// workgroup per (head, block of BR rows), one thread per row holding its row vectors in vec4 registers (unrolled
// here, so nothing is indexed at run time); partner rows are staged in workgroup memory BC at a time (coalesced
// vec4 loads) and read by every thread as broadcasts. No T×T matrix exists anywhere.
// - forward: online softmax (running max m, sum l; rescale once per 4 keys only when the max grows), causal
//   tiles past the block's last query are never loaded, the diagonal tile is masked per thread. `attentionLse`
//   is the same loop without V: it writes L = m + log l per query row.
// - gradients read L and Δ = dO·O per query row (operands of attentionGrad, computed once per attention): dq, a
//   thread per query row over key tiles (P = exp(s − L), dS = P(dP − Δ), dq += dS·k), or dk / dv (or both at
//   once, attentionGradKV: P computed once), a thread per key row over query tiles (dv += P·dO, dk += dS·q).
//   These row kernels run where neither flashAttentionGemmGrad.ts's matmul-style kernels (the default) nor
//   flashAttentionTiledGrad.ts's fit, or where a FlashConfig asks for them; `gradKernel` is the one place that chooses.
// - layouts: heads-major [..., H, T, D] or seq-major [..., T, H, D] (`seqMajor`), one row-index formula apart.
// Causal masks are top-left aligned (key j > query i masked, as the interpreter). attention.ts decides when to
// use this file (its simple kernels stay for odd D and as the reference shape).
// A matmul-style forward (FlashAttention-2 in the SIMT style of flashAttentionGemmGrad.ts: S = Q·Kᵀ register-tiled
// with D streamed, row maxima met in workgroup memory once per key tile, O += P·V) was built and measured slower on
// the H100, 2026-12-08 (B64 H6 T256 D64 causal, seq-major, GPU time): 0.62–1.77 ms over eight tile shapes against
// this row kernel's 0.187 ms (`h100-2026-12-08-s7.md`); it was removed (commit e8dc8ac has it).

import { type AttentionDims, attentionDims, gradReadBindings, rowDelta, rowIndex, type ViewedTensor, withResultViews } from './attentionDims.js';
import type { Binding, DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
export { type AttentionDims, attentionDims, rowIndex };
import { chooseGemmGrad, type GemmGradConfig, type GemmGradWrites, gemmGradCode } from './flashAttentionGemmGrad.js';
import { tensorCoreGradCode, tensorCoreGradFits } from './flashAttentionSubgroupMatrixGrad.js';
import { chooseTiledGrad, DEFAULT_TILED_GRAD, type TiledGradConfig, tiledGradCode } from './flashAttentionTiledGrad.js';
import { checkWorkgroupMemory, f32Lit, header, kernelError, labelOf, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** Largest head dimension the register-resident rows allow. */
export const FLASH_MAX_DIM = 128;

/** Whether the flash kernels handle these dimensions (else attention.ts's simple kernels run). */
export function flashEligible(d: number, dv: number, caps: DeviceCaps): boolean {
  return d % 4 === 0 && dv % 4 === 0 && d > 0 && dv > 0 && d <= FLASH_MAX_DIM && dv <= FLASH_MAX_DIM && linearWorkgroupSize(caps, 64) >= 16 && tileRows(d, dv, caps) > 0;
}

/** Partner rows per staged tile: the most (≤ `most`, multiple of 4) whose rows and two floats each fit the caps. */
function tileRows(a: number, b: number, caps: DeviceCaps, most = 32): number {
  for (const bc of [64, 32, 16, 8, 4]) if (bc <= most && bc * (a + b + 2) * 4 <= caps.maxComputeWorkgroupStorageSize) return bc;
  return 0;
}

/** A flash variant: rows (threads) per workgroup and partner rows per staged tile (for sweeps; defaults 64 and 32). */
export interface FlashConfig {
  /** Query rows (threads) per workgroup. */
  readonly rows: number;
  /** Key/value rows staged in workgroup memory per tile. */
  readonly tile: number;
  /**
   * Gradient kernels: 'gemm' (flashAttentionGemmGrad.ts) or 'tiled' (flashAttentionTiledGrad.ts), each where its
   * workgroup memory fits, else the row kernels; or 'rows' (unset: DEFAULT_FLASH_GRAD).
   */
  readonly grad?: 'gemm' | 'tiled' | 'rows';
  /** The tiled gradients' threads and partner rows per tile (default DEFAULT_TILED_GRAD). */
  readonly tiled?: TiledGradConfig;
  /** The matmul-style gradients' shape (default: the first of GEMM_GRAD_CONFIGS that fits). */
  readonly gemm?: GemmGradConfig;
  /**
   * The gradients (dq, and dk with dv) on subgroup matrices (flashAttentionSubgroupMatrixGrad.ts) where the mixed
   * policy's tensor cores are set and the dimensions fit; elsewhere (and for dk or dv alone) the kernels `grad`
   * picks run, as a sweep's forced shape falls back. Opt-in: slower than the shipped kernels in the GPT 6×384
   * mixed step (H100, 2026-12-07).
   */
  readonly tensorCores?: boolean;
}

/**
 * The shipped flash configuration for these caps: 64 rows, 16-row tiles. H200 (Dawn/Vulkan, 2026-12-03, causal
 * forward + dq + dk + dv at B64 H6 T256 D64, GPU time, median of 10): rows x tile 32x16 3.71 ms, 64x16 2.55,
 * 128x16 2.51; 64x32 5.63, 128x32 6.04; 64x64 16.4 — smaller tiles keep more workgroups resident per SM.
 */
export const defaultFlashConfig = (caps: DeviceCaps): FlashConfig => ({ rows: linearWorkgroupSize(caps, 64), tile: 16 });

function resolve(caps: DeviceCaps, d: number, dv: number, cfg?: FlashConfig): { wg: number; bc: number } {
  const c = cfg ?? defaultFlashConfig(caps);
  return { wg: Math.min(c.rows, linearWorkgroupSize(caps, c.rows)), bc: tileRows(d, dv, caps, c.tile) };
}

const MASKED = '-3.0e38';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** `var <name><i> = vec4<f32>(...)` for i < n/4 from `src[off + 4i ..]` (or zeros when `!valid`). */
const loadRow = (name: string, src: string, off: string, n: number, valid: string) =>
  range(n / 4)
    .map((i) => `var ${name}${i} = vec4<f32>(); if (${valid}) { ${name}${i} = ${src}[(${off}) / 4u + ${u32Lit(i)}]; }`)
    .join('\n  ');

/** Σ dot(<reg>i, <sh>[base + i]) over n/4 vec4 chunks. */
const dotRow = (reg: string, sh: string, base: string, n: number) => range(n / 4).map((i) => `dot(${reg}${i}, ${sh}[${base} + ${u32Lit(i)}])`).join(' + ');

/** The row index of tensor `name` where it is a head window (`dm.views`), else the shared row variable `plain`. */
const viewRow = (dm: AttentionDims, name: ViewedTensor, t: string, rows: number, plain: string) => (dm.views[name] ? rowIndex(dm, t, rows, name) : plain);

/** Binding names of a kernel that may be head windows: q, k, v (dout is never one). */
const viewOf = (src: string): ViewedTensor | undefined => (src === 'q' || src === 'k' || src === 'v' ? src : undefined);

/** Stages rows [r0, r0 + BC) of head h of `src` (n floats each, `rows` per head) into `sh` as vec4, zeros past the end. */
const stageRows = (dm: AttentionDims, sh: string, src: string, r0: string, n: number, rows: number, bc: number, wg: number) =>
  `for (var e = lid; e < ${u32Lit((bc * n) / 4)}; e = e + ${u32Lit(wg)}) {
      let rr = e / ${u32Lit(n / 4)};
      var val = vec4<f32>();
      if (${r0} + rr < ${u32Lit(rows)}) { val = ${src}[${rowIndex(dm, `${r0} + rr`, rows, viewOf(src))} * ${u32Lit(n / 4)} + e % ${u32Lit(n / 4)}]; }
      ${sh}[e] = val;
    }`;

/** What a forward kernel writes: attention's output, the log-sum-exp per query row, or both. */
interface ForwardWrites {
  readonly out: boolean;
  readonly lse: boolean;
}

/**
 * Forward kernel: a thread per query row, online softmax over key tiles. Binds q, k, then v and the output
 * when it writes the output, then the log-sum-exp when it writes that (attentionLse binds q, k and it only).
 */
function forwardCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, writes: ForwardWrites, cfg?: FlashConfig): { code: string; wg: number; smem: number } {
  const { tq, tk, d } = dm;
  const lseOnly = !writes.out;
  const dv = lseOnly ? 0 : dm.dv;
  const { wg, bc } = resolve(caps, d, dv, cfg);
  const D4 = d / 4;
  const V4 = dv / 4;
  const decl = [
    '@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;',
    '@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;',
    ...(lseOnly ? [] : ['@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;', '@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;']),
    ...(writes.lse ? [`@group(0) @binding(${lseOnly ? 2 : 4}) var<storage, read_write> lse: array<f32>;`] : []),
  ].join('\n');
  // per chunk of 4 keys: scores, chunk max, rescale when it grows, then accumulate
  const chunk = `let s0 = select(${MASKED}, (${dotRow('q', 'ks', 'c * D4', d)}), j < kend);
        let s1 = select(${MASKED}, (${dotRow('q', 'ks', '(c + 1u) * D4', d)}), j + 1u < kend);
        let s2 = select(${MASKED}, (${dotRow('q', 'ks', '(c + 2u) * D4', d)}), j + 2u < kend);
        let s3 = select(${MASKED}, (${dotRow('q', 'ks', '(c + 3u) * D4', d)}), j + 3u < kend);
        let cm = max(max(s0, s1), max(s2, s3));
        if (cm > m) {
          let alpha = exp(m - cm);
          l = l * alpha;
          ${range(V4).map((i) => `o${i} = o${i} * alpha;`).join(' ')}
          m = cm;
        }
        let p0 = exp(s0 - m); let p1 = exp(s1 - m); let p2 = exp(s2 - m); let p3 = exp(s3 - m);
        l = l + (p0 + p1) + (p2 + p3);
        ${range(V4)
          .map((i) => `o${i} = fma(vec4<f32>(p0), vs[c * V4 + ${u32Lit(i)}], fma(vec4<f32>(p1), vs[(c + 1u) * V4 + ${u32Lit(i)}], fma(vec4<f32>(p2), vs[(c + 2u) * V4 + ${u32Lit(i)}], fma(vec4<f32>(p3), vs[(c + 3u) * V4 + ${u32Lit(i)}], o${i}))));`)
          .join('\n        ')}`;
  const finish = `if (valid) {
    ${writes.lse ? 'lse[row] = m + log(l);' : ''}
    ${lseOnly ? '' : `let inv = 1.0 / l;\n    ${range(V4).map((i) => `y[${viewRow(dm, 'y', 'i', tq, 'row')} * ${u32Lit(V4)} + ${u32Lit(i)}] = o${i} * inv;`).join('\n    ')}`}
  }`;
  const smem = bc * (d + dv) * 4;
  const code = `${header(spec, `flash attention ${lseOnly ? 'log-sum-exp' : writes.lse ? 'forward and log-sum-exp' : 'forward'}: a workgroup of ${wg} query rows per head, a thread per row, key tiles of ${bc} in workgroup memory, online softmax${causal ? ', causal tiles skipped' : ''}`)}${decl}

const D4 = ${u32Lit(D4)};
${lseOnly ? '' : `const V4 = ${u32Lit(V4)};\n`}var<workgroup> ks: array<vec4<f32>, ${(bc * d) / 4}>;
${lseOnly ? '' : `var<workgroup> vs: array<vec4<f32>, ${(bc * dv) / 4}>;\n`}
@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let i = wid.x * ${u32Lit(wg)} + lid;
  let valid = i < ${u32Lit(tq)};
  let row = ${rowIndex(dm, 'i', tq)};
  ${loadRow('qr', 'q', `${viewRow(dm, 'q', 'i', tq, 'row')} * ${u32Lit(d)}`, d, 'valid')}
  ${range(D4).map((x) => `let q${x} = qr${x} * ${f32Lit(scale)};`).join(' ')}
  ${range(V4).map((x) => `var o${x} = vec4<f32>();`).join(' ')}
  var m = ${MASKED};
  var l = 0.0;
  let kend = select(0u, ${causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)}, valid);
  let tend = ${causal ? `min((wid.x + 1u) * ${u32Lit(wg)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bc)}) {
    ${stageRows(dm, 'ks', 'k', 'j0', d, tk, bc, wg)}
    ${lseOnly ? '' : stageRows(dm, 'vs', 'v', 'j0', dv, tk, bc, wg)}
    workgroupBarrier();
    for (var c = 0u; c < ${u32Lit(bc)}; c = c + 4u) {
      let j = j0 + c;
      if (j >= kend) { break; }
      {
        ${chunk}
      }
    }
    workgroupBarrier();
  }
  ${finish}
}
`;
  checkWorkgroupMemory(spec, smem, caps);
  return { code, wg, smem };
}

function gridFor(spec: KernelSpec, caps: DeviceCaps, rows: number, wg: number, heads: number): [number, number, number] {
  const g: [number, number, number] = [Math.ceil(rows / wg), heads, 1];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (g[0] > max || g[1] > max) kernelError(spec, `needs a ${g[0]}x${g[1]} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  return g;
}

/** Flash `attention` (see the file header). */
export function flashAttentionPlan(spec: KernelSpec<'attention'>, caps: DeviceCaps, cfg?: FlashConfig): KernelPlan {
  const { causal, scale } = spec.node.attrs;
  const dm = attentionDims(spec);
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale, { out: true, lse: false }, cfg);
  const bindings: Binding[] = [0, 1, 2].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}

/** Flash `attentionLse`: the forward's loop over q and k only, writing L per query row. */
export function flashAttentionLsePlan(spec: KernelSpec<'attentionLse'>, caps: DeviceCaps, cfg?: FlashConfig): KernelPlan {
  const { causal, scale } = spec.node.attrs;
  const dm = attentionDims(spec);
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale, { out: false, lse: true }, cfg);
  const bindings: Binding[] = [0, 1].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}

/** Flash `attentionWithLse`: the forward writing its output (result 0) and L per query row (result 1), each if wanted. */
export function flashAttentionWithLsePlan(spec: KernelSpec<'attentionWithLse'>, caps: DeviceCaps, writes: ForwardWrites, cfg?: FlashConfig): KernelPlan {
  const { causal, scale } = spec.node.attrs;
  const dm = attentionDims(spec);
  if (!writes.out && !writes.lse) return { dispatches: [], scratch: [] };
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale, writes, cfg);
  const bindings: Binding[] = (writes.out ? [0, 1, 2] : [0, 1]).map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  if (writes.out) bindings.push({ source: { kind: 'output', index: 0 }, access: 'read_write', dtype: 'f32' });
  if (writes.lse) bindings.push({ source: { kind: 'output', index: 1 }, access: 'read_write', dtype: 'f32' });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}

/** What a gradient pass writes: dq, dk, dv, or dk and dv together (attentionGradKV). */
type GradWrt = 'q' | 'k' | 'v' | 'kv';

/**
 * Gradient pass for dq (a thread per query row over key tiles) or dk / dv / both (a thread per key row over
 * query tiles: the scores and P are computed once for both gradients when fused).
 */
function gradCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, wrt: GradWrt, cfg?: FlashConfig, deltaFromOut = false, oneOutput = false): { code: string; wg: number; rows: number } {
  const { tq, tk, d, dv } = dm;
  const { wg, bc: tile } = resolve(caps, d, dv, cfg);
  const D4 = d / 4;
  const V4 = dv / 4;
  const sc = f32Lit(scale);
  const byQuery = wrt === 'q';
  const outN = wrt === 'v' ? dv : d;
  const O4 = outN / 4;
  const decl = [
    ...gradReadBindings(deltaFromOut),
    '@group(0) @binding(6) var<storage, read_write> y: array<vec4<f32>>;',
    // dk and dv into one result (attentionGradQKV): both through binding 6, at their head windows
    ...(wrt === 'kv' && !oneOutput ? ['@group(0) @binding(7) var<storage, read_write> y2: array<vec4<f32>>;'] : []),
  ].join('\n');
  const acc = range(O4).map((i) => `var a${i} = vec4<f32>();`).join(' ');
  let body: string;
  let smemDecl: string;
  let smem: number;
  if (byQuery) {
    // thread = query row i: q_i, dO_i, L_i, Δ_i in registers; key tiles (K, V) staged
    const bc = tile;
    smem = bc * (d + dv) * 4;
    smemDecl = `var<workgroup> ks: array<vec4<f32>, ${(bc * d) / 4}>;\nvar<workgroup> vs: array<vec4<f32>, ${(bc * dv) / 4}>;`;
    body = `let i = wid.x * ${u32Lit(wg)} + lid;
  let valid = i < ${u32Lit(tq)};
  let row = ${rowIndex(dm, 'i', tq)};
  ${loadRow('q', 'q', `${viewRow(dm, 'q', 'i', tq, 'row')} * ${u32Lit(d)}`, d, 'valid')}
  ${loadRow('g', 'dout', `row * ${u32Lit(dv)}`, dv, 'valid')}
  var L = 0.0; var delta = 0.0;
  if (valid) { L = lse[row]; delta = ${deltaFromOut ? range(V4).map((x) => `dot(g${x}, rowdot[row * ${u32Lit(V4)} + ${u32Lit(x)}])`).join(' + ') : 'rowdot[row]'}; }
  ${acc}
  let kend = select(0u, ${causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)}, valid);
  let tend = ${causal ? `min((wid.x + 1u) * ${u32Lit(wg)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bc)}) {
    ${stageRows(dm, 'ks', 'k', 'j0', d, tk, bc, wg)}
    ${stageRows(dm, 'vs', 'v', 'j0', dv, tk, bc, wg)}
    workgroupBarrier();
    for (var c = 0u; c < ${u32Lit(bc)}; c = c + 1u) {
      if (j0 + c >= kend) { break; }
      let p = exp((${dotRow('q', 'ks', `c * ${u32Lit(D4)}`, d)}) * ${sc} - L);
      let dp = ${dotRow('g', 'vs', `c * ${u32Lit(V4)}`, dv)};
      let ds = vec4<f32>(p * (dp - delta));
      ${range(D4).map((x) => `a${x} = fma(ds, ks[c * ${u32Lit(D4)} + ${u32Lit(x)}], a${x});`).join(' ')}
    }
    workgroupBarrier();
  }
  if (valid) { ${range(D4).map((x) => `y[${viewRow(dm, 'y', 'i', tq, 'row')} * ${u32Lit(D4)} + ${u32Lit(x)}] = a${x} * ${sc};`).join(' ')} }`;
  } else {
    // thread = key row j: k_j (and v_j for dk) in registers; query tiles (Q, dO, L, Δ) staged
    const br = tile;
    const dk = wrt !== 'v';
    const dvToo = wrt === 'kv';
    // k_j, v_j, dk_j and dv_j all in registers: keeping v_j in workgroup memory instead (padded rows, 17 KiB more
    // per workgroup) made the fused pass 2.4x slower on the H200 (1.85 vs 0.78 ms at B64 H6 T256 D64, 2026-12-04)
    smem = br * (d + dv + 2) * 4;
    smemDecl = `var<workgroup> qs: array<vec4<f32>, ${(br * d) / 4}>;\nvar<workgroup> gs: array<vec4<f32>, ${(br * dv) / 4}>;\nvar<workgroup> st: array<f32, ${2 * br}>;`;
    const kRow = rowIndex(dm, 'j', tk);
    const vRow = `${viewRow(dm, 'v', 'j', tk, kRow)} * ${u32Lit(dv)}`;
    const dpExpr = dotRow('vv', 'gs', `c * ${u32Lit(V4)}`, dv);
    const dkStep = `let dp = ${dpExpr};
        let ds = vec4<f32>(p * (dp - st[2u * c + 1u]));
        ${range(D4).map((x) => `a${x} = fma(ds, qs[c * ${u32Lit(D4)} + ${u32Lit(x)}], a${x});`).join(' ')}`;
    const dvStep = `let pv = vec4<f32>(p);
        ${range(V4).map((x) => `${dvToo ? 'b' : 'a'}${x} = fma(pv, gs[c * ${u32Lit(V4)} + ${u32Lit(x)}], ${dvToo ? 'b' : 'a'}${x});`).join(' ')}`;
    const rowOut = (arr: 'y' | 'y2', n4: number, reg: string, scaled: boolean) =>
      range(n4).map((x) => `${oneOutput ? 'y' : arr}[${viewRow(dm, arr, 'j', tk, kRow)} * ${u32Lit(n4)} + ${u32Lit(x)}] = ${reg}${x}${scaled ? ` * ${sc}` : ''};`).join(' ');
    body = `let j = wid.x * ${u32Lit(wg)} + lid;
  let valid = j < ${u32Lit(tk)};
  ${loadRow('kk', 'k', `${viewRow(dm, 'k', 'j', tk, kRow)} * ${u32Lit(d)}`, d, 'valid')}
  ${dk ? loadRow('vv', 'v', vRow, dv, 'valid') : ''}
  ${acc}
  ${dvToo ? range(V4).map((i) => `var b${i} = vec4<f32>();`).join(' ') : ''}
  // queries i ≥ j attend key j when causal: the block's first tile starts at its first key, rounded down
  let t0 = ${causal ? `((wid.x * ${u32Lit(wg)}) / ${u32Lit(br)}) * ${u32Lit(br)}` : '0u'};
  for (var i0 = t0; i0 < ${u32Lit(tq)}; i0 = i0 + ${u32Lit(br)}) {
    ${stageRows(dm, 'qs', 'q', 'i0', d, tq, br, wg)}
    ${stageRows(dm, 'gs', 'dout', 'i0', dv, tq, br, wg)}
    for (var e = lid; e < ${u32Lit(2 * br)}; e = e + ${u32Lit(wg)}) {
      var val = 0.0;
      let r = i0 + e / 2u;
      if (r < ${u32Lit(tq)}) { let ri = ${rowIndex(dm, 'r', tq)}; ${deltaFromOut ? `if (e % 2u == 0u) { val = lse[ri]; } else { ${rowDelta('ri', V4)} }` : 'val = select(rowdot[ri], lse[ri], e % 2u == 0u);'} }
      st[e] = val;
    }
    workgroupBarrier();
    if (valid) {
      for (var c = 0u; c < ${u32Lit(br)}; c = c + 1u) {
        let i = i0 + c;
        if (i >= ${u32Lit(tq)}) { break; }
        ${causal ? 'if (i < j) { continue; }' : ''}
        let p = exp((${dotRow('kk', 'qs', `c * ${u32Lit(D4)}`, d)}) * ${sc} - st[2u * c]);
        ${dk ? dkStep : ''}
        ${wrt !== 'k' ? dvStep : ''}
      }
    }
    workgroupBarrier();
  }
  if (valid) { ${rowOut('y', O4, 'a', dk)} ${dvToo ? rowOut('y2', V4, 'b', false) : ''} }`;
  }
  checkWorkgroupMemory(spec, smem, caps);
  const code = `${header(spec, `flash attentionGrad d${wrt}: a workgroup of ${wg} ${byQuery ? 'query' : 'key'} rows per head, a thread per row, ${byQuery ? 'key' : 'query'} tiles in workgroup memory${causal ? ', causal tiles skipped' : ''}`)}${decl}

${smemDecl}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  ${body}
}
`;
  return { code, wg, rows: wg };
}

/**
 * The gradient kernels used when a config does not say: the matmul-style kernels (flashAttentionGemmGrad.ts) in
 * their first shipped shape that fits; where none fits, dk + dv on the tiled kernel if that fits, everything else
 * on the row kernels. Before them (H200, Dawn/Vulkan, 2026-12-04, B64 H6 T256 D64 causal seq-major, GPU ms, median
 * of 20, a fresh process each): rows dq 0.445, dk+dv 0.775; tiled 128x32 dq 0.742, dk+dv 0.724; 128x16 0.876 /
 * 0.882; 256x32 0.752 / 0.986; 64x32 1.378 / 1.330. The matmul-style kernels are not timed yet (no GPU here):
 * `attentionVariants --variant 'grad gemm …'` compares them.
 */
export const DEFAULT_FLASH_GRAD = { q: 'gemm', kv: 'gemm' } as const;

/** The gradients a pass of `wrt` writes. */
const writesOf = (wrt: GradWrt): GemmGradWrites => (wrt === 'q' ? { q: true } : { k: wrt !== 'v', v: wrt !== 'k' });

/** The one place a gradient kernel is chosen: on subgroup matrices (opt-in), matmul-style, tiled (with their shapes) or a thread per row. */
type GradKernel = { readonly kind: 'tensorCores' } | { readonly kind: 'gemm'; readonly cfg: GemmGradConfig } | { readonly kind: 'tiled'; readonly cfg: TiledGradConfig } | { readonly kind: 'rows' };

function gradKernel(dm: AttentionDims, wrt: GradWrt, caps: DeviceCaps, cfg?: FlashConfig): GradKernel {
  const byQuery = wrt === 'q';
  // the tensor-core passes write dq, or dk and dv together
  if (cfg?.tensorCores && (wrt === 'q' || wrt === 'kv') && tensorCoreGradFits(dm, caps)) return { kind: 'tensorCores' };
  const gemm = (c?: GemmGradConfig): GradKernel | undefined => {
    const g = chooseGemmGrad(dm, writesOf(wrt), caps, c);
    return g ? { kind: 'gemm', cfg: g } : undefined;
  };
  const tiled = (c?: TiledGradConfig): GradKernel | undefined => {
    const t = chooseTiledGrad(dm, byQuery, caps, c);
    return t ? { kind: 'tiled', cfg: t } : undefined;
  };
  const rows: GradKernel = { kind: 'rows' };
  const mode = cfg?.grad ?? (byQuery ? DEFAULT_FLASH_GRAD.q : DEFAULT_FLASH_GRAD.kv);
  if (mode === 'rows') return rows;
  if (cfg?.grad === 'tiled') return tiled(cfg.tiled) ?? rows;
  // a forced shape that does not fit this pass (dk + dv need more workgroup memory than dq) takes the shipped ones
  if (cfg?.grad === 'gemm') return gemm(cfg.gemm) ?? gemm() ?? rows;
  // the default: matmul-style where a shipped shape fits, then the kernels shipped before it
  return gemm(cfg?.gemm) ?? (wrt === 'kv' ? tiled(cfg?.tiled ?? DEFAULT_TILED_GRAD) : undefined) ?? rows;
}

/** WGSL of one gradient pass on the kernel `gradKernel` chooses. */
function gradPass(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, wrt: GradWrt, cfg: FlashConfig | undefined, deltaFromOut: boolean, oneOutput = false, writes: GemmGradWrites = writesOf(wrt)): { code: string; wg: number; rows: number } {
  const { causal, scale } = spec.node.attrs as { causal: boolean; scale: number };
  const k = gradKernel(dm, wrt, caps, cfg);
  if (k.kind === 'tensorCores') return tensorCoreGradCode(spec, caps, dm, causal, scale, wrt === 'q', deltaFromOut, oneOutput);
  if (k.kind === 'gemm') return gemmGradCode(spec, caps, dm, causal, scale, writes, k.cfg, deltaFromOut, oneOutput);
  if (k.kind === 'tiled') return tiledGradCode(spec, caps, dm, causal, scale, writes, k.cfg, deltaFromOut, oneOutput);
  return gradCode(spec, caps, dm, causal, scale, wrt, cfg, deltaFromOut, oneOutput);
}

/** Flash `attentionGrad` (see the file header): one dispatch reading the forward's L and Δ. */
export function flashAttentionGradPlan(spec: KernelSpec<'attentionGrad'>, caps: DeviceCaps, cfg?: FlashConfig): KernelPlan {
  const { wrt, deltaFromOut = false } = spec.node.attrs;
  const dm = attentionDims(spec);
  const gr = gradPass(spec, caps, dm, wrt, cfg, deltaFromOut);
  const bindings: Binding[] = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
  const rows = wrt === 'q' ? dm.tq : dm.tk;
  return { dispatches: [{ label: labelOf(spec.node, `${spec.node.shape.join('x')}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1], grid: gridFor(spec, caps, rows, gr.rows, dm.heads) }], scratch: [] };
}

/**
 * Flash `attentionGradQKV`: the dq pass, then the dk + dv pass, each writing its gradients into the one result
 * [..., T, 3H, D] at their head windows (dq heads [0, H), dk [H, 2H), dv [2H, 3H)): no concatenation afterwards.
 */
export function flashAttentionGradQKVPlan(spec: KernelSpec<'attentionGradQKV'>, caps: DeviceCaps, cfg?: FlashConfig): KernelPlan {
  const { deltaFromOut = false } = spec.node.attrs;
  const base = attentionDims(spec);
  const view = (part: number) => ({ width: 3 * base.seqHeads, offset: part * base.seqHeads });
  const dispatch = (wrt: 'q' | 'kv', dm: AttentionDims) => {
    const gr = gradPass(spec, caps, dm, wrt, cfg, deltaFromOut, true);
    const bindings: Binding[] = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
    bindings.push({ source: { kind: 'output' }, access: 'read_write', dtype: 'f32' });
    const rows = wrt === 'q' ? dm.tq : dm.tk;
    return { label: labelOf(spec.node, `${spec.node.shape.join('x')}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1] as const, grid: gridFor(spec, caps, rows, gr.rows, dm.heads) };
  };
  return { dispatches: [dispatch('q', withResultViews(base, view(0))), dispatch('kv', withResultViews(base, view(1), view(2)))], scratch: [] };
}

/**
 * Flash `attentionGradKV`: one dispatch writing dk (result 0) and dv (result 1) from a shared pass over the query
 * tiles, or the single-gradient pass when only one is wanted.
 */
export function flashAttentionGradKVPlan(spec: KernelSpec<'attentionGradKV'>, caps: DeviceCaps, wanted: readonly ('k' | 'v')[], cfg?: FlashConfig): KernelPlan {
  const { deltaFromOut = false } = spec.node.attrs;
  const dm = attentionDims(spec);
  const wrt: GradWrt = wanted.length === 2 ? 'kv' : wanted[0];
  const gr = gradPass(spec, caps, dm, wrt, cfg, deltaFromOut);
  const bindings: Binding[] = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  for (const w of wanted) bindings.push({ source: { kind: 'output', index: w === 'k' ? 0 : 1 }, access: 'read_write', dtype: 'f32' });
  return { dispatches: [{ label: labelOf(spec.node, `${spec.node.shape.join('x')}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1], grid: gridFor(spec, caps, dm.tk, gr.rows, dm.heads) }], scratch: [] };
}

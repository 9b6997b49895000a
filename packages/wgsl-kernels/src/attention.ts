// `attention` (softmax(scale·q·kᵀ, causal mask)·v), `attentionLse` (each query row's log-sum-exp of scores) and
// `attentionGrad` (dq, dk or dv from L and Δ). When D and Dv are multiples of 4 (≤ 128) the flash kernels of
// flashAttention.ts run; otherwise this file's, simple and correct rather than fast: a workgroup per anchor row (a
// query row for attention, attentionLse and dq, a key row for dk and dv) walks its partner rows in blocks of WG,
// each thread computing one partner's weight (dot products over D from global memory against the anchor rows
// staged in workgroup memory), then every thread accumulates the weighted partner rows into the output columns it
// owns. The forward pass uses an online softmax (running max and sum); the gradients read L = logsumexp and
// Δ = Σ_j P·dP per query row (operands), then P = exp(s − L), dS = P·(dP − Δ): dq = scale·dS·K,
// dk = scale·dSᵀ·Q, dv = Pᵀ·dO.
// Block max and sum are computed by every thread from the block's scores in workgroup memory, not by wg_max then
// wg_sum: that pair inside the key loop gave wrong weights to lanes ≥ 8 on llvmpipe (Dawn GL, 2026-12, Tk = 9).
// Causal masks are top-left aligned (key j > query i is masked, as the interpreter). The gradients bind 7
// storage buffers (more than the WebGPU default of 4: checkPlan names the limit).

import { numel } from '@neura/ir';
import type { Binding, DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { attentionDims, flashAttentionGradKVPlan, flashAttentionGradPlan, flashAttentionGradQKVPlan, flashAttentionLsePlan, flashAttentionWithLsePlan, flashAttentionPlan, flashEligible } from './flashAttention.js';
import { declareBindings, f32Lit, header, kernelError, labelOf, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** Threads per workgroup: 64 (or the device's most, a power of two). */
const wgOf = (caps: DeviceCaps) => linearWorkgroupSize(caps, 64);

const MASKED = '-3.0e38';

/** The dispatch grid for `rows` workgroups: x = row within a head, y = head. */
function gridFor(spec: KernelSpec, caps: DeviceCaps, rows: number, heads: number): [number, number, number] {
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (rows > max || heads > max) kernelError(spec, `needs a ${rows}x${heads} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  return [rows, heads, 1];
}

/** WGSL copying `len` floats of `src` at `off` into workgroup array `dst` (all threads). */
const stage = (dst: string, src: string, off: string, len: number, wg: number) =>
  `for (var c = lid; c < ${u32Lit(len)}; c = c + ${u32Lit(wg)}) { ${dst}[c] = ${src}[${off} + c]; }`;

/** Dot of the staged row `sh` with row `row` of `src` (length `len`, at head offset `off`). */
const dotWith = (sh: string, src: string, off: string, row: string, len: number) =>
  `var dacc = 0.0; for (var dc = 0u; dc < ${u32Lit(len)}; dc = dc + 1u) { dacc = fma(${sh}[dc], ${src}[${off} + ${row} * ${u32Lit(len)} + dc], dacc); }`;

/** The seq-major layout ([..., T, H, D]) and deltaFromOut run only on the flash kernels: a clear error where they do not apply. */
function checkSeqMajor(spec: KernelSpec, d: number, dv: number, caps: DeviceCaps): void {
  const attrs = spec.node.attrs as { seqMajor?: boolean; deltaFromOut?: boolean };
  const form = attrs.seqMajor ? 'seq-major ([..., T, H, D])' : attrs.deltaFromOut ? 'with deltaFromOut (Δ from the output)' : undefined;
  if (form && !flashEligible(d, dv, caps))
    kernelError(spec, `runs ${form} only on the flash kernels: head sizes D = ${d}, Dv = ${dv} must be multiples of 4 up to 128 and the caps must allow 16 threads and a staged tile`);
}

/**
 * The simple forward kernels' start, a workgroup per query row i of head h (`row` = h·Tq + i): q_i staged in `qs`,
 * the keys it attends (`kend`), the running max `m` and sum `l`.
 */
const queryRowStart = (spec: KernelSpec<'attention' | 'attentionLse' | 'attentionWithLse'>, wg: number): string => {
  const { tq, tk, d } = attentionDims(spec);
  return `var<workgroup> qs: array<f32, ${d}>;
var<workgroup> w: array<f32, ${wg}>;

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = wid.x;
  let h = wid.y;
  let row = h * ${u32Lit(tq)} + i;
  ${stage('qs', 'q', `row * ${u32Lit(d)}`, d, wg)}
  workgroupBarrier();
  let kend = ${spec.node.attrs.causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)};
  var m = ${MASKED};
  var l = 0.0;`;
};

/**
 * The simple kernels' key loop for query row i of head h (q_i staged in `qs`, `kend` keys, running max `m` and sum
 * `l`): per block of WG keys each thread scores one into `w`, then every thread reads the block's scores (n ≤ WG)
 * for the block max and sum without a tree reduction; `accumulate` then runs with the block max `bm`, the rescale
 * `alpha`, the block start `j0` and its length `n`.
 */
const onlineSoftmaxBlocks = (spec: KernelSpec<'attention' | 'attentionLse' | 'attentionWithLse'>, wg: number, accumulate: string): string => {
  const { tk, d } = attentionDims(spec);
  return `for (var j0 = 0u; j0 < kend; j0 = j0 + ${u32Lit(wg)}) {
    let j = j0 + lid;
    var s = ${MASKED};
    if (j < kend) { ${dotWith('qs', 'k', `h * ${u32Lit(tk * d)}`, 'j', d)} s = dacc * ${f32Lit(spec.node.attrs.scale)}; }
    w[lid] = s;
    workgroupBarrier();
    let n = min(${u32Lit(wg)}, kend - j0);
    var bm = m;
    for (var jj = 0u; jj < n; jj = jj + 1u) { bm = max(bm, w[jj]); }
    let alpha = exp(m - bm);
    var bs = 0.0;
    for (var jj = 0u; jj < n; jj = jj + 1u) { bs = bs + exp(w[jj] - bm); }
    l = l * alpha + bs;
    m = bm;
    ${accumulate}
    workgroupBarrier();
  }`;
};

/** `attention`: a workgroup per (head, query row), online softmax over key blocks. */
export function attentionKernel(spec: KernelSpec<'attention'>, caps: DeviceCaps): KernelPlan {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  if (heads * tq * dv === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, 'attends over zero keys');
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionPlan(spec, caps);
  return { dispatches: [simpleForwardDispatch(spec, caps, 0)], scratch: [] };
}

/**
 * `attentionWithLse` (attention's output, then the log-sum-exp as result 1), each result only where the runtime
 * wants it: one flash dispatch writing both; otherwise the simple forward and log-sum-exp dispatches.
 */
export function attentionWithLseKernel(spec: KernelSpec<'attentionWithLse'>, caps: DeviceCaps): KernelPlan {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  const targets = spec.results ?? ['buffer', 'buffer'];
  if (targets.length !== 2 || targets.some((t) => typeof t === 'object')) kernelError(spec, `writes its two results into buffers, got targets ${JSON.stringify(targets)}`);
  const writes = { out: targets[0] === 'buffer' && dv > 0, lse: targets[1] === 'buffer' };
  if (heads * tq === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, 'attends over zero keys');
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionWithLsePlan(spec, caps, writes);
  const dispatches: Dispatch[] = [];
  if (writes.out) dispatches.push(simpleForwardDispatch(spec, caps, 0));
  if (writes.lse) dispatches.push(simpleLseDispatch(spec, caps, 1));
  return { dispatches, scratch: [] };
}

/** The simple forward kernel, writing attention's output to the node's result `out`. */
function simpleForwardDispatch(spec: KernelSpec<'attention' | 'attentionWithLse'>, caps: DeviceCaps, out: number): Dispatch {
  const { causal } = spec.node.attrs;
  const { heads, tq, tk, dv } = attentionDims(spec);
  const wg = wgOf(caps);
  const nc = Math.ceil(dv / wg);
  const bindings: Binding[] = [0, 1, 2].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output', index: out }, access: 'read_write', dtype: 'f32' });
  const code = `${header(spec, `attention: a workgroup of ${wg} per (head, query row), online softmax over blocks of ${wg} keys${causal ? ', causal' : ''}`)}${declareBindings(bindings, ['q', 'k', 'v', 'y'])}

${queryRowStart(spec, wg)}
  var oacc: array<f32, ${nc}>;
  ${onlineSoftmaxBlocks(spec, wg, `for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
      let c = lid + t * ${u32Lit(wg)};
      if (c < ${u32Lit(dv)}) {
        var a = oacc[t] * alpha;
        for (var jj = 0u; jj < n; jj = jj + 1u) { a = fma(exp(w[jj] - bm), v[(h * ${u32Lit(tk)} + j0 + jj) * ${u32Lit(dv)} + c], a); }
        oacc[t] = a;
      }
    }`)}
  for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
    let c = lid + t * ${u32Lit(wg)};
    if (c < ${u32Lit(dv)}) { y[row * ${u32Lit(dv)} + c] = oacc[t] / l; }
  }
}
`;
  return { label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, tq, heads) };
}

/** `attentionLse`: a workgroup per (head, query row), the forward's online max and sum over key blocks. */
export function attentionLseKernel(spec: KernelSpec<'attentionLse'>, caps: DeviceCaps): KernelPlan {
  const { heads, tq, tk, d } = attentionDims(spec);
  if (heads * tq === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, 'attends over zero keys');
  checkSeqMajor(spec, d, d, caps);
  if (flashEligible(d, d, caps)) return flashAttentionLsePlan(spec, caps);
  return { dispatches: [simpleLseDispatch(spec, caps, 0)], scratch: [] };
}

/** The simple log-sum-exp kernel (reads q and k only), writing to the node's result `out`. */
function simpleLseDispatch(spec: KernelSpec<'attentionLse' | 'attentionWithLse'>, caps: DeviceCaps, out: number): Dispatch {
  const { causal } = spec.node.attrs;
  const { heads, tq } = attentionDims(spec);
  const wg = wgOf(caps);
  const bindings: Binding[] = [0, 1].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output', index: out }, access: 'read_write', dtype: 'f32' });
  const code = `${header(spec, `attentionLse: a workgroup of ${wg} per (head, query row), online max and sum over blocks of ${wg} keys${causal ? ', causal' : ''}`)}${declareBindings(bindings, ['q', 'k', 'lse'])}

${queryRowStart(spec, wg)}
  ${onlineSoftmaxBlocks(spec, wg, '')}
  if (lid == 0u) { lse[row] = m + log(l); }
}
`;
  return { label: labelOf(spec.node, out > 0 ? `${spec.node.shape.join('x')}:lse` : undefined), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, tq, heads) };
}

/** `attentionGrad` (wrt q, k or v): a workgroup per anchor row accumulating weighted partner rows. */
export function attentionGradKernel(spec: KernelSpec<'attentionGrad'>, caps: DeviceCaps): KernelPlan {
  const { causal, scale, wrt } = spec.node.attrs;
  const { tq, tk, d, dv } = attentionDims(spec);
  if (numel(spec.node.shape) === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, 'attends over zero keys or queries');
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionGradPlan(spec, caps);
  return { dispatches: [simpleGradDispatch(spec, caps, causal, scale, wrt, 0)], scratch: [] };
}

/**
 * `attentionGradKV` (dk as result 0, dv as result 1), each result only where the runtime wants it: one flash
 * dispatch for both (or the single-gradient flash kernel for one); otherwise a simple dispatch per gradient.
 */
export function attentionGradKVKernel(spec: KernelSpec<'attentionGradKV'>, caps: DeviceCaps): KernelPlan {
  const { causal, scale } = spec.node.attrs;
  const { tq, tk, d, dv } = attentionDims(spec);
  const targets = spec.results ?? ['buffer', 'buffer'];
  if (targets.length !== 2 || targets.some((t) => typeof t === 'object')) kernelError(spec, `writes its two results into buffers, got targets ${JSON.stringify(targets)}`);
  const wanted = (['k', 'v'] as const).filter((_, r) => targets[r] === 'buffer');
  if (numel(spec.node.shape) === 0 || wanted.length === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, 'attends over zero keys or queries');
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionGradKVPlan(spec, caps, wanted);
  return { dispatches: wanted.map((wrt) => simpleGradDispatch(spec, caps, causal, scale, wrt, wrt === 'k' ? 0 : 1)), scratch: [] };
}

/** `attentionGradQKV` (dq, dk, dv joined along the heads): the flash dq pass, then the dk + dv pass (seq-major only). */
export function attentionGradQKVKernel(spec: KernelSpec<'attentionGradQKV'>, caps: DeviceCaps): KernelPlan {
  const { tq, tk, d, dv } = attentionDims(spec);
  if (numel(spec.node.shape) === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, 'attends over zero keys or queries');
  checkSeqMajor(spec, d, dv, caps);
  return flashAttentionGradQKVPlan(spec, caps);
}

/** The simple kernel of one gradient (wrt q, k or v), written to the node's result `out`. */
function simpleGradDispatch(spec: KernelSpec, caps: DeviceCaps, causal: boolean, scale: number, wrt: 'q' | 'k' | 'v', out: number): Dispatch {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  const wg = wgOf(caps);
  const byQuery = wrt === 'q';
  const outDim = wrt === 'v' ? dv : d;
  const nc = Math.ceil(outDim / wg);
  const sc = f32Lit(scale);
  const bindings: Binding[] = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: 'input', index }, access: 'read', dtype: 'f32' }) as const);
  bindings.push({ source: { kind: 'output', index: out }, access: 'read_write', dtype: 'f32' });
  const qOff = `h * ${u32Lit(tq * d)}`;
  const kOff = `h * ${u32Lit(tk * d)}`;
  const vOff = `h * ${u32Lit(tk * dv)}`;
  const gOff = `h * ${u32Lit(tq * dv)}`;
  // Anchor rows staged: (q_i, dO_i) for dq; (k_j, v_j) for dk and dv. Partner p: a key j (dq) or a query i (dk, dv).
  const stageLines = byQuery
    ? `${stage('sa', 'q', `(h * ${u32Lit(tq)} + a) * ${u32Lit(d)}`, d, wg)}\n  ${stage('sb', 'dout', `(h * ${u32Lit(tq)} + a) * ${u32Lit(dv)}`, dv, wg)}`
    : `${stage('sa', 'k', `(h * ${u32Lit(tk)} + a) * ${u32Lit(d)}`, d, wg)}\n  ${stage('sb', 'v', `(h * ${u32Lit(tk)} + a) * ${u32Lit(dv)}`, dv, wg)}`;
  // Partner range: dq walks keys [0, min(i+1, Tk)) when causal; dk/dv walk queries [j, Tq) when causal.
  const range = byQuery ? `let p0 = 0u; let pend = ${causal ? `min(a + 1u, ${u32Lit(tk)})` : u32Lit(tk)};` : `let p0 = ${causal ? 'a' : '0u'}; let pend = ${u32Lit(tq)};`;
  const qi = byQuery ? 'a' : 'p';
  const weight = `var s = 0.0;
      { ${dotWith('sa', byQuery ? 'k' : 'q', byQuery ? kOff : qOff, 'p', d)} s = dacc * ${sc}; }
      let L = lse[h * ${u32Lit(tq)} + ${qi}];
      let P = exp(s - L);
      ${
        wrt === 'v'
          ? 'wt = P;'
          : `var dp = 0.0;
      { ${dotWith('sb', byQuery ? 'v' : 'dout', byQuery ? vOff : gOff, 'p', dv)} dp = dacc; }
      wt = P * (dp - rowdot[h * ${u32Lit(tq)} + ${qi}]) * ${sc};`
      }`;
  // The matrix whose partner rows are accumulated: K (dq), Q (dk), dO (dv).
  const [R, rOff] = wrt === 'q' ? ['k', kOff] : wrt === 'k' ? ['q', qOff] : ['dout', gOff];
  const anchors = byQuery ? tq : tk;
  const code = `${header(spec, `attentionGrad pass 2 (d${wrt}): a workgroup of ${wg} per (head, ${byQuery ? 'query' : 'key'} row) accumulates weighted ${R} rows`)}${declareBindings(bindings, ['q', 'k', 'v', 'dout', 'lse', 'rowdot', 'y'])}

var<workgroup> sa: array<f32, ${d}>;
var<workgroup> sb: array<f32, ${dv}>;
var<workgroup> w: array<f32, ${wg}>;

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let a = wid.x;
  let h = wid.y;
  ${stageLines}
  workgroupBarrier();
  ${range}
  var acc2: array<f32, ${nc}>;
  for (var b0 = p0; b0 < pend; b0 = b0 + ${u32Lit(wg)}) {
    let p = b0 + lid;
    var wt = 0.0;
    if (p < pend) {
      ${weight}
    }
    w[lid] = wt;
    workgroupBarrier();
    let n = min(${u32Lit(wg)}, pend - b0);
    for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
      let c = lid + t * ${u32Lit(wg)};
      if (c < ${u32Lit(outDim)}) {
        var x = acc2[t];
        for (var pp = 0u; pp < n; pp = pp + 1u) { x = fma(w[pp], ${R}[${rOff} + (b0 + pp) * ${u32Lit(outDim)} + c], x); }
        acc2[t] = x;
      }
    }
    workgroupBarrier();
  }
  for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
    let c = lid + t * ${u32Lit(wg)};
    if (c < ${u32Lit(outDim)}) { y[(h * ${u32Lit(anchors)} + a) * ${u32Lit(outDim)} + c] = acc2[t]; }
  }
}
`;
  return { label: labelOf(spec.node, `${spec.node.shape.join('x')}:d${wrt}`), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, anchors, heads) };
}

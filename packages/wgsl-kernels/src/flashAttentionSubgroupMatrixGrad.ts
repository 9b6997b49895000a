// Flash-attention gradients on subgroup matrices (tensor cores), for `precision: 'mixed'`: FlashAttention-2's
// backward with f16 operands (q, k, v, dO rounded as they are staged; P and dS rounded before their products) and f32
// accumulation. L (from the forward) and Δ = dO·O are known per query row, so P = exp(scale·s − L) is exact in each
// tile and no accumulator is ever rescaled. A workgroup of 4 subgroups owns 64 anchor rows (16 per subgroup), held
// as left matrices in registers, and walks partner tiles staged as f16 in workgroup memory:
// - dq: anchors are queries (Q, dO), partners key tiles (K, V): S = Q·Kᵀ and dP = dO·Vᵀ, dS = P·(dP − Δ) as f16,
//   dQ += dS·K; scaled once at the end.
// - dk and dv: anchors are keys (K, V), partners query tiles (Q, dO, their L and Δ): Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ,
//   Pᵀ as f16 for dV += Pᵀ·dO, then dSᵀ = Pᵀ·(dPᵀ − Δ) as f16 for dK += dSᵀ·Q.
// Each subgroup's rows of S, dP, P and dS live in workgroup memory, where the row's two lanes apply the mask and the
// softmax; results leave through it a matrix at a time. Causal masks are top-left aligned (key j > query i
// masked); wholly masked tiles are skipped. Opt-in (`FlashConfig.tensorCores`) until measured in the training step.
// (A forward built the same way, two passes of S on the matrices, measured 1.42 ms against the fp32 kernel's 0.19
// on the GPT 6x384 step's shape, H100 2026-12-07: it was removed.)

import { type AttentionDims, gradReadBindings, rowDelta, rowIndex, type ViewedTensor } from './attentionDims.js';
import type { DeviceCaps, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, f32Lit, header, kernelError, u32Lit } from './wgsl.js';

/** Anchor rows per workgroup (4 subgroups of 16) and lanes per subgroup the kernels assume (NVIDIA: 32). */
const ROWS = 64;
const LANES = 32;
const THREADS = (ROWS / 16) * LANES;
/** f16 elements each staged row is padded by (so consecutive rows start on different banks), and f32 ones. */
const PAD16 = 8;
const PAD32 = 4;
const L = 'subgroup_matrix_left<f16, 16, 16>';
const R = 'subgroup_matrix_right<f16, 16, 16>';
const C = 'subgroup_matrix_result<f32, 16, 16>';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Whether the device offers what these kernels need: 16x16x16 f16 matrices under the mixed policy, subgroups, 128 threads. */
function tensorCoreAttentionDevice(caps: DeviceCaps): boolean {
  const s = caps.mixedMatmul;
  return (
    s !== undefined &&
    s.m === 16 &&
    s.n === 16 &&
    s.k === 16 &&
    caps.subgroups &&
    caps.shaderF16 &&
    THREADS <= caps.maxComputeInvocationsPerWorkgroup &&
    THREADS <= caps.maxComputeWorkgroupSizeX
  );
}

/**
 * Stages rows [r0, r0 + count) of `src` (n floats each, `rows` per head) into f16 `dst` rows of `stride`, zeros past the
 * end: a vec4 load, four f16 stores.
 */
const stage = (dm: AttentionDims, dst: string, src: 'q' | 'k' | 'v' | 'dout' | 'rowdot', r0: string, n: number, rows: number, count: number, stride: number) =>
  `for (var e = lid; e < ${u32Lit((count * n) / 4)}; e = e + ${u32Lit(THREADS)}) {
      let rr = e / ${u32Lit(n / 4)};
      let cc = (e % ${u32Lit(n / 4)}) * 4u;
      var val = vec4<f32>();
      if (${r0} + rr < ${u32Lit(rows)}) { val = ${src}[${rowIndex(dm, `${r0} + rr`, rows, src === 'q' || src === 'k' || src === 'v' ? src : undefined)} * ${u32Lit(n / 4)} + e % ${u32Lit(n / 4)}]; }
      let o = rr * ${u32Lit(stride)} + cc;
      ${dst}[o] = f16(val.x); ${dst}[o + 1u] = f16(val.y); ${dst}[o + 2u] = f16(val.z); ${dst}[o + 3u] = f16(val.w);
    }`;

/** Workgroup memory of a gradient pass with partner tiles of `bp` rows (`byQuery`: the dq pass). */
function smemBytes(d: number, dv: number, bp: number, byQuery: boolean): number {
  const anchors = ROWS * (Math.max(d, dv) + PAD16) * 2; // the anchors' two operands, staged one after the other
  const partners = bp * (d + PAD16 + dv + PAD16) * 2;
  const f32Tiles = (Math.max(ROWS * (bp + PAD32), (ROWS / 16) * 256) + ROWS * (bp + PAD32)) * 4; // S (then P), dP
  const f16Tile = ROWS * (bp + PAD16) * 2; // dS (dq), or P then dS (dk, dv)
  return anchors + partners + f32Tiles + f16Tile + (byQuery ? 0 : 2 * bp * 4);
}

/** Partner rows per staged tile: 32 or 16, whichever fits first, or 0. */
function partnerTile(d: number, dv: number, caps: DeviceCaps, byQuery: boolean): number {
  return [32, 16].find((bp) => smemBytes(d, dv, bp, byQuery) <= caps.maxComputeWorkgroupStorageSize) ?? 0;
}

/** Whether both tensor-core gradient passes run on these caps and dimensions (D and Dv multiples of 16 up to 128). */
export function tensorCoreGradFits(dm: AttentionDims, caps: DeviceCaps): boolean {
  return (
    tensorCoreAttentionDevice(caps) &&
    dm.d % 16 === 0 &&
    dm.dv % 16 === 0 &&
    dm.d <= 128 &&
    dm.dv <= 128 &&
    partnerTile(dm.d, dm.dv, caps, true) > 0 &&
    partnerTile(dm.d, dm.dv, caps, false) > 0
  );
}

/**
 * One gradient pass (see the file header): `byQuery` the dq pass, else dk and dv. Reads bindings 0–5 (q, k, v, dO,
 * L, and Δ or, `deltaFromOut`, attention's output); writes dq (binding 6, `y`), or dk to `y` and dv to `y2`
 * (binding 7), or with `oneOutput` both to `y` (attentionGradQKV), each result's rows at its head window
 * (`dm.views` y, y2), as the other gradient kernels do. dq and dk are scaled by `scale` as they are written.
 */
export function tensorCoreGradCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, byQuery: boolean, deltaFromOut: boolean, oneOutput = false): { code: string; wg: number; rows: number } {
  if (!tensorCoreGradFits(dm, caps)) kernelError(spec, 'the tensor-core attention gradients do not fit these dimensions or caps');
  const { tq, tk, d, dv } = dm;
  const bp = partnerTile(d, dv, caps, byQuery);
  const smem = smemBytes(d, dv, bp, byQuery);
  checkWorkgroupMemory(spec, smem, caps);
  const [AST, QST, KST, VST, DOST] = [Math.max(d, dv) + PAD16, d + PAD16, d + PAD16, dv + PAD16, dv + PAD16];
  const SST = bp + PAD32;
  const PST = bp + PAD16;
  const V4 = dv / 4;
  const sc = f32Lit(scale);
  // where each result goes: a binding and the head window its rows take there
  const outs: { binding: 'y' | 'y2'; view: ViewedTensor }[] = byQuery ? [{ binding: 'y', view: 'y' }] : [{ binding: 'y', view: 'y' }, { binding: oneOutput ? 'y' : 'y2', view: 'y2' }];
  const bindings = [...gradReadBindings(deltaFromOut), ...[...new Set(outs.map((o) => o.binding))].map((b, i) => `@group(0) @binding(${6 + i}) var<storage, read_write> ${b}: array<f32>;`)];
  // anchor operands (q and dO, or k and v: d and dv wide) → left matrices held for the walk (staged one after the
  // other through `As`)
  const [a1, a2] = byQuery ? (['q', 'dout'] as const) : (['k', 'v'] as const);
  const anchorRows = byQuery ? tq : tk;
  const holdAnchors = `${stage(dm, 'As', a1, 'a0', d, anchorRows, ROWS, AST)}
  workgroupBarrier();
  ${range(d / 16)
    .map((t) => `let x${t} = subgroupMatrixLoad<${L}, row_major>(&As, sg * ${u32Lit(16 * AST)} + ${u32Lit(t * 16)}, ${u32Lit(AST)});`)
    .join('\n  ')}
  workgroupBarrier();
  ${stage(dm, 'As', a2, 'a0', dv, anchorRows, ROWS, AST)}
  workgroupBarrier();
  ${range(dv / 16)
    .map((t) => `let z${t} = subgroupMatrixLoad<${L}, row_major>(&As, sg * ${u32Lit(16 * AST)} + ${u32Lit(t * 16)}, ${u32Lit(AST)});`)
    .join('\n  ')}
  workgroupBarrier();`;
  // partner operands (p1: k or q, d wide; p2: v or dO, dv wide) staged per tile
  const [p1, p2, P1ST, P2ST] = byQuery ? (['k', 'v', KST, VST] as const) : (['q', 'dout', QST, DOST] as const);
  const partnerRows = byQuery ? tk : tq;
  // S = X·P1ᵀ and dP = Z·P2ᵀ for this subgroup's 16 anchors × the tile's partners, into Ss and dPs
  const products = range(bp / 16)
    .map(
      (pb) => `{
      var s: ${C};
      ${range(d / 16)
        .map((t) => `s = subgroupMatrixMultiplyAccumulate(x${t}, subgroupMatrixLoad<${R}, col_major>(&P1s, ${u32Lit(pb * 16 * P1ST + t * 16)}, ${u32Lit(P1ST)}), s);`)
        .join('\n      ')}
      subgroupMatrixStore<row_major>(&Ss, sg * ${u32Lit(16 * SST)} + ${u32Lit(pb * 16)}, s, ${u32Lit(SST)});
      var dp: ${C};
      ${range(dv / 16)
        .map((t) => `dp = subgroupMatrixMultiplyAccumulate(z${t}, subgroupMatrixLoad<${R}, col_major>(&P2s, ${u32Lit(pb * 16 * P2ST + t * 16)}, ${u32Lit(P2ST)}), dp);`)
        .join('\n      ')}
      subgroupMatrixStore<row_major>(&dPs, sg * ${u32Lit(16 * SST)} + ${u32Lit(pb * 16)}, dp, ${u32Lit(SST)});
    }`,
    )
    .join('\n    ');
  // acc_t += W·B over the tile's partners (W: this subgroup's rows of Ws as left matrices; B: a partner tile, row-major)
  const accumulate = (acc: string, n: number, B: string, BST: number) =>
    range(bp / 16)
      .map(
        (kk) => `{
      let w = subgroupMatrixLoad<${L}, row_major>(&Ws, sg * ${u32Lit(16 * PST)} + ${u32Lit(kk * 16)}, ${u32Lit(PST)});
      ${range(n / 16)
        .map((t) => `${acc}${t} = subgroupMatrixMultiplyAccumulate(w, subgroupMatrixLoad<${R}, row_major>(&${B}, ${u32Lit(kk * 16 * BST + t * 16)}, ${u32Lit(BST)}), ${acc}${t});`)
        .join('\n      ')}
    }`,
      )
      .join('\n    ');
  // this lane's elements of the tile: anchor row r of its subgroup, partner columns c = 2i + half
  const at = `(sg * 16u + r) * ${u32Lit(SST)} + c`;
  const wAt = `(sg * 16u + r) * ${u32Lit(PST)} + c`;
  const valid = byQuery
    ? `(t0 + c < ${u32Lit(tk)}${causal ? ' && t0 + c <= ai' : ''})`
    : `(t0 + c < ${u32Lit(tq)} && ai < ${u32Lit(tk)}${causal ? ' && ai <= t0 + c' : ''})`;
  // a loop over this lane's elements of the tile (`c` in scope), and the partner tiles staged
  const perLane = (body: string) => `for (var i = 0u; i < ${u32Lit(bp / 2)}; i = i + 1u) {
      let c = 2u * i + half;
      ${body}
    }`;
  const stagePartners = `${stage(dm, 'P1s', p1, 't0', d, partnerRows, bp, P1ST)}
    ${stage(dm, 'P2s', p2, 't0', dv, partnerRows, bp, P2ST)}`;
  // L and Δ: the anchor's (dq, in registers) or each partner query's (dk/dv, staged per tile in `st`)
  const [lOf, dOf] = byQuery ? ['lv', 'dl'] : ['st[c]', `st[${u32Lit(bp)} + c]`];
  const statsOf = (row: string, lv: string, dl: string) =>
    `let ri = ${rowIndex(dm, row, tq)}; ${lv} = lse[ri]; ${deltaFromOut ? rowDelta('ri', V4, dl) : `${dl} = rowdot[ri];`}`;
  const tile = byQuery
    ? `${stagePartners}
    workgroupBarrier();
    ${products}
    workgroupBarrier();
    ${perLane(`var ds = 0.0;
      if (${valid}) { ds = exp(Ss[${at}] * ${sc} - ${lOf}) * (dPs[${at}] - ${dOf}); }
      Ws[${wAt}] = f16(ds);`)}
    workgroupBarrier();
    ${accumulate('g', d, 'P1s', P1ST)}
    workgroupBarrier();`
    : `${stagePartners}
    for (var e = lid; e < ${u32Lit(bp)}; e = e + ${u32Lit(THREADS)}) {
      var lv = 0.0; var dl = 0.0;
      if (t0 + e < ${u32Lit(tq)}) { ${statsOf('t0 + e', 'lv', 'dl')} }
      st[e] = lv; st[${u32Lit(bp)} + e] = dl;
    }
    workgroupBarrier();
    ${products}
    workgroupBarrier();
    ${perLane(`var p = 0.0;
      if (${valid}) { p = exp(Ss[${at}] * ${sc} - ${lOf}); }
      Ss[${at}] = p;
      Ws[${wAt}] = f16(p);`)}
    workgroupBarrier();
    ${accumulate('gv', dv, 'P2s', P2ST)}
    workgroupBarrier();
    ${perLane(`Ws[${wAt}] = f16(Ss[${at}] * (dPs[${at}] - ${dOf}));`)}
    workgroupBarrier();
    ${accumulate('g', d, 'P1s', P1ST)}
    workgroupBarrier();`;
  // results, a 16x16 matrix at a time through Ss: row a0 + sg·16 + e/16 of the anchors, at `out`'s head window
  const write = (acc: string, n: number, out: (typeof outs)[number], scaled: boolean) =>
    range(n / 16)
      .map(
        (t) => `subgroupMatrixStore<row_major>(&Ss, sg * 256u, ${acc}${t}, 16u);
  workgroupBarrier();
  for (var e = sl; e < 256u; e = e + ${u32Lit(LANES)}) {
    let aa = a0 + sg * 16u + e / 16u;
    if (aa < ${u32Lit(anchorRows)}) { ${out.binding}[${rowIndex(dm, 'aa', anchorRows, out.view)} * ${u32Lit(n)} + ${u32Lit(t * 16)} + e % 16u] = Ss[sg * 256u + e]${scaled ? ` * ${sc}` : ''}; }
  }
  workgroupBarrier();`,
      )
      .join('\n  ');
  const loop = byQuery
    ? `let tend = ${causal ? `min(a0 + ${u32Lit(ROWS)}, ${u32Lit(tk)})` : u32Lit(tk)};\n  for (var t0 = 0u; t0 < tend; t0 = t0 + ${u32Lit(bp)}) {`
    : `let tstart = ${causal ? `(a0 / ${u32Lit(bp)}) * ${u32Lit(bp)}` : '0u'};\n  for (var t0 = tstart; t0 < ${u32Lit(tq)}; t0 = t0 + ${u32Lit(bp)}) {`;
  const what = byQuery ? 'dq' : 'dk and dv';
  const code = `${header(spec, `flash attention gradient ${what} on subgroup matrices (f16 operands, f32 accumulation): 64 ${byQuery ? 'query' : 'key'} rows per workgroup (4 subgroups of 16), ${byQuery ? 'key' : 'query'} tiles of ${bp}${causal ? ', causal tiles skipped' : ''}`)}enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
${bindings.join('\n')}

var<workgroup> As: array<f16, ${ROWS * AST}>;
var<workgroup> P1s: array<f16, ${bp * P1ST}>;
var<workgroup> P2s: array<f16, ${bp * P2ST}>;
var<workgroup> Ss: array<f32, ${Math.max(ROWS * SST, (ROWS / 16) * 256)}>;
var<workgroup> dPs: array<f32, ${ROWS * SST}>;
var<workgroup> Ws: array<f16, ${ROWS * PST}>;
${byQuery ? '' : `var<workgroup> st: array<f32, ${2 * bp}>;\n`}
@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sl: u32) {
  let h = wid.y;
  let a0 = wid.x * ${u32Lit(ROWS)};
  let sg = lid / ${u32Lit(LANES)};
  ${holdAnchors}
  let r = sl / 2u;
  let half = sl % 2u;
  let ai = a0 + sg * 16u + r;
  ${byQuery ? `var lv = 0.0; var dl = 0.0;\n  if (ai < ${u32Lit(tq)}) { ${statsOf('ai', 'lv', 'dl')} }` : ''}
  ${range(d / 16)
    .map((t) => `var g${t}: ${C};`)
    .join(' ')}
  ${byQuery ? '' : range(dv / 16).map((t) => `var gv${t}: ${C};`).join(' ')}
  ${loop}
    ${tile}
  }
  ${write('g', d, outs[0], true)}
  ${byQuery ? '' : write('gv', dv, outs[1], false)}
}
`;
  return { code, wg: THREADS, rows: ROWS };
}

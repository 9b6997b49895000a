// Tiled flash-attention gradients: dq (`attentionGrad` wrt q) and dk + dv (`attentionGradKV`, or `attentionGrad`
// wrt k / v) computed by a workgroup cooperatively, as FlashAttention-2's backward does, instead of a thread per row
// holding whole rows in registers (which needs 192-256 registers a thread at D = 64 and spills).
// A workgroup owns a block of 32 anchor rows (queries for dq, keys for dk/dv) staged once in workgroup memory (A1 =
// q or k, A2 = dO or v; rows padded by one vec4 so eight consecutive rows hit distinct banks), and walks partner
// tiles of BR rows (P1 = k or q, P2 = v or dO), skipping causal tiles that are wholly masked. Per tile:
// - phase A: thread (anchor group g, partner p) computes the scores s and dP = A2·P2 of anchors g, g+8, g+16, g+24
//   with partner p, then P = exp(scale·s − L) (0 where masked) and dS = P·(dP − Δ), written as one vec4 per thread;
// - phase B: thread (anchor group g, column lane) accumulates out1 += dS·P1 (dq or dk) and, for dk + dv,
//   out2 += P·P2 (dv) over the tile's partners for the same four anchors and its vec4 columns.
// L and Δ belong to the query: per anchor for dq, per partner for dk/dv. Causal masks are top-left aligned (key
// j > query i masked). flashAttention.ts's row kernels stay selectable (`FlashConfig.grad = 'rows'`) and run where
// this one's workgroup memory does not fit.

import { type AttentionDims, gradReadBindings, rowDelta, rowIndex, type ViewedTensor } from './attentionDims.js';
import type { DeviceCaps, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, f32Lit, header, u32Lit } from './wgsl.js';

/** Anchor rows per workgroup (8 anchor groups of 4 interleaved rows). */
const BC = 32;
const GROUPS = BC / 4;

/** Threads and partner rows per tile of the tiled gradient kernels. */
export interface TiledGradConfig {
  /** Threads per workgroup. */
  readonly threads: number;
  /** Partner rows staged per tile. */
  readonly partners: number;
}

/**
 * The shipped shapes, first that fits: 128 threads with 32-row partner tiles (4 anchors × 2 partners a thread;
 * 42.3 KiB of workgroup memory at D = Dv = 64), then 16-row tiles (29.1 KiB, for 32 KiB devices), then 64 threads
 * with 8-row tiles.
 */
export const TILED_GRAD_CONFIGS: readonly TiledGradConfig[] = [
  { threads: 128, partners: 32 },
  { threads: 128, partners: 16 },
  { threads: 64, partners: 8 },
];

/** The default shape. */
export const DEFAULT_TILED_GRAD: TiledGradConfig = TILED_GRAD_CONFIGS[0];

/** Which gradients a tiled pass writes: dq, or dk and/or dv. */
export type TiledGradWrites = { readonly q: true } | { readonly q?: false; readonly k: boolean; readonly v: boolean };

/** Bytes of workgroup memory the tiled pass needs. */
export function tiledGradSmem(dm: AttentionDims, byQuery: boolean, cfg: TiledGradConfig = DEFAULT_TILED_GRAD): number {
  const { d, dv } = dm;
  const br = cfg.partners;
  const anchors = BC * (d + 4 + dv + 4);
  const partners = br * (d + 4 + dv + 4);
  const weights = (byQuery ? 1 : 2) * br * BC;
  const stats = 2 * (byQuery ? BC : br);
  return (anchors + partners + weights + stats) * 4;
}

/** `cfg` if given and it fits, else the first shipped shape that fits these caps and dimensions (none: the row kernels run). */
export function chooseTiledGrad(dm: AttentionDims, byQuery: boolean, caps: DeviceCaps, cfg?: TiledGradConfig): TiledGradConfig | undefined {
  return (cfg ? [cfg] : TILED_GRAD_CONFIGS).find((c) => tiledGradFits(dm, byQuery, caps, c));
}

/** Whether the tiled pass runs on these caps and dimensions with this shape. */
export function tiledGradFits(dm: AttentionDims, byQuery: boolean, caps: DeviceCaps, cfg: TiledGradConfig = DEFAULT_TILED_GRAD): boolean {
  const t = cfg.threads;
  return (
    t >= GROUPS &&
    t % GROUPS === 0 &&
    t <= caps.maxComputeInvocationsPerWorkgroup &&
    t <= caps.maxComputeWorkgroupSizeX &&
    (cfg.partners * GROUPS) % t === 0 &&
    tiledGradSmem(dm, byQuery, cfg) <= caps.maxComputeWorkgroupStorageSize
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Binding names that may be head windows: q, k, v (dout is never one). */
const viewOf = (src: string): ViewedTensor | undefined => (src === 'q' || src === 'k' || src === 'v' ? src : undefined);

/**
 * WGSL of the tiled gradient pass. Bindings: q, k, v, dout, lse, rowdot, then y (dq, or dk when written), then y2
 * (dv when dk and dv are both written; alone, dv is y; with `oneOutput`, dk and dv both go to y at their views).
 */
export function tiledGradCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, writes: TiledGradWrites, cfg: TiledGradConfig = DEFAULT_TILED_GRAD, deltaFromOut = false, oneOutput = false): { code: string; wg: number; rows: number } {
  const { tq, tk, d, dv } = dm;
  const WG = cfg.threads;
  const BR = cfg.partners;
  const byQuery = writes.q === true;
  const wantK = !byQuery && writes.k;
  const wantV = !byQuery && writes.v;
  const D4 = d / 4;
  const V4 = dv / 4;
  const sc = f32Lit(scale);
  // anchors: dq → (q, dO) over Tq; dk/dv → (k, v) over Tk; partners the other pair
  const [a1, a2, p1, p2] = byQuery ? ['q', 'dout', 'k', 'v'] : ['k', 'v', 'q', 'dout'];
  const [na, np] = byQuery ? [tq, tk] : [tk, tq];
  // phase A: partners per thread (partner groups of GROUPS threads, partners pg + PG·r)
  const PG = WG / GROUPS;
  const PPT = BR / PG;
  // phase B: column lanes per anchor group and vec4 columns per lane
  const CL = WG / GROUPS;
  const out1N4 = byQuery || wantK ? D4 : 0;
  const out2N4 = wantV ? V4 : 0;
  const M1 = Math.ceil(out1N4 / CL);
  const M2 = Math.ceil(out2N4 / CL);
  const bindings = [
    ...gradReadBindings(deltaFromOut),
    ...(out1N4 > 0 ? ['@group(0) @binding(6) var<storage, read_write> y: array<vec4<f32>>;'] : []),
    // dk and dv into one result (`oneOutput`, attentionGradQKV): both through binding 6, at their head windows
    ...(out2N4 > 0 && !(oneOutput && out1N4 > 0) ? [`@group(0) @binding(${out1N4 > 0 ? 7 : 6}) var<storage, read_write> ${out1N4 > 0 ? 'y2' : 'y'}: array<vec4<f32>>;`] : []),
  ].join('\n');
  const out2Name = out1N4 > 0 && !oneOutput ? 'y2' : 'y';
  const smem = tiledGradSmem(dm, byQuery, cfg);
  checkWorkgroupMemory(spec, smem, caps);
  const stageAnchors = (sh: string, src: string, n4: number) => `for (var e = lid; e < ${u32Lit(BC * n4)}; e = e + ${u32Lit(WG)}) {
    let r = e / ${u32Lit(n4)};
    var val = vec4<f32>();
    if (b0 + r < ${u32Lit(na)}) { val = ${src}[${rowIndex(dm, 'b0 + r', na, viewOf(src))} * ${u32Lit(n4)} + e % ${u32Lit(n4)}]; }
    ${sh}[r * ${u32Lit(n4 + 1)} + e % ${u32Lit(n4)}] = val;
  }`;
  const stagePartners = (sh: string, src: string, n4: number) => `for (var e = lid; e < ${u32Lit(BR * n4)}; e = e + ${u32Lit(WG)}) {
      let r = e / ${u32Lit(n4)};
      var val = vec4<f32>();
      if (t0 + r < ${u32Lit(np)}) { val = ${src}[${rowIndex(dm, 't0 + r', np, viewOf(src))} * ${u32Lit(n4)} + e % ${u32Lit(n4)}]; }
      ${sh}[r * ${u32Lit(n4 + 1)} + e % ${u32Lit(n4)}] = val;
    }`;
  // stats: L and Δ of the query rows (anchors for dq, once; partners for dk/dv, per tile)
  const stageStats = (n: number, first: string, rows: number) => `for (var e = lid; e < ${u32Lit(n)}; e = e + ${u32Lit(WG)}) {
    var lv = 0.0; var dl = 0.0;
    if (${first} + e < ${u32Lit(rows)}) { let ri = ${rowIndex(dm, `${first} + e`, rows)}; lv = lse[ri]; ${deltaFromOut ? rowDelta('ri', V4, 'dl') : 'dl = rowdot[ri];'} }
    st[e] = lv; st[${u32Lit(n)} + e] = dl;
  }`;
  const anchorOf = (r: number) => `g + ${u32Lit(GROUPS * r)}`;
  // phase A: a register tile of 4 anchors (g + 8r) × PPT partners (pg + PG·p) for both products, then the weights
  const pIdx = (p: number) => `pg + ${u32Lit(PG * p)}`;
  const tileDots = (acc: string, as: string, ps: string, n4: number) => `for (var c = 0u; c < ${u32Lit(n4)}; c = c + 1u) {
        ${range(4)
          .map((r) => `let x${r} = ${as}[(${anchorOf(r)}) * ${u32Lit(n4 + 1)} + c];`)
          .join(' ')}
        ${range(PPT)
          .map((p) => `let y${p} = ${ps}[(${pIdx(p)}) * ${u32Lit(n4 + 1)} + c];`)
          .join(' ')}
        ${range(4)
          .flatMap((r) => range(PPT).map((p) => `${acc}${r}_${p} = ${acc}${r}_${p} + dot(x${r}, y${p});`))
          .join(' ')}
      }`;
  const weightsOf = (p: number) => {
    const lines = range(4).map((r) => {
      const anchor = `b0 + ${anchorOf(r)}`;
      const [qi, kj] = byQuery ? [anchor, `pt${p}`] : [`pt${p}`, anchor];
      const mask = [`pt${p} < ${u32Lit(np)}`, `${anchor} < ${u32Lit(na)}`, ...(causal ? [`${kj} <= ${qi}`] : [])].join(' && ');
      const pl = pIdx(p);
      const [L, dl] = byQuery ? [`st[${anchorOf(r)}]`, `st[${u32Lit(BC)} + ${anchorOf(r)}]`] : [`st[${pl}]`, `st[${u32Lit(BR)} + ${pl}]`];
      return `let ok${r} = ${mask};
        let e${r} = select(0.0, exp(s${r}_${p} * ${sc} - ${L}), ok${r});
        let w${r} = select(0.0, e${r} * (dp${r}_${p} - ${dl}), ok${r});`;
    });
    return `{
        let pt${p} = t0 + ${pIdx(p)};
        ${lines.join('\n        ')}
        dss[(${pIdx(p)}) * ${u32Lit(GROUPS)} + g] = vec4<f32>(w0, w1, w2, w3);
        ${wantV ? `pss[(${pIdx(p)}) * ${u32Lit(GROUPS)} + g] = vec4<f32>(e0, e1, e2, e3);` : ''}
      }`;
  };
  const phaseA = `{
      ${range(4)
        .flatMap((r) => range(PPT).map((p) => `var s${r}_${p} = 0.0; var dp${r}_${p} = 0.0;`))
        .join(' ')}
      ${tileDots('s', 'a1s', 'p1s', D4)}
      ${tileDots('dp', 'a2s', 'p2s', V4)}
      ${range(PPT).map(weightsOf).join('\n      ')}
    }`;
  // phase B accumulators: x<r>_<m> (out1, 4 anchors × M1 vec4 columns) and z<r>_<m> (out2)
  const accDecl = [
    ...range(4).flatMap((r) => range(M1).map((m) => `var x${r}_${m} = vec4<f32>();`)),
    ...range(4).flatMap((r) => range(M2).map((m) => `var z${r}_${m} = vec4<f32>();`)),
  ].join(' ');
  const accumulate = (acc: string, M: number, n4: number, weights: string, src: string) =>
    range(M)
      .map((m) => {
        const col = `cl + ${u32Lit(CL * m)}`;
        const body = range(4)
          .map((r) => `${acc}${r}_${m} = fma(vec4<f32>(wt.${'xyzw'[r]}), pr, ${acc}${r}_${m});`)
          .join(' ');
        const guard = CL * (m + 1) > n4 ? `if (${col} < ${u32Lit(n4)}) ` : '';
        return `${guard}{ let pr = ${src}[pi * ${u32Lit(n4 + 1)} + ${col}]; let wt = ${weights}; ${body} }`;
      })
      .join('\n        ');
  const phaseB = `for (var pi = 0u; pi < ${u32Lit(BR)}; pi = pi + 1u) {
        ${M1 > 0 ? accumulate('x', M1, out1N4, `dss[pi * ${u32Lit(GROUPS)} + g]`, 'p1s') : ''}
        ${M2 > 0 ? accumulate('z', M2, out2N4, `${wantV ? 'pss' : 'dss'}[pi * ${u32Lit(GROUPS)} + g]`, 'p2s') : ''}
      }`;
  const writeOut = (acc: string, M: number, n4: number, dst: string, view: ViewedTensor, scaled: boolean) =>
    range(4)
      .flatMap((r) =>
        range(M).map((m) => {
          const col = `cl + ${u32Lit(CL * m)}`;
          const guard = CL * (m + 1) > n4 ? ` && ${col} < ${u32Lit(n4)}` : '';
          return `if (b0 + ${anchorOf(r)} < ${u32Lit(na)}${guard}) { ${dst}[${rowIndex(dm, `b0 + ${anchorOf(r)}`, na, view)} * ${u32Lit(n4)} + ${col}] = ${acc}${r}_${m}${scaled ? ` * ${sc}` : ''}; }`;
        }),
      )
      .join('\n  ');
  // partner tiles: dq walks keys [0, min(b0 + BC, Tk)) when causal; dk/dv walk queries from the tile holding b0
  const loop = byQuery
    ? `let tend = ${causal ? `min(b0 + ${u32Lit(BC)}, ${u32Lit(tk)})` : u32Lit(tk)};\n  for (var t0 = 0u; t0 < tend; t0 = t0 + ${u32Lit(BR)}) {`
    : `let tstart = ${causal ? `(b0 / ${u32Lit(BR)}) * ${u32Lit(BR)}` : '0u'};\n  for (var t0 = tstart; t0 < ${u32Lit(tq)}; t0 = t0 + ${u32Lit(BR)}) {`;
  const what = byQuery ? 'dq' : wantK && wantV ? 'dk and dv' : wantK ? 'dk' : 'dv';
  const code = `${header(spec, `flash attention gradient ${what}, tiled: a workgroup of ${WG} per (head, ${BC} ${byQuery ? 'query' : 'key'} rows), ${byQuery ? 'key' : 'query'} tiles of ${BR} in workgroup memory, scores and dS computed cooperatively${causal ? ', causal tiles skipped' : ''}`)}${bindings}

var<workgroup> a1s: array<vec4<f32>, ${BC * (D4 + 1)}>;
var<workgroup> a2s: array<vec4<f32>, ${BC * (V4 + 1)}>;
var<workgroup> p1s: array<vec4<f32>, ${BR * (D4 + 1)}>;
var<workgroup> p2s: array<vec4<f32>, ${BR * (V4 + 1)}>;
var<workgroup> dss: array<vec4<f32>, ${(BR * BC) / 4}>;
${byQuery ? '' : `var<workgroup> pss: array<vec4<f32>, ${(BR * BC) / 4}>;\n`}var<workgroup> st: array<f32, ${2 * (byQuery ? BC : BR)}>;

@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let b0 = wid.x * ${u32Lit(BC)};
  let g = lid % ${u32Lit(GROUPS)};
  let pg = lid / ${u32Lit(GROUPS)};
  let cl = lid / ${u32Lit(GROUPS)};
  ${stageAnchors('a1s', a1, D4)}
  ${stageAnchors('a2s', a2, V4)}
  ${byQuery ? stageStats(BC, 'b0', tq) : ''}
  ${accDecl}
  ${loop}
    ${stagePartners('p1s', p1, D4)}
    ${stagePartners('p2s', p2, V4)}
    ${byQuery ? '' : stageStats(BR, 't0', tq)}
    workgroupBarrier();
    ${phaseA}
    workgroupBarrier();
    ${phaseB}
    workgroupBarrier();
  }
  ${M1 > 0 ? writeOut('x', M1, out1N4, 'y', 'y', true) : ''}
  ${M2 > 0 ? writeOut('z', M2, out2N4, out2Name, out1N4 > 0 ? 'y2' : 'y', false) : ''}
}
`;
  return { code, wg: WG, rows: BC };
}

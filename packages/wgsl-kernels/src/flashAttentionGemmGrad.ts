// Flash-attention gradients as register-tiled matmuls (FlashAttention-2's backward in the CUTLASS SIMT style): dq
// (`attentionGrad` wrt q) and dk + dv (`attentionGradKV`, or `attentionGrad` wrt k / v). A workgroup owns BA anchor
// rows (queries for dq, keys for dk/dv) and walks partner tiles of BP rows, skipping causal tiles wholly masked.
// Per tile:
// - phase A: S = A1·P1ᵀ and dP = A2·P2ᵀ (BA × BP, anchors × partners) as small matmuls, as matmul.ts's main loop:
//   the reduction dimension D streamed through workgroup memory KC columns at a time, staged transposed
//   ([column][rows]), each thread accumulating a TA × TP register tile of both by outer products (TA/4 + TP/4 vec4
//   loads feed TA·TP FMAs a column). Then P = exp(scale·s − L) (0 where masked) and dS = P·(dP − Δ) go to
//   workgroup memory as vec4s over 4 anchors.
// - phase B: out1 += dS·P1 (dq += dS·K, dk += dSᵀ·Q) and out2 += P·P2 (dv += Pᵀ·dO), the partners streamed PC
//   rows at a time (KC, or more where phase A's staging has room); each thread owns TA anchors × M vec4 columns of
//   each output, in registers for the whole walk.
// L comes from the forward and Δ from attention's output (`deltaFromOut`) or an operand, per query row. No row
// statistic needs a reduction across threads (each thread finishes its own dot products), so no subgroup path.
// Causal masks are top-left aligned (key j > query i masked). flashAttention.ts chooses between this kernel, the
// tiled one (flashAttentionTiledGrad.ts) and the row kernels.

import { type AttentionDims, gradReadBindings, rowDelta, rowIndex, type ViewedTensor } from './attentionDims.js';
import type { TiledGradWrites } from './flashAttentionTiledGrad.js';
import type { DeviceCaps, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, f32Lit, header, u32Lit } from './wgsl.js';

/** The shape of a matmul-style gradient workgroup. */
export interface GemmGradConfig {
  /** Threads per workgroup. */
  readonly threads: number;
  /** Anchor rows per workgroup (BA). */
  readonly anchors: number;
  /** Partner rows per tile (BP). */
  readonly partners: number;
  /** Anchor rows per thread (TA, a multiple of 4): the register tile's height in both phases. */
  readonly rowsPerThread: number;
  /** Columns of D (phase A) and partner rows (phase B) per staged chunk (KC; smaller where D is not a multiple). */
  readonly chunk: number;
}

/**
 * The shipped shapes, first that fits: 256 threads over 64 × 64 tiles (4 × 4 register tiles) streaming D 16 at a
 * time (dq: 34 KiB of workgroup memory at D = Dv = 64) or 8 (dk + dv: 41 KiB, within Dawn's 48 KiB), 128 threads
 * over 64 × 32 (dk + dv within llvmpipe's 32 KiB), 64 threads over 32 × 32 (16 KiB). Not timed yet: the
 * bench's `grad gemm …` variants compare shapes.
 */
export const GEMM_GRAD_CONFIGS: readonly GemmGradConfig[] = [
  { threads: 256, anchors: 64, partners: 64, rowsPerThread: 4, chunk: 16 },
  { threads: 256, anchors: 64, partners: 64, rowsPerThread: 4, chunk: 8 },
  { threads: 128, anchors: 64, partners: 32, rowsPerThread: 4, chunk: 8 },
  { threads: 64, anchors: 32, partners: 32, rowsPerThread: 4, chunk: 8 },
];

/** Which gradients a pass writes (as the tiled kernel's). */
export type GemmGradWrites = TiledGradWrites;

/** The derived tiling of a configuration at these dimensions (undefined: the configuration does not divide). */
interface Tiling {
  /** Anchor groups (threads along the anchors); a thread's anchors are 4·(ag + AG·v) + i. */
  readonly AG: number;
  /** Partner groups in phase A (= column lanes in phase B); a thread's partners are 4·(pg + PG·w) + j. */
  readonly PG: number;
  /** Partner vec4 groups per thread in phase A (TP = 4·TW partners). */
  readonly TW: number;
  /** The reduction chunk along D (divides D and Dv) and the partner chunk of phase B (divides BP). */
  readonly KC: number;
  readonly PC: number;
}

const CHUNKS = [16, 8, 4];

/** Which products a pass needs: dS (dq, dk) needs dP; P alone serves dv. */
const needsDs = (writes: GemmGradWrites) => writes.q === true || writes.k;

function tilingOf(dm: AttentionDims, writes: GemmGradWrites, cfg: GemmGradConfig): Tiling | undefined {
  const { threads: T, anchors: BA, partners: BP, rowsPerThread: TA } = cfg;
  if (TA % 4 !== 0 || BA % TA !== 0 || BP % 4 !== 0 || T % (BA / TA) !== 0) return undefined;
  const AG = BA / TA;
  const PG = T / AG;
  if ((BP / 4) % PG !== 0) return undefined;
  const KC = CHUNKS.find((c) => c <= cfg.chunk && dm.d % c === 0 && dm.dv % c === 0);
  if (!KC) return undefined;
  // phase B's partner chunk: up to the configured chunk, or larger where phase A's staging already holds it (fewer
  // barriers at no memory cost: dk + dv at D = 64 stream 16 partners in the room of 8 columns of both products)
  const stageA = (needsDs(writes) ? 2 : 1) * KC * (BA / 4 + 1 + BP / 4 + 1);
  const rowVec4 = (writes.q === true || writes.k ? dm.d / 4 : 0) + (writes.q !== true && writes.v ? dm.dv / 4 : 0);
  const PC = CHUNKS.find((c) => BP % c === 0 && (c <= cfg.chunk || c * rowVec4 <= stageA));
  if (!PC) return undefined;
  return { AG, PG, TW: BP / 4 / PG, KC, PC };
}

/** Bytes of workgroup memory the pass needs (undefined where the configuration does not divide these dimensions). */
export function gemmGradSmem(dm: AttentionDims, writes: GemmGradWrites, cfg: GemmGradConfig): number | undefined {
  const t = tilingOf(dm, writes, cfg);
  if (!t) return undefined;
  const byQuery = writes.q === true;
  const wantV = !byQuery && writes.v;
  const { anchors: BA, partners: BP } = cfg;
  const products = needsDs(writes) ? 2 : 1;
  const stageA = products * t.KC * (BA / 4 + 1 + BP / 4 + 1);
  const n1 = byQuery || writes.k ? dm.d / 4 : 0;
  const stageB = t.PC * (n1 + (wantV ? dm.dv / 4 : 0));
  const weights = ((needsDs(writes) ? 1 : 0) + (wantV ? 1 : 0)) * (BA * BP) / 4;
  const stats = 2 * (byQuery ? BA : BP);
  return (Math.max(stageA, stageB) + weights) * 16 + stats * 4;
}

/** Whether the pass runs on these caps and dimensions with this shape. */
export function gemmGradFits(dm: AttentionDims, writes: GemmGradWrites, caps: DeviceCaps, cfg: GemmGradConfig): boolean {
  const smem = gemmGradSmem(dm, writes, cfg);
  return smem !== undefined && cfg.threads <= caps.maxComputeInvocationsPerWorkgroup && cfg.threads <= caps.maxComputeWorkgroupSizeX && smem <= caps.maxComputeWorkgroupStorageSize;
}

/** `cfg` if given and it fits, else the first shipped shape that fits (none: another gradient kernel runs). */
export function chooseGemmGrad(dm: AttentionDims, writes: GemmGradWrites, caps: DeviceCaps, cfg?: GemmGradConfig): GemmGradConfig | undefined {
  return (cfg ? [cfg] : GEMM_GRAD_CONFIGS).find((c) => gemmGradFits(dm, writes, caps, c));
}

/** One array's share of a staging loop: its work items and the WGSL that stages item `e`. */
interface StagePart {
  readonly n: number;
  readonly body: string;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Binding names that may be head windows: q, k, v (dout is never one). */
const viewOf = (src: string): ViewedTensor | undefined => (src === 'q' || src === 'k' || src === 'v' ? src : undefined);

/**
 * WGSL of the pass. Bindings as the tiled kernel's: q, k, v, dout, lse, rowdot, then y (dq, or dk when written),
 * then y2 (dv when dk and dv are both written; alone, dv is y; with `oneOutput`, both go to y at their views).
 */
export function gemmGradCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, writes: GemmGradWrites, cfg: GemmGradConfig, deltaFromOut = false, oneOutput = false): { code: string; wg: number; rows: number } {
  const t = tilingOf(dm, writes, cfg);
  if (!t) throw new Error(`gemmGradCode: configuration ${JSON.stringify(cfg)} does not divide D = ${dm.d}, Dv = ${dm.dv}`);
  const { tq, tk, d, dv } = dm;
  const { threads: WG, anchors: BA, partners: BP, rowsPerThread: TA } = cfg;
  const { AG, PG, TW, KC, PC } = t;
  const AV = TA / 4;
  const KC4 = KC / 4;
  const [BA4, BP4] = [BA / 4, BP / 4];
  const byQuery = writes.q === true;
  const wantK = !byQuery && writes.k;
  const wantV = !byQuery && writes.v;
  const wantDs = needsDs(writes);
  const D4 = d / 4;
  const V4 = dv / 4;
  const sc = f32Lit(scale);
  // anchors: dq → (q, dO) over Tq; dk/dv → (k, v) over Tk; partners the other pair
  const [a1, a2, p1, p2] = byQuery ? ['q', 'dout', 'k', 'v'] : ['k', 'v', 'q', 'dout'];
  const [na, np] = byQuery ? [tq, tk] : [tk, tq];
  const n1 = byQuery || wantK ? D4 : 0;
  const n2 = wantV ? V4 : 0;
  const M1 = Math.ceil(n1 / PG);
  const M2 = Math.ceil(n2 / PG);
  const smem = gemmGradSmem(dm, writes, cfg) as number;
  checkWorkgroupMemory(spec, smem, caps);
  const bindings = [
    ...gradReadBindings(deltaFromOut),
    ...(n1 > 0 ? ['@group(0) @binding(6) var<storage, read_write> y: array<vec4<f32>>;'] : []),
    ...(n2 > 0 && !(oneOutput && n1 > 0) ? [`@group(0) @binding(${n1 > 0 ? 7 : 6}) var<storage, read_write> ${n1 > 0 ? 'y2' : 'y'}: array<vec4<f32>>;`] : []),
  ].join('\n');
  const out2Name = n1 > 0 && !oneOutput ? 'y2' : 'y';
  const products = [{ acc: 's', a: a1, p: p1, n4: D4 }, ...(wantDs ? [{ acc: 'dp', a: a2, p: p2, n4: V4 }] : [])];
  const slotSize = KC * (BA4 + 1 + BP4 + 1);
  const stageA = products.length * slotSize;
  const stageB = PC * (n1 + n2);
  // staging parts share one loop over the workgroup (each part's items in its own range), so every thread loads:
  // parts looped apart would leave 32 threads staging four arrays of 32 items each while the rest wait
  const stageParts = (parts: StagePart[]) => {
    let start = 0;
    const branches = parts.map((pt, i) => {
      const lo = start;
      start += pt.n;
      const cond = i === parts.length - 1 ? '' : `if (i < ${u32Lit(start)}) `;
      return `${i > 0 ? 'else ' : ''}${cond}{
        let e = i${lo > 0 ? ` - ${u32Lit(lo)}` : ''};
        ${pt.body}
      }`;
    });
    return `for (var i = lid; i < ${u32Lit(start)}; i = i + ${u32Lit(WG)}) {
      ${branches.join(' ')}
    }`;
  };
  // a thread's anchors: vec4 groups ag + AG·v (anchors 4·group + i); partners: vec4 groups pg + PG·w (4·group + j)
  const aGroup = (v: number) => (v === 0 ? 'ag' : `ag + ${u32Lit(AG * v)}`);
  const pGroup = (w: number) => (w === 0 ? 'pg' : `pg + ${u32Lit(PG * w)}`);
  const pLocal = (w: number, j: number) => `4u * (${pGroup(w)})${j > 0 ? ` + ${u32Lit(j)}` : ''}`;

  // phase A: chunks of KC columns of D staged transposed ([column][rows], one vec4 of padding per column): a thread
  // loads one vec4 column group of 4 rows and stores it as 4 vec4s over those rows (a 4 × 4 transpose in registers),
  // so a quarter-warp's stores of 4 row groups × 2 column groups fall on distinct banks
  // (a part: `n` work items and the WGSL staging item `e` of it)
  const stageChunk = (src: string, n4: number, rows: number, first: string, total: number, off: number): StagePart => {
    const stride = rows / 4 + 1;
    const load = (i: number) => `var v${i} = vec4<f32>(); if (${first} + r + ${u32Lit(i)} < ${u32Lit(total)}) { v${i} = ${src}[${rowIndex(dm, `${first} + r + ${u32Lit(i)}`, total, viewOf(src))} * ${u32Lit(n4)} + d4 + c]; }`;
    return {
      n: (rows / 4) * KC4,
      body: `let r = (e / ${u32Lit(KC4)}) * 4u;
        let c = e % ${u32Lit(KC4)};
        ${range(4).map(load).join('\n        ')}
        let at = ${off > 0 ? `${u32Lit(off)} + ` : ''}c * ${u32Lit(4 * stride)} + r / 4u;
        ${range(4)
          .map((i) => `stg[at${i > 0 ? ` + ${u32Lit(i * stride)}` : ''}] = vec4<f32>(v0.${'xyzw'[i]}, v1.${'xyzw'[i]}, v2.${'xyzw'[i]}, v3.${'xyzw'[i]});`)
          .join(' ')}`,
    };
  };
  const chunkLoop = (list: typeof products, slots: number[]) => {
    const stage = stageParts(
      list.flatMap((pr, i) => {
        const off = slots[i] * slotSize;
        return [stageChunk(pr.a, pr.n4, BA, 'b0', na, off), stageChunk(pr.p, pr.n4, BP, 't0', np, off + KC * (BA4 + 1))];
      }),
    );
    const fmas = list
      .map((pr, i) => {
        const aOff = slots[i] * slotSize;
        const pOff = aOff + KC * (BA4 + 1);
        return `${range(AV).map((v) => `let ${pr.acc}a${v} = stg[${u32Lit(aOff)} + kk * ${u32Lit(BA4 + 1)} + ${aGroup(v)}];`).join(' ')}
        ${range(TW).map((w) => `let ${pr.acc}b${w} = stg[${u32Lit(pOff)} + kk * ${u32Lit(BP4 + 1)} + ${pGroup(w)}];`).join(' ')}
        ${range(AV)
          .flatMap((v) => range(TW).flatMap((w) => range(4).map((j) => `${pr.acc}${v}_${w}_${j} = fma(${pr.acc}a${v}, vec4<f32>(${pr.acc}b${w}.${'xyzw'[j]}), ${pr.acc}${v}_${w}_${j});`)))
          .join('\n        ')}`;
      })
      .join('\n        ');
    return `for (var d4 = 0u; d4 < ${u32Lit(list[0].n4)}; d4 = d4 + ${u32Lit(KC4)}) {
      ${stage}
      workgroupBarrier();
      for (var kk = 0u; kk < ${u32Lit(KC)}; kk = kk + 1u) {
        ${fmas}
      }
      workgroupBarrier();
    }`;
  };
  // one chunk loop for both products where D = Dv (half the barriers), else one loop each
  const phaseALoops = products.length === 2 && D4 === V4 ? chunkLoop(products, [0, 1]) : products.map((pr, i) => chunkLoop([pr], [i])).join('\n    ');
  const accDecl = range(AV)
    .flatMap((v) => range(TW).flatMap((w) => range(4).map((j) => `var s${v}_${w}_${j} = vec4<f32>();${wantDs ? ` var dp${v}_${w}_${j} = vec4<f32>();` : ''}`)))
    .join(' ');
  // weights: P = exp(scale·s − L) where unmasked and dS = P·(dP − Δ), a vec4 over 4 anchors, into [partner][BA/4]
  const anchorVecs = range(AV)
    .map((v) => {
      const first = `b0 + 4u * (${aGroup(v)})`;
      const stats = byQuery
        ? ` let la${v} = vec4<f32>(${range(4).map((i) => `st[4u * (${aGroup(v)}) + ${u32Lit(i)}]`).join(', ')}); let da${v} = vec4<f32>(${range(4).map((i) => `st[${u32Lit(BA)} + 4u * (${aGroup(v)}) + ${u32Lit(i)}]`).join(', ')});`
        : '';
      return `let av${v} = vec4<u32>(${first}) + vec4<u32>(0u, 1u, 2u, 3u);${stats}`;
    })
    .join('\n    ');
  const weights = range(TW)
    .flatMap((w) =>
      range(4).map((j) => {
        const pl = pLocal(w, j);
        const lines = range(AV).map((v) => {
          const causalMask = causal ? ` & (${byQuery ? `vec4<u32>(pt) <= av${v}` : `av${v} <= vec4<u32>(pt)`})` : '';
          const [L, dl] = byQuery ? [`la${v}`, `da${v}`] : ['lp', 'dlp'];
          const at = `pl * ${u32Lit(BA4)} + ${aGroup(v)}`;
          return `{
        let ok = (av${v} < vec4<u32>(${u32Lit(na)})) & vec4<bool>(pt < ${u32Lit(np)})${causalMask};
        let e = select(vec4<f32>(), exp(s${v}_${w}_${j} * ${sc} - ${L}), ok);
        ${wantDs ? `dss[${at}] = e * (dp${v}_${w}_${j} - ${dl});` : ''}
        ${wantV ? `pss[${at}] = e;` : ''}
      }`;
        });
        return `{
      let pl = ${pl};
      let pt = t0 + pl;
      ${byQuery ? '' : `let lp = st[pl];${wantDs ? ` let dlp = st[${u32Lit(BP)} + pl];` : ''}`}
      ${lines.join('\n      ')}
    }`;
      }),
    )
    .join('\n    ');

  // phase B: out1 (x, from dS and P1) and out2 (z, from P and P2): anchors 4·(ag + AG·v) + i × vec4 columns pg + PG·m
  const outDecl = [...range(TA).flatMap((r) => range(M1).map((m) => `var x${r}_${m} = vec4<f32>();`)), ...range(TA).flatMap((r) => range(M2).map((m) => `var z${r}_${m} = vec4<f32>();`))].join(' ');
  const stagePartners = (src: string, n4: number, off: number): StagePart => ({
    n: PC * n4,
    body: `let r = e / ${u32Lit(n4)};
        var val = vec4<f32>();
        if (t0 + p0 + r < ${u32Lit(np)}) { val = ${src}[${rowIndex(dm, 't0 + p0 + r', np, viewOf(src))} * ${u32Lit(n4)} + e % ${u32Lit(n4)}]; }
        stg[${off > 0 ? `${u32Lit(off)} + ` : ''}e] = val;`,
  });
  const colOf = (m: number) => (m === 0 ? 'pg' : `pg + ${u32Lit(PG * m)}`);
  const accumulate = (acc: string, M: number, n4: number, wts: string, off: number) =>
    range(M)
      .map((m) => {
        const guard = PG * (m + 1) > n4 ? `if (${colOf(m)} < ${u32Lit(n4)}) ` : '';
        const body = range(TA)
          .map((r) => `${acc}${r}_${m} = fma(vec4<f32>(${wts}${Math.floor(r / 4)}.${'xyzw'[r % 4]}), pr, ${acc}${r}_${m});`)
          .join(' ');
        return `${guard}{ let pr = stg[${off > 0 ? `${u32Lit(off)} + ` : ''}p * ${u32Lit(n4)} + ${colOf(m)}]; ${body} }`;
      })
      .join('\n          ');
  const loadWeights = (arr: string, name: string) => range(AV).map((v) => `let ${name}${v} = ${arr}[(p0 + p) * ${u32Lit(BA4)} + ${aGroup(v)}];`).join(' ');
  const phaseB = `for (var p0 = 0u; p0 < ${u32Lit(BP)}; p0 = p0 + ${u32Lit(PC)}) {
      ${stageParts([...(n1 > 0 ? [stagePartners(p1, n1, 0)] : []), ...(n2 > 0 ? [stagePartners(p2, n2, PC * n1)] : [])])}
      workgroupBarrier();
      for (var p = 0u; p < ${u32Lit(PC)}; p = p + 1u) {
        ${n1 > 0 ? `${loadWeights('dss', 'ws')}\n          ${accumulate('x', M1, n1, 'ws', 0)}` : ''}
        ${n2 > 0 ? `${loadWeights('pss', 'wp')}\n          ${accumulate('z', M2, n2, 'wp', PC * n1)}` : ''}
      }
      workgroupBarrier();
    }`;
  const writeOut = (acc: string, M: number, n4: number, dst: string, view: ViewedTensor, scaled: boolean) =>
    range(TA)
      .flatMap((r) =>
        range(M).map((m) => {
          const guard = PG * (m + 1) > n4 ? ` && ${colOf(m)} < ${u32Lit(n4)}` : '';
          const a = `b0 + 4u * (${aGroup(Math.floor(r / 4))}) + ${u32Lit(r % 4)}`;
          return `if (${a} < ${u32Lit(na)}${guard}) { ${dst}[${rowIndex(dm, a, na, view)} * ${u32Lit(n4)} + ${colOf(m)}] = ${acc}${r}_${m}${scaled ? ` * ${sc}` : ''}; }`;
        }),
      )
      .join('\n  ');
  // stats: L and Δ of the query rows (anchors for dq, once; partners for dk/dv, per tile)
  const stageStats = (n: number, first: string) => `for (var e = lid; e < ${u32Lit(n)}; e = e + ${u32Lit(WG)}) {
    var lv = 0.0; var dl = 0.0;
    if (${first} + e < ${u32Lit(tq)}) { let ri = ${rowIndex(dm, `${first} + e`, tq)}; lv = lse[ri]; ${wantDs ? (deltaFromOut ? rowDelta('ri', V4, 'dl') : 'dl = rowdot[ri];') : ''} }
    st[e] = lv; st[${u32Lit(n)} + e] = dl;
  }`;
  // partner tiles: dq walks keys [0, min(b0 + BA, Tk)) when causal; dk/dv walk queries from the tile holding b0
  const loop = byQuery
    ? `let tend = ${causal ? `min(b0 + ${u32Lit(BA)}, ${u32Lit(tk)})` : u32Lit(tk)};\n  for (var t0 = 0u; t0 < tend; t0 = t0 + ${u32Lit(BP)}) {`
    : `let tstart = ${causal ? `(b0 / ${u32Lit(BP)}) * ${u32Lit(BP)}` : '0u'};\n  for (var t0 = tstart; t0 < ${u32Lit(tq)}; t0 = t0 + ${u32Lit(BP)}) {`;
  const what = byQuery ? 'dq' : wantK && wantV ? 'dk and dv' : wantK ? 'dk' : 'dv';
  const code = `${header(spec, `flash attention gradient ${what}, register-tiled matmuls: a workgroup of ${WG} per (head, ${BA} ${byQuery ? 'query' : 'key'} rows), ${byQuery ? 'key' : 'query'} tiles of ${BP}, ${TA}x${4 * TW} thread tiles, D streamed ${KC} at a time, partners ${PC}${causal ? ', causal tiles skipped' : ''}`)}${bindings}

var<workgroup> stg: array<vec4<f32>, ${Math.max(stageA, stageB)}>;
${wantDs ? `var<workgroup> dss: array<vec4<f32>, ${(BA * BP) / 4}>;\n` : ''}${wantV ? `var<workgroup> pss: array<vec4<f32>, ${(BA * BP) / 4}>;\n` : ''}var<workgroup> st: array<f32, ${2 * (byQuery ? BA : BP)}>;

@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let b0 = wid.x * ${u32Lit(BA)};
  let ag = lid % ${u32Lit(AG)};
  let pg = lid / ${u32Lit(AG)};
  ${byQuery ? stageStats(BA, 'b0') : ''}
  ${outDecl}
  ${loop}
    ${byQuery ? '' : stageStats(BP, 't0')}
    ${accDecl}
    ${phaseALoops}
    ${anchorVecs}
    ${weights}
    workgroupBarrier();
    ${phaseB}
  }
  ${M1 > 0 ? writeOut('x', M1, n1, 'y', 'y', true) : ''}
  ${M2 > 0 ? writeOut('z', M2, n2, out2Name, n1 > 0 ? 'y2' : 'y', false) : ''}
}
`;
  return { code, wg: WG, rows: BA };
}

// Flash-attention forward as register-tiled matmuls (FlashAttention-2's forward in the CUTLASS SIMT style) for
// `attention`, `attentionLse` and `attentionWithLse`, in the conventions of flashAttentionGemmGrad.ts. A workgroup
// owns BQ query rows and walks key tiles of BK rows (causal tiles past its last query never loaded). Per tile:
// - phase A: S = Q·Kᵀ (BQ × BK), the reduction dimension D streamed through workgroup memory KC columns at a time,
//   staged transposed ([column][rows], one vec4 of padding per column); Q is staged once for the whole walk where
//   the config keeps it resident, else with each chunk of K. Thread (ag, pg) accumulates a TQ × TK register tile
//   by outer products (TQ/4 + TK/4 vec4 loads feed TQ·TK FMAs a column).
// - online softmax: scaled and masked scores; the tile's row maxima meet across the PG threads of a row in
//   workgroup memory (one barrier); every thread of a row then holds the same running max m and keeps its own
//   share of the row sum l (summed across the row once, at the end). P = exp(s − m) goes to workgroup memory as
//   vec4s over 4 queries.
// - phase B: O += P·V, V streamed PC rows at a time; a thread owns the same TQ rows × M vec4 columns of O in
//   registers for the whole walk, rescaled by exp(m_old − m_new) per tile.
// At the end O / l is written, and L = m + log l where the op asks for it. No subgroup path: WGSL promises neither
// a subgroup size ≥ PG nor a mapping of local_invocation_index onto subgroup lanes, and the workgroup-memory
// reduction costs one barrier per tile. Causal masks are top-left aligned (key j > query i masked). Opt-in
// (`FlashConfig.forward = 'gemm'`): flashAttention.ts chooses between this kernel and its row kernel.

import { type AttentionDims, rowIndex } from './attentionDims.js';
import type { DeviceCaps, KernelSpec } from './kernel.js';
import { checkWorkgroupMemory, f32Lit, header, u32Lit } from './wgsl.js';

/** The shape of a matmul-style forward workgroup. */
export interface GemmForwardConfig {
  /** Threads per workgroup. */
  readonly threads: number;
  /** Query rows per workgroup (BQ). */
  readonly queries: number;
  /** Key rows per tile (BK). */
  readonly keys: number;
  /** Query rows per thread (TQ, a multiple of 4): the register tile's height in both phases. */
  readonly rowsPerThread: number;
  /** Columns of D per staged chunk of K (KC; the largest of 128, 64, …, 4 not above it that divides D). */
  readonly chunk: number;
  /** Stage the workgroup's Q block once (D × BQ) instead of a chunk of it with every chunk of K. */
  readonly residentQ: boolean;
}

/**
 * The shipped shapes, first that fits (all opt-in, not timed yet: the bench's `forward gemm …` variants compare
 * them). At D = Dv = 64: 128 threads over 64 × 32 tiles with Q resident and D in one chunk (36 KiB of workgroup
 * memory, within Dawn's 48 KiB on the H100); 256 threads over 64 × 64 with Q streamed 16 columns at a time (29 KiB,
 * within llvmpipe's 32 KiB); 64 threads over 32 × 32 streamed 8 at a time (7.3 KiB, within 16 KiB).
 */
export const GEMM_FORWARD_CONFIGS: readonly GemmForwardConfig[] = [
  { threads: 128, queries: 64, keys: 32, rowsPerThread: 4, chunk: 64, residentQ: true },
  { threads: 256, queries: 64, keys: 64, rowsPerThread: 4, chunk: 16, residentQ: false },
  { threads: 64, queries: 32, keys: 32, rowsPerThread: 4, chunk: 8, residentQ: false },
];

/** What a forward kernel writes: attention's output, the log-sum-exp per query row, or both. */
export interface GemmForwardWrites {
  readonly out: boolean;
  readonly lse: boolean;
}

/** The derived tiling of a configuration at these dimensions (undefined: the configuration does not divide them). */
interface Tiling {
  /** Query groups (threads along the queries); a thread's queries are 4·(ag + AG·v) + i. */
  readonly AG: number;
  /** Key groups in phase A (= column lanes in phase B); a thread's keys are 4·(pg + PG·w) + j. */
  readonly PG: number;
  /** Key vec4 groups per thread in phase A (TK = 4·TW keys). */
  readonly TW: number;
  /** The reduction chunk along D (divides D). */
  readonly KC: number;
  /** Key rows of V per phase-B chunk (divides BK; 0 when the output is not written). */
  readonly PC: number;
  /** vec4s of each workgroup array: the resident Q block, the staging area, P, the row partials. */
  readonly qs: number;
  readonly stg: number;
  readonly pss: number;
  readonly red: number;
}

const CHUNKS = [128, 64, 32, 16, 8, 4];

function tilingOf(dm: AttentionDims, writes: GemmForwardWrites, cfg: GemmForwardConfig): Tiling | undefined {
  const { threads: T, queries: BQ, keys: BK, rowsPerThread: TQ } = cfg;
  if (TQ % 4 !== 0 || BQ % TQ !== 0 || BK % 4 !== 0 || T % (BQ / TQ) !== 0 || dm.d % 4 !== 0 || dm.dv % 4 !== 0) return undefined;
  const AG = BQ / TQ;
  const PG = T / AG;
  if ((BK / 4) % PG !== 0) return undefined;
  const KC = CHUNKS.find((c) => c <= cfg.chunk && dm.d % c === 0);
  if (!KC) return undefined;
  const stageA = (cfg.residentQ ? 0 : KC * (BQ / 4 + 1)) + KC * (BK / 4 + 1);
  const V4 = writes.out ? dm.dv / 4 : 0;
  // phase B's key chunk: the largest dividing BK that the staging area already holds, or up to the configured chunk
  const PC = V4 === 0 ? 0 : CHUNKS.find((c) => BK % c === 0 && (c * V4 <= stageA || c <= cfg.chunk));
  if (PC === undefined) return undefined;
  return { AG, PG, TW: BK / 4 / PG, KC, PC, qs: cfg.residentQ ? dm.d * (BQ / 4 + 1) : 0, stg: Math.max(stageA, PC * V4), pss: V4 === 0 ? 0 : (BQ * BK) / 4, red: PG * (BQ / 4) };
}

/** Bytes of workgroup memory the kernel needs (undefined where the configuration does not divide these dimensions). */
export function gemmForwardSmem(dm: AttentionDims, writes: GemmForwardWrites, cfg: GemmForwardConfig): number | undefined {
  const t = tilingOf(dm, writes, cfg);
  return t && (t.qs + t.stg + t.pss + t.red) * 16;
}

/** Whether the kernel runs on these caps and dimensions with this shape. */
export function gemmForwardFits(dm: AttentionDims, writes: GemmForwardWrites, caps: DeviceCaps, cfg: GemmForwardConfig): boolean {
  const smem = gemmForwardSmem(dm, writes, cfg);
  return smem !== undefined && cfg.threads <= caps.maxComputeInvocationsPerWorkgroup && cfg.threads <= caps.maxComputeWorkgroupSizeX && smem <= caps.maxComputeWorkgroupStorageSize;
}

/** `cfg` if given and it fits, else the first shipped shape that fits (none: the row kernel runs). */
export function chooseGemmForward(dm: AttentionDims, writes: GemmForwardWrites, caps: DeviceCaps, cfg?: GemmForwardConfig): GemmForwardConfig | undefined {
  return (cfg ? [cfg] : GEMM_FORWARD_CONFIGS).find((c) => gemmForwardFits(dm, writes, caps, c));
}

/** One array's share of a staging loop: its work items and the WGSL that stages item `e`. */
interface StagePart {
  readonly n: number;
  readonly body: string;
}

const MASKED = '-3.0e38';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const plus = (base: string, off: number) => (off === 0 ? base : `${base} + ${u32Lit(off)}`);

/**
 * WGSL of the forward. Bindings as the row kernel's: q, k, then v and the output when it writes the output, then
 * the log-sum-exp when it writes that (binding 2 without the output). Returns threads and query rows a workgroup.
 */
export function gemmForwardCode(spec: KernelSpec, caps: DeviceCaps, dm: AttentionDims, causal: boolean, scale: number, writes: GemmForwardWrites, cfg: GemmForwardConfig): { code: string; wg: number; rows: number } {
  const t = tilingOf(dm, writes, cfg);
  if (!t) throw new Error(`gemmForwardCode: configuration ${JSON.stringify(cfg)} does not divide D = ${dm.d}, Dv = ${dm.dv}`);
  const { tq, tk, d } = dm;
  const { threads: WG, queries: BQ, keys: BK, rowsPerThread: TQ, residentQ } = cfg;
  const { AG, PG, TW, KC, PC } = t;
  const out = writes.out;
  const dv = out ? dm.dv : 0;
  const AV = TQ / 4;
  const KC4 = KC / 4;
  const [BQ4, BK4, D4, V4] = [BQ / 4, BK / 4, d / 4, dv / 4];
  const M = Math.ceil(V4 / PG);
  const sc = f32Lit(scale);
  const smem = (t.qs + t.stg + t.pss + t.red) * 16;
  checkWorkgroupMemory(spec, smem, caps);
  const decl = [
    '@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;',
    '@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;',
    ...(out ? ['@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;', '@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;'] : []),
    ...(writes.lse ? [`@group(0) @binding(${out ? 4 : 2}) var<storage, read_write> lse: array<f32>;`] : []),
  ].join('\n');
  // staging parts share one loop over the workgroup (each part's items in its own range), so every thread loads
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
  // `cols4` vec4 columns from `col4` of rows [first, first + rows) of `src` into `arr` from `off`, transposed
  // ([column][rows / 4 + 1]): a thread loads one vec4 column group of 4 rows and stores it as 4 vec4s over those rows
  const stageT = (arr: string, src: 'q' | 'k', rows: number, first: string, total: number, cols4: number, col4: number, off: number): StagePart => {
    const stride = rows / 4 + 1;
    const load = (i: number) => `var v${i} = vec4<f32>(); if (${first} + r + ${u32Lit(i)} < ${u32Lit(total)}) { v${i} = ${src}[${rowIndex(dm, `${first} + r + ${u32Lit(i)}`, total, src)} * ${u32Lit(D4)} + ${plus('c', col4)}]; }`;
    return {
      n: (rows / 4) * cols4,
      body: `let r = (e / ${u32Lit(cols4)}) * 4u;
        let c = e % ${u32Lit(cols4)};
        ${range(4).map(load).join('\n        ')}
        let at = ${off > 0 ? `${u32Lit(off)} + ` : ''}c * ${u32Lit(4 * stride)} + r / 4u;
        ${range(4)
          .map((i) => `${arr}[${plus('at', i * stride)}] = vec4<f32>(v0.${'xyzw'[i]}, v1.${'xyzw'[i]}, v2.${'xyzw'[i]}, v3.${'xyzw'[i]});`)
          .join(' ')}`,
    };
  };
  // a thread's queries: vec4 groups ag + AG·v (queries 4·group + i); keys: vec4 groups pg + PG·w (4·group + j)
  const aGroup = (v: number) => (v === 0 ? 'ag' : `ag + ${u32Lit(AG * v)}`);
  const pGroup = (w: number) => (w === 0 ? 'pg' : `pg + ${u32Lit(PG * w)}`);
  const kLocal = (w: number, j: number) => `4u * (${pGroup(w)})${j > 0 ? ` + ${u32Lit(j)}` : ''}`;
  const qStride = BQ4 + 1;
  const kOff = residentQ ? 0 : KC * qStride; // K's chunk in stg (after Q's chunk when Q streams)

  // phase A: D in chunks of KC columns (unrolled here: a barrier between chunks, none before the first, since the
  // tile's previous phase B ended with one)
  const phaseA = range(D4 / KC4)
    .map((ch) => {
      const col4 = ch * KC4;
      const stage = stageParts([...(residentQ ? [] : [stageT('stg', 'q', BQ, 'b0', tq, KC4, col4, 0)]), stageT('stg', 'k', BK, 't0', tk, KC4, col4, kOff)]);
      const qAt = residentQ ? `(${plus('kk', 4 * col4)}) * ${u32Lit(qStride)}` : `kk * ${u32Lit(qStride)}`;
      return `${ch > 0 ? 'workgroupBarrier();\n    ' : ''}${stage}
    workgroupBarrier();
    for (var kk = 0u; kk < ${u32Lit(KC)}; kk = kk + 1u) {
      ${range(AV).map((v) => `let qa${v} = ${residentQ ? 'qs' : 'stg'}[${qAt} + ${aGroup(v)}];`).join(' ')}
      ${range(TW).map((w) => `let kb${w} = stg[${plus(`kk * ${u32Lit(BK4 + 1)}`, kOff)} + ${pGroup(w)}];`).join(' ')}
      ${range(AV)
        .flatMap((v) => range(TW).flatMap((w) => range(4).map((j) => `s${v}_${w}_${j} = fma(qa${v}, vec4<f32>(kb${w}.${'xyzw'[j]}), s${v}_${w}_${j});`)))
        .join('\n      ')}
    }`;
    })
    .join('\n    ');
  const sDecl = range(AV)
    .flatMap((v) => range(TW).flatMap((w) => range(4).map((j) => `var s${v}_${w}_${j} = vec4<f32>();`)))
    .join(' ');
  const sAll = (v: number) => range(TW).flatMap((w) => range(4).map((j) => `s${v}_${w}_${j}`));
  const maxOf = (xs: string[]): string => (xs.length === 1 ? xs[0] : `max(${maxOf(xs.slice(0, xs.length >> 1))}, ${maxOf(xs.slice(xs.length >> 1))})`);
  // scores: scaled, MASKED past Tk and (causal) past the query; the tile's row maxima to `red` by key group
  const mask = range(AV)
    .map((v) => {
      const lines = range(TW).flatMap((w) =>
        range(4).map((j) => {
          const ok = [`vec4<bool>(kt < ${u32Lit(tk)})`, ...(causal ? [`(vec4<u32>(kt) <= av${v})`] : [])].join(' & ');
          return `{ let kt = t0 + ${kLocal(w, j)}; s${v}_${w}_${j} = select(vec4<f32>(${MASKED}), s${v}_${w}_${j} * ${sc}, ${ok}); }`;
        }),
      );
      return `${causal ? `let av${v} = vec4<u32>(b0 + 4u * (${aGroup(v)})) + vec4<u32>(0u, 1u, 2u, 3u);\n    ` : ''}${lines.join('\n    ')}
    red[pg * ${u32Lit(BQ4)} + ${aGroup(v)}] = ${maxOf(sAll(v))};`;
    })
    .join('\n    ');
  // the running max over the row's key groups, the rescale of l and O, then P (exactly 0 where masked) and l's share
  const softmax = range(AV)
    .map((v) => {
      const at = (g: number) => `red[${u32Lit(g * BQ4)} + ${aGroup(v)}]`;
      const rescaleO = range(4)
        .flatMap((i) => range(M).map((mm) => `o${4 * v + i}_${mm} = o${4 * v + i}_${mm} * al${v}.${'xyzw'[i]};`))
        .join(' ');
      const probs = range(TW).flatMap((w) =>
        range(4).map((j) => {
          const s = `s${v}_${w}_${j}`;
          return `{ let p = select(vec4<f32>(), exp(${s} - mn${v}), ${s} != vec4<f32>(${MASKED})); l${v} = l${v} + p;${out ? ` pss[(${kLocal(w, j)}) * ${u32Lit(BQ4)} + ${aGroup(v)}] = p;` : ''} }`;
        }),
      );
      return `{
      let mn${v} = ${maxOf([`m${v}`, ...range(PG).map(at)])};
      let al${v} = exp(m${v} - mn${v});
      m${v} = mn${v};
      l${v} = l${v} * al${v};
      ${out ? rescaleO : ''}
      ${probs.join('\n      ')}
    }`;
    })
    .join('\n    ');
  // phase B: O rows 4·(ag + AG·v) + i × vec4 columns pg + PG·m, V staged PC rows at a time after P (no barrier
  // before the first chunk: every thread is past the scores' barrier, so no one reads K from stg any more)
  const colOf = (mm: number) => (mm === 0 ? 'pg' : `pg + ${u32Lit(PG * mm)}`);
  const phaseB = out
    ? range(BK / PC)
        .map((ch) => {
          const p0 = ch * PC;
          const stage = stageParts([
            {
              n: PC * V4,
              body: `let r = e / ${u32Lit(V4)};
        var val = vec4<f32>();
        if (${plus('t0', p0)} + r < ${u32Lit(tk)}) { val = v[${rowIndex(dm, `${plus('t0', p0)} + r`, tk, 'v')} * ${u32Lit(V4)} + e % ${u32Lit(V4)}]; }
        stg[e] = val;`,
            },
          ]);
          const acc = range(M)
            .map((mm) => {
              const guard = PG * (mm + 1) > V4 ? `if (${colOf(mm)} < ${u32Lit(V4)}) ` : '';
              const body = range(TQ)
                .map((r) => `o${r}_${mm} = fma(vec4<f32>(wp${Math.floor(r / 4)}.${'xyzw'[r % 4]}), vr, o${r}_${mm});`)
                .join(' ');
              return `${guard}{ let vr = stg[p * ${u32Lit(V4)} + ${colOf(mm)}]; ${body} }`;
            })
            .join('\n        ');
          return `${ch > 0 ? 'workgroupBarrier();\n    ' : ''}${stage}
    workgroupBarrier();
    for (var p = 0u; p < ${u32Lit(PC)}; p = p + 1u) {
      ${range(AV).map((v) => `let wp${v} = pss[(${plus('p', p0)}) * ${u32Lit(BQ4)} + ${aGroup(v)}];`).join(' ')}
      ${acc}
    }`;
        })
        .join('\n    ')
    : '';
  const oDecl = range(TQ)
    .flatMap((r) => range(M).map((mm) => `var o${r}_${mm} = vec4<f32>();`))
    .join(' ');
  // the end: l's shares summed across the row (after a barrier: others may still read the last tile's maxima), then
  // O / l and L = m + log l (written by the row's first key group)
  const finish = range(AV)
    .map((v) => {
      const rows = range(4).map((i) => {
        const a = `b0 + 4u * (${aGroup(v)}) + ${u32Lit(i)}`;
        const c = 'xyzw'[i];
        const ys = range(M).map((mm) => {
          const guard = PG * (mm + 1) > V4 ? `if (${colOf(mm)} < ${u32Lit(V4)}) ` : '';
          return `${guard}{ y[${rowIndex(dm, 'a', tq, 'y')} * ${u32Lit(V4)} + ${colOf(mm)}] = o${4 * v + i}_${mm} * inv${v}.${c}; }`;
        });
        return `{
      let a = ${a};
      if (a < ${u32Lit(tq)}) {
        ${writes.lse ? `if (pg == 0u) { lse[${rowIndex(dm, 'a', tq)}] = m${v}.${c} + log(lt${v}.${c}); }` : ''}
        ${out ? ys.join(' ') : ''}
      }
    }`;
      });
      return `let lt${v} = ${range(PG)
        .map((g) => `red[${u32Lit(g * BQ4)} + ${aGroup(v)}]`)
        .join(' + ')};
    ${out ? `let inv${v} = 1.0 / lt${v};` : ''}
    ${rows.join('\n    ')}`;
    })
    .join('\n    ');
  const what = out ? (writes.lse ? 'forward and log-sum-exp' : 'forward') : 'log-sum-exp';
  const code = `${header(spec, `flash attention ${what}, register-tiled matmuls: a workgroup of ${WG} per (head, ${BQ} query rows), key tiles of ${BK}, ${TQ}x${4 * TW} thread tiles, D streamed ${KC} at a time${residentQ ? ', Q resident' : ''}${out ? `, V ${PC} rows at a time` : ''}${causal ? ', causal tiles skipped' : ''}`)}${decl}

${residentQ ? `var<workgroup> qs: array<vec4<f32>, ${t.qs}>;\n` : ''}var<workgroup> stg: array<vec4<f32>, ${t.stg}>;
${out ? `var<workgroup> pss: array<vec4<f32>, ${t.pss}>;\n` : ''}var<workgroup> red: array<vec4<f32>, ${t.red}>;

@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let b0 = wid.x * ${u32Lit(BQ)};
  let ag = lid % ${u32Lit(AG)};
  let pg = lid / ${u32Lit(AG)};
  ${residentQ ? stageParts([stageT('qs', 'q', BQ, 'b0', tq, D4, 0, 0)]) : ''}
  ${range(AV)
    .map((v) => `var m${v} = vec4<f32>(${MASKED}); var l${v} = vec4<f32>();`)
    .join(' ')}
  ${oDecl}
  let tend = ${causal ? `min(b0 + ${u32Lit(BQ)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var t0 = 0u; t0 < tend; t0 = t0 + ${u32Lit(BK)}) {
    ${sDecl}
    ${phaseA}
    ${mask}
    workgroupBarrier();
    ${softmax}
    ${phaseB}
    ${out ? 'workgroupBarrier();' : ''}
  }
  workgroupBarrier();
  ${range(AV)
    .map((v) => `red[pg * ${u32Lit(BQ4)} + ${aGroup(v)}] = l${v};`)
    .join(' ')}
  workgroupBarrier();
  ${finish}
}
`;
  return { code, wg: WG, rows: BQ };
}

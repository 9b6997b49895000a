// Reductions `sum`, `mean`, `reduceMax`, `reduceMin` over any normalised axes (keepdims only changes the shape,
// not the order). Axes are first merged (extent-1 axes dropped, neighbours of the same kind fused), then one of:
// rows (reduce the contiguous trailing block: a workgroup per output, shared-memory tree), columns (reduce a
// leading block of [C, R]: a thread per output walking rows, coalesced; or, for long columns, a workgroup per strip
// of COLUMN_STRIP columns walking every row, its lanes summed by a fixed tree: one pass), outer-kept-inner ([A, K, B] → [K], e.g.
// per-channel statistics of NCHW: rows over B into scratch, then a thread per output over A), or general (a thread
// per output over baked strides). Rows and columns split long reductions with few outputs into two passes through a scratch
// buffer of partials (pass 1: many workgroups each reduce a chunk; pass 2: reduce the partials), so `sum` over
// 1e6 elements does not run in one workgroup; columns split only where strips would be too few (ir's columnsPath).
// Every path sums in a fixed order (deterministic: no atomics). Accumulates in f32 (the interpreter sums in f64: rounding only).

import { COLUMN_CHUNK, COLUMN_STRIP, columnsPath, mergeReduceAxes, numel, ROWS_PATH_MIN, type ReduceOp, reduceSplit } from '@neura/ir';
import type { DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, type BufferVar, perElementDispatch, perElementMain, perWorkgroupMain, planOf, scratchVar, shaderDispatch } from './shader.js';
import { ceilPow2, checkWorkgroupMemory, f32Lit, indent, indexMath, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** Elements one pass-1 workgroup reduces when a rows reduction is split. */
export const ROW_CHUNK = 4096;
/** Chunk count for splitting `len` elements about `chunks` ways so that no chunk is empty. */
const nonEmptyChunks = (len: number, chunks: number) => Math.ceil(len / Math.ceil(len / chunks));

type Kind = ReduceOp;

/**
 * Where a reduction's elements come from: the bound operand buffers, `read(index)` (the f32 value of element
 * `index`, flat row-major, of the reduced tensor) and the module-scope functions it calls. A plain reduction reads
 * buffer `x`; a fused one (pointwiseReduce.ts) computes its prologue per element.
 */
export interface ReduceSource {
  readonly buffers: readonly BufferVar[];
  readonly read: (index: string) => string;
  readonly decls: readonly string[];
  /** The values are a plain f32 buffer bound as `x` (so the columns path may load four at once). */
  readonly plain: boolean;
}

/** What a reduction does with each reduced value before storing it: the statements (`decls`) and the call. */
export interface ReduceFinish {
  readonly decls: readonly string[];
  readonly apply: (value: string) => string;
}

const treeOf = (kind: Kind) => (kind === 'reduceMax' ? 'max' : kind === 'reduceMin' ? 'min' : 'sum');
const combineOf = (kind: Kind) => (acc: string, v: string) => (kind === 'reduceMax' ? `max(${acc}, ${v})` : kind === 'reduceMin' ? `min(${acc}, ${v})` : `${acc} + ${v}`);

/**
 * A rows kernel: workgroup `row` reduces `len` contiguous elements of `src` starting at row * stride (chunk
 * p of row r when `chunks` > 1: elements [p*len, min((p+1)*len, rowLen)) of row r, written to dst[r*chunks + p]).
 */
function rowsDispatch(
  spec: KernelSpec,
  caps: DeviceCaps,
  kind: Kind,
  o: {
    label: string;
    strategy: string;
    buffers: readonly BufferVar[];
    read: (index: string) => string;
    dst: string;
    decls?: readonly string[];
    rows: number;
    rowLen: number;
    chunks: number;
    finish: (acc: string) => string;
    /** Stores workgroup `w`'s total (default: dst[w] = finish(total)). */
    store?: (w: string, total: string) => string;
  },
): Dispatch {
  const chunkLen = Math.ceil(o.rowLen / o.chunks);
  // about 8 elements per thread (at least 32 threads): a 384-wide row (layer-norm statistics) takes 64 threads with
  // six loads in flight each instead of 256 threads with one or two and a deeper barrier tree
  const wg = Math.min(linearWorkgroupSize(caps), Math.max(32, ceilPow2(Math.ceil(chunkLen / 8))), ceilPow2(chunkLen));
  const g = linearGrid(spec, o.rows * o.chunks, caps);
  const { read, dst } = o;
  const combine = combineOf(kind);
  const span =
    o.chunks === 1
      ? `let base = w * ${u32Lit(o.rowLen)};
let end = base + ${u32Lit(o.rowLen)};`
      : `let base = (w / ${u32Lit(o.chunks)}) * ${u32Lit(o.rowLen)} + (w % ${u32Lit(o.chunks)}) * ${u32Lit(chunkLen)};
let end = min(base + ${u32Lit(chunkLen)}, (w / ${u32Lit(o.chunks)} + 1u) * ${u32Lit(o.rowLen)});`;
  const body = `${span}
var acc = ${kind === 'reduceMax' || kind === 'reduceMin' ? read('base') : '0.0'};
for (var j = base + lid; j < end; j = j + ${u32Lit(wg)}) { acc = ${combine('acc', read('j'))}; }
let total = wg_${treeOf(kind)}(acc, lid);
${o.store ? `if (lid == 0u) {\n${indent(o.store('w', 'total'))}\n}` : `if (lid == 0u) { ${dst}[w] = ${o.finish('total')}; }`}`;
  const main = perWorkgroupMain(wg, g.index, 'ROWS', body, 'w');
  const decls = [`const ROWS = ${u32Lit(o.rows * o.chunks)};`, ...(o.decls ?? [])];
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls, main, workgroupSize: wg, grid: g.grid });
}

/**
 * Split columns, pass 1: thread (o4, p) reduces rows [p·CH, (p+1)·CH) of `w` adjacent columns (vec4 when the
 * row length is a multiple of 4) with four independent loads in flight, and writes its partials transposed,
 * part[col · chunks + p], so that pass 2 is a rows reduction (a workgroup per output, contiguous partials).
 * With several sibling reductions (`reads`, one per result; scalar columns), result j's partials follow at
 * part[(j · cols + col) · chunks + p]: the operands they share are loaded once per element.
 */
function columnPartialsDispatch(
  spec: KernelSpec,
  caps: DeviceCaps,
  kind: Kind,
  o: { label: string; source: ReduceSource; part: BufferVar; cols: number; rows: number; chunks: number; reads?: readonly ((index: string) => string)[] },
): Dispatch {
  const reads = o.reads ?? [o.source.read];
  const w = o.source.plain && reads.length === 1 && o.cols % 4 === 0 ? 4 : 1;
  const ty = w === 4 ? 'vec4<f32>' : 'f32';
  const units = o.cols / w;
  const wg = linearWorkgroupSize(caps);
  const threads = units * o.chunks;
  const g = linearGrid(spec, Math.ceil(threads / wg), caps);
  const ch = Math.ceil(o.rows / o.chunks);
  const combine = combineOf(kind);
  const at = (row: string) => `${row} * ${u32Lit(units)} + o4`;
  const zero = kind === 'sum' || kind === 'mean';
  const member = (j: number, read: (index: string) => string) => {
    const r = w === 4 ? (i: string) => `x[${i}]` : read;
    const a = (q: number) => (reads.length === 1 ? `a${q}` : `a${j}_${q}`); // one reduction: its usual names
    return {
      init: `var ${a(0)} = ${r(at('i0'))};
${zero ? `var ${a(1)} = ${ty}(); var ${a(2)} = ${ty}(); var ${a(3)} = ${ty}();` : `var ${a(1)} = ${a(0)}; var ${a(2)} = ${a(0)}; var ${a(3)} = ${a(0)};`}`,
      step4: [0, 1, 2, 3].map((q) => `  ${a(q)} = ${combine(a(q), r(at(q === 0 ? 'i' : `(i + ${q}u)`)))};`).join('\n'),
      step1: `${a(0)} = ${combine(a(0), r(at('i')))};`,
      acc: combine(combine(a(0), a(1)), combine(a(2), a(3))),
    };
  };
  const ms = reads.map((r, j) => member(j, r));
  const base = (j: number) => (j === 0 ? '' : `${u32Lit(j * o.cols)} + `);
  const acc = (j: number) => (reads.length === 1 ? 'acc' : `acc${j}`);
  const stores =
    w === 4
      ? ['x', 'y', 'z', 'w'].map((c, q) => `part[(o4 * 4u + ${u32Lit(q)}) * ${u32Lit(o.chunks)} + p] = acc.${c};`).join(' ')
      : ms.map((_, j) => `part[${j === 0 ? 'o4' : `(${base(j)}o4)`} * ${u32Lit(o.chunks)} + p] = ${acc(j)};`).join('\n');
  const body = `let o4 = t % ${u32Lit(units)};
let p = t / ${u32Lit(units)};
let i0 = p * ${u32Lit(ch)};
let i1 = min(i0 + ${u32Lit(ch)}, ${u32Lit(o.rows)});
${ms.map((m) => m.init).join('\n')}
var i = i0 + 1u;
for (; i + 3u < i1; i = i + 4u) {
${ms.map((m) => m.step4).join('\n')}
}
for (; i < i1; i = i + 1u) { ${ms.map((m) => m.step1).join(' ')} }
${ms.map((m, j) => `let ${acc(j)} = ${m.acc};`).join('\n')}
${stores}`;
  const inputs = w === 4 ? o.source.buffers.map((b) => ({ ...b, element: ty })) : o.source.buffers;
  return shaderDispatch(spec, {
    label: o.label,
    strategy: `columns, pass 1 of 2: a thread per (${w === 4 ? 'vec4 of outputs' : 'output'}, chunk of ${ch} rows), ${o.chunks} chunks, four loads in flight${reads.length > 1 ? ` for each of ${reads.length} reductions` : ''}, partials transposed into scratch`,
    buffers: [...inputs, o.part],
    decls: o.source.decls,
    main: perElementMain(wg, g.index, u32Lit(threads), body, 't'),
    workgroupSize: wg,
    grid: g.grid,
  });
}

/** Geometry of the one-pass columns kernel: columns per workgroup (a multiple of 4 or 1 below) and its threads. */
export interface ColumnStripsConfig {
  /** Columns per workgroup. */
  readonly strip: number;
  /** Threads per workgroup. */
  readonly threads: number;
}

/** The shipped geometry: ir's COLUMN_STRIP (the rule that picks this path counts strips of it), 1024 threads. */
export const COLUMN_STRIPS: ColumnStripsConfig = { strip: COLUMN_STRIP, threads: 1024 };

/** How a columns reduction runs: ir's rule (`columnsPath`), or a form forced by the bench (`strips`/`split`). */
export interface ColumnsForm {
  /** Force the one-pass strips or the two-pass split form (default: ir's rule decides). */
  readonly form?: 'strips' | 'split';
  /** The strips geometry (default COLUMN_STRIPS). */
  readonly strips?: ColumnStripsConfig;
}

/** One result of a strips kernel: its elements, its buffer and what is stored (the mean's division included). */
interface StripMember {
  readonly read: (index: string) => string;
  readonly out: BufferVar;
  readonly finish: (acc: string) => string;
}

/**
 * Columns in one pass: workgroup s owns `strip` adjacent columns (vec4 lanes when the values are one plain buffer
 * and the width is a multiple of 4) of [rows, cols]; its threads are (column lane, row lane), each row lane walks
 * rows rl, rl + RL, … with four accumulators (four loads in flight), then the row lanes of each column are summed
 * by a fixed shared-memory tree (deterministic). Several members (sibling reductions of shared operands) are
 * reduced side by side and each stored to its own buffer in the same dispatch. Lanes past the last column load a
 * clamped column and store nothing.
 */
function columnStripsDispatch(
  spec: KernelSpec,
  caps: DeviceCaps,
  kind: Kind,
  o: { label: string; buffers: readonly BufferVar[]; decls: readonly string[]; plain: boolean; members: readonly StripMember[]; cols: number; rows: number; cfg: ColumnStripsConfig },
): Dispatch {
  const k = o.members.length;
  const vec = o.plain && k === 1 && o.cols % 4 === 0 && o.cfg.strip % 4 === 0;
  const ty = vec ? 'vec4<f32>' : 'f32';
  const lanes = vec ? o.cfg.strip / 4 : o.cfg.strip;
  const units = vec ? o.cols / 4 : o.cols;
  const limit = linearWorkgroupSize(caps, o.cfg.threads);
  if (lanes > limit || ceilPow2(lanes) !== lanes) kernelError(spec, `column strips of ${o.cfg.strip} need a power-of-two lane count up to the workgroup size ${limit}`);
  // no more row lanes than rows (rounded up to a power of two), and the tree's memory within the device's
  let threads = Math.max(lanes, Math.min(limit, lanes * ceilPow2(o.rows)));
  while (threads > lanes && threads * k * (vec ? 16 : 4) > caps.maxComputeWorkgroupStorageSize) threads /= 2;
  checkWorkgroupMemory(spec, threads * k * (vec ? 16 : 4), caps);
  const rl = threads / lanes;
  const strips = Math.ceil(units / lanes);
  const g = linearGrid(spec, strips, caps);
  const combine = combineOf(kind);
  const zero = kind === 'sum' || kind === 'mean';
  const at = (row: string) => `${row} * ${u32Lit(units)} + c`;
  const readOf = (m: StripMember) => (vec ? (i: string) => `x[${i}]` : m.read);
  const lines: string[] = [];
  o.members.forEach((m, j) => {
    const r = readOf(m);
    const a = (q: number) => `a${j}_${q}`;
    const init = zero ? `${ty}()` : r(at('0u')); // max/min: row 0 is in the set
    lines.push(`var ${a(0)} = ${init}; var ${a(1)} = ${a(0)}; var ${a(2)} = ${a(0)}; var ${a(3)} = ${a(0)};`);
  });
  const step4 = o.members.flatMap((m, j) => [0, 1, 2, 3].map((q) => `  a${j}_${q} = ${combine(`a${j}_${q}`, readOf(m)(at(q === 0 ? 'r' : `(r + ${u32Lit(q * rl)})`)))};`));
  const step1 = o.members.map((m, j) => `a${j}_0 = ${combine(`a${j}_0`, readOf(m)(at('r')))};`);
  const slot = (j: number, off = '') => `strip[${j === 0 ? '' : `${u32Lit(j * threads)} + `}lid${off}]`;
  const stores = o.members.map((m, j) =>
    vec
      ? ['x', 'y', 'z', 'w'].map((q, i) => `${m.out.name}[c * 4u + ${u32Lit(i)}] = ${m.finish(`v.${q}`)};`).join(' ')
      : `${m.out.name}[c] = ${m.finish(slot(j))};`,
  );
  const body = `let lane = lid % ${u32Lit(lanes)};
let rl = lid / ${u32Lit(lanes)};
let u = s * ${u32Lit(lanes)} + lane;
let c = min(u, ${u32Lit(units - 1)});
${lines.join('\n')}
var r = rl;
for (; r + ${u32Lit(3 * rl)} < ${u32Lit(o.rows)}; r = r + ${u32Lit(4 * rl)}) {
${step4.join('\n')}
}
for (; r < ${u32Lit(o.rows)}; r = r + ${u32Lit(rl)}) { ${step1.join(' ')} }
${o.members.map((_, j) => `${slot(j)} = ${combine(combine(`a${j}_0`, `a${j}_1`), combine(`a${j}_2`, `a${j}_3`))};`).join('\n')}
workgroupBarrier();
for (var h = ${u32Lit(Math.floor(rl / 2))}; h > 0u; h = h >> 1u) {
  if (rl < h) {
${o.members.map((_, j) => `    ${slot(j)} = ${combine(slot(j), slot(j, ` + h * ${u32Lit(lanes)}`))};`).join('\n')}
  }
  workgroupBarrier();
}
if (rl == 0u && u < ${u32Lit(units)}) {
${vec ? `  let v = ${slot(0)};\n` : ''}${stores.map((x) => `  ${x}`).join('\n')}
}`;
  const inputs = vec ? o.buffers.map((b) => ({ ...b, element: ty })) : o.buffers;
  return shaderDispatch(spec, {
    label: o.label,
    strategy: `columns, one pass: a workgroup per strip of ${o.cfg.strip} columns (${strips} strips, ${vec ? 'vec4' : 'scalar'} lanes) walks all ${o.rows} rows with ${rl} row lanes, four loads in flight, then a fixed tree${k > 1 ? `, ${k} reductions side by side` : ''}`,
    buffers: [...inputs, ...o.members.map((m) => m.out)],
    decls: [`var<workgroup> strip: array<${ty}, ${threads * k}>;`, ...o.decls],
    main: perWorkgroupMain(threads, g.index, u32Lit(strips), body, 's'),
    workgroupSize: threads,
    grid: g.grid,
  });
}

/** `sum`, `mean`, `reduceMax`, `reduceMin`. */
export function reduceKernel(spec: KernelSpec<ReduceOp>, caps: DeviceCaps, columns: ColumnsForm = {}): KernelPlan {
  const { node } = spec;
  const { buffers } = bindOperands(spec, [0], ['x']);
  const source: ReduceSource = { buffers: [buffers[0]], read: (i) => `x[${i}]`, decls: [], plain: true };
  return reducePlan(spec, caps, node.op, { shape: spec.inputs[0].shape, axes: node.attrs.axes, source, out: buffers[1], columns });
}

/** The columns path of a reduction: ir's rule unless the bench forces one (only where ir's rule sees columns). */
function columnsFormOf(shape: readonly number[], axes: readonly number[], columns: ColumnsForm | undefined): 'strips' | 'split' | undefined {
  const path = columnsPath(shape, axes);
  return path && columns?.form ? columns.form : path;
}

/**
 * The plan of a reduction of kind `kind` over `axes` of a tensor of `shape` read through `source`, stored into
 * `out` (after `finish`, when given: an epilogue on each reduced value, after the mean's division).
 */
export function reducePlan(
  spec: KernelSpec,
  caps: DeviceCaps,
  kind: Kind,
  o: { shape: readonly number[]; axes: readonly number[]; source: ReduceSource; out: BufferVar; finish?: ReduceFinish; columns?: ColumnsForm },
): KernelPlan {
  const { node } = spec;
  const { axes, source } = o;
  const inShape = o.shape;
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * inShape[a], 1);
  if (R === 0) return EMPTY_PLAN;
  if (C === 0) kernelError(spec, 'reduces over an empty axis');
  const merged = mergeReduceAxes(inShape, axes);
  const label = labelOf(node, `${inShape.join('x') || 'scalar'}->${node.shape.join('x') || 'scalar'}`);
  const combine = combineOf(kind);
  const post = o.finish?.apply ?? ((v: string) => v);
  const finish = (acc: string) => post(kind === 'mean' ? `${acc} / ${f32Lit(C)}` : acc);
  const finishDecls = o.finish?.decls ?? [];
  const same = (acc: string) => acc;
  const pattern = merged.map((a) => (a.reduced ? 'r' : 'k')).join('');
  const y = o.out;
  const part = (access: 'read' | 'read_write') => scratchVar(0, 'part', access);
  const readPart = (i: string) => `part[${i}]`;
  const pass1 = { buffers: [...source.buffers, part('read_write')], read: source.read, dst: 'part', decls: source.decls };
  const pass2 = { buffers: [part('read'), y], read: readPart, dst: y.name, decls: finishDecls };

  // the path (one pass or two) is ir's `reduceSplit` and `columnsPath`, which the cost model counts dispatches by
  const split = reduceSplit(inShape, axes);
  const columns = columnsFormOf(inShape, axes, o.columns);
  if ((pattern === 'kr' || pattern === 'r') && C >= ROWS_PATH_MIN) {
    const chunks = split === 'rows' ? nonEmptyChunks(C, Math.ceil(C / ROW_CHUNK)) : 1;
    if (chunks === 1) {
      const d = rowsDispatch(spec, caps, kind, {
        label,
        strategy: `rows: a workgroup per output reduces ${C} contiguous elements (tree in shared memory)`,
        buffers: [...source.buffers, y],
        read: source.read,
        dst: y.name,
        decls: [...source.decls, ...finishDecls],
        rows: R,
        rowLen: C,
        chunks: 1,
        finish,
      });
      return planOf([d]);
    }
    const d1 = rowsDispatch(spec, caps, kind, { label: `${label}:partials`, strategy: `rows, pass 1 of 2: ${R}x${chunks} workgroups each reduce a chunk of ${Math.ceil(C / chunks)} into scratch`, ...pass1, rows: R, rowLen: C, chunks, finish: same });
    const d2 = rowsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `rows, pass 2 of 2: a workgroup per output reduces its ${chunks} partials`, ...pass2, rows: R, rowLen: chunks, chunks: 1, finish });
    return planOf([d1, d2], [R * chunks * 4]);
  }
  if (columns === 'strips') {
    const d = columnStripsDispatch(spec, caps, kind, {
      label,
      buffers: source.buffers,
      decls: [...source.decls, ...finishDecls],
      plain: source.plain,
      members: [{ read: source.read, out: y, finish }],
      cols: R,
      rows: C,
      cfg: o.columns?.strips ?? COLUMN_STRIPS,
    });
    return planOf([d]);
  }
  if (columns === 'split') {
    const chunks = nonEmptyChunks(C, Math.ceil(C / COLUMN_CHUNK));
    const d1 = columnPartialsDispatch(spec, caps, kind, { label: `${label}:partials`, source, part: part('read_write'), cols: R, rows: C, chunks });
    const d2 = rowsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `columns, pass 2 of 2: a workgroup per output reduces its ${chunks} contiguous partials (tree in shared memory)`, ...pass2, rows: R, rowLen: chunks, chunks: 1, finish });
    return planOf([d1, d2], [R * chunks * 4]);
  }

  if (split === 'outerKeptInner') {
    // per-channel statistics of [N, C, H, W] over N, H, W (BatchNorm and its gradients): the general path would
    // give C threads each walking N·H·W elements; instead rows over H·W, then each output walks its N partials
    const [A, K, B] = merged.map((a) => a.extent);
    const d1 = rowsDispatch(spec, caps, kind, { label: `${label}:rows`, strategy: `outer-kept-inner, pass 1 of 2: a workgroup per (outer, kept) reduces ${B} contiguous elements into scratch`, ...pass1, rows: A * K, rowLen: B, chunks: 1, finish: same });
    const wg2 = linearWorkgroupSize(caps, 64);
    const g2 = linearGrid(spec, Math.ceil(K / wg2), caps);
    const body2 = `var acc = part[o];
for (var i = 1u; i < ${u32Lit(A)}; i = i + 1u) { acc = ${combine('acc', `part[i * ${u32Lit(K)} + o]`)}; }
${y.name}[o] = ${finish('acc')};`;
    const d2 = shaderDispatch(spec, {
      label: `${label}:combine`,
      strategy: `outer-kept-inner, pass 2 of 2: a thread per output walks its ${A} partials (stride ${K})`,
      buffers: pass2.buffers,
      decls: finishDecls,
      main: perElementMain(wg2, g2.index, u32Lit(K), body2),
      workgroupSize: wg2,
      grid: g2.grid,
    });
    return planOf([d1, d2], [A * K * 4]);
  }

  const read = source.read;
  let body: string;
  let strategy: string;
  if (pattern === 'rk') {
    strategy = `columns: a thread per output walks ${C} rows of stride ${R} (coalesced)`;
    body = `var acc = ${read('o')};
for (var i = 1u; i < ${u32Lit(C)}; i = i + 1u) { acc = ${combine('acc', read(`i * ${u32Lit(R)} + o`))}; }`;
  } else {
    strategy = `general: a thread per output loops over ${C} reduced elements by baked strides (merged axes ${pattern})`;
    // strides of the merged axes in the input
    const ext = merged.map((a) => a.extent);
    const str = new Array<number>(ext.length);
    let acc = 1;
    for (let i = ext.length - 1; i >= 0; i--) {
      str[i] = acc;
      acc *= ext[i];
    }
    const kept = merged.map((a, i) => ({ ...a, stride: str[i] })).filter((a) => !a.reduced);
    const red = merged.map((a, i) => ({ ...a, stride: str[i] })).filter((a) => a.reduced);
    const outer = indexMath('o', kept.map((a) => a.extent), [kept.map((a) => a.stride)], ['base'], 'k');
    const inner = red.length ? indexMath('j', red.map((a) => a.extent), [red.map((a) => a.stride)], ['off'], 'q') : 'let off = 0u;';
    body = `${outer}
var acc = ${read('base')};
for (var j = 1u; j < ${u32Lit(C)}; j = j + 1u) {
${indent(inner)}
  acc = ${combine('acc', read('base + off'))};
}`;
  }
  const decls = [...source.decls, ...finishDecls];
  return planOf([perElementDispatch(spec, caps, { label, strategy, buffers: [...source.buffers, y], n: R, count: 'R', decls: decls.length ? decls : undefined, body: `${body}\n${y.name}[o] = ${finish('acc')};` })]);
}

/** One of several sibling reductions: its elements (`read`), where it is stored (none: unused) and its epilogue. */
export interface ReduceMember {
  readonly read: (index: string) => string;
  readonly out: BufferVar | undefined;
  readonly finish?: ReduceFinish;
}

/**
 * Sibling reductions of kind `kind` over the same `shape` and `axes`, their elements computed from the shared
 * operand `buffers` (`decls`: the functions the reads call). A columns reduction computes every member in one
 * strips pass, or (split) every member's partials in one pass and every member's combine in a second, each pass
 * reading the shared operands once and writing all results (distinct tensors: disjoint ranges even where they
 * share an arena buffer); any other path runs each member's plan in turn, sharing the scratch buffer.
 */
export function reduceMultiPlan(
  spec: KernelSpec,
  caps: DeviceCaps,
  kind: Kind,
  o: { shape: readonly number[]; axes: readonly number[]; buffers: readonly BufferVar[]; decls: readonly string[]; members: readonly ReduceMember[]; columns?: ColumnsForm },
): KernelPlan {
  const { node } = spec;
  const { shape, axes } = o;
  const members = o.members.filter((m): m is ReduceMember & { out: BufferVar } => m.out !== undefined);
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * shape[a], 1);
  if (R === 0 || members.length === 0) return EMPTY_PLAN;
  if (C === 0) kernelError(spec, 'reduces over an empty axis');
  const columns = columnsFormOf(shape, axes, o.columns);
  if (columns === undefined) {
    const plans = members.map((m) => reducePlan(spec, caps, kind, { shape, axes, source: { buffers: o.buffers, read: m.read, decls: o.decls, plain: false }, out: m.out, finish: m.finish }));
    return planOf(
      plans.flatMap((p) => p.dispatches),
      [Math.max(0, ...plans.map((p) => p.scratch[0] ?? 0))].filter((b) => b > 0),
    );
  }
  const k = members.length;
  const label = labelOf(node, `${shape.join('x')}->${node.shape.join('x')}x${k}`);
  const finishOf = (m: ReduceMember) => (v: string) => (m.finish?.apply ?? ((x: string) => x))(kind === 'mean' ? `${v} / ${f32Lit(C)}` : v);
  const finishDecls = members.flatMap((m) => m.finish?.decls ?? []);
  if (columns === 'strips') {
    const d = columnStripsDispatch(spec, caps, kind, {
      label,
      buffers: o.buffers,
      decls: [...o.decls, ...finishDecls],
      plain: false,
      members: members.map((m) => ({ read: m.read, out: m.out, finish: finishOf(m) })),
      cols: R,
      rows: C,
      cfg: o.columns?.strips ?? COLUMN_STRIPS,
    });
    return planOf([d]);
  }
  const chunks = nonEmptyChunks(C, Math.ceil(C / COLUMN_CHUNK));
  const source: ReduceSource = { buffers: o.buffers, read: members[0].read, decls: o.decls, plain: false };
  const d1 = columnPartialsDispatch(spec, caps, kind, { label: `${label}:partials`, source, part: scratchVar(0, 'part', 'read_write'), cols: R, rows: C, chunks, reads: members.map((m) => m.read) });
  // pass 2: workgroup w = j·R + o reduces output o of member j (its partials are contiguous at part[w·chunks])
  const store = (w: string, total: string) =>
    `let j = ${w} / ${u32Lit(R)};\nlet o = ${w} % ${u32Lit(R)};\n${members.map((m, j) => `if (j == ${u32Lit(j)}) { ${m.out.name}[o] = ${finishOf(m)(total)}; }`).join('\n')}`;
  const d2 = rowsDispatch(spec, caps, kind, {
    label: `${label}:combine`,
    strategy: `columns, pass 2 of 2: a workgroup per output of each of ${k} reductions reduces its ${chunks} contiguous partials (tree in shared memory)`,
    buffers: [scratchVar(0, 'part', 'read'), ...members.map((m) => m.out)],
    read: (i) => `part[${i}]`,
    dst: members[0].out.name,
    decls: finishDecls,
    rows: k * R,
    rowLen: chunks,
    chunks: 1,
    finish: (v) => v,
    store,
  });
  return planOf([d1, d2], [k * R * chunks * 4]);
}

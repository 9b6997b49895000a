// Reductions `sum`, `mean`, `reduceMax`, `reduceMin` over any normalised axes (keepdims only changes the shape,
// not the order). Axes are first merged (extent-1 axes dropped, neighbours of the same kind fused), then one of:
// rows (reduce the contiguous trailing block: a workgroup per output, shared-memory tree), columns (reduce a
// leading block of [C, R]: a thread per output walking rows, coalesced), or general (a thread per output over
// baked strides). Rows and columns split long reductions with few outputs into two passes through a scratch
// buffer of partials (pass 1: many workgroups each reduce a chunk; pass 2: reduce the partials), so `sum` over
// 1e6 elements does not run in one workgroup. Accumulates in f32 (the interpreter sums in f64: rounding only).

import { numel, type ReduceOp } from '@neura/ir';
import type { Binding, DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { bindOperands, ceilPow2, declareBindings, f32Lit, header, indent, indexMath, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit, workgroupReduceFns } from './wgsl.js';

/** Reduced extents at least this long use a workgroup per output (rows path); shorter ones a thread per output. */
export const ROWS_PATH_MIN = 64;

/** Rows path: with fewer outputs than this, a row of at least SPLIT_MIN_ROW elements is split in chunks. */
export const SPLIT_MAX_ROWS = 128;
/** Shortest row the rows path splits. */
export const SPLIT_MIN_ROW = 8192;
/** Elements one pass-1 workgroup reduces when a rows reduction is split. */
export const ROW_CHUNK = 4096;
/** Rows one pass-1 thread reduces when a columns reduction is split. */
export const COLUMN_CHUNK = 256;
/** Columns path: with fewer outputs than this, a reduction over at least 2·COLUMN_CHUNK rows is split. */
export const SPLIT_MAX_COLUMNS = 16384;

/** Chunk count for splitting `len` elements about `chunks` ways so that no chunk is empty. */
const nonEmptyChunks = (len: number, chunks: number) => Math.ceil(len / Math.ceil(len / chunks));

type Kind = 'sum' | 'mean' | 'reduceMax' | 'reduceMin';

/** Merged axes of a reduction: extents and whether each is reduced, outermost first. */
export function mergeReduceAxes(shape: readonly number[], axes: readonly number[]): { extent: number; reduced: boolean }[] {
  const out: { extent: number; reduced: boolean }[] = [];
  shape.forEach((d, i) => {
    if (d === 1) return;
    const reduced = axes.includes(i);
    const last = out[out.length - 1];
    if (last && last.reduced === reduced) last.extent *= d;
    else out.push({ extent: d, reduced });
  });
  return out;
}

const treeOf = (kind: Kind) => (kind === 'reduceMax' ? 'max' : kind === 'reduceMin' ? 'min' : 'sum');
const combineOf = (kind: Kind) => (acc: string, v: string) => (kind === 'reduceMax' ? `max(${acc}, ${v})` : kind === 'reduceMin' ? `min(${acc}, ${v})` : `${acc} + ${v}`);

/**
 * A rows kernel: workgroup `row` reduces `len` contiguous elements of `src` starting at row * stride (chunk
 * p of row r when `chunks` > 1: elements [p*len, min((p+1)*len, rowLen)) of row r, written to dst[r*chunks + p]).
 */
function rowsDispatch(spec: KernelSpec, caps: DeviceCaps, kind: Kind, o: { label: string; strategy: string; bindings: readonly Binding[]; names: [string, string]; rows: number; rowLen: number; chunks: number; finish: (acc: string) => string }): Dispatch {
  const chunkLen = Math.ceil(o.rowLen / o.chunks);
  const wg = Math.min(linearWorkgroupSize(caps), ceilPow2(chunkLen));
  const g = linearGrid(spec, o.rows * o.chunks, caps);
  const [src, dst] = o.names;
  const combine = combineOf(kind);
  const code = `${header(spec, o.strategy)}${declareBindings(o.bindings, o.names)}

const ROWS = ${u32Lit(o.rows * o.chunks)};
${workgroupReduceFns(wg, [treeOf(kind)])}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let w = ${g.index};
  if (w >= ROWS) { return; }
${
  o.chunks === 1
    ? `  let base = w * ${u32Lit(o.rowLen)};
  let end = base + ${u32Lit(o.rowLen)};`
    : `  let base = (w / ${u32Lit(o.chunks)}) * ${u32Lit(o.rowLen)} + (w % ${u32Lit(o.chunks)}) * ${u32Lit(chunkLen)};
  let end = min(base + ${u32Lit(chunkLen)}, (w / ${u32Lit(o.chunks)} + 1u) * ${u32Lit(o.rowLen)});`
}
  var acc = ${kind === 'reduceMax' || kind === 'reduceMin' ? `${src}[base]` : '0.0'};
  for (var j = base + lid; j < end; j = j + ${u32Lit(wg)}) { acc = ${combine('acc', `${src}[j]`)}; }
  let total = wg_${treeOf(kind)}(acc, lid);
  if (lid == 0u) { ${dst}[w] = ${o.finish('total')}; }
}
`;
  return { label: o.label, code, bindings: o.bindings, workgroupSize: [wg, 1, 1], grid: g.grid };
}

/** A columns kernel: thread o reduces src[i * cols + o] for i in [chunk start, chunk end) into dst[p * cols + o]. */
function columnsDispatch(spec: KernelSpec, caps: DeviceCaps, kind: Kind, o: { label: string; strategy: string; bindings: readonly Binding[]; names: [string, string]; cols: number; rows: number; chunks: number; finish: (acc: string) => string }): Dispatch {
  const wg = linearWorkgroupSize(caps);
  const per = Math.ceil(o.cols / wg);
  const g = linearGrid(spec, per * o.chunks, caps);
  const chunkLen = Math.ceil(o.rows / o.chunks);
  const [src, dst] = o.names;
  const combine = combineOf(kind);
  const code = `${header(spec, o.strategy)}${declareBindings(o.bindings, o.names)}

const COLS = ${u32Lit(o.cols)};

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let w = ${g.index};
  let p = w / ${u32Lit(per)};
  let o = (w % ${u32Lit(per)}) * ${u32Lit(wg)} + lid;
  if (o >= COLS || p >= ${u32Lit(o.chunks)}) { return; }
  let i0 = p * ${u32Lit(chunkLen)};
  let i1 = min(i0 + ${u32Lit(chunkLen)}, ${u32Lit(o.rows)});
  var acc = ${src}[i0 * COLS + o];
  for (var i = i0 + 1u; i < i1; i = i + 1u) { acc = ${combine('acc', `${src}[i * COLS + o]`)}; }
  ${dst}[p * COLS + o] = ${o.finish('acc')};
}
`;
  return { label: o.label, code, bindings: o.bindings, workgroupSize: [wg, 1, 1], grid: g.grid };
}

/** `sum`, `mean`, `reduceMax`, `reduceMin`. */
export function reduceKernel(spec: KernelSpec<ReduceOp>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const kind = node.op as Kind;
  const { axes } = node.attrs;
  const inShape = spec.inputs[0].shape;
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * inShape[a], 1);
  if (R === 0) return { dispatches: [], scratch: [] };
  if (C === 0) kernelError(spec, 'reduces over an empty axis');
  const merged = mergeReduceAxes(inShape, axes);
  const { bindings, declarations } = bindOperands(spec, [0], ['x']);
  const label = labelOf(node, `${inShape.join('x') || 'scalar'}->${node.shape.join('x') || 'scalar'}`);
  const combine = combineOf(kind);
  const finish = (acc: string) => (kind === 'mean' ? `${acc} / ${f32Lit(C)}` : acc);
  const same = (acc: string) => acc;
  const pattern = merged.map((a) => (a.reduced ? 'r' : 'k')).join('');
  const pass1: Binding[] = [bindings[0], { source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' }];
  const pass2: Binding[] = [{ source: { kind: 'scratch', index: 0 }, access: 'read', dtype: 'f32' }, bindings[1]];

  if ((pattern === 'kr' || pattern === 'r') && C >= ROWS_PATH_MIN) {
    const chunks = R < SPLIT_MAX_ROWS && C >= SPLIT_MIN_ROW ? nonEmptyChunks(C, Math.ceil(C / ROW_CHUNK)) : 1;
    if (chunks === 1) {
      const d = rowsDispatch(spec, caps, kind, { label, strategy: `rows: a workgroup per output reduces ${C} contiguous elements (tree in shared memory)`, bindings, names: ['x', 'y'], rows: R, rowLen: C, chunks: 1, finish });
      return { dispatches: [d], scratch: [] };
    }
    const d1 = rowsDispatch(spec, caps, kind, { label: `${label}:partials`, strategy: `rows, pass 1 of 2: ${R}x${chunks} workgroups each reduce a chunk of ${Math.ceil(C / chunks)} into scratch`, bindings: pass1, names: ['x', 'part'], rows: R, rowLen: C, chunks, finish: same });
    const d2 = rowsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `rows, pass 2 of 2: a workgroup per output reduces its ${chunks} partials`, bindings: pass2, names: ['part', 'y'], rows: R, rowLen: chunks, chunks: 1, finish });
    return { dispatches: [d1, d2], scratch: [R * chunks * 4] };
  }
  if (pattern === 'rk' && R < SPLIT_MAX_COLUMNS && C >= 2 * COLUMN_CHUNK) {
    const chunks = nonEmptyChunks(C, Math.ceil(C / COLUMN_CHUNK));
    const d1 = columnsDispatch(spec, caps, kind, { label: `${label}:partials`, strategy: `columns, pass 1 of 2: a thread per (output, chunk of ${COLUMN_CHUNK} rows), ${chunks} chunks, into scratch`, bindings: pass1, names: ['x', 'part'], cols: R, rows: C, chunks, finish: same });
    const d2 = columnsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `columns, pass 2 of 2: a thread per output reduces its ${chunks} partials`, bindings: pass2, names: ['part', 'y'], cols: R, rows: chunks, chunks: 1, finish });
    return { dispatches: [d1, d2], scratch: [R * chunks * 4] };
  }

  const wg = linearWorkgroupSize(caps);
  const g = linearGrid(spec, Math.ceil(R / wg), caps);
  let body: string;
  let strategy: string;
  if (pattern === 'rk') {
    strategy = `columns: a thread per output walks ${C} rows of stride ${R} (coalesced)`;
    body = `var acc = x[o];
for (var i = 1u; i < ${u32Lit(C)}; i = i + 1u) { acc = ${combine('acc', `x[i * ${u32Lit(R)} + o]`)}; }`;
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
var acc = x[base];
for (var j = 1u; j < ${u32Lit(C)}; j = j + 1u) {
${indent(inner)}
  acc = ${combine('acc', 'x[base + off]')};
}`;
  }
  const code = `${header(spec, strategy)}${declarations}

const R = ${u32Lit(R)};

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let o = ${g.index} * ${u32Lit(wg)} + lid;
  if (o >= R) { return; }
${indent(body)}
  y[o] = ${finish('acc')};
}
`;
  return { dispatches: [{ label, code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [] };
}

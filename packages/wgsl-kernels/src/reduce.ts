// Reductions `sum`, `mean`, `reduceMax` over any normalised axes (keepdims only changes the shape, not the
// order). Axes are first merged (extent-1 axes dropped, neighbours of the same kind fused), then one of:
// rows (reduce the contiguous trailing block: a workgroup per output, shared-memory tree), columns (reduce a
// leading block of [C, R]: a thread per output walking rows, coalesced), or general (a thread per output over
// baked strides). Accumulates in f32 (the interpreter sums in f64, so sums differ by rounding only).

import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { bindOperands, ceilPow2, f32Lit, header, indent, indexMath, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit, workgroupReduceFns } from './wgsl.js';

/** Reduced extents at least this long use a workgroup per output (rows path); shorter ones a thread per output. */
export const ROWS_PATH_MIN = 64;

type Kind = 'sum' | 'mean' | 'reduceMax';

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

/** `sum`, `mean`, `reduceMax`. */
export function reduceKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const kind = node.op as Kind;
  const { axes } = node.attrs as { axes: number[] };
  const inShape = spec.inputs[0].shape;
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * inShape[a], 1);
  if (R === 0) return { dispatches: [], scratch: [], flops: 0 };
  if (C === 0) kernelError(spec, 'reduces over an empty axis');
  const merged = mergeReduceAxes(inShape, axes);
  const { bindings, declarations } = bindOperands(spec, [0], ['x']);
  const label = labelOf(node, `${inShape.join('x') || 'scalar'}->${node.shape.join('x') || 'scalar'}`);
  const combine = (acc: string, v: string) => (kind === 'reduceMax' ? `max(${acc}, ${v})` : `${acc} + ${v}`);
  const finish = (acc: string) => (kind === 'mean' ? `${acc} / ${f32Lit(C)}` : acc);
  const flops = numel(inShape);
  const pattern = merged.map((a) => (a.reduced ? 'r' : 'k')).join('');

  if ((pattern === 'kr' || pattern === 'r') && C >= ROWS_PATH_MIN) {
    const wg = Math.min(linearWorkgroupSize(caps), ceilPow2(C));
    const g = linearGrid(spec, R, caps);
    const init = kind === 'reduceMax' ? 'x[base]' : '0.0';
    const code = `${header(spec, `rows: a workgroup of ${wg} per output reduces ${C} contiguous elements (tree in shared memory)`)}${declarations}

const R = ${u32Lit(R)};
const C = ${u32Lit(C)};
${workgroupReduceFns(wg, [kind === 'reduceMax' ? 'max' : 'sum'])}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = ${g.index};
  if (row >= R) { return; }
  let base = row * C;
  var acc = ${init};
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { acc = ${combine('acc', 'x[base + j]')}; }
  let total = wg_${kind === 'reduceMax' ? 'max' : 'sum'}(acc, lid);
  if (lid == 0u) { y[row] = ${finish('total')}; }
}
`;
    return { dispatches: [{ label, code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [], flops };
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
  return { dispatches: [{ label, code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [], flops };
}

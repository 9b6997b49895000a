// Indexing kernels: slice, pad, concat, gather, scatterAdd, oneHot, argmax and stopGradient (a copy). A thread per
// output element, index arithmetic baked from the shapes, any dtype moved bit for bit (bool as i32).
// Indices read on the GPU (gather, scatterAdd) are clamped / skipped when outside [0, extent): the interpreter
// throws for them; the GPU must never fault or write out of bounds. The runtime should validate on the host.
// scatterAdd: WGSL has no f32 atomicAdd, so it is a gather-style loop (each target element sums the updates whose
// index hits its row: deterministic, O(targets x indices)) when the index count is small, else a copy of the
// target followed by a compare-exchange loop on `atomic<u32>` bit patterns per update (order-dependent rounding).

import { numel, SCATTER_LOOP_MAX_INDICES, stridesOf } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { elementwisePlan } from './elementwise.js';
import { bindOperands, inputVar, outputVar, perElementDispatch, perWorkgroupMain, planOf, scratchVar, shaderDispatch } from './shader.js';
import { collapseAxes, f32Lit, indexMath, kernelError, labelOf, linearGrid, u32Lit, wgslType } from './wgsl.js';


/** A constant of the node's storage type (non-finite f32 spelled through a runtime zero: WGSL rejects them as constants). */
function storageConst(value: number, dtype: 'f32' | 'i32'): string {
  if (dtype === 'i32') return `${Math.trunc(value)}i`;
  const v = Math.fround(value);
  if (Number.isFinite(v)) return f32Lit(v);
  const bits = Number.isNaN(v) ? '0x7fc00000u' : v > 0 ? '0x7f800000u' : '0xff800000u';
  return `bitcast<f32>(${bits} | (o & 0u))`;
}

/** `slice`: out[c] = x[start + c·step] per axis. */
export function sliceKernel(spec: KernelSpec<'slice'>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const { starts, steps } = node.attrs;
  const n = numel(node.shape);
  if (n === 0) return EMPTY_PLAN;
  const xs = stridesOf(spec.inputs[0].shape);
  const base = starts.reduce((s, st, i) => s + st * xs[i], 0);
  const c = collapseAxes(node.shape, [xs.map((s, i) => s * steps[i])]);
  const { buffers } = bindOperands(spec, [0], ['x']);
  const body = `${indexMath('o', c.shape, c.strides, ['i'])}\ny[o] = x[${u32Lit(base)} + i];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `strided window: base ${base}, merged shape [${c.shape}]`, buffers, n, body })]);
}

/** `pad`: x[c] lands at before + c·(interior + 1); every other element is `value`. */
export function padKernel(spec: KernelSpec<'pad'>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const { before, interior, value } = node.attrs;
  const n = numel(node.shape);
  if (n === 0) return EMPTY_PLAN;
  const xShape = spec.inputs[0].shape;
  const xs = stridesOf(xShape);
  const ty = wgslType(node.dtype);
  const lines: string[] = ['var inside = true;', 'var i = 0u;', `var r = o;`];
  for (let ax = node.shape.length - 1; ax >= 0; ax--) {
    const d = node.shape[ax];
    const step = interior[ax] + 1;
    lines.push(`{ let c = i32(r % ${u32Lit(d)}) - ${before[ax]}i; r = r / ${u32Lit(d)};`);
    const q = step === 1 ? 'c' : `c / ${step}i`;
    const conds = [`c >= 0i`, step === 1 ? '' : `c % ${step}i == 0i`, `${q} < ${xShape[ax]}i`].filter(Boolean).join(' && ');
    lines.push(`  if (${conds}) { i = i + u32(${q}) * ${u32Lit(xs[ax])}; } else { inside = false; } }`);
  }
  lines.push(`var v = ${storageConst(value, ty)};`, numel(xShape) ? 'if (inside) { v = x[i]; }' : '', 'y[o] = v;');
  const { buffers } = bindOperands(spec, [0], ['x']);
  return planOf([perElementDispatch(spec, caps, { strategy: `pad: before [${before}], interior [${interior}], value ${value}`, buffers, n, body: lines.filter(Boolean).join('\n') })]);
}

/** `concat`: inputs end to end along the axis; groups of inputs (within the storage-buffer limit) per dispatch. */
export function concatKernel(spec: KernelSpec<'concat'>, caps: DeviceCaps): KernelPlan {
  const { node, inputs } = spec;
  const { axis } = node.attrs;
  const outer = numel(node.shape.slice(0, axis));
  const inner = numel(node.shape.slice(axis + 1));
  const total = node.shape[axis];
  if (numel(node.shape) === 0) return EMPTY_PLAN;
  const maxIn = caps.maxStorageBuffersPerShaderStage - 1;
  if (maxIn < 1) kernelError(spec, `needs 2 storage buffers, more than maxStorageBuffersPerShaderStage (device value ${caps.maxStorageBuffersPerShaderStage})`);
  // Offsets along the axis; groups of consecutive inputs with at most maxIn distinct nodes.
  const offs: number[] = [];
  let acc = 0;
  for (const t of inputs) {
    offs.push(acc);
    acc += t.shape[axis];
  }
  const groups: number[][] = [];
  let cur: number[] = [];
  let nodes = new Set<number>();
  inputs.forEach((t, i) => {
    if (t.shape[axis] === 0) return;
    const id = node.inputs[i];
    if (!nodes.has(id) && nodes.size === maxIn) {
      groups.push(cur);
      cur = [];
      nodes = new Set();
    }
    nodes.add(id);
    cur.push(i);
  });
  if (cur.length) groups.push(cur);
  const dispatches = groups.map((g, gi) => {
    const { buffers, name } = bindOperands(spec, g, g.map((i) => `x${i}`));
    const a0 = offs[g[0]];
    const a1 = offs[g[g.length - 1]] + inputs[g[g.length - 1]].shape[axis];
    const span = a1 - a0;
    const n = outer * span * inner;
    const branches = g.map((i, k) => {
      const e = inputs[i].shape[axis];
      const rel = offs[i] - a0;
      const read = `${name(i)}[(ou * ${u32Lit(e)} + ap - ${u32Lit(rel)}) * ${u32Lit(inner)} + iv]`;
      return k === g.length - 1 ? `{ v = ${read}; }` : `if (ap < ${u32Lit(rel + e)}) { v = ${read}; }`;
    });
    const body = `let iv = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let ap = t % ${u32Lit(span)};
let ou = t / ${u32Lit(span)};
var v: ${wgslType(node.dtype)};
${branches.join(' else ')}
y[(ou * ${u32Lit(total)} + ${u32Lit(a0)} + ap) * ${u32Lit(inner)} + iv] = v;`;
    return perElementDispatch(spec, caps, { label: groups.length > 1 ? labelOf(node, `${node.shape.join('x')}:part${gi}`) : undefined, strategy: `concat along axis ${axis}: inputs ${g.join(', ')} into [${a0}, ${a1})`, buffers, n, body });
  });
  return planOf(dispatches);
}

/** gather's index decomposition: `outer` x `k` indices x `inner`, reading table rows of `extent`. */
function gatherDims(tableShape: readonly number[], k: number, axis: number) {
  return { outer: numel(tableShape.slice(0, axis)), inner: numel(tableShape.slice(axis + 1)), extent: tableShape[axis], k };
}

/** `gather` (numpy take): indices outside [0, extent) are clamped (the interpreter throws for them). */
export function gatherKernel(spec: KernelSpec<'gather'>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const { axis } = node.attrs;
  const n = numel(node.shape);
  if (n === 0) return EMPTY_PLAN;
  const { inner, extent, k } = gatherDims(spec.inputs[0].shape, numel(spec.inputs[1].shape), axis);
  const { buffers, name } = bindOperands(spec, [0, 1], ['table', 'idx']);
  const body = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let j = t % ${u32Lit(k)};
let a = t / ${u32Lit(k)};
let r = u32(clamp(${name(1)}[j], 0i, ${extent - 1}i));
y[o] = ${name(0)}[(a * ${u32Lit(extent)} + r) * ${u32Lit(inner)} + b];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `gather along axis ${axis}: ${k} indices into ${extent} rows of ${inner} (indices clamped)`, buffers, n, body })]);
}

// index counts up to ir's SCATTER_LOOP_MAX_INDICES run gather-style (one pass; the cost model counts the passes)
export { SCATTER_LOOP_MAX_INDICES } from '@neura/ir';

/** `scatterAdd`: target + updates summed at indices (out-of-range indices are skipped). */
export function scatterAddKernel(spec: KernelSpec<'scatterAdd'>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const { axis } = node.attrs;
  const n = numel(node.shape);
  if (n === 0) return EMPTY_PLAN;
  const { outer, inner, extent, k } = gatherDims(spec.inputs[0].shape, numel(spec.inputs[1].shape), axis);
  if (k <= SCATTER_LOOP_MAX_INDICES) {
    const { buffers, name } = bindOperands(spec, [0, 1, 2], ['tgt', 'idx', 'upd']);
    const body = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let r = i32(t % ${u32Lit(extent)});
let a = t / ${u32Lit(extent)};
var acc = ${name(0)}[o];
for (var j = 0u; j < ${u32Lit(k)}; j = j + 1u) {
  if (${name(1)}[j] == r) { acc = acc + ${name(2)}[(a * ${u32Lit(k)} + j) * ${u32Lit(inner)} + b]; }
}
y[o] = acc;`;
    return planOf([perElementDispatch(spec, caps, { strategy: `scatterAdd (gather-style): each target element sums the updates of the ${k} indices that hit its row`, buffers, n, body })]);
  }
  const segmented = segmentedScatterAdd(spec, caps, { outer, inner, extent, k });
  if (segmented) return segmented;
  // Pass 1: y = target. Pass 2: a thread per update element adds it with a compare-exchange loop on the bits.
  const copy = elementwisePlan(spec, caps, 'scatterAdd pass 1 of 2: copy the target', (load) => ({ code: '', result: load(0) })).dispatches[0];
  const body = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let j = t % ${u32Lit(k)};
let a = t / ${u32Lit(k)};
let r = idx[j];
if (r < 0i || r >= ${extent}i) { return; }
let dst = (a * ${u32Lit(extent)} + u32(r)) * ${u32Lit(inner)} + b;
let u = upd[o];
var old = atomicLoad(&y[dst]);
loop {
  let res = atomicCompareExchangeWeak(&y[dst], old, bitcast<u32>(bitcast<f32>(old) + u));
  if (res.exchanged) { break; }
  old = res.old_value;
}`;
  const add = perElementDispatch(spec, caps, {
    label: labelOf(node, `${node.shape.join('x')}:add`),
    strategy: 'scatterAdd pass 2 of 2: a thread per update element adds it at its index (CAS loop on atomic<u32>: WGSL has no f32 atomicAdd)',
    buffers: [inputVar(spec, 1, 'idx'), inputVar(spec, 2, 'upd'), outputVar(spec, 'y', { element: 'atomic<u32>' })],
    n: outer * k * inner,
    body,
  });
  return planOf([{ ...copy, label: labelOf(node, `${node.shape.join('x')}:copy`) }, add]);
}

/** Indices one workgroup of the segmented scatterAdd walks (its partials are one chunk). */
export const SCATTER_CHUNK = 128;

/**
 * scatterAdd over many indices into few target rows (an embedding's gradient: 16 384 tokens into a 65-row table),
 * deterministic, in two passes. Pass 1: a workgroup per (outer, chunk of SCATTER_CHUNK indices, block of `cols`
 * columns) keeps a row of sums per target row in workgroup memory; each thread owns one column (no two threads
 * touch one slot: no barrier, no atomics) and walks the chunk's indices, reading the updates coalesced; the sums
 * go to scratch. Pass 2: a thread per target element adds the target and its chunks' sums in order. Undefined
 * (the atomic form runs) when the rows of sums or the partials do not fit the device. H200, GPT 6×384: the
 * compare-exchange form took 0.58 ms (contended atomics on 65 rows).
 */
function segmentedScatterAdd(spec: KernelSpec<'scatterAdd'>, caps: DeviceCaps, d: { outer: number; inner: number; extent: number; k: number }): KernelPlan | undefined {
  const { outer, inner, extent, k } = d;
  const node = spec.node;
  const cols = [64, 32].find((c) => extent * c * 4 <= caps.maxComputeWorkgroupStorageSize && c <= caps.maxComputeInvocationsPerWorkgroup && c <= caps.maxComputeWorkgroupSizeX);
  const chunks = Math.ceil(k / SCATTER_CHUNK);
  const partBytes = outer * chunks * extent * inner * 4;
  if (!cols || partBytes > caps.maxStorageBufferBindingSize || spec.inputs[2].dtype !== 'f32') return undefined;
  const blocks = Math.ceil(inner / cols);
  const g1 = linearGrid(spec, outer * chunks * blocks, caps);
  const body1 = `let cb = w % ${u32Lit(blocks)};
let c = (w / ${u32Lit(blocks)}) % ${u32Lit(chunks)};
let a = w / ${u32Lit(blocks * chunks)};
let b = cb * ${u32Lit(cols)} + lid;
for (var r = 0u; r < ${u32Lit(extent)}; r = r + 1u) { sums[r * ${u32Lit(cols)} + lid] = 0.0; }
if (b < ${u32Lit(inner)}) {
  let j1 = min((c + 1u) * ${u32Lit(SCATTER_CHUNK)}, ${u32Lit(k)});
  for (var j = c * ${u32Lit(SCATTER_CHUNK)}; j < j1; j = j + 1u) {
    let r = idx[j];
    if (r >= 0i && r < ${extent}i) { sums[u32(r) * ${u32Lit(cols)} + lid] = sums[u32(r) * ${u32Lit(cols)} + lid] + upd[(a * ${u32Lit(k)} + j) * ${u32Lit(inner)} + b]; }
  }
  let base = (a * ${u32Lit(chunks)} + c) * ${u32Lit(extent * inner)} + b;
  for (var r = 0u; r < ${u32Lit(extent)}; r = r + 1u) { part[base + r * ${u32Lit(inner)}] = sums[r * ${u32Lit(cols)} + lid]; }
}`;
  const d1 = shaderDispatch(spec, {
    label: labelOf(node, `${node.shape.join('x')}:partials`),
    strategy: `scatterAdd pass 1 of 2 (segmented): a workgroup per (chunk of ${SCATTER_CHUNK} indices, ${cols} columns) sums the updates per target row in workgroup memory, a thread per column`,
    buffers: [inputVar(spec, 1, 'idx'), inputVar(spec, 2, 'upd'), scratchVar(0, 'part', 'read_write')],
    decls: [`var<workgroup> sums: array<f32, ${extent * cols}>;`],
    main: perWorkgroupMain(cols, g1.index, u32Lit(outer * chunks * blocks), body1, 'w'),
    workgroupSize: cols,
    grid: g1.grid,
  });
  const body2 = `let b = o % ${u32Lit(inner)};
let ar = o / ${u32Lit(inner)};
let a = ar / ${u32Lit(extent)};
let r = ar % ${u32Lit(extent)};
var acc = tgt[o];
for (var c = 0u; c < ${u32Lit(chunks)}; c = c + 1u) { acc = acc + part[((a * ${u32Lit(chunks)} + c) * ${u32Lit(extent)} + r) * ${u32Lit(inner)} + b]; }
y[o] = acc;`;
  const d2 = perElementDispatch(spec, caps, {
    label: labelOf(node, `${node.shape.join('x')}:combine`),
    strategy: `scatterAdd pass 2 of 2 (segmented): a thread per target element adds its ${chunks} chunk sums in order`,
    buffers: [inputVar(spec, 0, 'tgt'), scratchVar(0, 'part', 'read'), outputVar(spec)],
    n: outer * extent * inner,
    body: body2,
  });
  return planOf([d1, d2], [partBytes]);
}

/** `oneHot`: labels [...] → f32 [..., classes]; a label outside [0, classes) gives a zero row. */
export function oneHotKernel(spec: KernelSpec<'oneHot'>, caps: DeviceCaps): KernelPlan {
  const { classes } = spec.node.attrs;
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ['labels']);
  const body = `y[o] = select(0.0, 1.0, labels[o / ${u32Lit(classes)}] == i32(o % ${u32Lit(classes)}));`;
  return planOf([perElementDispatch(spec, caps, { strategy: `oneHot over ${classes} classes`, buffers, n, body })]);
}

/** `argmax`: the first index of the maximum along the axis; NaN counts as the maximum (as the interpreter). */
export function argmaxKernel(spec: KernelSpec<'argmax'>, caps: DeviceCaps): KernelPlan {
  const { axis } = spec.node.attrs;
  const xShape = spec.inputs[0].shape;
  const extent = xShape[axis];
  const inner = numel(xShape.slice(axis + 1));
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ['x']);
  // NaN tests are `v != v`: WGSL lets an implementation assume no NaN, so NaN handling is best effort on the GPU.
  const body = `let b = o % ${u32Lit(inner)};
let base = (o / ${u32Lit(inner)}) * ${u32Lit(extent * inner)} + b;
var best = 0i;
var bv = x[base];
for (var j = 1u; j < ${u32Lit(extent)} && bv == bv; j = j + 1u) {
  let v = x[base + j * ${u32Lit(inner)}];
  if (v > bv || v != v) { best = i32(j); bv = v; }
}
y[o] = best;`;
  return planOf([perElementDispatch(spec, caps, { strategy: `argmax over ${extent} elements of stride ${inner}, a thread per output`, buffers, n, body })]);
}

/** `stopGradient`: identity on the forward pass (a copy; a runtime may alias it like reshape instead). */
export function stopGradientKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  return elementwisePlan(spec, caps, 'copy (stopGradient)', (load) => ({ code: '', result: load(0) }));
}

// Row-wise softmax family over the last axis: `logSoftmax`, `logSoftmaxGrad` (g - exp(y)·Σg), and the fused
// losses `softmaxCrossEntropy` (two dispatches: per-row losses into scratch, then one workgroup sums them) and
// `softmaxCrossEntropyGrad` ((softmax - onehot)·dy, / N for mean). A workgroup per row with tree reductions.
// Labels outside [0, C) must not fault the GPU: the read is clamped and the row contributes 0 to the loss (and no
// one-hot to the gradient). The runtime validates labels on the host first and raises a clear error.

import { numel } from '@neura/ir';
import type { Reduction } from '@neura/ir';
import type { DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, type BufferVar, inputVar, outputVar, perWorkgroupMain, planOf, scratchVar, shaderDispatch, singleWorkgroupMain } from './shader.js';
import { ceilPow2, f32Lit, indent, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** Threads per row: the next power of two ≥ C, at most the linear workgroup size. */
export function rowWorkgroupSize(cols: number, caps: DeviceCaps): number {
  return Math.min(linearWorkgroupSize(caps), ceilPow2(Math.max(1, cols)));
}

/** Statements computing `m` (row max) and `lse` (log-sum-exp) of row `base` of `x` into lets. */
function rowLse(x: string, wg: number): string {
  return `var mx = ${x}[base];
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { mx = max(mx, ${x}[base + j]); }
let m = wg_max(mx, lid);
var se = 0.0;
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { se = se + exp(${x}[base + j] - m); }
let lse = m + log(wg_sum(se, lid));`;
}

/**
 * A dispatch of a workgroup of `wg` per row of the node's first operand, [R, C] over the last axis: `body` sees
 * `row`, `base` (the row's first element), `lid`, constants R and C, and the tree reductions `wg_sum`/`wg_max`.
 */
function rowsDispatch(spec: KernelSpec, { R, C, wg, g }: Rows, o: { label?: string; strategy: string; buffers: readonly BufferVar[]; body: string }): Dispatch {
  const main = perWorkgroupMain(wg, g.index, 'R', `let base = row * C;\n${o.body}`, 'row');
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls: [`const R = ${u32Lit(R)};`, `const C = ${u32Lit(C)};`], main, workgroupSize: wg, grid: g.grid });
}

/** The rows of the first operand over its last axis: R rows of C, a workgroup of `wg` each on grid `g`. */
type Rows = ReturnType<typeof rowsSetup>;

function rowsSetup(spec: KernelSpec, caps: DeviceCaps) {
  const shape = spec.inputs[0].shape;
  const C = shape[shape.length - 1] ?? 1;
  const R = C === 0 ? 0 : numel(shape) / C;
  const wg = rowWorkgroupSize(C, caps);
  return { R, C, wg, g: linearGrid(spec, R, caps) };
}

/** `logSoftmax` over the last axis. */
export function logSoftmaxKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const rows = rowsSetup(spec, caps);
  const { wg } = rows;
  if (rows.R === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ['x']);
  const body = `${rowLse('x', wg)}
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = x[base + j] - lse; }`;
  return planOf([rowsDispatch(spec, rows, { strategy: `a workgroup of ${wg} per row: max, sum of exp, then x - logsumexp`, buffers, body })]);
}

/** `logSoftmaxGrad`: inputs [y, g] → g - exp(y)·Σg over the last axis. */
export function logSoftmaxGradKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const rows = rowsSetup(spec, caps);
  const { wg } = rows;
  if (rows.R === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1], ['ls', 'gr']);
  const [Y, G] = [name(0), name(1)];
  const body = `var acc = 0.0;
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { acc = acc + ${G}[base + j]; }
let s = wg_sum(acc, lid);
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = ${G}[base + j] - exp(${Y}[base + j]) * s; }`;
  return planOf([rowsDispatch(spec, rows, { strategy: `a workgroup of ${wg} per row: s = sum(g), then g - exp(y) * s`, buffers, body })]);
}

/** Clamped label read: `l` (the label), `ok` (inside [0, C)), `lc` (a safe column). */
const labelRead = (labels: string) => `let l = ${labels}[row];
let ok = l >= 0i && l < i32(C);
let lc = u32(clamp(l, 0i, i32(C) - 1i));`;

/**
 * A dispatch of one workgroup of `wg` summing `rows` values into y[0], times `scale`: `load` adds row `row`'s
 * value to `acc`.
 */
export function sumToScalarDispatch(spec: KernelSpec, o: { label: string; strategy: string; buffers: readonly BufferVar[]; wg: number; rows: number; load: string; scale: string }): Dispatch {
  const main = singleWorkgroupMain(
    o.wg,
    `var acc = 0.0;
for (var row = lid; row < R; row = row + ${u32Lit(o.wg)}) {
${indent(o.load)}
}
let total = wg_sum(acc, lid);
if (lid == 0u) { y[0] = total${o.scale}; }`,
  );
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls: [`const R = ${u32Lit(o.rows)};`], main, workgroupSize: o.wg, grid: [1, 1, 1] });
}

const scaleOf = (reduction: Reduction, n: number) => (reduction === 'mean' ? ` / ${f32Lit(n)}` : '');

/** `softmaxCrossEntropy`: per-row losses into scratch (a workgroup per row), then one workgroup sums them. */
export function softmaxCrossEntropyKernel(spec: KernelSpec<'softmaxCrossEntropy'>, caps: DeviceCaps): KernelPlan {
  const rows = rowsSetup(spec, caps);
  const { R, C, wg } = rows;
  const { reduction } = spec.node.attrs;
  if (R === 0 || C === 0) kernelError(spec, 'empty batch or no classes');
  const losses = rowsDispatch(spec, rows, {
    label: labelOf(spec.node, `${R}x${C}:rows`),
    strategy: `pass 1 of 2: a workgroup of ${wg} per row writes logsumexp - x[label] (0 for a label outside [0, C))`,
    buffers: [inputVar(spec, 0, 'x'), inputVar(spec, 1, 'labels'), scratchVar(0, 'losses', 'read_write')],
    body: `${rowLse('x', wg)}
${labelRead('labels')}
if (lid == 0u) { losses[row] = select(0.0, lse - x[base + lc], ok); }`,
  });
  const sum = sumToScalarDispatch(spec, {
    label: labelOf(spec.node, `${R}x${C}:sum`),
    strategy: `pass 2 of 2: one workgroup sums ${R} row losses (${reduction})`,
    buffers: [scratchVar(0, 'losses', 'read'), outputVar(spec)],
    wg: linearWorkgroupSize(caps),
    rows: R,
    load: 'acc = acc + losses[row];',
    scale: scaleOf(reduction, R),
  });
  return planOf([losses, sum], [R * 4]);
}

/** `softmaxCrossEntropyGrad`: inputs [logits, labels, dy] → (softmax - onehot)·dy (/ N for mean). */
export function softmaxCrossEntropyGradKernel(spec: KernelSpec<'softmaxCrossEntropyGrad'>, caps: DeviceCaps): KernelPlan {
  const rows = rowsSetup(spec, caps);
  const { R, wg } = rows;
  const { reduction } = spec.node.attrs;
  if (R === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1, 2], ['x', 'labels', 'dy']);
  const body = `${rowLse(name(0), wg)}
${labelRead(name(1))}
let k = ${name(2)}[0]${scaleOf(reduction, R)};
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) {
  let hot = select(0.0, 1.0, ok && j == lc);
  y[base + j] = (exp(${name(0)}[base + j] - lse) - hot) * k;
}`;
  const strategy = `a workgroup of ${wg} per row: (exp(x - logsumexp) - onehot) * dy${reduction === 'mean' ? ' / N' : ''}`;
  return planOf([rowsDispatch(spec, rows, { strategy, buffers, body })]);
}

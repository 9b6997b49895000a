// Row-wise softmax family over the last axis: `logSoftmax`, `logSoftmaxGrad` (g - exp(y)·Σg), and the fused
// losses `softmaxCrossEntropy` (two dispatches: per-row losses into scratch, then one workgroup sums them) and
// `softmaxCrossEntropyGrad` ((softmax - onehot)·dy, / N for mean). A workgroup per row with tree reductions.
// Labels outside [0, C) must not fault the GPU: the read is clamped and the row contributes 0 to the loss (and no
// one-hot to the gradient). The runtime validates labels on the host first and raises a clear error.

import { numel } from '@neura/ir';
import type { Reduction } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, ceilPow2, declareBindings, f32Lit, header, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit, workgroupReduceFns } from './wgsl.js';

/** Threads per row: the next power of two ≥ C, at most the linear workgroup size. */
export function rowWorkgroupSize(cols: number, caps: DeviceCaps): number {
  return Math.min(linearWorkgroupSize(caps), ceilPow2(Math.max(1, cols)));
}

/** Statements computing `m` (row max) and `lse` (log-sum-exp) of row `base` of `x` into lets. */
function rowLse(x: string, wg: number): string {
  return `  var mx = ${x}[base];
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { mx = max(mx, ${x}[base + j]); }
  let m = wg_max(mx, lid);
  var se = 0.0;
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { se = se + exp(${x}[base + j] - m); }
  let lse = m + log(wg_sum(se, lid));`;
}

function rowsSetup(spec: KernelSpec, caps: DeviceCaps) {
  const shape = spec.inputs[0].shape;
  const C = shape[shape.length - 1] ?? 1;
  const R = C === 0 ? 0 : numel(shape) / C;
  const wg = rowWorkgroupSize(C, caps);
  return { R, C, wg, g: linearGrid(spec, R, caps) };
}

const prologue = (R: number, C: number, wg: number, index: string) => `const R = ${u32Lit(R)};
const C = ${u32Lit(C)};
${workgroupReduceFns(wg, ['sum', 'max'])}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row = ${index};
  if (row >= R) { return; }
  let base = row * C;`;

/** `logSoftmax` over the last axis. */
export function logSoftmaxKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const { R, C, wg, g } = rowsSetup(spec, caps);
  if (R === 0) return EMPTY_PLAN;
  const { bindings, declarations } = bindOperands(spec, [0], ['x']);
  const code = `${header(spec, `a workgroup of ${wg} per row: max, sum of exp, then x - logsumexp`)}${declarations}

${prologue(R, C, wg, g.index)}
${rowLse('x', wg)}
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = x[base + j] - lse; }
}
`;
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [] };
}

/** `logSoftmaxGrad`: inputs [y, g] → g - exp(y)·Σg over the last axis. */
export function logSoftmaxGradKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const { R, C, wg, g } = rowsSetup(spec, caps);
  if (R === 0) return EMPTY_PLAN;
  const { bindings, name, declarations } = bindOperands(spec, [0, 1], ['ls', 'gr']);
  const Y = name(0);
  const G = name(1);
  const code = `${header(spec, `a workgroup of ${wg} per row: s = sum(g), then g - exp(y) * s`)}${declarations}

${prologue(R, C, wg, g.index)}
  var acc = 0.0;
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { acc = acc + ${G}[base + j]; }
  let s = wg_sum(acc, lid);
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = ${G}[base + j] - exp(${Y}[base + j]) * s; }
}
`;
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [] };
}

/** Clamped label read: `l` (the label), `ok` (inside [0, C)), `lc` (a safe column). */
const labelRead = (labels: string) => `  let l = ${labels}[row];
  let ok = l >= 0i && l < i32(C);
  let lc = u32(clamp(l, 0i, i32(C) - 1i));`;

/** WGSL and dispatch summing `n` f32 values of `src` in one workgroup, times `scale`, into y[0]. */
export function sumToScalarCode(spec: KernelSpec, n: number, wg: number, scaleExpr: string, strategy: string, loadLine: string, srcDecl: string): string {
  return `${header(spec, strategy)}${srcDecl}

const R = ${u32Lit(n)};
${workgroupReduceFns(wg, ['sum'])}

@compute @workgroup_size(${wg})
fn main(@builtin(local_invocation_index) lid: u32) {
  var acc = 0.0;
  for (var row = lid; row < R; row = row + ${u32Lit(wg)}) {
${loadLine}
  }
  let total = wg_sum(acc, lid);
  if (lid == 0u) { y[0] = total${scaleExpr}; }
}
`;
}

const scaleOf = (reduction: Reduction, n: number) => (reduction === 'mean' ? ` / ${f32Lit(n)}` : '');

/** `softmaxCrossEntropy`: per-row losses into scratch (a workgroup per row), then one workgroup sums them. */
export function softmaxCrossEntropyKernel(spec: KernelSpec<'softmaxCrossEntropy'>, caps: DeviceCaps): KernelPlan {
  const { R, C, wg, g } = rowsSetup(spec, caps);
  const { reduction } = spec.node.attrs;
  if (R === 0 || C === 0) kernelError(spec, 'empty batch or no classes');
  const rowBindings = [
    { source: { kind: 'input', index: 0 }, access: 'read', dtype: 'f32' },
    { source: { kind: 'input', index: 1 }, access: 'read', dtype: 'i32' },
    { source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' },
  ] as const;
  const rows = `${header(spec, `pass 1 of 2: a workgroup of ${wg} per row writes logsumexp - x[label] (0 for a label outside [0, C))`)}${declareBindings(rowBindings, ['x', 'labels', 'losses'])}

${prologue(R, C, wg, g.index)}
${rowLse('x', wg)}
${labelRead('labels')}
  if (lid == 0u) { losses[row] = select(0.0, lse - x[base + lc], ok); }
}
`;
  const swg = linearWorkgroupSize(caps);
  const sumBindings = [
    { source: { kind: 'scratch', index: 0 }, access: 'read', dtype: 'f32' },
    { source: { kind: 'output' }, access: 'read_write', dtype: 'f32' },
  ] as const;
  const sum = sumToScalarCode(spec, R, swg, scaleOf(reduction, R), `pass 2 of 2: one workgroup sums ${R} row losses (${reduction})`, '    acc = acc + losses[row];', declareBindings(sumBindings, ['losses', 'y']));
  return {
    dispatches: [
      { label: labelOf(spec.node, `${R}x${C}:rows`), code: rows, bindings: rowBindings, workgroupSize: [wg, 1, 1], grid: g.grid },
      { label: labelOf(spec.node, `${R}x${C}:sum`), code: sum, bindings: sumBindings, workgroupSize: [swg, 1, 1], grid: [1, 1, 1] },
    ],
    scratch: [R * 4],
  };
}

/** `softmaxCrossEntropyGrad`: inputs [logits, labels, dy] → (softmax - onehot)·dy (/ N for mean). */
export function softmaxCrossEntropyGradKernel(spec: KernelSpec<'softmaxCrossEntropyGrad'>, caps: DeviceCaps): KernelPlan {
  const { R, C, wg, g } = rowsSetup(spec, caps);
  const { reduction } = spec.node.attrs;
  if (R === 0) return EMPTY_PLAN;
  const { bindings, name, declarations } = bindOperands(spec, [0, 1, 2], ['x', 'labels', 'dy']);
  const code = `${header(spec, `a workgroup of ${wg} per row: (exp(x - logsumexp) - onehot) * dy${reduction === 'mean' ? ' / N' : ''}`)}${declarations}

${prologue(R, C, wg, g.index)}
${rowLse(name(0), wg)}
${labelRead(name(1))}
  let k = ${name(2)}[0]${scaleOf(reduction, R)};
  for (var j = lid; j < C; j = j + ${u32Lit(wg)}) {
    let hot = select(0.0, 1.0, ok && j == lc);
    y[base + j] = (exp(${name(0)}[base + j] - lse) - hot) * k;
  }
}
`;
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid }], scratch: [] };
}

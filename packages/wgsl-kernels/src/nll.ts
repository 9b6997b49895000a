// Negative log-likelihood over log-probabilities [N, C] with i32 labels [N]: `nll` (a scalar, one workgroup
// striding over rows with a tree sum) and `nllGrad` (one-hot · -dy, / N for mean; a thread per element).
// Labels outside [0, C) must not fault the GPU: reads are clamped and the row contributes 0 (the runtime
// validates labels on the host and raises a clear error before upload).

import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, perElementDispatch, planOf } from './shader.js';
import { sumToScalarDispatch } from './softmax.js';
import { f32Lit, kernelError, labelOf, linearWorkgroupSize, u32Lit } from './wgsl.js';

/** `nll`: -Σ logp[i, label_i] (/ N for mean), in one workgroup. */
export function nllKernel(spec: KernelSpec<'nll'>, caps: DeviceCaps): KernelPlan {
  const [N, C] = spec.inputs[0].shape;
  const { reduction } = spec.node.attrs;
  if (N === 0 || C === 0) kernelError(spec, 'empty batch or no classes');
  const { buffers, name } = bindOperands(spec, [0, 1], ['logp', 'labels']);
  const load = `let l = ${name(1)}[row];
let ok = l >= 0i && l < ${C}i;
let lc = u32(clamp(l, 0i, ${C - 1}i));
acc = acc - select(0.0, ${name(0)}[row * ${u32Lit(C)} + lc], ok);`;
  const wg = linearWorkgroupSize(caps);
  const strategy = `one workgroup of ${wg} sums -logp[i, label_i] over ${N} rows (${reduction}); labels outside [0, ${C}) add 0`;
  return planOf([sumToScalarDispatch(spec, { label: labelOf(spec.node, `${N}x${C}`), strategy, buffers, wg, rows: N, load, scale: reduction === 'mean' ? ` / ${f32Lit(N)}` : '' })]);
}

/** `nllGrad`: inputs [labels [N], dy []] → [N, classes] with -dy (/ N for mean) at each label. */
export function nllGradKernel(spec: KernelSpec<'nllGrad'>, caps: DeviceCaps): KernelPlan {
  const [N, C] = spec.node.shape;
  const { reduction } = spec.node.attrs;
  const n = numel(spec.node.shape);
  if (n === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1], ['labels', 'dy']);
  const body = `let row = o / C;
let col = o % C;
let v = -${name(1)}[0]${reduction === 'mean' ? ` / ${f32Lit(N)}` : ''};
y[o] = select(0.0, v, ${name(0)}[row] == i32(col));`;
  const strategy = `a thread per element: -dy${reduction === 'mean' ? ` / ${N}` : ''} where the column is the row's label, else 0`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n, count: 'TOTAL', decls: [`const C = ${u32Lit(C)};`], body })]);
}

// The cumsum kernel: an inclusive scan along one axis, a thread per row (every index outside the axis), summing
// sequentially in the storage type — the interpreter's order, so f32 results match it bit for bit. No workgroup
// scan: rows are many and short in the models this serves (positions, masks); a parallel scan is future work.

import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { bindOperands, perElementDispatch, planOf } from './shader.js';
import { u32Lit, wgslType } from './wgsl.js';

/** `cumsum`: y[.., i, ..] = Σ_{j ≤ i} x[.., j, ..] along the axis (Σ_{j ≥ i} when `reverse`). */
export function cumsumKernel(spec: KernelSpec<'cumsum'>, caps: DeviceCaps): KernelPlan {
  const { axis, reverse } = spec.node.attrs;
  const shape = spec.node.shape;
  const extent = shape[axis];
  const inner = numel(shape.slice(axis + 1));
  const rows = numel(shape) / Math.max(1, extent);
  if (numel(shape) === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ['x']);
  const step = u32Lit(inner);
  // row o: its first element is at (o / inner)·extent·inner + o % inner, the next ones `inner` apart
  const first = `(o / ${step}) * ${u32Lit(extent * inner)} + o % ${step}`;
  const body = `let first = ${first};
var acc = ${wgslType(spec.node.dtype)}(0);
for (var k = 0u; k < ${u32Lit(extent)}; k = k + 1u) {
  let i = first + ${reverse ? `(${u32Lit(extent - 1)} - k)` : 'k'} * ${step};
  acc = acc + x[i];
  y[i] = acc;
}`;
  const strategy = `${reverse ? 'reverse ' : ''}scan over ${extent} elements of stride ${inner}, a thread per row`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: rows, body })]);
}

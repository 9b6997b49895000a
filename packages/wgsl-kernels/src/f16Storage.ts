// f16 storage for every built-in kernel, in one place: generators write f32 code (an f16 tensor is, to them, an f32
// one: wgslType('f16') is 'f32'); this pass, run by `generateKernel` on each plan, declares the buffers of f16
// tensors `array<f16>`, converts their loads to f32 and their stores back to f16, and adds `enable f16;`, so every
// kernel still computes in f32. A load written `f16(x[i])` (the subgroup-matrix path staging an operand into f16
// workgroup tiles) is left as a direct f16 read. Ops not known to work this way throw a KernelError: never misread.

import { type DType, groupOperands, isElementwise, type OpKind, resultType } from '@neura/ir';
import type { Binding, DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { kernelGroup } from './lazyKernels.js';
import { describeSpec, kernelError } from './wgsl.js';

/**
 * Ops whose built-in generators read and write their tensors only as `name[index]` (no atomics, bit casts or
 * pointers), so the pass below gives them f16 storage. Attention, convolution, pooling and the losses are not here
 * yet: their f16 tensors raise a KernelError (the autocast policy casts to f32 around them).
 */
const F16_OPS: ReadonlySet<OpKind> = new Set<OpKind>([
  'where',
  'cast',
  'sum',
  'mean',
  'reduceMax',
  'reduceMin',
  'transpose',
  'expand',
  'slice',
  'pad',
  'concat',
  'gather',
  'matmul',
  'fusedMatmul',
  'matmulPartials',
  'matmulEpilogue',
  'pointwise',
  'pointwiseMulti',
  'pointwiseMultiTensor',
  'pointwiseReduce',
  'pointwiseReduceMulti',
  'rowwise',
  'rowwiseMulti',
]);

/** Whether the built-in kernel of `op` can read and write f16 tensors. */
export function takesF16(op: OpKind): boolean {
  return F16_OPS.has(op) || isElementwise(op);
}

/** The dtype of the tensor a binding holds (generators may declare every float binding f32). */
function tensorDtype(spec: KernelSpec, b: Binding): DType {
  const s = b.source;
  switch (s.kind) {
    case 'input':
      return spec.inputs[s.index]?.dtype ?? b.dtype;
    case 'output':
      return s.index ? resultType(spec.node, spec.node, s.index).dtype : spec.node.dtype;
    case 'arena': {
      if (spec.node.op !== 'pointwiseMultiTensor') return b.dtype;
      const { operand, shared } = groupOperands(spec.node as KernelSpec<'pointwiseMultiTensor'>['node']);
      return spec.inputs[operand(0, shared + s.role)]?.dtype ?? b.dtype;
    }
    default:
      return b.dtype;
  }
}

/**
 * The plan with f16 storage for the tensors that are f16 (unchanged when there are none). `builtIn`: the plan
 * comes from a built-in generator (a user's kernel with an f16 tensor is an error: it was written for f32).
 */
export function withF16Storage(spec: KernelSpec, plan: KernelPlan, caps: DeviceCaps, builtIn: boolean): KernelPlan {
  const f16 = plan.dispatches.map((d) => d.bindings.map((b) => tensorDtype(spec, b) === 'f16'));
  const rounded = roundedOperands(spec);
  if (!f16.some((row) => row.some(Boolean)) && rounded.length === 0) return plan;
  const op = spec.node.op;
  if (!caps.shaderF16) kernelError(spec, `${op} has f16 tensors, which need the 'shader-f16' feature; the device lacks it (cast to f32, or use precision 'fp32')`);
  if (!builtIn || !takesF16(op))
    kernelError(spec, `${builtIn ? `the ${op} kernel` : `the user kernel registered for ${op}`} does not take f16 tensors yet (${describeSpec(spec)}): cast them to f32 around it`);
  // the conversion itself loads on demand (f16Access.ts): compile loads it for a graph with f16 tensors
  const access = kernelGroup('f16');
  if (access === undefined) kernelError(spec, `${op} has f16 tensors, and f16 storage is not loaded yet: await loadKernels([...ops], { f16: true }) first (compile does this for a graph with f16 tensors)`);
  return { ...plan, dispatches: plan.dispatches.map((d, i) => access.f16Dispatch(spec, d, f16[i], rounded)) };
}

/** Operands of a `matmulEpilogue` read rounded to f16 (its `round` flags). */
function roundedOperands(spec: KernelSpec): number[] {
  if (spec.node.op !== 'matmulEpilogue') return [];
  const r = (spec.node as KernelSpec<'matmulEpilogue'>['node']).attrs.round;
  return [0, 1].filter((i) => r?.[i]);
}

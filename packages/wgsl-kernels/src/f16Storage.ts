// f16 storage for every built-in kernel, in one place: generators write f32 code (an f16 tensor is, to them, an f32
// one: wgslType('f16') is 'f32'); this pass, run by `generateKernel` on each plan, finds the bindings of f16 tensors
// and has f16Access.ts (loaded on demand, with the rest of the mixed-precision code) declare their buffers
// `array<f16>`, convert their loads to f32 and their stores back to f16, and add `enable f16;`, so every kernel still
// computes in f32. A load written `f16(x[i])` (the subgroup-matrix path staging an operand into f16
// workgroup tiles) is left as a direct f16 read. Ops not known to work this way throw a KernelError: never misread.

import { type DType, groupOperands, resultType } from '@neura/ir';
import type { Binding, DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { kernelGroup } from './lazyKernels.js';
import { roundedOperands } from './matmul.js';
import { kernelError } from './wgsl.js';

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
  // an expression that rounds to f16 (a cast folded into a prologue) needs `enable f16;` even with f32 bindings only
  const roundsInCode = plan.dispatches.some((d) => /(?<![\w.])f16\(/.test(d.code) && !/^enable f16;/m.test(d.code));
  if (!f16.some((row) => row.some(Boolean)) && rounded.length === 0 && !roundsInCode) return plan;
  const op = spec.node.op;
  if (!caps.shaderF16) kernelError(spec, `${op} has f16 tensors, which need the 'shader-f16' feature; the device lacks it (cast to f32, or use precision 'fp32')`);
  // which ops take f16 and the conversion itself load on demand (f16Access.ts, in mixedKernels.ts): compile loads
  // them for a graph with f16 tensors
  const access = kernelGroup('mixed');
  if (access === undefined) kernelError(spec, `${op} has f16 tensors, and f16 storage is not loaded yet: await loadKernels([...ops], { mixed: true }) first (compile does this for a graph with f16 tensors)`);
  return access.f16Plan(spec, plan, builtIn, f16, rounded);
}

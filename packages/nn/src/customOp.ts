// customOp: a user-defined op with its own VJP, like jax.custom_vjp or torch.autograd.Function, registered
// once: type inference, reference interpretation and flops go to ir's custom-op table, the VJP to autograd's,
// the WGSL kernel to wgsl-kernels' registry. The returned builder adds the op to any graph; it trains like a built-in op (autograd
// calls the VJP, the optimizer updates what it feeds), the e-graph keeps it as a kernel of its own and lists it
// in its report, and the runtime runs the kernel. Registering a name again replaces the definition.

import { type CustomVjp, registerCustomVjp, unregisterCustomVjp } from '@neura/autograd';
import { type CustomOpDef, type CustomParams, type Graph, registerCustomOp, type Tensor } from '@neura/ir';
import { type KernelGenerator, registerCustomKernel } from '@neura/wgsl-kernels';

/** A custom op: ir's definition, its VJP and its kernel. */
export interface CustomOpOptions extends CustomOpDef {
  /** Gradients of the operands from the upstream gradient, built from graph ops; absent: not differentiable. */
  readonly vjp?: CustomVjp;
  /** The WGSL kernel (specs in, plans out), checked against device limits like a built-in one. */
  readonly kernel: KernelGenerator<'custom'>;
}

/** Adds the custom op to a graph: `op(g, inputs, params?)`. */
export type CustomOpBuilder = (g: Graph, inputs: readonly Tensor[], params?: CustomParams) => Tensor;

/** Registers a custom op (definition, VJP and kernel) and returns its graph builder. */
export function customOp(opts: CustomOpOptions): CustomOpBuilder {
  registerCustomOp(opts);
  if (opts.vjp) registerCustomVjp(opts.name, opts.vjp);
  else unregisterCustomVjp(opts.name);
  registerCustomKernel(opts.name, opts.kernel);
  return (g, inputs, params = {}) => g.custom(opts.name, inputs, params);
}

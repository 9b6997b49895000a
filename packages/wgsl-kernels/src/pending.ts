// Placeholders for ops that ir defines but that have no GPU kernel yet: each throws a KernelError naming the
// op, so a graph using one fails at compile time with a clear message instead of running wrong code. The
// kernels engineer replaces entries here with real generators (see /.ops-ready for the ops' contracts).

import type { KernelGenerator } from './kernel.js';
import { KernelError } from './kernel.js';

/** A generator for an op without a GPU kernel yet: it always throws a KernelError naming the op. */
export function pendingKernel(op: string): KernelGenerator {
  return () => {
    throw new KernelError(`no GPU kernel for '${op}' yet`);
  };
}

/**
 * Wraps a 2-D matmul generator: a batched matmul (rank > 2, ir allows numpy-broadcast batch axes) throws until
 * the kernel learns batch axes; 2-D nodes go to `gen` unchanged.
 */
export function pendingBatched(gen: KernelGenerator): KernelGenerator {
  return (spec, caps) => {
    if (spec.node.shape.length > 2 || spec.inputs.some((t, i) => i < 2 && t.shape.length > 2))
      throw new KernelError(`no GPU kernel for '${spec.node.op}' with batch dimensions yet`);
    return gen(spec, caps);
  };
}

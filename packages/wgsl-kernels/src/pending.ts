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

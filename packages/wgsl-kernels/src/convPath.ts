// Which form computes a convolution, as a public choice: the registry's conv rows follow the rule in conv.ts
// (`auto`); benches and tests force the implicit GEMM or the direct loops. Eager and tiny: the kernels themselves
// stay in the on-demand conv group (lazyKernels.ts).

import type { OpKind } from '@neura/ir';
import type { ConvPath } from './conv.js';
import type { ConvTile } from './convGemm.js';
import type { KernelGenerator } from './kernel.js';
import { lazyKernel } from './lazyKernels.js';

export type { ConvPath };

/** The convolution ops whose kernels have both forms. */
export const CONV_GEMM_OPS = ['conv2d', 'conv2dGradInput', 'conv2dGradWeight'] as const satisfies readonly OpKind[];

/**
 * A generator for the conv ops forced onto `path` (after `loadKernels(['conv2d'])`, like the registry's rows); with
 * `tile`, the implicit GEMM takes that tile wherever it takes the GEMM (benches sweep tiles with it).
 */
export function convKernelWith(path: ConvPath, tile?: ConvTile): KernelGenerator<(typeof CONV_GEMM_OPS)[number]> {
  return lazyKernel('conv', (m) => (spec, caps) => m.convKernelOn(spec, caps, path, tile ? { tile } : undefined));
}

// The fusion width: how many distinct inputs a fused pointwise, row or epilogue kernel may read. Defined here once
// (from ir's kernel limits), read by `optimize` to configure the tensor analysis and by every fusion rule through
// `fusionWidth(egraph)` in tensorAnalysis.ts. Must not import the analysis (the analysis imports this file).

import type { KernelLimits } from '@neura/ir';
import { DEFAULT_KERNEL_LIMITS } from '@neura/ir';

/**
 * Cap of the default fused-kernel width. Wider fusions multiply the alternatives the fusion rules build: with 32
 * storage buffers the GPT 6×384 step's e-graph reached its 50 000-node limit inside the fuse pass and kept a plan of
 * ~620 dispatches. The cap keeps a device with more bindings from a worse plan.
 */
export const MAX_DEFAULT_POINTWISE_INPUTS = 15;

/**
 * The fusion width the pass schedule runs at: WebGPU's default 8 storage buffers, less the output. A device with
 * more gets the `widens` passes again at its own width afterwards, over the same e-graph. Fusing at the device's
 * width from the start gave worse plans: the rules keep a few forms per class and inline a producer's first form, and
 * wide forms (a layer norm's dx re-reading the residual stream's dozen parts) crowded out the narrow ones the cost
 * model prefers: GPT 6×384 (attention op) at 16 buffers 212 dispatches (198 at 8; now 197 at both); and capping the
 * width at 7 instead lost what wide kernels pay for: ResNet-8 at 16 buffers 215 dispatches (187 at width 15 from the
 * start, 180 narrow then wide: its batch norms' backward reads 10-14 tensors per kernel).
 */
export const DEFAULT_FUSION_WIDTH = DEFAULT_KERNEL_LIMITS.maxStorageBuffersPerShaderStage - 1;

/** Most nodes of a fused pointwise expression tree, unless the analysis says otherwise. */
export const DEFAULT_MAX_EXPR_SIZE = 96;

/** The fusion width for a device's limits: its storage buffers per stage less the output, in [1, MAX_DEFAULT_POINTWISE_INPUTS]. */
export function deviceFusionWidth(limits: KernelLimits): number {
  return Math.max(1, Math.min(MAX_DEFAULT_POINTWISE_INPUTS, limits.maxStorageBuffersPerShaderStage - 1));
}

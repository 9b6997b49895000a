// The conv group's kernels (loaded on demand, lazyKernels.ts): conv2d, conv2dGradInput and conv2dGradWeight pick
// between the implicit GEMM (convGemm.ts + convIm2col.ts) and the direct loops (convDirect.ts) by one rule,
// `convPathOf`, here and nowhere else; the pooling kernels (pool.ts) are re-exported so the group is one module.

import { type DeviceCaps, EMPTY_PLAN, isSpecOf, type KernelPlan, type KernelSpec } from './kernel.js';
import { planOf } from './shader.js';
import { numel } from '@neura/ir';
import { chooseConvSplitK, chooseConvTile, type ConvSplitK, type ConvTile, convGemmGrid, implicitGemmPlan } from './convGemm.js';
import { type ConvOp, convGemmOf, convGradInputPhasesOf } from './convIm2col.js';
import { conv2dDirectKernel, conv2dGradInputDirectKernel, conv2dGradWeightDirectKernel } from './convDirect.js';

export { avgPool2dGradKernel, avgPool2dKernel, maxPool2dGradKernel, maxPool2dIndicesKernel, maxPool2dKernel } from './pool.js';
export { conv2dDirectKernel, conv2dGradInputDirectKernel, conv2dGradWeightDirectKernel } from './convDirect.js';

/** Below this many rows or columns of a group's product, a GEMM tile is mostly padding: direct loops instead. */
export const CONV_GEMM_MIN_EXTENT = 8;

/** The implicit GEMM's choices for a conv node: its tile and, for the weight gradient, a split of K. */
export interface ConvGemmChoice {
  readonly tile: ConvTile;
  readonly split?: ConvSplitK;
}

/** `auto`: the rule (`convPathOf`); `gemm`: the implicit GEMM (convGemm.ts); `direct`: the direct loops (convDirect.ts). */
export type ConvPath = 'auto' | 'gemm' | 'direct';

/**
 * The rule: the implicit GEMM unless a group's product has fewer than CONV_GEMM_MIN_EXTENT rows or columns
 * (depthwise and other few-channel groups: its tile would be mostly padding), no tile fits the device, or its
 * grid exceeds maxComputeWorkgroupsPerDimension; then the direct loops. Split-K only for conv2dGradWeight (its K is
 * N·Ho·Wo, long, over few output tiles); the other ops pick tiles small enough to fill the GPU (chooseConvTile).
 */
export function convPathOf(spec: KernelSpec<ConvOp>, caps: DeviceCaps): { path: 'direct' } | ({ path: 'gemm' } & ConvGemmChoice) {
  const g = convGemmOf(spec);
  if (g.M < CONV_GEMM_MIN_EXTENT || g.N < CONV_GEMM_MIN_EXTENT) return { path: 'direct' };
  const tile = chooseConvTile(g.M, g.N, caps, g.groups, spec.node.op !== 'conv2dGradWeight');
  if (!tile) return { path: 'direct' };
  const split = spec.node.op === 'conv2dGradWeight' ? chooseConvSplitK(g, tile, caps) : undefined;
  if (convGemmGrid(g, tile, split?.splits ?? 1).some((d) => d > caps.maxComputeWorkgroupsPerDimension)) return { path: 'direct' };
  return { path: 'gemm', tile, ...(split ? { split } : {}) };
}

const DIRECT: { readonly [K in ConvOp]: (spec: KernelSpec<K>, caps: DeviceCaps) => KernelPlan } = {
  conv2d: conv2dDirectKernel,
  conv2dGradInput: conv2dGradInputDirectKernel,
  conv2dGradWeight: conv2dGradWeightDirectKernel,
};

/**
 * A conv op's plan on `path`: `auto` follows `convPathOf`; `gemm` takes the implicit GEMM even where the rule
 * would not (a tile must still fit), with `choice` overriding its tile and split (tests and benches).
 */
export function convKernelOn<K extends ConvOp>(spec: KernelSpec<K>, caps: DeviceCaps, path: ConvPath = 'auto', choice?: Partial<ConvGemmChoice>): KernelPlan {
  if (numel(spec.node.shape) === 0) return EMPTY_PLAN;
  const direct = DIRECT[spec.node.op as K] as (spec: KernelSpec<K>, caps: DeviceCaps) => KernelPlan;
  if (path === 'direct') return direct(spec, caps);
  const rule = convPathOf(spec, caps);
  if (path === 'auto' && rule.path === 'direct') return direct(spec, caps);
  const g = convGemmOf(spec);
  if (g.K === 0) return direct(spec, caps); // an empty sum: the direct kernels write the zeros
  const tile = choice?.tile ?? (rule.path === 'gemm' ? rule.tile : chooseConvTile(g.M, g.N, caps, g.groups, spec.node.op !== 'conv2dGradWeight'));
  if (!tile) return direct(spec, caps);
  // the split: as given, else the rule's for this tile (weight gradients only)
  const split = choice && 'split' in choice ? choice.split : spec.node.op === 'conv2dGradWeight' ? chooseConvSplitK(g, tile, caps) : undefined;
  const phases = isSpecOf(spec, 'conv2dGradInput') && spec.node.attrs.stride.some((s) => s > 1) ? convGradInputPhasesOf(spec) : [];
  // a GEMM per phase of the stride, each over its own pixels and taps (convIm2col.ts), each with its own tile; not
  // where a phase has no taps (a 1x1 stride-2 kernel: 3 of 4 phases would be dispatches writing zeros, while the
  // one gather GEMM's masked taps cost little with K = O/G)
  if (phases.length > 1 && phases.every((p) => p.K > 0))
    return planOf(phases.flatMap((p) => implicitGemmPlan(p, choice?.tile ?? chooseConvTile(p.M, p.N, caps, p.groups) ?? tile, caps).dispatches));
  return implicitGemmPlan(g, tile, caps, split);
}

/** `conv2d` [x, w] → y: the implicit GEMM or the direct loops, by `convPathOf`. */
export const conv2dKernel = (spec: KernelSpec<'conv2d'>, caps: DeviceCaps): KernelPlan => convKernelOn(spec, caps);
/** `conv2dGradInput` [dy, w] → dx: the implicit GEMM or the direct loops, by `convPathOf`. */
export const conv2dGradInputKernel = (spec: KernelSpec<'conv2dGradInput'>, caps: DeviceCaps): KernelPlan => convKernelOn(spec, caps);
/** `conv2dGradWeight` [x, dy] → dw: the implicit GEMM (split-K) or the direct loops, by `convPathOf`. */
export const conv2dGradWeightKernel = (spec: KernelSpec<'conv2dGradWeight'>, caps: DeviceCaps): KernelPlan => convKernelOn(spec, caps);

// `matmulPartials`: the split-K partial products of op(A)·op(B) as one tiled dispatch, partial s (grid z) summing
// K's chunk s into the node's own [S, M, N] output. The same kernel as a split-K matmul's first pass (matmul.ts),
// or under the mixed-precision policy (`caps.mixedMatmul`) the subgroup-matrix one (matmulSubgroupMatrix.ts), with
// the chunk from ir's `splitKChunk` so that the interpreter and the kernel sum the same products; the reduce pass
// belongs to whoever reads the partials. Must not exceed `caps`.

import { splitKChunk } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { kernelGroup } from './lazyKernels.js';
import type { SubgroupMatrixTiling } from './matmulSubgroupMatrix.js';
import { MATMUL_CONFIGS, matmulConfigFits, type MatmulProblem, prefersSkinny, tiledPlan } from './matmul.js';
import { kernelError } from './wgsl.js';

/**
 * `matmulPartials`: under `caps.mixedMatmul` a subgroup-matrix plan (f16 operands, f32 partials) where one fits and
 * the shape is not a skinny one; otherwise the first configuration of MATMUL_CONFIGS that fits, split as the node's
 * `splits` say (`override`: fields set over the chosen subgroup-matrix tiling, as benches compare variants).
 */
export function matmulPartialsKernel(spec: KernelSpec<'matmulPartials'>, caps: DeviceCaps, override?: Partial<SubgroupMatrixTiling>): KernelPlan {
  const { transA, transB, splits } = spec.node.attrs;
  const [S, M, N] = spec.node.shape;
  const a = spec.inputs[0].shape;
  const K = transA ? a[0] : a[1];
  if (S === 0 || M === 0 || N === 0) return { dispatches: [], scratch: [] };
  const chunk = splitKChunk(K, splits);
  const p: MatmulProblem = { spec, M, N, K, transA, transB, hasBias: false, relu: false, batch: [], batches: 1, offsets: '' };
  if (caps.mixedMatmul && !prefersSkinny(M, N, transA, transB)) {
    const mixed = kernelGroup('mixed');
    if (mixed === undefined) return kernelError(spec, "the mixed-precision matmuls are not loaded yet: await loadKernels([...ops], { mixed: true }) first (compile does this under precision 'mixed')");
    const plan = mixed.subgroupMatrixPartialsPlan(p, splits, chunk, caps, override);
    if (plan) return plan;
  }
  const cfg = MATMUL_CONFIGS.find((c) => matmulConfigFits(c, caps));
  if (!cfg) return kernelError(spec, 'no tiled matmul configuration fits the device');
  if (chunk % cfg.bk !== 0) kernelError(spec, `the chunk of K (${chunk}) is not a multiple of the tile's k slice ${cfg.bk}`);
  return tiledPlan(p, cfg, caps, { splits, chunk, partialsOut: true });
}

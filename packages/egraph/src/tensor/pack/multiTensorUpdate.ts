// Grouped optimizer updates (`pointwiseMultiTensor`, offered by rules/multiTensorUpdate.ts): one dispatch updates
// many parameters. Chosen in extraction; this module prices each result by its group's share of the traffic.

import { groupOperands, kernelOutputs } from '@neura/ir';
import type { ENode } from '../../core/index.js';
import { fromENode } from '../tensorLanguage.js';
import type { Packer, ShareCtx } from './packer.js';

/**
 * The dispatch shared by every result, the traffic and work by each result's group (its share of elements): a
 * small parameter's update is then cheaper in the group than alone, whatever the other groups' sizes. A group
 * reading S split-K partials moves S − 1 more tensors of its size, charged to its result 0 alone (any one result of
 * it needs them; charged to all, each result looked cheaper computed apart from the rest).
 */
function share(multi: ENode, index: number, _src: number, ctx: ShareCtx): number {
  const ir = fromENode(multi);
  if (ir.op !== 'pointwiseMultiTensor') return ctx.whole;
  // computed once per node: a multi-tensor update has a pick per parameter and hundreds of operands
  const { sizes, extra, total } = ctx.memo(() => {
    const { roles } = groupOperands({ inputs: multi.children, attrs: ir.attrs });
    const P = ir.attrs.partials;
    const moved = roles + ir.attrs.exprs.length;
    const numels = ir.attrs.shapes.map((s) => s.reduce((p, d) => p * d, 1));
    const sizes = numels.map((n) => n * moved);
    const extra = numels.map((n, g) => (P ? n * (P.splits[g] - 1) : 0));
    return { sizes, extra, total: sizes.reduce((a, b) => a + b, 0) + extra.reduce((a, b) => a + b, 0) || 1 };
  });
  const k = kernelOutputs(ir);
  const R = ir.attrs.exprs.length;
  const g = Math.floor(index / R);
  return ctx.dispatchCost / k + ((ctx.whole - ctx.dispatchCost) * (sizes[g] / R + (index % R === 0 ? (extra[g] ?? 0) : 0))) / total;
}

/** The grouped-update packer (prices only; the split-K fold is `splitKFoldPacker`). */
export const multiTensorUpdatePacker: Packer = { name: 'update-multi-tensor', op: 'pointwiseMultiTensor', share };

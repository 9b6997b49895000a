// Attention with its log-sum-exp (`attentionWithLse`, offered by rules/attentionLse.ts): the forward kernel also
// writes the row log-sum-exp the backward reads. Chosen in extraction; this module prices its two results.

import { resultType } from '@neura/ir';
import type { ENode, Id } from '../../core/index.js';
import { fromENode, irENode } from '../tensorLanguage.js';
import type { Packer, ShareCtx } from './packer.js';

/**
 * The log-sum-exp result is charged just under a separate attentionLse kernel (the rest on result 0): taking the
 * log-sum-exp from the forward must look cheaper than recomputing it, and result 0 alone must not look cheaper
 * than attention.
 */
function share(multi: ENode, index: number, src: Id, ctx: ShareCtx): number {
  const ir = fromENode(multi);
  if (ir.op !== 'attentionWithLse') return ctx.whole;
  const lseNode = irENode('attentionLse', ir.attrs, multi.children.slice(0, 2));
  const lseType = resultType(ir, ctx.egraph.eclass(src).data, 1);
  const lse = Math.min(ctx.whole, ctx.cost(lseNode, { shape: lseType.shape, dtype: lseType.dtype })) * (1 - 1e-6);
  return index === 1 ? lse : ctx.whole - lse;
}

/** The attention-with-log-sum-exp packer (prices only). */
export const attentionWithLsePacker: Packer = { name: 'attention-lse', op: 'attentionWithLse', share };

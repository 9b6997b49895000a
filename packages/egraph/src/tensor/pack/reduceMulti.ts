// Sibling column reductions (`pointwiseReduceMulti`, offered by rules/reduceMulti.ts): a layer norm's dγ and dβ in
// one pass. Each result is priced in proportion to its reduction alone, and the kernel is taken after extraction:
// offered where the plan computes its operands, then the second extraction's moves take its results.

import type { OpAttrs, PwExpr } from '@neura/ir';
import { reducedShape } from '@neura/ir';
import type { ENode } from '../../core/index.js';
import { mapInputs } from '../pointwiseFusion.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { nodeOf, type PackState, type Packer, type ShareCtx } from './packer.js';

/** The cost of one result as its own `pointwiseReduce` over the operands it reads. */
function aloneCost(multi: ENode, r: { expr: PwExpr; post: PwExpr }, a: OpAttrs['pointwiseReduceMulti'], ctx: ShareCtx): number {
  const reads: number[] = [];
  mapInputs(r.expr, (i) => {
    if (!reads.includes(i)) reads.push(i);
    return { op: 'in', index: i };
  });
  const expr = mapInputs(r.expr, (i) => ({ op: 'in', index: reads.indexOf(i) }));
  const { results: _, ...rest } = a;
  const node = irENode('pointwiseReduce', { ...rest, expr, post: r.post }, reads.map((i) => multi.children[i]));
  return ctx.cost(node, { shape: reducedShape(a.shape, a.axes, a.keepdims), dtype: 'f32' });
}

/**
 * Each result pays in proportion to its reduction alone: any single result moved into the kernel is then cheaper
 * than its own kernel whenever the group is, so a search taking them one at a time takes them all.
 */
function share(multi: ENode, index: number, _src: number, ctx: ShareCtx): number {
  const a = enodeAttrs(multi, 'pointwiseReduceMulti');
  const alone = ctx.memo(() => a.results.map((r) => aloneCost(multi, r, a, ctx)));
  const total = alone.reduce((x, y) => x + y, 0);
  return total > 0 && Number.isFinite(total) ? (ctx.whole * alone[index]) / total : ctx.whole / alone.length;
}

/**
 * Offers the kernels over operands the plan now computes (a norm's dγ reading the x̂ its forward row kernel writes
 * once the row packer took it, beside its dβ): their picks become alternatives of the second extraction.
 */
function offer(s: PackState): void {
  const { egraph } = s;
  for (const m of egraph.classesWithOp('pointwiseReduceMulti')) {
    const M = egraph.find(m);
    const n = nodeOf(egraph, M, 'pointwiseReduceMulti');
    if (n && !s.choice.has(M) && n.children.every((c) => s.choice.has(egraph.find(c)))) s.choice.set(M, n);
  }
}

/** The sibling-reduction packer. */
export const reduceMultiPacker: Packer = { name: 'reduce-multi', op: 'pointwiseReduceMulti', late: true, share, pack: offer };

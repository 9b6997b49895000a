// A cast to f16 folded into the reduction that reads it (`reduce-cast`): sum(cast:f16(x)) over an f32 x, an f16
// result, equals an f16 `pointwiseReduce` reading x with the cast as its prologue. Autocast's bias gradients are such
// sums (the f32 gradient of a layer norm or of attention cast to f16, summed over rows): the cast then needs no kernel
// of its own, and the gradient stays an f16 tensor, grouped with the weights' f16 gradients by the optimizer update.
// Exact: each element is rounded as the cast would, and the result once, as the f16 reduction stores it.
// Must not choose: an alternative with a cost, extraction decides.

import type { PwExpr, ReduceOp } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, classHasOp, nodeRule, type TensorRewrite } from './ruleKit.js';

/** The reductions whose f16 result is their f32 result rounded once (a max or min of rounded values is exact too). */
const REDUCES = ['sum', 'mean', 'reduceMax', 'reduceMin'] as const;

/** For an f16 reduction of a class holding cast:f16 of an f32 tensor: the f16 `pointwiseReduce` with that cast as prologue. */
function reduceCast(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  if (egraph.eclass(eclass).data.dtype !== 'f16') return [];
  const reduce = node.op as ReduceOp;
  const { axes, keepdims } = enodeAttrs(node, reduce);
  const out: Id[] = [];
  for (const c of egraph.eclass(node.children[0]).nodes) {
    if (c.op !== 'cast' || enodeAttrs(c, 'cast').to !== 'f16') continue;
    const x = egraph.eclass(c.children[0]).data;
    if (x.dtype !== 'f32') continue;
    const expr: PwExpr = { op: 'cast', to: 'f16', a: { op: 'in', index: 0 } };
    const data = { expr, shape: [...x.shape], reduce, axes: [...axes], keepdims, post: { op: 'in', index: 0 } as PwExpr, dtype: 'f16' as const };
    out.push(addRecorded(egraph, irENode('pointwiseReduce', data, [c.children[0]]), ['reduce-cast']));
    break;
  }
  return out;
}

/** The cast-into-reduction rule. */
export const castReduceRules: readonly TensorRewrite[] = [nodeRule('reduce-cast', REDUCES, reduceCast, { guard: (egraph, _e, n) => classHasOp(egraph, n.children[0], 'cast') })];

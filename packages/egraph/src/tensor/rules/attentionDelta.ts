// The attention Δ rule: a gradient pass (`attentionGrad`, `attentionGradKV`) whose Δ operand is rowsum(dOut ⊙ O)
// of its own dOut and a tensor O shaped as dOut (attention's output, as autograd builds it) equals the same pass
// with `deltaFromOut` reading O there: the kernel computes Δ of the rows it reads, so the separate reduction (a
// dispatch, and Δ's round trip through memory) goes when nothing else reads Δ. Only for head sizes the flash
// kernels take (the simple kernels read Δ). Must not choose: extraction weighs the extra reads of O.
// Invariant: the rewritten pass has exactly the value of the class it joins.

import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, fromENode, irENode } from '../tensorLanguage.js';
import { flashDim } from './attentionLayout.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-delta-from-out';

/** The O of sum(mul(dOut, O) or mul(O, dOut), [last axis]) in class `delta`, with O shaped as dOut. */
function outOfDelta(egraph: EGraph<TensorInfo>, delta: Id, dOut: Id): Id | undefined {
  const shape = egraph.eclass(dOut).data.shape;
  for (const s of egraph.eclass(delta).nodes) {
    if (s.op !== 'sum') continue;
    const { axes, keepdims } = enodeAttrs(s, 'sum');
    if (keepdims || axes.length !== 1 || axes[0] !== shape.length - 1) continue;
    for (const m of egraph.eclass(s.children[0]).nodes) {
      if (m.op !== 'mul') continue;
      const [a, b] = m.children.map((c) => egraph.find(c));
      const o = a === dOut ? b : b === dOut ? a : undefined;
      if (o !== undefined && sameShape(egraph.eclass(o).data.shape, shape)) return o;
    }
  }
  return undefined;
}

function deltaFromOut(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const ir = fromENode(node);
  if ((ir.op !== 'attentionGrad' && ir.op !== 'attentionGradKV') || ir.attrs.deltaFromOut) return [];
  const kids = node.children.map((c) => egraph.find(c));
  const shapes = kids.slice(0, 3).map((c) => egraph.eclass(c).data.shape);
  if (!shapes.every((s) => flashDim(s[s.length - 1]))) return [];
  const o = outOfDelta(egraph, kids[5], kids[3]);
  if (o === undefined) return [];
  return [addRecorded(egraph, irENode(ir.op, { ...ir.attrs, deltaFromOut: true } as never, [...kids.slice(0, 5), o]), [RULE])];
}

/** The attention Δ rule set. */
export const attentionDeltaRules: readonly TensorRewrite[] = [nodeRule(RULE, ['attentionGrad', 'attentionGradKV'], deltaFromOut)];

// A cast to f16 folded into the product that reads it (`matmul-round-operand`): matmul(cast:f16(x), y), with x f32,
// equals a `matmulEpilogue` reading x itself and rounding it to f16 as it loads (its `round` flag), so autocast's
// casts of weights, norm outputs and f32 gradients in front of matmuls need no kernel of their own; and a cast
// extra operand of an epilogue (a bias cast to f16) is read uncast and cast in the expression (`matmul-cast-extra`).
// Exact: each element is rounded as the cast would. Must not choose: alternatives with a cost, extraction decides.

import { type DType, isFloat, type PwExpr } from '@neura/ir';
import { mapInputs } from '../pointwiseFusion.js';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, childSignature, classHasOp, classOpCount, nodeRule, type TensorRewrite } from './ruleKit.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** For a product with an operand class holding cast:f16 of an f32 class: the product reading that class rounded. */
function roundOperand(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const base: { transA: boolean; transB: boolean; expr: PwExpr; dtype?: DType; round: [boolean, boolean] } =
    node.op === 'matmul'
      ? { ...enodeAttrs(node, 'matmul'), expr: { op: 'in', index: 0 } as PwExpr, round: [false, false] as [boolean, boolean] }
      : (() => {
          const a = enodeAttrs(node, 'matmulEpilogue');
          return { transA: a.transA, transB: a.transB, expr: a.expr, dtype: a.dtype, round: [...(a.round ?? [false, false])] as [boolean, boolean] };
        })();
  const out: Id[] = [];
  for (const i of [0, 1]) {
    if (base.round[i]) continue;
    for (const c of egraph.eclass(node.children[i]).nodes) {
      if (c.op !== 'cast' || enodeAttrs(c, 'cast').to !== 'f16' || info(egraph, c.children[0]).dtype !== 'f32') continue;
      const round: [boolean, boolean] = [...base.round];
      round[i] = true;
      const children = [...node.children];
      children[i] = c.children[0];
      // the result type stays the class's: an f16 product unless the epilogue gave it another dtype
      const dtype = base.dtype ?? (info(egraph, eclass).dtype === 'f16' ? undefined : info(egraph, eclass).dtype);
      const data = { transA: base.transA, transB: base.transB, expr: base.expr, ...(dtype ? { dtype } : {}), round };
      out.push(addRecorded(egraph, irENode('matmulEpilogue', data, children), ['matmul-round-operand']));
      break;
    }
  }
  // an epilogue's extra operand that is a cast (a bias cast to f16): read the source and cast in the expression
  if (node.op === 'matmulEpilogue')
    node.children.slice(2).forEach((x, k) => {
      const c = egraph.eclass(x).nodes.find((m) => m.op === 'cast' && isFloat(info(egraph, m.children[0]).dtype) && isFloat(enodeAttrs(m, 'cast').to));
      if (!c) return;
      const to = enodeAttrs(c, 'cast').to;
      const expr = mapInputs(base.expr, (j): PwExpr => (j === k + 2 - 1 ? { op: 'cast', to, a: { op: 'in', index: j } } : { op: 'in', index: j }));
      const children = [...node.children];
      children[k + 2] = c.children[0];
      const a = enodeAttrs(node, 'matmulEpilogue');
      out.push(addRecorded(egraph, irENode('matmulEpilogue', { ...a, expr }, children), ['matmul-cast-extra']));
    });
  return out;
}

/** The cast-into-product rules. */
export const castOperandRules: readonly TensorRewrite[] = [
  // one rule for both (operands and extras), as both look at the same casts: `matmul-round-operand` names it
  nodeRule('matmul-round-operand', ['matmul', 'matmulEpilogue'], roundOperand, {
    // the kept op set of each input class: no scan of its variants; the rule reads only its inputs' casts, so the
    // signature counts those and a node failing the guard is not tested again until one joins
    guard: (egraph, _e, n) => n.children.some((c) => classHasOp(egraph, c, 'cast')),
    guardBySignature: true,
    signature: childSignature((eg, c) => classOpCount(eg, c, 'cast')),
    // an f32 graph holds no cast: the guard then fails everywhere, and the search is skipped
    requiresOps: ['cast'],
  }),
];

// Algebraic simplification rules: identities, constant folding and scalar-factor reassociation. Must not fuse
// (fusion.ts decides kernels). Invariant: a rule unions only classes of equal shape and dtype, which the
// conditions check through the analysis (the analysis would throw otherwise).

import { broadcastShapes, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { constENode } from '../tensorLanguage.js';
import { addRecorded, all, classRule, constants, isF32, nodeRule, notConstant, sameTypeAs, type TensorRewrite, trw, trwFn } from './ruleKit.js';

/** A constant filled with the matched class's value, of its type. */
function foldClass(egraph: EGraph<TensorInfo>, eclass: Id): Id | undefined {
  const d = egraph.eclass(eclass).data;
  if (d.constant === undefined) return undefined;
  return addRecorded(egraph, constENode(d.constant, d.shape, d.dtype), ['const-fold']);
}

/** Zeros of the matched class's type. */
function zerosOf(egraph: EGraph<TensorInfo>, eclass: Id): Id {
  const d = egraph.eclass(eclass).data;
  return egraph.add(constENode(0, d.shape, d.dtype));
}

/** `(mul (mul ?a ?c1) ?c2)` → `(mul ?a c1·c2)` for scalar (uniform) constants c1, c2. */
function mulConstants(egraph: EGraph<TensorInfo>, eclass: Id, a: Id, c1: Id, c2: Id): Id | undefined {
  const d1 = egraph.eclass(c1).data;
  const d2 = egraph.eclass(c2).data;
  const shape = broadcastShapes(d1.shape, d2.shape);
  if (!shape) return undefined;
  const c = egraph.add(constENode((d1.constant as number) * (d2.constant as number), shape, egraph.eclass(eclass).data.dtype));
  return egraph.add({ op: 'mul', children: [a, c] });
}

const hasConstNode = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).nodes.some((n) => n.op === 'const');

/**
 * `sum(neg x)` → `neg(sum x)` and `sum(x·c)` → `sum(x)·c` for a uniform constant c that does not broadcast x (also
 * `mean`): the elementwise op moves from the reduction's large input to its small output, where it fuses into
 * the consumer (the negations of the layer-norm backward). Linear, so exact up to rounding.
 */
function reduceFactorOut(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const out: Id[] = [];
  const inner = egraph.eclass(node.children[0]);
  for (const n of inner.nodes) {
    if (n.op === 'neg') {
      const r = addRecorded(egraph, { op: node.op, data: node.data, children: [n.children[0]] }, ['reduce-factor-out']);
      out.push(addRecorded(egraph, { op: 'neg', children: [r] }, ['reduce-factor-out']));
    } else if (n.op === 'mul' && inner.data.dtype === 'f32') {
      const [x, c] = n.children;
      const cd = egraph.eclass(c).data;
      if (cd.constant === undefined || !sameShape(egraph.eclass(x).data.shape, inner.data.shape)) continue;
      const r = addRecorded(egraph, { op: node.op, data: node.data, children: [x] }, ['reduce-factor-out']);
      const k = egraph.add(constENode(cd.constant, [], cd.dtype));
      out.push(addRecorded(egraph, { op: 'mul', children: [r, k] }, ['reduce-factor-out']));
    }
  }
  return out;
}

/** The algebra rule set. */
export const algebraRules: readonly TensorRewrite[] = [
  trw('add-zero', '(add ?a 0)', '?a', sameTypeAs('?a')),
  trw('add-zero-l', '(add 0 ?a)', '?a', sameTypeAs('?a')),
  trw('sub-zero', '(sub ?a 0)', '?a', sameTypeAs('?a')),
  trw('mul-one', '(mul ?a 1)', '?a', sameTypeAs('?a')),
  trw('mul-one-l', '(mul 1 ?a)', '?a', sameTypeAs('?a')),
  trw('div-one', '(div ?a 1)', '?a', sameTypeAs('?a')),
  trw('neg-neg', '(neg (neg ?a))', '?a', sameTypeAs('?a')),
  // x·0 = 0 of the product's shape (not IEEE-exact for x = ±∞ or NaN, as in every tensor compiler)
  trwFn('mul-zero', '(mul ?a 0)', zerosOf),
  trwFn('mul-zero-l', '(mul 0 ?a)', zerosOf),
  classRule('const-fold', (eg, id) => eg.eclass(id).data.constant !== undefined && !hasConstNode(eg, id), foldClass),
  // constants to the right of a product, so that the reassociation below sees every order
  trw('mul-const-right', '(mul ?c ?a)', '(mul ?a ?c)', all(constants('?c'), notConstant('?a'))),
  trwFn(
    'mul-const-assoc',
    '(mul (mul ?a ?c1) ?c2)',
    (eg, e, s) => mulConstants(eg, e, s.get('?a'), s.get('?c1'), s.get('?c2')),
    all(isF32, constants('?c1', '?c2'), notConstant('?a')),
  ),
  nodeRule('reduce-factor-out', ['sum', 'mean'], reduceFactorOut, {
    guard: (eg, _e, n) => eg.eclass(n.children[0]).nodes.some((m) => m.op === 'neg' || m.op === 'mul'),
  }),
];

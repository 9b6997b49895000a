// Algebraic simplification rules: identities, constant folding and scalar-factor reassociation. Must not fuse
// (fusion.ts decides kernels). Invariants: a rule unions only classes of equal shape and dtype, which the
// conditions check through the analysis (the analysis would throw otherwise); and every rule keeps IEEE f32 results
// bit for bit (±0, ±Infinity and NaN included, NaN payloads aside): `x + (+0)` stays (−0 + 0 = +0), `x·0` stays
// (∞·0 is NaN, −1·0 is −0), and constants reassociate only where no rounding, overflow or underflow can differ.

import { broadcastShapes } from '@neura/ir';
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

/** Whether `c` is ±2^k with k ≥ 0: x·c is then exact in f32 and f64 unless it overflows. */
const scalesUpExactly = (c: number): boolean => {
  const m = Math.abs(c);
  return m >= 1 && Number.isFinite(m) && 2 ** Math.round(Math.log2(m)) === m;
};

/**
 * `(mul (mul ?a ?c1) ?c2)` → `(mul ?a c1·c2)` for uniform constants c1, c2 that are both ±2^k, k ≥ 0: each product
 * is then exact or overflows, and (x·c1)·c2 overflows exactly when x·(c1·c2) does, so both give the same ±Infinity,
 * NaN and signed zeros. Other constants are not reassociated: (x·1e30)·1e-30 is Infinity for x = 1e10 in f32, and a
 * product of two roundings differs from one rounding.
 */
function mulConstants(egraph: EGraph<TensorInfo>, eclass: Id, a: Id, c1: Id, c2: Id): Id | undefined {
  const d1 = egraph.eclass(c1).data;
  const d2 = egraph.eclass(c2).data;
  const [v1, v2] = [d1.constant as number, d2.constant as number];
  const shape = broadcastShapes(d1.shape, d2.shape);
  if (!shape || !scalesUpExactly(v1) || !scalesUpExactly(v2) || !Number.isFinite(Math.fround(v1 * v2))) return undefined;
  const c = egraph.add(constENode(v1 * v2, shape, egraph.eclass(eclass).data.dtype));
  return egraph.add({ op: 'mul', children: [a, c] });
}

const hasConstNode = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).nodes.some((n) => n.op === 'const');

/**
 * `sum(neg x)` → `0 − sum(x)` (also `mean`): the negation moves from the reduction's large input to its small
 * output, where it fuses into the consumer (the negations of the layer-norm backward). Exact in IEEE arithmetic:
 * rounding is symmetric, and a reduction starts from +0, so a zero sum of negated values is +0, as `0 − (±0)` is
 * (`neg` would give −0). `sum(x·c)` → `sum(x)·c` is not a rule: sum(x)·0.5 overflows where sum(x·0.5) does not.
 */
function reduceFactorOut(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const out: Id[] = [];
  const inner = egraph.eclass(node.children[0]);
  const d = egraph.eclass(eclass).data;
  if (d.dtype !== 'f32') return out;
  for (const n of inner.nodes) {
    if (n.op !== 'neg') continue;
    const r = addRecorded(egraph, { op: node.op, data: node.data, children: [n.children[0]] }, ['reduce-factor-out']);
    const zero = egraph.add(constENode(0, [], d.dtype));
    out.push(addRecorded(egraph, { op: 'sub', children: [zero, r] }, ['reduce-factor-out']));
  }
  return out;
}

/** The algebra rule set. */
export const algebraRules: readonly TensorRewrite[] = [
  // x + (−0) = x for every x, −0 included; x + (+0) is not a rule (−0 + 0 = +0). The pattern's -0 matches only −0.
  trw('add-zero', '(add ?a -0)', '?a', sameTypeAs('?a')),
  trw('add-zero-l', '(add -0 ?a)', '?a', sameTypeAs('?a')),
  // x − (+0) = x for every x (−0 − 0 = −0); x − (−0) is not (−0 − (−0) = +0)
  trw('sub-zero', '(sub ?a 0)', '?a', sameTypeAs('?a')),
  trw('mul-one', '(mul ?a 1)', '?a', sameTypeAs('?a')),
  trw('mul-one-l', '(mul 1 ?a)', '?a', sameTypeAs('?a')),
  trw('div-one', '(div ?a 1)', '?a', sameTypeAs('?a')),
  trw('neg-neg', '(neg (neg ?a))', '?a', sameTypeAs('?a')),
  // no x·0 → 0: ∞·0 and NaN·0 are NaN and a negative x gives −0; the tensor analysis knows no ranges to prove it
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
    guard: (eg, _e, n) => eg.eclass(n.children[0]).nodes.some((m) => m.op === 'neg'),
  }),
];

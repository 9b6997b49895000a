// Reduction fusion: a reduction takes the pointwise work before it (its prologue: the producer's expression is
// computed per element inside the reduction, so the producer's tensor is never written) and after it (its
// epilogue: a pointwise function of the reduced value alone, e.g. the negation of a mean's gradient or the
// rsqrt(var + ε) of a layer norm). Both become one `pointwiseReduce` node in the reduction's class; the cost model
// decides, e.g. a prologue whose producer is read by other kernels too is recomputed only where that is cheaper.
// Must not keep state outside the run's `RuleCtx`. Invariant: a fused node computes exactly its class's value.

import type { PwExpr, ReduceOp } from '@neura/ir';
import { pwArity, pwExprSize, REDUCE_OPS, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { exprOf, isPrimaryExpr, mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, classHasAnyOp, classHasOp, nodeRule, ruleSetIn, type TensorRewrite } from './ruleKit.js';
import { withRule } from '../ruleSet.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;
const IDENTITY: PwExpr = { op: 'in', index: 0 };

/** Largest epilogue (in expression nodes) `reduce-epilogue` builds: it runs once per reduced value. */
const MAX_EPILOGUE_SIZE = 24;

/** `e` with every `$0` replaced by `inner` (the epilogue reads only the reduced value). */
const compose = (e: PwExpr, inner: PwExpr): PwExpr => mapInputs(e, () => inner);

/** The reduction of a class as a `pointwiseReduce` description: its own attributes, or a plain reduce's. */
function asPointwiseReduce(egraph: EGraph<TensorInfo>, n: ENode) {
  if (n.op === 'pointwiseReduce') return { attrs: enodeAttrs(n, 'pointwiseReduce'), children: n.children };
  if (!(REDUCE_OPS as readonly string[]).includes(n.op)) return undefined;
  const reduce = n.op as ReduceOp;
  const { axes, keepdims } = enodeAttrs(n, reduce);
  const shape = [...info(egraph, n.children[0]).shape];
  return { attrs: { expr: IDENTITY, shape, reduce, axes, keepdims, post: IDENTITY }, children: n.children };
}

/**
 * `(sum|mean|reduceMax|reduceMin (pointwise …))` → `pointwiseReduce` with the producer's expression as its
 * prologue, once per pointwise variant of the producer class (each a different stopping point: inline
 * everything, or read an intermediate that is materialised anyway).
 */
function reducePrologue(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const r = asPointwiseReduce(egraph, node);
  if (!r || node.op === 'pointwiseReduce') return [];
  const src = node.children[0];
  // per reduction: producers used (no width limits what it builds: kept at a wider width)
  const done = ctx.ofAnyWidth('reduce-prologue:built', () => new Map<ENode, Set<ENode>>());
  let seen = done.get(node);
  if (!seen) done.set(node, (seen = new Set()));
  const out: Id[] = [];
  for (const p of egraph.eclass(src).nodes) {
    if (p.op !== 'pointwise' || seen.has(p) || info(egraph, src).dtype !== 'f32') continue;
    seen.add(p);
    const data = { ...r.attrs, expr: exprOf(p) };
    out.push(addRecorded(egraph, irENode('pointwiseReduce', data, p.children), withRule('reduce-prologue', ruleSetIn(egraph, src, p))));
  }
  return out;
}

/**
 * `(pointwise f $0)` over a reduction's class, f reading nothing else → the reduction with `f` after its
 * epilogue (one kernel: the reduced tensor is written once, already transformed).
 */
function reduceEpilogue(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const f = exprOf(node);
  const src = node.children[0];
  if (node.children.length !== 1 || pwArity(f) !== 1 || !sameShape(info(egraph, src).shape, info(egraph, eclass).shape) || info(egraph, eclass).dtype !== 'f32') return [];
  // per epilogue: reductions used (no width limits what it builds: kept at a wider width)
  const done = ctx.ofAnyWidth('reduce-epilogue:built', () => new Map<ENode, Set<ENode>>());
  let seen = done.get(node);
  if (!seen) done.set(node, (seen = new Set()));
  const out: Id[] = [];
  for (const rn of egraph.eclass(src).nodes) {
    if (seen.has(rn)) continue;
    const r = asPointwiseReduce(egraph, rn);
    if (!r) continue;
    seen.add(rn);
    // an f16 reduction stores its result rounded: the epilogue reads it rounded (the f32 pointwiseReduce would not)
    const post = compose(f, info(egraph, src).dtype === 'f16' ? { op: 'cast', to: 'f16', a: r.attrs.post } : r.attrs.post);
    if (pwExprSize(post) > MAX_EPILOGUE_SIZE) continue;
    const { dtype: _rounded, ...attrs } = r.attrs as typeof r.attrs & { dtype?: unknown }; // an f32 result: its rounding is in `post`
    const data = { ...attrs, post };
    out.push(addRecorded(egraph, irENode('pointwiseReduce', data, r.children), withRule('reduce-epilogue', ruleSetIn(egraph, src, rn))));
  }
  return out;
}

/** Guard: the (only) child class holds a pointwise node. */
function pointwiseChild(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean {
  return classHasOp(egraph, node.children[0], 'pointwise');
}

/**
 * Guard: a one-op, one-input pointwise node over a class holding a reduction. A longer epilogue grows one op per
 * iteration through the classes it passes (every merged variant of every consumer was 1 700 nodes on the GPT
 * step for the same plans).
 */
function overReduction(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean {
  return node.children.length === 1 && isPrimaryExpr(exprOf(node)) && classHasAnyOp(egraph, node.children[0], REDUCTION_OPS);
}

/** Static part of `overReduction`: a one-op node of one input (its expression never changes). */
const oneOpOneInput = (node: ENode): boolean => node.children.length === 1 && isPrimaryExpr(exprOf(node));

const REDUCTION_OPS: readonly string[] = ['pointwiseReduce', ...REDUCE_OPS];

/** The reduction fusion rules (run with the pointwise fusion rules: they read what those build). */
export const reduceFusionRules: readonly TensorRewrite[] = [
  nodeRule('reduce-prologue', REDUCE_OPS, reducePrologue, { guard: pointwiseChild, guardBySignature: true, anyWidth: true }),
  nodeRule('reduce-epilogue', ['pointwise'], reduceEpilogue, { staticGuard: oneOpOneInput, guard: overReduction, guardBySignature: true, anyWidth: true }),
];

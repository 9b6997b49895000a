// Building fused `pointwise` e-nodes: lifting an elementwise primitive to an expression, inlining producer
// expressions into a consumer, turning known scalar constants into expression constants. Must not add nodes
// or union classes itself (the fusion rules do). Invariants: a built node has distinct inputs numbered by first
// use, at most the analysis's input limit, and exactly the output shape of the class it will join.

import type { DType, PwExpr, Shape } from '@neura/ir';
import { BINARY_FN, castScalar, COMPARISON_OPS, isBinary, isFloat, isUnary, pwExprSize, sameShape, UNARY_FN } from '@neura/ir';
import type { EGraph, ENode, Id } from '../core/index.js';
import { DATA_KEY } from '../core/index.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { TensorAnalysis } from './tensorAnalysis.js';
import { enodeAttrs, irENode, isOpKind, knownPointwiseSize, pointwiseExprOf, pointwiseSizeOf } from './tensorLanguage.js';

/** The expression of a pointwise e-node. */
export function exprOf(n: ENode): PwExpr {
  return pointwiseExprOf(n);
}

/** The node count of a pointwise e-node's expression (`exprSize` of `exprOf(n)`, kept with the node's data). */
export function nodeExprSize(n: ENode): number {
  return pointwiseSizeOf(n);
}

/** Number of nodes of an expression tree (shared subtrees counted per use, as they are evaluated). */
export function exprSize(e: PwExpr): number {
  let n = sizes.get(e);
  if (n === undefined) sizes.set(e, (n = pwExprSize(e)));
  return n;
}

/**
 * Whether an expression is an input or a constant. A module function, not a closure in its caller: under tsx
 * (esbuild's `keepNames`) every named closure is wrapped in a `__name` call that defines its `name` property each
 * time it is made, ~3 % of optimize on the GPT 6×384 step for the hot closures of the fusion rules.
 */
function isLeafExpr(x: PwExpr): boolean {
  return x.op === 'in' || x.op === 'const';
}

// cached per whole expression only: caching every subtree (fresh objects each build) cost more than it saved
const sizes = new WeakMap<PwExpr, number>();

/**
 * Whether an expression is one op applied directly to inputs and constants (what `pointwise-lift` makes; an f16
 * op's rounding `cast:f16` around it included).
 */
export function isPrimaryExpr(e: PwExpr): boolean {
  switch (e.op) {
    case 'in':
    case 'const':
      return true;
    case 'where':
      return isLeafExpr(e.c) && isLeafExpr(e.a) && isLeafExpr(e.b);
    case 'cast':
      return isLeafExpr(e.a) || (e.to === 'f16' && e.a.op !== 'cast' && isPrimaryExpr(e.a));
    default:
      return 'b' in e ? isLeafExpr(e.a) && isLeafExpr(e.b) : isLeafExpr(e.a);
  }
}

/**
 * Whether two expressions are the same tree (what comparing their JSON texts says of expressions the builders
 * write: fields in one order, finite constants), compared in place: no key lists, no texts.
 */
export function sameExpr(a: PwExpr, b: PwExpr): boolean {
  if (a === b) return true;
  if (a.op !== b.op) return false;
  switch (a.op) {
    case 'in':
      return a.index === (b as typeof a).index;
    case 'const':
      return a.value === (b as typeof a).value;
    case 'cast':
      return a.to === (b as typeof a).to && sameExpr(a.a, (b as typeof a).a);
    case 'where': {
      const w = b as typeof a;
      return sameExpr(a.c, w.c) && sameExpr(a.a, w.a) && sameExpr(a.b, w.b);
    }
    default:
      if ('b' in a) return 'b' in b && sameExpr(a.a, b.a) && sameExpr(a.b, b.b);
      return !('b' in b) && sameExpr(a.a, (b as typeof a).a);
  }
}

/** Whether an elementwise primitive may become a pointwise expression (integer arithmetic may not: it wraps). */
export function liftable(op: string, out: TensorInfo): boolean {
  if (op === 'where' || op === 'cast') return true;
  if (!isOpKind(op)) return false;
  if (isBinary(op)) return isFloat(out.dtype) || COMPARISON_OPS.includes(op);
  return isUnary(op) && isFloat(out.dtype);
}

/**
 * The one-op expression of an elementwise primitive over its operands `$0..`. Arithmetic with an f16 result is
 * wrapped in `cast:f16` (computed in f32, then rounded to a half as the primitive's store does), so that the value
 * stays exact when the expression is inlined into a consumer and never stored on its own.
 */
export function primitiveExpr(n: ENode, out?: TensorInfo): PwExpr | undefined {
  const i = inputExpr;
  const half = out?.dtype === 'f16' ? roundedToHalf : sameExprOf;
  if (n.op === 'where') return { op: 'where', c: i(0), a: i(1), b: i(2) };
  if (n.op === 'cast') return { op: 'cast', to: enodeAttrs(n, 'cast').to, a: i(0) };
  if (!isOpKind(n.op)) return undefined;
  if (isBinary(n.op)) return COMPARISON_OPS.includes(n.op) ? { op: n.op, a: i(0), b: i(1) } : half({ op: n.op, a: i(0), b: i(1) });
  if (isUnary(n.op)) return half({ op: n.op, a: i(0) });
  return undefined;
}

// the helpers of `primitiveExpr`, at module level (no closure per call: see `isLeafExpr`)
const inputExpr = (index: number): PwExpr => ({ op: 'in', index });
const roundedToHalf = (e: PwExpr): PwExpr => ({ op: 'cast', to: 'f16', a: e });
const sameExprOf = (e: PwExpr): PwExpr => e;

/** Replaces each `in` leaf of an expression by `f(index)` (the one substitution every fusion rule uses). */
export function mapInputs(e: PwExpr, f: (index: number) => PwExpr): PwExpr {
  switch (e.op) {
    case 'in':
      return f(e.index);
    case 'const':
      return e;
    case 'where':
      return { op: 'where', c: mapInputs(e.c, f), a: mapInputs(e.a, f), b: mapInputs(e.b, f) };
    case 'cast':
      return castOf(e.to, mapInputs(e.a, f));
    default:
      return 'b' in e ? { op: e.op, a: mapInputs(e.a, f), b: mapInputs(e.b, f) } : { op: e.op, a: mapInputs(e.a, f) };
  }
}

/**
 * `(cast:to a)`, without the casts that cannot change a half: an f16 rounding of a half (idempotent) and an f32
 * cast of a half (exact), which autocast's casts leave once fused (a GELU's backward read its f16 pre-activation six
 * times as (cast:f32 (cast:f16 …)), over the expression size limit of a matmul epilogue). fp32 expressions have no
 * f16 casts: unchanged.
 */
function castOf(to: DType, a: PwExpr): PwExpr {
  if (a.op === 'cast' && a.to === 'f16' && (to === 'f16' || to === 'f32')) return a;
  return { op: 'cast', to, a };
}

const finite = (v: number): PwExpr | undefined => (Number.isFinite(v) && !Object.is(v, -0) ? { op: 'const', value: v } : undefined); // JSON keys write -0 as 0

/** Folds operations whose operands are all constants (float64, as the analysis does). */
function foldConstants(e: PwExpr): PwExpr {
  switch (e.op) {
    case 'in':
    case 'const':
      return e;
    case 'where': {
      const c = foldConstants(e.c);
      const a = foldConstants(e.a);
      const b = foldConstants(e.b);
      if (c.op === 'const') return c.value !== 0 ? a : b;
      return { op: 'where', c, a, b };
    }
    case 'cast': {
      const a = foldConstants(e.a);
      return (a.op === 'const' && finite(castScalar(a.value, e.to))) || { op: 'cast', to: e.to, a };
    }
    default:
      if ('b' in e) {
        const a = foldConstants(e.a);
        const b = foldConstants(e.b);
        if (a.op === 'const' && b.op === 'const') return finite(BINARY_FN[e.op](a.value, b.value)) ?? { op: e.op, a, b };
        return { op: e.op, a, b };
      } else {
        const a = foldConstants(e.a);
        if (a.op === 'const') return finite(UNARY_FN[e.op](a.value)) ?? { op: e.op, a };
        return { op: e.op, a };
      }
  }
}

/**
 * Normalises an expression over input classes into a pointwise e-node for a class of type `out`: constant
 * inputs become expression constants where the remaining inputs still broadcast to `out`, repeated inputs are
 * merged, inputs are renumbered by first use and constant subexpressions are folded. Undefined when the result
 * would break a limit (inputs, expression size), read no tensor, or be a bare copy of one input. `like`: a pointwise
 * node whose expression `expr` is, if any (its data is shared when the expression stays as it is).
 */
export function buildPointwise(egraph: EGraph<TensorInfo>, expr: PwExpr, inputs: readonly Id[], out: TensorInfo, like?: ENode): ENode | undefined {
  const analysis = egraph.analysis instanceof TensorAnalysis ? egraph.analysis : new TensorAnalysis();
  // loops, not `map`/`filter` closures, and no copies where nothing is dropped: this runs for every fused node built
  // (~13 000 per GPT 6×384 optimize)
  const canon = new Array<Id>(inputs.length);
  for (let i = 0; i < inputs.length; i++) canon[i] = egraph.find(inputs[i]);
  const distinct = firstUses(canon);
  let kept = distinct; // the classes read as tensors: all but known constants
  if (readsConstant(egraph, distinct)) {
    const tensors = distinct.filter((id) => !isConstantClass(egraph, id));
    for (const id of distinct) {
      if (!isConstantClass(egraph, id)) continue;
      if (tensors.length === 0 || !broadcastIsShape(egraph, tensors, out.shape)) tensors.push(id); // this constant decides the shape
    }
    kept = tensors;
  }
  if (kept.length === 0 || !broadcastIsShape(egraph, kept, out.shape)) return undefined;
  if (kept.length === distinct.length) {
    // fast path (most merges): no constant input to substitute, so nothing folds (every producer reads an
    // input, hence no constant-only subtree arises) and one pass maps and renumbers by first use; inputs already
    // distinct and numbered by first use (what `inlineExpr` builds) map to themselves: the tree is kept as it is
    const read = { next: 0 };
    if (distinct.length === canon.length && numberedByFirstUse(expr, read) && read.next === canon.length) return finish(egraph, analysis, expr, canon, out, true, like);
    const slots = new Map<Id, number>();
    const order1: Id[] = [];
    const final1 = mapInputs(expr, (i) => {
      let k = slots.get(canon[i]);
      if (k === undefined) {
        k = order1.push(canon[i]) - 1;
        slots.set(canon[i], k);
      }
      return { op: 'in', index: k };
    });
    return finish(egraph, analysis, final1, order1, out, true);
  }
  const mapped = foldConstants(
    mapInputs(expr, (i) => (kept.includes(canon[i]) ? { op: 'in', index: canon[i] } : { op: 'const', value: egraph.eclass(canon[i]).data.constant as number })),
  );
  // renumber by first use (the `in` indices currently hold class ids)
  const order: Id[] = [];
  const final = mapInputs(mapped, (cls) => {
    let k = order.indexOf(cls);
    if (k < 0) k = order.push(cls) - 1;
    return { op: 'in', index: k };
  });
  return finish(egraph, analysis, final, order, out);
}

/** The ids in first-use order, each once (`ids` itself when they all differ; no Set: at most the fusion width of them). */
function firstUses(ids: readonly Id[]): readonly Id[] {
  let i = 1;
  while (i < ids.length && ids.lastIndexOf(ids[i], i - 1) < 0) i++;
  if (i >= ids.length) return ids;
  const out = ids.slice(0, i);
  for (; i < ids.length; i++) if (!out.includes(ids[i])) out.push(ids[i]);
  return out;
}

/** Whether some of the classes is a known constant. */
function readsConstant(egraph: EGraph<TensorInfo>, ids: readonly Id[]): boolean {
  for (const id of ids) if (isConstantClass(egraph, id)) return true;
  return false;
}

/** Whether a class's value is a known constant (`buildPointwise` writes it into the expression). */
function isConstantClass(egraph: EGraph<TensorInfo>, id: Id): boolean {
  return egraph.eclass(id).data.constant !== undefined;
}

/**
 * Whether the classes' shapes broadcast to exactly `shape` (`broadcastShapes` of them equals it), without building
 * the broadcast: each dimension is 1 or the target's, the largest rank is the target's, and each axis whose target
 * is not 1 is read at its full size by some class.
 */
export function broadcastIsShape(egraph: EGraph<TensorInfo>, ids: readonly Id[], shape: Shape): boolean {
  const rank = shape.length;
  let widest = 0;
  for (const id of ids) {
    const s = egraph.eclass(id).data.shape;
    if (s.length > rank) return false;
    widest = Math.max(widest, s.length);
    for (let i = 0; i < s.length; i++) if (s[i] !== 1 && s[i] !== shape[rank - s.length + i]) return false;
  }
  if (widest !== rank) return false;
  for (let o = 0; o < rank; o++) {
    if (shape[o] === 1) continue;
    let full = false;
    for (let k = 0; k < ids.length && !full; k++) {
      const s = egraph.eclass(ids[k]).data.shape;
      const i = o - (rank - s.length);
      full = i >= 0 && s[i] === shape[o];
    }
    if (!full) return false;
  }
  return true;
}

/** Whether every input of `e` is first read in index order 0, 1, 2, … (`at.next`: the next unread index). */
function numberedByFirstUse(e: PwExpr, at: { next: number }): boolean {
  switch (e.op) {
    case 'in':
      if (e.index === at.next) at.next++;
      return e.index < at.next;
    case 'const':
      return true;
    case 'where':
      return numberedByFirstUse(e.c, at) && numberedByFirstUse(e.a, at) && numberedByFirstUse(e.b, at);
    case 'cast':
      return numberedByFirstUse(e.a, at);
    default:
      return numberedByFirstUse(e.a, at) && (!('b' in e) || numberedByFirstUse(e.b, at));
  }
}

/** The limit checks of `buildPointwise` and the node itself (sharing `like`'s data when `final` is its expression). */
function finish(egraph: EGraph<TensorInfo>, analysis: TensorAnalysis, final: PwExpr, order: readonly Id[], out: TensorInfo, covered = false, like?: ENode): ENode | undefined {
  if (order.length === 0 || order.length > analysis.maxPointwiseInputs) return undefined;
  const shared = like !== undefined && exprOf(like) === final && enodeAttrs(like, 'pointwise').dtype === out.dtype && keyedData(like);
  const size = shared ? nodeExprSize(like) : pwExprSize(final); // a fresh tree: sized once, kept with the node's data
  if (size > analysis.maxExprSize) return undefined;
  if (final.op === 'in' && sameShape(egraph.eclass(order[0]).data.shape, out.shape)) return undefined;
  // a dropped input that only fixed the shape may make the result narrower: check the reads still cover `out`
  // (`covered`: nothing was dropped, the caller broadcast these very classes to `out` already)
  if (!covered && !broadcastIsShape(egraph, order, out.shape)) return undefined;
  // the same expression and dtype: the same data (its key written and hashed already; `pointwise-expand` rebuilds
  // each consumer's expression over other inputs ~3 200 times per GPT 6×384 optimize)
  if (shared) return { op: 'pointwise', data: like.data, children: [...order] };
  const node = irENode('pointwise', { expr: final, dtype: out.dtype }, order);
  knownPointwiseSize(node, size);
  return node;
}

/**
 * Whether a pointwise node's data carries its key, as the data `irENode` makes does: data written by hand (a record
 * with the expression's JSON text) keys otherwise, so a node sharing it would not meet the nodes the rules build.
 */
function keyedData(n: ENode): boolean {
  return (n.data as { readonly [DATA_KEY]?: string } | undefined)?.[DATA_KEY] !== undefined;
}

/**
 * The expression of `outer` (a pointwise node) with some inputs replaced by producer expressions: `inline[j]` is
 * the pointwise node of input `j`'s class to inline there, if any.
 */
export function inlineExpr(outer: ENode, inline: readonly (ENode | undefined)[]): { expr: PwExpr; inputs: Id[] } {
  const inputs: Id[] = [];
  const expr = mapInputs(exprOf(outer), (j) => {
    const inner = inline[j];
    if (!inner) return slotOf(inputs, outer.children[j]);
    return mapInputs(exprOf(inner), (k) => slotOf(inputs, inner.children[k]));
  });
  return { expr, inputs };
}

/** The `in` leaf reading class `cls` among `inputs`, appended when new (a module function: see `isLeafExpr`). */
function slotOf(inputs: Id[], cls: Id): PwExpr {
  let k = inputs.indexOf(cls);
  if (k < 0) k = inputs.push(cls) - 1;
  return { op: 'in', index: k };
}

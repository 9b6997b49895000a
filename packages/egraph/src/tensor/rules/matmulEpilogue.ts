// Matmul epilogues of any pointwise DAG: a pointwise node reading a product (a `matmul`, a `fusedMatmul` with its
// bias/relu, or a `matmulEpilogue` already) becomes one `matmulEpilogue` whose expression is the pointwise
// expression with the product's own epilogue substituted in (bias, GELU, residual add, scale, a mask from an
// i32 tensor...). Chains grow over iterations (each result joins the pointwise node's class, where the next
// consumer finds it). The cost model decides: the product's tensor is saved only when nothing else reads it.
// `matmul-quant-epilogue` does the same for the weight-quantized products (`matmulQ8`, `matmulQ4`, their `expr`).
// Must not keep state outside the run's `RuleCtx`. Invariant: a fused node computes exactly its class's value.

import type { DType, PwExpr } from '@neura/ir';
import { isFloat, pwExprSize, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import { exprOf, isPrimaryExpr, mapInputs } from '../pointwiseFusion.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fusionExprSize, fusionWidth } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { producers } from './fusion.js';
import { addRecorded, classHasAnyOp, nodeRule, ruleSetIn, type TensorRewrite } from './ruleKit.js';
import { unionRules, withRule } from '../ruleSet.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;
const $ = (index: number): PwExpr => ({ op: 'in', index });
const PRODUCT_OPS = ['matmul', 'fusedMatmul', 'matmulEpilogue'];
const QUANT_OPS = ['matmulQ8', 'matmulQ4'];

/** `pointwiseFusion`'s `mapInputs` under the name rowwise-fusion imports from here. */
export const mapIn = mapInputs;

/**
 * An epilogue's extra operands as they are met: `slot(c)` is `$k` of class `c` (k ≥ 1, each class once), in `ids`. A
 * class, not a closure per apply: under tsx (esbuild's `keepNames`) each named closure costs a `__name` call.
 */
class OperandSlots {
  readonly ids: Id[] = [];
  constructor(private readonly egraph: EGraph<TensorInfo>) {}
  slot(c: Id): PwExpr {
    const id = this.egraph.find(c);
    let k = this.ids.indexOf(id);
    if (k < 0) k = this.ids.push(id) - 1;
    return $(k + 1);
  }
}

/** A product: its flags, epilogue over `$0` (the product) and `$1..` (its extra classes), those classes, and its operand count. */
interface Product {
  transA: boolean;
  transB: boolean;
  expr: PwExpr;
  extras: readonly Id[];
  round?: [boolean, boolean];
  /** The operands before the extras: a and b, or a quantized matmul's x, q and d. */
  operands: number;
}

/** A product node as a `Product` (undefined for any other node). */
function productOf(n: ENode): Product | undefined {
  if (n.op === 'matmulQ8' || n.op === 'matmulQ4') {
    const { expr } = enodeAttrs(n, n.op);
    return { transA: false, transB: false, expr: expr ?? $(0), extras: n.children.slice(3), operands: 3 };
  }
  if (n.op === 'matmul') return { ...enodeAttrs(n, 'matmul'), expr: $(0), extras: [], operands: 2 };
  if (n.op === 'matmulEpilogue') {
    const a = enodeAttrs(n, 'matmulEpilogue');
    return { transA: a.transA, transB: a.transB, expr: a.expr, extras: n.children.slice(2), ...(a.round ? { round: a.round } : {}), operands: 2 };
  }
  if (n.op === 'fusedMatmul') {
    const a = enodeAttrs(n, 'fusedMatmul');
    const biased: PwExpr = a.bias ? { op: 'add', a: $(0), b: $(1) } : $(0);
    return { transA: a.transA, transB: a.transB, expr: a.activation === 'relu' ? { op: 'relu', a: biased } : biased, extras: a.bias ? [n.children[2]] : [], operands: 2 };
  }
  return undefined;
}

/**
 * The applier of rule `name` over products of `ops`: for each input of a pointwise node whose class holds such a
 * product of the node's shape, the product with the node's expression as its epilogue (the product's own epilogue
 * inlined), within the binding limit.
 */
const epilogueOf = (name: string, ops: readonly string[]) => {
  // made once per rule, not per apply
  const products: ReadonlySet<string> = new Set(ops);
  const builtKey = `${name}:built`;
  return (egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] => {
    const out = info(egraph, eclass);
    if (!isFloat(out.dtype)) return [];
    const maxInputs = fusionWidth(egraph);
    const maxSize = fusionExprSize(egraph);
    const outer = exprOf(node);
    const children = node.children.map((c) => egraph.find(c));
    // per consumer: products tried, with Infinity once done, or the width that refused them (kept at a wider width)
    const done = ctx.ofAnyWidth<Map<ENode, Map<ENode, number>>>(builtKey, newTriedTable);
    let seen = done.get(node);
    if (!seen) done.set(node, (seen = new Map()));
    const built: Id[] = [];
    for (let ci = 0; ci < children.length; ci++) {
      const cls = children[ci];
      if (children.indexOf(cls) < ci) continue; // each class once
      if (!sameShape(info(egraph, cls).shape, out.shape) || !isFloat(info(egraph, cls).dtype)) continue;
      if (!classHasAnyOp(egraph, cls, ops)) continue; // the kept op set: no scan of a class of pointwise variants
      for (const m of egraph.eclass(cls).nodes) {
        if (!products.has(m.op) || (seen.get(m) ?? -1) >= maxInputs) continue;
        seen.set(m, Number.POSITIVE_INFINITY);
        const p = productOf(m);
        if (!p) continue;
        // operands: a, b (or x, q, d), then the product's extras, then the consumer's other inputs (each class once)
        const slots = new OperandSlots(egraph);
        const extras = slots.ids;
        const mapped = mapIn(p.expr, (i) => (i === 0 ? $(0) : slots.slot(p.extras[i - 1])));
        // an f16 product was rounded to a half when stored: the fused kernel rounds it there too (exact)
        const inner: PwExpr = info(egraph, cls).dtype === 'f16' ? { op: 'cast', to: 'f16', a: mapped } : mapped;
        const expr = mapIn(outer, (j) => (children[j] === cls ? inner : slots.slot(children[j])));
        const leading = m.children.slice(0, p.operands);
        if (pwExprSize(expr) > maxSize) continue;
        if (distinctOperands(egraph, leading, extras) > maxInputs) {
          seen.set(m, maxInputs); // tried again at a wider width
          continue;
        }
        const rules = withRule(name, unionRules(ruleSetIn(egraph, eclass, node), ruleSetIn(egraph, cls, m)));
        if (p.operands === 3) {
          // a quantized product is f32 (as is its consumer: a float of the product's shape): no dtype, no rounding
          if (out.dtype === 'f32') built.push(addRecorded(egraph, irENode(m.op as 'matmulQ8' | 'matmulQ4', { expr }, [...leading, ...extras]), rules));
          continue;
        }
        const data = { transA: p.transA, transB: p.transB, expr, ...resultDtype(egraph, m, out, p.round), ...(p.round ? { round: p.round } : {}) };
        built.push(addRecorded(egraph, irENode('matmulEpilogue', data, [...leading, ...extras]), rules));
      }
    }
    return built;
  };
};

/** A fresh table of products tried per consumer (a shared `init` of ctx slots: no closure per apply). */
const newTriedTable = (): Map<ENode, Map<ENode, number>> => new Map();

/** How many distinct classes a product's leading operands and its (canonical, distinct) extra operands read. */
function distinctOperands(egraph: EGraph<TensorInfo>, leading: readonly Id[], extras: readonly Id[]): number {
  let n = extras.length;
  for (let i = 0; i < leading.length; i++) {
    const c = egraph.find(leading[i]);
    if (extras.includes(c)) continue;
    let first = true;
    for (let k = 0; k < i && first; k++) first = egraph.find(leading[k]) !== c;
    if (first) n++;
  }
  return n;
}

/** The `dtype` attribute of an epilogue with result type `out` over product `m`'s operands (f16 where read rounded): only when they differ. */
function resultDtype(egraph: EGraph<TensorInfo>, m: ENode, out: TensorInfo, round?: readonly boolean[]): { dtype?: DType } {
  const operand = round?.[0] ? 'f16' : info(egraph, m.children[0]).dtype;
  return operand === out.dtype ? {} : { dtype: out.dtype };
}

/**
 * Guard: a one-op pointwise node (what `pointwise-lift` makes) with an input class holding a product. Only those:
 * a chain (bias, then GELU, then a residual add) grows one op per iteration through the classes it passes, each
 * step an alternative in its own class, while taking every merged variant of every consumer built ~12 000
 * nodes on the GPT step (2.4 s of fusion) for no better plan.
 */
const readsProductOf =
  (ops: readonly string[]) =>
  (egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean =>
    node.children.some((c) => classHasAnyOp(egraph, c, ops)); // (a one-op consumer: `isPrimary`, the static guard)

/**
 * An epilogue's extra operand computed by pointwise work of the output's shape, inlined: the largest producer of
 * that operand's class, within the binding and size limits. The epilogue rule takes one-op consumers only, so a
 * consumer like GELU's backward (the product dY·W₂ᵀ times GELU′ of the pre-activation) gets its product as an
 * epilogue `$0 · $1` first; this pulls GELU′ in, one kernel instead of two.
 */
function inlineEpilogueOperand(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const maxInputs = fusionWidth(egraph);
  const maxSize = fusionExprSize(egraph);
  const shape = info(egraph, eclass).shape;
  const a = enodeAttrs(node, 'matmulEpilogue');
  // per epilogue: producers tried, with Infinity once done, or the width that refused them (kept at a wider width)
  const done = ctx.ofAnyWidth<Map<ENode, Map<ENode, number>>>('matmul-epilogue-inline:built', newTriedTable);
  let seen = done.get(node);
  if (!seen) done.set(node, (seen = new Map()));
  const built: Id[] = [];
  const extras = node.children.slice(2).map((c) => egraph.find(c));
  extras.forEach((cls, k) => {
    if (cls === egraph.find(eclass) || !sameShape(info(egraph, cls).shape, shape)) return;
    // the first largest, from fusion's per-class cache (a class holds hundreds of fused variants; scanning them
    // per apply was ~10 % of optimize on the GPT step)
    const p = producers(egraph, cls, eclass, ctx).list[0];
    if (!p || (seen.get(p) ?? -1) >= maxInputs) return;
    seen.set(p, Number.POSITIVE_INFINITY);
    const producer = p;
    const slots = new OperandSlots(egraph);
    const operands = slots.ids;
    const expr = mapIn(a.expr, (i) => {
      if (i === 0) return $(0);
      if (i - 1 !== k) return slots.slot(extras[i - 1]);
      return mapIn(exprOf(producer), (j) => slots.slot(producer.children[j]));
    });
    if (pwExprSize(expr) > maxSize) return;
    if (distinctOperands(egraph, node.children.slice(0, 2), operands) > maxInputs) {
      seen.set(p, maxInputs); // tried again at a wider width
      return;
    }
    const rules = withRule('matmul-epilogue-inline', unionRules(ruleSetIn(egraph, eclass, node), ruleSetIn(egraph, cls, producer)));
    built.push(addRecorded(egraph, irENode('matmulEpilogue', { transA: a.transA, transB: a.transB, expr, ...(a.dtype ? { dtype: a.dtype } : {}), ...(a.round ? { round: a.round } : {}) }, [node.children[0], node.children[1], ...operands]), rules));
  });
  return built;
}

/**
 * Largest epilogue expression (in nodes) an operand is inlined into: one step from a small epilogue (`$0 · $1`) only.
 * Inlining into the results again cascaded with a device's wider binding limit (16 storage buffers: the GPT 6×384
 * e-graph ran into its 50 000-node limit and kept a plan of 630 dispatches).
 */
const INLINE_INTO_MAX_SIZE = 4;

/** Static part of `readsProductOf`: a one-op consumer (its expression never changes). */
const isPrimary = (node: ENode): boolean => isPrimaryExpr(exprOf(node));

/** Static part of `extraIsPointwise`: an epilogue small enough to inline into (its expression never changes). */
const smallEpilogue = (node: ENode): boolean => pwExprSize(enodeAttrs(node, 'matmulEpilogue').expr) <= INLINE_INTO_MAX_SIZE;

/** Guard: a small epilogue with an extra operand whose class holds a pointwise node. */
function extraIsPointwise(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean {
  if (pwExprSize(enodeAttrs(node, 'matmulEpilogue').expr) > INLINE_INTO_MAX_SIZE) return false;
  for (let i = 2; i < node.children.length; i++) if (classHasAnyOp(egraph, node.children[i], ['pointwise'])) return true;
  return false;
}

/** The matmul epilogue rules (run with the pointwise fusion rules: they read the pointwise nodes those build). */
export const matmulEpilogueRules: readonly TensorRewrite[] = [
  nodeRule('matmul-epilogue', ['pointwise'], epilogueOf('matmul-epilogue', PRODUCT_OPS), { staticGuard: isPrimary, guard: readsProductOf(PRODUCT_OPS), guardBySignature: true }),
  // most graphs hold no quantized product: the guard then fails everywhere, and the search is skipped
  nodeRule('matmul-quant-epilogue', ['pointwise'], epilogueOf('matmul-quant-epilogue', QUANT_OPS), { staticGuard: isPrimary, guard: readsProductOf(QUANT_OPS), guardBySignature: true, requiresOps: QUANT_OPS }),
  nodeRule('matmul-epilogue-inline', ['matmulEpilogue'], inlineEpilogueOperand, { staticGuard: smallEpilogue, guard: extraIsPointwise, guardBySignature: true }),
];

// The split-K fold: a weight gradient computed by a split-K matmul and read by a multi-tensor update need not be
// reduced on its own. `matmul-split-k` adds the equality matmul = sum[0](matmulPartials) (S from ir's
// `matmulSplitK`, the runtime's split; it runs in the fold pass, after the updates are grouped); for autocast's f16
// products (a matmul of f16 copies, or an epilogue reading f32 operands rounded) the equality is with the cast to
// f16 of that sum, the partials reading the operands rounded as the product does.
// `update-fold-partials` adds, beside a multi-tensor update, the same update reading those partials and summing
// them as it reads (`partials` attribute; its groups in chunks where the partials do not fit one binding): the
// reduce pass and a write and read of the gradient go. Must not choose: both forms are alternatives with a cost
// (a gradient also read elsewhere, e.g. by gradient clipping, keeps its reduced form when that is cheaper).
// Invariants: the folded chunks compute exactly the original's results (each joins its class as a pick; each
// chunk keeps a class of its own); the role folded is read, never written in place; each role of a chunk stays
// within the binding size.

import { arenaSlotBytes, byteSize, type OpAttrs, groupOperands, matmulSplitK, numel, type PwExpr } from '@neura/ir';
import { mapInputs } from '../pointwiseFusion.js';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { tensorAnalysisOf } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** A product node as split-K operands: a matmul, or an epilogue that only reads its operands (rounded, `round`). */
function productOf(node: ENode): { transA: boolean; transB: boolean; round?: [boolean, boolean] } | undefined {
  if (node.op === 'matmul') return enodeAttrs(node, 'matmul');
  if (node.op !== 'matmulEpilogue' || node.children.length !== 2) return undefined;
  const a = enodeAttrs(node, 'matmulEpilogue');
  if (a.expr.op !== 'in' || a.expr.index !== 0 || a.dtype !== undefined) return undefined;
  return { transA: a.transA, transB: a.transB, ...(a.round?.some(Boolean) ? { round: a.round } : {}) };
}

/**
 * The partials of a product e-node where the runtime splits it (its split-K equality's right side, unioned by the
 * caller), else undefined. Partials are f32 sums: an f16 product (autocast's weight gradients) is their sum cast to
 * f16, the one rounding the product's own split kernel does after its reduce pass.
 */
function partialsNode(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): { sum: Id; partials: Id; splits: number } | undefined {
  const p = productOf(node);
  if (!p) return undefined;
  const { transA, transB } = p;
  const [a, b] = node.children.map((c) => info(egraph, c).shape);
  const out = info(egraph, eclass).shape;
  const dtype = info(egraph, eclass).dtype;
  if (dtype !== 'f32' && dtype !== 'f16') return undefined;
  if (a.length !== 2 || b.length !== 2 || out.length !== 2) return undefined;
  const k = transA ? a[0] : a[1];
  const splits = matmulSplitK(out[0], out[1], k, 1, tensorAnalysisOf(egraph)?.maxBindingBytes);
  if (splits < 2) return undefined;
  const partials = addRecorded(egraph, irENode('matmulPartials', { transA, transB, splits, ...(p.round ? { round: p.round } : {}) }, node.children), ['matmul-split-k']);
  const sum = addRecorded(egraph, irENode('sum', { axes: [0], keepdims: false }, [partials]), ['matmul-split-k']);
  return { sum: dtype === 'f16' ? addRecorded(egraph, { op: 'cast', data: { to: 'f16' }, children: [sum] }, ['matmul-split-k']) : sum, partials, splits };
}

/**
 * A product: sum[0] of its split-K partials (cast to f16 for an f16 product), where the runtime splits it (neutral
 * alone: extraction keeps the product). The partials of every product node of a class are one class: the same sums
 * of the same products over the same chunks of K (an operand read rounded is the f16 copy read as it is).
 */
function splitK(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, _ctx?: RuleCtx): Id[] {
  const before = summedPartials(egraph, eclass, false);
  const p = partialsNode(egraph, eclass, node);
  if (!p) return [];
  if (before && egraph.find(before.cls) !== egraph.find(p.partials)) egraph.union(before.cls, p.partials);
  return [p.sum];
}

/** Split-K partials a class holds as their sum (`rounded`: through a cast to f16 of it), or undefined. */
function summedPartials(egraph: EGraph<TensorInfo>, c: Id, rounded: boolean): { cls: Id; splits: number; rounded: boolean } | undefined {
  for (const n of egraph.eclass(c).nodes) {
    // an f16 product: the cast to f16 of the partials' sum
    if (n.op === 'cast' && !rounded && enodeAttrs(n, 'cast').to === 'f16' && info(egraph, n.children[0]).dtype === 'f32') {
      const r = summedPartials(egraph, egraph.find(n.children[0]), true);
      if (r) return r;
    }
    if (n.op !== 'sum') continue;
    const s = enodeAttrs(n, 'sum');
    if (s.keepdims || s.axes.length !== 1 || s.axes[0] !== 0) continue;
    const p = egraph.find(n.children[0]);
    const mp = egraph.eclass(p).nodes.find((x) => x.op === 'matmulPartials');
    if (mp) return { cls: p, splits: enodeAttrs(mp, 'matmulPartials').splits, rounded };
  }
  return undefined;
}

/**
 * The split-K partials class a class is the sum of (sum[0] of a matmulPartials, or its cast to f16: `rounded`), with
 * its split count; made here from a split product of the class (the `matmul-split-k` equality) when that rule has
 * not run on it yet.
 */
function partialsOf(egraph: EGraph<TensorInfo>, cls: Id): { cls: Id; splits: number; rounded: boolean } | undefined {
  const found = summedPartials(egraph, cls, false);
  if (found) return found;
  let made: ReturnType<typeof partialsNode>;
  for (const n of [...egraph.eclass(cls).nodes]) {
    const p = partialsNode(egraph, cls, n);
    if (!p) continue;
    if (made) egraph.union(made.partials, p.partials);
    else made = p;
    egraph.union(cls, p.sum);
  }
  return made && { cls: made.partials, splits: made.splits, rounded: info(egraph, cls).dtype === 'f16' };
}

/** Where each group of a multi-tensor update went in its folded form: the chunk (a node's class) and its index there. */
interface Folded {
  readonly chunkOf: readonly Id[];
  readonly local: readonly number[];
}

/**
 * For a multi-tensor update: the same update reading, in the role most of its groups have as split-K sums, each
 * such group's partials instead, its groups in order split into chunks whose partials role fits a binding (one
 * chunk where all fit; a group whose partials alone do not fit keeps its gradient), each chunk a node in a class
 * of its own; undefined when no group folds.
 */
function foldedUpdate(egraph: EGraph<TensorInfo>, node: ENode): Folded | undefined {
  const attrs = enodeAttrs(node, 'pointwiseMultiTensor');
  const { shared, roles, groups, operand } = groupOperands({ inputs: node.children, attrs });
  const found = Array.from({ length: roles }, (_, k) => Array.from({ length: groups }, (_, g) => partialsOf(egraph, egraph.find(node.children[operand(g, shared + k)]))));
  const counts = found.map((f) => f.filter(Boolean).length);
  const role = counts.indexOf(Math.max(...counts));
  if (counts[role] === 0) return undefined;
  const limit = tensorAnalysisOf(egraph)?.maxBindingBytes ?? Number.POSITIVE_INFINITY;
  const slot = (splits: number, shape: readonly number[]) => arenaSlotBytes(splits * numel(shape) * byteSize(attrs.dtype));
  const splitsOf = attrs.shapes.map((sh, g) => {
    const S = found[role][g]?.splits ?? 1;
    return slot(S, sh) <= limit ? S : 1;
  });
  if (splitsOf.every((S) => S === 1)) return undefined;
  // an f16 role (autocast's weight gradients): its folded groups read f32 partials, rounded to f16 in the
  // expressions as the product's own split rounds their sum (a rounding that leaves an f16 gradient as it is); its
  // other groups keep their f16 gradients in chunks of their own (one role is one buffer of one dtype)
  const f16Role = attrs.shapes.some((_, g) => info(egraph, node.children[operand(g, shared + role)]).dtype === 'f16');
  const chunks: number[][] = [];
  const chunked = (gs: readonly number[]) => {
    let bytes = Number.POSITIVE_INFINITY;
    for (const g of gs) {
      const b = slot(splitsOf[g], attrs.shapes[g]);
      if (bytes + b > limit) {
        chunks.push([]);
        bytes = 0;
      }
      bytes += b;
      chunks[chunks.length - 1].push(g);
    }
  };
  const all = attrs.shapes.map((_, g) => g);
  if (f16Role) {
    chunked(all.filter((g) => splitsOf[g] === 1));
    chunked(all.filter((g) => splitsOf[g] > 1));
  } else chunked(all);
  const roleIn = shared + role;
  const exprs = f16Role ? attrs.exprs.map((e) => mapInputs(e, (i): PwExpr => (i === roleIn ? { op: 'cast', to: 'f16', a: { op: 'in', index: i } } : { op: 'in', index: i }))) : attrs.exprs;
  const chunkOf: Id[] = [];
  const local: number[] = [];
  for (const chunk of chunks) {
    const inputs = node.children.slice(0, shared);
    for (const g of chunk)
      for (let k = 0; k < roles; k++) inputs.push(k === role && splitsOf[g] > 1 ? (found[role][g] as { cls: Id }).cls : node.children[operand(g, shared + k)]);
    const partials: OpAttrs['pointwiseMultiTensor']['partials'] = { role, splits: chunk.map((g) => splitsOf[g]) };
    const id = addRecorded(egraph, irENode('pointwiseMultiTensor', { ...attrs, exprs, shapes: chunk.map((g) => attrs.shapes[g]), partials }, inputs), ['update-fold-partials']);
    chunk.forEach((g, i) => {
      chunkOf[g] = id;
      local[g] = i;
    });
  }
  return { chunkOf, local };
}

/** The update a pick reads, when it does not read partials yet. */
const unfoldedUpdate = (egraph: EGraph<TensorInfo>, pick: ENode): ENode | undefined =>
  egraph.eclass(pick.children[0]).nodes.find((n) => n.op === 'pointwiseMultiTensor' && !enodeAttrs(n, 'pointwiseMultiTensor').partials);

/**
 * For a pick of a multi-tensor update: the same pick of its folded form (built once per update and e-graph
 * epoch; every pick of the update joins its class the same way).
 */
function foldPartials(egraph: EGraph<TensorInfo>, _eclass: Id, pick: ENode, ctx: RuleCtx): Id[] {
  const node = unfoldedUpdate(egraph, pick);
  if (!node) return [];
  const memo = ctx.of('update-fold-partials:built', () => ({ epoch: -1, built: new Map<Id, Folded | undefined>() }));
  if (memo.epoch !== egraph.epoch) [memo.epoch, memo.built] = [egraph.epoch, new Map()];
  const M = egraph.find(pick.children[0]);
  if (!memo.built.has(M)) memo.built.set(M, foldedUpdate(egraph, node));
  const folded = memo.built.get(M);
  if (!folded) return [];
  const R = enodeAttrs(node, 'pointwiseMultiTensor').exprs.length;
  const j = enodeAttrs(pick, 'pick').index;
  const g = Math.floor(j / R);
  return [addRecorded(egraph, irENode('pick', { index: folded.local[g] * R + (j % R) }, [folded.chunkOf[g]]), ['update-fold-partials'])];
}

/** Guard: a pick of a multi-tensor update that does not read partials yet. */
const ofUnfolded = (egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean => unfoldedUpdate(egraph, node) !== undefined;

/** The split-K fold rule set. */
export const splitKFoldRules: readonly TensorRewrite[] = [
  nodeRule('matmul-split-k', ['matmul', 'matmulEpilogue'], splitK),
  nodeRule('update-fold-partials', ['pick'], foldPartials, { guard: ofUnfolded }),
];

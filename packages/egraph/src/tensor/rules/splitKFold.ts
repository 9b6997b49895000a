// The split-K fold: a weight gradient computed by a split-K matmul and read by a multi-tensor update need not be
// reduced on its own. `matmul-split-k` adds the equality matmul = sum[0](matmulPartials) (S from ir's
// `matmulSplitK`, the runtime's split; it runs in the fold pass, after the updates are grouped).
// `update-fold-partials` adds, beside a multi-tensor update, the same update reading those partials and summing
// them as it reads (`partials` attribute; its groups in chunks where the partials do not fit one binding): the
// reduce pass and a write and read of the gradient go. Must not choose: both forms are alternatives with a cost
// (a gradient also read elsewhere, e.g. by gradient clipping, keeps its reduced form when that is cheaper).
// Invariants: the folded chunks compute exactly the original's results (each joins its class as a pick; each
// chunk keeps a class of its own); the role folded is read, never written in place; each role of a chunk stays
// within the binding size.

import { arenaSlotBytes, byteSize, type OpAttrs, groupOperands, matmulSplitK, numel } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { RuleCtx } from '../ruleCtx.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { tensorAnalysisOf } from '../tensorAnalysis.js';
import { enodeAttrs, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/** The partials of a matmul e-node where the runtime splits it (its split-K equality's right side, unioned by the caller), else undefined. */
function partialsNode(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): { sum: Id; partials: Id; splits: number } | undefined {
  const { transA, transB } = enodeAttrs(node, 'matmul');
  const [a, b] = node.children.map((c) => info(egraph, c).shape);
  const out = info(egraph, eclass).shape;
  // partials are f32 sums: an f16 product (autocast) keeps its one rounding to f16 in the matmul kernel's own split
  if (info(egraph, eclass).dtype !== 'f32') return undefined;
  if (a.length !== 2 || b.length !== 2 || out.length !== 2) return undefined;
  const k = transA ? a[0] : a[1];
  const splits = matmulSplitK(out[0], out[1], k, 1, tensorAnalysisOf(egraph)?.maxBindingBytes);
  if (splits < 2) return undefined;
  const partials = addRecorded(egraph, irENode('matmulPartials', { transA, transB, splits }, node.children), ['matmul-split-k']);
  return { sum: addRecorded(egraph, irENode('sum', { axes: [0], keepdims: false }, [partials]), ['matmul-split-k']), partials, splits };
}

/** A matmul: sum[0] of its split-K partials, where the runtime splits it (neutral alone: extraction keeps the matmul). */
function splitK(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, _ctx: RuleCtx): Id[] {
  const p = partialsNode(egraph, eclass, node);
  return p ? [p.sum] : [];
}

/**
 * The split-K partials class a class is the sum of (sum[0] of a matmulPartials), with its split count; made here
 * from a split matmul of the class (the `matmul-split-k` equality) when that rule has not run on it yet.
 */
function partialsOf(egraph: EGraph<TensorInfo>, cls: Id): { cls: Id; splits: number } | undefined {
  for (const n of egraph.eclass(cls).nodes) {
    if (n.op !== 'sum') continue;
    const s = enodeAttrs(n, 'sum');
    if (s.keepdims || s.axes.length !== 1 || s.axes[0] !== 0) continue;
    const p = egraph.find(n.children[0]);
    const mp = egraph.eclass(p).nodes.find((x) => x.op === 'matmulPartials');
    if (mp) return { cls: p, splits: enodeAttrs(mp, 'matmulPartials').splits };
  }
  const mm = egraph.eclass(cls).nodes.find((n) => n.op === 'matmul');
  const made = mm && partialsNode(egraph, cls, mm);
  if (!made) return undefined;
  egraph.union(cls, made.sum);
  return { cls: made.partials, splits: made.splits };
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
  const chunks: number[][] = [];
  let bytes = Number.POSITIVE_INFINITY;
  attrs.shapes.forEach((sh, g) => {
    const b = slot(splitsOf[g], sh);
    if (bytes + b > limit) {
      chunks.push([]);
      bytes = 0;
    }
    bytes += b;
    chunks[chunks.length - 1].push(g);
  });
  const chunkOf: Id[] = [];
  const local: number[] = [];
  for (const chunk of chunks) {
    const inputs = node.children.slice(0, shared);
    for (const g of chunk)
      for (let k = 0; k < roles; k++) inputs.push(k === role && splitsOf[g] > 1 ? (found[role][g] as { cls: Id }).cls : node.children[operand(g, shared + k)]);
    const partials: OpAttrs['pointwiseMultiTensor']['partials'] = { role, splits: chunk.map((g) => splitsOf[g]) };
    const id = addRecorded(egraph, irENode('pointwiseMultiTensor', { ...attrs, shapes: chunk.map((g) => attrs.shapes[g]), partials }, inputs), ['update-fold-partials']);
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
  nodeRule('matmul-split-k', ['matmul'], splitK),
  nodeRule('update-fold-partials', ['pick'], foldPartials, { guard: ofUnfolded }),
];

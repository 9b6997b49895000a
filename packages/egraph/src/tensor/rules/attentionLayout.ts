// Attention layout rules: the head split ([..., T, H·D] reshaped to [..., T, H, D], then transposed to
// [..., H, T, D]) and the merge back fold into the attention ops as their seq-major layout (`seqMajor`: operands and
// results [..., T, H, D], lse and delta [..., T, H]), so no transpose copy runs around attention or its gradients:
// - attention-seq-major: an attention op (attention, attentionLse, attentionGrad) whose operands are all
//   transposes swapping axes −3 and −2 (lse and delta: −2 and −1) of seq-major tensors equals that transpose of
//   the seq-major op on those tensors (the merge transpose then cancels by transpose-transpose);
// - rowsum-transpose: Δ = sum(a ⊙ b, last axis) of two equally transposed operands (that keep the last axis) is
//   the transposed row sum of the untransposed ones, so the seq-major gradients read Δ without a transpose.
// Only for head sizes the flash kernels take (multiples of 4, ≤ 128: the seq-major layout has no simple kernel).
// Must not choose: each form is an alternative with a cost, extraction decides.
// Invariant: each rewrite keeps the value (element order included) of the class it joins.

import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, fromENode, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

/** Largest head size of the flash kernels (wgsl-kernels' FLASH_MAX_DIM; the seq-major layout runs only there). */
const FLASH_MAX_DIM = 128;

const swapPerm = (rank: number, axis: number): number[] => {
  const p = Array.from({ length: rank }, (_, i) => i);
  [p[axis], p[axis + 1]] = [axis + 1, axis];
  return p;
};
const samePerm = (n: ENode, perm: readonly number[]) => n.op === 'transpose' && sameShape(enodeAttrs(n, 'transpose').perm, perm);

/** The operand of a transpose by `perm` in class `c`, if the class holds one. */
function untransposed(egraph: EGraph<TensorInfo>, c: Id, perm: readonly number[]): Id | undefined {
  return egraph.eclass(c).nodes.find((n) => samePerm(n, perm))?.children[0];
}

/** A head size the flash kernels take. */
export const flashDim = (n: number) => n > 0 && n % 4 === 0 && n <= FLASH_MAX_DIM;

/** attention / attentionLse / attentionGrad over head-split transposes → the transposed seq-major op. */
function seqMajor(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const ir = fromENode(node);
  if ((ir.op !== 'attention' && ir.op !== 'attentionLse' && ir.op !== 'attentionGrad') || ir.attrs.seqMajor) return [];
  const shapes = node.children.map((c) => egraph.eclass(c).data.shape);
  const r = shapes[0].length;
  if (r < 3 || !shapes.slice(0, 3).every((s) => flashDim(s[r - 1]))) return [];
  const tensor = swapPerm(r, r - 3);
  const rows = swapPerm(r - 1, r - 3);
  const kids: Id[] = [];
  // operand 5 is Δ (a row per query), or attention's output when the gradient computes Δ itself (deltaFromOut)
  const fullRank = (i: number) => i < 4 || (i === 5 && ir.op === 'attentionGrad' && ir.attrs.deltaFromOut === true);
  for (const [i, c] of node.children.entries()) {
    const x = untransposed(egraph, c, fullRank(i) ? tensor : rows);
    if (x === undefined) return [];
    kids.push(x);
  }
  const inner = addRecorded(egraph, irENode(ir.op, { ...ir.attrs, seqMajor: true } as never, kids), ['attention-seq-major']);
  return [addRecorded(egraph, irENode('transpose', { perm: ir.op === 'attentionLse' ? rows : tensor }, [inner]), ['attention-seq-major'])];
}

/** sum(mul(transpose(a, p), transpose(b, p)), [last]) with p keeping the last axis → transpose(sum(mul(a, b)), p'). */
function rowsumTranspose(egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): Id[] {
  const { axes, keepdims } = enodeAttrs(node, 'sum');
  const r = egraph.eclass(node.children[0]).data.shape.length;
  if (keepdims || axes.length !== 1 || axes[0] !== r - 1) return [];
  const out: Id[] = [];
  for (const m of egraph.eclass(node.children[0]).nodes) {
    if (m.op !== 'mul') continue;
    const [ta, tb] = m.children.map((c) => egraph.eclass(c).nodes.find((n) => n.op === 'transpose'));
    if (!ta || !tb) continue;
    const perm = enodeAttrs(ta, 'transpose').perm;
    if (!samePerm(tb, perm) || perm[r - 1] !== r - 1) continue;
    const [a, b] = [ta.children[0], tb.children[0]];
    if (!sameShape(egraph.eclass(a).data.shape, egraph.eclass(b).data.shape)) continue;
    const mul = addRecorded(egraph, irENode('mul', {}, [a, b]), ['rowsum-transpose']);
    const sum = addRecorded(egraph, irENode('sum', { axes: [r - 1], keepdims: false }, [mul]), ['rowsum-transpose']);
    out.push(addRecorded(egraph, irENode('transpose', { perm: perm.slice(0, -1) }, [sum]), ['rowsum-transpose']));
  }
  return out;
}

/** The attention layout rule set. */
export const attentionLayoutRules: readonly TensorRewrite[] = [
  nodeRule('attention-seq-major', ['attention', 'attentionLse', 'attentionGrad'], seqMajor),
  nodeRule('rowsum-transpose', ['sum'], rowsumTranspose),
];

// Attention head-window rule: a seq-major attention op (attention, attentionLse, attentionWithLse, attentionGrad,
// attentionGradKV, attentionGradQKV) whose q, k or v is a column slice of a wider projection (`reshape(slice(qkv [..., 3·H·D]))`,
// the split of a fused QKV matmul) or a head slice of a seq-major tensor (`slice(x [..., T, W, D])` on axis −2)
// equals the same op reading that operand in place as a head window (`window`: the wider tensor seen as
// [..., T, W, D] and the first head of each operand), so no slice copy runs before attention or its gradients.
// Only head-aligned slices (offsets and widths in whole heads) and head sizes the flash kernels take.
// Must not choose: the windowed op is an alternative with a cost (it reads the same bytes, the slices' kernels go
// away only when every reader takes a window), extraction decides.
// Invariant: the windowed op reads exactly the elements its operands held, so it keeps the value of its class.

import { isOp, numel } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, fromENode, irENode } from '../tensorLanguage.js';
import { flashDim } from './attentionLayout.js';
import { addRecorded, nodeRule, rulesOf, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-head-window';

/** A wider tensor (its class) holding an operand as the heads [offset, offset + H). */
interface HeadSource {
  readonly tensor: Id;
  readonly offset: number;
}

/** Whether a slice keeps every axis but `axis` whole, with step 1. */
function sliceOnly(egraph: EGraph<TensorInfo>, n: ENode, axis: number): { start: number; end: number } | undefined {
  const { starts, ends, steps } = enodeAttrs(n, 'slice');
  const shape = egraph.eclass(n.children[0]).data.shape;
  const whole = shape.every((d, i) => i === axis || (starts[i] === 0 && ends[i] === d));
  return whole && steps.every((s) => s === 1) ? { start: starts[axis], end: ends[axis] } : undefined;
}

/**
 * Where operand class `c` (seq-major [..., T, H, D]) is a head window: a head slice of [..., T, W, D], or the reshape
 * of a column slice of [..., W·D] whose rows are its (…, t) rows (the wider tensor is then reshaped in place).
 */
function headSource(egraph: EGraph<TensorInfo>, c: Id): HeadSource | undefined {
  const shape = egraph.eclass(c).data.shape;
  const r = shape.length;
  const [h, d] = [shape[r - 2], shape[r - 1]];
  for (const n of egraph.eclass(c).nodes) {
    if (n.op === 'slice') {
      const ys = egraph.eclass(n.children[0]).data.shape;
      const s = ys.length === r ? sliceOnly(egraph, n, r - 2) : undefined;
      if (s) return { tensor: n.children[0], offset: s.start };
    }
    if (n.op !== 'reshape') continue;
    for (const m of egraph.eclass(n.children[0]).nodes) {
      if (m.op !== 'slice') continue;
      const y = m.children[0];
      const ys = egraph.eclass(y).data.shape;
      const s = ys.length > 0 ? sliceOnly(egraph, m, ys.length - 1) : undefined;
      const w = ys[ys.length - 1];
      // the slice's rows are the operand's (…, t) rows and its columns whole heads of a row of whole heads
      if (!s || s.end - s.start !== h * d || s.start % d !== 0 || w % d !== 0 || numel(ys.slice(0, -1)) !== numel(shape.slice(0, -2))) continue;
      const wide = addRecorded(egraph, irENode('reshape', { shape: [...shape.slice(0, -2), w / d, d] }, [y]), [RULE]);
      return { tensor: wide, offset: s.start / d };
    }
  }
  return undefined;
}

/** A seq-major attention op whose q, k or v is a head window of a wider tensor → the op reading it in place. */
function headWindow(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const ir = fromENode(node);
  if (!isOp(ir, 'attention', 'attentionLse', 'attentionWithLse', 'attentionGrad', 'attentionGradKV', 'attentionGradQKV')) return [];
  if (!ir.attrs.seqMajor || ir.attrs.window) return [];
  const n = ir.op === 'attentionLse' ? 2 : 3;
  const shapes = node.children.slice(0, n).map((c) => egraph.eclass(c).data.shape);
  const r = shapes[0].length;
  const heads = shapes[0][r - 2];
  if (r < 3 || !shapes.every((s) => s.length === r && s[r - 2] === heads && flashDim(s[r - 1]))) return [];
  const sources = node.children.slice(0, n).map((c) => headSource(egraph, c));
  if (sources.every((s) => s === undefined)) return [];
  const kids = node.children.map((c, i) => (i < n ? (sources[i]?.tensor ?? c) : c));
  const offsets = [0, 1, 2].map((i) => (i < n ? (sources[i]?.offset ?? 0) : 0));
  // the windowed op keeps the rules that made the op it reads for (e.g. attention-seq-major) for the report
  return [addRecorded(egraph, irENode(ir.op, { ...ir.attrs, window: { heads, offsets } } as never, kids), new Set([RULE, ...rulesOf(egraph, eclass, node)]))];
}

/** The attention head-window rule set. */
export const attentionWindowRules: readonly TensorRewrite[] = [nodeRule(RULE, ['attention', 'attentionLse', 'attentionWithLse', 'attentionGrad', 'attentionGradKV', 'attentionGradQKV'], headWindow)];

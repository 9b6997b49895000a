// The attention QKV gradient rule: the concatenation of dq, dk and dv of one seq-major attention, each reshaped to
// the rows of a projection ([..., H·D]) and joined along the last axis in that order (autograd's gradient of a
// fused QKV projection split in three), is one `attentionGradQKV` kernel writing the three gradients straight into
// their head windows of one [..., T, 3H, D] result, reshaped in place: no concat copy. Runs once the gradients'
// variants (Δ from the output, head windows) exist, and takes each. Only when q, k and v have one shape and head
// sizes the flash kernels take. Must not choose: extraction weighs it against dq, dk + dv and the concat.
// Invariant: the reshaped result is exactly the concatenation it joins.

import { type OpAttrs, sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { enodeAttrs, fromENode, irENode } from '../tensorLanguage.js';
import { flashDim } from './attentionLayout.js';
import { addRecorded, nodeRule, rulesOf, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-grad-qkv';

type GradAttrs = OpAttrs['attentionGrad'];

/** The attributes of two attention gradients agree but for `wrt`. */
const sameGrad = (a: GradAttrs, b: GradAttrs) =>
  a.causal === b.causal && a.scale === b.scale && !a.seqMajor === !b.seqMajor && !a.deltaFromOut === !b.deltaFromOut && JSON.stringify(a.window) === JSON.stringify(b.window);

/** Whether class `c` holds `reshape(g)` to `rows` where g's class holds the gradient wrt `wrt` of `kids` (attributes as `dq`). */
function holdsGrad(egraph: EGraph<TensorInfo>, c: Id, rows: readonly number[], wrt: 'k' | 'v', kids: readonly Id[], dq: GradAttrs): boolean {
  if (!sameShape(egraph.eclass(c).data.shape, rows)) return false;
  return egraph.eclass(c).nodes.some(
    (n) =>
      n.op === 'reshape' &&
      egraph.eclass(n.children[0]).nodes.some((m) => {
        if (m.op !== 'attentionGrad') return false;
        const g = fromENode(m);
        return g.op === 'attentionGrad' && g.attrs.wrt === wrt && sameGrad(g.attrs, dq) && m.children.every((x, i) => egraph.find(x) === kids[i]);
      }),
  );
}

/** concat(reshape(dq), reshape(dk), reshape(dv)) along the last axis, of one seq-major attention → one kernel, reshaped. */
function attentionGradQKV(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const joined = egraph.eclass(eclass).data.shape;
  if (node.children.length !== 3 || enodeAttrs(node, 'concat').axis !== joined.length - 1) return [];
  const rows = egraph.eclass(node.children[0]).data.shape; // each operand: the rows of a projection [..., H·D]
  const out: Id[] = [];
  for (const n of egraph.eclass(node.children[0]).nodes) {
    if (n.op !== 'reshape') continue;
    const shape = egraph.eclass(n.children[0]).data.shape;
    const r = shape.length;
    if (r < 3 || !flashDim(shape[r - 1]) || rows[rows.length - 1] !== shape[r - 2] * shape[r - 1]) continue; // dq's heads make one row
    for (const m of egraph.eclass(n.children[0]).nodes) {
      if (m.op !== 'attentionGrad') continue;
      const dq = fromENode(m);
      if (dq.op !== 'attentionGrad' || dq.attrs.wrt !== 'q' || !dq.attrs.seqMajor) continue;
      const kids = m.children.map((c) => egraph.find(c));
      if (!holdsGrad(egraph, node.children[1], rows, 'k', kids, dq.attrs) || !holdsGrad(egraph, node.children[2], rows, 'v', kids, dq.attrs)) continue;
      const { wrt: _, ...attrs } = dq.attrs;
      const made = new Set([RULE, ...rulesOf(egraph, egraph.find(n.children[0]), m)]); // dq's rules, for the report
      const qkv = addRecorded(egraph, irENode('attentionGradQKV', attrs, kids), made);
      out.push(addRecorded(egraph, irENode('reshape', { shape: [...joined] }, [qkv]), [RULE]));
    }
  }
  return out;
}

/** The attention QKV gradient rule set. */
export const attentionGradQKVRules: readonly TensorRewrite[] = [nodeRule(RULE, ['concat'], attentionGradQKV)];

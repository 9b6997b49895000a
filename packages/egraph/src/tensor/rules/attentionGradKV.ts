// The attention key/value gradient rule: `attentionGrad` wrt k and wrt v of the same operands and attributes (the
// two autograd builds for one attention) become one `attentionGradKV` kernel writing both, FlashAttention-2's
// backward (a pass over the query rows per key row computes the scores once for both gradients). Result 0 joins
// dk's class and result 1 (a `pick`) dv's; the multi node keeps a class of its own. Only when v is shaped as k
// (the op's two results share a type). Must not choose: extraction weighs it against the two separate kernels.
// Invariant: each result is exactly the value of the class it joins.

import { sameShape } from '@neura/ir';
import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fromENode, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, rulesOf, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-grad-kv';

/** For an attentionGrad wrt k: the attentionGrad wrt v of the same operands shares one kernel with it. */
function attentionGradKV(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const dk = fromENode(node);
  if (dk.op !== 'attentionGrad' || dk.attrs.wrt !== 'k') return [];
  const { causal, scale, seqMajor, deltaFromOut } = dk.attrs;
  const kids = node.children.map((c) => egraph.find(c));
  if (!sameShape(egraph.eclass(kids[1]).data.shape, egraph.eclass(kids[2]).data.shape)) return [];
  for (const [parent, cls] of egraph.eclass(kids[2]).parents) {
    const dv = fromENode(parent);
    if (dv.op !== 'attentionGrad' || dv.attrs.wrt !== 'v' || dv.attrs.causal !== causal || dv.attrs.scale !== scale || !dv.attrs.seqMajor !== !seqMajor || !dv.attrs.deltaFromOut !== !deltaFromOut) continue;
    if (parent.children.some((c, i) => egraph.find(c) !== kids[i])) continue;
    const made = new Set([RULE, ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, cls, parent)]); // for the report
    const attrs = { causal, scale, ...(seqMajor ? { seqMajor } : {}), ...(deltaFromOut ? { deltaFromOut } : {}) };
    const m = addRecorded(egraph, irENode('attentionGradKV', attrs, kids), made);
    egraph.union(egraph.find(cls), addRecorded(egraph, irENode('pick', { index: 1 }, [m]), [RULE]));
    return [addRecorded(egraph, irENode('pick', { index: 0 }, [m]), [RULE])];
  }
  return [];
}

/** The attention key/value gradient rule set. */
export const attentionGradKVRules: readonly TensorRewrite[] = [nodeRule(RULE, ['attentionGrad'], attentionGradKV)];

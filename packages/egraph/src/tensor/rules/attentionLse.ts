// The attention log-sum-exp rule: an `attention` and an `attentionLse` of the same q and k, with the same causal
// flag and scale (autograd builds the second for the first's backward), become one `attentionWithLse` kernel
// writing both. Its result 0 joins the attention's class and its result 1 (a `pick`) the log-sum-exp's; the
// multi node keeps a class of its own (it stands for both results, so it is never unioned with one). Must not
// choose: the shared kernel is an alternative with a cost, extraction decides.
// Invariant: each result is exactly the value of the class it joins.

import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fromENode, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, rulesOf, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-lse';

/** For an attentionLse node: every attention of its q and k (same attributes) shares one kernel with it. */
function attentionWithLse(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const lse = fromENode(node);
  if (lse.op !== 'attentionLse') return [];
  const { causal, scale, seqMajor } = lse.attrs;
  const [q, k] = node.children.map((c) => egraph.find(c));
  const out: Id[] = [];
  const seen = new Set<Id>();
  for (const [parent, cls] of egraph.eclass(q).parents) {
    const a = fromENode(parent);
    if (a.op !== 'attention' || a.attrs.causal !== causal || a.attrs.scale !== scale || !a.attrs.seqMajor !== !seqMajor) continue;
    const [aq, ak, v] = parent.children.map((c) => egraph.find(c));
    const A = egraph.find(cls);
    if (aq !== q || ak !== k || seen.has(A)) continue;
    seen.add(A);
    // the shared kernel keeps the rules that made its two halves (e.g. attention-seq-major) for the report
    const made = new Set([RULE, ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, A, parent)]);
    const m = addRecorded(egraph, irENode('attentionWithLse', seqMajor ? { causal, scale, seqMajor } : { causal, scale }, [q, k, v]), made);
    egraph.union(A, addRecorded(egraph, irENode('pick', { index: 0 }, [m]), [RULE]));
    out.push(addRecorded(egraph, irENode('pick', { index: 1 }, [m]), [RULE]));
  }
  return out;
}

/** The attention log-sum-exp rule set. */
export const attentionLseRules: readonly TensorRewrite[] = [nodeRule(RULE, ['attentionLse'], attentionWithLse)];

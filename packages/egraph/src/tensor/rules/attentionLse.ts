// The attention log-sum-exp rule: an `attention` and an `attentionLse` of the same q and k, with the same causal
// flag and scale (autograd builds the second for the first's backward), become one `attentionWithLse` kernel
// writing both. Its result 0 joins the attention's class and its result 1 (a `pick`) the log-sum-exp's; the
// multi node keeps a class of its own (it stands for both results, so it is never unioned with one). Must not
// choose: the shared kernel is an alternative with a cost, extraction decides.
// Invariant: each result is exactly the value of the class it joins.

import { multiPatternRule, type TensorRewrite } from './ruleKit.js';

/** Attributes an attention op and its log-sum-exp share (bound once: both must agree; absent fields stay absent). */
const ATTRS = 'causal=?c,scale=?s,seqMajor=?sm,window=?w';

/** The attention log-sum-exp rule set. */
export const attentionLseRules: readonly TensorRewrite[] = [
  // the shared kernel's result 1 is the log-sum-exp, result 0 the attention; the kernel itself keeps its own class
  multiPatternRule(
    'attention-lse',
    `?l = (attentionLse[${ATTRS}] ?q ?k), ?a = (attention[${ATTRS}] ?q ?k ?v)`,
    `?l = (pick[index=1] (attentionWithLse[${ATTRS}] ?q ?k ?v)), ?a = (pick[index=0] (attentionWithLse[${ATTRS}] ?q ?k ?v))`,
  ),
];

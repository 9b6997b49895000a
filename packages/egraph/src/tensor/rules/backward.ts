// Backward-pass rules: the gradient forms autograd emits, rewritten to fused backward ops. Must not change the
// forward pass. Invariant: each rule matches the exact nodes `@neura/autograd` builds (see its vjp.ts).

import type { EGraph, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { all, constants, type TensorRewrite, trw } from './ruleKit.js';
import type { Condition } from '../../core/index.js';

/** Condition: ?zero is the constant 0. */
const isZero: Condition<TensorInfo> = (egraph, _e, subst) => egraph.eclass(subst.get('?zero')).data.constant === 0;

/** Condition: `relu(?z)` is already in the e-graph (the forward pass computes it). */
const reluExists: Condition<TensorInfo> = (egraph: EGraph<TensorInfo>, _e: Id, subst) =>
  egraph.lookup({ op: 'relu', children: [subst.get('?z')] }) !== undefined;

/** The backward rule set. */
export const backwardRules: readonly TensorRewrite[] = [
  // d/dx nll(logSoftmax(x)) = (softmax(x) - onehot) · dy (/N): logSoftmaxGrad(y, g) = g - exp(y)·Σg, Σg = -dy·scale
  trw(
    'softmax-cross-entropy-grad',
    '(logSoftmaxGrad (logSoftmax ?x) (nllGrad[reduction=mean] ?labels ?dy))',
    '(softmaxCrossEntropyGrad[reduction=mean] ?x ?labels ?dy)',
  ),
  trw(
    'softmax-cross-entropy-grad-sum',
    '(logSoftmaxGrad (logSoftmax ?x) (nllGrad[reduction=sum] ?labels ?dy))',
    '(softmaxCrossEntropyGrad[reduction=sum] ?x ?labels ?dy)',
  ),
  // relu's VJP masks with z > 0; relu(z) > 0 exactly where z > 0, so the mask may read the forward output
  // (which a fused matmul epilogue materialises) instead of the pre-activation (which it does not)
  trw('relu-grad-mask', '(gt ?z ?zero)', '(gt (relu ?z) ?zero)', all(constants('?zero'), isZero, reluExists)),
];

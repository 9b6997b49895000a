// Loss recognition: log-softmax written as z − m − log Σ exp(z − m) (m the row maximum, or any row-constant shift:
// Graph.logsumexp's included) or z − log Σ exp(z) becomes ir's `logSoftmax`, and cross-entropy written as
// −mean(Σ_c oneHot(y)·logp) (or −sum) becomes `nll`, which `optimize` fuses with its log-softmax into
// `softmaxCrossEntropy` as for the built-in loss. Must not change what an out-of-range label does silently: `nll`
// refuses one (a typed error when the labels are fed) where oneHot gives a zero row, so only labels that are declared
// inputs are recognized (their values are checked per step); computed labels (a relabelled ignore index) stay as
// written. Invariant: the ops compute what the matched nodes do, up to rounding (a shift m cancels exactly).

import type { EGraph, Id, Subst } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { commuted, type PatternCase, type PatternGuard, patternRule, type TensorRewrite } from './ruleKit.js';

type EG = EGraph<TensorInfo>;

/** Last axes a recognized log-softmax may run along (ranks 1 to 6; ir's logSoftmax runs along the last axis only). */
const AXES = [0, 1, 2, 3, 4, 5];

/** Whether `axis` is z's last, the matched class has z's type (f32), and the shift m is constant along `axis` and within z's shape. */
function softmaxGuard(axis: number): PatternGuard {
  return (eg, eclass, s) => {
    const [out, z] = [eg.eclass(eclass).data, eg.eclass(s.get('?z')).data];
    if (z.dtype !== 'f32' || z.shape.length !== axis + 1 || out.shape.join() !== z.shape.join()) return false;
    if (!s.has('?m')) return true;
    const m = eg.eclass(s.get('?m')).data.shape;
    return m.length === z.shape.length && m[axis] === 1 && m.every((n, i) => n === 1 || n === z.shape[i]);
  };
}

/** The log-softmax spellings along `axis`: shifted by m (either grouping) or unshifted. */
function logSoftmaxCases(axis: number): PatternCase[] {
  const lse = (x: string) => `(log (sum[axes=[${axis}],keepdims=true] (exp ${x})))`;
  const lhs = [`(sub (sub ?z ?m) ${lse('(sub ?z ?m)')})`, `(sub ?z (add ${lse('(sub ?z ?m)')} ?m))`, `(sub ?z ${lse('?z')})`];
  return lhs.flatMap(commuted).map((l) => ({ lhs: l, rhs: `(logSoftmax[axis=${axis}] ?z)`, guard: softmaxGuard(axis) }));
}

/** Whether a class holds a declared graph input (its values are checked when fed). */
const isInput = (eg: EG, cls: Id): boolean => eg.eclass(cls).nodes.some((n) => n.op === 'input');

/** logp [N, C] f32, labels [N] i32 a declared input, and the one-hot as wide as logp (no broadcast of one class). */
const crossEntropyGuard: PatternGuard = (eg: EG, _e: Id, s: Subst) => {
  const [lp, y] = [s.get('?lp'), s.get('?y')].map((c) => eg.eclass(c).data);
  return (
    lp.dtype === 'f32' &&
    lp.shape.length === 2 &&
    y.dtype === 'i32' &&
    y.shape.length === 1 &&
    y.shape[0] === lp.shape[0] &&
    s.attr('?k') === lp.shape[1] &&
    isInput(eg, s.get('?y'))
  );
};

/** −reduce(Σ_c oneHot(y)·logp) over rows, the negation outside or inside the reduction, as `nll[reduction]`. */
function crossEntropyCases(reduction: 'mean' | 'sum'): PatternCase[] {
  const rows = `(sum[axes=[1],keepdims=false] (mul ?hot ?lp))`;
  const r = `${reduction}[axes=[0],keepdims=false]`;
  return [`(neg (${r} ${rows}))`, `(${r} (neg ${rows}))`]
    .flatMap(commuted)
    .map((lhs) => ({ lhs: lhs.replaceAll('?hot', '(oneHot[classes=?k] ?y)'), rhs: `(nll[reduction=${reduction}] ?lp ?y)`, guard: crossEntropyGuard }));
}

/** The loss recognition rules (run on a forward graph before differentiation: see `recognizeForward`). */
export const lossRecognizeRules: readonly TensorRewrite[] = [
  patternRule('log-softmax-recognize', AXES.flatMap(logSoftmaxCases)),
  patternRule('cross-entropy-recognize', [...crossEntropyCases('mean'), ...crossEntropyCases('sum')]),
];

// Activation recognition: GELU (erf and tanh forms) and SiLU written out by hand become ir's `gelu`, `geluTanh` and
// `silu`, so that autograd differentiates one op (the built-in layer's backward) and the step fuses as the built-in
// does; SwiGLU is silu(gate)·up, recognized through its SiLU. Must not guess a constant: each is compared as the f32
// value the kernels compute with (`isScalar`), so 0.7071 for 1/√2 stays decomposed. Invariant: the op computes what
// the matched nodes do, up to rounding (and the IEEE edge cases the soundness test lists).

import type { EGraph, Id, Subst } from '../../core/index.js';
import { Pattern } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { tensorLanguage } from '../tensorLanguage.js';
import { commuted, isScalar, type PatternCase, type PatternGuard, patternRule, type TensorRewrite } from './ruleKit.js';

type EG = EGraph<TensorInfo>;

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** Whether the matched class has x's type (scalar constants broadcast without widening it) and is f32. */
const keepsX = (eg: EG, eclass: Id, s: Subst): boolean => {
  const [a, b] = [eg.eclass(eclass).data, eg.eclass(s.get('?x')).data];
  return a.dtype === 'f32' && b.dtype === 'f32' && a.shape.length === b.shape.length && a.shape.every((n, i) => n === b.shape[i]);
};

/** Left sides `pattern` spelled with every operand order, each with `guard`, built into `rhs`. */
const cases = (lhs: readonly string[], rhs: string, guard: PatternGuard): PatternCase[] =>
  lhs.flatMap(commuted).map((l) => ({ lhs: l, rhs, guard }));

/**
 * Whether class `u` is x scaled by `scale`, as one of `inner`'s spellings binds it (`?x` the same class, `?r` a
 * scale, `?s` a divisor): patterns matched in the guard keep the outer rule's case count at the product of two small
 * lists instead of their product's spellings.
 */
function innerMatches(inner: readonly Pattern[], ok: (eg: EG, s: Subst) => boolean) {
  return (eg: EG, u: Id, x: Id): boolean =>
    inner.some((p) => p.searchEClass(eg, u)?.substs.some((s) => eg.find(s.get('?x')) === eg.find(x) && ok(eg, s)) ?? false);
}

const patterns = (xs: readonly string[]): Pattern[] => xs.flatMap(commuted).map((l) => Pattern.parse(l, tensorLanguage));

/** x/√2 as x·(1/√2) or x/√2. */
const erfArg = innerMatches(patterns(['(mul ?x ?r)', '(div ?x ?s)']), (eg, s) =>
  s.has('?r') ? isScalar(eg, s.get('?r'), Math.SQRT1_2) : isScalar(eg, s.get('?s'), Math.SQRT2),
);

/** √(2/π)·(x + 0.044715·x³), x³ as pow(x, 3), x·x·x or x²·x. */
const tanhArg = innerMatches(
  patterns(['(pow ?x ?three)', '(mul (mul ?x ?x) ?x)', '(mul (square ?x) ?x)'].map((cube) => `(mul (add ?x (mul ${cube} ?k)) ?c)`)),
  (eg, s) => isScalar(eg, s.get('?c'), SQRT_2_OVER_PI) && isScalar(eg, s.get('?k'), 0.044715) && (!s.has('?three') || isScalar(eg, s.get('?three'), 3)),
);

/** 0.5·x·(1 + f(u)): the factors as (x·0.5)·(1 + f) or x·(0.5·(1 + f)), any operand order. */
const halfXTimes = (f: string) => [`(mul (mul ?x ?h) (add (${f} ?u) ?one))`, `(mul ?x (mul ?h (add (${f} ?u) ?one)))`];

/** The guard of a GELU form: 0.5, 1 and the inner argument of x. */
const geluGuard =
  (arg: (eg: EG, u: Id, x: Id) => boolean): PatternGuard =>
  (eg, eclass, s) =>
    keepsX(eg, eclass, s) && isScalar(eg, s.get('?h'), 0.5) && isScalar(eg, s.get('?one'), 1) && arg(eg, s.get('?u'), s.get('?x'));

/** The guard of a SiLU form: x's type and, where written, the 1 of 1 + e⁻ˣ and the numerator 1. */
const siluGuard: PatternGuard = (eg, eclass, s) =>
  keepsX(eg, eclass, s) && (!s.has('?one') || isScalar(eg, s.get('?one'), 1)) && (!s.has('?num') || isScalar(eg, s.get('?num'), 1));

/** The activation recognition rules (run on a forward graph before differentiation: see `recognizeForward`). */
export const activationRecognizeRules: readonly TensorRewrite[] = [
  // 0.5·x·(1 + erf(x/√2)): PyTorch's exact GELU
  patternRule('gelu-recognize', cases(halfXTimes('erf'), '(gelu ?x)', geluGuard(erfArg))),
  // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): PyTorch's approximate='tanh'
  patternRule('gelu-tanh-recognize', cases(halfXTimes('tanh'), '(geluTanh ?x)', geluGuard(tanhArg))),
  // x·sigmoid(x), x/(1 + e⁻ˣ) and x·(1/(1 + e⁻ˣ))
  patternRule(
    'silu-recognize',
    cases(['(mul ?x (sigmoid ?x))', '(div ?x (add (exp (neg ?x)) ?one))', '(mul ?x (div ?num (add (exp (neg ?x)) ?one)))'], '(silu ?x)', siluGuard),
  ),
];

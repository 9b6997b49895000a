// Norm recognition: layer norm and RMSNorm written out by hand are rewritten to the spelling of ir's `layerNorm` and
// `rmsNorm` builders — (x − mean)·rsqrt(mean((x − mean)²) + eps) and x·rsqrt(mean(x²) + eps) — which the row rules
// fuse into one `rowwise` kernel and whose backward autograd spells as it does for the built-in layers. Covers
// `/ sqrt(· + eps)`, the one-pass variance mean(x²) − mean(x)², and x·x or pow(x, 2) for x². Must not rewrite a
// division by any square root: only by √(a mean + a constant), a norm's denominator.

import type { EGraph, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fromENode } from '../tensorLanguage.js';
import { isScalar, type PatternGuard, patternRule, type TensorRewrite } from './ruleKit.js';

type EG = EGraph<TensorInfo>;

/** Whether a class is a scalar f32 constant (an epsilon). */
const isEps = (eg: EG, cls: Id): boolean => {
  const e = eg.eclass(cls).data;
  return e.constant !== undefined && e.dtype === 'f32' && e.shape.every((n) => n === 1);
};

/** Whether a class is a mean kept as [..., 1] (a row statistic that broadcasts back over its rows). */
const isKeptMean = (eg: EG, cls: Id): boolean =>
  eg.eclass(cls).nodes.some((n) => n.op === 'mean' && (fromENode(n).attrs as { keepdims: boolean }).keepdims);

/** Whether class `d` is mean + eps, in either order: a norm's denominator under the root. */
const isNormDenominator = (eg: EG, d: Id): boolean =>
  eg.eclass(d).nodes.some((n) => n.op === 'add' && [0, 1].some((i) => isKeptMean(eg, n.children[i]) && isEps(eg, n.children[1 - i])));

const f32: PatternGuard = (eg, eclass) => eg.eclass(eclass).data.dtype === 'f32';

/** The norm recognition rules (run on a forward graph before differentiation: see `recognizeForward`). */
export const normRecognizeRules: readonly TensorRewrite[] = [
  // x·x and pow(x, 2) are x², the spelling of the variance and the mean square in ir's norms
  patternRule('square-recognize', [
    { lhs: '(mul ?a ?a)', rhs: '(square ?a)', guard: f32 },
    { lhs: '(pow ?a ?two)', rhs: '(square ?a)', guard: (eg, e, s) => eg.eclass(e).data.dtype === 'f32' && isScalar(eg, s.get('?two'), 2) },
  ]),
  // mean(x²) − mean(x)² = mean((x − mean(x))²): the centred variance (no cancellation, and the norm rules' form)
  patternRule('variance-centred', [
    {
      lhs: '(sub (mean[axes=?ax,keepdims=?kd] (square ?x)) (square (mean[axes=?ax,keepdims=?kd] ?x)))',
      rhs: '(mean[axes=?ax,keepdims=?kd] (square (sub ?x (mean[axes=?ax,keepdims=true] ?x))))',
      guard: f32,
    },
  ]),
  // a / √(mean + eps) = a·rsqrt(mean + eps): the normalisation as the norm builders write it
  patternRule('norm-rsqrt', [
    {
      lhs: '(div ?a (sqrt ?d))',
      rhs: '(mul ?a (rsqrt ?d))',
      guard: (eg, e, s) => eg.eclass(e).data.dtype === 'f32' && isNormDenominator(eg, s.get('?d')),
    },
  ]),
];

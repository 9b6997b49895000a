// Attention recognition: attention written by hand, softmax(scale·(q·kᵀ) [causally masked])·v as matmul, a scalar
// mul (after the scores matmul or on q before it), exp(logSoftmax) and matmul, becomes ir's `attention` op. Must not
// guess a mask: a causal mask is recognized only where the e-graph can prove it, i.e. built in-graph as
// col > row of index ramps (cumsum of ones along the last / second-to-last axis), used as a −∞ fill
// (`where(causal, −∞, s)`, PyTorch's masked_fill) or added (`s + where(causal, −∞, 0)`); a mask fed as an input is
// opaque (its values come at step time) and stays decomposed; so is a finite fill (−1e9 + s is not −∞ for huge s).
// Invariant: the op computes what the matched nodes do (short of IEEE edge cases of the additive spelling: a +∞ or
// NaN score above the diagonal makes s + (−∞) NaN, which the op, reading no masked key, never sees).

import type { EGraph, ENode, Id } from '../../core/index.js';
import type { TensorInfo } from '../tensorAnalysis.js';
import { fromENode, irENode } from '../tensorLanguage.js';
import { addRecorded, nodeRule, type TensorRewrite } from './ruleKit.js';

const RULE = 'attention-recognize';

type EG = EGraph<TensorInfo>;

/** The nodes of `op` in a class. */
const nodesOf = (eg: EG, cls: Id, op: string): ENode[] => eg.eclass(cls).nodes.filter((n) => n.op === op);

/** The value a class is filled with, −∞ included (the analysis keeps finite constants only). */
function fillOf(eg: EG, cls: Id): number | undefined {
  const known = eg.eclass(cls).data.constant;
  if (known !== undefined) return known;
  for (const n of nodesOf(eg, cls, 'const')) return (fromENode(n).attrs as { value: number }).value;
  return undefined;
}

/** A class through its `expand` nodes (a broadcast mask reads the same values). */
function throughExpand(eg: EG, cls: Id): Id[] {
  return [eg.find(cls), ...nodesOf(eg, cls, 'expand').map((n) => eg.find(n.children[0]))];
}

/**
 * Whether a class is an index ramp of `len` entries along the axis `fromEnd` places from its last (−1: columns,
 * −2: rows): a cumsum of ones along that axis, whose value at index i is i + 1 whatever the other indices. The
 * extent must be `len` itself: a ramp of one entry broadcast over the scores would be 1 everywhere.
 */
function isRamp(eg: EG, cls: Id, fromEnd: -1 | -2, len: number): boolean {
  const shape = eg.eclass(cls).data.shape;
  if (shape.length < -fromEnd || shape[shape.length + fromEnd] !== len) return false;
  return nodesOf(eg, cls, 'cumsum').some((n) => {
    const { axis, reverse } = fromENode(n).attrs as { axis: number; reverse: boolean };
    return !reverse && (axis < 0 ? axis : axis - shape.length) === fromEnd && fillOf(eg, n.children[0]) === 1;
  });
}

/** Whether a boolean class is j > i (strictly above the diagonal) of scores [..., tq, tk]. */
function isCausalCond(eg: EG, cls: Id, tq: number, tk: number): boolean {
  for (const n of nodesOf(eg, cls, 'gt')) if (isRamp(eg, n.children[0], -1, tk) && isRamp(eg, n.children[1], -2, tq)) return true;
  for (const n of nodesOf(eg, cls, 'lt')) if (isRamp(eg, n.children[0], -2, tq) && isRamp(eg, n.children[1], -1, tk)) return true;
  return false;
}

/** The `rest` of every where(j > i, −∞, rest) in a class (through broadcasts), for scores [..., tq, tk]. */
function causalFills(eg: EG, cls: Id, tq: number, tk: number): Id[] {
  const out: Id[] = [];
  for (const c of throughExpand(eg, cls))
    for (const n of nodesOf(eg, c, 'where')) {
      const [cond, a, b] = n.children;
      if (fillOf(eg, a) === Number.NEGATIVE_INFINITY && isCausalCond(eg, cond, tq, tk)) out.push(eg.find(b));
    }
  return out;
}

/** The scores a softmax reads, unmasked or under a provable causal mask. */
function maskedScores(eg: EG, s: Id): { inner: Id; causal: boolean }[] {
  const shape = eg.eclass(s).data.shape;
  const [tq, tk] = shape.slice(-2);
  const out = [{ inner: eg.find(s), causal: false }];
  for (const rest of causalFills(eg, s, tq, tk)) out.push({ inner: rest, causal: true }); // masked_fill
  for (const n of nodesOf(eg, s, 'add'))
    for (const [m, t] of [n.children, [...n.children].reverse()])
      if (eg.eclass(t).data.shape.join() === shape.join() && causalFills(eg, m, tq, tk).some((rest) => fillOf(eg, rest) === 0))
        out.push({ inner: eg.find(t), causal: true }); // additive mask
  return out;
}

/** q and k of a plain q·kᵀ matmul in a class. */
function qkOf(eg: EG, cls: Id): [Id, Id][] {
  return nodesOf(eg, cls, 'matmul')
    .filter((n) => {
      const { transA, transB } = fromENode(n).attrs as { transA: boolean; transB: boolean };
      return !transA && transB;
    })
    .map((n) => [eg.find(n.children[0]), eg.find(n.children[1])]);
}

/** A finite scalar constant of a class (a scale). */
function scalarOf(eg: EG, cls: Id): number | undefined {
  const info = eg.eclass(cls).data;
  return info.shape.length === 0 && info.constant !== undefined ? info.constant : undefined;
}

/** (q, k, scale) of scaled scores: c·(q·kᵀ), (q·kᵀ)·c, (c·q)·kᵀ or (q·c)·kᵀ. */
function scaledScores(eg: EG, s: Id): { q: Id; k: Id; scale: number }[] {
  const out: { q: Id; k: Id; scale: number }[] = [];
  for (const n of nodesOf(eg, s, 'mul'))
    for (const [x, c] of [n.children, [...n.children].reverse()]) {
      const scale = scalarOf(eg, c);
      if (scale !== undefined) for (const [q, k] of qkOf(eg, x)) out.push({ q, k, scale });
    }
  for (const [qs, k] of qkOf(eg, s))
    for (const n of nodesOf(eg, qs, 'mul'))
      for (const [q, c] of [n.children, [...n.children].reverse()]) {
        const scale = scalarOf(eg, c);
        if (scale !== undefined && eg.eclass(q).data.shape.length === eg.eclass(qs).data.shape.length) out.push({ q: eg.find(q), k, scale });
      }
  return out;
}

/** Whether q, k, v fit the attention op: [..., Tq, D], [..., Tk, D], [..., Tk, Dv] with the same leading axes (Tq = Tk when causal). */
function fits(eg: EG, q: Id, k: Id, v: Id, causal: boolean): boolean {
  const [qs, ks, vs] = [q, k, v].map((c) => eg.eclass(c).data);
  if (![qs, ks, vs].every((t) => t.dtype === 'f32' && t.shape.length >= 3 && t.shape.length === qs.shape.length)) return false;
  const r = qs.shape.length;
  for (let i = 0; i < r - 2; i++) if (qs.shape[i] !== ks.shape[i] || qs.shape[i] !== vs.shape[i]) return false;
  if (qs.shape[r - 1] !== ks.shape[r - 1] || ks.shape[r - 2] !== vs.shape[r - 2]) return false;
  return !causal || qs.shape[r - 2] === ks.shape[r - 2];
}

/** For a matmul p·v with p = exp(logSoftmax(scores)) over the last axis: the attention op of the scores' q, k and v. */
function recognize(eg: EG, _eclass: Id, node: ENode): Id[] {
  const { transA, transB } = fromENode(node).attrs as { transA: boolean; transB: boolean };
  if (transA || transB) return [];
  const [p, v] = node.children.map((c) => eg.find(c));
  const out: Id[] = [];
  for (const e of nodesOf(eg, p, 'exp'))
    for (const ls of nodesOf(eg, e.children[0], 'logSoftmax')) {
      const s = eg.find(ls.children[0]);
      const rank = eg.eclass(s).data.shape.length;
      if ((fromENode(ls).attrs as { axis: number }).axis !== rank - 1) continue;
      for (const { inner, causal } of maskedScores(eg, s))
        for (const { q, k, scale } of scaledScores(eg, inner))
          if (fits(eg, q, k, v, causal)) out.push(addRecorded(eg, irENode('attention', { causal, scale }, [q, k, v]), [RULE]));
    }
  return out;
}

/** The attention recognition rule set (run on a forward graph before differentiation: see `recognizeForward`). */
export const attentionRecognizeRules: readonly TensorRewrite[] = [nodeRule(RULE, ['matmul'], recognize)];

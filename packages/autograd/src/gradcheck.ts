// Finite-difference checking of gradients: builds a graph twice (forward only, and forward + `grad`), runs
// both with the float64 reference interpreter, and compares analytic gradients with central differences.
// Must not depend on any runtime or GPU; invariant: `build` is deterministic (same leaves, same names).

import { Graph, interpret, mulberry32, type NamedLeafOp, type Node, numel, stridesOf, type Tensor, type TensorValue } from '@neura/ir';
import { grad } from './grad.js';

/** Options of `checkGradients`. */
export interface GradCheckOptions {
  /** Input values by name; f32 inputs left out get random values, other dtypes must be given. */
  readonly feeds?: Record<string, TensorValue>;
  /** Param/state values by name; those left out get random values. */
  readonly state?: Record<string, TensorValue>;
  /** Names of the leaves (input, param or state) to check; default: every param. */
  readonly wrt?: readonly string[];
  /** Central-difference step (default 1e-6). */
  readonly eps?: number;
  /** Tolerances: an element passes when |analytic − numeric| ≤ atol + rtol·|numeric| (defaults 1e-6, 1e-8). */
  readonly rtol?: number;
  /** Absolute tolerance (default 1e-8). */
  readonly atol?: number;
  /** Range of the random values (default [-1, 1]) and PRNG seed (default 1). */
  readonly range?: readonly [number, number];
  /** Seed of the random values. */
  readonly seed?: number;
  /** Give leaves without a gradient path zeros instead of throwing (see `GradOptions.allowUnused`). */
  readonly allowUnused?: boolean;
  /** What is checked (an op name), for the summary. */
  readonly label?: string;
}

/** The comparison for one leaf. */
export interface LeafGradCheck {
  /** The leaf's name. */
  readonly name: string;
  /** The gradient from autograd, computed by the f64 interpreter, row-major. */
  readonly analytic: Float64Array;
  /** The central-difference gradient, row-major. */
  readonly numeric: Float64Array;
  /** Flat index of the element furthest outside tolerance (or of the largest error when all pass). */
  readonly worst: number;
  /** Largest |analytic − numeric|. */
  readonly maxAbsErr: number;
  /** Largest |analytic − numeric| / |numeric|. */
  readonly maxRelErr: number;
  /** Every element within tolerance. */
  readonly ok: boolean;
}

/** The result of `checkGradients`: per leaf comparisons and a one-line-per-leaf summary. */
export interface GradCheckReport {
  /** Every leaf passed. */
  readonly ok: boolean;
  /** The comparison per checked leaf. */
  readonly leaves: readonly LeafGradCheck[];
  /** One line per leaf: name, errors, pass or fail (for test failure messages). */
  readonly summary: string;
}

const f64 = (shape: readonly number[], data: ArrayLike<number>): TensorValue => ({ shape: [...shape], dtype: 'f32', data: Float64Array.from(data) });

/** Compares `grad` with central finite differences of the loss that `build` returns, in float64. */
export function checkGradients(build: (g: Graph) => Tensor, opts: GradCheckOptions = {}): GradCheckReport {
  const eps = opts.eps ?? 1e-6;
  const { fwd, bwd, names } = lossAndGradGraphs(build, opts);
  const { feeds, state } = leafValues(fwd, opts);
  const analytic = interpret(bwd, feeds, state, 'f64').outputs;
  const lossAt = (name: string, i: number, delta: number): number => {
    const table = name in feeds ? feeds : state;
    const v = table[name];
    const data = Float64Array.from(v.data);
    data[i] += delta;
    const r = interpret(fwd, table === feeds ? { ...feeds, [name]: { ...v, data } } : feeds, table === state ? { ...state, [name]: { ...v, data } } : state, 'f64');
    return r.outputs.loss.data[0];
  };
  const results = names.map((name) => {
    const a = Float64Array.from(analytic[`grad/${name}`].data);
    const n = Float64Array.from(a, (_, i) => (lossAt(name, i, eps) - lossAt(name, i, -eps)) / (2 * eps));
    return compareLeaf(name, a, n, opts.rtol ?? 1e-6, opts.atol ?? 1e-8);
  });
  return { ok: results.every((r) => r.ok), leaves: results, summary: summarize(fwd, results, opts.label) };
}

/** The forward graph (output `loss`) and a second build with `grad/NAME` outputs for the checked leaves. */
function lossAndGradGraphs(build: (g: Graph) => Tensor, opts: GradCheckOptions): { fwd: Graph; bwd: Graph; names: string[] } {
  const fwd = new Graph();
  fwd.output('loss', build(fwd));
  const bwd = new Graph();
  const loss = build(bwd);
  const leafNamed = (name: string): Node<NamedLeafOp> => {
    const t = bwd.byName(name);
    if (!t) throw new Error(`checkGradients: no leaf named '${name}'`);
    return t;
  };
  const wrt: Node<NamedLeafOp>[] = opts.wrt ? opts.wrt.map(leafNamed) : bwd.leaves('param');
  const grads = grad(bwd, loss, wrt, { allowUnused: opts.allowUnused });
  bwd.output('loss', loss);
  const names = wrt.map((t) => t.attrs.name);
  names.forEach((n, i) => {
    bwd.output(`grad/${n}`, grads[i]);
  });
  return { fwd, bwd, names };
}

/** Values of every leaf, in float64: those given in the options, random ones in `range` for the rest. */
function leafValues(fwd: Graph, opts: GradCheckOptions): { feeds: Record<string, TensorValue>; state: Record<string, TensorValue> } {
  const [low, high] = opts.range ?? [-1, 1];
  const rand = mulberry32(opts.seed ?? 1);
  const random = (shape: readonly number[]) => f64(shape, Array.from({ length: numel(shape) }, () => low + (high - low) * rand()));
  const feeds: Record<string, TensorValue> = {};
  for (const x of fwd.leaves('input')) {
    const name = x.attrs.name;
    const given = opts.feeds?.[name];
    if (given) feeds[name] = given.dtype === 'f32' ? f64(given.shape, given.data) : given;
    else if (x.dtype === 'f32') feeds[name] = random(x.shape);
    else throw new Error(`checkGradients: input '${name}' is ${x.dtype}: give its value in feeds`);
  }
  const state: Record<string, TensorValue> = {};
  for (const x of [...fwd.leaves('param'), ...fwd.leaves('state')]) {
    const given = opts.state?.[x.attrs.name];
    state[x.attrs.name] = given ? f64(given.shape, given.data) : random(x.shape);
  }
  return { feeds, state };
}

/** One leaf's comparison: an element passes when |analytic − numeric| ≤ atol + rtol·|numeric|. */
function compareLeaf(name: string, analytic: Float64Array, numeric: Float64Array, rtol: number, atol: number): LeafGradCheck {
  let worst = 0;
  let worstExcess = -Infinity;
  let maxAbsErr = 0;
  let maxRelErr = 0;
  let ok = true;
  for (let i = 0; i < analytic.length; i++) {
    const err = Math.abs(analytic[i] - numeric[i]);
    const excess = err - (atol + rtol * Math.abs(numeric[i]));
    if (!(excess <= 0)) ok = false;
    if (!(excess <= worstExcess)) {
      worst = i;
      worstExcess = excess;
    }
    maxAbsErr = Math.max(maxAbsErr, err);
    maxRelErr = Math.max(maxRelErr, err / Math.max(Math.abs(analytic[i]), Math.abs(numeric[i]), Number.MIN_VALUE));
  }
  return { name, analytic, numeric, worst, maxAbsErr, maxRelErr, ok };
}

/** One line per leaf: ok or MISMATCH, the worst element's coordinates and values, the largest errors. */
function summarize(fwd: Graph, results: readonly LeafGradCheck[], what?: string): string {
  const coords = (name: string, i: number) => {
    const shape = (fwd.byName(name) as Tensor).shape;
    return `[${stridesOf(shape).map((st, ax) => Math.floor(i / st) % shape[ax]).join(', ')}]`;
  };
  const label = what ? `${what}: ` : '';
  return results
    .map(
      (r) =>
        `${label}${r.ok ? 'ok' : 'MISMATCH'} d loss/d '${r.name}': worst element ${coords(r.name, r.worst)} analytic ${r.analytic[r.worst]} vs numeric ${r.numeric[r.worst]} (max abs err ${r.maxAbsErr.toExponential(2)}, max rel err ${r.maxRelErr.toExponential(2)})`,
    )
    .join('\n');
}

// Test helpers for gradient checks: assert a report element by element with the shared matcher, so a
// failure names the op, the leaf and the worst element.
import { expect } from 'vitest';
import { Graph, interpret, type Tensor, tensor } from '@neura/ir';
import { type GradCheckReport, grad } from '../src/index.js';

/** Asserts that every checked leaf's analytic gradient matches finite differences. */
export function expectGradientsMatch(report: GradCheckReport, tol: { rtol?: number; atol?: number } = {}): void {
  expect(report.leaves.length).toBeGreaterThan(0);
  for (const leaf of report.leaves) {
    expect(leaf.analytic, report.summary).toBeAllclose(leaf.numeric, { rtol: tol.rtol ?? 1e-6, atol: tol.atol ?? 1e-7 });
  }
  expect(report.ok, report.summary).toBe(true);
}

/** Asserts `received` equals `expected` with NaN where it has NaN, the same ±∞, and finite elements allclose. */
export function expectIeeeClose(received: ArrayLike<number>, expected: readonly number[], tol: { rtol?: number; atol?: number } = {}): void {
  const got = Array.from(received);
  expect(got.length).toBe(expected.length);
  const special = (v: number) => (Number.isNaN(v) ? 'NaN' : Number.isFinite(v) ? 'finite' : String(v));
  expect(got.map(special), `NaN/∞ pattern of [${got}]`).toEqual(expected.map(special));
  const finite = (v: readonly number[]) => v.filter((_, i) => Number.isFinite(expected[i]));
  expect(finite(got)).toBeAllclose(finite(expected), { rtol: tol.rtol ?? 1e-12, atol: tol.atol ?? 1e-12 });
}

/** The value of `f(params)` and the gradients of sum(f(params)) (upstream ones, as torch's backward(ones)). */
export function valueAndGrad(f: (g: Graph, xs: Tensor[]) => Tensor, ...xs: { shape: number[]; data: number[] }[]) {
  const g = new Graph();
  const ps = xs.map((x, i) => g.param(`p${i}`, x.shape));
  const y = f(g, ps);
  g.output('y', y);
  const ds = grad(g, g.sum(y), ps);
  for (const [i, d] of ds.entries()) g.output(`d${i}`, d);
  const state = Object.fromEntries(xs.map((x, i) => [`p${i}`, tensor(x.shape, x.data)]));
  const r = interpret(g, {}, state, 'f64').outputs;
  return { y: Array.from(r.y.data), d: xs.map((_, i) => Array.from(r[`d${i}`].data)) };
}

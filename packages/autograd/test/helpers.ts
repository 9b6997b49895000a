// Test helpers for gradient checks: assert a report element by element with the shared matcher, so a
// failure names the op, the leaf and the worst element.
import { expect } from 'vitest';
import type { GradCheckReport } from '../src/index.js';

/** Asserts that every checked leaf's analytic gradient matches finite differences. */
export function expectGradientsMatch(report: GradCheckReport, tol: { rtol?: number; atol?: number } = {}): void {
  expect(report.leaves.length).toBeGreaterThan(0);
  for (const leaf of report.leaves) {
    expect(leaf.analytic, report.summary).toBeAllclose(leaf.numeric, { rtol: tol.rtol ?? 1e-6, atol: tol.atol ?? 1e-7 });
  }
  expect(report.ok, report.summary).toBe(true);
}

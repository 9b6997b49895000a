// Benchmark of the e-graph core: saturates the arithmetic ring rules on a larger term up to a node limit and
// measures e-node throughput. Must not assert anything (benchmarks measure, tests check). Uses the core's
// `arithmetic` test language (packages/egraph/src/core/testing/math.ts), exported from @neura/egraph.
import { EGraph, Runner, SimpleScheduler, arithmetic } from '@neura/egraph';
import type { StopReason } from '@neura/egraph';

/** Figures of one saturation run. */
export interface EgraphSaturationResult {
  /** E-nodes in the e-graph at the end, per second of run time. */
  enodesPerSecond: number;
  /** Wall time of the run, which stops at the node limit. */
  msToNodeLimit: number;
  /** E-nodes at the end. */
  nodes: number;
  /** E-classes at the end. */
  classes: number;
  /** Iterations run. */
  iterations: number;
  /** Why the run stopped (expected: nodeLimit). */
  stopReason: StopReason;
  /** Share of the time spent searching, applying and rebuilding. */
  searchMs: number;
  applyMs: number;
  rebuildMs: number;
}

/** A sum of `n` products, `(add (mul x0 y0) (add (mul x1 y1) ...))`, big enough to blow up under AC rules. */
function bigTerm(n: number): string {
  let s = `(mul x${n - 1} (add y${n - 1} 1))`;
  for (let i = n - 2; i >= 0; i--) s = `(add (mul x${i} (add y${i} 0)) ${s})`;
  return s;
}

/** Saturates commutativity, associativity, identities and distributivity to `nodeLimit` e-nodes. */
export async function benchEgraphSaturation(nodeLimit = 50_000, terms = 6): Promise<EgraphSaturationResult> {
  const eg = new EGraph();
  const runner = new Runner(eg, { nodeLimit, iterLimit: 1_000, timeLimitMs: 60_000, scheduler: new SimpleScheduler() });
  runner.withExpr(bigTerm(terms), arithmetic.mathLanguage);
  const report = runner.run(arithmetic.mathRules());
  const ms = report.totalTimeMs;
  return {
    enodesPerSecond: report.egraphNodes / (ms / 1000),
    msToNodeLimit: ms,
    nodes: report.egraphNodes,
    classes: report.egraphClasses,
    iterations: report.iterations,
    stopReason: report.stopReason,
    searchMs: report.searchTimeMs,
    applyMs: report.applyTimeMs,
    rebuildMs: report.rebuildTimeMs,
  };
}

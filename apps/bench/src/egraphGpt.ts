// Benchmark of the tensor optimizer on whole training steps: the GPT step (decomposed attention, recognized as the
// fused op before grad as compileTraining does; layer norm, GELU, cross-entropy, autograd backward, AdamW) at two
// sizes, and the MNIST step of `pnpm mnist`. Measures optimize time (first run in the process, with JIT warm-up,
// and the best of the repeats) and dispatches and bytes before/after. Must not assert anything: benchmarks
// measure, tests check.
import type { OptimizeOptions, SearchStop, StopReason } from '@neura/egraph';
import { graphFigures, optimize } from '@neura/egraph';
import type { Graph } from '@neura/ir';
import type { GptConfig } from '@neura/nn';
import { buildGptStep } from '@neura/nn';
import { buildMnistStep } from './workloads/mnistStep.js';

/** Figures of optimizing one training-step graph. */
export interface GptOptimizeResult {
  /** Live nodes of the unoptimized step. */
  nodesBefore: number;
  dispatchesBefore: number;
  dispatchesAfter: number;
  /** Output bytes of all kernels (intermediate traffic) before and after. */
  bytesBefore: number;
  bytesAfter: number;
  /** Best wall time of `optimize` over the repeats, in ms. */
  optimizeMs: number;
  /** Process CPU time (user + system, `process.cpuUsage`: GC threads included) of that fastest run, in ms. */
  optimizeCpuMs: number;
  /**
   * Medians over the warm runs (every repeat after the first; the first when there is only one): wall and process
   * CPU time in ms. On a shared machine CPU time is the steadier figure (wall time counts waiting for a core).
   */
  warm: { runs: number; medianMs: number; medianCpuMs: number };
  /** Wall time of the first `optimize` in this process (includes JIT warm-up), in ms. */
  firstOptimizeMs: number;
  /** Phases of the best run: e-graph load, passes, extraction, graph rebuild (ms). */
  phases: { loadMs: number; runMs: number; extractMs: number; rebuildGraphMs: number };
  egraphNodes: number;
  egraphClasses: number;
  stopReason: StopReason;
  iterations: number;
  /** The extractor's local search: moves tried and the bound that stopped it (deterministic bounds only). */
  extraction: { evaluations: number; stop: SearchStop };
  /** Per pass: iterations, stop reason, e-nodes and ms. */
  passes: { name: string; iterations: number; stopReason: StopReason; egraphNodes: number; ms: number }[];
}

/** The benchmarked GPT steps: 6×384 (6 heads, context 256, batch 64), 2×128 (4 heads, context 64, batch 16), and 6×384 with the attention op. */
export const GPT_CONFIGS: Readonly<Record<string, GptConfig>> = {
  'gpt-6x384x256': { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65 },
  'gpt-2x128x64': { layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65 },
  // the same large step with ir's fused attention op (what the GPU workloads compile) instead of decomposed
  'gpt-6x384x256-attention-op': { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65, attention: 'op' },
};

/** Optimizes a fresh copy of a step `repeats` times and reports the figures of the fastest run. */
export function benchOptimize(build: () => Graph, repeats = 3, options: OptimizeOptions = {}): GptOptimizeResult {
  const before = graphFigures(build());
  let best: { ms: number; cpuMs: number; r: ReturnType<typeof optimize> } | undefined;
  let first = 0;
  const runs: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < repeats; i++) {
    const g = build();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = optimize(g, options);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const cpuMs = (c.user + c.system) / 1000;
    runs.push({ ms, cpuMs });
    if (i === 0) first = ms;
    if (!best || ms < best.ms) best = { ms, cpuMs, r };
  }
  const { ms, cpuMs, r } = best as { ms: number; cpuMs: number; r: ReturnType<typeof optimize> };
  const warmRuns = runs.length > 1 ? runs.slice(1) : runs;
  const rep = r.report;
  return {
    nodesBefore: before.nodes,
    dispatchesBefore: rep.dispatchesBefore,
    dispatchesAfter: rep.dispatchesAfter,
    bytesBefore: rep.bytesBefore,
    bytesAfter: rep.bytesAfter,
    optimizeMs: ms,
    optimizeCpuMs: cpuMs,
    warm: { runs: warmRuns.length, medianMs: median(warmRuns.map((x) => x.ms)), medianCpuMs: median(warmRuns.map((x) => x.cpuMs)) },
    firstOptimizeMs: first,
    phases: { ...rep.phases },
    egraphNodes: rep.egraph.enodes,
    egraphClasses: rep.egraph.eclasses,
    stopReason: rep.egraph.stopReason,
    iterations: rep.egraph.iterations,
    extraction: { ...rep.search },
    passes: rep.passes.map((p) => ({
      name: p.name,
      iterations: p.report.iterations,
      stopReason: p.report.stopReason,
      egraphNodes: p.report.egraphNodes,
      ms: p.report.totalTimeMs,
    })),
  };
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Optimizes the MNIST step, then the GPT steps from small to large (so the large step's best-of-repeats time
 * is with a warm JIT, as in a process that compiles more than one graph; each `firstOptimizeMs` is that
 * step's first run). `only` restricts to the named entries (e.g. a lone large step shows a cold process);
 * `options` go to every `optimize` (e.g. a device's `limits`).
 */
export function benchGptOptimize(repeats = 3, only?: readonly string[], options: OptimizeOptions = {}): Record<string, GptOptimizeResult> {
  const out: Record<string, GptOptimizeResult> = {};
  const want = (name: string) => !only || only.includes(name);
  if (want('mnist-step')) out['mnist-step'] = benchOptimize(() => buildMnistStep(), repeats, options);
  for (const name of ['gpt-2x128x64', 'gpt-6x384x256', 'gpt-6x384x256-attention-op']) {
    if (want(name)) out[name] = benchOptimize(() => buildGptStep(GPT_CONFIGS[name]), repeats, options);
  }
  return out;
}

// The measured per-shape matmul autotuner: for each shape, the shipped heuristic (`default`) and every candidate
// configuration that fits the device are compiled as a one-matmul step, checked against a reference (the f64
// interpreter for small shapes, else the default kernel's result) and timed by wall clock over a few steps after a
// warm-up step. The fastest correct one wins; a table entry is kept only where a candidate beat the default.
// Choices are cached per adapter (`TuningCache`): a shape found there is not measured again.
// Wall clock includes a submit per step, so small shapes read as submit-bound; figures are for ranking only.

import { Graph, interpret, type TensorValue } from '@neura/ir';
import { MATMUL_CANDIDATES, MATMUL_CONFIG_BY_NAME, type MatmulConfig, type MatmulShape, type MatmulTuning, matmulConfigName, matmulShapeKey, misfitOf } from '@neura/wgsl-kernels';
import { compile } from './compile.js';
import type { NeuraDevice } from './device.js';
import { adapterKey } from './matmulTuning.js';
import { PipelineCache } from './pipelineCache.js';
import { checkProfilable, type StepProfile } from './profiler.js';
import type { Session } from './session.js';
import { seededUniform } from './seededUniform.js';
import { capsFor } from './precision.js';
import { DEFAULT_CHOICE, type TuningCache, type TuningEntries } from './tuningCache.js';

/** Options of `tuneMatmul`. */
export interface TuneMatmulOptions {
  /** Configurations tried besides the default (default MATMUL_CANDIDATES; those that do not fit are skipped). */
  readonly candidates?: readonly MatmulConfig[];
  /** Timed steps per candidate after one warm-up step (default 3). */
  readonly repeats?: number;
  /** Where choices are kept per adapter; shapes found there are not measured. */
  readonly cache?: TuningCache;
  /** Shapes up to this many multiply-adds are checked against the f64 interpreter (default 2^22), larger ones against the default kernel. */
  readonly interpretUpTo?: number;
  /** Tolerance of the check (default 1e-3 relative, 1e-4·√K absolute). */
  readonly rtol?: number;
  /** Absolute tolerance of the check (default 1e-4·√K). */
  readonly atol?: number;
  /** `gpu`: timestamp queries (default where the adapter offers them and is hardware); `wall`: wall clock per submitted step. */
  readonly clock?: 'gpu' | 'wall';
  /**
   * Before timing a candidate, keep running it for this many ms (default 0): a GPU's clocks follow its recent load,
   * and isolated one-matmul steps otherwise run slower than inside a training step (H200: ~5×).
   */
  readonly warmupMs?: number;
  /** The fraction by which a candidate must beat the default to be chosen (default 0.03). */
  readonly minGain?: number;
  /** Where warnings go (ignored cache entries, quantized timestamps); default console.warn. */
  readonly warn?: (message: string) => void;
}

/** One candidate's figures on one shape. */
export interface CandidateTiming {
  /** Configuration name, or `default` for the heuristic. */
  readonly name: string;
  /** Milliseconds per timed step (NaN when it did not run). */
  readonly msPerStep: number;
  /** Whether its result passed the check. */
  readonly ok: boolean;
  /** Why it failed the check or could not run. */
  readonly why?: string;
}

/** What `tuneMatmul` did for one shape. */
export interface ShapeTuning {
  /** The cache key of the shape. */
  readonly key: string;
  /** The matmul's shape (batch, M, N, K, transposes). */
  readonly shape: MatmulShape;
  /** The winner: a configuration name or `default`. */
  readonly choice: string;
  /** Read from the cache (no timings). */
  readonly cached: boolean;
  /** Each candidate's figures (empty when cached). */
  readonly timings: readonly CandidateTiming[];
}

/** The table to compile with (every shape: a configuration, or `default` where none beat the heuristic), and what was measured. */
export interface TuneMatmulResult {
  /** The table to compile with. */
  readonly tuning: MatmulTuning;
  /** How candidates were timed. */
  readonly clock: 'gpu' | 'wall';
  /** What was decided per shape. */
  readonly shapes: readonly ShapeTuning[];
  /** Shapes measured now (0: every shape came from the cache). */
  readonly measured: number;
}

function randomValue(shape: number[], seed: number): TensorValue {
  return { shape, dtype: 'f32', data: seededUniform(shape.reduce((p, d) => p * d, 1), seed) };
}

/** The one-matmul step of a shape and a batch of inputs for it. */
function problem(s: MatmulShape): { graph: Graph; feeds: Record<string, TensorValue> } {
  const batch = (s.batches ?? 1) > 1 ? [s.batches ?? 1] : [];
  const aShape = [...batch, ...(s.transA ? [s.k, s.m] : [s.m, s.k])];
  const bShape = [...batch, ...(s.transB ? [s.n, s.k] : [s.k, s.n])];
  const graph = new Graph();
  graph.output('y', graph.matmul(graph.input('a', aShape), graph.input('b', bShape), { transA: !!s.transA, transB: !!s.transB }));
  return { graph, feeds: { a: randomValue(aShape, 1), b: randomValue(bShape, 2) } };
}

/** Median over the `repeats` copies of the step (encoded in one submission) of the summed dispatch time, in ms. */
function gpuMsPerStep(profile: StepProfile, repeats: number): number {
  const per = profile.timings.length / repeats;
  const sums = Array.from({ length: repeats }, (_, r) => profile.timings.slice(r * per, (r + 1) * per).reduce((s, t) => s + (t.endNs - t.startNs), 0) / 1e6);
  return sums.sort((a, b) => a - b)[Math.floor(repeats / 2)];
}

/** Wall clock per step over `repeats` submitted steps (the last one read back, so all have finished). */
async function wallMsPerStep(session: Session, feeds: Record<string, TensorValue>, repeats: number): Promise<number> {
  const t0 = performance.now();
  const steps = [];
  for (let i = 0; i < repeats; i++) steps.push(session.step(feeds, i === repeats - 1 ? { read: ['y'] } : {}));
  await Promise.all(steps);
  return (performance.now() - t0) / repeats;
}

function disagreement(a: ArrayLike<number>, b: ArrayLike<number>, rtol: number, atol: number): string | undefined {
  if (a.length !== b.length) return `${a.length} values, expected ${b.length}`;
  for (let i = 0; i < a.length; i++) if (!(Math.abs(a[i] - b[i]) <= atol + rtol * Math.abs(b[i]))) return `y[${i}] = ${a[i]}, expected ${b[i]}`;
  return undefined;
}

/** Measures the matmul `shapes` on `device` (see the header); returns the table to compile with and the figures. */
export async function tuneMatmul(device: NeuraDevice, shapes: readonly MatmulShape[], opts: TuneMatmulOptions = {}): Promise<TuneMatmulResult> {
  const caps = capsFor(device);
  const repeats = opts.repeats ?? 3;
  const clock = opts.clock ?? (device.features.has('timestamp-query') && !device.adapterInfo.software ? 'gpu' : 'wall');
  if (clock === 'gpu') checkProfilable(device);
  const minGain = opts.minGain ?? 0.03;
  let warnedQuantized = false;
  const adapter = adapterKey(device);
  const stored: TuningEntries = opts.cache ? await opts.cache.load(adapter) : {};
  const warn = opts.warn ?? console.warn;
  const pipelines = new PipelineCache(device.gpu);
  const results: ShapeTuning[] = [];
  let measured = 0;
  for (const shape of shapes) {
    const key = matmulShapeKey(shape);
    const cachedChoice = stored[key];
    if (cachedChoice !== undefined) {
      const cfg = cachedChoice === DEFAULT_CHOICE ? undefined : MATMUL_CONFIG_BY_NAME.get(cachedChoice);
      const why = cfg && misfitOf(cfg, caps);
      if (why) warn(`matmul tuning cache: entry '${key}' → '${cachedChoice}' does not fit this device (${why}); measuring again`);
      else {
        results.push({ key, shape, choice: cachedChoice, cached: true, timings: [] });
        continue;
      }
    }
    measured++;
    const { graph, feeds } = problem(shape);
    const macs = shape.m * shape.n * shape.k * (shape.batches ?? 1);
    const rtol = opts.rtol ?? 1e-3;
    const atol = opts.atol ?? 1e-4 * Math.sqrt(shape.k);
    let reference = macs <= (opts.interpretUpTo ?? 2 ** 22) ? interpret(graph, feeds).outputs.y.data : undefined;
    const timings: CandidateTiming[] = [];
    const tried: (MatmulConfig | undefined)[] = [undefined, ...(opts.candidates ?? MATMUL_CANDIDATES)];
    for (const cfg of tried) {
      const name = cfg ? matmulConfigName(cfg) : DEFAULT_CHOICE;
      const misfit = cfg && misfitOf(cfg, caps);
      if (misfit) {
        timings.push({ name, msPerStep: Number.NaN, ok: false, why: `does not fit: ${misfit}` });
        continue;
      }
      let session: Awaited<ReturnType<typeof compile>> | undefined;
      try {
        session = await compile(graph, device, { label: `tune ${key} ${name}`, pipelineCache: pipelines, shippedMatmulTuning: false, ...(cfg ? { matmulTuning: { [key]: name } } : {}) }); // default: the heuristic
        const y = (await session.step(feeds, { read: ['y'] })).outputs.y.data; // warm-up and check
        if (!reference) reference = y; // the default (first) is the reference of large shapes
        const bad = disagreement(y, reference, rtol, atol);
        if (bad) {
          timings.push({ name, msPerStep: Number.NaN, ok: false, why: `wrong result: ${bad}` });
          continue;
        }
        for (const t0 = performance.now(); performance.now() - t0 < (opts.warmupMs ?? 0); ) {
          await session.step(feeds);
          await session.sync();
        }
        let ms: number;
        if (clock === 'gpu') {
          const profile = await session.profile(feeds, { repeats });
          if (profile.quantized && !warnedQuantized) {
            warnedQuantized = true;
            warn(`tuneMatmul: ${device.name}'s timestamps are quantized (Dawn's timestamp_quantization), so short kernels rank coarsely; create the device with dawnOptions ['disable-dawn-features=timestamp_quantization'] (Node) for exact timings`);
          }
          ms = gpuMsPerStep(profile, repeats);
        } else ms = await wallMsPerStep(session, feeds, repeats);
        timings.push({ name, msPerStep: ms, ok: true });
      } catch (e) {
        timings.push({ name, msPerStep: Number.NaN, ok: false, why: e instanceof Error ? e.message : String(e) });
      } finally {
        await session?.dispose();
      }
    }
    const ok = timings.filter((t) => t.ok).sort((a, b) => a.msPerStep - b.msPerStep);
    const def = ok.find((t) => t.name === DEFAULT_CHOICE);
    const best = def && ok[0].msPerStep > def.msPerStep * (1 - minGain) ? def : ok[0];
    if (!best) throw new Error(`tuneMatmul: no configuration of matmul ${key} ran correctly on ${device.name}: ${timings.map((t) => `${t.name}: ${t.why}`).join('; ')}`);
    results.push({ key, shape, choice: best.name, cached: false, timings });
  }
  if (opts.cache && measured > 0) await opts.cache.save(adapter, { ...stored, ...Object.fromEntries(results.map((r) => [r.key, r.choice])) });
  const tuning: MatmulTuning = Object.fromEntries(results.map((r) => [r.key, r.choice]));
  return { tuning, clock, shapes: results, measured };
}

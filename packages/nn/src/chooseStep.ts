// Choosing by measurement (opt-in): the step is optimized under several cost-model figures (each a candidate plan
// the model could have chosen on another device), each distinct plan is compiled, checked against the first (the
// default model's plan) and optionally the interpreter on the caller's batch, and timed as whole steps (wall
// clock); the fastest correct plan wins. The decision is cached per adapter and step graph, so a second compile
// reads it and compiles one plan. Must not change results: a candidate that disagrees is never chosen, a cache
// miss only costs time.

import type { CostOptions } from '@neura/egraph';
import { type Graph, hashName, type OpKind, printGraph, type TensorValue, tensor } from '@neura/ir';
import { adapterKey, type FeedValue, type NeuraDevice, type Precision, type Session } from '@neura/runtime-webgpu';
import { type CompiledStep, compilePlan, planStep, type StepPlan } from './compileStep.js';
import { TrainingStepError } from './errors.js';

/** A candidate plan: the step optimized with these cost figures (or not optimized at all). */
export interface Candidate {
  /** Name shown in the measurement and kept in the decision cache. */
  readonly name: string;
  /** Cost-model figures the optimizer uses for this candidate (default: egraph's). */
  readonly cost?: CostOptions;
  /** Rules the e-graph runs without (by name), e.g. `update-multi-tensor` for one update kernel per parameter. */
  readonly withoutRules?: readonly string[];
  /** False: the step exactly as differentiated (a baseline). */
  readonly optimize?: boolean;
}

/**
 * The default candidates: the cost model as is, then with dispatches dearer or cheaper, with half the bandwidth,
 * and with one optimizer-update kernel per parameter instead of the multi-tensor one.
 */
export const CANDIDATES: readonly Candidate[] = [
  { name: 'model' },
  { name: 'dispatch-heavy', cost: { dispatchCost: 16 } },
  { name: 'dispatch-light', cost: { dispatchCost: 1 } },
  { name: 'bandwidth-bound', cost: { bytesPerUnit: 50_000 } },
  { name: 'per-parameter-updates', withoutRules: ['update-multi-tensor'] },
];

/** Where measured decisions are kept: key (adapter and step graph) → the chosen candidate's name. */
export interface DecisionCache {
  /** The candidate name chosen for `key`, or undefined when none was measured. */
  get(key: string): string | undefined | Promise<string | undefined>;
  /** Remembers the candidate name chosen for `key`. */
  set(key: string, choice: string): void | Promise<void>;
}

/** A decision cache in memory (one process). */
export function memoryDecisionCache(): DecisionCache {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v) };
}

/** Options of the measured mode (`compileTraining(…, { measure })`). */
export interface MeasureOptions {
  /** A batch the timed steps run on (every input of the step). */
  readonly feeds: Readonly<Record<string, FeedValue>>;
  /** Candidate plans, the first the reference the others are checked against (default `CANDIDATES`). */
  readonly candidates?: readonly Candidate[];
  /** Timed steps per candidate, after one checked step (default 3). */
  readonly steps?: number;
  /** Where decisions are kept (default: a cache shared by this process). */
  readonly cache?: DecisionCache;
  /** Also check each candidate's first step against the interpreter (f64; small models only). */
  readonly checkInterpreter?: boolean;
  /** Relative and absolute tolerance of the checks (default 2e-3, 2e-5). */
  readonly rtol?: number;
  /** Absolute tolerance of the checks (default 2e-5). */
  readonly atol?: number;
}

/** What the measured mode did: each distinct candidate's figures, the choice, and whether it came from the cache. */
export interface Measurement {
  /** The decision cache key (adapter and step graph). */
  readonly key: string;
  /** Name of the chosen candidate. */
  readonly choice: string;
  /** True when the choice was read from the cache (nothing was measured). */
  readonly cached: boolean;
  /** Per distinct candidate: name, mean milliseconds per step, dispatches per step, whether its check passed and why not. */
  readonly candidates: readonly { readonly name: string; readonly msPerStep: number; readonly dispatches: number; readonly ok: boolean; readonly why?: string }[];
}

const processCache = memoryDecisionCache();

/** The cache key: the adapter (vendor, architecture, device, description, backend), the precision and a hash of the step graph. */
export function decisionKey(device: NeuraDevice, step: Graph, precision: Precision = 'fp32'): string {
  const outs = [...step.outputs].map(([n, id]) => `${n}=${id}`).join(',');
  const ups = step.updates.map((u) => `${u.state}<-${u.value}`).join(',');
  return `${adapterKey(device)}|${precision === 'fp32' ? '' : `${precision}|`}${hashName(`${printGraph(step)}\n${outs}\n${ups}`).toString(36)}`;
}

/** Largest |a − b| beyond `atol + rtol·|b|`, as a message, or undefined when they agree. */
function disagreement(what: string, a: ArrayLike<number>, b: ArrayLike<number>, rtol: number, atol: number): string | undefined {
  if (a.length !== b.length) return `${what}: ${a.length} values, expected ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= atol + rtol * Math.abs(b[i]))) return `${what}[${i}] = ${a[i]}, expected ${b[i]}`;
  }
  return undefined;
}

/** Feeds as the interpreter takes them (typed arrays get their input's shape and dtype). */
function asTensors(step: Graph, feeds: Readonly<Record<string, FeedValue>>): Record<string, TensorValue> {
  const out: Record<string, TensorValue> = {};
  for (const n of step.leaves('input')) {
    const v = feeds[n.attrs.name];
    if (v !== undefined) out[n.attrs.name] = 'data' in v ? v : tensor(n.shape, v, n.dtype);
  }
  return out;
}

interface Plan extends StepPlan {
  readonly candidate: Candidate;
}

async function planOf(step: Graph, c: Candidate, device: NeuraDevice, customKernelOps?: ReadonlySet<OpKind>, precision?: Precision): Promise<Plan> {
  const plan = await planStep(step, { device, precision, optimize: c.optimize, cost: c.cost, withoutRules: c.withoutRules, customKernelOps, who: 'compileTraining' });
  return { ...plan, candidate: c };
}

/**
 * Optimizes and compiles the training step `step` by measurement (see the header); returns the chosen plan's
 * graph, report and session (its state as compiled: the measured steps are undone).
 */
export async function chooseStep(
  step: Graph,
  device: NeuraDevice,
  opts: MeasureOptions,
  compileOpts: { initialState: (plan: Graph) => Record<string, TensorValue> | undefined; label: string; customKernelOps?: ReadonlySet<OpKind>; precision?: Precision },
): Promise<CompiledStep & { measurement: Measurement }> {
  const candidates = opts.candidates ?? CANDIDATES;
  if (candidates.length === 0) throw new TrainingStepError('compileTraining: measure.candidates is empty');
  const cache = opts.cache ?? processCache;
  const key = decisionKey(device, step, compileOpts.precision);
  const compileOne = async (p: Plan) => (await compilePlan(p, { ...compileOpts, device, who: 'compileTraining' })).session;
  const cachedName = await cache.get(key);
  const cachedCandidate = candidates.find((c) => c.name === cachedName);
  if (cachedCandidate) {
    const p = await planOf(step, cachedCandidate, device, compileOpts.customKernelOps, compileOpts.precision);
    return { graph: p.graph, report: p.report, session: await compileOne(p), measurement: { key, choice: cachedCandidate.name, cached: true, candidates: [] } };
  }
  // distinct plans only: candidates that lead to the same graph are measured once
  const plans: Plan[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const p = await planOf(step, c, device, compileOpts.customKernelOps, compileOpts.precision);
    const text = printGraph(p.graph);
    if (seen.has(text)) continue;
    seen.add(text);
    plans.push(p);
  }
  const rtol = opts.rtol ?? 2e-3;
  const atol = opts.atol ?? 2e-5;
  const timedSteps = opts.steps ?? 3;
  const results: Measurement['candidates'][number][] = [];
  let reference: Record<string, TensorValue> | undefined;
  let expected: Record<string, TensorValue> | undefined;
  let best: { plan: Plan; session: Session; initial: Record<string, TensorValue>; ms: number } | undefined;
  for (const p of plans) {
    const session = await compileOne(p);
    let keep = false;
    try {
      const initial = await session.readState();
      if (opts.checkInterpreter && !expected) {
        const { interpret } = await import('./lazyTools.js'); // the interpreter loads only when asked for
        const r = interpret(step, asTensors(step, opts.feeds), initial, 'f64');
        expected = { ...r.outputs, ...r.updates };
      }
      const first = await session.step(opts.feeds, { read: [...p.graph.outputs.keys()] });
      const after = { ...first.outputs, ...(await session.readState()) };
      const against = expected ?? reference;
      let why: string | undefined;
      if (against) for (const [name, v] of Object.entries(against)) why ??= after[name] ? disagreement(name, after[name].data, v.data, rtol, atol) : `${name} missing`;
      reference ??= after;
      if (why) {
        results.push({ name: p.candidate.name, msPerStep: Number.NaN, dispatches: session.stats.dispatchesPerStep, ok: false, why });
        continue;
      }
      await session.flush();
      const t0 = performance.now();
      for (let s = 0; s < timedSteps; s++) await session.step(opts.feeds);
      await session.flush();
      const ms = (performance.now() - t0) / Math.max(1, timedSteps);
      results.push({ name: p.candidate.name, msPerStep: ms, dispatches: session.stats.dispatchesPerStep, ok: true });
      if (!best || ms < best.ms) {
        if (best) await best.session.dispose();
        best = { plan: p, session, initial, ms };
        keep = true;
      }
    } finally {
      if (!keep) await session.dispose();
    }
  }
  if (!best) throw new TrainingStepError(`compileTraining: no candidate plan agreed with the reference (${results.map((r) => `${r.name}: ${r.why}`).join('; ')})`);
  await best.session.writeStates(best.initial); // undo the measured steps
  await cache.set(key, best.plan.candidate.name);
  return { graph: best.plan.graph, report: best.plan.report, session: best.session, measurement: { key, choice: best.plan.candidate.name, cached: false, candidates: results } };
}

// compileStep: the one path from a built graph to a running session, shared by compileTraining, compileInference
// and the measured mode's candidates: optimize (with the device's limits, a memory budget, the plan cache) → matmul
// tuning → runtime compile. Must not build or change the graph it is given (the step is built before, by the caller).

import type { CostOptions, OptimizeReport } from '@neura/egraph';
import type { Graph, OpKind, TensorValue } from '@neura/ir';
import { capsFor, compile, type NeuraDevice, type Precision, type Session, type TuneMatmulResult } from '@neura/runtime-webgpu';
import { type MatmulTuning, registeredKernelOps } from '@neura/wgsl-kernels';
import { TrainingStepError } from './errors.js';
import { type AutotuneOptions, matmulTuningFor } from './matmulAutotune.js';
import { optimizeWithPlanCache, type PlanCache } from './planCache.js';

/** How a graph is optimized: whether at all, a memory budget, a plan cache, and a candidate's cost figures and rules. */
export interface PlanStepOptions {
  readonly device: NeuraDevice;
  readonly precision?: Precision;
  /** False: the graph exactly as given. */
  readonly optimize?: boolean;
  readonly memoryBudget?: number;
  readonly planCache?: PlanCache;
  /** Cost-model figures of a measured-mode candidate (chooseStep.ts). */
  readonly cost?: CostOptions;
  /** Rules a measured-mode candidate runs without. */
  readonly withoutRules?: readonly string[];
  /** Ops the e-graph keeps as kernel boundaries (default: those with a registered custom kernel). */
  readonly customKernelOps?: ReadonlySet<OpKind>;
  /** The public function the user called, named in errors and warnings. */
  readonly who: string;
}

/** An optimized (or unoptimized) graph, ready to compile. */
export interface StepPlan {
  readonly graph: Graph;
  readonly report?: OptimizeReport;
  /** Whether the plan was read from `planCache` (undefined without one or without the optimizer). */
  readonly fromCache?: boolean;
}

/** How a plan is compiled: its state, label, precision and matmul choices. */
export interface CompilePlanOptions {
  readonly device: NeuraDevice;
  readonly precision?: Precision;
  readonly label: string;
  /** Starting values of params/state, given the plan (its state may differ from the declared graph's). */
  readonly initialState: (plan: Graph) => Record<string, TensorValue> | undefined;
  readonly matmulTuning?: MatmulTuning;
  readonly shippedMatmulTuning?: boolean;
  readonly autotune?: AutotuneOptions;
  readonly who: string;
}

/** A compiled plan: the graph that runs, its report, session and what tuning did. */
export interface CompiledStep extends StepPlan {
  readonly session: Session;
  /** What `autotune` did (only with `autotune`). */
  readonly autotuned?: TuneMatmulResult;
}

/** Optimizes `graph` for the device (or keeps it with `optimize: false`); refuses options that need the optimizer without it. */
export async function planStep(graph: Graph, o: PlanStepOptions): Promise<StepPlan> {
  if (o.optimize === false) {
    if (o.memoryBudget !== undefined) throw new TrainingStepError(`${o.who}: memoryBudget is met by the optimizer; it cannot be combined with optimize: false`);
    if (o.planCache) throw new TrainingStepError(`${o.who}: planCache keeps the optimizer's plan; it cannot be combined with optimize: false`);
    return { graph };
  }
  const options = {
    limits: capsFor(o.device, o.precision),
    customKernelOps: o.customKernelOps ?? registeredKernelOps(),
    ...(o.cost ? { cost: o.cost } : {}),
    ...(o.withoutRules ? { withoutRules: o.withoutRules } : {}),
    ...(o.memoryBudget === undefined ? {} : { memoryBudget: o.memoryBudget }),
  };
  // the device's limits; prints its report under NEURA_DEBUG (unless the plan comes from the cache)
  const { graph: plan, report, fromCache } = await optimizeWithPlanCache(graph, options, o.planCache, o.who);
  return { graph: plan, report, ...(o.planCache ? { fromCache } : {}) };
}

/** Tunes the plan's matmuls (if asked) and compiles it for the device. */
export async function compilePlan(plan: StepPlan, o: CompilePlanOptions): Promise<CompiledStep> {
  const { tuning, autotuned } = await matmulTuningFor(plan.graph, o.device, o, o.who);
  const session = await compile(plan.graph, o.device, {
    initialState: o.initialState(plan.graph),
    label: o.label,
    precision: o.precision,
    shippedMatmulTuning: o.shippedMatmulTuning,
    ...(tuning ? { matmulTuning: tuning } : {}),
  });
  return { ...plan, session, ...(autotuned ? { autotuned } : {}) };
}

/** Optimizes, tunes and compiles `graph`: `planStep` then `compilePlan`. */
export async function compileStep(graph: Graph, o: PlanStepOptions & CompilePlanOptions): Promise<CompiledStep> {
  return compilePlan(await planStep(graph, o), o);
}

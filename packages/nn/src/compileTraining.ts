// compileTraining: forward graph + loss → the whole training step (forward, backward, optimizer update) as
// one graph, optimized by the e-graph, compiled once for a device. The session then replays the step as one
// GPU submission. Nothing here fuses: what runs is exactly what the e-graph's extraction chose.
// The step is optimized once, after differentiation and the update (see egraph's optimize.ts), with the
// device's limits, so the e-graph never picks a kernel `compile` would refuse.

import { grad } from '@neura/autograd';
import { type OptimizeReport, optimize } from '@neura/egraph';
import type { Graph, Node, Tensor, TensorValue } from '@neura/ir';
import type { Optimizer } from '@neura/optim';
import { compile, type FeedValue, type NeuraDevice, type Session, type SessionStats } from '@neura/runtime-webgpu';
import { anomalyStep } from './anomaly.js';
import { graphStateTypes, type LoadStateDictOptions, sessionStateDict } from './stateDict.js';

/** Options of `compileTraining`. */
export interface TrainingOptions {
  /** The scalar loss node of the forward graph. */
  loss: Tensor;
  optimizer: Optimizer;
  device: NeuraDevice;
  /** Run the e-graph optimizer (default true); false compiles the step exactly as differentiated. */
  optimize?: boolean;
  /** Starting values of params/state by name (e.g. from a checkpoint). */
  initialState?: Record<string, TensorValue>;
  /**
   * Debug mode (PyTorch's `detect_anomaly`): every step reads back its loss and all params/state and throws an
   * `AnomalyError` at the first non-finite one, naming the step and the first kernel whose output went
   * non-finite, after undoing that step. Costs two state readbacks per step (and a debug compile on failure);
   * off by default, and then nothing of it runs. `step(feeds, { detectAnomaly })` sets it per step.
   */
  detectAnomaly?: boolean;
}

/** Options of one `TrainingSession.step`. */
export interface TrainingStepOptions {
  /** Resolve with the loss (read back after the GPU finishes). */
  readLoss?: boolean;
  /** Check this step for non-finite values (default: the session's `detectAnomaly`); see `TrainingOptions`. */
  detectAnomaly?: boolean;
}

/** A compiled training step. */
export interface TrainingSession {
  /** Runs one step; with `readLoss` the promise resolves with the loss after the GPU finishes. */
  step(feeds: Record<string, FeedValue>, opts?: TrainingStepOptions): Promise<number | undefined>;
  /** The step graph as compiled (after optimization). */
  readonly graph: Graph;
  /** The e-graph report (undefined when optimization was off). */
  readonly report?: OptimizeReport;
  /** Dispatches per step, bytes allocated, … */
  readonly stats: SessionStats;
  /** The underlying runtime session (read/write state, dispose). */
  readonly session: Session;
  /** Current values of all trainable parameters, by name. */
  readParams(): Promise<Record<string, TensorValue>>;
  /** The model's parameters and buffers (not the optimizer's state), by name: feed it to an eval graph. */
  stateDict(): Promise<Record<string, TensorValue>>;
  /** Overwrites parameters and buffers after checking names, shapes and dtypes; on any mismatch nothing is written. */
  loadStateDict(values: Record<string, TensorValue>, opts?: LoadStateDictOptions): Promise<void>;
  dispose(): void;
}

/**
 * Appends the training step to a forward graph: outputs `loss`, differentiates it with respect to every param
 * and lets the optimizer append its updates. The one way a step is built (compileTraining calls it; so do
 * benchmarks that only optimize the graph). Returns the params in order.
 */
export function buildTrainingStep(graph: Graph, opts: { loss: Tensor; optimizer: Optimizer }): Node<'param'>[] {
  const { loss, optimizer } = opts;
  if (loss.shape.length !== 0) throw new Error(`compileTraining: loss must be a scalar, got shape [${loss.shape.join(', ')}]`);
  graph.output('loss', loss);
  const params = graph.leaves('param');
  if (params.length === 0) throw new Error('compileTraining: the graph has no parameters to train');
  optimizer.apply(graph, params, grad(graph, loss, params));
  return params;
}

/** Builds, optimizes and compiles the training step of `graph` (mutated: backward and update nodes are appended). */
export async function compileTraining(graph: Graph, opts: TrainingOptions): Promise<TrainingSession> {
  const { device } = opts;
  const modelTypes = graphStateTypes(graph); // before the optimizer adds its own state
  const params = buildTrainingStep(graph, opts);

  let step = graph;
  let report: OptimizeReport | undefined;
  if (opts.optimize !== false) {
    ({ graph: step, report } = optimize(graph, { limits: device.caps })); // the device's limits; prints its report under NEURA_DEBUG
  }
  const session = await compile(step, device, { initialState: opts.initialState, label: 'train-step' });
  const paramNames = params.map((p) => (p.attrs as { name: string }).name);
  let steps = 0;
  return {
    graph: step,
    report,
    session,
    get stats() {
      return session.stats;
    },
    async step(feeds, o = {}) {
      const number = ++steps;
      if (o.detectAnomaly ?? opts.detectAnomaly) return anomalyStep(session, step, device, feeds, number);
      const r = await session.step(feeds, o.readLoss ? { read: ['loss'] } : {});
      return o.readLoss ? r.outputs.loss?.data[0] : undefined;
    },
    async readParams() {
      const out: Record<string, TensorValue> = {};
      for (const n of paramNames) out[n] = await session.read(n);
      return out;
    },
    ...sessionStateDict(graph, modelTypes, session, 'TrainingSession.loadStateDict', opts.initialState),
    dispose: () => session.dispose(),
  };
}

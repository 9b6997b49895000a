// Anomaly mode, a debug option of `compileTraining` and `Trainer` (`detectAnomaly: true`): every step reads back
// its loss and every param/state tensor and checks them for NaN/±Infinity. At the first non-finite one the step
// is undone (the state is written back bit for bit as it was before it) and re-run on a debug copy of the
// compiled graph that keeps every kernel's output, to name the first kernel that produced a non-finite value.
// Must not be on the default path: a step without anomaly detection never calls into this file.
// Invariant: an AnomalyError leaves the session's params and state exactly as they were before the step.

import { fmtShape, type Graph, graphFromJson, graphToJson, isAliasOp, isLeafOp, leafName, type Node, type NodeId, type TensorValue } from '@neura/ir';
import { compile, type FeedValue, type NeuraDevice, type Session } from '@neura/runtime-webgpu';

/** The kernel that first produced a non-finite value in a failing step. */
export interface AnomalyKernel {
  /** Node id in the compiled step graph (`TrainingSession.graph`). */
  readonly node: NodeId;
  /** The op of the failing node (e.g. `matmul`, `pointwise`). */
  readonly op: string;
  /** The node's output shape. */
  readonly shape: readonly number[];
  /** Where the user built the node, when known. */
  readonly site?: string;
  /** The first non-finite element: its index and value. */
  readonly index: number;
  /** The first non-finite value (NaN, Infinity or -Infinity). */
  readonly value: number;
}

/** A training step produced a non-finite loss or parameter/state (detectAnomaly); the step was undone. */
export class AnomalyError extends Error {
  /** Always `'AnomalyError'`. */
  override readonly name = 'AnomalyError';
  constructor(
    message: string,
    /** 1-based number of the failing step in its session. */
    readonly step: number,
    /** What went non-finite first: `loss`, or the name of a param/state tensor. */
    readonly tensor: string,
    /** The first kernel whose output went non-finite (undefined when the inputs already were). */
    readonly kernel?: AnomalyKernel,
    /** A fed input that holds a non-finite value, if one does. */
    readonly input?: string,
  ) {
    super(message);
  }
}

/** Index of the first NaN/±Infinity in `v`, or -1. */
function firstNonFinite(v: ArrayLike<number>): number {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return i;
  return -1;
}

const hasNaN = (v: ArrayLike<number>) => {
  for (let i = 0; i < v.length; i++) if (Number.isNaN(v[i])) return true;
  return false;
};

/** A copy of every feed array, so the debug re-run sees what the failing step saw. */
function copyFeeds(feeds: Readonly<Record<string, FeedValue>>): Record<string, FeedValue> {
  const out: Record<string, FeedValue> = {};
  for (const [k, v] of Object.entries(feeds))
    out[k] = v instanceof Float32Array || v instanceof Int32Array ? v.slice() : v && 'data' in v ? { ...v, data: v.data.slice() } : v;
  return out;
}

const dataOf = (v: FeedValue): ArrayLike<number> => (v instanceof Float32Array || v instanceof Int32Array ? v : v.data);

/**
 * Runs one checked step: reads the state before and after, and the loss; on a non-finite value restores the
 * state, locates the first kernel that went non-finite and throws an AnomalyError. Resolves with the loss.
 */
export async function anomalyStep(session: Session, graph: Graph, device: NeuraDevice, feeds: Readonly<Record<string, FeedValue>>, step: number): Promise<number> {
  const given = copyFeeds(feeds);
  // queued in this order on the session: state before, the step, state after (feeds are taken now)
  const beforeP = session.readState();
  const resultP = session.step(feeds, { read: ['loss'] });
  const afterP = session.readState();
  const [before, result, after] = await Promise.all([beforeP, resultP, afterP]);
  const loss = result.outputs.loss.data[0];
  let tensor: string | undefined;
  if (!Number.isFinite(loss)) tensor = 'loss';
  else for (const [name, v] of Object.entries(after)) if (firstNonFinite(v.data) >= 0 && firstNonFinite(before[name].data) < 0) {
    tensor = name;
    break;
  }
  if (tensor === undefined) return loss;

  await session.writeStates(before);
  let input: string | undefined;
  for (const [name, v] of Object.entries(given)) {
    const i = firstNonFinite(dataOf(v));
    if (i >= 0) {
      input = `${name}[${i}] = ${dataOf(v)[i]}`;
      break;
    }
  }
  const kernel = await locate(graph, device, before, given);
  const what = tensor === 'loss' ? `the loss is ${loss}` : `'${tensor}' became non-finite (its gradient or update is NaN/Inf)`;
  const where = kernel
    ? `first non-finite kernel output: ${kernel.op} #${kernel.node} ${fmtShape(kernel.shape)} (element ${kernel.index} = ${kernel.value})${kernel.site ? `, built at ${kernel.site}` : ''}`
    : 'no kernel output went non-finite on a re-run (the starting state already held a non-finite value)';
  throw new AnomalyError(
    `anomaly at step ${step}: ${what}; ${where}${input ? `; input ${input}` : ''}. The step was undone: params and state are as before it.`,
    step,
    tensor,
    kernel,
    input,
  );
}

/**
 * Re-runs the step on a copy of `graph` in which every kernel's output is a graph output, from `state` and
 * `feeds`, and returns the first kernel (in execution order) whose output went non-finite: one that made NaN out
 * of NaN-free inputs (or ±Infinity out of finite ones), or that read a fed input or param already holding it.
 * Non-finite constants do not count (a mask of -Infinity added to scores is not the culprit; a NaN made of it is).
 */
async function locate(graph: Graph, device: NeuraDevice, state: Record<string, TensorValue>, feeds: Record<string, FeedValue>): Promise<AnomalyKernel | undefined> {
  const dbg = graphFromJson(graphToJson(graph));
  const kernels = dbg.live().filter((id) => !isLeafOp(dbg.nodes[id].op) && !isAliasOp(dbg.nodes[id].op));
  /** The node whose storage `id` views (itself unless it is an alias such as reshape). */
  const storageNode = (id: NodeId): Node => {
    let n = dbg.nodes[id];
    while (isAliasOp(n.op)) n = dbg.nodes[n.inputs[0]];
    return n;
  };
  const key = (id: NodeId) => `anomaly#${id}`;
  for (const id of kernels) dbg.output(key(id), dbg.nodes[id]);
  const session = await compile(dbg, device, { initialState: state, label: 'anomaly' });
  try {
    const { outputs } = await session.step(feeds, { read: kernels.map(key) });
    const valueAt = (id: NodeId): ArrayLike<number> | undefined => {
      const n = storageNode(id);
      const name = leafName(n);
      if (n.op === 'const') return [n.attrs.value];
      if (n.op === 'input') return name !== undefined && feeds[name] ? dataOf(feeds[name]) : undefined;
      if (n.op === 'param' || n.op === 'state') return name !== undefined ? state[name]?.data : undefined;
      return outputs[key(n.id)]?.data;
    };
    for (const id of kernels) {
      const out = outputs[key(id)].data;
      const at = firstNonFinite(out);
      if (at < 0) continue;
      const nan = hasNaN(out);
      const bad = (v: ArrayLike<number> | undefined) => v !== undefined && (nan ? hasNaN(v) : firstNonFinite(v) >= 0);
      const badInputs = dbg.nodes[id].inputs.filter((i) => bad(valueAt(i)));
      // it made the value itself, or it is the first kernel to read a fed input or param that already held it
      const culprit = badInputs.length === 0 || badInputs.some((i) => ['input', 'param', 'state'].includes(storageNode(i).op));
      if (!culprit) continue;
      const n = graph.nodes[id];
      return { node: id, op: n.op, shape: n.shape, site: n.site, index: at, value: out[at] };
    }
    return undefined;
  } finally {
    await session.dispose();
  }
}

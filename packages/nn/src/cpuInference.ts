// The CPU backend of inference: a forward graph run by ir's reference interpreter in float32, for a page that
// has no WebGPU (opt in with `compileInference(..., { device: 'cpu' })` or `fallback: 'cpu'`). Slow by design:
// no optimizer, no kernels. Must check feeds and state exactly as the GPU session does (same checks, same errors).

import { type Graph, indexOperandsOf, initialValue, interpret, isAliasOp, type NodeId, type Tensor, type TensorValue } from '@neura/ir';
import { checkFeedsObject, checkLabels, type FeedValue, fmtType, type IndexCheck, InputError, toHostData } from '@neura/runtime-webgpu';
import { checkStateDict, graphStateTypes, type LoadStateDictOptions } from './stateDict.js';

/** Options of `cpuInference`. */
export interface CpuInferenceOptions {
  /** Named results to compute. */
  outputs: Record<string, Tensor>;
  /** Values of params/state by name to start from (others get their initializers). */
  initialState?: Record<string, TensorValue>;
}

/** What a CPU inference session has done so far. */
export interface CpuInferenceStats {
  /** Runs completed. */
  readonly runs: number;
  /** Wall time of the last run in milliseconds (0 before the first). */
  readonly lastRunMs: number;
}

/** A forward pass run on the CPU by the reference interpreter (float32); same calls as a GPU `InferenceSession`. */
export interface CpuInferenceSession {
  /** Always `'cpu'` (a GPU session says `'webgpu'`). */
  readonly backend: 'cpu';
  /** Runs the graph and returns every output. */
  run(feeds: Record<string, FeedValue>): Promise<Record<string, TensorValue>>;
  /** Overwrites params/buffers by name after checking them (as `loadStateDict` with `strict: false`). */
  load(params: Record<string, TensorValue>): Promise<void>;
  /** The graph's parameters and buffers by name (copies). */
  stateDict(): Promise<Record<string, TensorValue>>;
  /** Overwrites parameters and buffers after checking names, shapes and dtypes; on any mismatch nothing is written. */
  loadStateDict(values: Record<string, TensorValue>, opts?: LoadStateDictOptions): Promise<void>;
  /** The graph as run (the model with its outputs named; never optimized). */
  readonly graph: Graph;
  /** Runs so far and the last run's time. */
  readonly stats: CpuInferenceStats;
  /** Drops the state; the session cannot run afterwards. */
  dispose(): void;
}

/** A value as the session keeps it: f32 data in a Float32Array, a private copy. */
const own = (v: TensorValue): TensorValue => ({ shape: [...v.shape], dtype: v.dtype, data: v.dtype === 'f32' ? Float32Array.from(v.data) : Int32Array.from(v.data) });

/** The label/index checks of inputs read (through views) as labels or indices, as the GPU session makes them. */
function labelChecks(graph: Graph, live: readonly NodeId[]): Map<NodeId, IndexCheck[]> {
  const rootOf = (id: NodeId): NodeId => (isAliasOp(graph.nodes[id].op) ? rootOf(graph.nodes[id].inputs[0]) : id);
  const checks = new Map<NodeId, IndexCheck[]>();
  for (const id of live) {
    const n = graph.nodes[id];
    for (const ix of indexOperandsOf(n.op)) {
      const r = rootOf(n.inputs[ix.operand]);
      if (graph.nodes[r].op !== 'input') continue; // computed indices cannot be checked up front
      const operands = n.inputs.map((i) => graph.nodes[i]);
      checks.set(r, [...(checks.get(r) ?? []), { role: ix.role, bound: ix.bound(n.attrs, operands), what: ix.describe(n.attrs) }]);
    }
  }
  return checks;
}

/**
 * Prepares a forward graph to run on the CPU with the reference interpreter in float32. The graph is not changed.
 * Users reach it through `compileInference` (`device: 'cpu'` or `fallback: 'cpu'`), which loads this file on demand.
 */
export function cpuInference(model: Graph, opts: CpuInferenceOptions): CpuInferenceSession {
  const graph = model.clone();
  for (const [name, t] of Object.entries(opts.outputs)) graph.output(name, t);
  const types = graphStateTypes(graph);
  const state = new Map<string, TensorValue>();
  for (const [name, value] of Object.entries(opts.initialState ?? {})) {
    const n = graph.byName(name);
    if (!n || n.op === 'input') throw new InputError(name, `compile: initialState '${name}' is not a param or state of this graph (${[...types.keys()].join(', ') || 'none'})`);
    state.set(name, own({ shape: n.shape, dtype: n.dtype, data: toHostData(name, n, value) }));
  }
  for (const [name, t] of types) {
    const leaf = graph.byName(name);
    if (!state.has(name) && leaf && leaf.op !== 'input') state.set(name, own(initialValue(leaf.attrs.init, t.shape, t.dtype, name)));
  }
  const live = graph.live();
  const liveSet = new Set(live);
  // as the GPU session: inputs nothing reads are accepted and ignored, the others are required
  const inputs = graph.leaves('input').filter((n) => liveSet.has(n.id));
  const declared = new Set(graph.leaves('input').map((n) => n.attrs.name));
  const checks = labelChecks(graph, live);
  const expected = () => inputs.map((n) => `${n.attrs.name} ${fmtType(n)}`).join(', ') || 'none';
  let disposed = false;
  let stats: CpuInferenceStats = { runs: 0, lastRunMs: 0 };
  const whatLoad = 'InferenceSession.loadStateDict';
  const loadStateDict = async (values: Record<string, TensorValue>, o: LoadStateDictOptions = {}) => {
    checkStateDict(types, values, { ...o, what: whatLoad });
    for (const [n, v] of Object.entries(values)) state.set(n, own(v));
  };
  return {
    backend: 'cpu',
    graph,
    get stats() {
      return stats;
    },
    async run(feeds) {
      if (disposed) throw new Error('CPU inference session is disposed');
      checkFeedsObject(feeds, expected, (name) => inputs.some((n) => n.attrs.name === name));
      for (const name of Object.keys(feeds)) if (!declared.has(name)) throw new InputError(name, `unknown input '${name}'; expected inputs: ${expected()}`);
      const given: Record<string, TensorValue> = {};
      for (const n of inputs) {
        const name = n.attrs.name;
        const v = feeds[name];
        if (v === undefined) throw new InputError(name, `missing input '${name}' (${fmtType(n)}); expected inputs: ${expected()}`);
        const data = toHostData(`input ${name}`, n, v);
        for (const chk of checks.get(n.id) ?? []) checkLabels(name, chk, data);
        given[name] = { shape: n.shape, dtype: n.dtype, data };
      }
      const t0 = performance.now();
      const r = interpret(graph, given, Object.fromEntries(state), 'f32');
      for (const [n, v] of Object.entries(r.updates)) state.set(n, own(v)); // e.g. a KV cache written in place on the GPU
      stats = { runs: stats.runs + 1, lastRunMs: performance.now() - t0 };
      return Object.fromEntries(Object.entries(r.outputs).map(([n, v]) => [n, own(v)]));
    },
    load: (values) => loadStateDict(values, { strict: false }),
    async stateDict() {
      return Object.fromEntries([...types.keys()].map((n) => [n, own(state.get(n) as TensorValue)]));
    },
    loadStateDict,
    dispose() {
      disposed = true;
      state.clear();
    },
  };
}

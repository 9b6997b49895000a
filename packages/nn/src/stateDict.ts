// State dicts: a model's parameters and buffers by dotted name (`features.0.weight`), as host tensors.
// `checkStateDict` validates a dict against what a graph or module declares — unknown names, missing names
// (strict mode), shape and dtype — and reports every problem at once; callers write nothing unless it passes,
// so a failed load never leaves a model half-loaded.

import { type DType, type Graph, type Init, initialValue, isOp, numel, type Shape, type TensorValue } from '@neura/ir';
import type { FeedValue, Session } from '@neura/runtime-webgpu';

/** The declared type of one state-dict entry. */
export interface StateEntryType {
  /** Extents. */
  readonly shape: Shape;
  /** Element type. */
  readonly dtype: DType;
}

/** Options of a state-dict load. */
export interface LoadStateDictOptions {
  /** Missing names are an error (default true); unknown names and wrong shapes/dtypes always are. */
  readonly strict?: boolean;
}

/** A state dict that does not fit the model: lists every unknown, missing and mismatched entry. */
export class StateDictError extends Error {
  constructor(
    message: string,
    /** Names the model does not have. */
    readonly unknown: readonly string[],
    /** Names the model has that the state dict lacks. */
    readonly missing: readonly string[],
    /** Names whose shape or dtype differ from the model's. */
    readonly mismatched: readonly string[],
  ) {
    super(message);
    this.name = 'StateDictError';
  }
}

const fmt = (t: StateEntryType) => `[${t.shape.join(', ')}]:${t.dtype}`;

/** Throws a StateDictError unless `values` fits `expected` (names, shapes, dtypes, data lengths). */
export function checkStateDict(expected: ReadonlyMap<string, StateEntryType>, values: Readonly<Record<string, TensorValue>>, opts: LoadStateDictOptions & { what?: string } = {}): void {
  const unknown: string[] = [];
  const mismatched: string[] = [];
  const problems: string[] = [];
  for (const [name, v] of Object.entries(values)) {
    const want = expected.get(name);
    if (!want) {
      unknown.push(name);
      continue;
    }
    const arrayOk = v?.data && (v.dtype === 'i32' ? v.data instanceof Int32Array : !(v.data instanceof Int32Array));
    if (!v || !Array.isArray(v.shape) || v.dtype !== want.dtype || v.shape.join() !== want.shape.join() || !arrayOk || v.data.length !== numel(want.shape)) {
      mismatched.push(name);
      const got = v && Array.isArray(v.shape) ? `${fmt(v)} with ${v.data?.length ?? 0} values${arrayOk ? '' : ` in a ${v.data?.constructor?.name ?? 'missing array'}`}` : String(v);
      problems.push(`'${name}': expected ${fmt(want)}, got ${got}`);
    }
  }
  const missing = opts.strict === false ? [] : [...expected.keys()].filter((n) => !(n in values));
  if (unknown.length + missing.length + mismatched.length === 0) return;
  const parts: string[] = [];
  if (unknown.length) parts.push(`unknown: ${unknown.join(', ')} (known: ${[...expected.keys()].join(', ')})`);
  if (missing.length) parts.push(`missing: ${missing.join(', ')}`);
  if (mismatched.length) parts.push(`wrong type: ${problems.join('; ')}`);
  throw new StateDictError(`${opts.what ?? 'loadStateDict'}: the state dict does not fit — ${parts.join('; ')}. Nothing was loaded.`, unknown, missing, mismatched);
}

/** The param and state leaves of a graph as state-dict entry types, by name (in creation order). */
export function graphStateTypes(graph: Graph, ops: readonly ('param' | 'state')[] = ['param', 'state']): Map<string, StateEntryType> {
  const out = new Map<string, StateEntryType>();
  for (const n of graph.nodes) if (isOp(n, ...ops)) out.set(n.attrs.name, { shape: n.shape, dtype: n.dtype });
  return out;
}

/** What a compiled session exposes as its model's state dict. */
export interface StateDictAccess {
  stateDict(): Promise<Record<string, TensorValue>>;
  loadStateDict(values: Record<string, TensorValue>, opts?: LoadStateDictOptions): Promise<void>;
}

/**
 * State-dict access for the leaves `types` of a compiled session. A leaf the model declares but the compiled
 * graph does not use (e.g. BatchNorm's num_batches_tracked in an eval graph, dropped by optimization) is kept
 * on the host, so dicts move between train and eval sessions unchanged.
 */
export function sessionStateDict(graph: Graph, types: ReadonlyMap<string, StateEntryType>, session: Session, what: string, initialState: Readonly<Record<string, FeedValue>> = {}): StateDictAccess {
  const onDevice = new Set(session.stateNames);
  const host = new Map<string, TensorValue>();
  for (const [name, t] of types) {
    if (onDevice.has(name)) continue;
    const given = initialState[name];
    const leaf = graph.byName(name);
    const init: Init = leaf && leaf.op !== 'input' ? leaf.attrs.init : { kind: 'zeros' };
    host.set(name, given && 'shape' in given ? (given as TensorValue) : initialValue(init, t.shape, t.dtype, name));
  }
  return {
    async stateDict() {
      const out: Record<string, TensorValue> = {};
      for (const n of types.keys()) out[n] = host.get(n) ?? (await session.read(n));
      return out;
    },
    async loadStateDict(values, opts = {}) {
      checkStateDict(types, values, { ...opts, what });
      await Promise.all(Object.entries(values).map(([n, v]) => (host.has(n) ? host.set(n, v) : session.writeState(n, v))));
    },
  };
}

/**
 * The part of `initialState` to hand to `compile`: a model leaf that the compiled graph `compiled` no longer
 * has (unused, dropped by optimization) stays out, since sessionStateDict keeps it on the host; any other
 * name goes through, so compile still rejects names that are nobody's.
 */
export function compilableState<V>(initialState: Readonly<Record<string, V>> | undefined, types: ReadonlyMap<string, StateEntryType>, compiled: Graph): Record<string, V> | undefined {
  if (!initialState) return undefined;
  const have = new Set([...compiled.leaves('param'), ...compiled.leaves('state')].map((n) => n.attrs.name));
  return Object.fromEntries(Object.entries(initialState).filter(([n]) => have.has(n) || !types.has(n)));
}

// The memory estimate of a step: a schedule of values (in execution order) → the liveness intervals the runtime's
// step plan gives them → the same best-fit memory plan (memoryPlan.ts) → bytes allocated. The e-graph runs it on
// candidate plans (recompute-versus-store under `optimize({ memoryBudget })`), so it must not need kernels: it
// leaves out kernel scratch (split-K partial sums, one dispatch long) and assumes every state update is written in
// place (the runtime copies a few after the pass). Pure; imports only ir.

import type { Graph, NodeId } from './graph.js';
import { tensorTypeBytes } from './kernelCost.js';
import { isMultiResultOp } from './multiResult.js';
import { isAliasOp, isLeafOp } from './opFacts.js';
import type { OpKind } from './ops.js';
import { type Arena, type MemoryReport, planMemory, type TensorLifetime } from './memoryPlan.js';

/** One value of a schedule: its op, its bytes, and its inputs as positions of earlier entries. */
export interface ScheduledValue {
  /** The op that computes it. */
  readonly op: OpKind;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Schedule positions of its operands (all earlier than this entry). */
  readonly inputs: readonly number[];
  /** For a `pick`: which result of its multi-result input it holds. */
  readonly result?: number;
}

/** What lives beyond the schedule's last dispatch. */
export interface ScheduleEnds {
  /** Entries read after the step (graph outputs): they live to the end. */
  readonly outputs: Iterable<number>;
  /** Entries written into a state's buffer (update values): no transient storage of their own. */
  readonly inPlace: Iterable<number>;
}

/**
 * Bytes the runtime's memory plan allocates for this schedule: leaves get a buffer each, aliases share their
 * operand's, a multi-result kernel's value is its result-0 pick's, every other value lives from its dispatch to
 * its last reader, and the best-fit plan packs them.
 */
export function estimateMemory(values: readonly ScheduledValue[], ends: ScheduleEnds): MemoryReport {
  const n = values.length;
  const root = new Int32Array(n);
  const result0 = new Map<number, number>(); // multi-result entry → its result-0 pick
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v.op === 'pick' && v.result === 0) result0.set(v.inputs[0], i);
  }
  for (let i = 0; i < n; i++) root[i] = isAliasOp(values[i].op) ? root[values[i].inputs[0]] : i;
  const lastUse = new Int32Array(n).fill(-1);
  // every operand counts as read where its reader runs (as in the runtime's step plan; `after`'s ordering operand too)
  for (let i = 0; i < n; i++) for (const j of values[i].inputs) lastUse[root[j]] = Math.max(lastUse[root[j]], i);
  for (const o of ends.outputs) lastUse[root[o]] = n;
  const inPlace = new Set<number>();
  for (const u of ends.inPlace) inPlace.add(root[u]);
  const tensors: TensorLifetime[] = [];
  const persistent = new Set<string>();
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (root[i] !== i || inPlace.has(i)) continue;
    if (isLeafOp(v.op)) {
      tensors.push({ key: `v${i}`, bytes: v.bytes, start: 0, end: 0, persistent: true });
      persistent.add(`v${i}`);
      continue;
    }
    const pick0 = isMultiResultOp(v.op) ? result0.get(i) : undefined;
    if (pick0 !== undefined) {
      // stored in its result-0 pick, which lives from this kernel on
      lastUse[root[pick0]] = Math.max(lastUse[root[pick0]], lastUse[i]);
      continue;
    }
    const start = v.op === 'pick' ? v.inputs[0] : i;
    tensors.push({ key: `v${i}`, bytes: v.bytes, start, end: Math.max(start, lastUse[i]), persistent: false });
  }
  // a multi-tensor kernel's transient operands (an optimizer's gradients) sit side by side in one arena, as the
  // runtime's arena plan lays them out; apart, each small gradient would hold a freed big buffer to the end
  const keys = new Set(tensors.map((t) => t.key));
  const arenas: Arena[] = [];
  const taken = new Set<string>();
  for (let i = 0; i < n; i++) {
    if (values[i].op !== 'pointwiseMultiTensor') continue;
    const members = [...new Set(values[i].inputs.map((j) => `v${root[j]}`))].filter((k) => keys.has(k) && !taken.has(k) && !persistent.has(k));
    for (const k of members) taken.add(k);
    if (members.length > 1) arenas.push({ key: `arena${i}`, tensors: members });
  }
  return planMemory(tensors, arenas).report;
}

/** `estimateMemory` of a graph as the runtime schedules it (live nodes in id order: a graph is built topologically). */
export function estimateGraphMemory(graph: Graph): MemoryReport {
  const live = graph.live();
  const at = new Map<NodeId, number>(live.map((id, i) => [id, i]));
  const values = live.map((id) => {
    const node = graph.nodes[id];
    return {
      op: node.op,
      bytes: tensorTypeBytes(node),
      inputs: node.inputs.map((i) => at.get(i) as number),
      ...(node.op === 'pick' ? { result: node.attrs.index } : {}),
    };
  });
  return estimateMemory(values, {
    outputs: [...graph.outputs.values()].map((id) => at.get(id) as number),
    inPlace: graph.updates.map((u) => at.get(u.value) as number),
  });
}

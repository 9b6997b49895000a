// The arena plan: which multi-tensor kernels (`pointwiseMultiTensor`) run as one dispatch, with each operand role
// of every group laid out in one buffer (an arena of the memory plan), and the table of offsets their kernel
// reads. Pure (no GPU). Must not choose an arena the runtime cannot honour: every result written in place through
// the same role in every group, every root in one arena only, an arena all persistent or all transient, and no
// other dispatch binding an arena's buffer both writable and read-only (then the kernel runs one dispatch per group).

import { type Arena, byteSize, type Graph, groupOperands, isLeafOp, type MemoryPlan, type Node, type NodeId } from '@neura/ir';
import { type KernelPlan, multiTensorTable } from '@neura/wgsl-kernels';
import type { StateWrite } from './updatePlan.js';

/** What the arena plan reads of a step's schedule (stepPlan's StepSchedule; structural, so neither imports the other). */
export interface StepSchedule {
  readonly order: readonly NodeId[];
  readonly writes: ReadonlyMap<NodeId, StateWrite>;
  readonly resultNode: ReadonlyMap<NodeId, ReadonlyMap<number, NodeId>>;
}

/** The arenas of each multi-tensor node that runs as one dispatch: one per operand role, groups in order. */
export type ArenaChoice = ReadonlyMap<NodeId, readonly Arena[]>;

/** Memory-plan key of a node's storage (its root's), as planStorage names it. */
const keyOf = (root: NodeId) => `n${root}`;

/** The roles written in place, per result expression, the same in every group; undefined when not so. */
function rolesWritten(n: Node<'pointwiseMultiTensor'>, s: StepSchedule): number[] | undefined {
  const { shared, roles, groups } = groupOperands(n);
  const R = n.attrs.exprs.length;
  const out: number[] = [];
  for (let j = 0; j < groups * R; j++) {
    const v = s.resultNode.get(n.id)?.get(j);
    const w = v === undefined ? undefined : s.writes.get(v);
    if (!w?.multi || w.input === undefined) return undefined;
    const g = Math.floor(j / R);
    const k = w.input - shared - g * roles;
    if (!(k >= 0 && k < roles) || (g > 0 && out[j % R] !== k)) return undefined;
    if (g === 0) out.push(k);
  }
  return new Set(out).size === out.length ? out : undefined;
}

/** The multi-tensor nodes of the schedule whose operand roles can each live in one arena (see the header). */
export function planArenas(graph: Graph, s: StepSchedule, rootOf: (id: NodeId) => NodeId, exclude: ReadonlySet<NodeId> = new Set()): ArenaChoice {
  const out = new Map<NodeId, Arena[]>();
  const taken = new Set<NodeId>();
  for (const id of s.order) {
    const n = graph.nodes[id];
    if (n.op !== 'pointwiseMultiTensor' || exclude.has(id) || !rolesWritten(n, s)) continue;
    const { shared, roles, groups, operand } = groupOperands(n);
    // the arena kernel writes f32 and reads a role of one dtype in every group (f16: autocast gradients, read only)
    const roleDtypes = Array.from({ length: roles }, (_, k) => new Set(Array.from({ length: groups }, (_, g) => graph.nodes[n.inputs[operand(g, shared + k)]].dtype)));
    if (n.dtype !== 'f32' || roleDtypes.some((d) => d.size !== 1 || !(d.has('f32') || d.has('f16')))) continue;
    const rootsOf = Array.from({ length: roles }, (_, k) => Array.from({ length: groups }, (_, g) => rootOf(n.inputs[operand(g, shared + k)])));
    const all = rootsOf.flat();
    const persistentRole = rootsOf.map((rs) => rs.map((r) => isLeafOp(graph.nodes[r].op)));
    if (new Set(all).size !== all.length || all.some((r) => taken.has(r)) || persistentRole.some((p) => p.some((x) => x !== p[0]))) continue;
    for (const r of all) taken.add(r);
    out.set(
      id,
      rootsOf.map((rs, k) => ({ key: `arena${id}.${k}`, tensors: rs.map(keyOf) })),
    );
  }
  return out;
}

/** The offset table of each arena-form node (element offsets of each group's operands in their arenas). */
export function arenaTables(graph: Graph, arenas: ArenaChoice, memory: MemoryPlan): Map<NodeId, Uint32Array> {
  const tables = new Map<NodeId, Uint32Array>();
  for (const [id, roles] of arenas) {
    const n = graph.nodes[id] as Node<'pointwiseMultiTensor'>;
    const { shared, operand } = groupOperands(n);
    // element offsets: bytes over the role's element size (f16 roles: 2)
    const offsets = n.attrs.shapes.map((_, g) => roles.map((a, k) => (memory.offsetOf.get(a.tensors[g]) ?? 0) / byteSize(graph.nodes[n.inputs[operand(0, shared + k)]].dtype)));
    tables.set(id, multiTensorTable(n, offsets));
  }
  return tables;
}

/**
 * Arena-form nodes whose arenas another dispatch binds both writable and read-only (WebGPU forbids that in one
 * dispatch; disjoint writable ranges are valid); `bufferOfBinding` resolves a binding to its memory-plan buffer.
 */
export function arenaClashes(
  arenas: ArenaChoice,
  plans: ReadonlyMap<NodeId, KernelPlan>,
  memory: MemoryPlan,
  bufferOfBinding: (id: NodeId, b: KernelPlan['dispatches'][number]['bindings'][number]) => number | undefined,
): Set<NodeId> {
  const ownerOf = new Map<number, NodeId>(); // arena buffer → its node
  for (const [id, roles] of arenas) for (const a of roles) ownerOf.set(memory.arenas.get(a.key)?.buffer as number, id);
  const clashes = new Set<NodeId>();
  for (const [id, plan] of plans) {
    if (arenas.has(id)) continue;
    for (const d of plan.dispatches) {
      // buffer → how it is bound: writable and read-only bindings of one buffer clash; writable ones alone do
      // not (the results of one kernel are distinct tensors, disjoint in their arena: compile checks the ranges)
      const seen = new Map<number, { write: boolean; read: boolean }>();
      for (const b of d.bindings) {
        const buf = bufferOfBinding(id, b);
        if (buf === undefined) continue;
        const write = b.access === 'read_write';
        const use = seen.get(buf) ?? { write: false, read: false };
        const next = { write: use.write || write, read: use.read || !write };
        if (next.write && next.read && ownerOf.has(buf)) clashes.add(ownerOf.get(buf) as NodeId);
        seen.set(buf, next);
      }
    }
  }
  return clashes;
}

// Fitting a plan into `optimize({ memoryBudget })`: the extracted plan is measured by ir's memory estimate (the
// runtime's liveness and best-fit packing on the schedule the rebuilt graph will run); over budget, first a
// memory-aware schedule (a list schedule preferring the ready kernel that frees the most bytes), then, round by
// round, the recomputation (recompute.ts) that lowers the estimate most per unit of extra cost, until the plan fits.
// Must not change a plan that fits as extracted. Deterministic: no clocks, ties broken by class order.

import { estimateMemory, isAliasOp, isLeafOp, type OpKind, type ScheduledValue, tensorTypeBytes } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import { isRecomputable, offerRecompute } from './recompute.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { fmtBytes, type MemoryFit } from './report.js';
import { enodeAttrs, irENode } from './tensorLanguage.js';

/** No schedule and set of recomputations fits the plan into `optimize`'s `memoryBudget`. */
export class MemoryBudgetError extends Error {
  /** Always `'MemoryBudgetError'`. */
  override readonly name: string = 'MemoryBudgetError';
  constructor(
    message: string,
    /** The budget asked for, in bytes. */
    readonly budget: number,
    /** The smallest estimate reached, in bytes. */
    readonly smallest: number,
  ) {
    super(message);
  }
}

/** The chosen plan as the estimate sees it: per class its op, bytes and operand classes. */
interface PlanNode {
  readonly op: OpKind;
  /** The chosen e-node (absent for leaves and for the search's trial nodes). */
  readonly enode?: ENode;
  readonly bytes: number;
  readonly children: readonly Id[];
  readonly result?: number;
}
type Plan = Map<Id, PlanNode>;

/** The step's fixed points, as classes: leaves by op, roots, values read after the step, values written into states. */
export interface StepEnds {
  readonly leaves: readonly (readonly [Id, OpKind])[];
  readonly roots: readonly Id[];
  readonly outputs: readonly Id[];
  readonly inPlace: readonly Id[];
}

/** What a plan is measured against (canonical classes): roots to schedule from, values read after the step, values written into states. */
interface PlanEnds {
  readonly roots: readonly Id[];
  readonly outputs: ReadonlySet<Id>;
  readonly inPlace: ReadonlySet<Id>;
}

/** The plan's classes in depth-first post-order from the roots (the order `egraphToGraph` builds by default). */
function dfsOrder(plan: Plan, roots: readonly Id[]): Id[] {
  const done = new Set<Id>();
  const order: Id[] = [];
  for (const r of roots) {
    if (done.has(r)) continue;
    const stack: [Id, number][] = [[r, 0]];
    done.add(r);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const kids = (plan.get(top[0]) as PlanNode).children;
      if (top[1] < kids.length) {
        const c = kids[top[1]++];
        if (!done.has(c)) {
          done.add(c);
          stack.push([c, 0]);
        }
      } else {
        order.push(top[0]);
        stack.pop();
      }
    }
  }
  return order;
}

/** Per plan class in `order` (operands first), the class whose storage it reads: itself, or through views its viewed value's. */
function storageRoots(plan: Plan, order: readonly Id[]): Map<Id, Id> {
  const rootOf = new Map<Id, Id>();
  for (const id of order) {
    const n = plan.get(id) as PlanNode;
    rootOf.set(id, isAliasOp(n.op) ? (rootOf.get(n.children[0]) as Id) : id);
  }
  return rootOf;
}

/** Whether a plan node needs no storage of its own when it runs (leaves, views, results of another kernel). */
const isFree = (n: PlanNode) => isLeafOp(n.op) || isAliasOp(n.op) || n.op === 'pick';

/**
 * A memory-aware list schedule: among ready kernels, the one whose run frees the most bytes (operands it reads
 * last) net of what it allocates; free nodes run as soon as they are ready; ties go to the depth-first order.
 */
function memoryOrder(plan: Plan, dfs: readonly Id[], ends: PlanEnds): Id[] {
  const rank = new Map<Id, number>(dfs.map((id, i) => [id, i]));
  const rootOf = storageRoots(plan, dfs);
  const readers = new Map<Id, number>(); // reads left per storage root
  const users = new Map<Id, Id[]>();
  const waiting = new Map<Id, number>();
  for (const id of dfs) {
    const kids = [...new Set((plan.get(id) as PlanNode).children)];
    waiting.set(id, kids.length);
    for (const c of kids) {
      users.get(c)?.push(id) ?? users.set(c, [id]);
    }
    for (const r of new Set(kids.map((c) => rootOf.get(c) as Id))) readers.set(r, (readers.get(r) ?? 0) + 1);
  }
  const storable = (r: Id) => !ends.outputs.has(r) && !ends.inPlace.has(r) && !isLeafOp((plan.get(r) as PlanNode).op);
  const order: Id[] = [];
  const free: Id[] = [];
  const ready: Id[] = [];
  const enqueue = (id: Id) => (isFree(plan.get(id) as PlanNode) ? free : ready).push(id);
  for (const id of dfs) if (waiting.get(id) === 0) enqueue(id);
  const run = (id: Id) => {
    order.push(id);
    const kids = [...new Set((plan.get(id) as PlanNode).children)];
    for (const r of new Set(kids.map((c) => rootOf.get(c) as Id))) readers.set(r, (readers.get(r) as number) - 1);
    for (const u of users.get(id) ?? []) {
      const w = (waiting.get(u) as number) - 1;
      waiting.set(u, w);
      if (w === 0) enqueue(u);
    }
  };
  while (free.length || ready.length) {
    if (free.length) {
      run(free.shift() as Id);
      continue;
    }
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < ready.length; k++) {
      const n = plan.get(ready[k]) as PlanNode;
      let score = storable(ready[k]) ? -n.bytes : 0;
      for (const r of new Set(n.children.map((c) => rootOf.get(c) as Id))) if (readers.get(r) === 1 && storable(r)) score += (plan.get(r) as PlanNode).bytes;
      if (score > bestScore || (score === bestScore && (rank.get(ready[k]) as number) < (rank.get(ready[best]) as number))) {
        best = k;
        bestScore = score;
      }
    }
    run(ready.splice(best, 1)[0]);
  }
  return order;
}

/** ir's memory estimate of a plan run in `order`: bytes allocated, and the most bytes live at once. */
function estimate(plan: Plan, order: readonly Id[], ends: PlanEnds): { bytes: number; peak: number } {
  const at = new Map<Id, number>(order.map((id, i) => [id, i]));
  const values: ScheduledValue[] = order.map((id) => {
    const n = plan.get(id) as PlanNode;
    return { op: n.op, bytes: n.bytes, inputs: n.children.map((c) => at.get(c) as number), ...(n.result === undefined ? {} : { result: n.result }) };
  });
  const pos = (ids: Iterable<Id>) => [...ids].map((id) => at.get(id)).filter((i): i is number => i !== undefined);
  const r = estimateMemory(values, { outputs: pos(ends.outputs), inPlace: pos(ends.inPlace) });
  return { bytes: r.bytesAllocated, peak: r.peakLiveBytes };
}

/** Whether estimate `a` is smaller than `b`: fewer bytes allocated, or as many and a lower live peak (a step towards fewer). */
const smaller = (a: { bytes: number; peak: number }, b: { bytes: number; peak: number }) => a.bytes < b.bytes || (a.bytes === b.bytes && a.peak < b.peak);

/** The better of the depth-first and the memory-aware schedule of a plan. */
function bestSchedule(plan: Plan, ends: PlanEnds): { order: Id[]; bytes: number; peak: number; reordered: boolean } {
  const dfs = dfsOrder(plan, ends.roots);
  const first = { order: dfs, ...estimate(plan, dfs, ends), reordered: false };
  const mem = memoryOrder(plan, dfs, ends);
  const second = { order: mem, ...estimate(plan, mem, ends), reordered: true };
  return smaller(second, first) ? second : first;
}

/** Where a plan node's value lives on the schedule: first and last position, by storage root. */
function livePeak(plan: Plan, order: readonly Id[], ends: PlanEnds): { at: number; span: Map<Id, [number, number]> } {
  const pos = new Map<Id, number>(order.map((id, i) => [id, i]));
  const span = new Map<Id, [number, number]>();
  for (const id of order) {
    const n = plan.get(id) as PlanNode;
    if (isFree(n) && n.op !== 'pick') continue;
    span.set(id, [pos.get(id) as number, pos.get(id) as number]);
  }
  // a value is live while it or a view of it is read
  const rootOf = storageRoots(plan, order);
  for (const id of order) for (const c of (plan.get(id) as PlanNode).children) {
    const s = span.get(rootOf.get(c) as Id);
    if (s) s[1] = Math.max(s[1], pos.get(id) as number);
  }
  const delta = new Float64Array(order.length + 2);
  for (const [id, [s, e]] of span) {
    if (ends.inPlace.has(id) || ends.outputs.has(id)) continue;
    delta[s] += (plan.get(id) as PlanNode).bytes;
    delta[e + 1] -= (plan.get(id) as PlanNode).bytes;
  }
  let cur = 0;
  let best = -1;
  let at = 0;
  for (let k = 0; k < order.length; k++) {
    cur += delta[k];
    if (cur > best) [best, at] = [cur, k];
  }
  return { at, span };
}

/** One recomputation to try: the value, the node that recomputes it, and each late reader with its ordering operand. */
interface Candidate {
  readonly value: Id;
  readonly node: ENode;
  readonly readers: readonly CandidateReader[];
  readonly cost: number;
}

/** A reader of a candidate value: its operand that reads it, directly or through a view (`reshape`), and its ordering operand. */
interface CandidateReader {
  readonly reader: Id;
  /** The reader's operands that read it (attention reads q, k and v as three views of one projection). */
  readonly operands: readonly number[];
  readonly dep: number;
  /** The view's class and e-node when the reader reads the value through one (a head split's reshape). */
  readonly view?: { readonly id: Id; readonly node: ENode };
}

/** Values live across the peak, recomputable from operands the plan computes, with each reader after the peak. */
function candidates(egraph: EGraph<TensorInfo>, plan: Plan, order: readonly Id[], ends: PlanEnds, cost: NodeCostFunction): Candidate[] {
  const { at, span } = livePeak(plan, order, ends);
  const pos = new Map<Id, number>(order.map((id, i) => [id, i]));
  const out: Candidate[] = [];
  for (const [y, [s, e]] of span) {
    const n = plan.get(y) as PlanNode;
    if (!(s < at && e > at) || isLeafOp(n.op) || ends.outputs.has(y) || ends.inPlace.has(y)) continue;
    const node = egraph
      .eclass(y)
      .nodes.filter((m) => isRecomputable(m) && m.children.length > 0 && m.children.every((c) => plan.has(egraph.find(c)) && egraph.find(c) !== y && plan.get(egraph.find(c))?.op !== 'after'))
      .map((m) => ({ m, c: cost.nodeCost(m, y) }))
      .sort((a, b) => a.c - b.c)[0];
    if (!node || !Number.isFinite(node.c)) continue;
    const readers: CandidateReader[] = [];
    let ok = true;
    // y itself, and its reshapes: a reader of a reshape gets the reshape of the recomputation
    const views = new Map<Id, ENode | undefined>([[y, undefined]]);
    for (const id of order) {
      const v = plan.get(id) as PlanNode;
      if (v.op === 'reshape' && v.children[0] === y && v.enode) views.set(id, v.enode);
    }
    for (const id of order.slice(at + 1)) {
      const r = plan.get(id) as PlanNode;
      if (r.op === 'after' && r.children[0] === y && r.children[1] !== y) {
        readers.push({ reader: id, operands: [0], dep: 1 }); // a recomputation reading y: it reads y's own recomputation
        continue;
      }
      if (isAliasOp(r.op) || r.op === 'pick') {
        if (r.children.some((c) => views.has(c))) ok = false; // a view of y read later keeps y alive anyway
        continue;
      }
      const read = [...new Set(r.children.filter((c) => views.has(c)))];
      if (read.length === 0) continue;
      if (read.length > 1) ok = false; // y and a view of it, or two views, in one reader
      let dep = -1;
      r.children.forEach((d, j) => {
        const dn = plan.get(d) as PlanNode;
        if (!views.has(d) && !isLeafOp(dn.op) && egraph.eclass(d).data.constant === undefined && (dep < 0 || (pos.get(d) as number) > (pos.get(r.children[dep]) as number))) dep = j;
      });
      const view = views.get(read[0]);
      const operands = r.children.flatMap((c, i) => (c === read[0] ? [i] : []));
      if (dep < 0) ok = false;
      else readers.push({ reader: id, operands, dep, ...(view ? { view: { id: read[0], node: view } } : {}) });
    }
    if (new Set(readers.map((r) => r.reader)).size !== readers.length) ok = false; // one alternative per reader
    if (ok && readers.length) out.push({ value: y, node: node.m, readers, cost: node.c * readers.length });
  }
  return out.sort((a, b) => a.value - b.value);
}

/** The plan with a candidate applied, without touching the e-graph (new classes get negative ids). */
function tryCandidate(plan: Plan, c: Candidate, find: (id: Id) => Id): Plan {
  const next = new Map(plan);
  let fresh = Math.min(-1, ...[...plan.keys()].filter((k) => k < 0)) - 1;
  const y = plan.get(c.value) as PlanNode;
  const kids = c.node.children.map(find);
  for (const r of c.readers) {
    const reader = next.get(r.reader) as PlanNode;
    const after = fresh--;
    const value = fresh--;
    next.set(after, { op: 'after', bytes: (plan.get(kids[0]) as PlanNode).bytes, children: [kids[0], reader.children[r.dep]] });
    next.set(value, { op: c.node.op as OpKind, bytes: y.bytes, children: [after, ...kids.slice(1)] });
    let operand = value;
    if (r.view) next.set((operand = fresh--), { op: r.view.node.op as OpKind, bytes: y.bytes, children: [value] });
    next.set(r.reader, { ...reader, children: reader.children.map((x, i) => (r.operands.includes(i) ? operand : x)) });
  }
  return next;
}

/** Runners-up of a round tried after its best recomputation, before the candidates are evaluated again. */
const RUNNERS_UP = 6;

/** A candidate with its classes canonical, if every reader still reads the value and its recomputation's operands are planned. */
function stillValid(c: Candidate, plan: Plan, find: (id: Id) => Id): Candidate | undefined {
  const value = find(c.value);
  const readers = c.readers.map((r) => ({ ...r, reader: find(r.reader), ...(r.view ? { view: { id: find(r.view.id), node: r.view.node } } : {}) }));
  const ok = plan.has(value) && c.node.children.every((x) => plan.has(find(x))) && readers.every((r) => r.operands.every((i) => plan.get(r.reader)?.children[i] === (r.view ? r.view.id : value)));
  return ok && new Set(readers.map((r) => r.reader)).size === readers.length ? { ...c, value, readers } : undefined;
}

/**
 * Fits the extraction's plan into `budget` bytes (ir's estimate): what it did, and unless the plan fits as extracted
 * (then nothing changes) the choices and the class order to rebuild with. Throws a MemoryBudgetError naming
 * the budget and the smallest plan found when no schedule and set of recomputations reaches it.
 */
export function fitMemoryBudget(
  egraph: EGraph<TensorInfo>,
  extracted: ReadonlyMap<Id, ENode>,
  step: StepEnds,
  cost: NodeCostFunction,
  budget: number,
): { fit: MemoryFit; choices?: Map<Id, ENode>; order?: Id[] } {
  const find = (id: Id) => egraph.find(id);
  let choices = new Map(extracted);
  const planOf = (): { plan: Plan; ends: PlanEnds } => {
    // classes change ids as recomputations join readers' classes: canonical again each time
    const ends = { roots: step.roots.map(find), outputs: new Set(step.outputs.map(find)), inPlace: new Set(step.inPlace.map(find)) };
    const leafOps = new Map(step.leaves.map(([id, op]) => [find(id), op]));
    const plan: Plan = new Map();
    for (const [id, n] of choices) {
      const bytes = tensorTypeBytes(egraph.eclass(id).data);
      const leaf = leafOps.get(id);
      if (leaf) plan.set(id, { op: leaf, bytes, children: [] });
      else plan.set(id, { op: n.op as OpKind, enode: n, bytes, children: n.children.map(find), ...(n.op === 'pick' ? { result: enodeAttrs(n, 'pick').index } : {}) });
    }
    return { plan, ends };
  };
  let { plan, ends } = planOf();
  const dfs = dfsOrder(plan, ends.roots);
  const before = estimate(plan, dfs, ends).bytes;
  if (before <= budget) return { fit: { budget, before, after: before, recomputed: 0, reordered: false } };
  let best = bestSchedule(plan, ends);
  let recomputed = 0;
  const result = () => ({ choices, order: best.order, fit: { budget, before, after: best.bytes, recomputed, reordered: best.reordered } });
  while (best.bytes > budget) {
    // the recomputation saving most bytes allocated per unit of cost; when none saves any (packing: another
    // position needs as many big buffers), the one lowering the live peak most, a step towards a saving
    const ranked: { c: Candidate; saves: boolean; score: number }[] = [];
    for (const c of candidates(egraph, plan, best.order, ends, cost)) {
      const e = bestSchedule(tryCandidate(plan, c, find), ends);
      if (!smaller(e, best)) continue;
      const saves = e.bytes < best.bytes;
      ranked.push({ c, saves, score: (saves ? best.bytes - e.bytes : best.peak - e.peak) / Math.max(c.cost, 1e-9) });
    }
    ranked.sort((a, b) => Number(b.saves) - Number(a.saves) || b.score - a.score);
    const pick = ranked[0];
    if (!pick) throw new MemoryBudgetError(`optimize: memoryBudget ${fmtBytes(budget)} (${budget} bytes) cannot be met: the smallest plan found needs ${fmtBytes(best.bytes)} (${best.bytes} bytes; ${recomputed} recomputed operands, ${best.reordered ? 'memory-aware schedule' : 'extracted schedule'}; ${fmtBytes(before)} as extracted)`, budget, best.bytes);
    choices = applyCandidate(egraph, choices, pick.c);
    recomputed += pick.c.readers.length;
    ({ plan, ends } = planOf());
    best = bestSchedule(plan, ends);
    // the runners-up of this round, each re-checked on the plan as it now stands (a round per recomputation
    // made the GPT 12×384 step's search 4× slower for the same plans' sizes)
    for (const next of ranked.slice(1, 1 + RUNNERS_UP)) {
      if (best.bytes <= budget) break;
      const c = stillValid(next.c, plan, find);
      if (!c) continue;
      if (!smaller(bestSchedule(tryCandidate(plan, c, find), ends), best)) continue;
      choices = applyCandidate(egraph, choices, c);
      recomputed += c.readers.length;
      ({ plan, ends } = planOf());
      best = bestSchedule(plan, ends);
    }
  }
  return result();
}

/** Adds a candidate's recomputations to the e-graph (each reader's alternative joins its class) and chooses them. */
function applyCandidate(egraph: EGraph<TensorInfo>, choices: Map<Id, ENode>, c: Candidate): Map<Id, ENode> {
  const chosen: [Id, ENode][] = [];
  for (const r of c.readers) {
    const reader = choices.get(r.reader) as ENode;
    const added = offerRecompute(egraph, reader, r.operands, c.node, r.dep, r.view?.node);
    egraph.union(r.reader, added.reader);
    chosen.push([added.after, irENode('after', {}, [c.node.children[0], reader.children[r.dep]])]);
    chosen.push([added.value, { op: c.node.op, data: c.node.data, children: [added.after, ...c.node.children.slice(1)] }]);
    if (r.view) chosen.push([added.operand, { op: r.view.node.op, data: r.view.node.data, children: [added.value] }]);
    chosen.push([added.reader, { op: reader.op, data: reader.data, children: reader.children.map((x, i) => (r.operands.includes(i) ? added.operand : x)) }]);
  }
  egraph.rebuild();
  const next = new Map<Id, ENode>();
  for (const [id, n] of choices) next.set(egraph.find(id), egraph.canonicalize(n));
  for (const [id, n] of chosen) next.set(egraph.find(id), egraph.canonicalize(n));
  return next;
}

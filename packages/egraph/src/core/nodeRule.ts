// Node rules: procedural rewrites over every e-node of given ops, for what a pattern cannot say (variable arity,
// expression rewriting, plans over many nodes). The scan is incremental and generic over the language: after a
// complete scan only classes changed since (and their parents' classes) are scanned again, and a node is not
// matched again while its signature is unchanged since the rule last applied to it. A rule holds no state itself:
// it lives in a per-run `RuleState` (by default one per e-graph).

import type { EGraph } from './eGraph.js';
import type { ENode, Id } from './language.js';
import { Rewrite, fnApplier, type Searcher } from './rewrite.js';
import { type Match, Subst } from './subst.js';

/** Per-run state of node rules: one slot per key (a rule's name, or a table rules share). */
export interface RuleState {
  /** The state under `key` in this run, made by `init` on first use. */
  of<T>(key: string, init: () => T): T;
}

/** What a node rule's result reads of the e-graph, hashed (see `NodeRuleOptions.signature`). */
export type NodeSignature<D> = (egraph: EGraph<D>, eclass: Id, node: ENode) => number;

/** Options of `nodeRule`. */
export interface NodeRuleOptions<D> {
  /** A cheap test at search time: nodes failing it are not matched (keeps match counts and apply calls down). */
  readonly guard?: (egraph: EGraph<D>, eclass: Id, node: ENode) => boolean;
  /**
   * What the rule's result depends on, hashed (default `nodeSignature`: the class, and per child its class and node
   * count): a node applied with an unchanged signature is not matched again. It must cover everything `apply`
   * reads that can change within a run, or the rule misses rewrites.
   */
  readonly signature?: NodeSignature<D>;
  /**
   * The guard reads only what the signature covers (e.g. the node and its children's ops under the default
   * signature): a node that failed it is not tested again until its signature changes (the guard then costs one
   * signature per scan instead of its own test, for the many nodes that never pass it).
   */
  readonly guardBySignature?: boolean;
  /**
   * A test on the node alone (its op, data and arity: never its classes, nor anything that changes in a run): a
   * node failing it is never matched again, nor is its signature hashed (most fused variants fail a rule's
   * shape test for good, and were tested again on every scan their classes changed in). Run before `guard`.
   */
  readonly staticGuard?: (node: ENode) => boolean;
  /**
   * Where the rule keeps its per-run state (default: one state per e-graph, for its life). A language whose runs
   * start afresh on one e-graph (the tensor optimizer's wider second fusion pass) passes its own.
   */
  readonly state?: (egraph: EGraph<D>) => RuleState;
  /**
   * A number that, when it changes, makes the next search visit every node again (applied signatures kept): for a
   * signature that reads more than the classes around a node (the tensor rules' fusion width), which an incremental
   * scan of changed classes would not see change.
   */
  readonly fullScanKey?: (egraph: EGraph<D>) => number;
  /**
   * Ops the guard needs somewhere in the e-graph (it fails for every node while no class holds a node of any of
   * them): while none is there, the search returns no match without scanning, as a complete scan would, and counts
   * as one (the next search scans what changed since). Its nodes stay unsigned, so a later scan tests their guard
   * where it would have compared signatures: the same matches, since a failed guard is only remembered under
   * `guardBySignature`, whose guard reads nothing the signature does not cover. A rule for a rare op (a quantized
   * product) scanned every pointwise node of each changed class in every iteration to match nothing.
   */
  readonly requiresOps?: readonly string[];
}

/** A plain `RuleState`. */
class MapState implements RuleState {
  private readonly slots = new Map<string, unknown>();
  of<T>(key: string, init: () => T): T {
    let v = this.slots.get(key) as T | undefined;
    if (v === undefined) this.slots.set(key, (v = init()));
    return v;
  }
}
const egraphStates = new WeakMap<object, RuleState>();
/** The default per-run state: one per e-graph. */
function stateOfEGraph(egraph: object): RuleState {
  let s = egraphStates.get(egraph);
  if (!s) egraphStates.set(egraph, (s = new MapState()));
  return s;
}

/**
 * The default signature: the node's class and, per child, its canonical class and node count, hashed to a number
 * (a collision only skips a rewrite, never makes a wrong one). Classes only ever gain nodes, so an unchanged
 * signature means the rule would add nothing new.
 */
export function nodeSignature<D>(egraph: EGraph<D>, eclass: Id, node: ENode): number {
  let h = Math.imul(egraph.find(eclass) + 1, 0x9e3779b1);
  for (const c of node.children) {
    const cls = egraph.eclass(c);
    h = Math.imul(h ^ cls.id, 0x85ebca6b) + cls.nodes.length;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  }
  return h | 0;
}

// `?c0 … ?cN` name lists, shared (Subst keeps names by reference); constant data, never grows past the widest op
const CHILD_VARS: readonly string[][] = Array.from({ length: 17 }, (_, arity) => Array.from({ length: arity }, (_, i) => `?c${i}`));
/** The shared `?c0 … ?cN` names of an arity. */
function childVars(arity: number): string[] {
  return CHILD_VARS[arity] ?? Array.from({ length: arity }, (_, i) => `?c${i}`);
}

/**
 * The nodes of the classes changed since an epoch and of their parents' classes, in scan order (class by class,
 * each class's nodes in order), with the entry numbers of each op: what every node rule scanning at that epoch
 * reads, built once per search phase instead of once per rule.
 */
interface CandidateScan {
  readonly key: string;
  /** Class of each entry (canonical). */
  readonly classes: Int32Array;
  /** Node of each entry. */
  readonly nodes: readonly ENode[];
  /** Serial number of each entry's node (`nodeSerial`). */
  readonly serials: Int32Array;
  /**
   * Whether each entry's node reads a changed class (1), or only sits in a changed class (0): such a node's
   * signature still reads as it did, unless the node moved into this class by a union (see `NodeRuleRun.appliedIn`).
   */
  readonly readsChanged: Uint8Array;
  /** Entry numbers of each op (by its number in `opNums`), ascending. */
  readonly byOp: readonly (readonly number[] | undefined)[];
  /** The number of each op name (`byOp`'s index). */
  readonly opNums: ReadonlyMap<string, number>;
}

/**
 * Classes changed since `since` and the classes of their parents, scanned. Every node rule of a pass scanned at
 * the same epoch asks for the same scan while the e-graph stands still (searches run before applies): it is built
 * once, per e-graph (not per rule state: rules whose states differ share it).
 */
function candidateScan<D>(egraph: EGraph<D>, since: number): CandidateScan {
  const key = `${since}|${egraph.epoch}|${egraph.totalNodes}|${egraph.numClasses}`;
  const last = lastScans.get(egraph);
  if (last?.key === key) return last;
  const changed = egraph.changedSince(since);
  // marks by id (ids are dense): CHANGED, and LISTED once in `ids` (sets of numbers were much of the scan)
  const info = serialsOf(egraph);
  const mark = scratchOf(info, egraph.totalIds).mark;
  const ids: Id[] = [];
  try {
    for (const id of changed) mark[id] = CHANGED;
    // index loops over the parent entries (a class of shared inputs has thousands; destructuring each cost more)
    for (let c = 0; c < changed.length; c++) {
      const id = changed[c];
      if (!(mark[id] & LISTED)) {
        mark[id] |= LISTED;
        ids.push(id);
      }
      const parents = egraph.eclass(id).parents;
      for (let i = 0; i < parents.length; i++) {
        const p = egraph.find(parents[i][1]);
        if (!(mark[p] & LISTED)) {
          mark[p] |= LISTED;
          ids.push(p);
        }
      }
    }
    const nodes: ENode[] = [];
    const byOp: number[][] = [];
    // a rebuilt e-graph's nodes are canonical (its invariant): their children are read as they are, without a `find`
    // per child (the scan tests ~740 000 children a GPT 6×384 run; this test was most of its time)
    const clean = !egraph.isDirty;
    for (const id of ids) {
      // of a parent class that did not change itself, only the nodes reading a changed class (a class of fused
      // variants holds hundreds, each tested by every node rule of the pass on each scan)
      const all = (mark[id] & CHANGED) !== 0;
      const list = egraph.eclass(id).nodes;
      // the list's children, serials and op numbers, flat (reading each node's children array was most of the scan)
      const { serials: listSerials, ops, kidStart, kids } = listInfo(info, id, list);
      for (let i = 0; i < list.length; i++) {
        let reads = false;
        const end = kidStart[i + 1];
        if (clean) for (let j = kidStart[i]; j < end && !reads; j++) reads = (mark[kids[j]] & CHANGED) !== 0;
        else for (let j = kidStart[i]; j < end && !reads; j++) reads = (mark[egraph.find(kids[j])] & CHANGED) !== 0;
        if (!all && !reads) continue;
        const k = nodes.push(list[i]) - 1;
        const sc = k < info.scratch.classes.length ? info.scratch : growEntries(info, k + 1);
        sc.serials[k] = listSerials[i];
        sc.reads[k] = reads ? 1 : 0;
        sc.classes[k] = id;
        const entries = byOp[ops[i]];
        if (entries) entries.push(k);
        else byOp[ops[i]] = [k];
      }
    }
    // the previous scan is done with (searches do not nest): its buffers are reused, seen through views
    const sc = info.scratch;
    const count = nodes.length;
    const scan = {
      key,
      classes: sc.classes.subarray(0, count),
      nodes,
      serials: sc.serials.subarray(0, count),
      readsChanged: sc.reads.subarray(0, count),
      byOp,
      opNums: info.opNums,
    };
    lastScans.set(egraph, scan);
    return scan;
  } finally {
    // the marks are zero between scans (a changed class is listed, unless a throw came first)
    for (const id of changed) mark[id] = 0;
    for (const id of ids) mark[id] = 0;
  }
}

/**
 * Serial numbers of e-node objects, per e-graph: every node rule keeps its applied signatures in an array by serial,
 * and a scan looks each node's serial up once for all of them (a map lookup per rule and node was the scans' time).
 */
const serials = new WeakMap<object, Serials>();

/**
 * The serial of each node object, and what a scan reads of each class node list seen (lists only grow, or are
 * replaced by a rebuild: a list's entry is extended, never stale), so a scan reads a class's nodes by index from
 * flat arrays (a map lookup per node and scan was ~3 % of optimize on the GPT step).
 */
interface Serials {
  readonly of: Map<ENode, number>;
  /** By class id: its node list as last read (a list replaced by a rebuild is read afresh). */
  readonly lists: (ListInfo | undefined)[];
  /** A number per op name (`ListInfo.ops`). */
  readonly opNums: Map<string, number>;
  /** `candidateScan`'s buffers, reused by the next scan (31 scans per GPT 6×384 optimize made ~20 MB). */
  scratch: ScanScratch;
}

/** Buffers of a candidate scan: marks by class id (all zero between scans) and the per-entry columns. */
interface ScanScratch {
  readonly mark: Uint8Array;
  readonly classes: Int32Array;
  readonly serials: Int32Array;
  readonly reads: Uint8Array;
}

/** The scan buffers, the marks grown to `ids` classes. */
function scratchOf(s: Serials, ids: number): ScanScratch {
  if (s.scratch.mark.length < ids) s.scratch = { ...s.scratch, mark: new Uint8Array(Math.max(ids, 2 * s.scratch.mark.length)) };
  return s.scratch;
}

/** The scan buffers, the entry columns grown to hold `n` entries (those written kept). */
function growEntries(s: Serials, n: number): ScanScratch {
  const size = Math.max(n, 2 * s.scratch.classes.length, 1024);
  const classes = new Int32Array(size);
  classes.set(s.scratch.classes);
  const serials = new Int32Array(size);
  serials.set(s.scratch.serials);
  const reads = new Uint8Array(size);
  reads.set(s.scratch.reads);
  s.scratch = { mark: s.scratch.mark, classes, serials, reads };
  return s.scratch;
}

/**
 * Per node of a class list, by index: its serial, its op's number, and its children (`kids[kidStart[i] ..
 * kidStart[i + 1] - 1]`; nodes are immutable, so these stay as they were read).
 */
interface ListInfo {
  readonly list: readonly ENode[];
  readonly serials: number[];
  readonly ops: number[];
  readonly kidStart: number[];
  readonly kids: number[];
}

/** The serial numbers of an e-graph's node objects. */
function serialsOf(egraph: object): Serials {
  let m = serials.get(egraph);
  if (!m) {
    const scratch = { mark: new Uint8Array(0), classes: new Int32Array(0), serials: new Int32Array(0), reads: new Uint8Array(0) };
    serials.set(egraph, (m = { of: new Map(), lists: [], opNums: new Map(), scratch }));
  }
  return m;
}

/** The serial number of a node object (numbered on first sight). */
function nodeSerial(s: Serials, n: ENode): number {
  let k = s.of.get(n);
  if (k === undefined) s.of.set(n, (k = s.of.size));
  return k;
}

/** What a scan reads of a class's node list, by index (extended to the list's current length). */
function listInfo(s: Serials, cls: Id, list: readonly ENode[]): ListInfo {
  // by class id, not a map by list object: the map's lookup was most of this function, and it kept every list
  while (s.lists.length <= cls) s.lists.push(undefined);
  let out = s.lists[cls];
  if (out?.list !== list) s.lists[cls] = out = { list, serials: [], ops: [], kidStart: [0], kids: [] };
  for (let i = out.serials.length; i < list.length; i++) {
    const n = list[i];
    out.serials.push(nodeSerial(s, n));
    out.ops.push(opNum(s, n.op));
    for (const c of n.children) out.kids.push(c);
    out.kidStart.push(out.kids.length);
  }
  return out;
}

/** The classes holding a node of any of `ops`, each once, in the order the ops list them (one op's are distinct). */
function classesWithOps<D>(egraph: EGraph<D>, ops: readonly string[]): Id[] {
  const seen = new Set<Id>();
  const out: Id[] = [];
  for (const op of ops) {
    for (const id of egraph.classesWithOp(op)) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** The number of an op name (numbered on first sight). */
function opNum(s: Serials, op: string): number {
  let k = s.opNums.get(op);
  if (k === undefined) s.opNums.set(op, (k = s.opNums.size));
  return k;
}

/** 1 at the number of each of `ops`, by op number (numbers past its end are of other ops). */
function opFlags(s: Serials, ops: readonly string[]): Uint8Array {
  const nums = ops.map((op) => opNum(s, op));
  const flags = new Uint8Array(s.opNums.size);
  for (const k of nums) flags[k] = 1;
  return flags;
}

/** Marks of `candidateScan`. */
const CHANGED = 1;
const LISTED = 2;

// the last scan of each e-graph (weak: it dies with the e-graph)
const lastScans = new WeakMap<object, CandidateScan>();

/** The scan's entries of any of `ops`, in scan order. */
function entriesOf(scan: CandidateScan, ops: readonly string[]): readonly number[] {
  const lists: (readonly number[])[] = [];
  for (const op of ops) {
    const num = scan.opNums.get(op);
    const l = num === undefined ? undefined : scan.byOp[num];
    if (l) lists.push(l);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  return Int32Array.from(lists.flat()).sort() as unknown as readonly number[];
}

/**
 * What a node rule remembers in one run: the node behind each match of the last search, signatures applied, the
 * last full scan. Plain maps (the state dies with the run): weak maps' entries were much of the GC's work.
 */
interface NodeRuleRun {
  /** The last search's substs and the node (and its serial) behind each, in match order (applied in that order: a cursor finds each). */
  readonly substs: Subst[];
  readonly nodes: ENode[];
  readonly serials: number[];
  cursor: number;
  /**
   * The signature each node (by serial) was applied with (or failed a `guardBySignature` guard with; `NEVER`: failed
   * the static guard; `UNSIGNED`: neither). A typed array grown by `sign`: a plain array written at scattered serials
   * (a rule over a rare op) turned into a slow dictionary.
   */
  applied: Float64Array;
  /** The class each node (by serial) was given its `applied` signature in (a union may move it to another); -1: none. */
  appliedIn: Int32Array;
  scanned?: number;
  /** `fullScanKey` at the last complete scan. */
  scanKey?: number;
}

/** The `applied` mark of a node that failed the static guard: never a signature (those are 32-bit integers). */
const NEVER = 0.5;
/** The `applied` mark of a node not signed yet: never a signature either. */
const UNSIGNED = -0.5;

/** Sets the `applied` mark of a node (by serial) and the class it was given in, growing the arrays as needed. */
function sign(st: NodeRuleRun, serial: number, mark: number, cls: Id): void {
  if (serial >= st.applied.length) {
    const size = Math.max(serial + 1, 2 * st.applied.length, 1024);
    const applied = new Float64Array(size).fill(UNSIGNED);
    applied.set(st.applied);
    const appliedIn = new Int32Array(size).fill(-1);
    appliedIn.set(st.appliedIn);
    st.applied = applied;
    st.appliedIn = appliedIn;
  }
  st.applied[serial] = mark;
  st.appliedIn[serial] = cls;
}

/** The `applied` mark of a node (by serial): `UNSIGNED` past the arrays' end. */
const markOf = (st: NodeRuleRun, serial: number): number => (serial < st.applied.length ? st.applied[serial] : UNSIGNED);

/** A fresh `NodeRuleRun` (one shared init: no closure per lookup). */
const newRun = (): NodeRuleRun => ({ substs: [], nodes: [], serials: [], cursor: 0, applied: new Float64Array(0), appliedIn: new Int32Array(0) });

/** The match number of a subst of the run's last search, or -1 (a subst of another search). */
function matchOfSubst(st: NodeRuleRun, subst: Subst): number {
  const { substs } = st;
  let k = st.cursor < substs.length && substs[st.cursor] === subst ? st.cursor : substs.indexOf(subst, st.cursor);
  if (k < 0) k = substs.indexOf(subst);
  if (k >= 0) st.cursor = k + 1;
  return k;
}

/**
 * A rule over every e-node of the given ops: `apply` sees the matched node (attributes included) and returns the
 * classes to union with its class. Children are bound as `?c0`, `?c1`, ... for messages. A node is not matched
 * again while its signature is unchanged since the rule last applied to it in this run: re-applying would only
 * rebuild nodes the e-graph already holds, and unchanged nodes would count against the scheduler's match limit.
 */
export function nodeRule<D>(
  name: string,
  ops: readonly string[],
  apply: (egraph: EGraph<D>, eclass: Id, node: ENode) => readonly Id[] | Id | undefined,
  opts: NodeRuleOptions<D> = {},
): Rewrite<D> {
  const guard = opts.guard;
  const signature = opts.signature ?? nodeSignature;
  const guardBySignature = opts.guardBySignature ?? false;
  const staticGuard = opts.staticGuard;
  const stateOf = opts.state ?? stateOfEGraph;
  const fullScanKey = opts.fullScanKey;
  const requiresOps = opts.requiresOps;
  // whether a node is matched again only when its signature changes (no guard, or one that reads only what the
  // signature covers); a plain guard is tested again whenever the node's class changed
  const signedOnly = guard === undefined || guardBySignature;
  const stateKey = `nodeRule:${name}`;
  const runOf = (egraph: EGraph<D>): NodeRuleRun => stateOf(egraph).of<NodeRuleRun>(stateKey, newRun);
  const searcher: Searcher<D> & { toString(): string } = {
    search(egraph, limit = Number.POSITIVE_INFINITY) {
      const st = runOf(egraph);
      // the runner applies each search's matches before the next search
      st.substs.length = 0;
      st.nodes.length = 0;
      st.serials.length = 0;
      st.cursor = 0;
      const out: Match[] = [];
      // incremental search: after a complete scan at epoch E only classes changed since E and their parents
      // can hold a node with a new signature
      const scanKey = fullScanKey?.(egraph);
      if (requiresOps && !requiresOps.some((op) => egraph.classesWithOp(op).length > 0)) {
        st.scanned = egraph.epoch;
        st.scanKey = scanKey;
        return out;
      }
      let budget = limit;
      const since = scanKey === st.scanKey ? st.scanned : undefined;
      const serialOf = serialsOf(egraph);
      const epoch = egraph.epoch;
      // a node needs matching unless it was applied (or, with `guardBySignature`, failed the guard) with its current
      // signature (hashed only for those), or fails the guard
      const wanted = (id: Id, n: ENode, serial: number): boolean => {
        const applied = markOf(st, serial);
        if (applied === NEVER) return false;
        if (staticGuard && applied === UNSIGNED && !staticGuard(n)) {
          sign(st, serial, NEVER, -1);
          return false;
        }
        let sig: number | undefined;
        if (applied !== UNSIGNED && applied === (sig = signature(egraph, id, n))) return false;
        if (guard && !guard(egraph, id, n)) {
          if (guardBySignature) sign(st, serial, sig ?? signature(egraph, id, n), id);
          return false;
        }
        return true;
      };
      const match = (n: ENode, serial: number): Subst => {
        const s = Subst.fromArrays(childVars(n.children.length), n.children);
        st.substs.push(s);
        st.nodes.push(n);
        st.serials.push(serial);
        return s;
      };
      if (since === undefined) {
        const isOp = opFlags(serialOf, ops);
        const classes = ops.length === 1 ? egraph.classesWithOp(ops[0]) : classesWithOps(egraph, ops);
        for (let c = 0; c < classes.length; c++) {
          const id = classes[c];
          if (budget <= 0) return out; // incomplete: the next search rescans from the same epoch
          const substs: Subst[] = [];
          const list = egraph.eclass(id).nodes;
          const { serials: listSerials, ops: listOps } = listInfo(serialOf, id, list);
          // by op number: a node of another op is skipped without reading it
          for (let i = 0; i < list.length; i++) {
            const op = listOps[i];
            if (op >= isOp.length || isOp[op] === 0) continue;
            if (wanted(id, list[i], listSerials[i])) substs.push(match(list[i], listSerials[i]));
          }
          if (substs.length) {
            out.push({ eclass: id, substs });
            budget -= substs.length;
          }
        }
      } else {
        const scan = candidateScan(egraph, since);
        let cur = -1;
        let substs: Subst[] = [];
        const entries = entriesOf(scan, ops);
        // an index loop: `for … of` over the typed array (several ops) allocated an iterator result per entry
        for (let e = 0; e < entries.length; e++) {
          const k = entries[e];
          const id = scan.classes[k];
          if (id !== cur) {
            if (substs.length) {
              out.push({ eclass: cur, substs });
              budget -= substs.length;
              substs = [];
            }
            if (budget <= 0) return out; // incomplete: the next search rescans from the same epoch
            cur = id;
          }
          const n = scan.nodes[k];
          const serial = scan.serials[k];
          // a node that reads no changed class and was signed in this class signs as it did then: skipped without
          // hashing (a class of fused variants gains one and holds hundreds), unless a plain guard may read more.
          // `appliedIn` names a class only beside a signature (`sign`): one load, not two
          if (signedOnly && scan.readsChanged[k] === 0 && serial < st.appliedIn.length && st.appliedIn[serial] === id) continue;
          if (wanted(id, n, serial)) substs.push(match(n, serial));
        }
        if (substs.length) {
          out.push({ eclass: cur, substs });
          budget -= substs.length;
        }
        // as a class-by-class scan would: out of budget with classes still to visit leaves the scan incomplete
        if (budget <= 0 && cur !== scan.classes[scan.classes.length - 1]) return out;
      }
      st.scanned = epoch;
      st.scanKey = scanKey;
      return out;
    },
    vars: () => [],
    toString: () => `<${ops.join('|')} node>`,
  };
  return new Rewrite<D>(
    name,
    searcher,
    fnApplier((egraph, eclass, subst) => {
      const st = runOf(egraph);
      const k = matchOfSubst(st, subst);
      if (k < 0) return undefined;
      const canon = egraph.canonicalize(st.nodes[k]);
      sign(st, st.serials[k], signature(egraph, eclass, canon), egraph.find(eclass));
      return apply(egraph, eclass, canon);
    }, name),
  );
}

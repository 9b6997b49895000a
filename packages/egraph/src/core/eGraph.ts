// The e-graph: hash-consed e-nodes grouped into e-classes by a union-find, with egg's deferred rebuild
// (a worklist of parents restores congruence and analysis data in `rebuild`). Knows no domain.
// Invariants after `rebuild()`: every class's nodes are canonical and distinct, the memo maps each canonical
// node to its class, congruent nodes share a class, and each class's data is the merge of its nodes' `make`.
import { EGraphStateError } from './errors.js';
import type { ENode, Id } from './language.js';
import { dataKey, defaultLanguage, nodeKey } from './language.js';
import { NodeMemo, nodeHash, sameKids } from './nodeMemo.js';
import type { RecExpr, Term } from './recExpr.js';
import { formatOp } from './sexpr.js';
import { UnionFind } from './unionFind.js';

/**
 * Per-class data computed from e-nodes (egg's `Analysis`). `make` sees canonical children; `merge` returns the
 * joined data and must return the very same `a` (or `b`) object when the join equals it, so the e-graph can tell
 * what changed; it may throw to reject an inconsistent merge (nothing is changed then). `modify` may add nodes
 * and unions to the class (e.g. a folded constant).
 */
export interface Analysis<D> {
  /** Data of a class holding only `node`. */
  make(egraph: EGraph<D>, node: ENode): D;
  /** The join of two classes' data; return `a` itself when nothing in `a` changes. */
  merge(a: D, b: D): D;
  /** Optional hook run after a class is made or its data changes. */
  modify?(egraph: EGraph<D>, id: Id): void;
}

/** An e-class: its canonical id, e-nodes, analysis data and the (node, class) pairs that use it (possibly stale: canonicalise before use). */
export interface EClass<D> {
  /** The canonical id of the class. */
  readonly id: Id;
  /** The e-nodes (equivalent expressions) of the class. */
  readonly nodes: readonly ENode[];
  /** The analysis data of the class (for tensors: shape, dtype, known values). */
  readonly data: D;
  /** The e-nodes that use this class as a child, each with its own class. */
  readonly parents: readonly (readonly [ENode, Id])[];
}

interface MutableEClass<D> {
  id: Id;
  nodes: ENode[];
  data: D;
  parents: [ENode, Id][];
  /**
   * `parents[0 .. parentsClean - 1]` were canonical and distinct at the rebuild numbered `parentsCleanAt`; entries
   * after them were added since. `parentsMoved`: a union appended another class's parents since (they may repeat).
   */
  parentsClean: number;
  parentsCleanAt: number;
  parentsMoved: boolean;
  /**
   * `nodes[0 .. nodesClean - 1]` were canonical at the rebuild numbered `nodesCleanAt` (-1: never checked); nodes
   * after them joined since (a union appends the merged class's nodes).
   */
  nodesClean: number;
  nodesCleanAt: number;
}

/** The analysis used when none is given: every class's data is `undefined`. */
export const noAnalysis: Analysis<undefined> = { make: () => undefined, merge: (a) => a };

/** An e-graph over e-nodes with analysis data `D`; unions are cheap, `rebuild()` restores the invariants. */
export class EGraph<D = undefined> {
  /** The analysis in use. */
  readonly analysis: Analysis<D>;
  private readonly unionFind = new UnionFind();
  private readonly memo = new NodeMemo();
  // the memo names node data by a small number (equal data keys, equal numbers; object data positive, scalars
  // negative, none 0): the data key of a fused node is a long text, and hashing it again in every memo key was
  // much of `add` and `rebuild` (the number is looked up by the key string, whose hash the engine keeps: no
  // weak-map entry per data object). Ops are numbered too.
  private readonly dataIds = new Map<string, number>();
  private readonly scalarIds = new Map<string, number>();
  private readonly opIds = new Map<string, number>();
  /**
   * The class of each canonical id (ids are dense; merged-away ids hold undefined). Classes are listed in id order,
   * which is the order they were made in (a map of the live classes kept that order at a map entry per class).
   */
  private readonly classAt: (MutableEClass<D> | undefined)[] = [];
  private pending: [ENode, Id][] = [];
  private analysisPending: [ENode, Id][] = [];
  /**
   * Per op, the classes holding a node of it, ascending (= `classes()` order: a class is made once, in id order).
   * Kept up to date: `add` appends the new (largest) id; a union only marks its merged class's ops in `byOpStale`,
   * whose lists may then hold merged-away ids until they are next read. Rebuilding it from every node after each
   * change was a full pass over the e-graph per iteration.
   */
  private byOp: Map<string, Id[]> | undefined;
  private readonly byOpStale = new Set<string>();
  private dirty = false;
  private liveClasses = 0;
  private nodeCount = 0;
  private unions = 0;
  private readonly merged: Id[] = [];
  /** Change log: a class id (maybe stale later) and the epoch it was created or changed in, in order. */
  private readonly changeIds: Id[] = [];
  private readonly changeEpochs: number[] = [];
  private epochCounter = 0;
  /** Classes (maybe stale ids) whose nodes may be non-canonical or duplicated: only these are rebuilt. */
  private touched: Id[] = [];
  /**
   * Per rebuild k (counted by `rebuildClasses`): the union count and the number of ids when it ran, and the smallest
   * id merged away between it and the next (Infinity when none). An entry canonical at rebuild k stays canonical
   * while every id merged away since was made after k: those read only nodes added later.
   */
  private readonly cleanUnions: number[] = [];
  private readonly cleanIds: number[] = [];
  private readonly mergedMinAfter: number[] = [];

  /** Makes an empty e-graph; without an analysis, class data is `undefined`. */
  constructor(analysis?: Analysis<D>) {
    // without an analysis D is its default, undefined: a class cannot tie its type parameter to a missing argument
    this.analysis = analysis ?? (noAnalysis as unknown as Analysis<D>);
  }

  /** The canonical id of `id`'s class. */
  find(id: Id): Id {
    return this.unionFind.find(id);
  }

  /** The node with every child replaced by its canonical id. */
  canonicalize(node: ENode): ENode {
    // `mapChildren` with `find` written out: a closure per call (every add, rebuild step and rule application) was
    // garbage; as there, a node whose children are all canonical is returned itself
    const kids = node.children;
    const uf = this.unionFind;
    let i = 0;
    let first = 0;
    for (; i < kids.length; i++) {
      first = uf.find(kids[i]);
      if (first !== kids[i]) break;
    }
    if (i === kids.length) return node;
    const children = kids.slice();
    children[i] = first;
    for (let j = i + 1; j < kids.length; j++) children[j] = uf.find(kids[j]);
    return node.data === undefined ? { op: node.op, children } : { op: node.op, data: node.data, children };
  }

  /** The class of `id` (found through the union-find); throws on an unknown id. */
  eclass(id: Id): EClass<D> {
    const c = this.classAt[this.find(id)];
    if (!c) throw new EGraphStateError(`EGraph.eclass: no class for id ${id}`);
    return c;
  }

  /** All classes (canonical ids only). */
  classes(): EClass<D>[] {
    const out: EClass<D>[] = [];
    for (const c of this.classAt) if (c !== undefined) out.push(c);
    return out;
  }

  /** Number of e-classes. */
  get numClasses(): number {
    return this.liveClasses;
  }

  /** Number of e-nodes stored in classes (before a rebuild this may count some duplicates). */
  get totalNodes(): number {
    return this.nodeCount;
  }

  /** Unions that merged two classes so far: canonical ids seen at one count stay canonical while it holds. */
  get unionCount(): number {
    return this.unions;
  }

  /** The ids merged away, in union order: the i-th union that merged two classes made `mergedIds[i]` non-canonical. */
  get mergedIds(): readonly Id[] {
    return this.merged;
  }

  /** The current epoch: it advances at the end of every `rebuild()`. */
  get epoch(): number {
    return this.epochCounter;
  }

  /**
   * Canonical ids of the classes created, merged into or given new analysis data at or after `epoch` (for
   * incremental searchers: a node whose class and children's classes are all unchanged matches as before).
   */
  changedSince(epoch: number): Id[] {
    const e = this.changeEpochs;
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (e[mid] < epoch) lo = mid + 1;
      else hi = mid;
    }
    const out = new Set<Id>();
    for (let i = lo; i < e.length; i++) out.add(this.find(this.changeIds[i]));
    return [...out];
  }

  private logChange(id: Id): void {
    this.changeIds.push(id);
    this.changeEpochs.push(this.epochCounter);
  }

  /** Number of ids ever made, including those merged away (egg's `total_number_of_nodes`-like size). */
  get totalIds(): number {
    return this.unionFind.size;
  }

  /** True when unions are pending and `rebuild()` is needed before searching. */
  get isDirty(): boolean {
    return this.dirty;
  }

  /** The number of an op (equal ops, equal numbers). */
  private opNum(op: string): number {
    let id = this.opIds.get(op);
    if (id === undefined) this.opIds.set(op, (id = this.opIds.size));
    return id;
  }

  /** The number of node data (see `dataIds`). */
  private dataNum(data: ENode['data']): number {
    if (data === undefined) return 0;
    const k = dataKey(data);
    if (data !== null && typeof data === 'object') {
      let id = this.dataIds.get(k);
      if (id === undefined) this.dataIds.set(k, (id = this.dataIds.size + 1));
      return id;
    }
    let id = this.scalarIds.get(k);
    if (id === undefined) this.scalarIds.set(k, (id = -(this.scalarIds.size + 1)));
    return id;
  }

  /** The memo's id of a node (children as given), or undefined. */
  private memoGet(node: ENode): Id | undefined {
    return this.memo.get(this.opNum(node.op), this.dataNum(node.data), node.children);
  }

  /** Stores a node's (children as given, canonical) class in the memo; returns the id it replaces, if any. */
  private memoSet(node: ENode, id: Id): Id | undefined {
    return this.memo.set(this.opNum(node.op), this.dataNum(node.data), node.children, id);
  }

  /** The class id of an existing node with these (possibly stale) children, or undefined. */
  lookup(node: ENode): Id | undefined {
    const id = this.memoGet(this.canonicalize(node));
    return id === undefined ? undefined : this.find(id);
  }

  /** Adds a node (hash-consed: an existing equal node returns its class) and returns its canonical class id. */
  add(node: ENode): Id {
    const size = this.unionFind.size;
    for (let i = 0; i < node.children.length; i++) {
      const c = node.children[i];
      if (!(c >= 0 && c < size)) throw new EGraphStateError(`EGraph.add: node ${node.op} has unknown child id ${c}`);
    }
    const canon = this.canonicalize(node);
    const op = this.opNum(canon.op);
    const dataNum = this.dataNum(canon.data);
    const hash = nodeHash(op, dataNum, canon.children);
    const known = this.memo.get(op, dataNum, canon.children, hash);
    if (known !== undefined) return this.find(known);
    const data = this.analysis.make(this, canon); // before any change, so a throwing `make` leaves no trace
    const id = this.unionFind.makeSet();
    const cls: MutableEClass<D> = { id, nodes: [canon], data, parents: [], parentsClean: 0, parentsCleanAt: -1, parentsMoved: false, nodesClean: 0, nodesCleanAt: -1 };
    this.memo.set(op, dataNum, canon.children, id, hash);
    this.liveClasses++;
    this.classAt[id] = cls;
    this.nodeCount++;
    this.logChange(id);
    // one parent entry shared by every child's list (a pair per child was most of `add`'s garbage: ~6 children a
    // node). Holders read its class through `find`; a rebuild may make that id canonical in place, for all of them
    const kids = canon.children;
    const entry: [ENode, Id] = [canon, id];
    for (let i = 0; i < kids.length; i++) this.classAt[kids[i]]?.parents.push(entry);
    if (this.byOp) {
      const list = this.byOp.get(canon.op);
      if (list) list.push(id);
      else this.byOp.set(canon.op, [id]);
    }
    this.analysis.modify?.(this, id);
    return this.find(id);
  }

  /** Adds every node of a RecExpr and returns the class of its root (the last entry). */
  addExpr(expr: RecExpr): Id {
    if (expr.length === 0) throw new EGraphStateError('EGraph.addExpr: empty expression');
    const ids: Id[] = [];
    for (const [i, node] of expr.entries()) {
      const children = node.children.map((c) => {
        if (c >= i) throw new EGraphStateError(`EGraph.addExpr: node ${i} (${node.op}) refers forward to ${c}`);
        return ids[c];
      });
      ids.push(this.add(node.data === undefined ? { op: node.op, children } : { op: node.op, data: node.data, children }));
    }
    return this.find(ids[ids.length - 1]);
  }

  /** Adds a tree term and returns the class of its root. */
  addTerm(t: Term): Id {
    const children = t.children.map((c) => this.addTerm(c));
    return this.add(t.data === undefined ? { op: t.op, children } : { op: t.op, data: t.data, children });
  }

  /**
   * Merges two classes; returns true when they were different. Congruence is restored later by `rebuild()`.
   * If the analysis's `merge` throws, the e-graph is left unchanged.
   */
  union(a: Id, b: Id): boolean {
    let id1 = this.find(a);
    let id2 = this.find(b);
    if (id1 === id2) return false;
    let c1 = this.classAt[id1] as MutableEClass<D>;
    let c2 = this.classAt[id2] as MutableEClass<D>;
    // Keep the class with more parents as the root, so fewer parents move.
    if (c1.parents.length < c2.parents.length) {
      [id1, id2] = [id2, id1];
      [c1, c2] = [c2, c1];
    }
    const merged = this.analysis.merge(c1.data, c2.data); // may throw: nothing changed yet
    this.unionFind.union(id1, id2);
    this.unions++;
    this.merged.push(id2);
    this.liveClasses--;
    this.classAt[id2] = undefined;
    this.dirty = true;
    if (this.byOp) for (const n of c2.nodes) this.byOpStale.add(n.op);
    for (const p of c2.parents) this.pending.push(p);
    const c1Changed = merged !== c1.data;
    const c2Changed = merged !== c2.data;
    if (c1Changed) for (const p of c1.parents) this.analysisPending.push(p);
    if (c2Changed) for (const p of c2.parents) this.analysisPending.push(p);
    c1.data = merged;
    this.touched.push(id1);
    this.logChange(id1);
    for (const n of c2.nodes) c1.nodes.push(n);
    if (c2.parents.length > 0) c1.parentsMoved = true;
    for (const p of c2.parents) c1.parents.push(p);
    this.analysis.modify?.(this, id1);
    return true;
  }

  /**
   * Restores the invariants after unions (egg's deferred rebuild): re-canonicalises parents of merged classes,
   * unions nodes that became congruent, repairs analysis data upward, then dedups every class's nodes.
   * Returns the number of unions that congruence caused.
   */
  rebuild(): number {
    let unions = 0;
    while (this.pending.length > 0 || this.analysisPending.length > 0) {
      while (this.pending.length > 0) {
        const [node, cls] = this.pending.pop() as [ENode, Id];
        this.touched.push(cls);
        const old = this.memoSet(this.canonicalize(node), cls);
        if (old !== undefined && this.union(old, cls)) unions++;
      }
      while (this.analysisPending.length > 0) {
        const [node, cls] = this.analysisPending.pop() as [ENode, Id];
        const id = this.find(cls);
        const c = this.classAt[id] as MutableEClass<D>;
        const made = this.analysis.make(this, this.canonicalize(node));
        const merged = this.analysis.merge(c.data, made);
        if (merged !== c.data) {
          c.data = merged;
          this.logChange(id);
          for (const p of c.parents) this.analysisPending.push(p);
          this.analysis.modify?.(this, id);
        }
      }
    }
    this.rebuildClasses();
    this.dirty = false;
    this.epochCounter++;
    return unions;
  }

  /**
   * Re-canonicalises and dedups the nodes and parents of the classes touched since the last rebuild (merged
   * roots and the classes of their parents); every other class is already canonical, so it is skipped.
   */
  private rebuildClasses(): void {
    const k = this.closeRebuild();
    // per earlier rebuild j: whether an id made by then was merged away since (its clean parents may be stale)
    const staleSince: boolean[] = new Array(k);
    for (let j = k - 1, min = Number.POSITIVE_INFINITY; j >= 0; j--) {
      min = Math.min(min, this.mergedMinAfter[j]);
      staleSince[j] = min < this.cleanIds[j];
    }
    const done = new Set<Id>();
    for (const t of this.touched) {
      const id = this.find(t);
      if (done.has(id)) continue;
      done.add(id);
      const c = this.classAt[id] as MutableEClass<D>;
      // nodes canonical at an earlier rebuild stay so unless an id made by then was merged away since (as for
      // parents below): only the others are checked (a class of fused variants holds hundreds, touched each
      // iteration as it gains one)
      const from = c.nodesCleanAt >= 0 && !staleSince[c.nodesCleanAt] ? c.nodesClean : 0;
      let stale = false;
      for (let i = from; i < c.nodes.length && !stale; i++) stale = !this.isCanonical(c.nodes[i]);
      if (stale) this.dedupNodes(c);
      c.nodesClean = c.nodes.length;
      c.nodesCleanAt = k;
      // else every node is canonical as stored: hash-consing made each key once, so no two are equal (a class
      // that only gained a new node is the common case; its memo entries may name a merged-away id, read via find)
      // parents dedup by node object and class: building a content key per parent entry (long for fused
      // nodes) dominated rebuilds; a rare content-duplicate only costs one more repair visit
      // (a node almost always has one parent class: a small array per node, not a set). Entries still clean stay
      // as they are: those `add` appended since are new node objects, so none repeats one of them (the common
      // case, a class gaining consumers, no longer re-canonicalises every parent each iteration).
      const keep = c.parentsMoved || c.parentsCleanAt < 0 || staleSince[c.parentsCleanAt] ? 0 : c.parentsClean;
      if (keep < c.parents.length) {
        // the classes seen per parent node: one id, an array only for a node met in several (rare)
        const seenParents = new Map<ENode, Id | Id[]>();
        const parents: [ENode, Id][] = keep > 0 ? c.parents.slice(0, keep) : [];
        for (let i = keep; i < c.parents.length; i++) {
          const entry = c.parents[i];
          const n = entry[0];
          const canon = this.canonicalize(n);
          const cls = this.find(entry[1]);
          const ids = seenParents.get(canon);
          if (ids === undefined) seenParents.set(canon, cls);
          else if (typeof ids === 'number') {
            if (ids === cls) continue;
            seenParents.set(canon, [ids, cls]);
          } else if (ids.includes(cls)) continue;
          else ids.push(cls);
          // an entry whose node is canonical keeps its pair, its class id made canonical in place (an entry
          // `add` made names the new node's class, which the rule's union then merged away: a new pair per
          // parent entry and rebuild was garbage that survived into the old space). Other holders of the pair read
          // its id through `find`, as every parent entry's.
          if (canon === n) {
            entry[1] = cls;
            parents.push(entry);
          } else parents.push([canon, cls]);
        }
        c.parents = parents;
      }
      c.parentsClean = c.parents.length;
      c.parentsCleanAt = k;
      c.parentsMoved = false;
    }
    this.touched = [];
  }

  /** Numbers this rebuild (returned) and records what `rebuildClasses` needs to tell clean parent entries. */
  private closeRebuild(): number {
    const k = this.cleanUnions.length;
    if (k > 0) {
      let min = Number.POSITIVE_INFINITY;
      for (let i = this.cleanUnions[k - 1]; i < this.unions; i++) min = Math.min(min, this.merged[i]);
      this.mergedMinAfter[k - 1] = min;
    }
    this.cleanUnions.push(this.unions);
    this.cleanIds.push(this.unionFind.size);
    this.mergedMinAfter.push(Number.POSITIVE_INFINITY);
    return k;
  }

  /** Whether every child of a node is a canonical id. */
  private isCanonical(n: ENode): boolean {
    const kids = n.children;
    for (let i = 0; i < kids.length; i++) if (this.unionFind.find(kids[i]) !== kids[i]) return false;
    return true;
  }

  /** Re-canonicalises a class's nodes and drops duplicates (nodes that became congruent), refreshing the memo. */
  private dedupNodes(c: MutableEClass<D>): void {
    // by numbers and hash (a few nodes per hash): no text key per node
    const seen = new Map<number, ENode[]>();
    const nodes: ENode[] = [];
    for (const n of c.nodes) {
      const canon = this.canonicalize(n);
      const op = this.opNum(canon.op);
      const data = this.dataNum(canon.data);
      const hash = nodeHash(op, data, canon.children);
      const same = seen.get(hash);
      if (same?.some((m) => m.op === canon.op && this.dataNum(m.data) === data && sameKids(m.children, canon.children))) continue;
      if (same) same.push(canon);
      else seen.set(hash, [canon]);
      nodes.push(canon);
      this.memo.set(op, data, canon.children, c.id, hash);
    }
    this.nodeCount += nodes.length - c.nodes.length;
    c.nodes = nodes;
  }

  /** Canonical ids of the classes holding at least one node with this op, ascending (a shared list: do not modify). */
  classesWithOp(op: string): readonly Id[] {
    if (!this.byOp) {
      const index = new Map<string, Id[]>();
      for (const c of this.classAt) {
        if (c === undefined) continue;
        for (const n of c.nodes) {
          const list = index.get(n.op);
          if (!list) index.set(n.op, [c.id]);
          else if (list[list.length - 1] !== c.id) list.push(c.id); // classes are visited one at a time
        }
      }
      this.byOp = index;
      this.byOpStale.clear();
    }
    const list = this.byOp.get(op);
    if (!list) return [];
    if (this.byOpStale.delete(op)) {
      // merged-away ids read as their classes, in id order, each once (a union keeps the root's place)
      for (let i = 0; i < list.length; i++) list[i] = this.find(list[i]);
      list.sort((a, b) => a - b);
      let k = 0;
      for (let i = 0; i < list.length; i++) if (k === 0 || list[i] !== list[k - 1]) list[k++] = list[i];
      list.length = k;
    }
    return list;
  }

  /**
   * Throws an Error describing the first broken invariant (call after `rebuild()`): non-canonical or duplicate
   * nodes, a memo entry pointing at the wrong class, or two congruent nodes in different classes. For tests.
   */
  checkInvariants(): void {
    if (this.dirty) throw new EGraphStateError('EGraph.checkInvariants: rebuild() has not run since the last union');
    const owner = new Map<string, Id>();
    for (const c of this.classAt) {
      if (c === undefined) continue;
      if (this.find(c.id) !== c.id) throw new EGraphStateError(`class ${c.id} is stored under a non-canonical id`);
      for (const n of c.nodes) {
        const canon = this.canonicalize(n);
        const key = nodeKey(canon);
        if (key !== nodeKey(n)) throw new EGraphStateError(`class ${c.id} holds non-canonical node ${key}`);
        const other = owner.get(key);
        if (other !== undefined) throw new EGraphStateError(`congruent node ${key} sits in classes ${other} and ${c.id}`);
        owner.set(key, c.id);
        const memoId = this.memoGet(canon);
        if (memoId === undefined || this.find(memoId) !== c.id) {
          throw new EGraphStateError(`memo maps ${key} to ${memoId} instead of class ${c.id}`);
        }
      }
    }
  }

  /** A readable listing of every class and its nodes, for debugging. */
  dump(): string {
    const lines: string[] = [];
    for (const c of this.classAt) {
      if (c === undefined) continue;
      const nodes = c.nodes.map((n) => {
        const head = formatOp(n, defaultLanguage);
        return n.children.length ? `(${head} ${n.children.map((ch) => `e${ch}`).join(' ')})` : head;
      });
      lines.push(`e${c.id}: ${nodes.join(' | ')}`);
    }
    return lines.join('\n');
  }
}

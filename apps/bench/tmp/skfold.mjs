import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// apps/bench/tmp/x/skfold.tmp.ts
import { writeFileSync } from "node:fs";

// packages/egraph/src/core/language.ts
function isDataList(data2) {
  return Array.isArray(data2);
}
function isDataRecord(data2) {
  return data2 !== null && typeof data2 === "object" && !Array.isArray(data2);
}
var defaultLanguage = {};
var dataKeys = /* @__PURE__ */ new WeakMap();
function dataKey(data2) {
  if (data2 === null || typeof data2 !== "object") return scalarKey(data2);
  const hit = dataKeys.get(data2);
  if (hit !== void 0) return hit;
  const key = objectKey(data2);
  dataKeys.set(data2, key);
  return key;
}
function scalarKey(data2) {
  if (data2 === void 0) return "";
  if (typeof data2 === "number") return Object.is(data2, -0) ? "-0" : String(data2);
  if (typeof data2 === "string") return data2.length <= 32 ? quoted(data2) : JSON.stringify(data2);
  return JSON.stringify(data2);
}
function objectKey(data2) {
  if (isDataList(data2)) {
    let s2 = "[";
    for (let i = 0; i < data2.length; i++) s2 += (i > 0 ? "," : "") + nestedKey(data2[i]);
    return `${s2}]`;
  }
  const live = Object.keys(data2);
  let n2 = 0;
  for (let i = 0; i < live.length; i++) {
    const k = live[i];
    if (data2[k] === void 0) continue;
    let j = n2++;
    for (; j > 0 && live[j - 1] > k; j--) live[j] = live[j - 1];
    live[j] = k;
  }
  live.length = n2;
  let s = "{";
  for (let i = 0; i < live.length; i++) s += `${i > 0 ? "," : ""}${quoted(live[i])}:${nestedKey(data2[live[i]])}`;
  return `${s}}`;
}
function nestedKey(data2) {
  if (data2 === null || typeof data2 !== "object") return scalarKey(data2);
  return dataKeys.get(data2) ?? objectKey(data2);
}
var quotedNames = /* @__PURE__ */ new Map();
var MAX_QUOTED = 4096;
function quoted(name) {
  let q = quotedNames.get(name);
  if (q === void 0) {
    q = JSON.stringify(name);
    if (quotedNames.size < MAX_QUOTED) quotedNames.set(name, q);
  }
  return q;
}
function declareDataKey(data2, key) {
  dataKeys.set(data2, key);
}
function nodeKey(node) {
  return `${node.op}${dataKey(node.data)}${node.children.join(",")}`;
}
function mapChildren(node, f) {
  const kids = node.children;
  let i = 0;
  let first = 0;
  for (; i < kids.length; i++) {
    first = f(kids[i]);
    if (first !== kids[i]) break;
  }
  if (i === kids.length) return node;
  const children = kids.slice();
  children[i] = first;
  for (let j = i + 1; j < kids.length; j++) children[j] = f(kids[j]);
  return node.data === void 0 ? { op: node.op, children } : { op: node.op, data: node.data, children };
}
function dataEquals(a, b) {
  if (a === b) return true;
  return dataKey(a) === dataKey(b);
}
function dataMatches(pattern, node) {
  if (pattern === void 0) return true;
  if (pattern !== null && typeof pattern === "object" && !Array.isArray(pattern)) {
    if (node === null || node === void 0 || typeof node !== "object" || Array.isArray(node)) return false;
    const p = pattern;
    const n2 = node;
    for (const k of Object.keys(p)) {
      if (p[k] === void 0) continue;
      if (!dataEquals(p[k], n2[k])) return false;
    }
    return true;
  }
  return dataEquals(pattern, node);
}

// packages/egraph/src/core/unionFind.ts
var UnionFind = class {
  parents = [];
  /** Number of ids ever made. */
  get size() {
    return this.parents.length;
  }
  /** Makes a new singleton set and returns its id. */
  makeSet() {
    const id = this.parents.length;
    this.parents.push(id);
    return id;
  }
  /** The representative of `id`'s set, compressing the path on the way. */
  find(id) {
    const p = this.parents;
    if (id < 0 || id >= p.length) throw new RangeError(`UnionFind.find: unknown id ${id} (size ${p.length})`);
    let x = id;
    while (p[x] !== x) {
      p[x] = p[p[x]];
      x = p[x];
    }
    return x;
  }
  /** Joins two roots (both must be roots), keeping `root1`; returns the new root. */
  union(root1, root2) {
    this.parents[root2] = root1;
    return root1;
  }
};

// packages/egraph/src/core/errors.ts
var EGraphError = class extends Error {
  name = "EGraphError";
};
var ParseError = class extends EGraphError {
  name = "ParseError";
};
var RuleError = class extends EGraphError {
  name = "RuleError";
};
var EGraphStateError = class extends EGraphError {
  name = "EGraphStateError";
};
var ExtractionError = class extends EGraphError {
  name = "ExtractionError";
};

// packages/egraph/src/core/sexpr.ts
function parseSExp(source) {
  let i = 0;
  const fail3 = (msg, at) => {
    throw new ParseError(`s-expression ${JSON.stringify(source)}: ${msg} at offset ${at}`);
  };
  const skip = () => {
    while (i < source.length && /\s/.test(source[i])) i++;
  };
  const atom = () => {
    const start = i;
    let depth = 0;
    let quote = false;
    while (i < source.length) {
      const c = source[i];
      if (quote) {
        if (c === "\\") i++;
        else if (c === '"') quote = false;
      } else if (c === '"' && depth > 0) quote = true;
      else if (c === "[") depth++;
      else if (c === "]") {
        depth--;
        if (depth < 0) fail3("unbalanced ']'", i);
      } else if (depth === 0 && (c === "(" || c === ")" || /\s/.test(c))) break;
      i++;
    }
    if (depth !== 0 || quote) fail3("unclosed '['", start);
    return { kind: "atom", text: source.slice(start, i), pos: start };
  };
  const expr = () => {
    skip();
    if (i >= source.length) fail3("unexpected end of input", i);
    const c = source[i];
    if (c === ")") fail3("unexpected ')'", i);
    if (c !== "(") return atom();
    const pos = i++;
    const items = [];
    for (; ; ) {
      skip();
      if (i >= source.length) fail3("unclosed '('", pos);
      if (source[i] === ")") {
        i++;
        break;
      }
      items.push(expr());
    }
    if (items.length === 0) fail3("empty list", pos);
    if (items[0].kind !== "atom") fail3("a list must start with an operator", pos);
    return { kind: "list", items, pos };
  };
  const result = expr();
  skip();
  if (i < source.length) fail3("trailing input", i);
  return result;
}
function splitTopLevel(text, sep) {
  const parts = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === '"') quote = false;
    } else if (c === '"') quote = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
function parseValue(text) {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}
function parseOp(token, language, isLeaf3) {
  const open = token.indexOf("[");
  if (open > 0 && token.endsWith("]")) {
    const op = token.slice(0, open);
    const inner = token.slice(open + 1, -1).trim();
    if (inner === "") return { op, data: {} };
    const items = splitTopLevel(inner, ",");
    const hasKeys = items.every((item) => splitTopLevel(item, "=").length === 2);
    if (!hasKeys) {
      if (items.length !== 1) throw new ParseError(`attributes of ${JSON.stringify(token)}: write key=value pairs`);
      return { op, data: parseValue(inner) };
    }
    const data2 = {};
    for (const item of items) {
      const [k, v] = splitTopLevel(item, "=");
      data2[k.trim()] = parseValue(v);
    }
    return { op, data: data2 };
  }
  if (isLeaf3 && language.parseLeaf) return language.parseLeaf(token);
  return { op: token };
}
function formatOp(node, language) {
  if (node.children.length === 0 && language.formatLeaf) {
    const s = language.formatLeaf(node);
    if (s !== void 0) return s;
  }
  const data2 = node.data;
  if (data2 === void 0) return node.op;
  if (isDataRecord(data2)) {
    const keys = Object.keys(data2).filter((k) => data2[k] !== void 0).sort();
    return `${node.op}[${keys.map((k) => `${k}=${JSON.stringify(data2[k])}`).join(",")}]`;
  }
  return `${node.op}[${JSON.stringify(data2)}]`;
}

// packages/egraph/src/core/recExpr.ts
function term(op, children = [], data2) {
  return data2 === void 0 ? { op, children } : { op, data: data2, children };
}
function parseTerm(source, language = defaultLanguage) {
  const go = (s) => {
    if (s.kind === "atom") {
      if (s.text.startsWith("?")) throw new ParseError(`expression ${JSON.stringify(source)}: variable ${s.text} is not allowed`);
      const { op: op2, data: data3 } = parseOp(s.text, language, true);
      return term(op2, [], data3);
    }
    const head = s.items[0];
    const { op, data: data2 } = parseOp(head.text, language, false);
    return term(op, s.items.slice(1).map(go), data2);
  };
  return go(parseSExp(source));
}
function termToRecExpr(t) {
  const nodes = [];
  const seen = /* @__PURE__ */ new Map();
  const go = (x) => {
    const children = x.children.map(go);
    const node = x.data === void 0 ? { op: x.op, children } : { op: x.op, data: x.data, children };
    const key = nodeKey(node);
    const known = seen.get(key);
    if (known !== void 0) return known;
    nodes.push(node);
    seen.set(key, nodes.length - 1);
    return nodes.length - 1;
  };
  go(t);
  return nodes;
}
function parseRecExpr(source, language = defaultLanguage) {
  return termToRecExpr(parseTerm(source, language));
}

// packages/egraph/src/core/eGraph.ts
var noAnalysis = { make: () => void 0, merge: (a) => a };
var EGraph = class {
  /** The analysis in use. */
  analysis;
  unionFind = new UnionFind();
  memo = /* @__PURE__ */ new Map();
  // the memo's keys name node data by a small number (equal data keys, equal numbers): the data key of a fused
  // node is a long text, and hashing it again in every memo key was much of `add` and `rebuild`
  dataIds = /* @__PURE__ */ new Map();
  dataIdOf = /* @__PURE__ */ new WeakMap();
  classMap = /* @__PURE__ */ new Map();
  /** The class of each canonical id (ids are dense): `classMap` keeps the iteration order, this the lookups. */
  classAt = [];
  pending = [];
  analysisPending = [];
  /**
   * Per op, the classes holding a node of it, ascending (= `classMap` order: a class is inserted once, when made).
   * Kept up to date: `add` appends the new (largest) id; a union only marks its merged class's ops in `byOpStale`,
   * whose lists may then hold merged-away ids until they are next read. Rebuilding it from every node after each
   * change was a full pass over the e-graph per iteration.
   */
  byOp;
  byOpStale = /* @__PURE__ */ new Set();
  dirty = false;
  nodeCount = 0;
  unions = 0;
  merged = [];
  /** Change log: a class id (maybe stale later) and the epoch it was created or changed in, in order. */
  changeIds = [];
  changeEpochs = [];
  epochCounter = 0;
  /** Classes (maybe stale ids) whose nodes may be non-canonical or duplicated: only these are rebuilt. */
  touched = [];
  /**
   * Per rebuild k (counted by `rebuildClasses`): the union count and the number of ids when it ran, and the smallest
   * id merged away between it and the next (Infinity when none). An entry canonical at rebuild k stays canonical
   * while every id merged away since was made after k: those read only nodes added later.
   */
  cleanUnions = [];
  cleanIds = [];
  mergedMinAfter = [];
  /** Makes an empty e-graph; without an analysis, class data is `undefined`. */
  constructor(analysis) {
    this.analysis = analysis ?? noAnalysis;
  }
  /** The canonical id of `id`'s class. */
  find(id) {
    return this.unionFind.find(id);
  }
  /** The node with every child replaced by its canonical id. */
  canonicalize(node) {
    return mapChildren(node, (c) => this.unionFind.find(c));
  }
  /** The class of `id` (found through the union-find); throws on an unknown id. */
  eclass(id) {
    const c = this.classAt[this.find(id)];
    if (!c) throw new EGraphStateError(`EGraph.eclass: no class for id ${id}`);
    return c;
  }
  /** All classes (canonical ids only). */
  classes() {
    return [...this.classMap.values()];
  }
  /** Number of e-classes. */
  get numClasses() {
    return this.classMap.size;
  }
  /** Number of e-nodes stored in classes (before a rebuild this may count some duplicates). */
  get totalNodes() {
    return this.nodeCount;
  }
  /** Unions that merged two classes so far: canonical ids seen at one count stay canonical while it holds. */
  get unionCount() {
    return this.unions;
  }
  /** The ids merged away, in union order: the i-th union that merged two classes made `mergedIds[i]` non-canonical. */
  get mergedIds() {
    return this.merged;
  }
  /** The current epoch: it advances at the end of every `rebuild()`. */
  get epoch() {
    return this.epochCounter;
  }
  /**
   * Canonical ids of the classes created, merged into or given new analysis data at or after `epoch` (for
   * incremental searchers: a node whose class and children's classes are all unchanged matches as before).
   */
  changedSince(epoch) {
    const e = this.changeEpochs;
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = lo + hi >>> 1;
      if (e[mid] < epoch) lo = mid + 1;
      else hi = mid;
    }
    const out2 = /* @__PURE__ */ new Set();
    for (let i = lo; i < e.length; i++) out2.add(this.find(this.changeIds[i]));
    return [...out2];
  }
  logChange(id) {
    this.changeIds.push(id);
    this.changeEpochs.push(this.epochCounter);
  }
  /** Number of ids ever made, including those merged away (egg's `total_number_of_nodes`-like size). */
  get totalIds() {
    return this.unionFind.size;
  }
  /** True when unions are pending and `rebuild()` is needed before searching. */
  get isDirty() {
    return this.dirty;
  }
  /** The memo key of a node: op, the number of its data, children (as given). */
  key(node) {
    const data2 = node.data;
    let d;
    if (data2 !== null && typeof data2 === "object") {
      let id = this.dataIdOf.get(data2);
      if (id === void 0) {
        const k = dataKey(data2);
        id = this.dataIds.get(k);
        if (id === void 0) this.dataIds.set(k, id = this.dataIds.size);
        this.dataIdOf.set(data2, id);
      }
      d = id;
    } else d = data2 === void 0 ? "" : `=${dataKey(data2)}`;
    return `${node.op}${d}${node.children.join(",")}`;
  }
  /** The class id of an existing node with these (possibly stale) children, or undefined. */
  lookup(node) {
    const id = this.memo.get(this.key(this.canonicalize(node)));
    return id === void 0 ? void 0 : this.find(id);
  }
  /** Adds a node (hash-consed: an existing equal node returns its class) and returns its canonical class id. */
  add(node) {
    for (const c of node.children) {
      if (!(c >= 0 && c < this.unionFind.size)) throw new EGraphStateError(`EGraph.add: node ${node.op} has unknown child id ${c}`);
    }
    const canon = this.canonicalize(node);
    const key = this.key(canon);
    const known = this.memo.get(key);
    if (known !== void 0) return this.find(known);
    const data2 = this.analysis.make(this, canon);
    const id = this.unionFind.makeSet();
    const cls = { id, nodes: [canon], data: data2, parents: [], parentsClean: 0, parentsCleanAt: -1, parentsMoved: false };
    this.memo.set(key, id);
    this.classMap.set(id, cls);
    this.classAt[id] = cls;
    this.nodeCount++;
    this.logChange(id);
    for (const c of canon.children) this.classAt[c]?.parents.push([canon, id]);
    if (this.byOp) {
      const list = this.byOp.get(canon.op);
      if (list) list.push(id);
      else this.byOp.set(canon.op, [id]);
    }
    this.analysis.modify?.(this, id);
    return this.find(id);
  }
  /** Adds every node of a RecExpr and returns the class of its root (the last entry). */
  addExpr(expr) {
    if (expr.length === 0) throw new EGraphStateError("EGraph.addExpr: empty expression");
    const ids2 = [];
    for (const [i, node] of expr.entries()) {
      const children = node.children.map((c) => {
        if (c >= i) throw new EGraphStateError(`EGraph.addExpr: node ${i} (${node.op}) refers forward to ${c}`);
        return ids2[c];
      });
      ids2.push(this.add(node.data === void 0 ? { op: node.op, children } : { op: node.op, data: node.data, children }));
    }
    return this.find(ids2[ids2.length - 1]);
  }
  /** Adds a tree term and returns the class of its root. */
  addTerm(t) {
    const children = t.children.map((c) => this.addTerm(c));
    return this.add(t.data === void 0 ? { op: t.op, children } : { op: t.op, data: t.data, children });
  }
  /**
   * Merges two classes; returns true when they were different. Congruence is restored later by `rebuild()`.
   * If the analysis's `merge` throws, the e-graph is left unchanged.
   */
  union(a, b) {
    let id1 = this.find(a);
    let id2 = this.find(b);
    if (id1 === id2) return false;
    let c1 = this.classAt[id1];
    let c2 = this.classAt[id2];
    if (c1.parents.length < c2.parents.length) {
      [id1, id2] = [id2, id1];
      [c1, c2] = [c2, c1];
    }
    const merged = this.analysis.merge(c1.data, c2.data);
    this.unionFind.union(id1, id2);
    this.unions++;
    this.merged.push(id2);
    this.classMap.delete(id2);
    this.classAt[id2] = void 0;
    this.dirty = true;
    if (this.byOp) for (const n2 of c2.nodes) this.byOpStale.add(n2.op);
    for (const p of c2.parents) this.pending.push(p);
    const c1Changed = merged !== c1.data;
    const c2Changed = merged !== c2.data;
    if (c1Changed) for (const p of c1.parents) this.analysisPending.push(p);
    if (c2Changed) for (const p of c2.parents) this.analysisPending.push(p);
    c1.data = merged;
    this.touched.push(id1);
    this.logChange(id1);
    for (const n2 of c2.nodes) c1.nodes.push(n2);
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
  rebuild() {
    let unions = 0;
    while (this.pending.length > 0 || this.analysisPending.length > 0) {
      while (this.pending.length > 0) {
        const [node, cls] = this.pending.pop();
        this.touched.push(cls);
        const canon = this.canonicalize(node);
        const key = this.key(canon);
        const old = this.memo.get(key);
        this.memo.set(key, cls);
        if (old !== void 0 && this.union(old, cls)) unions++;
      }
      while (this.analysisPending.length > 0) {
        const [node, cls] = this.analysisPending.pop();
        const id = this.find(cls);
        const c = this.classAt[id];
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
  rebuildClasses() {
    const k = this.closeRebuild();
    const staleSince = new Array(k);
    for (let j = k - 1, min = Number.POSITIVE_INFINITY; j >= 0; j--) {
      min = Math.min(min, this.mergedMinAfter[j]);
      staleSince[j] = min < this.cleanIds[j];
    }
    const done = /* @__PURE__ */ new Set();
    for (const t of this.touched) {
      const id = this.find(t);
      if (done.has(id)) continue;
      done.add(id);
      const c = this.classAt[id];
      if (c.nodes.some((n2) => this.canonicalize(n2) !== n2)) this.dedupNodes(c);
      const keep = c.parentsMoved || c.parentsCleanAt < 0 || staleSince[c.parentsCleanAt] ? 0 : c.parentsClean;
      if (keep < c.parents.length) {
        const seenParents = /* @__PURE__ */ new Map();
        const parents = keep > 0 ? c.parents.slice(0, keep) : [];
        for (let i = keep; i < c.parents.length; i++) {
          const [n2, p] = c.parents[i];
          const canon = this.canonicalize(n2);
          const cls = this.find(p);
          const ids2 = seenParents.get(canon);
          if (!ids2) seenParents.set(canon, [cls]);
          else if (ids2.includes(cls)) continue;
          else ids2.push(cls);
          parents.push([canon, cls]);
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
  closeRebuild() {
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
  /** Re-canonicalises a class's nodes and drops duplicates (nodes that became congruent), refreshing the memo. */
  dedupNodes(c) {
    const seen = /* @__PURE__ */ new Set();
    const nodes = [];
    for (const n2 of c.nodes) {
      const canon = this.canonicalize(n2);
      const key = this.key(canon);
      if (seen.has(key)) continue;
      seen.add(key);
      nodes.push(canon);
      this.memo.set(key, c.id);
    }
    this.nodeCount += nodes.length - c.nodes.length;
    c.nodes = nodes;
  }
  /** Canonical ids of the classes holding at least one node with this op, ascending (a shared list: do not modify). */
  classesWithOp(op) {
    if (!this.byOp) {
      const index = /* @__PURE__ */ new Map();
      for (const c of this.classMap.values()) {
        for (const n2 of c.nodes) {
          const list2 = index.get(n2.op);
          if (!list2) index.set(n2.op, [c.id]);
          else if (list2[list2.length - 1] !== c.id) list2.push(c.id);
        }
      }
      this.byOp = index;
      this.byOpStale.clear();
    }
    const list = this.byOp.get(op);
    if (!list) return [];
    if (this.byOpStale.delete(op)) {
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
  checkInvariants() {
    if (this.dirty) throw new EGraphStateError("EGraph.checkInvariants: rebuild() has not run since the last union");
    const owner = /* @__PURE__ */ new Map();
    for (const c of this.classMap.values()) {
      if (this.find(c.id) !== c.id) throw new EGraphStateError(`class ${c.id} is stored under a non-canonical id`);
      for (const n2 of c.nodes) {
        const canon = this.canonicalize(n2);
        const key = this.key(canon);
        if (key !== this.key(n2)) throw new EGraphStateError(`class ${c.id} holds non-canonical node ${key}`);
        const other = owner.get(key);
        if (other !== void 0) throw new EGraphStateError(`congruent node ${key} sits in classes ${other} and ${c.id}`);
        owner.set(key, c.id);
        const memoId = this.memo.get(key);
        if (memoId === void 0 || this.find(memoId) !== c.id) {
          throw new EGraphStateError(`memo maps ${key} to ${memoId} instead of class ${c.id}`);
        }
      }
    }
  }
  /** A readable listing of every class and its nodes, for debugging. */
  dump() {
    const lines = [];
    for (const c of this.classMap.values()) {
      const nodes = c.nodes.map((n2) => {
        const head = formatOp(n2, defaultLanguage);
        return n2.children.length ? `(${head} ${n2.children.map((ch) => `e${ch}`).join(" ")})` : head;
      });
      lines.push(`e${c.id}: ${nodes.join(" | ")}`);
    }
    return lines.join("\n");
  }
};

// packages/egraph/src/core/subst.ts
function varName(name) {
  return name.startsWith("?") ? name : `?${name}`;
}
var Subst = class _Subst {
  names;
  ids;
  /** Makes a substitution from `[name, id]` pairs. */
  constructor(entries = []) {
    const names = [];
    const ids2 = [];
    for (const [k, v] of entries) {
      const name = varName(k);
      const i = names.indexOf(name);
      if (i >= 0) ids2[i] = v;
      else {
        names.push(name);
        ids2.push(v);
      }
    }
    this.names = names;
    this.ids = ids2;
  }
  /** Makes a substitution from shared, already `?`-prefixed names and their ids (no copying). */
  static fromArrays(names, ids2) {
    const s = new _Subst();
    s.names = names;
    s.ids = ids2;
    return s;
  }
  /** The id bound to `name`; throws an Error naming the variable when it is unbound. */
  get(name) {
    const id = this.tryGet(name);
    if (id === void 0) throw new RuleError(`Subst: variable ${varName(name)} is not bound (bound: ${this.names.join(" ") || "none"})`);
    return id;
  }
  /** The id bound to `name`, or undefined. */
  tryGet(name) {
    let i = this.names.indexOf(name);
    if (i < 0 && !name.startsWith("?")) i = this.names.indexOf(`?${name}`);
    return i < 0 ? void 0 : this.ids[i];
  }
  /** True when `name` is bound. */
  has(name) {
    return this.tryGet(name) !== void 0;
  }
  /** Returns a copy with `name` bound to `id`. */
  with(name, id) {
    return new _Subst([...this.entries(), [name, id]]);
  }
  /** Bound variable names, in binding order. */
  vars() {
    return [...this.names];
  }
  /** `[name, id]` pairs, in binding order. */
  entries() {
    return this.names.map((n2, i) => [n2, this.ids[i]]);
  }
  /** `{?a: 3, ?b: 5}`-style text for messages. */
  toString() {
    return `{${this.names.map((n2, i) => `${n2}: ${this.ids[i]}`).join(", ")}}`;
  }
};

// packages/egraph/src/core/pattern.ts
function pvar(name) {
  return { kind: "var", name: varName(name) };
}
function pnode(op, children = [], data2) {
  return data2 === void 0 ? { kind: "node", op, children } : { kind: "node", op, data: data2, children };
}
function matchInto(egraph, p, cls, bindings) {
  if (p.kind === "var") {
    const out3 = [];
    for (const b of bindings) {
      const bound = b[p.index];
      if (bound === -1) {
        const nb = b.slice();
        nb[p.index] = cls;
        out3.push(nb);
      } else if (bound === cls) out3.push(b);
    }
    return out3;
  }
  const out2 = [];
  const arity2 = p.children.length;
  for (const n2 of egraph.eclass(cls).nodes) {
    if (n2.op !== p.op || n2.children.length !== arity2 || !dataMatches(p.data, n2.data)) continue;
    let cur = bindings;
    for (let i = 0; i < arity2 && cur.length > 0; i++) cur = matchInto(egraph, p.children[i], egraph.find(n2.children[i]), cur);
    for (const b of cur) out2.push(b);
  }
  return out2;
}
var Pattern = class _Pattern {
  /** The pattern tree. */
  ast;
  varList;
  compiled;
  /** Compiles a pattern tree. */
  constructor(ast) {
    this.ast = ast;
    const vars = [];
    const compile2 = (p) => {
      if (p.kind === "var") {
        const name = varName(p.name);
        let index = vars.indexOf(name);
        if (index < 0) index = vars.push(name) - 1;
        return { kind: "var", index };
      }
      return p.data === void 0 ? { kind: "node", op: p.op, children: p.children.map(compile2) } : { kind: "node", op: p.op, data: p.data, children: p.children.map(compile2) };
    };
    this.compiled = compile2(ast);
    this.varList = vars;
  }
  /** Parses `(op child ...)` with `?vars`, leaves (through `language.parseLeaf`) and `op[key=value]` attrs. */
  static parse(source, language = defaultLanguage) {
    const go = (s) => {
      if (s.kind === "atom") {
        if (s.text.startsWith("?")) {
          if (s.text.length < 2) throw new ParseError(`pattern ${JSON.stringify(source)}: empty variable name at offset ${s.pos}`);
          return pvar(s.text);
        }
        const { op: op2, data: data3 } = parseOp(s.text, language, true);
        return pnode(op2, [], data3);
      }
      const head = s.items[0];
      if (head.text.startsWith("?")) {
        throw new ParseError(`pattern ${JSON.stringify(source)}: operator position holds variable ${head.text} at offset ${head.pos}`);
      }
      const { op, data: data2 } = parseOp(head.text, language, false);
      return pnode(op, s.items.slice(1).map(go), data2);
    };
    return new _Pattern(go(parseSExp(source)));
  }
  /** The variables of the pattern, in order of first appearance. */
  vars() {
    return this.varList;
  }
  /** All matches in a rebuilt e-graph, stopping once `limit` substitutions are found. */
  search(egraph, limit = Number.POSITIVE_INFINITY) {
    if (egraph.isDirty) throw new EGraphStateError(`Pattern ${this.toString()}: call egraph.rebuild() before searching`);
    const root = this.compiled;
    const candidates2 = root.kind === "node" ? egraph.classesWithOp(root.op) : egraph.classes().map((c) => c.id);
    const matches = [];
    let budget = limit;
    for (const id of candidates2) {
      if (budget <= 0) break;
      const m = this.searchEClass(egraph, id, budget);
      if (m) {
        matches.push(m);
        budget -= m.substs.length;
      }
    }
    return matches;
  }
  /** The matches rooted at one e-class (at most `limit` substitutions), or undefined when none. */
  searchEClass(egraph, eclass, limit = Number.POSITIVE_INFINITY) {
    const id = egraph.find(eclass);
    const root = this.compiled;
    if (root.kind === "node" && !egraph.eclass(id).nodes.some((n2) => n2.op === root.op)) return void 0;
    const found = matchInto(egraph, root, id, [this.varList.map(() => -1)]);
    if (found.length === 0) return void 0;
    if (found.length === 1) return { eclass: id, substs: [Subst.fromArrays(this.varList, found[0])] };
    const seen = /* @__PURE__ */ new Map();
    const substs = [];
    for (const b of found) {
      if (substs.length >= limit) break;
      let h = 2166136261;
      for (const v of b) h = Math.imul(h ^ v, 16777619);
      const same = seen.get(h);
      if (same?.some((o) => o.every((v, i) => v === b[i]))) continue;
      if (same) same.push(b);
      else seen.set(h, [b]);
      substs.push(Subst.fromArrays(this.varList, b));
    }
    return { eclass: id, substs };
  }
  /** Adds the pattern's term under `subst` to the e-graph and returns its class. */
  instantiate(egraph, subst) {
    const go = (p) => {
      if (p.kind === "var") return subst.get(p.name);
      const children = p.children.map(go);
      return egraph.add(p.data === void 0 ? { op: p.op, children } : { op: p.op, data: p.data, children });
    };
    return go(this.ast);
  }
  /** Applier interface: instantiates the pattern; the rewrite unions the result with the matched class. */
  applyOne(egraph, _eclass, subst) {
    return [this.instantiate(egraph, subst)];
  }
  /** The pattern as an s-expression in the syntax `Pattern.parse` reads. */
  toString(language = defaultLanguage) {
    const go = (p) => {
      if (p.kind === "var") return p.name;
      const node = p.data === void 0 ? { op: p.op, children: [] } : { op: p.op, data: p.data, children: [] };
      const head = formatOp(p.children.length === 0 ? node : { ...node, children: [0] }, language);
      return p.children.length === 0 ? head : `(${head} ${p.children.map(go).join(" ")})`;
    };
    return go(this.ast);
  }
};

// packages/egraph/src/core/rewrite.ts
var Rewrite = class {
  /** The rule's name, used in reports and errors. */
  name;
  /** What the rule looks for. */
  searcher;
  /** What the rule adds. */
  applier;
  /** The optional guard. */
  condition;
  /** Builds a rule; throws when the applier reads a variable the searcher does not bind. */
  constructor(name, searcher, applier, condition) {
    if (!name) throw new RuleError("Rewrite: a rule needs a non-empty name");
    this.name = name;
    this.searcher = searcher;
    this.applier = applier;
    this.condition = condition;
    if (applier.vars) {
      const bound = new Set(searcher.vars());
      const unbound = applier.vars().filter((v) => !bound.has(v));
      if (unbound.length > 0) {
        throw new RuleError(
          `rule '${name}': right side uses ${unbound.join(", ")} not bound by the left side (binds: ${[...bound].join(" ") || "nothing"})`
        );
      }
    }
  }
  /** Searches the e-graph for this rule's left side. */
  search(egraph, limit) {
    return this.searcher.search(egraph, limit);
  }
  /**
   * Applies the rule to matches; returns how many unions changed the e-graph. Stops early once the e-graph
   * holds more than `nodeLimit` e-nodes. Errors name the rule.
   */
  apply(egraph, matches, nodeLimit = Number.POSITIVE_INFINITY) {
    let changed = 0;
    for (const m of matches) {
      for (const subst of m.substs) {
        if (egraph.totalNodes > nodeLimit) return changed;
        try {
          if (this.condition && !this.condition(egraph, m.eclass, subst)) continue;
          for (const id of this.applier.applyOne(egraph, m.eclass, subst)) {
            if (egraph.union(m.eclass, id)) changed++;
          }
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          throw new RuleError(`rule '${this.name}' at class ${m.eclass} with ${subst.toString()}: ${msg}`, { cause: e });
        }
      }
    }
    return changed;
  }
  /** `name: searcher => applier` for messages. */
  toString() {
    return `${this.name}: ${String(this.searcher)} => ${String(this.applier)}`;
  }
};
function toPattern(p, language) {
  if (p instanceof Pattern) return p;
  return typeof p === "string" ? Pattern.parse(p, language) : new Pattern(p);
}
function fnApplier(fn, name = "custom") {
  return {
    applyOne(egraph, eclass, subst) {
      const r = fn(egraph, eclass, subst);
      return r === void 0 ? [] : typeof r === "number" ? [r] : r;
    },
    toString: () => `<${name}>`
  };
}
function rw(name, lhs, rhs, opts = {}) {
  const language = opts.language ?? defaultLanguage;
  let searcher;
  let applier;
  try {
    searcher = toPattern(lhs, language);
    applier = typeof rhs === "function" ? fnApplier(rhs, name) : toPattern(rhs, language);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new RuleError(`rule '${name}': ${msg}`, { cause: e });
  }
  return new Rewrite(name, searcher, applier, opts.condition);
}

// packages/egraph/src/core/scheduler.ts
var BackoffScheduler = class {
  defaultMatchLimit;
  defaultBanLength;
  stats = /* @__PURE__ */ new Map();
  /** Makes a scheduler with the given default limits. */
  constructor(opts = {}) {
    this.defaultMatchLimit = opts.matchLimit ?? 1e3;
    this.defaultBanLength = opts.banLength ?? 5;
  }
  /** Overrides the match limit of one rule. */
  ruleMatchLimit(name, limit) {
    this.ruleStats(name).matchLimit = limit;
    return this;
  }
  /** Overrides the ban length of one rule. */
  ruleBanLength(name, length) {
    this.ruleStats(name).banLength = length;
    return this;
  }
  /** How many times a rule has been banned so far. */
  timesBanned(name) {
    return this.stats.get(name)?.timesBanned ?? 0;
  }
  ruleStats(name) {
    let s = this.stats.get(name);
    if (!s) {
      s = { timesApplied: 0, bannedUntil: 0, timesBanned: 0, matchLimit: this.defaultMatchLimit, banLength: this.defaultBanLength };
      this.stats.set(name, s);
    }
    return s;
  }
  /** True when no rule is banned; otherwise shortens every ban by the shortest remaining one and says false. */
  canStop(iteration) {
    const banned = [...this.stats.values()].filter((s) => s.bannedUntil > iteration);
    if (banned.length === 0) return true;
    const minBan = Math.min(...banned.map((s) => s.bannedUntil - iteration));
    for (const s of banned) s.bannedUntil -= minBan;
    return false;
  }
  /** Searches a rule unless banned; bans it (returning nothing) when it matches more than its limit. */
  searchRewrite(iteration, egraph, rule2) {
    const s = this.ruleStats(rule2.name);
    if (iteration < s.bannedUntil) return [];
    const threshold = s.matchLimit * 2 ** s.timesBanned;
    const matches = rule2.search(egraph, threshold + 1);
    const total = matches.reduce((n2, m) => n2 + m.substs.length, 0);
    if (total > threshold) {
      const banLength = s.banLength * 2 ** s.timesBanned;
      s.timesBanned++;
      s.bannedUntil = iteration + banLength;
      return [];
    }
    s.timesApplied++;
    return matches;
  }
};

// packages/egraph/src/core/runner.ts
var perf = globalThis.performance;
var defaultNow = perf ? () => perf.now() : () => Date.now();
var StopRun = class extends Error {
  constructor(reason, detail) {
    super(detail);
    this.reason = reason;
    this.detail = detail;
  }
  reason;
  detail;
};
var Runner = class {
  /** The e-graph being rewritten. */
  egraph;
  /** Root classes (as added; canonicalise with `egraph.find`). */
  roots = [];
  /** Iterations completed by the last `run`. */
  iterations = 0;
  iterLimit;
  nodeLimit;
  timeLimitMs;
  scheduler;
  hooks;
  now;
  /** Makes a runner over an existing e-graph. */
  constructor(egraph, opts = {}) {
    this.egraph = egraph;
    this.iterLimit = opts.iterLimit ?? 30;
    this.nodeLimit = opts.nodeLimit ?? 1e4;
    this.timeLimitMs = opts.timeLimitMs ?? 5e3;
    this.scheduler = opts.scheduler ?? new BackoffScheduler();
    this.hooks = opts.hooks ?? [];
    this.now = opts.now ?? defaultNow;
  }
  /** Adds an expression (a RecExpr or an s-expression string) and records it as a root; returns its id. */
  withExpr(expr, language = defaultLanguage) {
    const id = this.egraph.addExpr(typeof expr === "string" ? parseRecExpr(expr, language) : expr);
    this.roots.push(id);
    return id;
  }
  /** Records an existing class as a root. */
  addRoot(id) {
    this.roots.push(id);
    return this;
  }
  /**
   * Runs the rules until saturation or a limit, and reports. Throws on duplicate rule names; an error thrown by
   * a rule (or a rejected analysis merge) propagates with the rule's name and leaves the e-graph to rebuild.
   */
  run(rules) {
    checkUniqueNames(rules);
    const start = this.now();
    const tally = newTally(rules);
    this.iterations = 0;
    if (this.egraph.isDirty) this.egraph.rebuild();
    let stop;
    for (let i = 0; stop === void 0; i++) stop = this.stopBefore(i, start) ?? this.iterate(i, rules, tally, start);
    const eg = this.egraph;
    return {
      stopReason: stop.reason,
      stopMessage: stop.detail,
      iterations: this.iterations,
      egraphNodes: eg.totalNodes,
      egraphClasses: eg.numClasses,
      matched: tally.matched,
      applied: tally.applied,
      totalTimeMs: this.now() - start,
      searchTimeMs: tally.searchMs,
      applyTimeMs: tally.applyMs,
      rebuildTimeMs: tally.rebuildMs,
      iterationLog: tally.log
    };
  }
  /** Throws a `StopRun` when the run is over its node or time limit. */
  checkLimits(start) {
    const elapsed = this.now() - start;
    if (elapsed > this.timeLimitMs) throw new StopRun("timeLimit", `time limit ${this.timeLimitMs} ms exceeded (${elapsed.toFixed(1)} ms)`);
    const nodes = this.egraph.totalNodes;
    if (nodes > this.nodeLimit) throw new StopRun("nodeLimit", `node limit ${this.nodeLimit} exceeded (${nodes} e-nodes)`);
  }
  /** Why the run stops before iteration `i` (a hook, the iteration, node or time limit), if it does. */
  stopBefore(i, start) {
    return stopOf(() => {
      for (const hook of this.hooks) {
        const msg = hook(this);
        if (msg !== void 0) throw new StopRun("other", msg);
      }
      if (i >= this.iterLimit) throw new StopRun("iterationLimit", `iteration limit ${this.iterLimit} reached`);
      this.checkLimits(start);
    });
  }
  /**
   * One iteration: search and apply every rule (a limit may stop it midway), then rebuild and log it. Returns
   * why the run stops after it (that limit, or saturation: nothing changed and the scheduler allows it), if it does.
   */
  iterate(i, rules, tally, start) {
    const eg = this.egraph;
    const nodesBefore = eg.totalNodes;
    const classesBefore = eg.numClasses;
    const it = { applied: {}, changed: 0, searchMs: 0, applyMs: 0 };
    const stop = stopOf(() => this.searchAndApply(i, rules, tally, it, start));
    const t0 = this.now();
    const rebuildUnions = eg.rebuild();
    const rebuildMs = this.now() - t0;
    tally.searchMs += it.searchMs;
    tally.applyMs += it.applyMs;
    tally.rebuildMs += rebuildMs;
    this.iterations = i + 1;
    tally.log.push({
      egraphNodes: eg.totalNodes,
      egraphClasses: eg.numClasses,
      applied: it.applied,
      searchTimeMs: it.searchMs,
      applyTimeMs: it.applyMs,
      rebuildTimeMs: rebuildMs,
      rebuildUnions
    });
    if (stop) return stop;
    const grew = eg.totalNodes !== nodesBefore || eg.numClasses !== classesBefore;
    if (it.changed === 0 && !grew && this.scheduler.canStop(i)) return new StopRun("saturated", `saturated after ${i + 1} iterations`);
    return void 0;
  }
  /** Searches every rule (through the scheduler), then applies each rule's matches; counts into the tallies. */
  searchAndApply(i, rules, tally, it, start) {
    const eg = this.egraph;
    const t0 = this.now();
    const found = rules.map((r) => {
      const ms = this.scheduler.searchRewrite(i, eg, r);
      tally.matched[r.name] += ms.reduce((n2, m) => n2 + m.substs.length, 0);
      return ms;
    });
    it.searchMs = this.now() - t0;
    this.checkLimits(start);
    const t1 = this.now();
    try {
      for (const [k, r] of rules.entries()) {
        if (found[k].length === 0) continue;
        const n2 = r.apply(eg, found[k], this.nodeLimit);
        if (n2 > 0) {
          it.applied[r.name] = n2;
          tally.applied[r.name] += n2;
          it.changed += n2;
        }
        this.checkLimits(start);
      }
    } finally {
      it.applyMs = this.now() - t1;
    }
  }
};
function newTally(rules) {
  const zeros = () => Object.fromEntries(rules.map((r) => [r.name, 0]));
  return { matched: zeros(), applied: zeros(), log: [], searchMs: 0, applyMs: 0, rebuildMs: 0 };
}
function checkUniqueNames(rules) {
  const names = /* @__PURE__ */ new Set();
  for (const r of rules) {
    if (names.has(r.name)) throw new RuleError(`Runner.run: two rules are named '${r.name}'`);
    names.add(r.name);
  }
}
function stopOf(f) {
  try {
    f();
    return void 0;
  } catch (e) {
    if (!(e instanceof StopRun)) throw e;
    return e;
  }
}

// packages/egraph/src/core/extract.ts
function reachableClasses(choices, roots, find = (id) => id) {
  const state = /* @__PURE__ */ new Map();
  const order = [];
  const visit = (root) => {
    const stack = [[find(root), 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const [id, i] = top;
      if (i === 0) {
        const s = state.get(id);
        if (s === 2) {
          stack.pop();
          continue;
        }
        if (s === 1) return false;
        if (!choices.has(id)) return false;
        state.set(id, 1);
      }
      const node = choices.get(id);
      if (i < node.children.length) {
        top[1] = i + 1;
        const child = find(node.children[i]);
        const cs = state.get(child);
        if (cs === 1) return false;
        if (cs !== 2) stack.push([child, 0]);
      } else {
        state.set(id, 2);
        order.push(id);
        stack.pop();
      }
    }
    return true;
  };
  for (const r of roots) if (!visit(r)) return void 0;
  return order;
}
function dagCost(choices, roots, costFn, find = (id) => id) {
  const order = reachableClasses(choices, roots, find);
  if (!order) return Number.POSITIVE_INFINITY;
  let total = 0;
  for (const id of order) total += costFn.nodeCost(choices.get(id), id);
  return total;
}
function collectChoices(egraph, best, roots) {
  const canonRoots = roots.map((r) => egraph.find(r));
  for (const r of canonRoots) if (!best.has(r)) throw new ExtractionError(`extract: class ${r} has no finite, acyclic term`);
  const order = reachableClasses(best, canonRoots, (id) => egraph.find(id));
  if (!order) throw new ExtractionError("extract: the chosen nodes form a cycle (is the cost function strictly increasing?)");
  const out2 = /* @__PURE__ */ new Map();
  for (const id of order) {
    const n2 = best.get(id);
    out2.set(id, { ...n2, children: n2.children.map((c) => egraph.find(c)) });
  }
  return out2;
}

// packages/egraph/src/core/extractionIndex.ts
var ExtractionIndex = class {
  /**
   * Numbers a rebuilt e-graph. `extras` are (class, node) pairs whose node object is not in its class's list (a
   * start choice built elsewhere): each gets a number after every class's nodes, kept outside the class's range.
   */
  constructor(egraph, costFn, extras = []) {
    this.egraph = egraph;
    const classes2 = egraph.classes();
    this.classIds = classes2.map((c) => c.id);
    for (const [i, c] of classes2.entries()) this.numberOf.set(c.id, i);
    const nodes = [];
    const nodeClass = [];
    const nodeStart = new Int32Array(classes2.length + 1);
    for (const [i, c] of classes2.entries()) {
      nodeStart[i] = nodes.length;
      for (const n2 of c.nodes) {
        nodes.push(n2);
        nodeClass.push(i);
      }
    }
    nodeStart[classes2.length] = nodes.length;
    for (const [id, n2] of extras) {
      const c = this.classOf(id);
      if (this.extraOf.has(n2) || this.nodeNumber(c, n2, nodes, nodeStart) >= 0) continue;
      this.extraOf.set(n2, nodes.length);
      nodes.push(n2);
      nodeClass.push(c);
    }
    this.nodes = nodes;
    this.nodeClass = Int32Array.from(nodeClass);
    const kidStart = new Int32Array(nodes.length + 1);
    let k = 0;
    for (let i = 0; i < nodes.length; i++) {
      kidStart[i] = k;
      k += nodes[i].children.length;
    }
    kidStart[nodes.length] = k;
    const kids = new Int32Array(k);
    const cost = new Float64Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const n2 = nodes[i];
      let at = kidStart[i];
      for (let j = 0; j < n2.children.length; j++) kids[at++] = this.classOf(n2.children[j]);
      cost[i] = costFn.nodeCost(n2, this.classIds[this.nodeClass[i]]);
    }
    this.nodeStart = nodeStart;
    this.kidStart = kidStart;
    this.kids = kids;
    this.cost = cost;
  }
  egraph;
  /** Canonical id of each class number. */
  classIds;
  /** Nodes of class `c` are `nodeStart[c] .. nodeStart[c + 1] - 1` (extra nodes come after the last class's). */
  nodeStart;
  /** Every node, class by class, then the extra nodes. */
  nodes;
  /** Class number of each node. */
  nodeClass;
  /** Children (class numbers, in order, repeats kept) of node `i` are `kids[kidStart[i] .. kidStart[i + 1] - 1]`. */
  kidStart;
  kids;
  /** Own cost of each node (`costFn.nodeCost(node, its class)`). */
  cost;
  numberOf = /* @__PURE__ */ new Map();
  extraOf = /* @__PURE__ */ new Map();
  /** Number of classes. */
  get numClasses() {
    return this.classIds.length;
  }
  /** The class number of any id of a class. */
  classOf(id) {
    return this.numberOf.get(this.egraph.find(id));
  }
  /** The number of a node of class number `c`: its place in the class's list, or its extra number; -1 if neither. */
  nodeNumber(c, node, nodes = this.nodes, nodeStart = this.nodeStart) {
    for (let i = nodeStart[c]; i < nodeStart[c + 1]; i++) if (nodes[i] === node) return i;
    return this.extraOf.get(node) ?? -1;
  }
};

// packages/egraph/src/core/dagExtractor.ts
var perf2 = globalThis.performance;
var now = perf2 ? () => perf2.now() : () => Date.now();
var DagExtractor = class {
  egraph;
  costFn;
  improvePasses;
  maxEvaluations;
  greedyDagClassLimit;
  timeLimitMs;
  start;
  /** Prepares extraction over a rebuilt e-graph. */
  constructor(egraph, costFn, opts = {}) {
    if (egraph.isDirty) throw new EGraphStateError("DagExtractor: call egraph.rebuild() before extracting");
    this.egraph = egraph;
    this.costFn = costFn;
    this.improvePasses = opts.improvePasses ?? 8;
    this.maxEvaluations = opts.maxEvaluations ?? 2e4;
    this.greedyDagClassLimit = opts.greedyDagClassLimit ?? 2e4;
    this.timeLimitMs = opts.timeLimitMs ?? Number.POSITIVE_INFINITY;
    this.start = opts.start;
  }
  /**
   * Greedy DAG with each class's set of reachable classes as a bitset over dense class indices: a union is an
   * OR of words and a total a sum over set bits, with each class at the own cost of its current pick. (The
   * first version kept a Map per class and copied it per node: 1.5 s on the GPT step's 2 900 classes.)
   */
  greedyDag(ix) {
    const numClasses = ix.numClasses;
    const { nodeStart, kidStart, kids, cost: nodeCost } = ix;
    const words = numClasses + 31 >>> 5;
    const sets = new Array(numClasses);
    const totals = new Float64Array(numClasses).fill(Number.POSITIVE_INFINITY);
    const own = new Float64Array(numClasses);
    const picks = new Int32Array(numClasses).fill(-1);
    const tmp = new Uint32Array(words);
    let updatedBefore = new Uint32Array(words);
    let updatedNow = new Uint32Array(words);
    for (let pass = 0, changed = true; changed && pass < 4 * numClasses + 8; pass++) {
      changed = false;
      [updatedBefore, updatedNow] = [updatedNow, updatedBefore];
      updatedNow.fill(0);
      for (let ci = 0; ci < numClasses; ci++) {
        const word = ci >>> 5;
        const bit = 1 << (ci & 31);
        const above = ~((bit << 1) - 1);
        const below = bit - 1;
        for (let ni = nodeStart[ci]; ni < nodeStart[ci + 1]; ni++) {
          const k0 = kidStart[ni];
          const k1 = kidStart[ni + 1];
          const cost = nodeCost[ni];
          let bound = cost;
          for (let j = k0; j < k1; j++) bound = Math.max(bound, cost + totals[kids[j]]);
          if (!(bound < totals[ci])) continue;
          let ok = true;
          if (k0 === k1) tmp.fill(0);
          for (let j = k0; j < k1; j++) {
            const ks2 = sets[kids[j]];
            if (!ks2 || ks2[word] & bit) {
              ok = false;
              break;
            }
            if (j === k0) tmp.set(ks2);
            else for (let w2 = 0; w2 < words; w2++) tmp[w2] |= ks2[w2];
          }
          if (!ok) continue;
          if (pass > 0) {
            let touched = 0;
            for (let w2 = 0; w2 < words && touched === 0; w2++) {
              const after = w2 > word ? updatedBefore[w2] : w2 === word ? updatedBefore[w2] & above : 0;
              const before = w2 < word ? updatedNow[w2] : w2 === word ? updatedNow[w2] & below : 0;
              touched = tmp[w2] & (after | before);
            }
            if (touched === 0) continue;
          }
          let total = cost;
          for (let w2 = 0; w2 < words; w2++) {
            let x = tmp[w2];
            while (x !== 0) {
              const t = x & -x;
              total += own[(w2 << 5) + 31 - Math.clz32(t)];
              x ^= t;
            }
          }
          if (total < totals[ci]) {
            totals[ci] = total;
            own[ci] = cost;
            picks[ci] = ni;
            tmp[word] |= bit;
            const mine = sets[ci];
            if (mine) mine.set(tmp);
            else sets[ci] = tmp.slice();
            updatedNow[word] |= bit;
            changed = true;
          }
        }
      }
    }
    const out2 = /* @__PURE__ */ new Map();
    for (let ci = 0; ci < numClasses; ci++) if (picks[ci] >= 0) out2.set(ix.classIds[ci], ix.nodes[picks[ci]]);
    return out2;
  }
  /** The local search from `start` (see `DagExtractorOptions.start`), or undefined when `start` costs Infinity. */
  fromStart(start, focus, roots) {
    const find = (id) => this.egraph.find(id);
    if (!Number.isFinite(dagCost(start, roots, this.costFn, find))) return void 0;
    const ix = new ExtractionIndex(this.egraph, this.costFn, start);
    const search = new LocalSearch(ix, start, roots, this.maxEvaluations, now() + this.timeLimitMs);
    search.sweep(focus.map((id) => ix.classOf(id)));
    const stop = this.improvePasses > 0 ? search.improve(this.improvePasses) : "off";
    search.reuseShared();
    const choice = search.choice();
    const searchFigures = { evaluations: this.maxEvaluations - search.budgetLeft, stop };
    return { roots, choices: collectChoices(this.egraph, choice, roots), cost: dagCost(choice, roots, this.costFn, find), search: searchFigures };
  }
  /** Extracts one node per class reachable from `roots`; `cost` is the exact DAG cost. */
  extract(roots) {
    const eg = this.egraph;
    const find = (id) => eg.find(id);
    const canonRoots = roots.map(find);
    const started = this.start && this.fromStart(this.start.choice, this.start.focus, canonRoots);
    if (started) return started;
    const ix = new ExtractionIndex(eg, this.costFn);
    const treeChoice = treeChoiceOf(ix);
    let choice = treeChoice;
    let best = dagCost(treeChoice, canonRoots, this.costFn, find);
    if (eg.numClasses <= this.greedyDagClassLimit) {
      const dagChoice = this.greedyDag(ix);
      const dagCostValue = dagCost(dagChoice, canonRoots, this.costFn, find);
      if (dagCostValue <= best) {
        choice = dagChoice;
        best = dagCostValue;
      }
    }
    if (!Number.isFinite(best)) {
      collectChoices(eg, choice, canonRoots);
      throw new ExtractionError("DagExtractor: no acyclic choice covers the roots");
    }
    let searchFigures = { evaluations: 0, stop: "off" };
    if (this.improvePasses > 0) {
      const search = new LocalSearch(ix, choice, canonRoots, this.maxEvaluations, now() + this.timeLimitMs);
      const stop = search.improve(this.improvePasses);
      search.reuseShared();
      choice = search.choice();
      best = dagCost(choice, canonRoots, this.costFn, find);
      searchFigures = { evaluations: this.maxEvaluations - search.budgetLeft, stop };
    }
    return { roots: canonRoots, choices: collectChoices(eg, choice, canonRoots), cost: best, search: searchFigures };
  }
};
var LocalSearch = class {
  constructor(ix, start, roots, maxEvaluations, deadline) {
    this.ix = ix;
    this.deadline = deadline;
    const n2 = ix.numClasses;
    this.pick = new Int32Array(n2).fill(-1);
    for (const [id, node] of start) {
      const c = ix.classOf(id);
      this.pick[c] = ix.nodeNumber(c, node);
    }
    this.refs = new Int32Array(n2);
    this.next = new Int32Array(n2).fill(-1);
    this.prev = new Int32Array(n2).fill(-1);
    this.topo = new Int32Array(n2);
    this.mark = new Int32Array(n2);
    this.refStack = new Int32Array(ix.kids.length + 1);
    this.stack = new Int32Array(Math.max(2 * n2, ix.kids.length) + 2);
    this.viable = new Array(n2);
    this.budget = maxEvaluations;
    this.roots = roots.map((r) => ix.classOf(r));
    for (const r of this.roots) this.inc(r);
  }
  ix;
  deadline;
  /** Chosen node number of each class (-1: no choice); the classes with a choice never change. */
  pick;
  refs;
  /** Classes with refs > 0, oldest entry first: `next`/`prev` links, -1 ends. */
  next;
  prev;
  head = -1;
  tail = -1;
  total = 0;
  budget;
  roots;
  /** Position of each reachable class in a children-first order of the current choice (-1: unreachable), rebuilt lazily. */
  topo;
  topoValid = false;
  /** Visit stamps of `reaches` (and DFS states of `order`), and their stack. */
  mark;
  stamp = 0;
  stack;
  /** The work stack of `inc` and `dec` (never nested): a class is pushed once per reference, at most every child slot once. */
  refStack;
  /** Per class, the node numbers whose children all have a choice (static: the classes with a choice never change). */
  viable;
  /** The choice as a map from class id to node (every class with a choice, reachable or not). */
  choice() {
    const out2 = /* @__PURE__ */ new Map();
    for (let c = 0; c < this.pick.length; c++) if (this.pick[c] >= 0) out2.set(this.ix.classIds[c], this.ix.nodes[this.pick[c]]);
    return out2;
  }
  link(c) {
    this.prev[c] = this.tail;
    this.next[c] = -1;
    if (this.tail >= 0) this.next[this.tail] = c;
    else this.head = c;
    this.tail = c;
  }
  unlink(c) {
    const p = this.prev[c];
    const q = this.next[c];
    if (p >= 0) this.next[p] = q;
    else this.head = q;
    if (q >= 0) this.prev[q] = p;
    else this.tail = p;
  }
  /** The classes in the DAG, oldest entry first (a snapshot). */
  inDag() {
    const out2 = [];
    for (let c = this.head; c >= 0; c = this.next[c]) out2.push(c);
    return out2;
  }
  /** Adds a reference to class `c0`; a class that becomes reachable pays its cost and references its children. */
  inc(c0) {
    const { kidStart, kids, cost } = this.ix;
    const stack = this.refStack;
    let top = 0;
    stack[top++] = c0;
    while (top > 0) {
      const c = stack[--top];
      const r = this.refs[c];
      this.refs[c] = r + 1;
      if (r > 0) continue;
      this.link(c);
      const p = this.pick[c];
      this.total += cost[p];
      for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
  }
  /** Drops a reference to class `c0`; a class that becomes unreachable refunds its cost and its children. */
  dec(c0) {
    const { kidStart, kids, cost } = this.ix;
    const stack = this.refStack;
    let top = 0;
    stack[top++] = c0;
    while (top > 0) {
      const c = stack[--top];
      const r = this.refs[c];
      if (r > 1) {
        this.refs[c] = r - 1;
        continue;
      }
      this.refs[c] = 0;
      this.unlink(c);
      const p = this.pick[c];
      this.total -= cost[p];
      for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
  }
  /** Positions of the reachable classes in a children-first order into `topo`; false when the choice has a cycle. */
  order() {
    const { kidStart, kids } = this.ix;
    const topo = this.topo;
    topo.fill(-1);
    const state = this.mark;
    state.fill(0);
    let pos = 0;
    let ok = true;
    const stack = this.stack;
    for (const r of this.roots) {
      if (!ok) break;
      if (state[r] === 2) continue;
      if (this.pick[r] < 0) {
        ok = false;
        break;
      }
      let top = 0;
      stack[top++] = r;
      stack[top++] = kidStart[this.pick[r]];
      state[r] = 1;
      while (top > 0) {
        const c = stack[top - 2];
        const j = stack[top - 1];
        if (j < kidStart[this.pick[c] + 1]) {
          stack[top - 1] = j + 1;
          const k = kids[j];
          if (state[k] === 1 || state[k] === 0 && this.pick[k] < 0) {
            ok = false;
            break;
          }
          if (state[k] === 0) {
            state[k] = 1;
            stack[top++] = k;
            stack[top++] = kidStart[this.pick[k]];
          }
        } else {
          state[c] = 2;
          topo[c] = pos++;
          top -= 2;
        }
      }
    }
    state.fill(0);
    this.stamp = 0;
    return ok;
  }
  /**
   * Whether class `target` is reachable from node `node`'s children under the current choice. A class placed
   * before `target` in the children-first order cannot reach it, so the search stops there.
   */
  reaches(node, target) {
    if (!this.topoValid) {
      if (!this.order()) throw new ExtractionError("DagExtractor: local search produced a cycle (a bug)");
      this.topoValid = true;
    }
    const { kidStart, kids } = this.ix;
    const topo = this.topo;
    const limit = topo[target] < 0 ? Number.POSITIVE_INFINITY : topo[target];
    const stamp = ++this.stamp;
    const mark = this.mark;
    const stack = this.stack;
    let top = 0;
    for (let j = kidStart[node]; j < kidStart[node + 1]; j++) stack[top++] = kids[j];
    while (top > 0) {
      const c = stack[--top];
      if (c === target) return true;
      if (mark[c] === stamp || (topo[c] < 0 ? Number.POSITIVE_INFINITY : topo[c]) < limit) continue;
      mark[c] = stamp;
      const p = this.pick[c];
      if (p >= 0) for (let j = kidStart[p]; j < kidStart[p + 1]; j++) stack[top++] = kids[j];
    }
    return false;
  }
  /** Switches reachable class `c` to node `node` (assumed acyclic), keeping reference counts and the total. */
  set(c, node) {
    const { kidStart, kids, cost } = this.ix;
    const old = this.pick[c];
    this.total -= cost[old];
    this.pick[c] = node;
    this.total += cost[node];
    for (let j = kidStart[node]; j < kidStart[node + 1]; j++) this.inc(kids[j]);
    for (let j = kidStart[old]; j < kidStart[old + 1]; j++) this.dec(kids[j]);
  }
  /** The nodes of class `c` other than its current pick whose children all have a choice, in class order. */
  alternatives(c) {
    let v = this.viable[c];
    if (!v) {
      const { nodeStart, kidStart, kids } = this.ix;
      const list = [];
      node: for (let i = nodeStart[c]; i < nodeStart[c + 1]; i++) {
        for (let j = kidStart[i]; j < kidStart[i + 1]; j++) if (this.pick[kids[j]] < 0) continue node;
        list.push(i);
      }
      v = Int32Array.from(list);
      this.viable[c] = v;
    }
    const cur = this.pick[c];
    const out2 = [];
    for (const i of v) if (i !== cur) out2.push(i);
    return out2;
  }
  /** Moves left of the evaluation budget. */
  get budgetLeft() {
    return Math.max(0, this.budget);
  }
  exhausted() {
    return this.budget <= 0 || this.deadline !== Number.POSITIVE_INFINITY && now() > this.deadline;
  }
  /** Why the search stopped (after `improve`), given whether the last round found nothing. */
  stopReason(converged) {
    if (this.budget <= 0) return "evaluationLimit";
    if (this.deadline !== Number.POSITIVE_INFINITY && now() > this.deadline) return "timeLimit";
    return converged ? "converged" : "passLimit";
  }
  /** Tries node `node` at class `c`: keeps it when the total drops by more than rounding, else restores; true if kept. */
  tryMove(c, node) {
    this.budget--;
    if (this.reaches(node, c)) return false;
    const before = this.total;
    const old = this.pick[c];
    this.set(c, node);
    if (this.total < before - 1e-9 * Math.max(1, Math.abs(before))) {
      this.topoValid = false;
      return true;
    }
    this.set(c, old);
    return false;
  }
  /** Single-class descent with class `locked` held fixed (-1: none); logs the moves made (for undo). */
  descend(locked, log) {
    for (let improved = true; improved && !this.exhausted(); ) {
      improved = false;
      for (const c of this.inDag()) {
        if (c === locked || this.refs[c] === 0) continue;
        if (this.exhausted()) return;
        for (const n2 of this.alternatives(c)) {
          const old = this.pick[c];
          if (this.tryMove(c, n2)) {
            log.push([c, old]);
            improved = true;
            break;
          }
        }
      }
    }
  }
  /**
   * One sweep outside the budget: each class in the DAG tries the alternatives whose children are all in the DAG
   * already (they add only their own cost). The budgeted search can stop before it reaches these on a large
   * e-graph, leaving, e.g., one parameter's update in its own kernel beside a multi-tensor kernel that computes it.
   */
  reuseShared() {
    const { kidStart, kids } = this.ix;
    for (const c of this.inDag()) {
      if (this.refs[c] === 0) continue;
      node: for (const n2 of this.alternatives(c)) {
        for (let j = kidStart[n2]; j < kidStart[n2 + 1]; j++) if (this.refs[kids[j]] === 0) continue node;
        this.budget++;
        if (this.tryMove(c, n2)) break;
      }
    }
  }
  /** One sweep outside the budget: each of the classes `cs` in the DAG takes the first alternative that lowers the total. */
  sweep(cs) {
    for (const c of cs) {
      if (this.refs[c] === 0) continue;
      for (const n2 of this.alternatives(c)) {
        this.budget++;
        if (this.tryMove(c, n2)) break;
      }
    }
  }
  /** Descent, then up to `passes` rounds of kicks (forced move, descent, keep only if cheaper overall). */
  improve(passes) {
    this.descend(-1, []);
    let converged = false;
    for (let pass = 0; pass < passes && !this.exhausted(); pass++) {
      let improved = false;
      for (const c of this.inDag()) {
        if (improved || this.exhausted()) break;
        if (this.refs[c] === 0) continue;
        for (const n2 of this.alternatives(c)) {
          if (this.exhausted()) break;
          this.budget--;
          if (this.reaches(n2, c)) continue;
          const before = this.total;
          const log = [[c, this.pick[c]]];
          this.set(c, n2);
          this.topoValid = false;
          this.descend(c, log);
          if (this.total < before - 1e-9 * Math.max(1, Math.abs(before))) {
            improved = true;
            break;
          }
          for (let i = log.length - 1; i >= 0; i--) this.set(log[i][0], log[i][1]);
          this.topoValid = false;
        }
      }
      if (!improved) {
        converged = true;
        break;
      }
    }
    if (!this.order()) throw new ExtractionError("DagExtractor: local search produced a cycle (a bug)");
    this.topoValid = true;
    return this.stopReason(converged || passes === 0);
  }
};
function treeChoiceOf(ix) {
  const numClasses = ix.numClasses;
  const { nodeStart, kidStart, kids, cost: own } = ix;
  const best = new Float64Array(numClasses);
  const bestNode = new Int32Array(numClasses).fill(-1);
  const consumerStart = new Int32Array(numClasses + 1);
  const last = new Int32Array(numClasses).fill(-1);
  for (let ci = 0; ci < numClasses; ci++) {
    for (let j = kidStart[nodeStart[ci]]; j < kidStart[nodeStart[ci + 1]]; j++) {
      const k = kids[j];
      if (last[k] === ci) continue;
      last[k] = ci;
      consumerStart[k + 1]++;
    }
  }
  for (let k = 0; k < numClasses; k++) consumerStart[k + 1] += consumerStart[k];
  const consumers = new Int32Array(consumerStart[numClasses]);
  const at = consumerStart.slice(0, numClasses);
  last.fill(-1);
  for (let ci = 0; ci < numClasses; ci++) {
    for (let j = kidStart[nodeStart[ci]]; j < kidStart[nodeStart[ci + 1]]; j++) {
      const k = kids[j];
      if (last[k] === ci) continue;
      last[k] = ci;
      consumers[at[k]++] = ci;
    }
  }
  const stale = new Uint8Array(numClasses).fill(1);
  const maxPasses = 4 * numClasses + 8;
  for (let pass = 0, changed = true; changed && pass < maxPasses; pass++) {
    changed = false;
    for (let ci = 0; ci < numClasses; ci++) {
      if (stale[ci] === 0) continue;
      stale[ci] = 0;
      let improved = false;
      node: for (let ni = nodeStart[ci]; ni < nodeStart[ci + 1]; ni++) {
        const k1 = kidStart[ni + 1];
        for (let j = kidStart[ni]; j < k1; j++) if (bestNode[kids[j]] < 0) continue node;
        let cost = own[ni];
        for (let j = kidStart[ni]; j < k1; j++) cost += best[kids[j]];
        if (bestNode[ci] < 0 || cost < best[ci]) {
          best[ci] = cost;
          bestNode[ci] = ni;
          improved = true;
          changed = true;
        }
      }
      if (improved) for (let j = consumerStart[ci]; j < consumerStart[ci + 1]; j++) stale[consumers[j]] = 1;
    }
  }
  const out2 = /* @__PURE__ */ new Map();
  for (let ci = 0; ci < numClasses; ci++) if (bestNode[ci] >= 0 && Number.isFinite(best[ci])) out2.set(ix.classIds[ci], ix.nodes[bestNode[ci]]);
  return out2;
}

// packages/ir/src/dtype.ts
function byteSize(_dtype) {
  return 4;
}

// packages/ir/src/graphError.ts
var GraphError = class extends Error {
  constructor(message, op, site) {
    super(site ? `${message}
    built at ${site}` : message);
    this.op = op;
    this.site = site;
  }
  op;
  site;
  name = "GraphError";
};
function userCallSite() {
  const stack = new Error().stack?.split("\n").slice(1) ?? [];
  for (const line of stack) {
    if (/[\\/]packages[\\/](ir|autograd|optim|egraph|nn)[\\/]src[\\/]/.test(line)) continue;
    if (/node_modules|node:internal/.test(line)) continue;
    const m = line.match(/\(?([^\s()]+:\d+:\d+)\)?\s*$/);
    if (m) return m[1];
  }
  return void 0;
}

// packages/ir/src/shape.ts
function numel(shape) {
  let n2 = 1;
  for (const d of shape) n2 *= d;
  return n2;
}
function stridesOf(shape) {
  const s = new Array(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}
function sameShape(a, b) {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
function fmtShape(s) {
  return `[${s.join(", ")}]`;
}
function broadcastShapes(...shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out2 = new Array(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      const d = s[i];
      if (out2[o] === 1) out2[o] = d;
      else if (d !== 1 && d !== out2[o]) return void 0;
    }
  }
  return out2;
}
function broadcastsTo(from, to) {
  if (from.length > to.length) return false;
  const off = to.length - from.length;
  return from.every((d, i) => d === 1 || d === to[off + i]);
}
function broadcastStrides(from, to) {
  const own = stridesOf(from);
  const off = to.length - from.length;
  return to.map((_, i) => {
    const j = i - off;
    return j < 0 || from[j] === 1 ? 0 : own[j];
  });
}
function broadcastAxes(from, to) {
  const off = to.length - from.length;
  const axes = [];
  for (let i = 0; i < to.length; i++) {
    const j = i - off;
    if (j < 0 || from[j] === 1 && to[i] !== 1) axes.push(i);
  }
  return axes;
}
function normalizeAxes(axes, rank) {
  const out2 = /* @__PURE__ */ new Set();
  for (const a of axes) {
    const n2 = a < 0 ? a + rank : a;
    if (!Number.isInteger(n2) || n2 < 0 || n2 >= rank) return void 0;
    out2.add(n2);
  }
  return [...out2].sort((x, y) => x - y);
}
function reducedShape(shape, axes, keepdims) {
  const out2 = [];
  shape.forEach((d, i) => {
    if (axes.includes(i)) {
      if (keepdims) out2.push(1);
    } else out2.push(d);
  });
  return out2;
}

// packages/ir/src/inferCore.ts
var fail = (op, msg, ins) => {
  const operands = ins.map((t) => `${fmtShape(t.shape)}:${t.dtype}`).join(", ");
  throw new GraphError(`${op}: ${msg} (operands ${operands || "none"})`, op);
};
var arity = (op, ins, n2) => {
  if (ins.length !== n2) fail(op, `expects ${n2} operand(s), got ${ins.length}`, ins);
};
var float = (op, ins, i) => {
  if (ins[i].dtype !== "f32") fail(op, `operand ${i} must be f32, got ${ins[i].dtype}`, ins);
};

// packages/ir/src/inferConv.ts
var convExtent = (size, kernel, stride, padding, dilation) => Math.floor((size + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1;
var pairs = (op, ins, a) => {
  for (const k of ["stride", "dilation", "kernel"])
    if (a[k] && !(a[k].length === 2 && a[k].every((v) => Number.isInteger(v) && v >= 1))) fail(op, `${k} [${a[k]}] must be two integers \u2265 1`, ins);
  if (a.padding && !(a.padding.length === 2 && a.padding.every((v) => Number.isInteger(v) && v >= 0))) fail(op, `padding [${a.padding}] must be two integers \u2265 0`, ins);
};
var nchw = (op, ins, i, what) => {
  float(op, ins, i);
  if (ins[i].shape.length !== 4) fail(op, `${what} must be 4-D [N, C, H, W], got ${fmtShape(ins[i].shape)}`, ins);
};
function convShape(op, ins, x, w2, a) {
  pairs(op, ins, a);
  const [n2, c, h, wd] = x;
  const [o, cg, kh, kw] = w2;
  if (!(Number.isInteger(a.groups) && a.groups >= 1) || c % a.groups !== 0 || o % a.groups !== 0)
    fail(op, `groups ${a.groups} must divide input channels ${c} and output channels ${o}`, ins);
  if (cg !== c / a.groups) fail(op, `weight ${fmtShape(w2)} needs C/groups = ${c / a.groups} input channels, has ${cg}`, ins);
  const ho = convExtent(h, kh, a.stride[0], a.padding[0], a.dilation[0]);
  const wo = convExtent(wd, kw, a.stride[1], a.padding[1], a.dilation[1]);
  if (ho < 1 || wo < 1) fail(op, `the kernel ${kh}\xD7${kw} (dilated) does not fit the padded input ${h}\xD7${wd}`, ins);
  return [n2, o, ho, wo];
}
var inferConv2d = (ins, a) => {
  arity("conv2d", ins, 2);
  nchw("conv2d", ins, 0, "x");
  nchw("conv2d", ins, 1, "the weight");
  return { shape: convShape("conv2d", ins, ins[0].shape, ins[1].shape, a), dtype: "f32" };
};
var inferConv2dGradInput = (ins, a) => {
  arity("conv2dGradInput", ins, 2);
  nchw("conv2dGradInput", ins, 0, "dy");
  nchw("conv2dGradInput", ins, 1, "the weight");
  const [dy, w2] = [ins[0].shape, ins[1].shape];
  const x = [dy[0], w2[1] * a.groups, a.inputSize[0], a.inputSize[1]];
  if (!sameShape(convShape("conv2dGradInput", ins, x, w2, a), dy)) fail("conv2dGradInput", `dy does not match a conv2d of input ${fmtShape(x)}`, ins);
  return { shape: x, dtype: "f32" };
};
var inferConv2dGradWeight = (ins, a) => {
  arity("conv2dGradWeight", ins, 2);
  nchw("conv2dGradWeight", ins, 0, "x");
  nchw("conv2dGradWeight", ins, 1, "dy");
  const [x, dy] = [ins[0].shape, ins[1].shape];
  const w2 = [dy[1], x[1] / a.groups, a.kernelSize[0], a.kernelSize[1]];
  if (!sameShape(convShape("conv2dGradWeight", ins, x, w2, a), dy)) fail("conv2dGradWeight", `dy does not match a conv2d by a weight ${fmtShape(w2)}`, ins);
  return { shape: w2, dtype: "f32" };
};
function poolShape(op, ins, x, a) {
  pairs(op, ins, a);
  if (a.padding[0] * 2 > a.kernel[0] || a.padding[1] * 2 > a.kernel[1]) fail(op, `padding [${a.padding}] must be at most half the kernel [${a.kernel}]`, ins);
  const ho = convExtent(x[2], a.kernel[0], a.stride[0], a.padding[0], 1);
  const wo = convExtent(x[3], a.kernel[1], a.stride[1], a.padding[1], 1);
  if (ho < 1 || wo < 1) fail(op, `the window [${a.kernel}] does not fit the padded input`, ins);
  return [x[0], x[1], ho, wo];
}
var inferPool = (op) => (ins, a) => {
  arity(op, ins, 1);
  nchw(op, ins, 0, "x");
  return { shape: poolShape(op, ins, ins[0].shape, a), dtype: "f32" };
};
var inferMaxPool2dGrad = (ins, a) => {
  arity("maxPool2dGrad", ins, 2);
  nchw("maxPool2dGrad", ins, 0, "x");
  if (!sameShape(poolShape("maxPool2dGrad", ins, ins[0].shape, a), ins[1].shape)) fail("maxPool2dGrad", "dy does not match the pooled shape", ins);
  return ins[0];
};
var inferAvgPool2dGrad = (ins, a) => {
  arity("avgPool2dGrad", ins, 1);
  nchw("avgPool2dGrad", ins, 0, "dy");
  const dy = ins[0].shape;
  const x = [dy[0], dy[1], a.inputSize[0], a.inputSize[1]];
  if (!sameShape(poolShape("avgPool2dGrad", ins, x, a), dy)) fail("avgPool2dGrad", `dy does not match pooling an input ${fmtShape(x)}`, ins);
  return { shape: x, dtype: "f32" };
};

// packages/ir/src/inferNn.ts
var swapSeqHeads = (s) => [...s.slice(0, -3), s[s.length - 2], s[s.length - 3], s[s.length - 1]];
var attentionType = (op, ins, seqMajor2) => {
  if (seqMajor2) {
    if (ins.slice(0, 3).some((t) => t.shape.length < 3)) fail(op, "seq-major q, k and v must have rank \u2265 3 ([..., T, H, D])", ins);
    const o = attentionType(op, ins.slice(0, 3).map((t) => ({ ...t, shape: swapSeqHeads(t.shape) })));
    return { ...o, shape: swapSeqHeads(o.shape) };
  }
  const [q, k, v] = ins;
  for (let i = 0; i < 3; i++) float(op, ins, i);
  const r = q.shape.length;
  if (r < 2 || k.shape.length !== r || v.shape.length !== r) fail(op, "q, k and v must have the same rank \u2265 2 ([..., T, D])", ins);
  const lead = q.shape.slice(0, -2);
  if (!sameShape(k.shape.slice(0, -2), lead) || !sameShape(v.shape.slice(0, -2), lead))
    fail(op, `leading axes differ: q ${fmtShape(q.shape)}, k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  if (k.shape[r - 1] !== q.shape[r - 1]) fail(op, `q and k head sizes differ: ${q.shape[r - 1]} vs ${k.shape[r - 1]}`, ins);
  if (v.shape[r - 2] !== k.shape[r - 2]) fail(op, `k and v lengths differ: ${k.shape[r - 2]} vs ${v.shape[r - 2]}`, ins);
  return { shape: [...lead, q.shape[r - 2], v.shape[r - 1]], dtype: "f32" };
};
function windowedTypes(op, ins, a, n2) {
  const w2 = a.window;
  if (!w2) return [...ins];
  if (!a.seqMajor) fail(op, "head windows (window) need the seq-major layout (seqMajor)", ins);
  if (!(Number.isInteger(w2.heads) && w2.heads > 0) || w2.offsets.length !== 3)
    fail(op, `window must have heads \u2265 1 and three offsets (q, k, v), got heads ${w2.heads}, offsets [${w2.offsets.join(", ")}]`, ins);
  return ins.map((t, i) => {
    if (i >= n2) return t;
    const s = t.shape;
    const [r, off] = [s.length, w2.offsets[i]];
    if (r < 3 || !Number.isInteger(off) || off < 0 || off + w2.heads > s[r - 2])
      fail(op, `operand ${"qkv"[i]} ${fmtShape(s)}: head window [${off}, ${off + w2.heads}) is outside its heads (axis \u22122)`, ins);
    return { ...t, shape: [...s.slice(0, -2), w2.heads, s[r - 1]] };
  });
}
var inferAttention = (ins, a) => {
  arity("attention", ins, 3);
  return attentionType("attention", windowedTypes("attention", ins, a, 3), a.seqMajor);
};
var inferAttentionLse = (ins, a) => {
  arity("attentionLse", ins, 2);
  const [q, k] = windowedTypes("attentionLse", ins, a, 2);
  attentionType("attentionLse", [q, k, k], a.seqMajor);
  return { shape: q.shape.slice(0, -1), dtype: "f32" };
};
var inferAttentionGrad = (given, a) => {
  arity("attentionGrad", given, 6);
  const ins = windowedTypes("attentionGrad", given, a, 3);
  const o = attentionType("attentionGrad", ins, a.seqMajor);
  if (!sameShape(ins[3].shape, o.shape)) fail("attentionGrad", `dOut must be ${fmtShape(o.shape)}, got ${fmtShape(ins[3].shape)}`, ins);
  const rows = o.shape.slice(0, -1);
  for (const [i, name] of [[4, "lse"], [5, "delta"]]) {
    float("attentionGrad", ins, i);
    if (i === 5 && a.deltaFromOut) {
      if (!sameShape(ins[i].shape, o.shape)) fail("attentionGrad", `out (operand 5 with deltaFromOut) must be ${fmtShape(o.shape)} as dOut, got ${fmtShape(ins[i].shape)}`, ins);
    } else if (!sameShape(ins[i].shape, rows)) fail("attentionGrad", `${name} must be ${fmtShape(rows)} (a value per query row), got ${fmtShape(ins[i].shape)}`, ins);
  }
  return ins[{ q: 0, k: 1, v: 2 }[a.wrt]];
};
var inferAttentionWithLse = (ins, a) => {
  arity("attentionWithLse", ins, 3);
  return attentionType("attentionWithLse", windowedTypes("attentionWithLse", ins, a, 3), a.seqMajor);
};
var inferAttentionGradKV = (ins, a) => {
  arity("attentionGradKV", ins, 6);
  const [, k, v] = windowedTypes("attentionGradKV", ins, a, 3);
  if (!sameShape(k.shape, v.shape)) fail("attentionGradKV", `v must be shaped as k (its two results share a type): k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  return inferAttentionGrad(ins, { ...a, wrt: "k" });
};
var inferAttentionGradQKV = (ins, a) => {
  arity("attentionGradQKV", ins, 6);
  if (!a.seqMajor) fail("attentionGradQKV", "needs the seq-major layout (seqMajor): its result joins dq, dk and dv along the head axis", ins);
  const [q, k, v] = windowedTypes("attentionGradQKV", ins, a, 3);
  if (!sameShape(q.shape, k.shape) || !sameShape(k.shape, v.shape))
    fail("attentionGradQKV", `q, k and v must have one shape (their gradients join along the heads): q ${fmtShape(q.shape)}, k ${fmtShape(k.shape)}, v ${fmtShape(v.shape)}`, ins);
  const dq = inferAttentionGrad(ins, { ...a, wrt: "q" });
  const r = dq.shape.length;
  return { ...dq, shape: [...dq.shape.slice(0, -2), 3 * dq.shape[r - 2], dq.shape[r - 1]] };
};
var inferRope = (ins) => {
  arity("rope", ins, 1);
  float("rope", ins, 0);
  const s = ins[0].shape;
  if (s.length < 2 || s[s.length - 1] % 2 !== 0) fail("rope", `input must be [..., T, D] with D even, got ${fmtShape(s)}`, ins);
  return ins[0];
};
var inferDropout = (ins, a) => {
  if (ins.length !== 1 && ins.length !== 2) fail("dropout", `expects 1 or 2 operands, got ${ins.length}`, ins);
  float("dropout", ins, 0);
  if (ins.length === 2 && (ins[1].dtype !== "i32" || ins[1].shape.length !== 0)) fail("dropout", "the seed offset must be an i32 scalar", ins);
  if (!(a.p >= 0 && a.p < 1)) fail("dropout", `p must be in [0, 1), got ${a.p}`, ins);
  if (!(Number.isInteger(a.seed) && a.seed >= 0 && a.seed <= 4294967295)) fail("dropout", `seed must be a u32, got ${a.seed}`, ins);
  return ins[0];
};

// packages/ir/src/inferIndexing.ts
var perAxis = (op, ins, name, v) => {
  if (v.length !== ins[0].shape.length) fail(op, `${name} has ${v.length} entries for rank ${ins[0].shape.length}`, ins);
  if (v.some((x) => !Number.isInteger(x))) fail(op, `${name} [${v}] must be integers`, ins);
};
var sliceExtent = (start, end, step) => Math.max(0, Math.ceil((end - start) / step));
var inferSlice = (ins, a) => {
  arity("slice", ins, 1);
  perAxis("slice", ins, "starts", a.starts);
  perAxis("slice", ins, "ends", a.ends);
  perAxis("slice", ins, "steps", a.steps);
  const shape = ins[0].shape.map((d, i) => {
    const [s, e, st] = [a.starts[i], a.ends[i], a.steps[i]];
    if (!(0 <= s && s <= e && e <= d && st >= 1))
      fail("slice", `axis ${i}: window ${s}:${e}:${st} is not within 0 \u2264 start \u2264 end \u2264 ${d} with step \u2265 1`, ins);
    return sliceExtent(s, e, st);
  });
  return { shape, dtype: ins[0].dtype };
};
var inferPad = (ins, a) => {
  arity("pad", ins, 1);
  for (const k of ["before", "after", "interior"]) {
    perAxis("pad", ins, k, a[k]);
    if (a[k].some((x) => x < 0)) fail("pad", `${k} [${a[k]}] must be \u2265 0`, ins);
  }
  const shape = ins[0].shape.map((d, i) => a.before[i] + d + Math.max(0, d - 1) * a.interior[i] + a.after[i]);
  return { shape, dtype: ins[0].dtype };
};
var inferConcat = (ins, a) => {
  if (ins.length < 1) fail("concat", "needs at least one operand", ins);
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(a.axis) && a.axis >= 0 && a.axis < rank)) fail("concat", `axis ${a.axis} out of range for rank ${rank}`, ins);
  let total = 0;
  for (const t of ins) {
    if (t.dtype !== ins[0].dtype) fail("concat", `dtypes differ: ${ins[0].dtype} vs ${t.dtype}`, ins);
    if (t.shape.length !== rank || t.shape.some((d, i) => i !== a.axis && d !== ins[0].shape[i]))
      fail("concat", `shapes ${fmtShape(ins[0].shape)} and ${fmtShape(t.shape)} differ off axis ${a.axis}`, ins);
    total += t.shape[a.axis];
  }
  const shape = [...ins[0].shape];
  shape[a.axis] = total;
  return { shape, dtype: ins[0].dtype };
};
var gatherShape = (table4, indices, axis) => [
  ...table4.slice(0, axis),
  ...indices,
  ...table4.slice(axis + 1)
];
var indexed = (op, ins, axis) => {
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(axis) && axis >= 0 && axis < rank)) fail(op, `axis ${axis} out of range for rank ${rank}`, ins);
  if (ins[1].dtype !== "i32") fail(op, `indices must be i32, got ${ins[1].dtype}`, ins);
};
var inferGather = (ins, a) => {
  arity("gather", ins, 2);
  indexed("gather", ins, a.axis);
  return { shape: gatherShape(ins[0].shape, ins[1].shape, a.axis), dtype: ins[0].dtype };
};
var inferScatterAdd = (ins, a) => {
  arity("scatterAdd", ins, 3);
  indexed("scatterAdd", ins, a.axis);
  float("scatterAdd", ins, 0);
  float("scatterAdd", ins, 2);
  const want = gatherShape(ins[0].shape, ins[1].shape, a.axis);
  if (!sameShape(ins[2].shape, want)) fail("scatterAdd", `updates must be ${fmtShape(want)}, got ${fmtShape(ins[2].shape)}`, ins);
  return ins[0];
};
var inferOneHot = (ins, a) => {
  arity("oneHot", ins, 1);
  if (ins[0].dtype !== "i32") fail("oneHot", `labels must be i32, got ${ins[0].dtype}`, ins);
  if (!(Number.isInteger(a.classes) && a.classes >= 1)) fail("oneHot", `classes must be a positive integer, got ${a.classes}`, ins);
  return { shape: [...ins[0].shape, a.classes], dtype: "f32" };
};
var inferArgmax = (ins, a) => {
  arity("argmax", ins, 1);
  float("argmax", ins, 0);
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(a.axis) && a.axis >= 0 && a.axis < rank)) fail("argmax", `axis ${a.axis} out of range for rank ${rank}`, ins);
  if (ins[0].shape[a.axis] === 0) fail("argmax", `axis ${a.axis} is empty`, ins);
  const shape = a.keepdims ? ins[0].shape.map((d, i) => i === a.axis ? 1 : d) : ins[0].shape.filter((_, i) => i !== a.axis);
  return { shape, dtype: "i32" };
};

// packages/ir/src/customOp.ts
var KEY = /* @__PURE__ */ Symbol.for("@neura/ir/customOps");
var table = globalThis[KEY] ?? /* @__PURE__ */ new Map();
globalThis[KEY] = table;
function customOpDef(name) {
  const def = table.get(name);
  if (!def) throw new GraphError(`custom op '${name}' is not registered (registered: ${[...table.keys()].join(", ") || "none"})`, "custom");
  return def;
}

// packages/ir/src/splitK.ts
var SPLIT_K_MIN_K = 512;
var SPLIT_K_MIN_CHUNK = 128;
var SPLIT_K_TARGET_WORKGROUPS = 512;
var SPLIT_K_TILE = [128, 64];
var SPLIT_K_SLICE = 16;
function splitKChunk(k, splits) {
  return Math.ceil(k / splits / SPLIT_K_SLICE) * SPLIT_K_SLICE;
}
function matmulSplitK(m, n2, k, batches, maxBindingBytes = Number.POSITIVE_INFINITY) {
  if (batches !== 1 || k < SPLIT_K_MIN_K || k < 4 * Math.max(m, n2)) return 1;
  const tiles = Math.ceil(m / SPLIT_K_TILE[0]) * Math.ceil(n2 / SPLIT_K_TILE[1]);
  if (tiles >= SPLIT_K_TARGET_WORKGROUPS / 4) return 1;
  const splits = Math.min(Math.ceil(SPLIT_K_TARGET_WORKGROUPS / tiles), Math.floor(k / SPLIT_K_MIN_CHUNK), Math.floor(maxBindingBytes / (m * n2 * 4)));
  return splits < 2 ? 1 : Math.ceil(k / splitKChunk(k, splits));
}

// packages/ir/src/multiResult.ts
function kernelOutputs(n2) {
  if (n2.op === "pointwiseMulti") return n2.attrs.exprs.length;
  if (n2.op === "pointwiseMultiTensor") return n2.attrs.exprs.length * n2.attrs.shapes.length;
  if (n2.op === "pointwiseReduceMulti") return n2.attrs.results.length;
  if (n2.op === "rowwiseMulti") return n2.attrs.exprs.length;
  return n2.op === "attentionWithLse" || n2.op === "attentionGradKV" ? 2 : 1;
}
function resultType(n2, value, index) {
  if (n2.op === "attentionWithLse" && index === 1) return { shape: value.shape.slice(0, -1), dtype: "f32" };
  if (n2.op === "pointwiseMultiTensor") return { shape: [...n2.attrs.shapes[Math.floor(index / n2.attrs.exprs.length)] ?? value.shape], dtype: value.dtype };
  return { shape: [...value.shape], dtype: value.dtype };
}
var MULTI_RESULT_OPS = ["pointwiseMulti", "pointwiseMultiTensor", "pointwiseReduceMulti", "rowwiseMulti", "attentionWithLse", "attentionGradKV"];
function groupOperands(n2) {
  const { shared } = n2.attrs;
  const groups = n2.attrs.shapes.length;
  const roles = groups ? (n2.inputs.length - shared) / groups : 0;
  return { shared, roles, groups, operand: (g, j) => j < shared ? j : shared + g * roles + (j - shared) };
}
function isMultiResultOp(op) {
  return MULTI_RESULT_OPS.includes(op);
}

// packages/ir/src/elementwise.ts
var UNARY_OPS = [
  "neg",
  "abs",
  "exp",
  "log",
  "sqrt",
  "rsqrt",
  "recip",
  "square",
  "relu",
  "sigmoid",
  "tanh",
  "sin",
  "cos",
  "erf",
  "gelu",
  // exact: x·Φ(x) = x/2·(1 + erf(x/√2)) (PyTorch `approximate='none'`)
  "geluTanh",
  // x/2·(1 + tanh(√(2/π)(x + 0.044715x³))) (PyTorch `approximate='tanh'`)
  "silu",
  // x·sigmoid(x)
  "softplus"
  // log(1 + eˣ), computed stably
];
var BINARY_OPS = ["add", "sub", "mul", "div", "max", "min", "pow", "gt", "ge", "lt", "le", "eq"];
var COMPARISON_OPS = ["gt", "ge", "lt", "le", "eq"];
function perUnaryOp(row) {
  return Object.fromEntries(UNARY_OPS.map((op) => [op, row(op)]));
}
function perBinaryOp(row) {
  return Object.fromEntries(BINARY_OPS.map((op) => [op, row(op)]));
}

// packages/ir/src/pointwiseExpr.ts
var GELU_TANH_K = Math.sqrt(2 / Math.PI);
function erf(x) {
  if (Number.isNaN(x)) return x;
  const ax = Math.abs(x);
  if (ax >= 6) return Math.sign(x);
  if (ax < 3) {
    const x2 = 2 * ax * ax;
    let term2 = ax;
    let sum = ax;
    for (let n2 = 1; n2 < 200 && term2 > sum * 1e-17; n2++) {
      term2 *= x2 / (2 * n2 + 1);
      sum += term2;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * Math.exp(-ax * ax) * sum;
  }
  const tiny = 1e-300;
  let f = ax;
  let c = ax;
  let d = 0;
  for (let n2 = 1; n2 < 200; n2++) {
    const an = n2 / 2;
    d = ax + an * d;
    d = d === 0 ? tiny : d;
    c = ax + an / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}
var UNARY_FN = {
  neg: (x) => -x,
  abs: (x) => Math.abs(x),
  exp: (x) => Math.exp(x),
  log: (x) => Math.log(x),
  sqrt: (x) => Math.sqrt(x),
  rsqrt: (x) => 1 / Math.sqrt(x),
  recip: (x) => 1 / x,
  square: (x) => x * x,
  relu: (x) => Math.max(x, 0),
  sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  tanh: (x) => Math.tanh(x),
  sin: (x) => Math.sin(x),
  cos: (x) => Math.cos(x),
  erf,
  gelu: (x) => 0.5 * x * (1 + erf(x * Math.SQRT1_2)),
  geluTanh: (x) => 0.5 * x * (1 + Math.tanh(GELU_TANH_K * (x + 0.044715 * x * x * x))),
  silu: (x) => x / (1 + Math.exp(-x)),
  softplus: (x) => x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x))
};
var BINARY_FN = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  max: (a, b) => Math.max(a, b),
  min: (a, b) => Math.min(a, b),
  pow: (a, b) => a ** b,
  gt: (a, b) => a > b ? 1 : 0,
  ge: (a, b) => a >= b ? 1 : 0,
  lt: (a, b) => a < b ? 1 : 0,
  le: (a, b) => a <= b ? 1 : 0,
  eq: (a, b) => a === b ? 1 : 0
};
function castScalar(x, to) {
  switch (to) {
    case "f32":
      return x;
    case "i32":
      return Math.trunc(x) | 0;
    case "bool":
      return x !== 0 ? 1 : 0;
    default:
      return to;
  }
}
function pwArity(e) {
  switch (e.op) {
    case "in":
      return e.index + 1;
    case "const":
      return 0;
    case "where":
      return Math.max(pwArity(e.c), pwArity(e.a), pwArity(e.b));
    case "cast":
      return pwArity(e.a);
    default:
      return "b" in e ? Math.max(pwArity(e.a), pwArity(e.b)) : pwArity(e.a);
  }
}
function fmtPwExpr(e) {
  switch (e.op) {
    case "in":
      return `$${e.index}`;
    case "const":
      return String(e.value);
    case "where":
      return `(where ${fmtPwExpr(e.c)} ${fmtPwExpr(e.a)} ${fmtPwExpr(e.b)})`;
    case "cast":
      return `(cast:${e.to} ${fmtPwExpr(e.a)})`;
    default:
      return "b" in e ? `(${e.op} ${fmtPwExpr(e.a)} ${fmtPwExpr(e.b)})` : `(${e.op} ${fmtPwExpr(e.a)})`;
  }
}

// packages/ir/src/infer.ts
var unary = (op) => (ins) => {
  arity(op, ins, 1);
  float(op, ins, 0);
  return ins[0];
};
var binary = (op) => (ins) => {
  arity(op, ins, 2);
  if (ins[0].dtype !== ins[1].dtype) fail(op, `dtypes differ: ${ins[0].dtype} vs ${ins[1].dtype}`, ins);
  const shape = broadcastShapes(ins[0].shape, ins[1].shape);
  if (!shape) fail(op, `shapes ${fmtShape(ins[0].shape)} and ${fmtShape(ins[1].shape)} do not broadcast`, ins);
  const dtype = COMPARISON_OPS.includes(op) ? "bool" : ins[0].dtype;
  return { shape, dtype };
};
var reduce = (op) => (ins, a) => {
  arity(op, ins, 1);
  float(op, ins, 0);
  const rank = ins[0].shape.length;
  if (a.axes.some((x) => x < 0 || x >= rank)) fail(op, `axes [${a.axes}] out of range for rank ${rank}`, ins);
  return { shape: reducedShape(ins[0].shape, a.axes, a.keepdims), dtype: "f32" };
};
var classLoss = (op, ins) => {
  const [x, labels] = ins;
  if (x.shape.length !== 2) fail(op, `logits must be [N, C], got ${fmtShape(x.shape)}`, ins);
  if (labels.dtype !== "i32") fail(op, `labels must be i32, got ${labels.dtype}`, ins);
  if (labels.shape.length !== 1 || labels.shape[0] !== x.shape[0])
    fail(op, `labels must be [${x.shape[0]}] to match logits ${fmtShape(x.shape)}, got ${fmtShape(labels.shape)}`, ins);
};
var matmulType = (op, ins, transA, transB) => {
  const [a, b] = ins;
  if (a.shape.length < 2 || b.shape.length < 2) fail(op, "operands must have rank \u2265 2 (batch axes, then a matrix)", ins);
  float(op, ins, 0);
  float(op, ins, 1);
  const ra = a.shape.length;
  const rb = b.shape.length;
  const [m, ka] = transA ? [a.shape[ra - 1], a.shape[ra - 2]] : [a.shape[ra - 2], a.shape[ra - 1]];
  const [kb, n2] = transB ? [b.shape[rb - 1], b.shape[rb - 2]] : [b.shape[rb - 2], b.shape[rb - 1]];
  if (ka !== kb) fail(op, `inner dimensions differ: ${ka} vs ${kb}`, ins);
  const batchA = a.shape.slice(0, -2);
  const batchB = b.shape.slice(0, -2);
  const batch = broadcastShapes(batchA, batchB);
  if (!batch) fail(op, `batch dimensions ${fmtShape(batchA)} and ${fmtShape(batchB)} do not broadcast`, ins);
  return { shape: [...batch, m, n2], dtype: "f32" };
};
var leaf = (_ins, _a, type) => type ?? { shape: [], dtype: "f32" };
function inferRowwise(op, ins, exprs, stats) {
  const n2 = ins.length;
  const shape = broadcastShapes(...ins.map((t) => t.shape));
  if (!shape || shape.length === 0) fail(op, "input shapes do not broadcast to a shape with rows", ins);
  stats.forEach((s, k) => {
    if (pwArity(s.expr) > n2 + k) fail(op, `stat ${k} reads $${pwArity(s.expr) - 1}: only the ${n2} operands and the ${k} stats before it`, ins);
    if (pwArity(s.post) > 1) fail(op, `the epilogue of stat ${k} reads $${pwArity(s.post) - 1}, but sees only the reduced value $0`, ins);
  });
  exprs.forEach((e, j) => {
    const what = exprs.length === 1 && op === "rowwise" ? "the expression" : `expression ${j}`;
    if (pwArity(e) > n2 + stats.length) fail(op, `${what} reads $${pwArity(e) - 1}: there are ${n2} operands and ${stats.length} stats`, ins);
  });
  return { shape, dtype: "f32" };
}
function inferPointwiseReduce(op, ins, a) {
  if (ins.length < pwArity(a.expr)) fail(op, `expression reads ${pwArity(a.expr)} inputs`, ins);
  if (pwArity(a.post) > 1) fail(op, `the epilogue reads $${pwArity(a.post) - 1}, but sees only the reduced value $0`, ins);
  if (!ins.every((t) => t.dtype !== "i32" || a.expr.op !== "in")) fail(op, "reduces f32 values: an i32 operand must go through the expression", ins);
  if (a.shape.some((d) => !Number.isInteger(d) || d < 0)) fail(op, `shape [${a.shape}] is not a list of extents`, ins);
  const b = broadcastShapes(...ins.map((t) => t.shape), a.shape);
  if (!b || b.length !== a.shape.length || b.some((d, i) => d !== a.shape[i])) fail(op, `inputs do not broadcast to the prologue's shape ${fmtShape(a.shape)}`, ins);
  const rank = a.shape.length;
  if (a.axes.some((x) => x < 0 || x >= rank) || a.axes.some((x, i) => i > 0 && x <= a.axes[i - 1])) fail(op, `axes [${a.axes}] are not sorted, distinct and within rank ${rank}`, ins);
  return { shape: reducedShape(a.shape, a.axes, a.keepdims), dtype: "f32" };
}
var INFER = {
  input: leaf,
  param: leaf,
  state: leaf,
  const: leaf,
  ...perUnaryOp(unary),
  ...perBinaryOp(binary),
  where: (ins) => {
    arity("where", ins, 3);
    if (ins[0].dtype !== "bool") fail("where", `condition must be bool, got ${ins[0].dtype}`, ins);
    if (ins[1].dtype !== ins[2].dtype) fail("where", `branch dtypes differ: ${ins[1].dtype} vs ${ins[2].dtype}`, ins);
    const shape = broadcastShapes(ins[0].shape, ins[1].shape, ins[2].shape);
    if (!shape) fail("where", "shapes do not broadcast", ins);
    return { shape, dtype: ins[1].dtype };
  },
  cast: (ins, a) => {
    arity("cast", ins, 1);
    return { shape: ins[0].shape, dtype: a.to };
  },
  sum: reduce("sum"),
  mean: reduce("mean"),
  reduceMax: reduce("reduceMax"),
  reduceMin: reduce("reduceMin"),
  argmax: inferArgmax,
  reshape: (ins, a) => {
    arity("reshape", ins, 1);
    if (a.shape.some((d) => !Number.isInteger(d) || d < 0) || numel(a.shape) !== numel(ins[0].shape))
      fail("reshape", `cannot reshape ${fmtShape(ins[0].shape)} to ${fmtShape(a.shape)}`, ins);
    return { shape: a.shape, dtype: ins[0].dtype };
  },
  after: (ins) => {
    arity("after", ins, 2);
    return ins[0];
  },
  transpose: (ins, a) => {
    arity("transpose", ins, 1);
    const rank = ins[0].shape.length;
    const ok = a.perm.length === rank && [...a.perm].sort((x, y) => x - y).every((p, i) => p === i);
    if (!ok) fail("transpose", `perm [${a.perm}] is not a permutation of rank ${rank}`, ins);
    return { shape: a.perm.map((p) => ins[0].shape[p]), dtype: ins[0].dtype };
  },
  expand: (ins, a) => {
    arity("expand", ins, 1);
    if (!broadcastsTo(ins[0].shape, a.shape))
      fail("expand", `${fmtShape(ins[0].shape)} does not broadcast to ${fmtShape(a.shape)}`, ins);
    return { shape: a.shape, dtype: ins[0].dtype };
  },
  slice: inferSlice,
  pad: inferPad,
  concat: inferConcat,
  gather: inferGather,
  scatterAdd: inferScatterAdd,
  oneHot: inferOneHot,
  custom: (ins, a) => {
    const t = customOpDef(a.name).infer(ins, a.params);
    if (!t || !Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0) || !["f32", "i32", "bool"].includes(t.dtype))
      fail(`custom ${a.name}`, `its infer returned ${JSON.stringify(t)}, not a { shape, dtype } type`, ins);
    return { shape: [...t.shape], dtype: t.dtype };
  },
  stopGradient: (ins) => {
    arity("stopGradient", ins, 1);
    return ins[0];
  },
  matmul: (ins, a) => {
    arity("matmul", ins, 2);
    return matmulType("matmul", ins, a.transA, a.transB);
  },
  logSoftmax: (ins, a) => {
    arity("logSoftmax", ins, 1);
    float("logSoftmax", ins, 0);
    if (a.axis !== ins[0].shape.length - 1) fail("logSoftmax", `only the last axis is supported, got ${a.axis}`, ins);
    return ins[0];
  },
  logSoftmaxGrad: (ins, a) => {
    arity("logSoftmaxGrad", ins, 2);
    if (fmtShape(ins[0].shape) !== fmtShape(ins[1].shape)) fail("logSoftmaxGrad", "shapes differ", ins);
    if (a.axis !== ins[0].shape.length - 1) fail("logSoftmaxGrad", "only the last axis is supported", ins);
    return ins[0];
  },
  nll: (ins) => {
    arity("nll", ins, 2);
    classLoss("nll", ins);
    return { shape: [], dtype: "f32" };
  },
  nllGrad: (ins, a) => {
    arity("nllGrad", ins, 2);
    if (ins[0].dtype !== "i32" || ins[0].shape.length !== 1) fail("nllGrad", "labels must be [N] i32", ins);
    if (ins[1].shape.length !== 0) fail("nllGrad", "dy must be a scalar", ins);
    return { shape: [ins[0].shape[0], a.classes], dtype: "f32" };
  },
  attention: inferAttention,
  attentionLse: inferAttentionLse,
  attentionWithLse: inferAttentionWithLse,
  attentionGradKV: inferAttentionGradKV,
  attentionGradQKV: inferAttentionGradQKV,
  attentionGrad: inferAttentionGrad,
  rope: inferRope,
  dropout: inferDropout,
  conv2d: inferConv2d,
  conv2dGradInput: inferConv2dGradInput,
  conv2dGradWeight: inferConv2dGradWeight,
  maxPool2d: inferPool("maxPool2d"),
  maxPool2dGrad: inferMaxPool2dGrad,
  avgPool2d: inferPool("avgPool2d"),
  avgPool2dGrad: inferAvgPool2dGrad,
  fusedMatmul: (ins, a) => {
    arity("fusedMatmul", ins, a.bias ? 3 : 2);
    const t = matmulType("fusedMatmul", ins, a.transA, a.transB);
    if (a.bias && !broadcastsTo(ins[2].shape, t.shape))
      fail("fusedMatmul", `bias ${fmtShape(ins[2].shape)} does not broadcast to ${fmtShape(t.shape)}`, ins);
    return t;
  },
  rowwise: (ins, a) => inferRowwise("rowwise", ins, [a.expr], a.stats),
  rowwiseMulti: (ins, a) => {
    if (a.exprs.length === 0) fail("rowwiseMulti", "needs at least one expression", ins);
    return inferRowwise("rowwiseMulti", ins, a.exprs, a.stats);
  },
  matmulPartials: (ins, a) => {
    const op = "matmulPartials";
    arity(op, ins, 2);
    const t = matmulType(op, ins, a.transA, a.transB);
    if (t.shape.length !== 2) fail(op, "operands must be matrices (split-K is for unbatched products)", ins);
    const k = a.transA ? ins[0].shape[0] : ins[0].shape[1];
    if (!Number.isInteger(a.splits) || a.splits < 1 || Math.ceil(k / splitKChunk(k, a.splits)) !== a.splits)
      fail(op, `splits ${a.splits} is not a split of K=${k} into chunks of a multiple of ${SPLIT_K_SLICE} (see splitKChunk)`, ins);
    return { shape: [a.splits, ...t.shape], dtype: "f32" };
  },
  matmulEpilogue: (ins, a) => {
    const op = "matmulEpilogue";
    if (ins.length < 2) fail(op, "needs the two matmul operands", ins);
    const t = matmulType(op, ins, a.transA, a.transB);
    if (pwArity(a.expr) > ins.length - 1) fail(op, `the epilogue reads $${pwArity(a.expr) - 1}, but there are ${ins.length - 2} extra operands`, ins);
    ins.slice(2).forEach((e, k) => {
      if (!broadcastsTo(e.shape, t.shape)) fail(op, `extra operand ${k} ${fmtShape(e.shape)} does not broadcast to ${fmtShape(t.shape)}`, ins);
    });
    return t;
  },
  pointwise: (ins, a) => {
    if (ins.length < pwArity(a.expr)) fail("pointwise", `expression reads ${pwArity(a.expr)} inputs`, ins);
    const shape = broadcastShapes(...ins.map((t) => t.shape));
    if (!shape) fail("pointwise", "input shapes do not broadcast", ins);
    return { shape, dtype: a.dtype };
  },
  pointwiseMulti: (ins, a) => {
    if (a.exprs.length === 0) fail("pointwiseMulti", "needs at least one expression", ins);
    const reads = Math.max(...a.exprs.map((e) => pwArity(e)));
    if (ins.length < reads) fail("pointwiseMulti", `expressions read ${reads} inputs`, ins);
    const shape = broadcastShapes(...ins.map((t) => t.shape));
    if (!shape) fail("pointwiseMulti", "input shapes do not broadcast", ins);
    return { shape, dtype: a.dtype };
  },
  pointwiseMultiTensor: (ins, a) => {
    const op = "pointwiseMultiTensor";
    if (a.exprs.length === 0) fail(op, "needs at least one expression", ins);
    const { shared, roles, groups, operand } = groupOperands({ inputs: ins, attrs: a });
    if (groups === 0) fail(op, "needs at least one group", ins);
    if (!(Number.isInteger(shared) && shared >= 0 && Number.isInteger(roles) && roles >= 1))
      fail(op, `${ins.length} inputs do not split into ${shared} shared operands and ${groups} groups of equal size`, ins);
    const reads = Math.max(...a.exprs.map((e) => pwArity(e)));
    if (reads > shared + roles) fail(op, `expressions read ${reads} operands, a group has ${shared + roles}`, ins);
    for (let i = 0; i < shared; i++) if (ins[i].shape.reduce((p, d) => p * d, 1) !== 1) fail(op, `shared operand ${i} has more than one element`, ins);
    const P = a.partials;
    if (P && (!(Number.isInteger(P.role) && P.role >= 0 && P.role < roles) || P.splits.length !== groups || P.splits.some((s) => !(Number.isInteger(s) && s >= 1))))
      fail(op, `partials ${JSON.stringify(P)} name no role of ${roles} or not one split count (\u2265 1) per group of ${groups}`, ins);
    a.shapes.forEach((shape, g) => {
      for (let j = shared; j < shared + roles; j++) {
        const t = ins[operand(g, j)];
        const S = P && P.role === j - shared && P.splits[g] > 1 ? P.splits[g] : 0;
        const want = S ? [S, ...shape] : shape;
        if (t.shape.length !== want.length || t.shape.some((d, i) => d !== want[i])) fail(op, `operand ${operand(g, j)} (group ${g}, role ${j - shared}) is not of shape [${want}]${S ? ` (${S} partials of its group's shape)` : " (its group's shape)"}`, ins);
      }
    });
    return { shape: [...a.shapes[0]], dtype: a.dtype };
  },
  pointwiseReduce: (ins, a) => inferPointwiseReduce("pointwiseReduce", ins, a),
  pointwiseReduceMulti: (ins, a) => {
    if (a.results.length === 0) fail("pointwiseReduceMulti", "needs at least one result", ins);
    const { results, ...rest } = a;
    return results.map((r) => inferPointwiseReduce("pointwiseReduceMulti", ins, { ...rest, ...r }))[0];
  },
  pick: (ins, a) => {
    arity("pick", ins, 1);
    const src = ins[0];
    if (src.op === void 0 || !isMultiResultOp(src.op)) fail("pick", `reads a result of a multi-result op (${MULTI_RESULT_OPS.join(", ")}), not of ${src.op ?? "a bare tensor"}`, ins);
    const k = kernelOutputs(src);
    if (!Number.isInteger(a.index) || a.index < 0 || a.index >= k) fail("pick", `result ${a.index} does not exist`, ins);
    return resultType(src, src, a.index);
  },
  softmaxCrossEntropy: (ins) => {
    arity("softmaxCrossEntropy", ins, 2);
    classLoss("softmaxCrossEntropy", ins);
    return { shape: [], dtype: "f32" };
  },
  softmaxCrossEntropyGrad: (ins) => {
    arity("softmaxCrossEntropyGrad", ins, 3);
    classLoss("softmaxCrossEntropyGrad", ins);
    if (ins[2].shape.length !== 0) fail("softmaxCrossEntropyGrad", "dy must be a scalar", ins);
    return ins[0];
  }
};
function inferType(op, ins, attrs, leafType2) {
  return INFER[op](ins, attrs, leafType2);
}

// packages/ir/src/opWithAttrs.ts
function withAttrs(op, attrs) {
  return { op, attrs };
}
function isOp(x, ...ops) {
  return ops.includes(x.op);
}
function attrsOf(x, ...ops) {
  if (!isOp(x, ...ops)) throw new TypeError(`attrsOf: expected ${ops.join(" or ")}, got ${x.op}`);
  return x.attrs;
}

// packages/ir/src/graph.ts
function leafName(n2) {
  return n2.op === "input" || n2.op === "param" || n2.op === "state" ? n2.attrs.name : void 0;
}
var EMPTY = {};
var Graph = class _Graph {
  nodes = [];
  /** Named results of the graph (for example `loss`). */
  outputs = /* @__PURE__ */ new Map();
  /** In-place updates of `param`/`state` leaves, in the order they were declared. */
  updates = [];
  memo = /* @__PURE__ */ new Map();
  names = /* @__PURE__ */ new Map();
  recordSites;
  /**
   * An empty graph. `recordSites: false` skips recording each node's user call site (a stack trace per node):
   * for graphs built by passes (the optimizer's rebuild), whose nodes have no user site worth the cost.
   */
  constructor(opts = {}) {
    this.recordSites = opts.recordSites ?? true;
  }
  /**
   * A copy that shares the (immutable) nodes: building on the copy never changes this graph, and a node of this
   * graph is a node of the copy (same id), so tensors built here can be used there.
   */
  clone() {
    const g = new _Graph({ recordSites: this.recordSites });
    for (const n2 of this.nodes) g.nodes.push(n2);
    for (const [k, v] of this.outputs) g.outputs.set(k, v);
    for (const u of this.updates) g.updates.push(u);
    for (const [k, v] of this.memo) g.memo.set(k, v);
    for (const [k, v] of this.names) g.names.set(k, v);
    return g;
  }
  /** The node with this id. */
  get(id) {
    const n2 = this.nodes[id];
    if (!n2) throw new GraphError(`no node with id ${id} in this graph`);
    return n2;
  }
  /** Leaves of one kind (`input`, `param`, `state`), in creation order. */
  leaves(op) {
    return this.nodes.filter((n2) => isOp(n2, op));
  }
  /** The input, param or state leaf with this name, if any. */
  byName(name) {
    const id = this.names.get(name);
    const n2 = id === void 0 ? void 0 : this.nodes[id];
    return n2 && isOp(n2, "input", "param", "state") ? n2 : void 0;
  }
  /**
   * Adds (or finds, by structure) a node. The generic entry point used by every builder method and by
   * passes that rebuild graphs; `leafType` is the declared type of a leaf.
   */
  node(op, inputs, attrs, leafType2) {
    const ids2 = inputs.map((x) => typeof x === "number" ? x : x.id);
    for (const id of ids2) if (!this.nodes[id]) throw new GraphError(`${op}: operand ${id} is not a node of this graph`, op);
    inputs.forEach((x, k) => {
      if (typeof x !== "number" && this.nodes[x.id] !== x && !sameNode(this.nodes[x.id], x))
        throw new GraphError(`${op}: operand ${k} (${fmtShape(x.shape)} ${x.dtype}) belongs to another graph`, op, userCallSite());
    });
    if (leafType2 && leafType2.shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`${op}: invalid shape ${fmtShape(leafType2.shape)} (extents must be integers \u2265 0)`, op, userCallSite());
    const key = `${op}|${JSON.stringify(attrs, exactNumbers)}|${ids2.join(",")}|${leafType2 ? `${leafType2.shape}:${leafType2.dtype}` : ""}`;
    const hit = this.memo.get(key);
    if (hit !== void 0) return this.nodes[hit];
    let type;
    try {
      type = inferType(
        op,
        ids2.map((id) => this.nodes[id]),
        attrs,
        leafType2
      );
    } catch (e) {
      if (e instanceof GraphError && !e.site) throw new GraphError(e.message, e.op, userCallSite());
      throw e;
    }
    const node = { id: this.nodes.length, op, inputs: ids2, attrs, shape: [...type.shape], dtype: type.dtype, site: this.recordSites ? userCallSite() : void 0 };
    this.nodes.push(node);
    this.memo.set(key, node.id);
    return node;
  }
  named(op, attrs, shape, dtype) {
    const name = attrs.name;
    if (this.names.has(name)) throw new GraphError(`${op}: the name '${name}' is already used by another leaf`, op, userCallSite());
    if (shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`${op} '${name}': invalid shape ${fmtShape(shape)}`, op, userCallSite());
    const n2 = this.node(op, [], attrs, { shape, dtype });
    this.names.set(name, n2.id);
    return n2;
  }
  /** A value fed at every step (data, labels). */
  input(name, shape, dtype = "f32") {
    return this.named("input", { name }, shape, dtype);
  }
  /**
   * A trainable parameter, initialised once. Default init: PyTorch's kaiming_uniform(a=√5) = U(±1/√fanIn), with
   * fanIn = shape[0] for a matrix (neura stores Linear weights [in, out]) and C·KH·KW = ∏shape[1:] for a
   * convolution-style weight [O, C, KH, …] of rank ≥ 3; a vector uses its length.
   */
  param(name, shape, init) {
    const fanIn = shape.length > 2 ? shape.slice(1).reduce((a, b) => a * b, 1) : shape[0] ?? 1;
    const bound = 1 / Math.sqrt(Math.max(1, fanIn));
    const seed = hashName(name);
    return this.named("param", { name, init: init ?? { kind: "uniform", low: -bound, high: bound, seed } }, shape, "f32");
  }
  /** A non-trainable persistent tensor (optimizer moments, counters). */
  state(name, shape, init = { kind: "zeros" }, dtype = "f32") {
    return this.named("state", { name, init }, shape, dtype);
  }
  /** A constant filled with one value. */
  constant(value, shape = [], dtype = "f32") {
    if (dtype !== "f32" && !(Number.isInteger(value) && value >= -2147483648 && value <= 2147483647))
      throw new GraphError(`const: value ${value} is not representable as ${dtype}`, "const", userCallSite());
    return this.node("const", [], { value }, { shape, dtype });
  }
  lift(x, like) {
    return typeof x === "number" ? this.constant(x, [], like?.dtype === "i32" && Number.isInteger(x) ? "i32" : "f32") : x;
  }
  /**
   * The operands of a binary op with a Python-style scalar: an integer number next to an i32 tensor stays i32;
   * any other number makes an f32 constant and promotes an i32 tensor to f32 (PyTorch: `int_tensor * 0.5` is float).
   */
  scalarOperands(a, b) {
    const promote = (t, other) => typeof t !== "number" && t.dtype === "i32" && typeof other === "number" && !Number.isInteger(other) ? this.cast(t, "f32") : t;
    const pa = promote(a, b);
    const pb = promote(b, a);
    const ta = this.lift(pa, typeof pb === "number" ? void 0 : pb);
    return [ta, this.lift(pb, ta)];
  }
  /** Any elementwise op of one operand, by name (the named methods below are shorthands). */
  unary(op, x) {
    return this.node(op, [x], EMPTY);
  }
  neg(x) {
    return this.unary("neg", x);
  }
  abs(x) {
    return this.unary("abs", x);
  }
  exp(x) {
    return this.unary("exp", x);
  }
  log(x) {
    return this.unary("log", x);
  }
  sqrt(x) {
    return this.unary("sqrt", x);
  }
  rsqrt(x) {
    return this.unary("rsqrt", x);
  }
  recip(x) {
    return this.unary("recip", x);
  }
  square(x) {
    return this.unary("square", x);
  }
  relu(x) {
    return this.unary("relu", x);
  }
  sigmoid(x) {
    return this.unary("sigmoid", x);
  }
  tanh(x) {
    return this.unary("tanh", x);
  }
  sin(x) {
    return this.unary("sin", x);
  }
  cos(x) {
    return this.unary("cos", x);
  }
  erf(x) {
    return this.unary("erf", x);
  }
  silu(x) {
    return this.unary("silu", x);
  }
  softplus(x) {
    return this.unary("softplus", x);
  }
  /** GELU: exact (erf) by default, or the tanh approximation (PyTorch's `approximate` option). */
  gelu(x, opts = {}) {
    return this.unary(opts.approximate === "tanh" ? "geluTanh" : "gelu", x);
  }
  /** `x > 0 ? x : alpha·x`, built from where/gt/mul so that it fuses into pointwise kernels. */
  leakyRelu(x, alpha = 0.01) {
    return this.where(this.gt(x, 0), x, this.mul(x, alpha));
  }
  bin(op, a, b) {
    return this.node(op, this.scalarOperands(a, b), EMPTY);
  }
  add(a, b) {
    return this.bin("add", a, b);
  }
  sub(a, b) {
    return this.bin("sub", a, b);
  }
  mul(a, b) {
    return this.bin("mul", a, b);
  }
  div(a, b) {
    return this.bin("div", a, b);
  }
  max(a, b) {
    return this.bin("max", a, b);
  }
  min(a, b) {
    return this.bin("min", a, b);
  }
  pow(a, b) {
    return this.bin("pow", a, b);
  }
  gt(a, b) {
    return this.bin("gt", a, b);
  }
  ge(a, b) {
    return this.bin("ge", a, b);
  }
  lt(a, b) {
    return this.bin("lt", a, b);
  }
  le(a, b) {
    return this.bin("le", a, b);
  }
  eq(a, b) {
    return this.bin("eq", a, b);
  }
  /** Elementwise `cond ? a : b` with broadcasting. */
  where(cond, a, b) {
    return this.node("where", [cond, ...this.scalarOperands(a, b)], EMPTY);
  }
  /** Converts to another dtype. */
  cast(x, to) {
    return x.dtype === to ? x : this.node("cast", [x], { to });
  }
  axes(op, x, axes) {
    const list = axes === void 0 ? x.shape.map((_, i) => i) : typeof axes === "number" ? [axes] : axes;
    const norm = normalizeAxes(list, x.shape.length);
    if (!norm) throw new GraphError(`${op}: axes [${list}] out of range for shape ${fmtShape(x.shape)}`, op, userCallSite());
    return norm;
  }
  /** Sum over axes (all by default). */
  sum(x, axes, keepdims = false) {
    return this.node("sum", [x], { axes: this.axes("sum", x, axes), keepdims });
  }
  /** Mean over axes (all by default). */
  mean(x, axes, keepdims = false) {
    return this.node("mean", [x], { axes: this.axes("mean", x, axes), keepdims });
  }
  /** Maximum over axes (all by default). */
  reduceMax(x, axes, keepdims = false) {
    return this.node("reduceMax", [x], { axes: this.axes("reduceMax", x, axes), keepdims });
  }
  /** Minimum over axes (all by default). */
  reduceMin(x, axes, keepdims = false) {
    return this.node("reduceMin", [x], { axes: this.axes("reduceMin", x, axes), keepdims });
  }
  /** Index (i32) of the first maximum along an axis (the last by default); carries no gradient. */
  argmax(x, axis = -1, keepdims = false) {
    return this.node("argmax", [x], { axis: this.axis("argmax", x, axis), keepdims });
  }
  /**
   * Variance over axes (all by default), as the decomposition mean((x − mean(x))²) so that the e-graph can fuse
   * it; `correction` 1 gives the unbiased estimate (PyTorch's default is 1, ours 0 as in LayerNorm).
   */
  variance(x, axes, opts = {}) {
    const ax = this.axes("variance", x, axes);
    const centred = this.sub(x, this.mean(x, ax, true));
    const v = this.mean(this.square(centred), ax, opts.keepdims ?? false);
    const count = ax.reduce((p, a) => p * x.shape[a], 1);
    const c = opts.correction ?? 0;
    return c === 0 ? v : this.mul(v, count / (count - c));
  }
  axis(op, x, axis, rank = x.shape.length) {
    const a = axis < 0 ? axis + rank : axis;
    if (!Number.isInteger(a) || a < 0 || a >= rank)
      throw new GraphError(`${op}: axis ${axis} out of range for shape ${fmtShape(x.shape)}`, op, userCallSite());
    return a;
  }
  /**
   * A strided window, Python-style per axis: negative indices count from the end, bounds are clamped, and
   * missing trailing axes are taken whole. `slice(x, [0, 2], [4, -1])` is `x[0:4, 2:-1]`.
   */
  slice(x, starts, ends, steps = []) {
    const rank = x.shape.length;
    if (starts.length > rank || ends.length > rank || steps.length > rank)
      throw new GraphError(`slice: more entries than axes for shape ${fmtShape(x.shape)}`, "slice", userCallSite());
    const norm = (v, d, dflt) => v === void 0 ? dflt : Math.min(d, Math.max(0, v < 0 ? v + d : v));
    const st = x.shape.map((_, i) => steps[i] ?? 1);
    const s = x.shape.map((d, i) => norm(starts[i], d, 0));
    const e = x.shape.map((d, i) => Math.max(s[i], norm(ends[i], d, d)));
    if (x.shape.every((d, i) => s[i] === 0 && e[i] === d && st[i] === 1)) return x;
    return this.node("slice", [x], { starts: s, ends: e, steps: st });
  }
  /** Splits along an axis into pieces of the given sizes (or `n` equal pieces): several slices. */
  split(x, sizes2, axis = -1) {
    const a = this.axis("split", x, axis);
    const d = x.shape[a];
    const list = typeof sizes2 === "number" ? Array.from({ length: sizes2 }, () => d / sizes2) : [...sizes2];
    if (list.some((v) => !Number.isInteger(v) || v < 0) || list.reduce((p, v) => p + v, 0) !== d)
      throw new GraphError(`split: sizes [${list}] do not partition axis ${a} of ${fmtShape(x.shape)}`, "split", userCallSite());
    let at = 0;
    return list.map((n2) => {
      const starts = x.shape.map((_, i) => i === a ? at : 0);
      const ends = x.shape.map((e, i) => i === a ? at + n2 : e);
      at += n2;
      return this.slice(x, starts, ends);
    });
  }
  /** Pads each axis with `value`: `before[i]`/`after[i]` elements at its edges (missing entries are 0). */
  pad(x, before, after, value = 0, interior = []) {
    const full = (v) => x.shape.map((_, i) => v[i] ?? 0);
    return this.node("pad", [x], { before: full(before), after: full(after), interior: full(interior), value });
  }
  /** Joins tensors along an axis. */
  concat(xs, axis = 0) {
    if (xs.length === 0) throw new GraphError("concat: needs at least one operand", "concat", userCallSite());
    if (xs.length === 1) return xs[0];
    return this.node("concat", xs, { axis: this.axis("concat", xs[0], axis) });
  }
  /** numpy `take(table, indices, axis)`; `gather(table [V, D], ids [B, T])` is an embedding lookup → [B, T, D]. */
  gather(table4, indices, axis = 0) {
    return this.node("gather", [table4, indices], { axis: this.axis("gather", table4, axis) });
  }
  /** `target` plus `updates` (shaped like `gather(target, indices, axis)`) summed in at `indices`. */
  scatterAdd(target, indices, updates, axis = 0) {
    return this.node("scatterAdd", [target, indices, updates], { axis: this.axis("scatterAdd", target, axis) });
  }
  /** f32 one-hot rows of i32 labels; labels outside [0, classes) give zero rows. */
  oneHot(labels, classes2) {
    return this.node("oneHot", [labels], { classes: classes2 });
  }
  /** A registered custom op (see `registerCustomOp`, or `customOp` in @neura/nn) on `inputs`, with plain-data `params`. */
  custom(name, inputs, params = {}) {
    return this.node("custom", inputs, { name, params });
  }
  /** Identity forward; gradients do not flow through it. */
  stopGradient(x) {
    return this.node("stopGradient", [x], EMPTY);
  }
  /** `x` itself, ordered after `dep` (a view: no kernel, no copy); made by the optimizer's recompute alternatives. */
  after(x, dep) {
    return this.node("after", [x, dep], EMPTY);
  }
  /** Same data, new shape; one extent may be -1 (inferred). */
  reshape(x, shape) {
    const known = shape.reduce((p, d) => d === -1 ? p : p * d, 1);
    const total = x.shape.reduce((p, d) => p * d, 1);
    const resolved = shape.map((d) => d === -1 ? known === 0 ? 0 : total / known : d);
    if (resolved.length === x.shape.length && resolved.every((d, i) => d === x.shape[i])) return x;
    return this.node("reshape", [x], { shape: resolved });
  }
  /** Permutes axes (reverses them by default). */
  transpose(x, perm) {
    const p = perm ? [...perm] : x.shape.map((_, i) => x.shape.length - 1 - i);
    if (p.every((v, i) => v === i) && p.length === x.shape.length) return x;
    return this.node("transpose", [x], { perm: p });
  }
  /** Broadcasts to a larger shape (numpy rules). */
  expand(x, shape) {
    if (shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`expand: invalid target shape ${fmtShape(shape)} (extents must be integers \u2265 0)`, "expand", userCallSite());
    if (shape.length === x.shape.length && shape.every((d, i) => d === x.shape[i])) return x;
    return this.node("expand", [x], { shape: [...shape] });
  }
  /**
   * Matrix product over the last two axes, with optional transposes of either operand's last two axes;
   * leading (batch) axes broadcast as in numpy: [B, T, K]·[K, N] → [B, T, N].
   */
  matmul(a, b, opts = {}) {
    return this.node("matmul", [a, b], { transA: opts.transA ?? false, transB: opts.transB ?? false });
  }
  /**
   * The split-K partial products of op(a)·op(b) (matrices), [splits, M, N]: their sum over axis 0 is the product
   * (see `OpAttrs['matmulPartials']`; `matmulSplitK` gives the runtime's split).
   */
  matmulPartials(a, b, splits, opts = {}) {
    return this.node("matmulPartials", [a, b], { transA: opts.transA ?? false, transB: opts.transB ?? false, splits });
  }
  /** `x · w + b`: an affine layer with w of shape [in, out]. */
  linear(x, w2, b) {
    const y = this.matmul(x, w2);
    return b ? this.add(y, b) : y;
  }
  /** Log-softmax along an axis (the last). */
  logSoftmax(x, axis = -1) {
    return this.node("logSoftmax", [x], { axis: axis < 0 ? axis + x.shape.length : axis });
  }
  /** Softmax along an axis (the last). */
  softmax(x, axis = -1) {
    return this.exp(this.logSoftmax(x, axis));
  }
  /** Negative log-likelihood of integer labels under log-probabilities [N, C]. */
  nll(logp, labels, reduction = "mean") {
    return this.node("nll", [logp, labels], { reduction });
  }
  /**
   * Cross-entropy of integer labels under logits [N, C] (or [..., C] with labels [...], flattened). Plain, it is
   * nll(logSoftmax(logits)), which the e-graph fuses. With `labelSmoothing` ε or `ignoreIndex` it is the
   * decomposition −Σ_c target·logSoftmax(logits) with target = (1 − ε)·oneHot(labels) + ε/C on rows whose label
   * is in range; rows with an out-of-range label (the ignored ones) count for nothing, and `mean` divides by
   * the number of counted rows (PyTorch's semantics; NaN when every row is ignored).
   */
  crossEntropy(logits, labels, opts = "mean") {
    const o = typeof opts === "string" ? { reduction: opts } : opts;
    const reduction = o.reduction ?? "mean";
    if (logits.shape.length < 2)
      throw new GraphError(`crossEntropy: logits must be [N, C] or [..., C], got ${fmtShape(logits.shape)}`, "crossEntropy", userCallSite());
    const c = logits.shape[logits.shape.length - 1];
    const rows = logits.shape.slice(0, -1);
    if (labels.dtype !== "i32") throw new GraphError(`crossEntropy: labels must be i32, got ${labels.dtype}`, "crossEntropy", userCallSite());
    if (labels.shape.length !== rows.length || labels.shape.some((d, i) => d !== rows[i]))
      throw new GraphError(
        `crossEntropy: labels ${fmtShape(labels.shape)} do not match logits ${fmtShape(logits.shape)} (want labels ${fmtShape(rows)})`,
        "crossEntropy",
        userCallSite()
      );
    const x = logits.shape.length === 2 ? logits : this.reshape(logits, [-1, c]);
    const l = labels.shape.length === 1 ? labels : this.reshape(labels, [-1]);
    const eps = o.labelSmoothing ?? 0;
    if (eps === 0 && o.ignoreIndex === void 0) return this.nll(this.logSoftmax(x), l, reduction);
    if (!(eps >= 0 && eps <= 1)) throw new GraphError(`crossEntropy: labelSmoothing ${eps} is outside [0, 1]`, "crossEntropy", userCallSite());
    const logp = this.logSoftmax(x);
    const hot = this.oneHot(l, c);
    const counted = this.sum(hot, 1, true);
    const target = eps === 0 ? hot : this.add(this.mul(hot, 1 - eps), this.mul(counted, eps / c));
    const perRow = this.neg(this.sum(this.mul(target, logp), 1));
    if (reduction === "sum") return this.sum(perRow);
    return o.ignoreIndex === void 0 ? this.mean(perRow) : this.div(this.sum(perRow), this.sum(counted));
  }
  /** Layer normalisation over the last axes (default the last): (x − mean)·rsqrt(var + eps)·weight + bias, decomposed. */
  layerNorm(x, weight, bias, opts = {}) {
    const axes = this.axes("layerNorm", x, opts.axes ?? -1);
    const centred = this.sub(x, this.mean(x, axes, true));
    const variance = this.mean(this.square(centred), axes, true);
    let y = this.mul(centred, this.rsqrt(this.add(variance, opts.eps ?? 1e-5)));
    if (weight) y = this.mul(y, weight);
    return bias ? this.add(y, bias) : y;
  }
  /** RMS normalisation over the last axis: x·rsqrt(mean(x²) + eps)·weight, decomposed. */
  rmsNorm(x, weight, opts = {}) {
    const y = this.mul(x, this.rsqrt(this.add(this.mean(this.square(x), -1, true), opts.eps ?? 1e-6)));
    return weight ? this.mul(y, weight) : y;
  }
  /**
   * Group normalisation of x [N, C, ...] (NCHW for images): the channels split into `groups` groups, each
   * normalised over its channels and spatial positions as [N, G, C/G·rest] → (x − mean)·rsqrt(var + eps), then
   * a per-channel affine with weight/bias [C] broadcast as [1, C, 1, ...]; decomposed.
   */
  groupNorm(x, groups, weight, bias, opts = {}) {
    if (x.shape.length < 2 || !Number.isInteger(groups) || groups < 1 || x.shape[1] % groups !== 0)
      throw new GraphError(`groupNorm: ${groups} groups do not divide the channels of ${fmtShape(x.shape)} (want [N, C, ...])`, "groupNorm", userCallSite());
    const [n2, c] = x.shape;
    const grouped = this.reshape(x, [n2, groups, -1]);
    const centred = this.sub(grouped, this.mean(grouped, 2, true));
    const variance = this.mean(this.square(centred), 2, true);
    let y = this.reshape(this.mul(centred, this.rsqrt(this.add(variance, opts.eps ?? 1e-5))), x.shape);
    const perChannel = x.shape.map((_, i) => i === 1 ? c : 1);
    if (weight) y = this.mul(y, this.reshape(weight, perChannel));
    return bias ? this.add(y, this.reshape(bias, perChannel)) : y;
  }
  reduceLoss(x, reduction) {
    return reduction === "mean" ? this.mean(x) : this.sum(x);
  }
  /** Mean (or summed) squared error. */
  mse(pred, target, reduction = "mean") {
    return this.reduceLoss(this.square(this.sub(pred, target)), reduction);
  }
  /** Mean (or summed) absolute error. */
  l1(pred, target, reduction = "mean") {
    return this.reduceLoss(this.abs(this.sub(pred, target)), reduction);
  }
  /** Binary cross-entropy of targets in [0, 1] under logits, stably: relu(x) − x·t + softplus(−|x|). */
  bceWithLogits(logits, targets, reduction = "mean") {
    const per = this.add(this.sub(this.relu(logits), this.mul(logits, targets)), this.softplus(this.neg(this.abs(logits))));
    return this.reduceLoss(per, reduction);
  }
  /**
   * Scaled dot-product attention of q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] as one op (default scale
   * 1/√D; `causal` masks future keys, top-left aligned).
   */
  attention(q, k, v, opts = {}) {
    const d = q.shape[q.shape.length - 1];
    return this.node("attention", [q, k, v], { causal: opts.causal ?? false, scale: opts.scale ?? 1 / Math.sqrt(d) });
  }
  /** Rotary position embedding of x [..., T, D] (half-split pairs, base 10000 by default). */
  rope(x, opts = {}) {
    return this.node("rope", [x], { base: opts.base ?? 1e4, inverse: false });
  }
  /**
   * Dropout with probability p and an explicit seed: the mask is a hash of (seed + offset, element index), so
   * the same on every run and device; feed a different i32 scalar `offset` (the step) to vary it per step.
   */
  dropout(x, p, seed, offset) {
    if (p === 0) return x;
    return this.node("dropout", offset ? [x, offset] : [x], { p, seed });
  }
  /**
   * 2-D convolution, NCHW: x [N, C, H, W], w [O, C/groups, KH, KW], optional bias [O]. Numbers apply to both
   * axes; pairs are [H, W].
   */
  conv2d(x, w2, bias, opts = {}) {
    const y = this.node("conv2d", [x, w2], { stride: pair(opts.stride ?? 1), padding: pair(opts.padding ?? 0), dilation: pair(opts.dilation ?? 1), groups: opts.groups ?? 1 });
    return bias ? this.add(y, this.reshape(bias, [bias.shape[0], 1, 1])) : y;
  }
  /**
   * Transposed 2-D convolution (PyTorch's conv_transpose2d), NCHW: x [N, Cin, H, W], w [Cin, Cout/groups, KH, KW],
   * optional bias [Cout]; Ho = (H − 1)·sh − 2ph + dh(KH − 1) + outputPadding + 1. It is conv2d's gradient in its input.
   */
  convTranspose2d(x, w2, bias, opts = {}) {
    const [stride, padding, dilation, outPad] = [pair(opts.stride ?? 1), pair(opts.padding ?? 0), pair(opts.dilation ?? 1), pair(opts.outputPadding ?? 0)];
    if (x.shape.length !== 4 || w2.shape.length !== 4)
      throw new GraphError(`convTranspose2d: x ${fmtShape(x.shape)} and w ${fmtShape(w2.shape)} must be 4-D`, "convTranspose2d", userCallSite());
    if (outPad.some((p, i) => !Number.isInteger(p) || p < 0 || p >= stride[i] && p >= dilation[i]))
      throw new GraphError(`convTranspose2d: outputPadding [${outPad}] must be smaller than the stride [${stride}] or the dilation [${dilation}]`, "convTranspose2d", userCallSite());
    const size = (i) => (x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w2.shape[2 + i] - 1) + outPad[i] + 1;
    const y = this.node("conv2dGradInput", [x, w2], { stride, padding, dilation, groups: opts.groups ?? 1, inputSize: [size(0), size(1)] });
    return bias ? this.add(y, this.reshape(bias, [bias.shape[0], 1, 1])) : y;
  }
  /** Max pooling, NCHW (stride defaults to the kernel). */
  maxPool2d(x, kernel, opts = {}) {
    return this.node("maxPool2d", [x], { kernel: pair(kernel), stride: pair(opts.stride ?? kernel), padding: pair(opts.padding ?? 0) });
  }
  /** Average pooling, NCHW (stride defaults to the kernel; padding counts in the mean). */
  avgPool2d(x, kernel, opts = {}) {
    return this.node("avgPool2d", [x], { kernel: pair(kernel), stride: pair(opts.stride ?? kernel), padding: pair(opts.padding ?? 0) });
  }
  /** Mean over H and W of x [N, C, H, W] → [N, C] (keepdims: [N, C, 1, 1]). */
  globalAvgPool(x, keepdims = false) {
    return this.mean(x, [2, 3], keepdims);
  }
  /** Marks a node as a named result of the graph. */
  output(name, t) {
    this.outputs.set(name, t.id);
    return t;
  }
  /** Declares that `state` (a param or state leaf) takes `value` at the end of each step. */
  update(state, value) {
    if (state.op !== "param" && state.op !== "state")
      throw new GraphError(`update: target must be a param or state leaf, got ${state.op}`, "update", userCallSite());
    if (fmtShape(state.shape) !== fmtShape(value.shape) || state.dtype !== value.dtype)
      throw new GraphError(
        `update: value ${fmtShape(value.shape)}:${value.dtype} does not match state ${fmtShape(state.shape)}:${state.dtype}`,
        "update",
        userCallSite()
      );
    if (this.updates.some((u) => u.state === state.id))
      throw new GraphError(`update: '${state.attrs.name}' is already updated`, "update", userCallSite());
    this.updates.push({ state: state.id, value: value.id });
  }
  /** Node ids reachable from the outputs and update values, in topological order (dead nodes dropped). */
  live() {
    const seen = new Uint8Array(this.nodes.length);
    const roots = [...this.outputs.values(), ...this.updates.flatMap((u) => [u.value, u.state])];
    const stack = [...roots];
    while (stack.length) {
      const id = stack.pop();
      if (seen[id]) continue;
      seen[id] = 1;
      for (const i of this.nodes[id].inputs) stack.push(i);
    }
    const ids2 = [];
    for (let i = 0; i < seen.length; i++) if (seen[i]) ids2.push(i);
    return ids2;
  }
};
function sameNode(a, b) {
  return a.op === b.op && a.dtype === b.dtype && a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i]) && a.inputs.length === b.inputs.length && a.inputs.every((d, i) => d === b.inputs[i]) && JSON.stringify(a.attrs, exactNumbers) === JSON.stringify(b.attrs, exactNumbers);
}
function exactNumbers(_key, v) {
  return typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)) ? `\0${Object.is(v, -0) ? "-0" : String(v)}` : v;
}
var pair = (v) => typeof v === "number" ? [v, v] : [v[0], v[1]];
function hashName(name) {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 1) % 2147483647;
}

// packages/ir/src/opFacts.ts
var NONE = [];
var leaf2 = { family: "leaf", alias: false, fused: false, indexOperands: NONE };
var un = { family: "unary", alias: false, fused: false, indexOperands: NONE };
var bin = { family: "binary", alias: false, fused: false, indexOperands: NONE };
var plain = (family) => ({ family, alias: false, fused: false, indexOperands: NONE });
var fusedOp = (family) => ({ family, alias: false, fused: true, indexOperands: NONE });
var classes = (t) => t.shape[t.shape.length - 1];
var labelsOf = (operand, op) => [
  { operand, role: "label", bound: (_a, ins) => classes(ins[0]), describe: () => `classes of ${op}` }
];
var indicesOf = (op) => [
  { operand: 1, role: "index", bound: (a, ins) => ins[0].shape[a.axis], describe: (a) => `axis ${a.axis} of ${op}` }
];
var OP_FACTS = {
  input: leaf2,
  param: leaf2,
  state: leaf2,
  const: leaf2,
  ...perUnaryOp(() => un),
  // unary and binary ops: their facts follow from their list (elementwise.ts)
  ...perBinaryOp(() => bin),
  where: plain("elementwise"),
  cast: plain("elementwise"),
  sum: plain("reduce"),
  mean: plain("reduce"),
  reduceMax: plain("reduce"),
  reduceMin: plain("reduce"),
  argmax: plain("reduce"),
  reshape: { family: "layout", alias: true, fused: false, indexOperands: NONE },
  after: { family: "layout", alias: true, fused: true, indexOperands: NONE },
  transpose: plain("layout"),
  expand: plain("layout"),
  slice: plain("indexing"),
  pad: plain("indexing"),
  concat: plain("indexing"),
  gather: { ...plain("indexing"), indexOperands: indicesOf("gather") },
  scatterAdd: { ...plain("indexing"), indexOperands: indicesOf("scatterAdd") },
  // labels outside [0, classes) give a zero row by definition (ignore_index is built on it): not checked
  oneHot: plain("indexing"),
  stopGradient: plain("layout"),
  custom: plain("nn"),
  matmul: plain("linalg"),
  logSoftmax: plain("nn"),
  logSoftmaxGrad: plain("nn"),
  nll: { ...plain("nn"), indexOperands: labelsOf(1, "nll") },
  nllGrad: {
    ...plain("nn"),
    indexOperands: [{ operand: 0, role: "label", bound: (a) => a.classes, describe: () => "classes of nllGrad" }]
  },
  attention: plain("nn"),
  attentionLse: plain("nn"),
  attentionWithLse: fusedOp("nn"),
  attentionGradKV: fusedOp("nn"),
  attentionGradQKV: fusedOp("nn"),
  attentionGrad: plain("nn"),
  rope: plain("nn"),
  dropout: plain("nn"),
  conv2d: plain("conv"),
  conv2dGradInput: plain("conv"),
  conv2dGradWeight: plain("conv"),
  maxPool2d: plain("conv"),
  maxPool2dGrad: plain("conv"),
  avgPool2d: plain("conv"),
  avgPool2dGrad: plain("conv"),
  fusedMatmul: fusedOp("linalg"),
  matmulEpilogue: fusedOp("linalg"),
  matmulPartials: fusedOp("linalg"),
  pointwise: fusedOp("elementwise"),
  pointwiseMulti: fusedOp("elementwise"),
  pointwiseMultiTensor: fusedOp("elementwise"),
  pointwiseReduce: fusedOp("reduce"),
  pointwiseReduceMulti: fusedOp("reduce"),
  rowwise: fusedOp("reduce"),
  rowwiseMulti: fusedOp("reduce"),
  pick: { ...fusedOp("layout"), resultOfOperand: true },
  softmaxCrossEntropy: { ...fusedOp("nn"), indexOperands: labelsOf(1, "softmaxCrossEntropy") },
  softmaxCrossEntropyGrad: { ...fusedOp("nn"), indexOperands: labelsOf(1, "softmaxCrossEntropyGrad") }
};
var OP_KINDS = Object.keys(OP_FACTS);
var LEAF_OPS = OP_KINDS.filter((op) => OP_FACTS[op].family === "leaf");
var FUSED_OPS = OP_KINDS.filter((op) => OP_FACTS[op].fused);
var ALIAS_OPS = OP_KINDS.filter((op) => OP_FACTS[op].alias);
function isLeafOp(op) {
  return OP_FACTS[op].family === "leaf";
}
function isAliasOp(op) {
  return OP_FACTS[op].alias;
}
function needsKernel(op) {
  return OP_FACTS[op].family !== "leaf" && !OP_FACTS[op].alias && !OP_FACTS[op].resultOfOperand;
}
function isUnary(op) {
  return OP_FACTS[op].family === "unary";
}
function isBinary(op) {
  return OP_FACTS[op].family === "binary";
}
function isElementwise(op) {
  const f = OP_FACTS[op].family;
  return f === "unary" || f === "binary" || f === "elementwise";
}
function indexOperandsOf(op) {
  return OP_FACTS[op].indexOperands;
}

// packages/ir/src/kernelCost.ts
var DEFAULT_KERNEL_LIMITS = {
  maxStorageBuffersPerShaderStage: 8,
  maxStorageBufferBindingSize: 128 * 1024 * 1024
};
var n = (s) => numel(s);
var free = { flops: () => 0 };
var perOut = (k) => ({ flops: (c) => k * n(c.out.shape) });
var perIn = (k) => ({ flops: (c) => k * n(c.ins[0].shape) });
var matmulFlops = (c) => {
  const a = c.ins[0].shape;
  const k = c.attrs.transA ? a[a.length - 2] : a[a.length - 1];
  return 2 * n(c.out.shape) * k;
};
var attentionFlops = (c) => {
  const s = (c.operands ?? c.ins).map((t) => t.shape);
  const given = s.length >= 3 ? [s[0], s[1], s[2]] : s.length === 2 ? [s[0], s[1], s[1]] : [s[0], s[0], s[0]];
  const w2 = c.attrs.window;
  const seen = w2 ? given.map((x) => [...x.slice(0, -2), w2.heads, x[x.length - 1]]) : given;
  const [q, k, v] = c.attrs.seqMajor ? seen.map((x) => [...x.slice(0, -3), x[x.length - 2], x[x.length - 3], x[x.length - 1]]) : seen;
  const r = q.length;
  return n(q.slice(0, -2)) * q[r - 2] * k[r - 2] * (2 * (q[r - 1] + v[r - 1]) + 5);
};
var poolFlops = (pooledIsLastInput) => (c) => {
  const k = c.attrs.kernel;
  return n(pooledIsLastInput ? c.ins[c.ins.length - 1].shape : c.out.shape) * k[0] * k[1];
};
var SLOW = 4;
function pwExprSize(e) {
  switch (e.op) {
    case "in":
    case "const":
      return 1;
    case "where":
      return 1 + pwExprSize(e.c) + pwExprSize(e.a) + pwExprSize(e.b);
    case "cast":
      return 1 + pwExprSize(e.a);
    default:
      return "b" in e ? 1 + pwExprSize(e.a) + pwExprSize(e.b) : 1 + pwExprSize(e.a);
  }
}
function pwExprOps(e) {
  switch (e.op) {
    case "in":
    case "const":
      return 0;
    case "where":
      return 1 + pwExprOps(e.c) + pwExprOps(e.a) + pwExprOps(e.b);
    case "cast":
      return 1 + pwExprOps(e.a);
    default:
      return "b" in e ? 1 + pwExprOps(e.a) + pwExprOps(e.b) : 1 + pwExprOps(e.a);
  }
}
var KERNEL_COST = {
  input: free,
  param: free,
  state: free,
  const: free,
  reshape: free,
  after: free,
  neg: perOut(1),
  abs: perOut(1),
  exp: perOut(SLOW),
  log: perOut(SLOW),
  sqrt: perOut(SLOW),
  rsqrt: perOut(SLOW),
  recip: perOut(1),
  square: perOut(1),
  relu: perOut(1),
  sigmoid: perOut(SLOW),
  tanh: perOut(SLOW),
  sin: perOut(SLOW),
  cos: perOut(SLOW),
  erf: perOut(2 * SLOW),
  gelu: perOut(2 * SLOW),
  geluTanh: perOut(2 * SLOW),
  silu: perOut(SLOW),
  softplus: perOut(2 * SLOW),
  add: perOut(1),
  sub: perOut(1),
  mul: perOut(1),
  div: perOut(1),
  max: perOut(1),
  min: perOut(1),
  pow: perOut(SLOW),
  gt: perOut(1),
  ge: perOut(1),
  lt: perOut(1),
  le: perOut(1),
  eq: perOut(1),
  where: perOut(1),
  cast: perOut(1),
  sum: perIn(1),
  mean: perIn(1),
  reduceMax: perIn(1),
  reduceMin: perIn(1),
  argmax: perIn(1),
  transpose: perOut(0),
  expand: perOut(0),
  slice: perOut(0),
  pad: perOut(0),
  concat: perOut(0),
  gather: perOut(0),
  scatterAdd: perIn(1),
  // reads and writes the target, adds each update once
  oneHot: perOut(0),
  stopGradient: perOut(0),
  // a copy until a rule drops it after differentiation
  custom: { flops: ({ attrs: a, ins, out: out2 }) => customOpDef(a.name).flops?.(ins, out2, a.params) ?? n(out2.shape) },
  matmul: { flops: matmulFlops },
  logSoftmax: perIn(3 + SLOW),
  logSoftmaxGrad: perIn(3 + SLOW),
  nll: perIn(1),
  nllGrad: perOut(1),
  attention: { flops: attentionFlops },
  attentionLse: { flops: (c) => attentionFlops(c) / 2 },
  // the scores and their softmax sums, no product with v
  attentionGrad: { flops: (c) => 1.5 * attentionFlops(c) },
  // recomputes scores, then dP and one product
  attentionWithLse: { flops: attentionFlops },
  // attention's, plus a log per query row
  attentionGradKV: { flops: (c) => 2 * attentionFlops(c) },
  // dk's pass, plus P·dO for dv on the same scores
  attentionGradQKV: { flops: (c) => 3.5 * attentionFlops(c) },
  // dq's pass, then attentionGradKV's
  rope: perOut(2 + SLOW),
  dropout: perOut(4),
  // 2 flops per multiply-add; each output of conv2d sums C/groups·KH·KW products (the backward ops the same total)
  conv2d: { flops: (c) => 2 * n(c.out.shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradInput: { flops: (c) => 2 * n(c.ins[0].shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradWeight: { flops: (c) => 2 * n(c.ins[1]?.shape ?? []) * n(c.out.shape.slice(1)) },
  maxPool2d: { flops: poolFlops(false) },
  maxPool2dGrad: { flops: poolFlops(true) },
  avgPool2d: { flops: poolFlops(false) },
  avgPool2dGrad: { flops: poolFlops(true) },
  fusedMatmul: { flops: (c) => matmulFlops(c) + 2 * n(c.out.shape) },
  matmulEpilogue: { flops: (c) => matmulFlops(c) + pwExprSize(c.attrs.expr) * n(c.out.shape) },
  matmulPartials: { flops: (c) => matmulFlops(c) / c.attrs.splits },
  // each partial sums K/S products
  pointwise: { flops: (c) => pwExprSize(c.attrs.expr) * n(c.out.shape) },
  pointwiseMulti: { flops: (c) => c.attrs.exprs.reduce((s, e) => s + pwExprSize(e), 0) * n(c.out.shape) },
  pointwiseMultiTensor: { flops: (c) => c.attrs.exprs.reduce((s, e) => s + pwExprSize(e), 0) * c.attrs.shapes.reduce((s, sh) => s + n(sh), 0) },
  pick: free,
  // written by its multi-result node's kernel
  // the prologue per element of the reduced tensor, one combine per element, the epilogue per output
  // each stat's prologue and combine per element, the expression per element
  rowwise: { flops: (c) => (pwExprSize(c.attrs.expr) + c.attrs.stats.reduce((s, st) => s + pwExprSize(st.expr) + 1, 0)) * n(c.out.shape) },
  rowwiseMulti: { flops: (c) => (c.attrs.exprs.reduce((s, e) => s + pwExprSize(e), 0) + c.attrs.stats.reduce((s, st) => s + pwExprSize(st.expr) + 1, 0)) * n(c.out.shape) },
  // the prologue's operations and one combine per element, the epilogue's per output: an identity prologue costs
  // what the plain reduction does (else folding an epilogue into a sum looked dearer than a separate kernel)
  pointwiseReduce: { flops: (c) => (pwExprOps(c.attrs.expr) + 1) * n(c.attrs.shape) + pwExprOps(c.attrs.post) * n(c.out.shape) },
  pointwiseReduceMulti: { flops: (c) => c.attrs.results.reduce((s, r) => s + (pwExprOps(r.expr) + 1) * n(c.attrs.shape) + pwExprOps(r.post) * n(c.out.shape), 0) },
  softmaxCrossEntropy: perIn(4 + SLOW),
  softmaxCrossEntropyGrad: perIn(4 + SLOW)
};
function kernelFlops(op, c) {
  return KERNEL_COST[op].flops(c);
}
function isKernelOp(op) {
  return needsKernel(op);
}
function tensorTypeBytes(t) {
  return n(t.shape) * byteSize(t.dtype);
}
function kernelIllegality(op, ins, out2, limits, results = 1, multiTensor) {
  if (!needsKernel(op) || !OP_FACTS[op].fused) return void 0;
  if (op === "pointwiseMultiTensor" && multiTensor) return multiTensorIllegality(multiTensor.attrs, multiTensor.inputs, limits);
  const bindings = ins.length + results;
  if (bindings > limits.maxStorageBuffersPerShaderStage)
    return `${op} binds ${bindings} storage buffers, over maxStorageBuffersPerShaderStage = ${limits.maxStorageBuffersPerShaderStage}`;
  const big = [...ins, out2].find((t) => tensorTypeBytes(t) > limits.maxStorageBufferBindingSize);
  if (big)
    return `${op} binds a tensor of ${tensorTypeBytes(big)} bytes, over maxStorageBufferBindingSize = ${limits.maxStorageBufferBindingSize}`;
  return void 0;
}
function multiTensorIllegality(a, inputs, limits) {
  const { shared, roles } = groupOperands({ inputs: { length: inputs }, attrs: a });
  const bindings = shared + roles + 1;
  if (bindings > limits.maxStorageBuffersPerShaderStage)
    return `pointwiseMultiTensor binds ${bindings} storage buffers (${shared} shared, ${roles} roles, a table), over maxStorageBuffersPerShaderStage = ${limits.maxStorageBuffersPerShaderStage}`;
  const bytesOf3 = (role) => a.shapes.reduce((s, sh, g) => s + Math.ceil((a.partials?.role === role ? a.partials.splits[g] : 1) * n(sh) * byteSize(a.dtype) / 256) * 256, 0);
  const roleBytes = Math.max(...Array.from({ length: roles }, (_, k) => bytesOf3(k)));
  if (roleBytes > limits.maxStorageBufferBindingSize)
    return `pointwiseMultiTensor binds ${roleBytes} bytes per role, over maxStorageBufferBindingSize = ${limits.maxStorageBufferBindingSize}`;
  return void 0;
}

// packages/ir/src/kernelPasses.ts
var ROWS_PATH_MIN = 64;
var SPLIT_MAX_ROWS = 128;
var SPLIT_MIN_ROW = 8192;
var COLUMN_CHUNK = 32;
var SPLIT_MAX_COLUMNS = 16384;
var COLUMN_STRIP = 8;
var STRIP_MIN_WORKGROUPS = 32;
function mergeReduceAxes(shape, axes) {
  const out2 = [];
  shape.forEach((d, i) => {
    if (d === 1) return;
    const reduced = axes.includes(i);
    const last = out2[out2.length - 1];
    if (last && last.reduced === reduced) last.extent *= d;
    else out2.push({ extent: d, reduced });
  });
  return out2;
}
function columnsPath(shape, axes) {
  const merged = mergeReduceAxes(shape, axes);
  if (merged.length !== 2 || !merged[0].reduced || merged[1].reduced) return void 0;
  const [rows, cols] = [merged[0].extent, merged[1].extent];
  if (cols >= SPLIT_MAX_COLUMNS || rows < 2 * COLUMN_CHUNK) return void 0;
  return Math.ceil(cols / COLUMN_STRIP) >= STRIP_MIN_WORKGROUPS ? "strips" : "split";
}
function reduceSplit(shape, axes) {
  const kept = numel(shape.filter((_, i) => !axes.includes(i)));
  const reduced = numel(axes.map((a) => shape[a]));
  if (kept === 0 || reduced === 0) return void 0;
  const pattern = mergeReduceAxes(shape, axes).map((a) => a.reduced ? "r" : "k").join("");
  if ((pattern === "kr" || pattern === "r") && reduced >= ROWS_PATH_MIN) return kept < SPLIT_MAX_ROWS && reduced >= SPLIT_MIN_ROW ? "rows" : void 0;
  if (pattern === "rk" && columnsPath(shape, axes) === "split") return "columns";
  if (pattern === "rkr" && reduced >= ROWS_PATH_MIN) return "outerKeptInner";
  return void 0;
}
var SCATTER_LOOP_MAX_INDICES = 256;
function matmulSplitsK(m, n2, k, batches) {
  return matmulSplitK(m, n2, k, batches) > 1;
}
function matmulDims(c) {
  const a = c.ins[0].shape;
  const out2 = c.out.shape;
  const r = out2.length;
  const m = out2[r - 2] ?? 1;
  const n2 = out2[r - 1] ?? 1;
  const k = c.attrs.transA ? a[a.length - 2] : a[a.length - 1];
  return { m, n: n2, k, batches: numel(out2.slice(0, -2)) };
}
var reduceDispatches = (shape, axes) => reduceSplit(shape, axes) ? 2 : 1;
function kernelScratchBytes(op, c) {
  if (op !== "matmul" && op !== "fusedMatmul" && op !== "matmulEpilogue") return 0;
  const d = matmulDims(c);
  const S = matmulSplitK(d.m, d.n, d.k, d.batches);
  return S > 1 ? 2 * S * d.m * d.n * 4 : 0;
}
function kernelDispatches(op, c) {
  switch (op) {
    case "sum":
    case "mean":
    case "reduceMax":
    case "reduceMin": {
      const a = c.attrs;
      return reduceDispatches(c.ins[0].shape, a.axes);
    }
    case "pointwiseReduce": {
      const a = c.attrs;
      return reduceDispatches(a.shape, a.axes);
    }
    case "pointwiseReduceMulti": {
      const a = c.attrs;
      const columns = columnsPath(a.shape, a.axes);
      return columns === "strips" ? 1 : columns === "split" ? 2 : a.results.length * reduceDispatches(a.shape, a.axes);
    }
    case "matmul":
    case "fusedMatmul":
    case "matmulEpilogue": {
      const d = matmulDims(c);
      return matmulSplitsK(d.m, d.n, d.k, d.batches) ? 2 : 1;
    }
    case "softmaxCrossEntropy":
      return 2;
    // per-row losses, then their sum
    case "attentionGradQKV":
      return 2;
    // dq, then dk and dv (FlashAttention-2's two backward passes) into one result
    case "scatterAdd":
      return numel(c.ins[1]?.shape ?? []) > SCATTER_LOOP_MAX_INDICES ? 2 : 1;
    // segmented or atomic: two passes
    default:
      return 1;
  }
}

// packages/ir/src/tensorValue.ts
function tensor(shape, data2, dtype = "f32") {
  const n2 = numel(shape);
  if (data2.length !== n2) throw new Error(`tensor: ${data2.length} values for shape [${shape.join(", ")}] (${n2} elements)`);
  if (dtype !== "f32" && !(data2 instanceof Int32Array))
    for (let i = 0; i < n2; i++) {
      const v = data2[i];
      if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647)
        throw new RangeError(`tensor: value ${v} at index ${i} is not an integer representable as ${dtype}`);
    }
  const arr = dtype === "f32" ? Float32Array.from(data2) : Int32Array.from(data2);
  return { shape: [...shape], dtype, data: arr };
}
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = a + 1831565813 >>> 0;
    let t = a;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}
function initialValue(init, shape, dtype = "f32") {
  const n2 = numel(shape);
  const data2 = dtype === "f32" ? new Float32Array(n2) : new Int32Array(n2);
  switch (init.kind) {
    case "zeros":
      break;
    case "ones":
      data2.fill(1);
      break;
    case "fill":
      data2.fill(init.value);
      break;
    case "uniform": {
      const r = mulberry32(init.seed);
      for (let i = 0; i < n2; i++) data2[i] = init.low + (init.high - init.low) * r();
      break;
    }
    case "normal": {
      const r = mulberry32(init.seed);
      for (let i = 0; i < n2; i++) {
        const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
        data2[i] = init.mean + init.std * z;
      }
      break;
    }
    default:
      init;
  }
  return { shape: [...shape], dtype, data: data2 };
}

// packages/ir/src/ops.ts
var REDUCE_OPS = ["sum", "mean", "reduceMax", "reduceMin"];

// packages/ir/src/memoryPlan.ts
var BUFFER_ALIGN = 16;
var ARENA_ALIGN = 256;
function alignedBytes(bytes) {
  return Math.max(BUFFER_ALIGN, Math.ceil(bytes / BUFFER_ALIGN) * BUFFER_ALIGN);
}
function planMemory(tensors, arenas = []) {
  const seen = /* @__PURE__ */ new Map();
  for (const t of tensors) {
    if (seen.has(t.key)) throw new Error(`planMemory: tensor '${t.key}' appears twice`);
    seen.set(t.key, t);
    if (!t.persistent && t.end < t.start) throw new Error(`planMemory: tensor '${t.key}' ends (${t.end}) before it starts (${t.start})`);
  }
  const offsetOf = /* @__PURE__ */ new Map();
  const memberOf2 = /* @__PURE__ */ new Map();
  const units = [];
  for (const a of arenas) {
    const members2 = a.tensors.map((k) => seen.get(k) ?? fail2(`planMemory: arena '${a.key}' names '${k}', which is not a tensor`));
    if (members2.length === 0 || members2.some((m) => m.persistent !== members2[0].persistent)) fail2(`planMemory: arena '${a.key}' mixes persistent and transient tensors (or is empty)`);
    let bytes = 0;
    for (const m of members2) {
      if (memberOf2.has(m.key)) fail2(`planMemory: tensor '${m.key}' is in arenas '${memberOf2.get(m.key)}' and '${a.key}'`);
      memberOf2.set(m.key, a.key);
      offsetOf.set(m.key, bytes);
      bytes += Math.ceil(m.bytes / ARENA_ALIGN) * ARENA_ALIGN;
    }
    const start = Math.min(...members2.map((m) => m.start));
    units.push({ key: a.key, bytes, start, end: Math.max(start, ...members2.map((m) => m.end)), persistent: members2[0].persistent });
  }
  const placed = [...tensors.filter((t) => !memberOf2.has(t.key)), ...units];
  const sizes2 = [];
  const persistentOf = [];
  const members = [];
  const bufferOf = /* @__PURE__ */ new Map();
  let reused = 0;
  const newBuffer = (bytes, persistent) => {
    sizes2.push(bytes);
    persistentOf.push(persistent);
    members.push([]);
    return sizes2.length - 1;
  };
  const place = (t, b) => {
    bufferOf.set(t.key, b);
    members[b].push(t.key);
  };
  for (const t of placed) if (t.persistent) place(t, newBuffer(alignedBytes(t.bytes), true));
  const transient = placed.filter((t) => !t.persistent).sort((a, b) => a.start - b.start || b.bytes - a.bytes);
  const busy = [];
  const free2 = [];
  for (const t of transient) {
    for (let i = busy.length - 1; i >= 0; i--)
      if (busy[i].end < t.start) {
        free2.push(busy[i].buffer);
        busy.splice(i, 1);
      }
    const need = alignedBytes(t.bytes);
    let pick2 = -1;
    for (let i = 0; i < free2.length; i++) if (sizes2[free2[i]] >= need && (pick2 < 0 || sizes2[free2[i]] < sizes2[free2[pick2]])) pick2 = i;
    if (pick2 < 0) {
      for (let i = 0; i < free2.length; i++) if (pick2 < 0 || sizes2[free2[i]] > sizes2[free2[pick2]]) pick2 = i;
    }
    let b;
    if (pick2 >= 0) {
      b = free2[pick2];
      free2.splice(pick2, 1);
      sizes2[b] = Math.max(sizes2[b], need);
      reused++;
    } else b = newBuffer(need, false);
    place(t, b);
    busy.push({ buffer: b, end: t.end });
  }
  const arenaOf = new Map(units.map((u) => [u.key, { buffer: bufferOf.get(u.key), bytes: u.bytes }]));
  for (const a of arenas) {
    const b = arenaOf.get(a.key)?.buffer;
    members[b] = members[b].flatMap((k) => k === a.key ? [...a.tensors] : [k]);
    for (const k of a.tensors) bufferOf.set(k, b);
  }
  const buffers = sizes2.map((bytes, index) => ({ index, bytes, persistent: persistentOf[index], tensors: members[index] }));
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  return {
    bufferOf,
    offsetOf,
    arenas: arenaOf,
    buffers,
    report: {
      bytesAllocated: sum(sizes2),
      bytesIfUnshared: sum(tensors.map((t) => alignedBytes(t.bytes))),
      buffers: sizes2.length,
      tensors: tensors.length,
      persistentBytes: sum(buffers.filter((b) => b.persistent).map((b) => b.bytes)),
      transientBytes: sum(buffers.filter((b) => !b.persistent).map((b) => b.bytes)),
      reused
    }
  };
}
function fail2(message) {
  throw new Error(message);
}

// packages/ir/src/memoryEstimate.ts
function estimateMemory(values, ends) {
  const n2 = values.length;
  const root = new Int32Array(n2);
  const result0 = /* @__PURE__ */ new Map();
  for (let i = 0; i < n2; i++) {
    const v = values[i];
    if (v.op === "pick" && v.result === 0) result0.set(v.inputs[0], i);
  }
  for (let i = 0; i < n2; i++) root[i] = isAliasOp(values[i].op) ? root[values[i].inputs[0]] : i;
  const lastUse = new Int32Array(n2).fill(-1);
  for (let i = 0; i < n2; i++) for (const j of values[i].inputs) lastUse[root[j]] = Math.max(lastUse[root[j]], i);
  for (const o of ends.outputs) lastUse[root[o]] = n2;
  const inPlace = /* @__PURE__ */ new Set();
  for (const u of ends.inPlace) inPlace.add(root[u]);
  const tensors = [];
  const persistent = /* @__PURE__ */ new Set();
  for (let i = 0; i < n2; i++) {
    const v = values[i];
    if (root[i] !== i || inPlace.has(i)) continue;
    if (isLeafOp(v.op)) {
      tensors.push({ key: `v${i}`, bytes: v.bytes, start: 0, end: 0, persistent: true });
      persistent.add(`v${i}`);
      continue;
    }
    const pick0 = isMultiResultOp(v.op) ? result0.get(i) : void 0;
    if (pick0 !== void 0) {
      lastUse[root[pick0]] = Math.max(lastUse[root[pick0]], lastUse[i]);
      continue;
    }
    const start = v.op === "pick" ? v.inputs[0] : i;
    tensors.push({ key: `v${i}`, bytes: v.bytes, start, end: Math.max(start, lastUse[i]), persistent: false });
  }
  const keys = new Set(tensors.map((t) => t.key));
  const arenas = [];
  const taken = /* @__PURE__ */ new Set();
  for (let i = 0; i < n2; i++) {
    if (values[i].op !== "pointwiseMultiTensor") continue;
    const members = [...new Set(values[i].inputs.map((j) => `v${root[j]}`))].filter((k) => keys.has(k) && !taken.has(k) && !persistent.has(k));
    for (const k of members) taken.add(k);
    if (members.length > 1) arenas.push({ key: `arena${i}`, tensors: members });
  }
  return planMemory(tensors, arenas).report;
}

// packages/ir/src/print.ts
function fmtPointwiseReduce(a) {
  const red = `${a.reduce}[${a.axes.join(",")}${a.keepdims ? ",keep" : ""}](${fmtPwExpr(a.expr)})`;
  return a.post.op === "in" ? red : `${fmtPwExpr(a.post)} \u2218 ${red}`;
}
function fmtRowwise(a) {
  const stats = a.stats.map((s, k) => `s${k} = ${s.post.op === "in" ? "" : `${fmtPwExpr(s.post)} \u2218 `}${s.reduce}(${fmtPwExpr(s.expr)})`);
  return `${stats.join("; ")} \u21D2 ${fmtPwExpr(a.expr)}`;
}

// packages/egraph/src/tensor/errors.ts
var TensorTypeError = class extends EGraphError {
  name = "TensorTypeError";
};
var TensorLanguageError = class extends EGraphError {
  name = "TensorLanguageError";
};

// packages/egraph/src/tensor/ruleCtx.ts
var RuleCtx = class {
  slots = /* @__PURE__ */ new Map();
  /** The state under `key` in this run, made by `init` on first use. */
  of(key, init) {
    let v = this.slots.get(key);
    if (v === void 0) this.slots.set(key, v = init());
    return v;
  }
};

// packages/egraph/src/tensor/tensorLanguage.ts
var OPS = new Set(OP_KINDS);
function isOpKind(op) {
  return OPS.has(op);
}
function nodeData(ir, type) {
  if (ir.op === "pointwise") {
    const pw = ir.attrs;
    const text = JSON.stringify(pw.expr);
    const d = { expr: text, dtype: pw.dtype };
    declareDataKey(d, `pw:${pw.dtype}:${text}`);
    exprOfData.set(d, pw.expr);
    return d;
  }
  if (ir.op === "input" || ir.op === "param" || ir.op === "state" || ir.op === "const") {
    if (!type) throw new TensorLanguageError(`tensorLanguage: leaf ${ir.op} needs its declared type`);
    const d = { ...ir.attrs, shape: [...type.shape], dtype: type.dtype };
    if (ir.op === "const" && !Number.isFinite(ir.attrs.value)) d.repr = String(ir.attrs.value);
    return d;
  }
  return ir.attrs;
}
function toENode(node, children) {
  return enodeOf(node, children, node);
}
function irENode(op, attrs, children, type) {
  return enodeOf(withAttrs(op, attrs), children, type);
}
function enodeOf(ir, children, type) {
  const data2 = nodeData(ir, type);
  const empty = data2 !== null && typeof data2 === "object" && !Array.isArray(data2) && Object.keys(data2).length === 0;
  return empty ? { op: ir.op, children: [...children] } : { op: ir.op, data: data2, children: [...children] };
}
function constENode(value, shape, dtype) {
  return { op: "const", data: nodeData({ op: "const", attrs: { value } }, { shape, dtype }), children: [] };
}
function enodeAttrs(n2, ...ops) {
  return attrsOf(fromENode(n2), ...ops);
}
function fromENode(n2) {
  if (!isOpKind(n2.op)) throw new TensorLanguageError(`tensorLanguage: '${n2.op}' is not an ir op`);
  const d = n2.data ?? {};
  switch (n2.op) {
    case "input":
      return { op: n2.op, attrs: { name: d.name }, leafType: leafType(d) };
    case "param":
    case "state":
      return { op: n2.op, attrs: { name: d.name, init: d.init }, leafType: leafType(d) };
    case "const":
      return { op: n2.op, attrs: { value: d.value }, leafType: leafType(d) };
    case "pointwise":
      return { op: n2.op, attrs: { expr: pointwiseExprOf(n2), dtype: d.dtype } };
    default:
      return withAttrs(n2.op, d);
  }
}
var exprOfData = /* @__PURE__ */ new WeakMap();
function pointwiseExprOf(n2) {
  const d = n2.data;
  if (!isDataRecord(d) || typeof d.expr !== "string") throw new TensorLanguageError(`tensorLanguage: ${n2.op} node has no pointwise expression`);
  let e = exprOfData.get(d);
  if (!e) exprOfData.set(d, e = JSON.parse(d.expr));
  return e;
}
function leafType(d) {
  return { shape: d.shape, dtype: d.dtype };
}
function leafTypeOf(n2) {
  if (n2.op !== "input" && n2.op !== "param" && n2.op !== "state" && n2.op !== "const") return void 0;
  return leafType(n2.data ?? {});
}
var tensorLanguage = {
  parseLeaf(token) {
    const v = Number(token);
    return token.trim() !== "" && Number.isFinite(v) ? { op: "const", data: { value: v } } : { op: token };
  },
  formatLeaf(node) {
    const d = node.data;
    if (!isDataRecord(d)) return void 0;
    if (node.op === "const") return String(d.value);
    if (node.op === "input" || node.op === "param" || node.op === "state") return String(d.name);
    return void 0;
  }
};

// packages/egraph/src/tensor/tensorAnalysis.ts
var fmtType = (t) => `${fmtShape(t.shape)}:${t.dtype}`;
var foldable = (v) => v !== void 0 && Number.isFinite(v) && !Object.is(v, -0) ? v : void 0;
function constantOf(ir, kids, out2) {
  if (ir.op === "const") return foldable(ir.attrs.value);
  const op = ir.op;
  const vals = kids.map((k) => k.constant);
  if (vals.length === 0 || vals.some((v2) => v2 === void 0)) return void 0;
  const v = vals;
  let r;
  if (isUnary(op)) r = UNARY_FN[op](v[0]);
  else if (isBinary(op)) {
    const x = BINARY_FN[op](v[0], v[1]);
    r = out2.dtype === "f32" || COMPARISON_OPS.includes(op) ? x : x | 0;
  } else if (op === "where") r = v[0] !== 0 ? v[1] : v[2];
  else if (op === "cast") r = castScalar(v[0], out2.dtype);
  else if (op === "reshape" || op === "expand" || op === "transpose" || op === "mean") r = v[0];
  else if (op === "reduceMax") r = kids[0].shape.some((d) => d === 0) ? void 0 : v[0];
  return foldable(r);
}
function multiOf(egraph, id) {
  const c = egraph.eclass(id);
  const multi = c.nodes.find((n2) => isOpKind(n2.op) && isMultiResultOp(n2.op));
  if (!multi) throw new TensorTypeError(`tensor analysis: a pick reads class ${id}, which holds no multi-result node`);
  const { op, attrs } = fromENode(multi);
  return { op, attrs, shape: c.data.shape, dtype: c.data.dtype };
}
var TensorAnalysis = class {
  /** Most distinct inputs of a fused pointwise kernel. */
  maxPointwiseInputs;
  /** Most storage buffers of a grouped optimizer update. */
  maxBindings;
  /** Most nodes of a fused pointwise expression tree. */
  maxExprSize;
  /** Largest storage binding in bytes. */
  maxBindingBytes;
  /** The rules' per-run state (an analysis serves one optimize run). */
  ctx = new RuleCtx();
  // keyed by op and data (children change with merges); per key, class → rules, re-homed to canonical ids lazily
  provenance = /* @__PURE__ */ new Map();
  rootIds = [];
  updatePairs = [];
  stateOfValue;
  stateOfValueUnions = -1;
  rootSet;
  rootSetUnions = -1;
  respecting = /* @__PURE__ */ new Map();
  // small ids of node data keys, for compact cache keys; per analysis (one optimize run), so it dies with the run
  dataIds = /* @__PURE__ */ new Map();
  dataIdOf = /* @__PURE__ */ new WeakMap();
  // each provenance set's rules, sorted, while the set keeps its size (sets only grow)
  sortedRules = /* @__PURE__ */ new WeakMap();
  /** Makes an analysis with the given fusion limits. */
  constructor(opts = {}) {
    this.maxPointwiseInputs = opts.maxPointwiseInputs ?? 7;
    this.maxBindings = opts.maxBindings ?? this.maxPointwiseInputs + 1;
    this.maxExprSize = opts.maxExprSize ?? 96;
    this.maxBindingBytes = opts.maxBindingBytes ?? 128 * 1024 * 1024;
  }
  /** Type (and constant) of a class holding only `node`; throws a GraphError for an ill-typed node. */
  make(egraph, node) {
    const ir = fromENode(node);
    const declared = leafTypeOf(node);
    const kids = node.children.map((c) => egraph.eclass(c).data);
    const type = declared ?? inferType(ir.op, node.op === "pick" ? [multiOf(egraph, node.children[0])] : kids, ir.attrs);
    const constant = constantOf(ir, kids, type);
    return constant === void 0 ? { shape: type.shape, dtype: type.dtype } : { shape: type.shape, dtype: type.dtype, constant };
  }
  /** Joins two classes' data; throws naming both types when shape or dtype differ. */
  merge(a, b) {
    if (!sameShape(a.shape, b.shape) || a.dtype !== b.dtype)
      throw new TensorTypeError(`tensor analysis: cannot merge a class of type ${fmtType(a)} with one of type ${fmtType(b)}`);
    if (a.constant === void 0 && b.constant !== void 0) return { ...a, constant: b.constant };
    return a;
  }
  /** A small integer naming a node's data (equal data, equal id) within this analysis. */
  dataId(data2) {
    const obj = data2 !== null && typeof data2 === "object";
    if (obj) {
      const known = this.dataIdOf.get(data2);
      if (known !== void 0) return known;
    }
    const key = dataKey(data2);
    let id = this.dataIds.get(key);
    if (id === void 0) this.dataIds.set(key, id = this.dataIds.size);
    if (obj) this.dataIdOf.set(data2, id);
    return id;
  }
  /** Marks classes that are materialised whatever is chosen (outputs, update values): fusion may stop there. */
  markRoots(ids2) {
    for (const id of ids2) this.rootIds.push(id);
    this.rootSet = void 0;
  }
  /** Records the state updates (state class, value class): the multi-result update rule groups them. */
  markUpdates(pairs2) {
    for (const p of pairs2) this.updatePairs.push([p[0], p[1]]);
    this.stateOfValue = void 0;
  }
  /** The state class whose update value is class `id` (canonical), if any. */
  updatedState(egraph, id) {
    if (!this.stateOfValue || this.stateOfValueUnions !== egraph.unionCount) {
      this.stateOfValueUnions = egraph.unionCount;
      this.stateOfValue = new Map(this.updatePairs.map(([s, v]) => [egraph.find(v), egraph.find(s)]));
    }
    return this.stateOfValue.get(egraph.find(id));
  }
  /** Whether a class is a root (an output or update value, always materialised). */
  isRoot(egraph, id) {
    if (this.rootSetUnions !== egraph.unionCount) {
      this.rootSetUnions = egraph.unionCount;
      for (let i = 0; i < this.rootIds.length; i++) {
        const r = this.rootIds[i];
        const c = egraph.find(r);
        if (c !== r) {
          this.rootIds[i] = c;
          this.rootSet?.add(c);
        }
      }
    }
    if (!this.rootSet) this.rootSet = new Set(this.rootIds.map((r) => egraph.find(r)));
    return this.rootSet.has(egraph.find(id));
  }
  /** Marks a pointwise node as reading roots rather than recomputing them (see the fusion rules). */
  markRootRespecting(cls, node) {
    addTo(this.respecting, `${node.op}#${this.dataId(node.data)}#${node.children.length}`, cls, []);
  }
  /** Whether a node was marked by `markRootRespecting` (in this class). */
  isRootRespecting(egraph, cls, node) {
    return lookupIn(egraph, this.respecting, `${node.op}#${this.dataId(node.data)}#${node.children.length}`, cls) !== void 0;
  }
  /** Records that `rules` produced `node` in class `cls` (for the report's kernel provenance). */
  record(cls, node, rules) {
    addTo(this.provenance, `${node.op}#${this.dataId(node.data)}`, cls, rules);
  }
  /** Folds provenance recorded under merged-away ids into their classes (call once rules are done). */
  settle(egraph) {
    for (const byClass of this.provenance.values()) if (homedAt.get(byClass) !== egraph.unionCount) rehome(egraph, byClass);
  }
  /** The rules recorded for a node of this op and data in class `cls` (sorted, deduplicated; shared: do not modify). */
  rulesOf(egraph, cls, node) {
    const rules = lookupIn(egraph, this.provenance, `${node.op}#${this.dataId(node.data)}`, cls);
    if (!rules) return NO_RULES;
    const hit = this.sortedRules.get(rules);
    if (hit && hit.size === rules.size) return hit.list;
    const list = [...rules].sort();
    this.sortedRules.set(rules, { size: rules.size, list });
    return list;
  }
};
var NO_RULES = [];
var homedAt = /* @__PURE__ */ new WeakMap();
function addTo(index, key, cls, rules) {
  let byClass = index.get(key);
  if (!byClass) index.set(key, byClass = /* @__PURE__ */ new Map());
  let set = byClass.get(cls);
  if (!set) byClass.set(cls, set = /* @__PURE__ */ new Set());
  for (const r of rules) set.add(r);
}
function lookupIn(egraph, index, key, cls) {
  const byClass = index.get(key);
  if (!byClass) return void 0;
  const root = egraph.find(cls);
  const hit = byClass.get(root);
  if (hit || homedAt.get(byClass) === egraph.unionCount) return hit;
  rehome(egraph, byClass);
  return byClass.get(root);
}
function rehome(egraph, byClass) {
  const from = homedAt.get(byClass) ?? 0;
  const to = egraph.unionCount;
  homedAt.set(byClass, to);
  const move = (id) => {
    const set = byClass.get(id);
    if (!set) return;
    const c = egraph.find(id);
    if (c === id) return;
    byClass.delete(id);
    const into = byClass.get(c);
    if (into) for (const r of set) into.add(r);
    else byClass.set(c, set);
  };
  if (to - from < byClass.size) {
    const merged = egraph.mergedIds;
    for (let i = from; i < to; i++) move(merged[i]);
  } else for (const id of [...byClass.keys()]) move(id);
}
function tensorAnalysisOf(egraph) {
  return egraph.analysis instanceof TensorAnalysis ? egraph.analysis : void 0;
}

// packages/egraph/src/tensor/pointwiseFusion.ts
function exprOf(n2) {
  return pointwiseExprOf(n2);
}
function exprSize(e) {
  let n2 = sizes.get(e);
  if (n2 === void 0) sizes.set(e, n2 = pwExprSize(e));
  return n2;
}
var sizes = /* @__PURE__ */ new WeakMap();
function isPrimaryExpr(e) {
  const leaf4 = (x) => x.op === "in" || x.op === "const";
  switch (e.op) {
    case "in":
    case "const":
      return true;
    case "where":
      return leaf4(e.c) && leaf4(e.a) && leaf4(e.b);
    case "cast":
      return leaf4(e.a);
    default:
      return "b" in e ? leaf4(e.a) && leaf4(e.b) : leaf4(e.a);
  }
}
function liftable(op, out2) {
  if (op === "where" || op === "cast") return true;
  if (!isOpKind(op)) return false;
  if (isBinary(op)) return out2.dtype === "f32" || COMPARISON_OPS.includes(op);
  return isUnary(op) && out2.dtype === "f32";
}
function primitiveExpr(n2) {
  const i = (index) => ({ op: "in", index });
  if (n2.op === "where") return { op: "where", c: i(0), a: i(1), b: i(2) };
  if (n2.op === "cast") return { op: "cast", to: enodeAttrs(n2, "cast").to, a: i(0) };
  if (!isOpKind(n2.op)) return void 0;
  if (isBinary(n2.op)) return { op: n2.op, a: i(0), b: i(1) };
  if (isUnary(n2.op)) return { op: n2.op, a: i(0) };
  return void 0;
}
function mapInputs(e, f) {
  switch (e.op) {
    case "in":
      return f(e.index);
    case "const":
      return e;
    case "where":
      return { op: "where", c: mapInputs(e.c, f), a: mapInputs(e.a, f), b: mapInputs(e.b, f) };
    case "cast":
      return { op: "cast", to: e.to, a: mapInputs(e.a, f) };
    default:
      return "b" in e ? { op: e.op, a: mapInputs(e.a, f), b: mapInputs(e.b, f) } : { op: e.op, a: mapInputs(e.a, f) };
  }
}
var finite = (v) => Number.isFinite(v) && !Object.is(v, -0) ? { op: "const", value: v } : void 0;
function foldConstants(e) {
  switch (e.op) {
    case "in":
    case "const":
      return e;
    case "where": {
      const c = foldConstants(e.c);
      const a = foldConstants(e.a);
      const b = foldConstants(e.b);
      if (c.op === "const") return c.value !== 0 ? a : b;
      return { op: "where", c, a, b };
    }
    case "cast": {
      const a = foldConstants(e.a);
      return a.op === "const" && finite(castScalar(a.value, e.to)) || { op: "cast", to: e.to, a };
    }
    default:
      if ("b" in e) {
        const a = foldConstants(e.a);
        const b = foldConstants(e.b);
        if (a.op === "const" && b.op === "const") return finite(BINARY_FN[e.op](a.value, b.value)) ?? { op: e.op, a, b };
        return { op: e.op, a, b };
      } else {
        const a = foldConstants(e.a);
        if (a.op === "const") return finite(UNARY_FN[e.op](a.value)) ?? { op: e.op, a };
        return { op: e.op, a };
      }
  }
}
function buildPointwise(egraph, expr, inputs, out2) {
  const analysis = egraph.analysis instanceof TensorAnalysis ? egraph.analysis : new TensorAnalysis();
  const canon = inputs.map((i) => egraph.find(i));
  const distinct = [...new Set(canon)];
  const kept = distinct.filter((id) => egraph.eclass(id).data.constant === void 0);
  const shapes = (ids2) => broadcastShapes(...ids2.map((id) => egraph.eclass(id).data.shape));
  for (const id of distinct) {
    if (kept.includes(id)) continue;
    const s2 = shapes(kept);
    if (kept.length === 0 || !s2 || !sameShape(s2, out2.shape)) kept.push(id);
  }
  const s = shapes(kept);
  if (kept.length === 0 || !s || !sameShape(s, out2.shape)) return void 0;
  const keptSet = new Set(kept);
  if (kept.length === distinct.length) {
    const slots = /* @__PURE__ */ new Map();
    const order1 = [];
    const final1 = mapInputs(expr, (i) => {
      let k = slots.get(canon[i]);
      if (k === void 0) {
        k = order1.push(canon[i]) - 1;
        slots.set(canon[i], k);
      }
      return { op: "in", index: k };
    });
    return finish(egraph, analysis, final1, order1, out2);
  }
  const mapped = foldConstants(
    mapInputs(expr, (i) => keptSet.has(canon[i]) ? { op: "in", index: canon[i] } : { op: "const", value: egraph.eclass(canon[i]).data.constant })
  );
  const order = [];
  const final = mapInputs(mapped, (cls) => {
    let k = order.indexOf(cls);
    if (k < 0) k = order.push(cls) - 1;
    return { op: "in", index: k };
  });
  return finish(egraph, analysis, final, order, out2);
}
function finish(egraph, analysis, final, order, out2) {
  if (order.length === 0 || order.length > analysis.maxPointwiseInputs || pwExprSize(final) > analysis.maxExprSize) return void 0;
  if (final.op === "in" && sameShape(egraph.eclass(order[0]).data.shape, out2.shape)) return void 0;
  const s2 = broadcastShapes(...order.map((id) => egraph.eclass(id).data.shape));
  if (!s2 || !sameShape(s2, out2.shape)) return void 0;
  return irENode("pointwise", { expr: final, dtype: out2.dtype }, order);
}
function inlineExpr(outer, inline) {
  const inputs = [];
  const slot = (cls) => {
    let k = inputs.indexOf(cls);
    if (k < 0) k = inputs.push(cls) - 1;
    return { op: "in", index: k };
  };
  const expr = mapInputs(exprOf(outer), (j) => {
    const inner = inline.get(j);
    if (!inner) return slot(outer.children[j]);
    return mapInputs(exprOf(inner), (k) => slot(inner.children[k]));
  });
  return { expr, inputs };
}

// packages/egraph/src/tensor/costModel.ts
function isKernelOp2(op) {
  return isOpKind(op) ? isKernelOp(op) : true;
}
var EPSILON = 1e-6;
function costDefaults(opts = {}, limits = DEFAULT_KERNEL_LIMITS) {
  return {
    dispatchCost: opts.dispatchCost ?? 4,
    bytesPerUnit: opts.bytesPerUnit ?? 1e5,
    flopsPerUnit: opts.flopsPerUnit ?? 1e6,
    limits
  };
}
function tensorBytes(t) {
  return tensorTypeBytes(t);
}
function opCost(node, ins, out2, model, operands) {
  if (!isOpKind(node.op)) return Number.POSITIVE_INFINITY;
  if (!isKernelOp(node.op)) return EPSILON;
  const ir = fromENode(node);
  const results = kernelOutputs(ir);
  const multiTensor = ir.op === "pointwiseMultiTensor" ? { attrs: ir.attrs, inputs: node.children.length } : void 0;
  if (kernelIllegality(ir.op, ins, out2, model.limits, results, multiTensor) !== void 0) return Number.POSITIVE_INFINITY;
  let bytes = ins.reduce((s, t) => s + tensorBytes(t), 0);
  for (let r = 0; r < results; r++) bytes += tensorTypeBytes(resultType(ir, out2, r));
  const ctx = { attrs: ir.attrs, ins, out: out2, operands };
  const flops = kernelFlops(ir.op, ctx);
  bytes += kernelScratchBytes(ir.op, ctx);
  return model.dispatchCost * kernelDispatches(ir.op, ctx) + bytes / model.bytesPerUnit + flops / model.flopsPerUnit + EPSILON;
}
function tensorCost(egraph, model = costDefaults()) {
  const o = model;
  const memo = /* @__PURE__ */ new WeakMap();
  const insOf = (node) => {
    const seen = /* @__PURE__ */ new Set();
    const ins = [];
    for (const c of node.children) {
      const id = egraph.find(c);
      if (seen.has(id)) continue;
      seen.add(id);
      ins.push(egraph.eclass(id).data);
    }
    return ins;
  };
  const operandsOf = (node) => node.children.map((c) => egraph.eclass(c).data);
  const aloneCost = (multi, r, a) => {
    const reads = [];
    mapInputs(r.expr, (i) => {
      if (!reads.includes(i)) reads.push(i);
      return { op: "in", index: i };
    });
    const expr = mapInputs(r.expr, (i) => ({ op: "in", index: reads.indexOf(i) }));
    const { results: _, ...rest } = a;
    const node = irENode("pointwiseReduce", { ...rest, expr, post: r.post }, reads.map((i) => multi.children[i]));
    return opCost(node, insOf(node), { shape: reducedShape(a.shape, a.axes, a.keepdims), dtype: "f32" }, o, operandsOf(node));
  };
  const rowSplits = /* @__PURE__ */ new WeakMap();
  const rowSplit = (multi, out2) => {
    const hit = rowSplits.get(multi);
    if (hit) return hit;
    const a = enodeAttrs(multi, "rowwiseMulti");
    const n2 = multi.children.length;
    const whole = opCost(multi, insOf(multi), out2, o);
    const alone = a.exprs.map((expr) => {
      const reads = [];
      const note = (e) => mapInputs(e, (i) => {
        if (i < n2 && !reads.includes(i)) reads.push(i);
        return { op: "in", index: i };
      });
      note(expr);
      for (const st of a.stats) note(st.expr);
      const at = (i) => ({ op: "in", index: i < n2 ? reads.indexOf(i) : reads.length + i - n2 });
      const node = irENode("rowwise", { expr: mapInputs(expr, at), stats: a.stats.map((st) => ({ ...st, expr: mapInputs(st.expr, at) })) }, reads.map((i) => multi.children[i]));
      return opCost(node, insOf(node), out2, o);
    });
    const k = alone.length;
    const total = alone.reduce((s, v) => s + v, 0);
    const shared2 = k > 1 && Number.isFinite(whole) ? Math.max(0, (total - whole) / (k - 1)) : 0;
    const split = Number.isFinite(whole) ? { shared: shared2, picks: alone.map((v) => Math.max(EPSILON, v - shared2)) } : { shared: whole, picks: alone.map(() => whole) };
    rowSplits.set(multi, split);
    return split;
  };
  const shared = /* @__PURE__ */ new WeakMap();
  const sharedOf = (multi, src) => {
    let sh = shared.get(multi);
    if (!sh) shared.set(multi, sh = { whole: opCost(multi, insOf(multi), egraph.eclass(src).data, o, operandsOf(multi)) });
    return sh;
  };
  const resultShare = (multi, { index }, src) => {
    const ir = fromENode(multi);
    const sh = sharedOf(multi, src);
    const whole = sh.whole;
    if (ir.op === "pointwiseMultiTensor") {
      if (!sh.sizes) {
        const { roles } = groupOperands({ inputs: multi.children, attrs: ir.attrs });
        const P = ir.attrs.partials;
        const moved = roles + ir.attrs.exprs.length;
        const numels = ir.attrs.shapes.map((s) => s.reduce((p, d) => p * d, 1));
        sh.sizes = numels.map((n2) => n2 * moved);
        sh.extra = numels.map((n2, g2) => P ? n2 * (P.splits[g2] - 1) : 0);
        sh.total = sh.sizes.reduce((a, b) => a + b, 0) + sh.extra.reduce((a, b) => a + b, 0) || 1;
      }
      const { sizes: sizes2, extra = [] } = sh;
      const total = sh.total;
      const k = kernelOutputs(ir);
      const R = ir.attrs.exprs.length;
      const g = Math.floor(index / R);
      return o.dispatchCost / k + (whole - o.dispatchCost) * (sizes2[g] / R + (index % R === 0 ? extra[g] ?? 0 : 0)) / total;
    }
    if (ir.op === "rowwiseMulti") return rowSplit(multi, egraph.eclass(src).data).picks[index];
    if (ir.op === "pointwiseReduceMulti") {
      if (!sh.alone) sh.alone = ir.attrs.results.map((r) => aloneCost(multi, r, ir.attrs));
      const alone = sh.alone;
      const total = alone.reduce((a, b) => a + b, 0);
      return total > 0 && Number.isFinite(total) ? whole * alone[index] / total : whole / alone.length;
    }
    if (ir.op !== "attentionWithLse") return whole / kernelOutputs(ir);
    const lseNode = irENode("attentionLse", ir.attrs, multi.children.slice(0, 2));
    const lseType = resultType(ir, egraph.eclass(src).data, 1);
    const lse = Math.min(whole, opCost(lseNode, insOf(lseNode), { shape: lseType.shape, dtype: lseType.dtype }, o, operandsOf(lseNode))) * (1 - 1e-6);
    return index === 1 ? lse : whole - lse;
  };
  return {
    nodeCost(node, eclass) {
      const hit = memo.get(node);
      if (hit !== void 0) return hit;
      let c;
      if (node.op === "rowwiseMulti") c = rowSplit(node, egraph.eclass(eclass).data).shared + 1e-3;
      else if (isOpKind(node.op) && isMultiResultOp(node.op)) c = EPSILON;
      else if (node.op === "pick") {
        const src = egraph.find(node.children[0]);
        const multi = egraph.eclass(src).nodes.find((n2) => isOpKind(n2.op) && isMultiResultOp(n2.op));
        c = multi ? resultShare(multi, enodeAttrs(node, "pick"), src) + EPSILON : Number.POSITIVE_INFINITY;
      } else c = opCost(node, insOf(node), egraph.eclass(eclass).data, o, operandsOf(node));
      memo.set(node, c);
      return c;
    }
  };
}

// packages/egraph/src/tensor/report.ts
function graphFigures(graph) {
  let dispatches = 0;
  let bytes = 0;
  const live = graph.live();
  for (const id of live) {
    const n2 = graph.nodes[id];
    if (!isKernelOp2(n2.op)) continue;
    const ins = n2.inputs.map((i) => graph.nodes[i]);
    dispatches += kernelDispatches(n2.op, { attrs: n2.attrs, ins, out: n2 });
    for (let r = 0; r < kernelOutputs(n2); r++) bytes += tensorBytes(resultType(n2, n2, r));
  }
  return { dispatches, bytes, nodes: live.length };
}
var ATTENTION_OPS = ["attention", "attentionLse", "attentionWithLse", "attentionGrad", "attentionGradKV", "attentionGradQKV"];
function kernelsOf(graph, rulesOf2) {
  const out2 = [];
  for (const id of graph.live()) {
    const n2 = graph.nodes[id];
    const a = n2.attrs;
    const seqMajor2 = ATTENTION_OPS.includes(n2.op) && a.seqMajor === true;
    const window = ATTENTION_OPS.includes(n2.op) ? a.window : void 0;
    const deltaFromOut2 = ATTENTION_OPS.includes(n2.op) && a.deltaFromOut === true;
    if (!FUSED_OPS.includes(n2.op) && n2.op !== "custom" && !seqMajor2 && !deltaFromOut2 || n2.op === "pick") continue;
    const base = { node: id, op: n2.op, shape: n2.shape, inputs: n2.inputs.length, rules: rulesOf2(id) };
    const forms = [
      ...seqMajor2 ? ["seq-major [..., T, H, D] (head split/merge folded)"] : [],
      ...n2.op === "attentionGradQKV" ? ["dq, dk, dv written into one [..., T, 3H, D] (concat folded)"] : [],
      ...window ? [`q, k, v read in place as head windows at [${window.offsets.join(", ")}] (QKV slices folded)`] : [],
      ...deltaFromOut2 ? ["\u0394 = rowsum(dOut \u2299 out) computed in the kernel"] : []
    ];
    if (forms.length > 0) out2.push({ ...base, expr: forms.join("; ") });
    else if (n2.op === "pointwise") out2.push({ ...base, expr: fmtPwExpr(n2.attrs.expr) });
    else if (n2.op === "pointwiseMulti") out2.push({ ...base, expr: n2.attrs.exprs.map((e) => fmtPwExpr(e)).join(" ; ") });
    else if (n2.op === "pointwiseMultiTensor") {
      const P = n2.attrs.partials;
      const folded = P ? `, role ${P.role} of ${P.splits.filter((x) => x > 1).length} groups summed from split-K partials` : "";
      out2.push({ ...base, expr: `${n2.attrs.exprs.map((e) => fmtPwExpr(e)).join(" ; ")} over ${n2.attrs.shapes.length} groups${folded}` });
    } else if (n2.op === "matmulEpilogue") out2.push({ ...base, epilogue: `${n2.attrs.transA ? "transA+" : ""}${n2.attrs.transB ? "transB+" : ""}${fmtPwExpr(n2.attrs.expr)}` });
    else if (n2.op === "pointwiseReduce") out2.push({ ...base, expr: fmtPointwiseReduce(n2.attrs) });
    else if (n2.op === "pointwiseReduceMulti") out2.push({ ...base, expr: n2.attrs.results.map((r) => fmtPointwiseReduce({ ...n2.attrs, ...r })).join(" ; ") });
    else if (n2.op === "rowwise") out2.push({ ...base, expr: fmtRowwise(n2.attrs) });
    else if (n2.op === "rowwiseMulti") out2.push({ ...base, expr: n2.attrs.exprs.map((expr) => fmtRowwise({ expr, stats: n2.attrs.stats })).join(" ; ") });
    else if (n2.op === "custom") out2.push({ ...base, custom: n2.attrs.name });
    else if (n2.op === "fusedMatmul") {
      const a2 = n2.attrs;
      const parts = [a2.transA ? "transA" : "", a2.transB ? "transB" : "", a2.bias ? "bias" : "", a2.activation !== "none" ? a2.activation : ""];
      out2.push({ ...base, epilogue: parts.filter(Boolean).join("+") || "none" });
    } else out2.push(base);
  }
  return out2;
}
function fmtBytes(b) {
  if (b >= 1e9) return `${(b / 1e9).toFixed(1)} GB`;
  if (b >= 1e6) return `${(b / 1e6).toFixed(1)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${b} B`;
}
var OptimizeReport = class {
  /** E-graph size, iterations, stop reason, time and rule hits. */
  egraph;
  /** Kernel nodes of the input graph. */
  dispatchesBefore;
  /** Kernel nodes of the optimized graph. */
  dispatchesAfter;
  /** Output bytes of the input graph's kernels (intermediate traffic). */
  bytesBefore;
  /** Output bytes of the optimized graph's kernels. */
  bytesAfter;
  /** DAG cost of the extracted graph under the cost model. */
  cost;
  /** The extractor's local search: moves tried and the bound that stopped it. */
  search;
  /** Total time of `optimize` (load, run, extract, rebuild) in ms. */
  totalTimeMs;
  /** The fused kernels of the result, with the rules that made each. */
  kernels;
  /** The e-graph in DOT (with NEURA_DEBUG ≥ 3). */
  dot;
  /** The runner's report, all passes combined. */
  run;
  /** Each named pass with its own runner report, in order. */
  passes;
  /** Time of DAG extraction in ms. */
  extractMs;
  /** Wall time of each phase of `optimize` in ms: loading the e-graph, the passes, extraction, rebuilding the graph. */
  phases;
  /** Ops with a user-registered kernel, kept as fusion boundaries (sorted; empty when none). */
  customKernelOps;
  /** What `memoryBudget` did (undefined without one): estimated bytes before and after, recomputed operands. */
  memory;
  /** Builds the report from the run and both graphs' figures. */
  constructor(parts) {
    const hits = {};
    for (const [k, v] of Object.entries(parts.run.applied)) if (v > 0) hits[k] = v;
    this.run = parts.run;
    this.passes = parts.passes ?? [{ name: "run", report: parts.run }];
    this.phases = parts.phases ?? { loadMs: 0, runMs: parts.run.totalTimeMs, extractMs: 0, rebuildGraphMs: 0 };
    this.extractMs = this.phases.extractMs;
    this.egraph = {
      enodes: parts.run.egraphNodes,
      eclasses: parts.run.egraphClasses,
      iterations: parts.run.iterations,
      stopReason: parts.run.stopReason,
      stopMessage: parts.run.stopMessage,
      timeMs: parts.run.totalTimeMs,
      ruleHits: hits
    };
    this.dispatchesBefore = parts.before.dispatches;
    this.dispatchesAfter = parts.after.dispatches;
    this.bytesBefore = parts.before.bytes;
    this.bytesAfter = parts.after.bytes;
    this.cost = parts.cost;
    this.search = parts.search ?? { evaluations: 0, stop: "off" };
    this.totalTimeMs = parts.totalTimeMs;
    this.kernels = parts.kernels;
    this.dot = parts.dot;
    this.customKernelOps = parts.customKernelOps ?? [];
    this.memory = parts.memory;
  }
  /**
   * One line: `e-graph: 412 e-nodes, 180 e-classes, 7 iterations (saturated) in 38 ms; extraction 950 moves
   * (converged); dispatches 31 → 12; …`: the bracketed words name the bound that stopped each phase.
   */
  summary() {
    const e = this.egraph;
    return `e-graph: ${e.enodes} e-nodes, ${e.eclasses} e-classes, ${e.iterations} iterations (${e.stopReason}) in ${Math.round(e.timeMs)} ms; extraction ${this.search.evaluations} moves (${this.search.stop}); dispatches ${this.dispatchesBefore} \u2192 ${this.dispatchesAfter}; bytes ${fmtBytes(this.bytesBefore)} \u2192 ${fmtBytes(this.bytesAfter)}` + (this.customKernelOps.length ? `; custom kernels (fusion boundaries): ${this.customKernelOps.join(", ")}` : "") + (this.memory ? `; memory ${fmtBytes(this.memory.before)} \u2192 ${fmtBytes(this.memory.after)} (budget ${fmtBytes(this.memory.budget)}, ${this.memory.recomputed} recomputed operands${this.memory.reordered ? ", memory-aware schedule" : ""})` : "");
  }
  /** A multi-line report: the summary, the stop message, rule hits and every fused kernel with its rules. */
  format() {
    const lines = [this.summary(), `  stop: ${this.egraph.stopMessage}; total ${Math.round(this.totalTimeMs)} ms; cost ${this.cost.toFixed(1)}`];
    for (const { name, report: r } of this.passes) {
      lines.push(
        `  pass ${name}: ${r.iterations} iterations (${r.stopReason}), ${r.egraphNodes} e-nodes, ${r.egraphClasses} e-classes, ${Math.round(r.totalTimeMs)} ms (search ${Math.round(r.searchTimeMs)}, apply ${Math.round(r.applyTimeMs)}, rebuild ${Math.round(r.rebuildTimeMs)})`
      );
    }
    const ph = this.phases;
    lines.push(`  phases: load ${Math.round(ph.loadMs)} ms, passes ${Math.round(ph.runMs)} ms, extraction ${Math.round(ph.extractMs)} ms, rebuild ${Math.round(ph.rebuildGraphMs)} ms`);
    const hits = Object.entries(this.egraph.ruleHits).sort((a, b) => b[1] - a[1]);
    lines.push(`  rule hits: ${hits.map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`);
    lines.push(`  fused kernels (${this.kernels.length}):`);
    for (const k of this.kernels) {
      const what = k.expr ?? k.epilogue ?? k.custom ?? "";
      lines.push(`    %${k.node} ${k.op} ${fmtShape(k.shape)} ${k.inputs} in${what ? ` ${what}` : ""}  \u2190 ${k.rules.join(", ") || "(input graph)"}`);
    }
    return lines.join("\n");
  }
};
function egraphToDot(egraph, extraction) {
  const lines = ["digraph egraph {", "  compound=true; node [shape=box, fontsize=10];"];
  const esc = (s) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  const edges = [];
  for (const c of egraph.classes()) {
    lines.push(`  subgraph cluster_${c.id} { label="e${c.id} ${fmtShape(c.data.shape)}:${c.data.dtype}"; style=dashed;`);
    const chosen = extraction?.choices.get(c.id);
    c.nodes.forEach((n2, i) => {
      let label = formatOp({ ...n2, children: n2.children.length ? n2.children : [] }, tensorLanguage);
      if (n2.op === "pointwise") label = `pointwise ${fmtPwExpr(pointwiseExprOf(n2))}`;
      if (label.length > 80) label = `${label.slice(0, 77)}...`;
      const bold = chosen === n2 ? ", penwidth=3" : "";
      lines.push(`    n${c.id}_${i} [label="${esc(label)}"${bold}];`);
      for (const ch of n2.children) edges.push(`  n${c.id}_${i} -> n${egraph.find(ch)}_0 [lhead=cluster_${egraph.find(ch)}];`);
    });
    lines.push("  }");
  }
  return [...lines, ...edges, "}"].join("\n");
}
function debugLevel() {
  const env = globalThis.process?.env;
  const v = Number(env?.NEURA_DEBUG ?? 0);
  return Number.isFinite(v) ? v : 0;
}
function writeDebug(text) {
  globalThis.console?.error(text);
}

// packages/egraph/src/tensor/rules/ruleKit.ts
function addRecorded(egraph, node, rules) {
  const id = egraph.add(node);
  tensorAnalysisOf(egraph)?.record(id, egraph.canonicalize(node), rules);
  return id;
}
function rulesOf(egraph, cls, node) {
  return tensorAnalysisOf(egraph)?.rulesOf(egraph, cls, node) ?? [];
}
function trw(name, lhs, rhs, condition) {
  let searcher;
  let applier;
  try {
    searcher = Pattern.parse(lhs, tensorLanguage);
    applier = Pattern.parse(rhs, tensorLanguage);
  } catch (e) {
    throw new RuleError(`rule '${name}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const recording = {
    applyOne(egraph, _eclass, subst) {
      const id = applier.instantiate(egraph, subst);
      const root = applier.ast;
      if (root.kind === "node") {
        const node = egraph.eclass(id).nodes.find((n2) => n2.op === root.op);
        if (node) tensorAnalysisOf(egraph)?.record(id, node, [name]);
      }
      return [id];
    },
    vars: () => applier.vars(),
    toString: () => applier.toString(tensorLanguage)
  };
  return new Rewrite(name, searcher, recording, condition);
}
function nodeSignature(egraph, eclass, node) {
  let h = Math.imul(egraph.find(eclass) + 1, 2654435761);
  for (const c of node.children) {
    const cls = egraph.eclass(c);
    h = Math.imul(h ^ cls.id, 2246822507) + cls.nodes.length;
    h = Math.imul(h ^ h >>> 13, 3266489909) + (cls.data.constant === void 0 ? 0 : 1);
  }
  return h | 0;
}
function childSignature(count) {
  return (egraph, eclass, node) => {
    let h = Math.imul(egraph.find(eclass) + 1, 2654435761);
    for (const c of node.children) {
      const cls = egraph.eclass(c);
      h = Math.imul(h ^ cls.id, 2246822507) + count(egraph, cls.id);
      h = Math.imul(h ^ h >>> 13, 3266489909) + (cls.data.constant === void 0 ? 0 : 1);
    }
    return h | 0;
  };
}
var CHILD_VARS = Array.from({ length: 17 }, (_, arity2) => Array.from({ length: arity2 }, (_2, i) => `?c${i}`));
function childVars(arity2) {
  return CHILD_VARS[arity2] ?? Array.from({ length: arity2 }, (_, i) => `?c${i}`);
}
function candidateScan(egraph, since) {
  const ctx = ctxOf(egraph);
  const key = `${since}|${egraph.epoch}|${egraph.totalNodes}|${egraph.numClasses}`;
  const last = ctx.of("nodeRule:changed", () => ({}));
  if (last.scan?.key === key) return last.scan;
  const ids2 = /* @__PURE__ */ new Set();
  for (const id of egraph.changedSince(since)) {
    ids2.add(id);
    for (const [, p] of egraph.eclass(id).parents) ids2.add(egraph.find(p));
  }
  const classes2 = [];
  const nodes = [];
  const byOp = /* @__PURE__ */ new Map();
  for (const id of ids2) {
    for (const n2 of egraph.eclass(id).nodes) {
      const k = nodes.push(n2) - 1;
      classes2.push(id);
      const list = byOp.get(n2.op);
      if (list) list.push(k);
      else byOp.set(n2.op, [k]);
    }
  }
  last.scan = { key, classes: classes2, nodes, byOp };
  return last.scan;
}
function entriesOf(scan, ops) {
  const lists = [];
  for (const op of ops) {
    const l = scan.byOp.get(op);
    if (l) lists.push(l);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  return Int32Array.from(lists.flat()).sort();
}
function ctxOf(egraph) {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis) throw new RuleError("tensor rules run on an e-graph with a TensorAnalysis (it holds their per-run state)");
  return analysis.ctx;
}
function classOps(egraph, cls) {
  const c = egraph.eclass(cls);
  const cache = ctxOf(egraph).of("ruleKit:class-ops", () => /* @__PURE__ */ new Map());
  let e = cache.get(c.id);
  if (!e || e.nodes !== c.nodes) {
    e = { nodes: c.nodes, length: 0, ops: /* @__PURE__ */ new Set() };
    cache.set(c.id, e);
  }
  for (; e.length < c.nodes.length; e.length++) e.ops.add(c.nodes[e.length].op);
  return e.ops;
}
function classOpCount(egraph, cls, op) {
  const c = egraph.eclass(cls);
  const cache = ctxOf(egraph).of("ruleKit:class-op-counts", () => /* @__PURE__ */ new Map());
  let e = cache.get(c.id);
  if (!e || e.nodes !== c.nodes) {
    e = { nodes: c.nodes, length: 0, counts: /* @__PURE__ */ new Map() };
    cache.set(c.id, e);
  }
  for (; e.length < c.nodes.length; e.length++) {
    const o = c.nodes[e.length].op;
    e.counts.set(o, (e.counts.get(o) ?? 0) + 1);
  }
  return e.counts.get(op) ?? 0;
}
function classHasOp(egraph, cls, op) {
  return classOps(egraph, cls).has(op);
}
function classHasAnyOp(egraph, cls, ops) {
  const set = classOps(egraph, cls);
  for (const op of ops) if (set.has(op)) return true;
  return false;
}
function nodeRule(name, ops, apply, opts = {}) {
  const guard = opts.guard;
  const signature = opts.signature ?? nodeSignature;
  const opSet = new Set(ops);
  const stateKey = `nodeRule:${name}`;
  const stateOf = (egraph) => ctxOf(egraph).of(stateKey, () => ({ nodes: /* @__PURE__ */ new Map(), applied: /* @__PURE__ */ new Map() }));
  const searcher = {
    search(egraph, limit = Number.POSITIVE_INFINITY) {
      const st = stateOf(egraph);
      st.nodes.clear();
      const out2 = [];
      let budget = limit;
      const since = st.scanned;
      const epoch = egraph.epoch;
      const wanted = (id, n2) => {
        const applied = st.applied.get(n2);
        return !(applied !== void 0 && applied === signature(egraph, id, n2) || guard && !guard(egraph, id, n2));
      };
      const match = (n2) => {
        const s = Subst.fromArrays(childVars(n2.children.length), n2.children);
        st.nodes.set(s, n2);
        return s;
      };
      if (since === void 0) {
        const seen = /* @__PURE__ */ new Set();
        for (const id of ops.flatMap((op) => egraph.classesWithOp(op))) {
          if (seen.has(id)) continue;
          seen.add(id);
          if (budget <= 0) return out2;
          const substs = [];
          for (const n2 of egraph.eclass(id).nodes) if (opSet.has(n2.op) && wanted(id, n2)) substs.push(match(n2));
          if (substs.length) {
            out2.push({ eclass: id, substs });
            budget -= substs.length;
          }
        }
      } else {
        const scan = candidateScan(egraph, since);
        let cur = -1;
        let substs = [];
        for (const k of entriesOf(scan, ops)) {
          const id = scan.classes[k];
          if (id !== cur) {
            if (substs.length) {
              out2.push({ eclass: cur, substs });
              budget -= substs.length;
              substs = [];
            }
            if (budget <= 0) return out2;
            cur = id;
          }
          const n2 = scan.nodes[k];
          if (wanted(id, n2)) substs.push(match(n2));
        }
        if (substs.length) {
          out2.push({ eclass: cur, substs });
          budget -= substs.length;
        }
        if (budget <= 0 && cur !== scan.classes[scan.classes.length - 1]) return out2;
      }
      st.scanned = epoch;
      return out2;
    },
    vars: () => [],
    toString: () => `<${ops.join("|")} node>`
  };
  return new Rewrite(
    name,
    searcher,
    fnApplier((egraph, eclass, subst) => {
      const st = stateOf(egraph);
      const n2 = st.nodes.get(subst);
      if (!n2) return void 0;
      const canon = egraph.canonicalize(n2);
      st.applied.set(n2, signature(egraph, eclass, canon));
      return apply(egraph, eclass, canon, ctxOf(egraph));
    }, name)
  );
}
function classRule(name, pick2, apply) {
  const searcher = {
    search(egraph, limit = Number.POSITIVE_INFINITY) {
      const out2 = [];
      for (const c of egraph.classes()) {
        if (out2.length >= limit) break;
        if (pick2(egraph, c.id)) out2.push({ eclass: c.id, substs: [new Subst([["x", c.id]])] });
      }
      return out2;
    },
    vars: () => ["?x"],
    toString: () => `<classes: ${name}>`
  };
  return new Rewrite(name, searcher, fnApplier((egraph, eclass) => apply(egraph, eclass), name));
}
var data = (egraph, id) => egraph.eclass(id).data;
function sameTypeAs(v) {
  return (egraph, eclass, subst) => {
    const a = data(egraph, eclass);
    const b = data(egraph, subst.get(v));
    return a.dtype === b.dtype && sameShape(a.shape, b.shape);
  };
}
function constants(...vars) {
  return (egraph, _e, subst) => vars.every((v) => data(egraph, subst.get(v)).constant !== void 0);
}
function notConstant(v) {
  return (egraph, _e, subst) => data(egraph, subst.get(v)).constant === void 0;
}
var isF32 = (egraph, eclass) => data(egraph, eclass).dtype === "f32";
function broadcastKeeps(...vars) {
  return (egraph, eclass, subst) => {
    const s = broadcastShapes(...vars.map((v) => data(egraph, subst.get(v)).shape));
    return s !== void 0 && sameShape(s, data(egraph, eclass).shape);
  };
}
function all(...conds) {
  return (egraph, eclass, subst) => conds.every((c) => c(egraph, eclass, subst));
}
function trwFn(name, lhs, fn, condition) {
  return rw(name, lhs, fn, { language: tensorLanguage, condition });
}

// packages/egraph/src/tensor/rules/algebra.ts
function foldClass(egraph, eclass) {
  const d = egraph.eclass(eclass).data;
  if (d.constant === void 0) return void 0;
  return addRecorded(egraph, constENode(d.constant, d.shape, d.dtype), ["const-fold"]);
}
function zerosOf(egraph, eclass) {
  const d = egraph.eclass(eclass).data;
  return egraph.add(constENode(0, d.shape, d.dtype));
}
function mulConstants(egraph, eclass, a, c1, c2) {
  const d1 = egraph.eclass(c1).data;
  const d2 = egraph.eclass(c2).data;
  const shape = broadcastShapes(d1.shape, d2.shape);
  if (!shape) return void 0;
  const c = egraph.add(constENode(d1.constant * d2.constant, shape, egraph.eclass(eclass).data.dtype));
  return egraph.add({ op: "mul", children: [a, c] });
}
var hasConstNode = (egraph, id) => egraph.eclass(id).nodes.some((n2) => n2.op === "const");
function reduceFactorOut(egraph, _eclass, node) {
  const out2 = [];
  const inner = egraph.eclass(node.children[0]);
  for (const n2 of inner.nodes) {
    if (n2.op === "neg") {
      const r = addRecorded(egraph, { op: node.op, data: node.data, children: [n2.children[0]] }, ["reduce-factor-out"]);
      out2.push(addRecorded(egraph, { op: "neg", children: [r] }, ["reduce-factor-out"]));
    } else if (n2.op === "mul" && inner.data.dtype === "f32") {
      const [x, c] = n2.children;
      const cd = egraph.eclass(c).data;
      if (cd.constant === void 0 || !sameShape(egraph.eclass(x).data.shape, inner.data.shape)) continue;
      const r = addRecorded(egraph, { op: node.op, data: node.data, children: [x] }, ["reduce-factor-out"]);
      const k = egraph.add(constENode(cd.constant, [], cd.dtype));
      out2.push(addRecorded(egraph, { op: "mul", children: [r, k] }, ["reduce-factor-out"]));
    }
  }
  return out2;
}
var algebraRules = [
  trw("add-zero", "(add ?a 0)", "?a", sameTypeAs("?a")),
  trw("add-zero-l", "(add 0 ?a)", "?a", sameTypeAs("?a")),
  trw("sub-zero", "(sub ?a 0)", "?a", sameTypeAs("?a")),
  trw("mul-one", "(mul ?a 1)", "?a", sameTypeAs("?a")),
  trw("mul-one-l", "(mul 1 ?a)", "?a", sameTypeAs("?a")),
  trw("div-one", "(div ?a 1)", "?a", sameTypeAs("?a")),
  trw("neg-neg", "(neg (neg ?a))", "?a", sameTypeAs("?a")),
  // x·0 = 0 of the product's shape (not IEEE-exact for x = ±∞ or NaN, as in every tensor compiler)
  trwFn("mul-zero", "(mul ?a 0)", zerosOf),
  trwFn("mul-zero-l", "(mul 0 ?a)", zerosOf),
  classRule("const-fold", (eg, id) => eg.eclass(id).data.constant !== void 0 && !hasConstNode(eg, id), foldClass),
  // constants to the right of a product, so that the reassociation below sees every order
  trw("mul-const-right", "(mul ?c ?a)", "(mul ?a ?c)", all(constants("?c"), notConstant("?a"))),
  trwFn(
    "mul-const-assoc",
    "(mul (mul ?a ?c1) ?c2)",
    (eg, e, s) => mulConstants(eg, e, s.get("?a"), s.get("?c1"), s.get("?c2")),
    all(isF32, constants("?c1", "?c2"), notConstant("?a"))
  ),
  nodeRule("reduce-factor-out", ["sum", "mean"], reduceFactorOut, {
    guard: (eg, _e, n2) => eg.eclass(n2.children[0]).nodes.some((m) => m.op === "neg" || m.op === "mul")
  })
];

// packages/egraph/src/tensor/rules/attentionLayout.ts
var FLASH_MAX_DIM = 128;
var swapPerm = (rank, axis) => {
  const p = Array.from({ length: rank }, (_, i) => i);
  [p[axis], p[axis + 1]] = [axis + 1, axis];
  return p;
};
var samePerm = (n2, perm) => n2.op === "transpose" && sameShape(enodeAttrs(n2, "transpose").perm, perm);
function untransposed(egraph, c, perm) {
  return egraph.eclass(c).nodes.find((n2) => samePerm(n2, perm))?.children[0];
}
var flashDim = (n2) => n2 > 0 && n2 % 4 === 0 && n2 <= FLASH_MAX_DIM;
function seqMajor(egraph, _eclass, node) {
  const ir = fromENode(node);
  if (ir.op !== "attention" && ir.op !== "attentionLse" && ir.op !== "attentionGrad" || ir.attrs.seqMajor) return [];
  const shapes = node.children.map((c) => egraph.eclass(c).data.shape);
  const r = shapes[0].length;
  if (r < 3 || !shapes.slice(0, 3).every((s) => flashDim(s[r - 1]))) return [];
  const tensor2 = swapPerm(r, r - 3);
  const rows = swapPerm(r - 1, r - 3);
  const kids = [];
  const fullRank = (i) => i < 4 || i === 5 && ir.op === "attentionGrad" && ir.attrs.deltaFromOut === true;
  for (const [i, c] of node.children.entries()) {
    const x = untransposed(egraph, c, fullRank(i) ? tensor2 : rows);
    if (x === void 0) return [];
    kids.push(x);
  }
  const inner = addRecorded(egraph, irENode(ir.op, { ...ir.attrs, seqMajor: true }, kids), ["attention-seq-major"]);
  return [addRecorded(egraph, irENode("transpose", { perm: ir.op === "attentionLse" ? rows : tensor2 }, [inner]), ["attention-seq-major"])];
}
function rowsumTranspose(egraph, _eclass, node) {
  const { axes, keepdims } = enodeAttrs(node, "sum");
  const r = egraph.eclass(node.children[0]).data.shape.length;
  if (keepdims || axes.length !== 1 || axes[0] !== r - 1) return [];
  const out2 = [];
  for (const m of egraph.eclass(node.children[0]).nodes) {
    if (m.op !== "mul") continue;
    const [ta, tb] = m.children.map((c) => egraph.eclass(c).nodes.find((n2) => n2.op === "transpose"));
    if (!ta || !tb) continue;
    const perm = enodeAttrs(ta, "transpose").perm;
    if (!samePerm(tb, perm) || perm[r - 1] !== r - 1) continue;
    const [a, b] = [ta.children[0], tb.children[0]];
    if (!sameShape(egraph.eclass(a).data.shape, egraph.eclass(b).data.shape)) continue;
    const mul = addRecorded(egraph, irENode("mul", {}, [a, b]), ["rowsum-transpose"]);
    const sum = addRecorded(egraph, irENode("sum", { axes: [r - 1], keepdims: false }, [mul]), ["rowsum-transpose"]);
    out2.push(addRecorded(egraph, irENode("transpose", { perm: perm.slice(0, -1) }, [sum]), ["rowsum-transpose"]));
  }
  return out2;
}
var attentionLayoutRules = [
  nodeRule("attention-seq-major", ["attention", "attentionLse", "attentionGrad"], seqMajor),
  nodeRule("rowsum-transpose", ["sum"], rowsumTranspose)
];

// packages/egraph/src/tensor/rules/attentionDelta.ts
var RULE = "attention-delta-from-out";
function outOfDelta(egraph, delta, dOut) {
  const shape = egraph.eclass(dOut).data.shape;
  for (const s of egraph.eclass(delta).nodes) {
    if (s.op !== "sum") continue;
    const { axes, keepdims } = enodeAttrs(s, "sum");
    if (keepdims || axes.length !== 1 || axes[0] !== shape.length - 1) continue;
    for (const m of egraph.eclass(s.children[0]).nodes) {
      if (m.op !== "mul") continue;
      const [a, b] = m.children.map((c) => egraph.find(c));
      const o = a === dOut ? b : b === dOut ? a : void 0;
      if (o !== void 0 && sameShape(egraph.eclass(o).data.shape, shape)) return o;
    }
  }
  return void 0;
}
function deltaFromOut(egraph, _eclass, node) {
  const ir = fromENode(node);
  if (ir.op !== "attentionGrad" && ir.op !== "attentionGradKV" || ir.attrs.deltaFromOut) return [];
  const kids = node.children.map((c) => egraph.find(c));
  const shapes = kids.slice(0, 3).map((c) => egraph.eclass(c).data.shape);
  if (!shapes.every((s) => flashDim(s[s.length - 1]))) return [];
  const o = outOfDelta(egraph, kids[5], kids[3]);
  if (o === void 0) return [];
  return [addRecorded(egraph, irENode(ir.op, { ...ir.attrs, deltaFromOut: true }, [...kids.slice(0, 5), o]), [RULE])];
}
var attentionDeltaRules = [nodeRule(RULE, ["attentionGrad", "attentionGradKV"], deltaFromOut)];

// packages/egraph/src/tensor/rules/attentionGradKV.ts
var RULE2 = "attention-grad-kv";
function attentionGradKV(egraph, eclass, node) {
  const dk = fromENode(node);
  if (dk.op !== "attentionGrad" || dk.attrs.wrt !== "k") return [];
  const { causal, scale: scale2, seqMajor: seqMajor2, deltaFromOut: deltaFromOut2 } = dk.attrs;
  const kids = node.children.map((c) => egraph.find(c));
  if (!sameShape(egraph.eclass(kids[1]).data.shape, egraph.eclass(kids[2]).data.shape)) return [];
  for (const [parent, cls] of egraph.eclass(kids[2]).parents) {
    const dv = fromENode(parent);
    if (dv.op !== "attentionGrad" || dv.attrs.wrt !== "v" || dv.attrs.causal !== causal || dv.attrs.scale !== scale2 || !dv.attrs.seqMajor !== !seqMajor2 || !dv.attrs.deltaFromOut !== !deltaFromOut2) continue;
    if (parent.children.some((c, i) => egraph.find(c) !== kids[i])) continue;
    const made = /* @__PURE__ */ new Set([RULE2, ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, cls, parent)]);
    const attrs = { causal, scale: scale2, ...seqMajor2 ? { seqMajor: seqMajor2 } : {}, ...deltaFromOut2 ? { deltaFromOut: deltaFromOut2 } : {} };
    const m = addRecorded(egraph, irENode("attentionGradKV", attrs, kids), made);
    egraph.union(egraph.find(cls), addRecorded(egraph, irENode("pick", { index: 1 }, [m]), [RULE2]));
    return [addRecorded(egraph, irENode("pick", { index: 0 }, [m]), [RULE2])];
  }
  return [];
}
var attentionGradKVRules = [nodeRule(RULE2, ["attentionGrad"], attentionGradKV)];

// packages/egraph/src/tensor/rules/attentionGradQKV.ts
var RULE3 = "attention-grad-qkv";
var sameGrad = (a, b) => a.causal === b.causal && a.scale === b.scale && !a.seqMajor === !b.seqMajor && !a.deltaFromOut === !b.deltaFromOut && JSON.stringify(a.window) === JSON.stringify(b.window);
function holdsGrad(egraph, c, rows, wrt, kids, dq) {
  if (!sameShape(egraph.eclass(c).data.shape, rows)) return false;
  return egraph.eclass(c).nodes.some(
    (n2) => n2.op === "reshape" && egraph.eclass(n2.children[0]).nodes.some((m) => {
      if (m.op !== "attentionGrad") return false;
      const g = fromENode(m);
      return g.op === "attentionGrad" && g.attrs.wrt === wrt && sameGrad(g.attrs, dq) && m.children.every((x, i) => egraph.find(x) === kids[i]);
    })
  );
}
function attentionGradQKV(egraph, eclass, node) {
  const joined = egraph.eclass(eclass).data.shape;
  if (node.children.length !== 3 || enodeAttrs(node, "concat").axis !== joined.length - 1) return [];
  const rows = egraph.eclass(node.children[0]).data.shape;
  const out2 = [];
  for (const n2 of egraph.eclass(node.children[0]).nodes) {
    if (n2.op !== "reshape") continue;
    const shape = egraph.eclass(n2.children[0]).data.shape;
    const r = shape.length;
    if (r < 3 || !flashDim(shape[r - 1]) || rows[rows.length - 1] !== shape[r - 2] * shape[r - 1]) continue;
    for (const m of egraph.eclass(n2.children[0]).nodes) {
      if (m.op !== "attentionGrad") continue;
      const dq = fromENode(m);
      if (dq.op !== "attentionGrad" || dq.attrs.wrt !== "q" || !dq.attrs.seqMajor) continue;
      const kids = m.children.map((c) => egraph.find(c));
      if (!holdsGrad(egraph, node.children[1], rows, "k", kids, dq.attrs) || !holdsGrad(egraph, node.children[2], rows, "v", kids, dq.attrs)) continue;
      const { wrt: _, ...attrs } = dq.attrs;
      const made = /* @__PURE__ */ new Set([RULE3, ...rulesOf(egraph, egraph.find(n2.children[0]), m)]);
      const qkv = addRecorded(egraph, irENode("attentionGradQKV", attrs, kids), made);
      out2.push(addRecorded(egraph, irENode("reshape", { shape: [...joined] }, [qkv]), [RULE3]));
    }
  }
  return out2;
}
var attentionGradQKVRules = [nodeRule(RULE3, ["concat"], attentionGradQKV)];

// packages/egraph/src/tensor/rules/attentionLse.ts
var RULE4 = "attention-lse";
function attentionWithLse(egraph, eclass, node) {
  const lse = fromENode(node);
  if (lse.op !== "attentionLse") return [];
  const { causal, scale: scale2, seqMajor: seqMajor2 } = lse.attrs;
  const [q, k] = node.children.map((c) => egraph.find(c));
  const out2 = [];
  const seen = /* @__PURE__ */ new Set();
  for (const [parent, cls] of egraph.eclass(q).parents) {
    const a = fromENode(parent);
    if (a.op !== "attention" || a.attrs.causal !== causal || a.attrs.scale !== scale2 || !a.attrs.seqMajor !== !seqMajor2) continue;
    const [aq, ak, v] = parent.children.map((c) => egraph.find(c));
    const A = egraph.find(cls);
    if (aq !== q || ak !== k || seen.has(A)) continue;
    seen.add(A);
    const made = /* @__PURE__ */ new Set([RULE4, ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, A, parent)]);
    const m = addRecorded(egraph, irENode("attentionWithLse", seqMajor2 ? { causal, scale: scale2, seqMajor: seqMajor2 } : { causal, scale: scale2 }, [q, k, v]), made);
    egraph.union(A, addRecorded(egraph, irENode("pick", { index: 0 }, [m]), [RULE4]));
    out2.push(addRecorded(egraph, irENode("pick", { index: 1 }, [m]), [RULE4]));
  }
  return out2;
}
var attentionLseRules = [nodeRule(RULE4, ["attentionLse"], attentionWithLse)];

// packages/egraph/src/tensor/rules/attentionWindow.ts
var RULE5 = "attention-head-window";
function sliceOnly(egraph, n2, axis) {
  const { starts, ends, steps } = enodeAttrs(n2, "slice");
  const shape = egraph.eclass(n2.children[0]).data.shape;
  const whole = shape.every((d, i) => i === axis || starts[i] === 0 && ends[i] === d);
  return whole && steps.every((s) => s === 1) ? { start: starts[axis], end: ends[axis] } : void 0;
}
function headSource(egraph, c) {
  const shape = egraph.eclass(c).data.shape;
  const r = shape.length;
  const [h, d] = [shape[r - 2], shape[r - 1]];
  for (const n2 of egraph.eclass(c).nodes) {
    if (n2.op === "slice") {
      const ys = egraph.eclass(n2.children[0]).data.shape;
      const s = ys.length === r ? sliceOnly(egraph, n2, r - 2) : void 0;
      if (s) return { tensor: n2.children[0], offset: s.start };
    }
    if (n2.op !== "reshape") continue;
    for (const m of egraph.eclass(n2.children[0]).nodes) {
      if (m.op !== "slice") continue;
      const y = m.children[0];
      const ys = egraph.eclass(y).data.shape;
      const s = ys.length > 0 ? sliceOnly(egraph, m, ys.length - 1) : void 0;
      const w2 = ys[ys.length - 1];
      if (!s || s.end - s.start !== h * d || s.start % d !== 0 || w2 % d !== 0 || numel(ys.slice(0, -1)) !== numel(shape.slice(0, -2))) continue;
      const wide = addRecorded(egraph, irENode("reshape", { shape: [...shape.slice(0, -2), w2 / d, d] }, [y]), [RULE5]);
      return { tensor: wide, offset: s.start / d };
    }
  }
  return void 0;
}
function headWindow(egraph, eclass, node) {
  const ir = fromENode(node);
  if (!isOp(ir, "attention", "attentionLse", "attentionWithLse", "attentionGrad", "attentionGradKV", "attentionGradQKV")) return [];
  if (!ir.attrs.seqMajor || ir.attrs.window) return [];
  const n2 = ir.op === "attentionLse" ? 2 : 3;
  const shapes = node.children.slice(0, n2).map((c) => egraph.eclass(c).data.shape);
  const r = shapes[0].length;
  const heads = shapes[0][r - 2];
  if (r < 3 || !shapes.every((s) => s.length === r && s[r - 2] === heads && flashDim(s[r - 1]))) return [];
  const sources = node.children.slice(0, n2).map((c) => headSource(egraph, c));
  if (sources.every((s) => s === void 0)) return [];
  const kids = node.children.map((c, i) => i < n2 ? sources[i]?.tensor ?? c : c);
  const offsets = [0, 1, 2].map((i) => i < n2 ? sources[i]?.offset ?? 0 : 0);
  return [addRecorded(egraph, irENode(ir.op, { ...ir.attrs, window: { heads, offsets } }, kids), /* @__PURE__ */ new Set([RULE5, ...rulesOf(egraph, eclass, node)]))];
}
var attentionWindowRules = [nodeRule(RULE5, ["attention", "attentionLse", "attentionWithLse", "attentionGrad", "attentionGradKV", "attentionGradQKV"], headWindow)];

// packages/egraph/src/tensor/rules/backward.ts
var isZero = (egraph, _e, subst) => egraph.eclass(subst.get("?zero")).data.constant === 0;
var reluExists = (egraph, _e, subst) => egraph.lookup({ op: "relu", children: [subst.get("?z")] }) !== void 0;
var backwardRules = [
  // d/dx nll(logSoftmax(x)) = (softmax(x) - onehot) · dy (/N): logSoftmaxGrad(y, g) = g - exp(y)·Σg, Σg = -dy·scale
  trw(
    "softmax-cross-entropy-grad",
    "(logSoftmaxGrad (logSoftmax ?x) (nllGrad[reduction=mean] ?labels ?dy))",
    "(softmaxCrossEntropyGrad[reduction=mean] ?x ?labels ?dy)"
  ),
  trw(
    "softmax-cross-entropy-grad-sum",
    "(logSoftmaxGrad (logSoftmax ?x) (nllGrad[reduction=sum] ?labels ?dy))",
    "(softmaxCrossEntropyGrad[reduction=sum] ?x ?labels ?dy)"
  ),
  // relu's VJP masks with z > 0; relu(z) > 0 exactly where z > 0, so the mask may read the forward output
  // (which a fused matmul epilogue materialises) instead of the pre-activation (which it does not)
  trw("relu-grad-mask", "(gt ?z ?zero)", "(gt (relu ?z) ?zero)", all(constants("?zero"), isZero, reluExists))
];

// packages/egraph/src/tensor/rules/fusion.ts
var info = (egraph, id) => egraph.eclass(id).data;
function matmulBias(egraph, eclass, node) {
  const out2 = [];
  const shape = info(egraph, eclass).shape;
  for (const side of [0, 1]) {
    const m = node.children[side];
    const c = node.children[1 - side];
    const cs = info(egraph, c);
    if (!sameShape(info(egraph, m).shape, shape) || cs.dtype !== "f32") continue;
    const b = broadcastShapes(cs.shape, shape);
    if (!b || !sameShape(b, shape)) continue;
    for (const mm of egraph.eclass(m).nodes) {
      if (mm.op !== "matmul") continue;
      const { transA, transB } = enodeAttrs(mm, "matmul");
      const data2 = { transA, transB, bias: true, activation: "none" };
      out2.push(addRecorded(egraph, { op: "fusedMatmul", data: data2, children: [mm.children[0], mm.children[1], c] }, ["matmul-bias", ...rulesOf(egraph, m, mm)]));
    }
  }
  return out2;
}
function matmulRelu(egraph, _eclass, node) {
  const out2 = [];
  const m = node.children[0];
  for (const mm of egraph.eclass(m).nodes) {
    let data2;
    if (mm.op === "matmul") data2 = { ...enodeAttrs(mm, "matmul"), bias: false, activation: "relu" };
    else if (mm.op === "fusedMatmul" && enodeAttrs(mm, "fusedMatmul").activation === "none")
      data2 = { ...enodeAttrs(mm, "fusedMatmul"), activation: "relu" };
    else continue;
    out2.push(addRecorded(egraph, { op: "fusedMatmul", data: data2, children: [...mm.children] }, ["matmul-relu", ...rulesOf(egraph, m, mm)]));
  }
  return out2;
}
function addPointwise(egraph, eclass, expr, inputs, rules) {
  const node = buildPointwise(egraph, expr, inputs, info(egraph, eclass));
  return node ? { id: addRecorded(egraph, node, rules), node } : void 0;
}
var ids = (xs) => xs.flatMap((x) => x ? [x.id] : []);
function objectId(ctx, n2) {
  const t = ctx.of("fusion:object-ids", () => ({ ids: /* @__PURE__ */ new WeakMap(), next: 1 }));
  let id = t.ids.get(n2);
  if (id === void 0) t.ids.set(n2, id = t.next++);
  return id;
}
function liftPointwise(egraph, eclass, node, ctx) {
  if (!liftable(node.op, info(egraph, eclass))) return [];
  if (node.children.some((c) => egraph.find(c) === egraph.find(eclass))) return [];
  const liftedWith = ctx.of("fusion:lifted-with", () => /* @__PURE__ */ new WeakMap());
  const consts = node.children.map((c) => info(egraph, c).constant === void 0 ? "." : "c").join("");
  if (liftedWith.get(node) === consts) return [];
  liftedWith.set(node, consts);
  const expr = primitiveExpr(node);
  const added = expr ? addPointwise(egraph, eclass, expr, node.children, ["pointwise-lift"]) : void 0;
  if (added) tensorAnalysisOf(egraph)?.markRootRespecting(added.id, added.node);
  return ids([added]);
}
var NO_PRODUCERS = { list: [], small: 0 };
function producers(egraph, cls, self, ctx) {
  const own = egraph.find(cls);
  if (own === egraph.find(self)) return NO_PRODUCERS;
  const cache = ctx.of("fusion:producers", () => /* @__PURE__ */ new WeakMap());
  const nodes = egraph.eclass(own).nodes;
  const hit = cache.get(nodes);
  if (hit && hit.own === own && hit.length === nodes.length) return hit.producers;
  const sized = [];
  for (const n2 of nodes) if (n2.op === "pointwise" && !n2.children.some((k) => egraph.find(k) === own)) sized.push({ n: n2, size: exprSize(exprOf(n2)) });
  sized.sort((a, b) => b.size - a.size);
  let small = 0;
  while (small < sized.length && sized[small].size > INLINE_ONE_MAX_SIZE) small++;
  const result = { list: sized.map((x) => x.n), small };
  cache.set(nodes, { own, length: nodes.length, producers: result });
  return result;
}
function mergePointwise(egraph, eclass, node, ctx) {
  const analysis = tensorAnalysisOf(egraph);
  const respecting = analysis?.isRootRespecting(egraph, eclass, node) ?? false;
  const size = exprSize(exprOf(node));
  const sized = pointwiseSizes(egraph.eclass(eclass).nodes, ctx);
  if (sized.largest > size) {
    if (!respecting) return [];
    for (let i = 0; i < sized.nodes.length; i++) if (sized.sizes[i] > size && analysis?.isRootRespecting(egraph, eclass, sized.nodes[i])) return [];
  }
  const out2 = [mergeVariant(egraph, eclass, node, ctx, "all", () => true)];
  if (respecting && analysis) {
    const r = mergeVariant(egraph, eclass, node, ctx, "respecting", (c, p) => !analysis.isRoot(egraph, c) && analysis.isRootRespecting(egraph, c, p));
    if (r) analysis.markRootRespecting(r.id, r.node);
    out2.push(r);
  }
  return ids(out2);
}
function mergesOn(egraph, eclass, node) {
  const size = exprSize(exprOf(node));
  const sized = pointwiseSizes(egraph.eclass(eclass).nodes, ctxOf(egraph));
  if (sized.largest <= size) return true;
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis?.isRootRespecting(egraph, eclass, node)) return false;
  for (let i = 0; i < sized.nodes.length; i++) if (sized.sizes[i] > size && analysis.isRootRespecting(egraph, eclass, sized.nodes[i])) return false;
  return true;
}
function pointwiseSizes(nodes, ctx) {
  const cache = ctx.of("fusion:pointwise-sizes", () => /* @__PURE__ */ new WeakMap());
  let e = cache.get(nodes);
  if (!e) cache.set(nodes, e = { length: 0, largest: 0, nodes: [], sizes: [] });
  for (; e.length < nodes.length; e.length++) {
    const n2 = nodes[e.length];
    if (n2.op !== "pointwise") continue;
    const size = exprSize(exprOf(n2));
    e.nodes.push(n2);
    e.sizes.push(size);
    e.largest = Math.max(e.largest, size);
  }
  return e;
}
function mergeVariant(egraph, eclass, node, ctx, variant, mayInline) {
  const limit = tensorAnalysisOf(egraph)?.maxPointwiseInputs ?? 7;
  const inline = /* @__PURE__ */ new Map();
  const reads = new Set(node.children.map((c) => egraph.find(c)));
  const rules = /* @__PURE__ */ new Set(["pointwise-merge", ...rulesOf(egraph, eclass, node)]);
  node.children.forEach((c, j) => {
    const own = egraph.find(c);
    for (const p of producers(egraph, c, eclass, ctx).list) {
      if (!mayInline(c, p)) continue;
      let size = reads.has(own) ? reads.size - 1 : reads.size;
      const kids = p.children;
      for (let i = 0; i < kids.length; i++) {
        const k = egraph.find(kids[i]);
        if (k !== own && reads.has(k)) continue;
        let repeat = false;
        for (let h = 0; h < i && !repeat; h++) repeat = egraph.find(kids[h]) === k;
        if (!repeat) size++;
      }
      if (size > limit) continue;
      inline.set(j, p);
      reads.delete(own);
      for (const k of kids) reads.add(egraph.find(k));
      for (const r of rulesOf(egraph, c, p)) rules.add(r);
      break;
    }
  });
  if (inline.size === 0) return void 0;
  let plan = "";
  for (const [j, p] of inline) plan += `${j}:${objectId(ctx, p)},`;
  const plans = ctx.of(`fusion:merge-plans:${variant}`, () => /* @__PURE__ */ new WeakMap());
  if (plans.get(node) === plan) return void 0;
  plans.set(node, plan);
  const { expr, inputs } = inlineExpr(node, inline);
  return addPointwise(egraph, eclass, expr, inputs, rules);
}
function materialised(egraph, cls) {
  for (const op of classOps(egraph, cls)) if (op !== "pointwise" && !ELEMENTWISE_SET.has(op)) return true;
  return false;
}
var INLINE_ONE_MAX_SIZE = 4;
var INLINE_ONE_MAX_CONSUMER = 8;
function inlineOne(egraph, eclass, node, ctx) {
  const primary = isPrimaryExpr(exprOf(node));
  if (!primary && exprSize(exprOf(node)) > INLINE_ONE_MAX_CONSUMER) return [];
  const inlined = ctx.of("fusion:inlined", () => /* @__PURE__ */ new WeakMap());
  const out2 = [];
  node.children.forEach((c, j) => {
    const { list, small } = producers(egraph, c, eclass, ctx);
    for (let i = small; i < list.length; i++) {
      const p = list[i];
      if (!primary && !isPrimaryExpr(exprOf(p)) || !p.children.every((k) => materialised(egraph, k))) continue;
      const key = `${j}:${objectId(ctx, p)}`;
      let done = inlined.get(node);
      if (!done) inlined.set(node, done = /* @__PURE__ */ new Set());
      if (done.has(key)) continue;
      done.add(key);
      const { expr, inputs } = inlineExpr(node, /* @__PURE__ */ new Map([[j, p]]));
      out2.push(...ids([addPointwise(egraph, eclass, expr, inputs, ["pointwise-inline", ...rulesOf(egraph, c, p)])]));
    }
  });
  return out2;
}
function smallConsumer(_egraph, _eclass, node) {
  const e = exprOf(node);
  return isPrimaryExpr(e) || exprSize(e) <= INLINE_ONE_MAX_CONSUMER;
}
function absorbExpand(egraph, eclass, node) {
  const out2 = [];
  node.children.forEach((c, j) => {
    for (const e of egraph.eclass(c).nodes) {
      if (e.op !== "expand") continue;
      const inputs = [...node.children];
      inputs[j] = e.children[0];
      out2.push(...ids([addPointwise(egraph, eclass, exprOf(node), inputs, ["pointwise-expand", ...rulesOf(egraph, eclass, node)])]));
    }
  });
  return out2;
}
function childHasOp(op) {
  return (egraph, _eclass, node) => node.children.some((c) => classHasOp(egraph, c, op));
}
var ELEMENTWISE = [...UNARY_OPS, ...BINARY_OPS, "where", "cast"];
var ELEMENTWISE_SET = new Set(ELEMENTWISE);
var pointwiseCount = (egraph, cls) => classOpCount(egraph, cls, "pointwise");
var fusionRules = [
  nodeRule("matmul-bias", ["add"], matmulBias, { guard: childHasOp("matmul") }),
  nodeRule("matmul-relu", ["relu"], matmulRelu),
  trw("softmax-cross-entropy", "(nll[reduction=mean] (logSoftmax ?x) ?labels)", "(softmaxCrossEntropy[reduction=mean] ?x ?labels)"),
  trw("softmax-cross-entropy-sum", "(nll[reduction=sum] (logSoftmax ?x) ?labels)", "(softmaxCrossEntropy[reduction=sum] ?x ?labels)"),
  nodeRule("pointwise-lift", ELEMENTWISE, liftPointwise, { signature: childSignature(() => 0) }),
  nodeRule("pointwise-merge", ["pointwise"], mergePointwise, { guard: mergesOn, signature: childSignature(pointwiseCount) }),
  nodeRule("pointwise-inline", ["pointwise"], inlineOne, { guard: smallConsumer }),
  nodeRule("pointwise-expand", ["pointwise"], absorbExpand, { guard: childHasOp("expand"), signature: childSignature((eg, c) => classOpCount(eg, c, "expand")) })
];

// packages/egraph/src/tensor/rules/layout.ts
var isSwap = (n2) => n2.op === "transpose" && JSON.stringify(enodeAttrs(n2, "transpose").perm) === "[1,0]";
function foldTranspose(side, name) {
  return (egraph, _eclass, node) => {
    const flags = enodeAttrs(node, "matmul", "fusedMatmul");
    const out2 = [];
    for (const t of egraph.eclass(node.children[side]).nodes) {
      if (!isSwap(t)) continue;
      const children = [...node.children];
      children[side] = t.children[0];
      const data2 = side === 0 ? { ...flags, transA: !flags.transA } : { ...flags, transB: !flags.transB };
      out2.push(addRecorded(egraph, { op: node.op, data: data2, children }, [name]));
    }
    return out2;
  };
}
function composeTransposes(egraph, _eclass, node) {
  const p = enodeAttrs(node, "transpose").perm;
  const out2 = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== "transpose") continue;
    const q = enodeAttrs(inner, "transpose").perm;
    const perm = p.map((i) => q[i]);
    const x = inner.children[0];
    out2.push(perm.every((v, i) => v === i) ? x : egraph.add({ op: "transpose", data: { perm }, children: [x] }));
  }
  return out2;
}
function composeReshapes(egraph, eclass, node) {
  const shape = egraph.eclass(eclass).data.shape;
  const out2 = [];
  for (const inner of egraph.eclass(node.children[0]).nodes) {
    if (inner.op !== "reshape") continue;
    const x = inner.children[0];
    out2.push(sameShape(egraph.eclass(x).data.shape, shape) ? x : egraph.add({ op: "reshape", data: { shape: [...shape] }, children: [x] }));
  }
  return out2;
}
function padSpan(n2, outShape) {
  const a = enodeAttrs(n2, "pad");
  if (a.value !== 0 || a.interior.some((v) => v !== 0) || a.before.some((v) => v < 0) || a.after.some((v) => v < 0)) return void 0;
  const axes = a.before.map((b, i) => b !== 0 || a.after[i] !== 0 ? i : -1).filter((i) => i >= 0);
  if (axes.length !== 1) return void 0;
  const d = axes[0];
  return { axis: d, start: a.before[d], end: outShape[d] - a.after[d] };
}
function padsToConcat(egraph, eclass, node) {
  const out2 = [];
  const shape = egraph.eclass(eclass).data.shape;
  const [c0, c1] = node.children;
  if (!sameShape(egraph.eclass(c0).data.shape, shape) || !sameShape(egraph.eclass(c1).data.shape, shape)) return out2;
  for (const p of egraph.eclass(c0).nodes) {
    if (p.op !== "pad") continue;
    const sp = padSpan(p, shape);
    if (!sp) continue;
    for (const q of egraph.eclass(c1).nodes) {
      if (q.op !== "pad") continue;
      const sq = padSpan(q, shape);
      if (!sq || sq.axis !== sp.axis) continue;
      const [first, second] = sp.end === sq.start ? [[p, sp], [q, sq]] : sq.end === sp.start ? [[q, sq], [p, sp]] : [void 0, void 0];
      if (!first || !second) continue;
      const d = sp.axis;
      const cat = addRecorded(egraph, { op: "concat", data: { axis: d }, children: [first[0].children[0], second[0].children[0]] }, ["pad-add-concat"]);
      const start = first[1].start;
      const end = second[1].end;
      if (start === 0 && end === shape[d]) {
        out2.push(cat);
        continue;
      }
      const zeros = shape.map(() => 0);
      const before = zeros.map((_, i) => i === d ? start : 0);
      const after = zeros.map((_, i) => i === d ? shape[d] - end : 0);
      out2.push(addRecorded(egraph, { op: "pad", data: { before, after, interior: zeros, value: 0 }, children: [cat] }, ["pad-add-concat"]));
    }
  }
  return out2;
}
function flattenConcat(egraph, _eclass, node) {
  const axis = enodeAttrs(node, "concat").axis;
  const out2 = [];
  node.children.forEach((c, j) => {
    for (const inner of egraph.eclass(c).nodes) {
      if (inner.op !== "concat" || enodeAttrs(inner, "concat").axis !== axis) continue;
      const children = [...node.children.slice(0, j), ...inner.children, ...node.children.slice(j + 1)];
      out2.push(addRecorded(egraph, { op: "concat", data: { axis }, children }, ["concat-concat"]));
    }
  });
  return out2;
}
var BROADCASTING = ["add", "sub", "mul", "div"];
var layoutRules = [
  nodeRule("transpose-into-matmul-a", ["matmul", "fusedMatmul"], foldTranspose(0, "transpose-into-matmul-a")),
  nodeRule("transpose-into-matmul-b", ["matmul", "fusedMatmul"], foldTranspose(1, "transpose-into-matmul-b")),
  nodeRule("transpose-transpose", ["transpose"], composeTransposes),
  nodeRule("reshape-reshape", ["reshape"], composeReshapes),
  nodeRule("pad-add-concat", ["add"], padsToConcat, { guard: (eg, _e, n2) => n2.children.every((c) => eg.eclass(c).nodes.some((m) => m.op === "pad")) }),
  nodeRule("concat-concat", ["concat"], flattenConcat),
  trw("reshape-id", "(reshape ?a)", "?a", sameTypeAs("?a")),
  trw("expand-id", "(expand ?a)", "?a", sameTypeAs("?a")),
  ...BROADCASTING.flatMap((op) => [
    trw(`${op}-expand-b`, `(${op} ?x (expand ?b))`, `(${op} ?x ?b)`, broadcastKeeps("?x", "?b")),
    trw(`${op}-expand-a`, `(${op} (expand ?a) ?y)`, `(${op} ?a ?y)`, broadcastKeeps("?a", "?y"))
  ])
];

// packages/egraph/src/tensor/rules/multiTensorUpdate.ts
var info2 = (egraph, id) => egraph.eclass(id).data;
var remap = (e, f) => mapInputs(e, (i) => ({ op: "in", index: f(i) }));
function memberOf(egraph, cls, node) {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis || node.op !== "pointwiseMulti" && node.op !== "pointwise") return void 0;
  const find = (id) => egraph.find(id);
  const lone = node.op === "pointwise";
  if (lone && (analysis.updatedState(egraph, cls) === void 0 || egraph.eclass(cls).nodes.some((n2) => n2.op === "pick"))) return void 0;
  const t = info2(egraph, cls);
  if (t.dtype !== "f32" || numel(t.shape) <= 1) return void 0;
  const kids = node.children.map(find);
  if (new Set(kids).size !== kids.length) return void 0;
  const shared = [];
  const roles = [];
  const index = [];
  for (const k of kids) {
    const s = info2(egraph, k);
    if (s.dtype !== "f32") return void 0;
    if (sameShape(s.shape, t.shape)) index.push(-roles.push(k));
    else if (numel(s.shape) === 1) index.push(shared.push(k) - 1);
    else return void 0;
  }
  if (roles.some((r) => analysis.updatedState(egraph, r) !== void 0)) return void 0;
  const exprs = lone ? [enodeAttrs(node, "pointwise").expr] : enodeAttrs(node, "pointwiseMulti").exprs;
  if ((lone ? enodeAttrs(node, "pointwise").dtype : enodeAttrs(node, "pointwiseMulti").dtype) !== "f32") return void 0;
  const results = [];
  const written2 = [];
  for (let r = 0; r < exprs.length; r++) {
    let holder = lone ? find(cls) : void 0;
    if (!lone) {
      for (const [pn, p] of egraph.eclass(cls).parents)
        if (pn.op === "pick" && enodeAttrs(pn, "pick").index === r && find(pn.children[0]) === find(cls)) holder = find(p);
    }
    const state = holder === void 0 ? void 0 : analysis.updatedState(egraph, holder);
    const role = state === void 0 ? -1 : roles.indexOf(find(state));
    if (holder === void 0 || role < 0) return void 0;
    results.push(holder);
    written2.push(role);
  }
  const S = shared.length;
  const remapped = exprs.map((e) => remap(e, (i) => index[i] >= 0 ? index[i] : S - 1 - index[i]));
  const key = JSON.stringify([remapped, shared, written2]);
  return { cls: find(cls), roles, results, shape: t.shape, key, exprs: remapped, shared };
}
function membersOf(egraph, ctx) {
  const memo = ctx.of("update-multi-tensor:members", () => ({ epoch: -1, groups: /* @__PURE__ */ new Map(), built: /* @__PURE__ */ new Map() }));
  if (memo.epoch !== egraph.epoch) {
    memo.epoch = egraph.epoch;
    memo.groups = scanMembers(egraph);
    memo.built = /* @__PURE__ */ new Map();
  }
  return memo;
}
function scanMembers(egraph) {
  const out2 = /* @__PURE__ */ new Map();
  const updates = tensorAnalysisOf(egraph);
  const candidates2 = [...egraph.classesWithOp("pointwiseMulti"), ...egraph.classesWithOp("pointwise").filter((id) => updates?.updatedState(egraph, id) !== void 0)];
  for (const id of new Set(candidates2.map((i) => egraph.find(i)))) {
    const c = egraph.find(id);
    for (const n2 of egraph.eclass(c).nodes) {
      const m = memberOf(egraph, c, n2);
      if (!m) continue;
      let l = out2.get(m.key);
      if (!l) out2.set(m.key, l = []);
      if (!l.some((x) => x.cls === m.cls)) l.push(m);
    }
  }
  for (const l of out2.values()) l.sort((a, b) => a.cls - b.cls);
  return out2;
}
function chunks(members, maxBytes) {
  const out2 = [];
  let cur = [];
  let bytes = 0;
  const used = /* @__PURE__ */ new Set();
  for (const m of members) {
    if (m.roles.some((r) => used.has(r)) || m.results.some((r) => used.has(r))) continue;
    for (const r of [...m.roles, ...m.results]) used.add(r);
    const b = Math.ceil(numel(m.shape) * 4 / 256) * 256;
    if (cur.length && bytes + b > maxBytes) {
      out2.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(m);
    bytes += b;
  }
  if (cur.length) out2.push(cur);
  return out2;
}
function multiTensorUpdate(egraph, eclass, trigger, ctx) {
  const analysis = tensorAnalysisOf(egraph);
  const src = egraph.find(trigger.op === "pick" ? trigger.children[0] : eclass);
  if (!analysis || trigger.op === "pick" && !egraph.eclass(src).nodes.some((n2) => n2.op === "pointwiseMulti")) return [];
  const scan = membersOf(egraph, ctx);
  let me;
  let like = [];
  for (const l of scan.groups.values()) {
    me = l.find((m) => egraph.find(m.cls) === src);
    if (me) {
      like = l;
      break;
    }
  }
  if (!me) return [];
  const done = scan.built.get(me);
  if (done) return me.results.flatMap((r, j) => egraph.find(r) === egraph.find(eclass) ? [done[j]] : []);
  const chunk = chunks(like, analysis.maxBindingBytes).find((c) => c.some((m) => m === me));
  if (!chunk || chunk.length < 2) return [];
  const R = me.exprs.length;
  const inputs = [...me.shared, ...chunk.flatMap((m) => m.roles)];
  const mt = irENode("pointwiseMultiTensor", { exprs: [...me.exprs], dtype: "f32", shared: me.shared.length, shapes: chunk.map((m) => [...m.shape]) }, inputs);
  const id = addRecorded(egraph, mt, ["update-multi-tensor"]);
  const out2 = [];
  chunk.forEach((m, g) => {
    const picks = [];
    for (let r = 0; r < R; r++) {
      const p = addRecorded(egraph, irENode("pick", { index: g * R + r }, [id]), ["update-multi-tensor"]);
      picks.push(p);
      if (egraph.find(m.results[r]) === egraph.find(eclass)) out2.push(p);
      else egraph.union(m.results[r], p);
    }
    scan.built.set(m, picks);
  });
  return out2;
}
var isCandidate = (egraph, eclass, node) => node.op === "pick" || tensorAnalysisOf(egraph)?.updatedState(egraph, eclass) !== void 0;
var multiTensorUpdateRules = [nodeRule("update-multi-tensor", ["pick", "pointwise"], multiTensorUpdate, { guard: isCandidate })];

// packages/egraph/src/tensor/rules/multiUpdate.ts
var MAX_RESULTS = 4;
var info3 = (egraph, id) => egraph.eclass(id).data;
var remap2 = (e, f) => mapInputs(e, (i) => ({ op: "in", index: f(i) }));
function multiUpdate(egraph, eclass, node, _ctx) {
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis) return [];
  const find = (id) => egraph.find(id);
  const C = find(eclass);
  const shape = info3(egraph, C).shape;
  const dtype = info3(egraph, C).dtype;
  const readsOwnState = (cls, n2) => {
    const s = analysis.updatedState(egraph, cls);
    return s !== void 0 && sameShape(info3(egraph, s).shape, shape) && n2.children.some((c) => find(c) === s);
  };
  if (!readsOwnState(C, node)) return [];
  const group = /* @__PURE__ */ new Map([[C, node]]);
  for (const c of node.children) {
    const cc = find(c);
    if (!sameShape(info3(egraph, cc).shape, shape) || analysis.updatedState(egraph, cc) !== void 0) continue;
    if ([...group.keys()].some((g) => analysis.updatedState(egraph, g) === cc)) continue;
    for (const [, p] of egraph.eclass(cc).parents) {
      const D = find(p);
      if (group.has(D) || group.size >= MAX_RESULTS) continue;
      const t = info3(egraph, D);
      if (t.dtype !== dtype || !sameShape(t.shape, shape)) continue;
      const best = egraph.eclass(D).nodes.filter((n2) => n2.op === "pointwise" && readsOwnState(D, n2) && n2.children.some((k) => find(k) === cc)).sort((a, b) => exprSize(exprOf(b)) - exprSize(exprOf(a)))[0];
      if (best) group.set(D, best);
    }
  }
  if (group.size < 2) return [];
  for (const [D, n2] of group) if (n2.children.some((k) => group.has(find(k)))) group.delete(D);
  if (group.size < 2 || !group.has(C)) return [];
  const members = [...group].sort((a, b) => a[0] - b[0]);
  const inputs = [];
  const slot = (cls) => {
    const k = inputs.indexOf(cls);
    return k >= 0 ? k : inputs.push(cls) - 1;
  };
  const exprs = members.map(([, n2]) => remap2(exprOf(n2), (i) => slot(find(n2.children[i]))));
  if (inputs.length + members.length > analysis.maxBindings) return [];
  const multi = irENode("pointwiseMulti", { exprs, dtype }, inputs);
  const out2 = [];
  const m = addRecorded(egraph, multi, ["update-multi"]);
  members.forEach(([D], j) => {
    const r = addRecorded(egraph, irENode("pick", { index: j }, [m]), ["update-multi"]);
    if (D === C) out2.push(r);
    else egraph.union(D, r);
  });
  return out2;
}
var isUpdateValue = (egraph, eclass) => tensorAnalysisOf(egraph)?.updatedState(egraph, eclass) !== void 0;
var multiUpdateRules = [nodeRule("update-multi", ["pointwise"], multiUpdate, { guard: isUpdateValue })];

// packages/egraph/src/tensor/rules/matmulEpilogue.ts
var info4 = (egraph, id) => egraph.eclass(id).data;
var $ = (index) => ({ op: "in", index });
var PRODUCT_OPS = ["matmul", "fusedMatmul", "matmulEpilogue"];
var PRODUCTS = new Set(PRODUCT_OPS);
var mapIn = mapInputs;
function operandSlots(egraph) {
  const ids2 = [];
  const slot = (c) => {
    const id = egraph.find(c);
    let k = ids2.indexOf(id);
    if (k < 0) k = ids2.push(id) - 1;
    return $(k + 1);
  };
  return { ids: ids2, slot };
}
function productOf(n2) {
  if (n2.op === "matmul") return { ...enodeAttrs(n2, "matmul"), expr: $(0), extras: [] };
  if (n2.op === "matmulEpilogue") {
    const a = enodeAttrs(n2, "matmulEpilogue");
    return { transA: a.transA, transB: a.transB, expr: a.expr, extras: n2.children.slice(2) };
  }
  if (n2.op === "fusedMatmul") {
    const a = enodeAttrs(n2, "fusedMatmul");
    const biased = a.bias ? { op: "add", a: $(0), b: $(1) } : $(0);
    return { transA: a.transA, transB: a.transB, expr: a.activation === "relu" ? { op: "relu", a: biased } : biased, extras: a.bias ? [n2.children[2]] : [] };
  }
  return void 0;
}
function matmulEpilogue(egraph, eclass, node, ctx) {
  const out2 = info4(egraph, eclass);
  if (out2.dtype !== "f32") return [];
  const analysis = tensorAnalysisOf(egraph);
  const maxInputs = analysis?.maxPointwiseInputs ?? 7;
  const maxSize = analysis?.maxExprSize ?? 96;
  const outer = exprOf(node);
  const children = node.children.map((c) => egraph.find(c));
  const done = ctx.of("matmul-epilogue:built", () => /* @__PURE__ */ new WeakMap());
  let seen = done.get(node);
  if (!seen) done.set(node, seen = /* @__PURE__ */ new Set());
  const built = [];
  for (const cls of new Set(children)) {
    if (!sameShape(info4(egraph, cls).shape, out2.shape) || info4(egraph, cls).dtype !== "f32") continue;
    for (const m of egraph.eclass(cls).nodes) {
      if (!PRODUCTS.has(m.op) || seen.has(m)) continue;
      seen.add(m);
      const p = productOf(m);
      if (!p) continue;
      const { ids: extras, slot } = operandSlots(egraph);
      const inner = mapIn(p.expr, (i) => i === 0 ? $(0) : slot(p.extras[i - 1]));
      const expr = mapIn(outer, (j) => children[j] === cls ? inner : slot(children[j]));
      const operands = /* @__PURE__ */ new Set([egraph.find(m.children[0]), egraph.find(m.children[1]), ...extras]);
      if (operands.size > maxInputs || pwExprSize(expr) > maxSize) continue;
      const data2 = { transA: p.transA, transB: p.transB, expr };
      const rules = ["matmul-epilogue", ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, cls, m)];
      built.push(addRecorded(egraph, irENode("matmulEpilogue", data2, [m.children[0], m.children[1], ...extras]), rules));
    }
  }
  return built;
}
function readsProduct(egraph, _eclass, node) {
  return isPrimaryExpr(exprOf(node)) && node.children.some((c) => classHasAnyOp(egraph, c, PRODUCT_OPS));
}
function inlineEpilogueOperand(egraph, eclass, node, ctx) {
  const analysis = tensorAnalysisOf(egraph);
  const maxInputs = analysis?.maxPointwiseInputs ?? 7;
  const maxSize = analysis?.maxExprSize ?? 96;
  const shape = info4(egraph, eclass).shape;
  const a = enodeAttrs(node, "matmulEpilogue");
  const done = ctx.of("matmul-epilogue-inline:built", () => /* @__PURE__ */ new WeakMap());
  let seen = done.get(node);
  if (!seen) done.set(node, seen = /* @__PURE__ */ new Set());
  const built = [];
  const extras = node.children.slice(2).map((c) => egraph.find(c));
  extras.forEach((cls, k) => {
    if (cls === egraph.find(eclass) || !sameShape(info4(egraph, cls).shape, shape)) return;
    const p = producers(egraph, cls, eclass, ctx).list[0];
    if (!p || seen.has(p)) return;
    seen.add(p);
    const producer = p;
    const { ids: operands, slot } = operandSlots(egraph);
    const expr = mapIn(a.expr, (i) => {
      if (i === 0) return $(0);
      if (i - 1 !== k) return slot(extras[i - 1]);
      return mapIn(exprOf(producer), (j) => slot(producer.children[j]));
    });
    if ((/* @__PURE__ */ new Set([egraph.find(node.children[0]), egraph.find(node.children[1]), ...operands])).size > maxInputs || pwExprSize(expr) > maxSize) return;
    const rules = ["matmul-epilogue-inline", ...rulesOf(egraph, eclass, node), ...rulesOf(egraph, cls, producer)];
    built.push(addRecorded(egraph, irENode("matmulEpilogue", { transA: a.transA, transB: a.transB, expr }, [node.children[0], node.children[1], ...operands]), rules));
  });
  return built;
}
var INLINE_INTO_MAX_SIZE = 4;
function extraIsPointwise(egraph, _eclass, node) {
  if (pwExprSize(enodeAttrs(node, "matmulEpilogue").expr) > INLINE_INTO_MAX_SIZE) return false;
  for (let i = 2; i < node.children.length; i++) if (classHasAnyOp(egraph, node.children[i], ["pointwise"])) return true;
  return false;
}
var matmulEpilogueRules = [
  nodeRule("matmul-epilogue", ["pointwise"], matmulEpilogue, { guard: readsProduct }),
  nodeRule("matmul-epilogue-inline", ["matmulEpilogue"], inlineEpilogueOperand, { guard: extraIsPointwise })
];

// packages/egraph/src/tensor/rules/reduceFusion.ts
var info5 = (egraph, id) => egraph.eclass(id).data;
var IDENTITY = { op: "in", index: 0 };
var MAX_EPILOGUE_SIZE = 24;
var compose = (e, inner) => mapInputs(e, () => inner);
function asPointwiseReduce(egraph, n2) {
  if (n2.op === "pointwiseReduce") return { attrs: enodeAttrs(n2, "pointwiseReduce"), children: n2.children };
  if (!REDUCE_OPS.includes(n2.op)) return void 0;
  const reduce2 = n2.op;
  const { axes, keepdims } = enodeAttrs(n2, reduce2);
  const shape = [...info5(egraph, n2.children[0]).shape];
  return { attrs: { expr: IDENTITY, shape, reduce: reduce2, axes, keepdims, post: IDENTITY }, children: n2.children };
}
function reducePrologue(egraph, eclass, node, ctx) {
  const r = asPointwiseReduce(egraph, node);
  if (!r || node.op === "pointwiseReduce") return [];
  const src = node.children[0];
  const done = ctx.of("reduce-prologue:built", () => /* @__PURE__ */ new WeakMap());
  let seen = done.get(node);
  if (!seen) done.set(node, seen = /* @__PURE__ */ new Set());
  const out2 = [];
  for (const p of egraph.eclass(src).nodes) {
    if (p.op !== "pointwise" || seen.has(p) || info5(egraph, src).dtype !== "f32") continue;
    seen.add(p);
    const data2 = { ...r.attrs, expr: exprOf(p) };
    out2.push(addRecorded(egraph, irENode("pointwiseReduce", data2, p.children), ["reduce-prologue", ...rulesOf(egraph, src, p)]));
  }
  return out2;
}
function reduceEpilogue(egraph, eclass, node, ctx) {
  const f = exprOf(node);
  const src = node.children[0];
  if (node.children.length !== 1 || pwArity(f) !== 1 || !sameShape(info5(egraph, src).shape, info5(egraph, eclass).shape) || info5(egraph, eclass).dtype !== "f32") return [];
  const done = ctx.of("reduce-epilogue:built", () => /* @__PURE__ */ new WeakMap());
  let seen = done.get(node);
  if (!seen) done.set(node, seen = /* @__PURE__ */ new Set());
  const out2 = [];
  for (const rn of egraph.eclass(src).nodes) {
    if (seen.has(rn)) continue;
    const r = asPointwiseReduce(egraph, rn);
    if (!r) continue;
    seen.add(rn);
    const post = compose(f, r.attrs.post);
    if (pwExprSize(post) > MAX_EPILOGUE_SIZE) continue;
    const data2 = { ...r.attrs, post };
    out2.push(addRecorded(egraph, irENode("pointwiseReduce", data2, r.children), ["reduce-epilogue", ...rulesOf(egraph, src, rn)]));
  }
  return out2;
}
function pointwiseChild(egraph, _eclass, node) {
  return classHasOp(egraph, node.children[0], "pointwise");
}
function overReduction(egraph, _eclass, node) {
  return node.children.length === 1 && isPrimaryExpr(exprOf(node)) && classHasAnyOp(egraph, node.children[0], REDUCTION_OPS);
}
var REDUCTION_OPS = ["pointwiseReduce", ...REDUCE_OPS];
var reduceFusionRules = [
  nodeRule("reduce-prologue", REDUCE_OPS, reducePrologue, { guard: pointwiseChild }),
  nodeRule("reduce-epilogue", ["pointwise"], reduceEpilogue, { guard: overReduction })
];

// packages/egraph/src/tensor/rules/reduceMulti.ts
var MAX_SIBLINGS = 4;
var RULE6 = "reduce-multi";
var IDENTITY2 = { op: "in", index: 0 };
var info6 = (egraph, id) => egraph.eclass(id).data;
function reductionOf(egraph, n2) {
  if (n2.op === "pointwiseReduce") return enodeAttrs(n2, "pointwiseReduce");
  if (!REDUCE_OPS.includes(n2.op)) return void 0;
  const a = enodeAttrs(n2, n2.op);
  return { expr: IDENTITY2, post: IDENTITY2, shape: [...info6(egraph, n2.children[0]).shape], reduce: n2.op, axes: a.axes, keepdims: a.keepdims };
}
var isIdentity = (e) => e.op === "in" && e.index === 0;
var sameReduction = (a, b) => isIdentity(a.post) && isIdentity(b.post) && a.reduce === b.reduce && a.keepdims === b.keepdims && sameShape(a.shape, b.shape) && sameShape(a.axes, b.axes);
function fewestOperands(egraph, cls, accept) {
  let best;
  for (const n2 of egraph.eclass(cls).nodes) {
    const r = reductionOf(egraph, n2);
    if (r && accept(n2, r) && (!best || n2.children.length < best.node.children.length)) best = { node: n2, r };
  }
  return best;
}
function reduceMulti(egraph, eclass, node, ctx) {
  const r = reductionOf(egraph, node);
  if (!r || !isIdentity(r.post) || columnsPath(r.shape, r.axes) === void 0 || info6(egraph, eclass).dtype !== "f32") return [];
  const find = (id) => egraph.find(id);
  const C = find(eclass);
  const maxBindings = (tensorAnalysisOf(egraph)?.maxPointwiseInputs ?? 7) + 1;
  const done = ctx.of(`${RULE6}:scanned`, () => /* @__PURE__ */ new Set());
  const out2 = [];
  const signature = `${r.reduce}|${r.shape}|${r.axes}|${r.keepdims}`;
  for (const c0 of node.children) {
    const c = find(c0);
    const scanned = `${c}|${signature}`;
    if (done.has(scanned)) continue;
    done.add(scanned);
    const readsC = (n2, s) => sameReduction(s, r) && n2.children.some((k) => find(k) === c);
    const group = /* @__PURE__ */ new Map();
    const operands = /* @__PURE__ */ new Set();
    const readers = [.../* @__PURE__ */ new Set([C, ...egraph.eclass(c).parents.map(([, p]) => find(p))])].filter((D) => info6(egraph, D).dtype === "f32").map((D) => ({ D, best: fewestOperands(egraph, D, readsC) })).filter((x) => x.best !== void 0).sort((a, b) => a.best.node.children.length - b.best.node.children.length || a.D - b.D);
    for (const { D, best } of readers) {
      if (group.size >= MAX_SIBLINGS) break;
      const more = /* @__PURE__ */ new Set([...operands, ...best.node.children.map(find)]);
      if (more.size + group.size + 1 > maxBindings) continue;
      group.set(D, best);
      for (const k of more) operands.add(k);
    }
    for (const [D, m2] of group) if (m2.node.children.some((k) => group.has(find(k)))) group.delete(D);
    if (group.size < 2) continue;
    const members = [...group].sort((a, b) => a[0] - b[0]);
    const inputs = [];
    const slot = (cls) => {
      const k = inputs.indexOf(cls);
      return k >= 0 ? k : inputs.push(cls) - 1;
    };
    const results = members.map(([, m2]) => ({ expr: mapInputs(m2.r.expr, (i) => ({ op: "in", index: slot(find(m2.node.children[i])) })), post: m2.r.post }));
    const multi = irENode("pointwiseReduceMulti", { results, shape: [...r.shape], reduce: r.reduce, axes: [...r.axes], keepdims: r.keepdims }, inputs);
    const m = addRecorded(egraph, multi, [RULE6]);
    members.forEach(([D], j) => {
      const pick2 = addRecorded(egraph, irENode("pick", { index: j }, [m]), [RULE6]);
      if (D === C) out2.push(pick2);
      else egraph.union(D, pick2);
    });
  }
  return out2;
}
var reduceMultiRules = [nodeRule(RULE6, [...REDUCE_OPS, "pointwiseReduce"], reduceMulti)];

// packages/egraph/src/tensor/sameJson.ts
var written = (v) => v !== void 0 && typeof v !== "function" && typeof v !== "symbol";
function sameJson(a, b) {
  if (a === b) return true;
  const ao = typeof a === "object" && a !== null;
  const bo = typeof b === "object" && b !== null;
  if (!ao || !bo) {
    if (ao || bo) return false;
    if (typeof a === "string" && typeof b === "string") return false;
    if (typeof a === "number" && typeof b === "number") return !Number.isFinite(a) && !Number.isFinite(b);
    return JSON.stringify(a) === JSON.stringify(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(written(a[i]) ? a[i] : null, written(b[i]) ? b[i] : null)) return false;
    return true;
  }
  const x = a;
  const y = b;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  let j = 0;
  for (const k of kx) {
    if (!written(x[k])) continue;
    while (j < ky.length && !written(y[ky[j]])) j++;
    if (j === ky.length || ky[j] !== k || !sameJson(x[k], y[k])) return false;
    j++;
  }
  while (j < ky.length && !written(y[ky[j]])) j++;
  return j === ky.length;
}

// packages/egraph/src/tensor/rules/rowwiseFusion.ts
var info7 = (egraph, id) => egraph.eclass(id).data;
var $2 = (index) => ({ op: "in", index });
var IDENTITY3 = $2(0);
var STAT_BASE = 1 << 20;
var MAX_STATS = 6;
function isRowScalar(t, out2) {
  const r = out2.length;
  if (t.length !== r || t[r - 1] !== 1) return false;
  for (let i = 0; i < r - 1; i++) if (t[i] !== out2[i]) return false;
  return true;
}
function expandedRowScalar(egraph, id, out2) {
  for (const n2 of egraph.eclass(id).nodes) if (n2.op === "expand" && isRowScalar(info7(egraph, n2.children[0]).shape, out2)) return egraph.find(n2.children[0]);
  return void 0;
}
function rowReductionOf(egraph, n2, out2, keepdims) {
  const last = out2.length - 1;
  if (n2.op === "pointwiseReduce") {
    const a2 = enodeAttrs(n2, "pointwiseReduce");
    if (a2.keepdims !== keepdims || a2.axes.length !== 1 || a2.axes[0] !== last || !sameShape(a2.shape, out2)) return void 0;
    return { expr: a2.expr, reduce: a2.reduce, post: a2.post, children: n2.children };
  }
  if (!REDUCE_OPS.includes(n2.op)) return void 0;
  const reduce2 = n2.op;
  const a = enodeAttrs(n2, reduce2);
  if (a.keepdims !== keepdims || a.axes.length !== 1 || a.axes[0] !== last || !sameShape(info7(egraph, n2.children[0]).shape, out2)) return void 0;
  return { expr: IDENTITY3, reduce: reduce2, post: IDENTITY3, children: n2.children };
}
function rowReductionsIn(egraph, cls, out2) {
  const found = [];
  for (const n2 of egraph.eclass(cls).nodes) {
    const direct = rowReductionOf(egraph, n2, out2, true);
    if (direct) found.push(direct);
    else if (n2.op === "reshape" && sameShape(info7(egraph, n2.children[0]).shape, out2.slice(0, -1))) {
      for (const m of egraph.eclass(n2.children[0]).nodes) {
        const r = rowReductionOf(egraph, m, out2, false);
        if (r) found.push(r);
      }
    }
  }
  return found;
}
function rowwiseOf(egraph, eclass, node, inline, memo) {
  const out2 = info7(egraph, eclass);
  const S = out2.shape;
  if (out2.dtype !== "f32" || S.length === 0 || S[S.length - 1] < 2) return void 0;
  const analysis = tensorAnalysisOf(egraph);
  const maxInputs = analysis?.maxPointwiseInputs ?? 7;
  const maxSize = analysis?.maxExprSize ?? 96;
  const find = (c) => egraph.find(c);
  const operands = [];
  const stats = [];
  const slot = /* @__PURE__ */ new Map();
  const visiting = /* @__PURE__ */ new Set();
  const rules = /* @__PURE__ */ new Set(["rowwise-fusion", ...rulesOf(egraph, eclass, node)]);
  const slotLog = [];
  const setSlot = (id, e) => {
    slot.set(id, e);
    slotLog.push(id);
  };
  const mark = () => ({ o: operands.length, s: stats.length, sl: slotLog.length });
  const undo = (m) => {
    operands.length = m.o;
    stats.length = m.s;
    for (const id of slotLog.splice(m.sl)) slot.delete(id);
  };
  const operand = (id) => {
    const t = info7(egraph, id);
    const b = broadcastShapes(t.shape, S);
    if (t.dtype !== "f32" || !b || !sameShape(b, S)) return void 0;
    const e = $2(operands.push(id) - 1);
    setSlot(id, e);
    return e;
  };
  const newOperands = (kids2) => {
    let k = 0;
    for (const c of kids2) {
      const id = find(c);
      const t = info7(egraph, id);
      if (!slot.has(id) && !isRowScalar(t.shape, S) && t.constant === void 0) k++;
    }
    return k;
  };
  const statAt = (expr2, reduce2, post) => stats.findIndex((s) => s.reduce === reduce2 && sameJson(s.post, post) && sameJson(s.expr, expr2));
  const addStat = (expr2, reduce2, post) => {
    const at = (k) => $2(STAT_BASE + k);
    const exact = statAt(expr2, reduce2, post);
    if (exact >= 0) return at(exact);
    const raw = statAt(expr2, reduce2, IDENTITY3);
    if (raw >= 0) return mapIn(post, () => at(raw));
    if (stats.length >= MAX_STATS || pwExprSize(expr2) > maxSize) return void 0;
    return at(stats.push({ expr: expr2, reduce: reduce2, post }) - 1);
  };
  const inlineRowwise = (id) => {
    const r = egraph.eclass(id).nodes.find((n3) => n3.op === "rowwise");
    if (!r) return void 0;
    const a = enodeAttrs(r, "rowwise");
    const kids2 = resolveAll(r.children);
    if (!kids2) return void 0;
    const own = [];
    const map = (e) => mapIn(e, (i) => i < kids2.length ? kids2[i] : own[i - kids2.length]);
    for (const s of a.stats) {
      const e = addStat(map(s.expr), s.reduce, s.post);
      if (!e) return void 0;
      own.push(e);
    }
    return map(a.expr);
  };
  const resolveAll = (kids2) => {
    const es = [];
    for (const c of kids2) {
      const e = resolve2(c);
      if (!e) return void 0;
      es.push(e);
    }
    return es;
  };
  function resolve2(c) {
    const id = find(c);
    const known = slot.get(id);
    if (known) return known;
    const t = info7(egraph, id);
    if (t.constant !== void 0 && t.dtype === "f32") return { op: "const", value: t.constant };
    if (visiting.has(id)) return operand(id);
    const broadcast = sameShape(t.shape, S) ? expandedRowScalar(egraph, id, S) : void 0;
    if (broadcast !== void 0) {
      visiting.add(id);
      const e = resolve2(broadcast);
      visiting.delete(id);
      if (e) {
        setSlot(id, e);
        return e;
      }
    }
    if (!isRowScalar(t.shape, S)) {
      if (inline !== "all" && inline !== id) {
        if (inline === "none" && sameShape(t.shape, S) && egraph.eclass(id).nodes.some((n3) => n3.op === "rowwise")) memo.inlinable.add(id);
        return operand(id);
      }
      if (!sameShape(t.shape, S)) return operand(id);
      visiting.add(id);
      const m = mark();
      let e = inlineRowwise(id);
      visiting.delete(id);
      if (e && (operands.length > maxInputs || pwExprSize(e) > maxSize)) e = void 0;
      if (!e) {
        undo(m);
        memo.cut.add(id);
        return operand(id);
      }
      setSlot(id, e);
      return e;
    }
    visiting.add(id);
    try {
      let reds = memo.reductions.get(id);
      if (!reds) memo.reductions.set(id, reds = rowReductionsIn(egraph, id, S).map((r) => ({ r, size: exprSize(r.expr) })));
      let best;
      let bestNew = 0;
      for (const x of reds) {
        const k = newOperands(x.r.children);
        if (!best || k < bestNew || k === bestNew && x.size > best.size) [best, bestNew] = [x, k];
      }
      if (best) {
        const r = best.r;
        const kids2 = resolveAll(r.children);
        const e = kids2 && addStat(mapIn(r.expr, (i) => kids2[i]), r.reduce, r.post);
        if (e) {
          setSlot(id, e);
          return e;
        }
      }
      for (const p of egraph.eclass(id).nodes) {
        if (p.op !== "pointwise" || !p.children.every((k) => isRowScalar(info7(egraph, find(k)).shape, S) || info7(egraph, find(k)).constant !== void 0)) continue;
        const kids2 = resolveAll(p.children);
        if (!kids2) return void 0;
        for (const r of rulesOf(egraph, id, p)) rules.add(r);
        const e = mapIn(exprOf(p), (i) => kids2[i]);
        setSlot(id, e);
        return e;
      }
      return operand(id);
    } finally {
      visiting.delete(id);
    }
  }
  const kids = resolveAll(node.children);
  if (!kids || stats.length === 0 || operands.length > maxInputs) return void 0;
  const n2 = operands.length;
  const renumber = (e) => mapIn(e, (i) => i >= STAT_BASE ? $2(n2 + i - STAT_BASE) : $2(i));
  const expr = renumber(mapIn(exprOf(node), (i) => kids[i]));
  if (pwExprSize(expr) > maxSize) return void 0;
  const attrs = { expr, stats: stats.map((s) => ({ ...s, expr: renumber(s.expr) })) };
  if (!sameShape(broadcastShapes(...operands.map((o) => info7(egraph, o).shape)) ?? [], S)) return void 0;
  return { attrs, operands, rules, size: pwExprSize(expr) + attrs.stats.reduce((s, st) => s + pwExprSize(st.expr) + pwExprSize(st.post), 0) };
}
var KEEP_PER_CLASS = 8;
function readsRowScalar(egraph, eclass, node) {
  const S = egraph.eclass(eclass).data.shape;
  return node.op === "pointwise" && S.length > 0 && egraph.eclass(eclass).data.dtype === "f32" && node.children.some((c) => isRowScalar(egraph.eclass(c).data.shape, S));
}
function rowLocal(egraph, eclass, node) {
  if (readsRowScalar(egraph, eclass, node)) return true;
  if (node.op !== "pointwise" || egraph.eclass(eclass).data.dtype !== "f32") return false;
  const S = egraph.eclass(eclass).data.shape;
  return node.children.some((c) => {
    const child = egraph.eclass(c);
    return sameShape(child.data.shape, S) && child.nodes.some((m) => m.op === "rowwise" || readsRowScalar(egraph, child.id, m));
  });
}
function rowwiseFusion(egraph, eclass) {
  const found = [];
  const byOperands = /* @__PURE__ */ new Map();
  const memo = { reductions: /* @__PURE__ */ new Map(), inlinable: /* @__PURE__ */ new Set(), cut: /* @__PURE__ */ new Set() };
  const offer = (c) => {
    if (!c) return;
    const key = c.operands.join(",");
    const same = byOperands.get(key);
    if (!same) byOperands.set(key, [c]);
    else if (same.some((d) => sameJson(d.attrs, c.attrs))) return;
    else same.push(c);
    found.push(c);
  };
  const S = egraph.eclass(eclass).data.shape;
  for (const n2 of egraph.eclass(eclass).nodes) {
    if (!rowLocal(egraph, eclass, n2)) continue;
    memo.inlinable.clear();
    if (readsRowScalar(egraph, eclass, n2)) offer(rowwiseOf(egraph, eclass, n2, "none", memo));
    else {
      for (const c of n2.children) {
        const child = egraph.eclass(c);
        if (sameShape(child.data.shape, S) && child.nodes.some((m) => m.op === "rowwise")) memo.inlinable.add(child.id);
      }
    }
    if (memo.inlinable.size === 0) continue;
    memo.cut.clear();
    offer(rowwiseOf(egraph, eclass, n2, "all", memo));
    for (const p of [...memo.cut]) if (memo.inlinable.has(p)) offer(rowwiseOf(egraph, eclass, n2, p, memo));
  }
  const written2 = (c) => c.operands.filter((o) => egraph.eclass(o).nodes.some((n2) => n2.op === "pointwise" || n2.op === "rowwise")).length;
  const ranked = found.map((c) => ({ c, w: written2(c) }));
  const best = ranked.sort((a, b) => a.w - b.w || a.c.operands.length - b.c.operands.length || a.c.size - b.c.size).slice(0, KEEP_PER_CLASS).map((r) => r.c);
  return best.map((c) => addRecorded(egraph, irENode("rowwise", c.attrs, [...c.operands]), c.rules));
}
var rowwiseFusionRules = [
  classRule("rowwise-fusion", (egraph, id) => egraph.eclass(id).nodes.some((n2) => rowLocal(egraph, id, n2)), rowwiseFusion)
];

// packages/egraph/src/tensor/rules/rowwiseMulti.ts
var MAX_STATS2 = 2;
var MAX_SIBLINGS2 = 3;
var RULE7 = "rowwise-multi";
var CLASS_BASE = 1 << 20;
function statsKey(egraph, n2) {
  const { stats } = enodeAttrs(n2, "rowwise");
  const k = n2.children.length;
  const named = (e) => mapInputs(e, (i) => ({ op: "in", index: i < k ? CLASS_BASE + egraph.find(n2.children[i]) : i - k }));
  return JSON.stringify(stats.map((s) => ({ ...s, expr: named(s.expr) })));
}
function groupable(egraph, eclass, node) {
  const stats = enodeAttrs(node, "rowwise").stats.length;
  if (stats === 0 || stats > MAX_STATS2) return false;
  const rank = egraph.eclass(eclass).data.shape.length;
  let wide;
  for (const k of node.children) {
    if (egraph.eclass(k).data.shape.length !== rank) continue;
    if (wide !== void 0 && egraph.find(k) !== wide) return false;
    wide = egraph.find(k);
  }
  return wide !== void 0;
}
function rowwiseMulti(egraph, eclass, node, ctx) {
  const a = enodeAttrs(node, "rowwise");
  const shape = egraph.eclass(eclass).data.shape;
  if (!groupable(egraph, eclass, node)) return [];
  const find = (id) => egraph.find(id);
  const C = find(eclass);
  const keys = ctx.of(`${RULE7}:keys`, () => /* @__PURE__ */ new Map());
  const keyOf2 = (m) => {
    let k = keys.get(m);
    if (k === void 0) {
      const wide = [...new Set(m.children.map(find).filter((c2) => egraph.eclass(c2).data.shape.length === shape.length))].sort((x, y) => x - y);
      k = `${wide.join(",")}|${statsKey(egraph, m)}`;
      keys.set(m, k);
    }
    return k;
  };
  const c = node.children.map(find).find((k) => egraph.eclass(k).data.shape.length === shape.length);
  const most = ctx.of(`${RULE7}:most`, () => /* @__PURE__ */ new Map());
  const postSize = (m) => enodeAttrs(m, "rowwise").stats.reduce((t, st) => t + exprSize(st.post), 0);
  const preferred = (cls, m) => {
    let sizes2 = most.get(cls);
    if (!sizes2) {
      sizes2 = /* @__PURE__ */ new Map();
      for (const o of egraph.eclass(cls).nodes) {
        if (o.op !== "rowwise") continue;
        const k = enodeAttrs(o, "rowwise").stats.length;
        sizes2.set(k, Math.max(sizes2.get(k) ?? 0, postSize(o)));
      }
      most.set(cls, sizes2);
    }
    return postSize(m) >= (sizes2.get(enodeAttrs(m, "rowwise").stats.length) ?? 0);
  };
  if (!preferred(C, node)) return [];
  const key = keyOf2(node);
  const readers = ctx.of(`${RULE7}:readers`, () => /* @__PURE__ */ new Map());
  const rowwiseReaders = (cls) => {
    let r = readers.get(cls);
    if (!r) readers.set(cls, r = egraph.eclass(cls).parents.filter(([p]) => p.op === "rowwise"));
    return r;
  };
  const maxBindings = (tensorAnalysisOf(egraph)?.maxPointwiseInputs ?? 7) + 1;
  const done = ctx.of(`${RULE7}:scanned`, () => /* @__PURE__ */ new Set());
  const out2 = [];
  if (!done.has(key)) {
    done.add(key);
    const best = /* @__PURE__ */ new Map([[C, node]]);
    for (const [p, pc] of rowwiseReaders(c)) {
      const D = find(pc);
      if (D === C || !sameShape(egraph.eclass(D).data.shape, shape) || egraph.eclass(D).data.dtype !== "f32") continue;
      if (keyOf2(p) !== key) continue;
      const q = egraph.canonicalize(p);
      if (!preferred(D, p)) continue;
      const had = best.get(D);
      if (!had || q.children.length < had.children.length) best.set(D, q);
    }
    if (best.size < 2) return out2;
    const siblings = [...best].sort((x, y) => x[1].children.length - y[1].children.length || x[0] - y[0]).slice(0, MAX_SIBLINGS2);
    for (let i = 0; i < siblings.length; i++)
      for (let j = i + 1; j < siblings.length; j++) {
        const members = [siblings[i], siblings[j]].sort((x, y) => x[0] - y[0]);
        const [[D0, m0], [D1, m1]] = members;
        if (m0.children.some((k) => find(k) === D1) || m1.children.some((k) => find(k) === D0)) continue;
        const inputs = [];
        for (const [, m] of members) for (const k of m.children) if (!inputs.includes(find(k))) inputs.push(find(k));
        if (inputs.length + members.length > maxBindings) continue;
        const n2 = inputs.length;
        const renumber = (m, e) => mapInputs(e, (i2) => ({ op: "in", index: i2 < m.children.length ? inputs.indexOf(find(m.children[i2])) : n2 + i2 - m.children.length }));
        const stats = a.stats.map((st) => ({ ...st, expr: renumber(node, st.expr) }));
        const exprs = members.map(([, m]) => renumber(m, enodeAttrs(m, "rowwise").expr));
        const multi = addRecorded(egraph, irENode("rowwiseMulti", { exprs, stats }, inputs), [RULE7]);
        members.forEach(([D], r) => {
          const pick2 = addRecorded(egraph, irENode("pick", { index: r }, [multi]), [RULE7]);
          if (D === C) out2.push(pick2);
          else egraph.union(D, pick2);
        });
      }
  }
  return out2;
}
var rowwiseMultiRules = [nodeRule(RULE7, ["rowwise"], rowwiseMulti, { guard: groupable })];

// packages/egraph/src/tensor/rules/splitKFold.ts
var info8 = (egraph, id) => egraph.eclass(id).data;
function partialsNode(egraph, eclass, node) {
  const { transA, transB } = enodeAttrs(node, "matmul");
  const [a, b] = node.children.map((c) => info8(egraph, c).shape);
  const out2 = info8(egraph, eclass).shape;
  if (a.length !== 2 || b.length !== 2 || out2.length !== 2) return void 0;
  const k = transA ? a[0] : a[1];
  const splits = matmulSplitK(out2[0], out2[1], k, 1, tensorAnalysisOf(egraph)?.maxBindingBytes);
  if (splits < 2) return void 0;
  const partials = addRecorded(egraph, irENode("matmulPartials", { transA, transB, splits }, node.children), ["matmul-split-k"]);
  return { sum: addRecorded(egraph, irENode("sum", { axes: [0], keepdims: false }, [partials]), ["matmul-split-k"]), partials, splits };
}
function splitK(egraph, eclass, node, _ctx) {
  const p = partialsNode(egraph, eclass, node);
  return p ? [p.sum] : [];
}
function partialsOf(egraph, cls) {
  for (const n2 of egraph.eclass(cls).nodes) {
    if (n2.op !== "sum") continue;
    const s = enodeAttrs(n2, "sum");
    if (s.keepdims || s.axes.length !== 1 || s.axes[0] !== 0) continue;
    const p = egraph.find(n2.children[0]);
    const mp = egraph.eclass(p).nodes.find((x) => x.op === "matmulPartials");
    if (mp) return { cls: p, splits: enodeAttrs(mp, "matmulPartials").splits };
  }
  const mm = egraph.eclass(cls).nodes.find((n2) => n2.op === "matmul");
  const made = mm && partialsNode(egraph, cls, mm);
  if (!made) return void 0;
  egraph.union(cls, made.sum);
  return { cls: made.partials, splits: made.splits };
}
function foldedUpdate(egraph, node) {
  const attrs = enodeAttrs(node, "pointwiseMultiTensor");
  const { shared, roles, groups, operand } = groupOperands({ inputs: node.children, attrs });
  const found = Array.from({ length: roles }, (_, k) => Array.from({ length: groups }, (_2, g) => partialsOf(egraph, egraph.find(node.children[operand(g, shared + k)]))));
  const counts = found.map((f) => f.filter(Boolean).length);
  const role = counts.indexOf(Math.max(...counts));
  if (counts[role] === 0) return void 0;
  const limit = tensorAnalysisOf(egraph)?.maxBindingBytes ?? Number.POSITIVE_INFINITY;
  const aligned = (bytes2) => Math.ceil(bytes2 / 256) * 256;
  let bytes = attrs.shapes.reduce((s, sh) => s + aligned(numel(sh) * 4), 0);
  const children = [...node.children];
  const splits = attrs.shapes.map(() => 1);
  attrs.shapes.forEach((sh, g) => {
    const p = found[role][g];
    const more = p ? aligned(p.splits * numel(sh) * 4) - aligned(numel(sh) * 4) : 0;
    if (!p || bytes + more > limit) return;
    bytes += more;
    children[operand(g, shared + role)] = p.cls;
    splits[g] = p.splits;
  });
  if (splits.every((s) => s === 1)) return void 0;
  const partials = { role, splits };
  return addRecorded(egraph, irENode("pointwiseMultiTensor", { ...attrs, partials }, children), ["update-fold-partials"]);
}
var unfoldedUpdate = (egraph, pick2) => egraph.eclass(pick2.children[0]).nodes.find((n2) => n2.op === "pointwiseMultiTensor" && !enodeAttrs(n2, "pointwiseMultiTensor").partials);
function foldPartials(egraph, _eclass, pick2, ctx) {
  const node = unfoldedUpdate(egraph, pick2);
  if (!node) return [];
  const memo = ctx.of("update-fold-partials:built", () => ({ epoch: -1, built: /* @__PURE__ */ new Map() }));
  if (memo.epoch !== egraph.epoch) [memo.epoch, memo.built] = [egraph.epoch, /* @__PURE__ */ new Map()];
  const M = egraph.find(pick2.children[0]);
  if (!memo.built.has(M)) memo.built.set(M, foldedUpdate(egraph, node));
  const folded = memo.built.get(M);
  return folded === void 0 ? [] : [addRecorded(egraph, irENode("pick", { index: enodeAttrs(pick2, "pick").index }, [folded]), ["update-fold-partials"])];
}
var ofUnfolded = (egraph, _eclass, node) => unfoldedUpdate(egraph, node) !== void 0;
var splitKFoldRules = [
  nodeRule("matmul-split-k", ["matmul"], splitK),
  nodeRule("update-fold-partials", ["pick"], foldPartials, { guard: ofUnfolded })
];

// packages/egraph/src/tensor/kernelBoundaries.ts
var ABSORBED = {
  attentionGradKV: () => ["attentionGrad"],
  attentionGradQKV: () => ["attentionGrad", "concat"],
  attentionWithLse: () => ["attention", "attentionLse"],
  fusedMatmul: (a) => ["matmul", ...a.bias ? ["add"] : [], ...a.activation === "relu" ? ["relu"] : []],
  matmulEpilogue: (a) => ["matmul", ...exprOps(a.expr)],
  matmulPartials: () => ["matmul"],
  pointwise: (a) => [...exprOps(a.expr)],
  pointwiseMulti: (a) => [...a.exprs.reduce((out2, e) => exprOps(e, out2), /* @__PURE__ */ new Set())],
  pointwiseMultiTensor: (a) => [...a.exprs.reduce((out2, e) => exprOps(e, out2), /* @__PURE__ */ new Set())],
  pointwiseReduce: (a) => [a.reduce, ...exprOps(a.post, exprOps(a.expr))],
  pointwiseReduceMulti: (a) => [a.reduce, ...a.results.reduce((out2, r) => exprOps(r.post, exprOps(r.expr, out2)), /* @__PURE__ */ new Set())],
  rowwise: (a) => [...a.stats.reduce((out2, s) => exprOps(s.post, exprOps(s.expr, out2.add(s.reduce))), exprOps(a.expr))],
  rowwiseMulti: (a) => [...a.stats.reduce((out2, s) => exprOps(s.post, exprOps(s.expr, out2.add(s.reduce))), a.exprs.reduce((out2, e) => exprOps(e, out2), /* @__PURE__ */ new Set()))],
  softmaxCrossEntropy: () => ["logSoftmax", "nll"],
  softmaxCrossEntropyGrad: () => ["logSoftmax", "logSoftmaxGrad", "nllGrad"]
};
var ABSORBING_OPS = Object.keys(ABSORBED);
function exprOps(e, out2 = /* @__PURE__ */ new Set()) {
  switch (e.op) {
    case "in":
    case "const":
      return out2;
    case "where":
      out2.add("where");
      exprOps(e.c, out2);
      exprOps(e.a, out2);
      return exprOps(e.b, out2);
    case "cast":
      out2.add("cast");
      return exprOps(e.a, out2);
    default:
      out2.add(e.op);
      exprOps(e.a, out2);
      return "b" in e ? exprOps(e.b, out2) : out2;
  }
}
function absorbedOps(node) {
  if (!isOpKind(node.op)) return [];
  const ir = fromENode(node);
  const ops = isOp(ir, ...ABSORBING_OPS) ? absorbedBy(ir) : [ir.op];
  const delta = isOp(ir, "attentionGrad", "attentionGradKV", "attentionGradQKV") && ir.attrs.deltaFromOut ? ["sum", "mul"] : [];
  const window = isOp(ir, "attention", "attentionLse", "attentionWithLse", "attentionGrad", "attentionGradKV", "attentionGradQKV") && ir.attrs.window ? ["slice"] : [];
  return [...ops, ...delta, ...window];
}
function absorbedBy(x) {
  return ABSORBED[x.op](x.attrs);
}
function withKernelBoundaries(inner, egraph, boundaries) {
  if (boundaries.size === 0) return inner;
  const classHasBoundary = /* @__PURE__ */ new Map();
  const hasBoundary = (cls) => {
    let v = classHasBoundary.get(cls);
    if (v === void 0) classHasBoundary.set(cls, v = egraph.eclass(cls).nodes.some((n2) => isOpKind(n2.op) && boundaries.has(n2.op)));
    return v;
  };
  return {
    nodeCost(node, eclass) {
      if (isOpKind(node.op) && boundaries.has(node.op) && absorbedOps(node).every((op) => op === node.op)) return inner.nodeCost(node, eclass);
      if (hasBoundary(egraph.find(eclass))) return Number.POSITIVE_INFINITY;
      if (absorbedOps(node).some((op) => boundaries.has(op))) return Number.POSITIVE_INFINITY;
      return inner.nodeCost(node, eclass);
    }
  };
}

// packages/egraph/src/tensor/recompute.ts
var RECOMPUTE_RULE = "recompute-after";
var RECOMPUTED_MATMULS = /* @__PURE__ */ new Set(["matmul", "fusedMatmul", "matmulEpilogue"]);
function isRecomputable(n2) {
  if (!isOpKind(n2.op) || n2.op === "dropout" || isLeafOp(n2.op) || isAliasOp(n2.op)) return false;
  const family = OP_FACTS[n2.op].family;
  return family === "unary" || family === "binary" || family === "elementwise" && n2.op !== "pointwiseMulti" && n2.op !== "pointwiseMultiTensor" || n2.op === "rowwise" || RECOMPUTED_MATMULS.has(n2.op);
}
function readsAfter(egraph, cls) {
  return egraph.eclass(cls).nodes.some((m) => m.children.some((c) => egraph.eclass(c).nodes.some((x) => x.op === "after")));
}
function offerRecompute(egraph, reader, y, m, dep) {
  const after = addRecorded(egraph, irENode("after", {}, [m.children[0], reader.children[dep]]), [RECOMPUTE_RULE]);
  const value = addRecorded(egraph, { op: m.op, data: m.data, children: [after, ...m.children.slice(1)] }, [RECOMPUTE_RULE]);
  const children = reader.children.map((c, i) => i === y ? value : c);
  return { reader: addRecorded(egraph, { op: reader.op, data: reader.data, children }, [RECOMPUTE_RULE]), after, value };
}
function isComputed(egraph, cls) {
  const c = egraph.eclass(cls);
  return c.data.constant === void 0 && !c.nodes.some((n2) => isOpKind(n2.op) && isLeafOp(n2.op));
}
function recomputeOperands(egraph, eclass, node) {
  if (node.op === "after" || node.children.some((c) => readsAfter(egraph, c))) return [];
  const out2 = [];
  node.children.forEach((yc, y) => {
    const m = egraph.eclass(yc).nodes.find((x) => isRecomputable(x) && x.children.length > 0 && !x.children.some((c) => egraph.eclass(c).nodes.some((z) => z.op === "after")));
    if (!m) return;
    node.children.forEach((dc, d) => {
      if (d !== y && egraph.find(dc) !== egraph.find(yc) && isComputed(egraph, dc)) out2.push(offerRecompute(egraph, node, y, m, d).reader);
    });
  });
  return out2.filter((id) => egraph.find(id) !== egraph.find(eclass));
}
var READERS = ["matmul", "fusedMatmul", "matmulEpilogue", "pointwise", "rowwise", "mul", "add", "sub", "div"];
var recomputeRules = [nodeRule(RECOMPUTE_RULE, READERS, recomputeOperands)];

// packages/egraph/src/tensor/memoryFit.ts
var MemoryBudgetError = class extends Error {
  constructor(message, budget, smallest) {
    super(message);
    this.budget = budget;
    this.smallest = smallest;
  }
  budget;
  smallest;
  name = "MemoryBudgetError";
};
function dfsOrder(plan, roots) {
  const done = /* @__PURE__ */ new Set();
  const order = [];
  for (const r of roots) {
    if (done.has(r)) continue;
    const stack = [[r, 0]];
    done.add(r);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const kids = plan.get(top[0]).children;
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
var isFree = (n2) => isLeafOp(n2.op) || isAliasOp(n2.op) || n2.op === "pick";
function memoryOrder(plan, dfs, ends) {
  const rank = new Map(dfs.map((id, i) => [id, i]));
  const rootOf = /* @__PURE__ */ new Map();
  for (const id of dfs) {
    const n2 = plan.get(id);
    rootOf.set(id, isAliasOp(n2.op) ? rootOf.get(n2.children[0]) : id);
  }
  const readers = /* @__PURE__ */ new Map();
  const users = /* @__PURE__ */ new Map();
  const waiting = /* @__PURE__ */ new Map();
  for (const id of dfs) {
    const kids = [...new Set(plan.get(id).children)];
    waiting.set(id, kids.length);
    for (const c of kids) {
      users.get(c)?.push(id) ?? users.set(c, [id]);
    }
    for (const r of new Set(kids.map((c) => rootOf.get(c)))) readers.set(r, (readers.get(r) ?? 0) + 1);
  }
  const storable = (r) => !ends.outputs.has(r) && !ends.inPlace.has(r) && !isLeafOp(plan.get(r).op);
  const order = [];
  const free2 = [];
  const ready = [];
  const enqueue = (id) => (isFree(plan.get(id)) ? free2 : ready).push(id);
  for (const id of dfs) if (waiting.get(id) === 0) enqueue(id);
  const run = (id) => {
    order.push(id);
    const kids = [...new Set(plan.get(id).children)];
    for (const r of new Set(kids.map((c) => rootOf.get(c)))) readers.set(r, readers.get(r) - 1);
    for (const u of users.get(id) ?? []) {
      const w2 = waiting.get(u) - 1;
      waiting.set(u, w2);
      if (w2 === 0) enqueue(u);
    }
  };
  while (free2.length || ready.length) {
    if (free2.length) {
      run(free2.shift());
      continue;
    }
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < ready.length; k++) {
      const n2 = plan.get(ready[k]);
      let score = storable(ready[k]) ? -n2.bytes : 0;
      for (const r of new Set(n2.children.map((c) => rootOf.get(c)))) if (readers.get(r) === 1 && storable(r)) score += plan.get(r).bytes;
      if (score > bestScore || score === bestScore && rank.get(ready[k]) < rank.get(ready[best])) {
        best = k;
        bestScore = score;
      }
    }
    run(ready.splice(best, 1)[0]);
  }
  return order;
}
function estimate(plan, order, ends) {
  const at = new Map(order.map((id, i) => [id, i]));
  const values = order.map((id) => {
    const n2 = plan.get(id);
    return { op: n2.op, bytes: n2.bytes, inputs: n2.children.map((c) => at.get(c)), ...n2.result === void 0 ? {} : { result: n2.result } };
  });
  const pos = (ids2) => [...ids2].map((id) => at.get(id)).filter((i) => i !== void 0);
  return estimateMemory(values, { outputs: pos(ends.outputs), inPlace: pos(ends.inPlace) }).bytesAllocated;
}
function bestSchedule(plan, ends) {
  const dfs = dfsOrder(plan, ends.roots);
  const first = { order: dfs, bytes: estimate(plan, dfs, ends), reordered: false };
  const mem = memoryOrder(plan, dfs, ends);
  const bytes = estimate(plan, mem, ends);
  return bytes < first.bytes ? { order: mem, bytes, reordered: true } : first;
}
function livePeak(plan, order, ends) {
  const pos = new Map(order.map((id, i) => [id, i]));
  const span = /* @__PURE__ */ new Map();
  for (const id of order) {
    const n2 = plan.get(id);
    if (isFree(n2) && n2.op !== "pick") continue;
    span.set(id, [pos.get(id), pos.get(id)]);
  }
  for (const id of order) for (const c of plan.get(id).children) {
    const s = span.get(c);
    if (s) s[1] = Math.max(s[1], pos.get(id));
  }
  const delta = new Float64Array(order.length + 2);
  for (const [id, [s, e]] of span) {
    if (ends.inPlace.has(id) || ends.outputs.has(id)) continue;
    delta[s] += plan.get(id).bytes;
    delta[e + 1] -= plan.get(id).bytes;
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
function candidates(egraph, plan, order, ends, cost) {
  const { at, span } = livePeak(plan, order, ends);
  const pos = new Map(order.map((id, i) => [id, i]));
  const out2 = [];
  for (const [y, [s, e]] of span) {
    const n2 = plan.get(y);
    if (!(s < at && e > at) || isLeafOp(n2.op) || ends.outputs.has(y) || ends.inPlace.has(y)) continue;
    const node = egraph.eclass(y).nodes.filter((m) => isRecomputable(m) && m.children.length > 0 && m.children.every((c) => plan.has(egraph.find(c)) && egraph.find(c) !== y && plan.get(egraph.find(c))?.op !== "after")).map((m) => ({ m, c: cost.nodeCost(m, y) })).sort((a, b) => a.c - b.c)[0];
    if (!node || !Number.isFinite(node.c)) continue;
    const readers = [];
    let ok = true;
    for (const id of order.slice(at + 1)) {
      const r = plan.get(id);
      if (r.op === "after" && r.children[0] === y && r.children[1] !== y) {
        readers.push({ reader: id, operand: 0, dep: 1 });
        continue;
      }
      if (isAliasOp(r.op) || r.op === "pick") {
        if (r.children.includes(y)) ok = false;
        continue;
      }
      r.children.forEach((c, i) => {
        if (c !== y) return;
        let dep = -1;
        r.children.forEach((d, j) => {
          const dn = plan.get(d);
          if (d !== y && !isLeafOp(dn.op) && egraph.eclass(d).data.constant === void 0 && (dep < 0 || pos.get(d) > pos.get(r.children[dep]))) dep = j;
        });
        if (dep < 0) ok = false;
        else readers.push({ reader: id, operand: i, dep });
      });
    }
    if (new Set(readers.map((r) => r.reader)).size !== readers.length) ok = false;
    if (ok && readers.length) out2.push({ value: y, node: node.m, readers, cost: node.c * readers.length });
  }
  return out2.sort((a, b) => a.value - b.value);
}
function tryCandidate(plan, c, find) {
  const next = new Map(plan);
  let fresh = Math.min(-1, ...[...plan.keys()].filter((k) => k < 0)) - 1;
  const y = plan.get(c.value);
  const kids = c.node.children.map(find);
  for (const r of c.readers) {
    const reader = next.get(r.reader);
    const after = fresh--;
    const value = fresh--;
    next.set(after, { op: "after", bytes: plan.get(kids[0]).bytes, children: [kids[0], reader.children[r.dep]] });
    next.set(value, { op: c.node.op, bytes: y.bytes, children: [after, ...kids.slice(1)] });
    next.set(r.reader, { ...reader, children: reader.children.map((x, i) => i === r.operand ? value : x) });
  }
  return next;
}
function fitMemoryBudget(egraph, extracted, step, cost, budget) {
  const find = (id) => egraph.find(id);
  let choices = new Map(extracted);
  const planOf2 = () => {
    const ends2 = { roots: step.roots.map(find), outputs: new Set(step.outputs.map(find)), inPlace: new Set(step.inPlace.map(find)) };
    const leafOps = new Map(step.leaves.map(([id, op]) => [find(id), op]));
    const plan2 = /* @__PURE__ */ new Map();
    for (const [id, n2] of choices) {
      const bytes = numel(egraph.eclass(id).data.shape) * 4;
      const leaf4 = leafOps.get(id);
      if (leaf4) plan2.set(id, { op: leaf4, bytes, children: [] });
      else plan2.set(id, { op: n2.op, bytes, children: n2.children.map(find), ...n2.op === "pick" ? { result: enodeAttrs(n2, "pick").index } : {} });
    }
    return { plan: plan2, ends: ends2 };
  };
  let { plan, ends } = planOf2();
  const dfs = dfsOrder(plan, ends.roots);
  const before = estimate(plan, dfs, ends);
  if (before <= budget) return { fit: { budget, before, after: before, recomputed: 0, reordered: false } };
  let best = bestSchedule(plan, ends);
  let recomputed = 0;
  const result = () => ({ choices, order: best.order, fit: { budget, before, after: best.bytes, recomputed, reordered: best.reordered } });
  while (best.bytes > budget) {
    let pick2;
    for (const c of candidates(egraph, plan, best.order, ends, cost)) {
      const bytes = bestSchedule(tryCandidate(plan, c, find), ends).bytes;
      const score = (best.bytes - bytes) / Math.max(c.cost, 1e-9);
      if (bytes < best.bytes && (!pick2 || score > pick2.score)) pick2 = { c, bytes, score };
    }
    if (!pick2) throw new MemoryBudgetError(`optimize: memoryBudget ${fmtBytes(budget)} (${budget} bytes) cannot be met: the smallest plan found needs ${fmtBytes(best.bytes)} (${best.bytes} bytes; ${recomputed} recomputed operands, ${best.reordered ? "memory-aware schedule" : "extracted schedule"}; ${fmtBytes(before)} as extracted)`, budget, best.bytes);
    choices = applyCandidate(egraph, choices, pick2.c);
    recomputed += pick2.c.readers.length;
    ({ plan, ends } = planOf2());
    best = bestSchedule(plan, ends);
  }
  return result();
}
function applyCandidate(egraph, choices, c) {
  const chosen = [];
  for (const r of c.readers) {
    const reader = choices.get(r.reader);
    const added = offerRecompute(egraph, reader, r.operand, c.node, r.dep);
    egraph.union(r.reader, added.reader);
    chosen.push([added.after, irENode("after", {}, [c.node.children[0], reader.children[r.dep]])]);
    chosen.push([added.value, { op: c.node.op, data: c.node.data, children: [added.after, ...c.node.children.slice(1)] }]);
    chosen.push([added.reader, { op: reader.op, data: reader.data, children: reader.children.map((x, i) => i === r.operand ? added.value : x) }]);
  }
  egraph.rebuild();
  const next = /* @__PURE__ */ new Map();
  for (const [id, n2] of choices) next.set(egraph.find(id), egraph.canonicalize(n2));
  for (const [id, n2] of chosen) next.set(egraph.find(id), egraph.canonicalize(n2));
  return next;
}

// packages/egraph/src/tensor/optimize.ts
var RULE_SETS = {
  algebra: algebraRules,
  layout: layoutRules,
  fusion: [...fusionRules, ...reduceFusionRules, ...matmulEpilogueRules],
  rows: rowwiseFusionRules,
  backward: backwardRules,
  update: [...multiUpdateRules, ...multiTensorUpdateRules],
  attention: [...attentionLseRules, ...attentionGradKVRules, ...attentionDeltaRules],
  attentionLayout: attentionLayoutRules,
  attentionInPlace: [...attentionWindowRules, ...attentionGradQKVRules],
  reduceMulti: reduceMultiRules,
  rowMulti: rowwiseMultiRules,
  fold: splitKFoldRules,
  // not in the default passes: `memoryBudget` offers its alternatives edge by edge (memoryFit.ts)
  recompute: recomputeRules
};
var allRules = [...algebraRules, ...layoutRules, ...fusionRules, ...reduceFusionRules, ...matmulEpilogueRules, ...rowwiseFusionRules, ...backwardRules, ...multiUpdateRules, ...multiTensorUpdateRules, ...attentionLseRules, ...attentionGradKVRules, ...attentionGradQKVRules, ...attentionDeltaRules, ...attentionLayoutRules, ...attentionWindowRules, ...reduceMultiRules, ...rowwiseMultiRules, ...recomputeRules, ...splitKFoldRules];
var DEFAULT_PASSES = [
  { name: "simplify", ruleSets: ["algebra", "layout", "attentionLayout", "backward"], iterLimit: 12 },
  { name: "fuse", ruleSets: ["fusion"], iterLimit: 30 },
  // once every pointwise and reduction variant exists: a pointwise node reading statistics of its rows becomes
  // one row-local kernel (in the fuse pass it fired on each variant as it appeared, before the reductions it
  // reads had their fused forms: 2 351 applications)
  { name: "rows", ruleSets: ["rows"], iterLimit: 1 },
  // on the fused expressions: state updates sharing an operand, and an attention with its backward's
  // log-sum-exp, and its key and value gradients, become multi-result kernels
  { name: "group", ruleSets: ["update", "attention"], iterLimit: 2 },
  // on the multi-tensor updates: weight gradients of split-K matmuls read as their partials, summed by the update
  { name: "fold", ruleSets: ["fold"], iterLimit: 1 },
  // on the grouped attention kernels: q, k and v read as head windows of the fused QKV projection (no slice copies)
  // and dq, dk, dv written into one result (no concat); the second iteration windows the joined gradients
  { name: "inPlace", ruleSets: ["attentionInPlace"], iterLimit: 2 },
  // sibling column reductions (a layer norm's dγ and dβ) and sibling row kernels (its x̂ and y) become
  // multi-result kernels
  { name: "siblings", ruleSets: ["reduceMulti", "rowMulti"], iterLimit: 1 }
];
var isNamedLeaf = (n2) => n2.op === "input" || n2.op === "param" || n2.op === "state";
function graphToEGraph(graph, analysis = new TensorAnalysis()) {
  const egraph = new EGraph(analysis);
  const classOf = /* @__PURE__ */ new Map();
  const live = graph.live();
  for (const id of live) {
    const n2 = graph.nodes[id];
    classOf.set(id, egraph.add(toENode(n2, n2.inputs.map((i) => classOf.get(i)))));
  }
  const rootIds = [
    ...graph.outputs.values(),
    ...graph.updates.flatMap((u) => [u.value, u.state]),
    ...live.filter((id) => isNamedLeaf(graph.nodes[id]))
  ];
  analysis.markRoots([...graph.outputs.values(), ...graph.updates.map((u) => u.value)].map((id) => classOf.get(id)));
  analysis.markUpdates(graph.updates.map((u) => [classOf.get(u.state), classOf.get(u.value)]));
  return { egraph, classOf, roots: [...new Set(rootIds.map((id) => classOf.get(id)))] };
}
function egraphToGraph(loaded, extraction, original, classOrder) {
  const { egraph, classOf } = loaded;
  const find = (id) => egraph.find(id);
  const choices = new Map(extraction.choices);
  const leafNode = /* @__PURE__ */ new Map();
  for (const id of original.live()) {
    const n2 = original.nodes[id];
    if (isNamedLeaf(n2)) {
      const cls = find(classOf.get(id));
      leafNode.set(cls, n2);
      const chosen = egraph.eclass(cls).nodes.find((e) => e.op === n2.op && enodeAttrs(e, n2.op).name === n2.attrs.name);
      if (chosen) choices.set(cls, chosen);
    }
  }
  const roots = loaded.roots.map(find);
  const order = classOrder ?? reachableClasses(choices, roots, find);
  if (!order) throw new ExtractionError("optimize: the extracted choice has a cycle or misses a class (a bug in extraction)");
  const g = new Graph({ recordSites: false });
  const built = /* @__PURE__ */ new Map();
  const classOfNode = /* @__PURE__ */ new Map();
  for (const cls of order) {
    const leaf4 = leafNode.get(cls);
    let node;
    if (leaf4) {
      if (leaf4.op === "input") node = g.input(leaf4.attrs.name, leaf4.shape, leaf4.dtype);
      else if (leaf4.op === "param") node = g.param(leaf4.attrs.name, leaf4.shape, leaf4.attrs.init);
      else node = g.state(leaf4.attrs.name, leaf4.shape, leaf4.attrs.init, leaf4.dtype);
    } else {
      const e = choices.get(cls);
      const ir = fromENode(e);
      node = g.node(
        ir.op,
        e.children.map((c) => built.get(find(c))),
        ir.attrs,
        ir.leafType
      );
    }
    built.set(cls, node);
    classOfNode.set(node.id, cls);
  }
  const nodeOf = (id) => built.get(find(classOf.get(id)));
  for (const [name, id] of original.outputs) g.output(name, nodeOf(id));
  for (const u of original.updates) g.update(nodeOf(u.state), nodeOf(u.value));
  return { graph: g, classOfNode };
}
function selectPasses(options) {
  const without = new Set(options.withoutRules ?? []);
  for (const name of without)
    if (!allRules.some((r) => r.name === name)) throw new RuleError(`optimize: withoutRules names '${name}', which is not a rule (${allRules.map((r) => r.name).join(", ")})`);
  const keep = (rules) => rules.filter((r) => !without.has(r.name));
  if (options.rules) return [{ name: "rules", rules: keep(options.rules) }];
  if (options.ruleSets) return [{ name: options.ruleSets.join("+"), rules: keep(options.ruleSets.flatMap((s) => RULE_SETS[s])) }];
  return (options.passes ?? DEFAULT_PASSES).map((p) => ({ name: p.name, rules: keep(p.ruleSets.flatMap((s) => RULE_SETS[s])), spec: p }));
}
var LATE_OPS = ["pointwiseReduceMulti", "rowwiseMulti"];
function extractWithLate(egraph, cost, roots, opts) {
  const multis = LATE_OPS.flatMap((op) => egraph.classesWithOp(op));
  const folds = foldedUpdates(egraph);
  if (multis.length === 0 && folds.length === 0) return new DagExtractor(egraph, cost, opts).extract(roots);
  const late = new Set(multis.map((id) => egraph.find(id)));
  const isLate = (n2) => LATE_OPS.includes(n2.op) || n2.op === "pick" && late.has(egraph.find(n2.children[0]));
  const without = { ...cost, nodeCost: (n2, c) => isLate(n2) ? Number.POSITIVE_INFINITY : cost.nodeCost(n2, c) };
  const first = new DagExtractor(egraph, without, opts).extract(roots);
  const focus = [...new Set(multis.flatMap((m) => [...egraph.eclass(m).parents].filter(([n2]) => n2.op === "pick").map(([, c]) => egraph.find(c))))];
  const choice = new Map(first.choices);
  for (const m of multis) {
    const n2 = egraph.eclass(m).nodes.find((x) => LATE_OPS.includes(x.op));
    if (n2 && n2.children.every((c) => first.choices.has(egraph.find(c)))) choice.set(egraph.find(m), n2);
  }
  const find = (id) => egraph.find(id);
  let start = choice;
  let total = dagCost(start, roots, cost, find);
  let reached = new Set(reachableClasses(start, roots, find) ?? []);
  for (const m of egraph.classesWithOp("rowwiseMulti")) {
    const M = find(m);
    const n2 = egraph.eclass(M).nodes.find((x) => x.op === "rowwiseMulti");
    if (!n2?.children.every((c) => first.choices.has(find(c)))) continue;
    const members = /* @__PURE__ */ new Map();
    for (const [, c] of egraph.eclass(M).parents) {
      const pick2 = egraph.eclass(c).nodes.find((x) => x.op === "pick" && find(x.children[0]) === M);
      if (pick2) members.set(find(c), pick2);
    }
    if (members.size < 2 || [...members.keys()].some((c) => start.get(c)?.op === "pick")) continue;
    const unreached = [...members.keys()].filter((c) => !reached.has(c));
    if (unreached.length === members.size) continue;
    const trial = new Map(start);
    trial.set(M, n2);
    for (const [c, pick2] of members) trial.set(c, pick2);
    for (const u of unreached)
      for (const [, k] of egraph.eclass(u).parents) {
        const K = find(k);
        if (!reached.has(K) || members.has(K)) continue;
        let best;
        let bestCost = dagCost(trial, roots, cost, find);
        for (const alt of egraph.eclass(K).nodes) {
          if (alt === trial.get(K) || !alt.children.some((c2) => find(c2) === u) || !alt.children.every((c2) => trial.has(find(c2)))) continue;
          const saved = trial.get(K);
          trial.set(K, alt);
          const c = dagCost(trial, roots, cost, find);
          trial.set(K, saved);
          if (c < bestCost) [best, bestCost] = [alt, c];
        }
        if (best) trial.set(K, best);
      }
    const t = dagCost(trial, roots, cost, find);
    if (t < total) {
      [start, total] = [trial, t];
      reached = new Set(reachableClasses(start, roots, find) ?? []);
    }
  }
  if (start !== choice)
    for (const m of egraph.classesWithOp("pointwiseReduceMulti")) {
      const M = find(m);
      const n2 = egraph.eclass(M).nodes.find((x) => x.op === "pointwiseReduceMulti");
      if (n2 && !start.has(M) && n2.children.every((c) => start.has(find(c)))) start.set(M, n2);
    }
  for (const [M, f] of folds) {
    if (!f.children.every((c) => start.has(find(c)) || egraph.eclass(find(c)).nodes.some((x) => x.op === "matmulPartials"))) continue;
    const trial = new Map(start);
    trial.set(M, f);
    for (const [, c] of egraph.eclass(M).parents) {
      const pick2 = egraph.eclass(c).nodes.find((x) => x.op === "pick" && find(x.children[0]) === M);
      if (pick2) trial.set(find(c), pick2);
    }
    for (const c of f.children) {
      const mp = trial.has(find(c)) ? void 0 : egraph.eclass(find(c)).nodes.find((x) => x.op === "matmulPartials");
      if (mp) trial.set(find(c), mp);
    }
    const t = dagCost(trial, roots, cost, find);
    if (t < total) [start, total] = [trial, t];
  }
  const second = new DagExtractor(egraph, cost, { ...opts, improvePasses: 0, start: { choice: start, focus } }).extract(roots);
  return { ...second, search: first.search };
}
function foldedUpdates(egraph) {
  const out2 = [];
  for (const id of new Set(egraph.classesWithOp("pointwiseMultiTensor").map((i) => egraph.find(i)))) {
    const f = egraph.eclass(id).nodes.find((x) => x.op === "pointwiseMultiTensor" && enodeAttrs(x, "pointwiseMultiTensor").partials);
    if (f) out2.push([id, f]);
  }
  return out2;
}
function checkedBudget(budget) {
  if (!(typeof budget === "number" && budget > 0 && Number.isFinite(budget))) throw new RangeError(`optimize: memoryBudget must be a positive, finite number of bytes, got ${budget}`);
  return budget;
}
function stepEnds(loaded, original) {
  const cls = (id) => loaded.classOf.get(id);
  return {
    leaves: original.live().flatMap((id) => isNamedLeaf(original.nodes[id]) ? [[cls(id), original.nodes[id].op]] : []),
    roots: loaded.roots,
    outputs: [...original.outputs.values()].map(cls),
    inPlace: original.updates.map((u) => cls(u.value))
  };
}
function runPasses(loaded, passes, options, matchLimit) {
  const iterTotal = options.iterLimit ?? 40;
  const timeTotal = options.timeLimitMs ?? Number.POSITIVE_INFINITY;
  const start = now2();
  let iterations = 0;
  const out2 = [];
  for (const p of passes) {
    const runner = new Runner(loaded.egraph, {
      iterLimit: Math.max(0, Math.min(p.spec?.iterLimit ?? Number.POSITIVE_INFINITY, iterTotal - iterations)),
      nodeLimit: options.nodeLimit ?? 5e4,
      timeLimitMs: Math.max(0, timeTotal - (now2() - start)),
      scheduler: new BackoffScheduler({ matchLimit })
    });
    for (const r of loaded.roots) runner.addRoot(r);
    const report = runner.run(p.rules);
    iterations += report.iterations;
    out2.push({ name: p.name, report });
    if (debugLevel() >= 4) writeDebug(`pass ${p.name}: ${report.iterations} iterations (${report.stopReason}), ${report.egraphNodes} e-nodes, ${Math.round(report.totalTimeMs)} ms`);
  }
  return out2;
}
function combineReports(passes) {
  const matched = {};
  const applied = {};
  for (const { report } of passes) {
    for (const [k, v] of Object.entries(report.matched)) matched[k] = (matched[k] ?? 0) + v;
    for (const [k, v] of Object.entries(report.applied)) applied[k] = (applied[k] ?? 0) + v;
  }
  const cut = passes.find((p) => p.report.stopReason !== "saturated");
  const last = passes[passes.length - 1].report;
  const sum = (f) => passes.reduce((s, p) => s + f(p.report), 0);
  return {
    stopReason: cut ? cut.report.stopReason : "saturated",
    stopMessage: passes.map((p) => `${p.name}: ${p.report.stopMessage}`).join("; "),
    iterations: sum((r) => r.iterations),
    egraphNodes: last.egraphNodes,
    egraphClasses: last.egraphClasses,
    matched,
    applied,
    totalTimeMs: sum((r) => r.totalTimeMs),
    searchTimeMs: sum((r) => r.searchTimeMs),
    applyTimeMs: sum((r) => r.applyTimeMs),
    rebuildTimeMs: sum((r) => r.rebuildTimeMs),
    iterationLog: passes.flatMap((p) => p.report.iterationLog)
  };
}
var MAX_DEFAULT_POINTWISE_INPUTS = 7;
function optimize(graph, options = {}) {
  const start = now2();
  const budget = options.memoryBudget === void 0 ? void 0 : checkedBudget(options.memoryBudget);
  const limits = options.limits ?? DEFAULT_KERNEL_LIMITS;
  const maxInputs = options.maxPointwiseInputs ?? Math.max(1, Math.min(MAX_DEFAULT_POINTWISE_INPUTS, limits.maxStorageBuffersPerShaderStage - 1));
  const maxBindings = Math.max(maxInputs + 1, limits.maxStorageBuffersPerShaderStage);
  const analysis = new TensorAnalysis({ maxPointwiseInputs: maxInputs, maxBindings, maxBindingBytes: limits.maxStorageBufferBindingSize });
  const loaded = graphToEGraph(graph, analysis);
  const loadMs = now2() - start;
  const { egraph } = loaded;
  const passes = runPasses(loaded, selectPasses(options), options, Math.max(1e3, 8 * graph.nodes.length));
  const run = combineReports(passes);
  const boundaries = new Set(options.customKernelOps ?? []);
  const cost = withKernelBoundaries(tensorCost(egraph, costDefaults(options.cost, limits)), egraph, boundaries);
  const t0 = now2();
  let extraction = extractWithLate(egraph, cost, loaded.roots, { improvePasses: 2, maxEvaluations: 2e4, ...options.extract });
  let order;
  let memory;
  if (budget !== void 0) {
    const fitted = fitMemoryBudget(egraph, extraction.choices, stepEnds(loaded, graph), cost, budget);
    memory = fitted.fit;
    if (fitted.choices) extraction = { ...extraction, choices: fitted.choices };
    order = fitted.order;
  }
  const extractMs = now2() - t0;
  if (debugLevel() >= 4) writeDebug(`extraction ${Math.round(extractMs)} ms`);
  analysis.settle(egraph);
  const t1 = now2();
  const { graph: out2, classOfNode } = egraphToGraph(loaded, extraction, graph, order);
  const rebuildGraphMs = now2() - t1;
  const level = debugLevel();
  const report = new OptimizeReport({
    run,
    passes,
    phases: { loadMs, runMs: run.totalTimeMs, extractMs, rebuildGraphMs },
    before: graphFigures(graph),
    after: graphFigures(out2),
    kernels: kernelsOf(out2, (id) => {
      const cls = classOfNode.get(id);
      return analysis.rulesOf(egraph, cls, extraction.choices.get(egraph.find(cls)));
    }),
    cost: extraction.cost,
    search: extraction.search,
    totalTimeMs: now2() - start,
    dot: level >= 3 ? egraphToDot(egraph, extraction) : void 0,
    customKernelOps: [...boundaries].sort(),
    memory
  });
  if (level >= 1) writeDebug(level >= 2 ? report.format() : report.summary());
  if (level >= 3 && report.dot) writeDebug(report.dot);
  return { graph: out2, report };
}
var perf3 = globalThis.performance;
var now2 = () => perf3 ? perf3.now() : Date.now();

// packages/wgsl-kernels/src/kernel.ts
var DEFAULT_CAPS = {
  maxComputeInvocationsPerWorkgroup: 128,
  maxComputeWorkgroupSizeX: 128,
  maxComputeWorkgroupSizeY: 128,
  maxComputeWorkgroupsPerDimension: 65535,
  maxStorageBuffersPerShaderStage: 4,
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
  maxComputeWorkgroupStorageSize: 16384,
  subgroups: false,
  shaderF16: false
};
function capsOf(device2) {
  const l = device2.limits;
  return {
    maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
    maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
    maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
    maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
    maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
    subgroups: device2.features.has("subgroups"),
    shaderF16: device2.features.has("shader-f16")
  };
}
function isSpecOf(spec, ...ops) {
  return ops.includes(spec.node.op);
}
var EMPTY_PLAN = Object.freeze({ dispatches: Object.freeze([]), scratch: Object.freeze([]) });
var KernelError = class extends Error {
  name = "KernelError";
};

// packages/wgsl-kernels/src/scalarOps.ts
var HELPERS = {
  pow_js: `// a ** b as JS computes it for finite inputs: sign for integer exponents of a negative base, NaN otherwise.
fn pow_js(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return 1.0; }
  let m = exp2(b * log2(abs(a)));
  if (a < 0.0) {
    if (trunc(b) != b) { return bitcast<f32>(0x7fc00000u | (bitcast<u32>(b) & 0u)); }
    let odd = abs(b) < 16777216.0 && (abs(b) % 2.0) == 1.0;
    return select(m, -m, odd);
  }
  return m;
}`,
  lowbias32: `fn lowbias32(x: u32) -> u32 {
  var h = x;
  h = h ^ (h >> 16u);
  h = h * 0x7feb352du;
  h = h ^ (h >> 15u);
  h = h * 0x846ca68bu;
  h = h ^ (h >> 16u);
  return h;
}`
};
function emitHelpers(used) {
  return Object.keys(HELPERS).filter((h) => used.has(h)).map((h) => HELPERS[h]).join("\n\n");
}
function erfF32(x) {
  const t = `(1.0 / (1.0 + 0.3275911 * abs(${x})))`;
  const poly = `(0.254829592 + ${t} * (-0.284496736 + ${t} * (1.421413741 + ${t} * (-1.453152027 + ${t} * 1.061405429))))`;
  return `(sign(${x}) * (1.0 - ${t} * ${poly} * exp(-(${x} * ${x}))))`;
}
function unaryF32(op, x) {
  switch (op) {
    case "neg":
      return `(-${x})`;
    case "abs":
      return `abs(${x})`;
    case "exp":
      return `exp(${x})`;
    case "log":
      return `log(${x})`;
    case "sqrt":
      return `sqrt(${x})`;
    case "rsqrt":
      return `(1.0 / sqrt(${x}))`;
    // 1/sqrt keeps JS's +inf at 0, which inverseSqrt leaves indeterminate
    case "recip":
      return `(1.0 / ${x})`;
    case "square":
      return `(${x} * ${x})`;
    case "relu":
      return `select(0.0, ${x}, ${x} > 0.0)`;
    case "sigmoid":
      return `(1.0 / (1.0 + exp(-${x})))`;
    case "tanh":
      return `tanh(clamp(${x}, -10.0, 10.0))`;
    case "sin":
      return `sin(${x})`;
    case "cos":
      return `cos(${x})`;
    case "erf":
      return erfF32(x);
    case "gelu":
      return `(0.5 * ${x} * (1.0 + ${erfF32(`(${x} * 0.70710678)`)}))`;
    case "geluTanh":
      return `(0.5 * ${x} * (1.0 + tanh(clamp(0.7978845608 * (${x} + 0.044715 * ${x} * ${x} * ${x}), -10.0, 10.0))))`;
    case "silu":
      return `(${x} / (1.0 + exp(-${x})))`;
    case "softplus":
      return `(max(${x}, 0.0) + log(1.0 + exp(-abs(${x}))))`;
    // stable: never exponentiates a positive number
    default:
      return op;
  }
}
var CMP = { gt: ">", ge: ">=", lt: "<", le: "<=", eq: "==" };
function compareExpr(op, a, b) {
  const c = CMP[op];
  return c ? `(${a} ${c} ${b})` : void 0;
}
function binaryF32(op, a, b) {
  return binaryOf("f32", op, a, b);
}
function binaryI32(op, a, b) {
  return binaryOf("i32", op, a, b);
}
function binaryOf(ty, op, a, b) {
  switch (op) {
    case "add":
      return `(${a} + ${b})`;
    case "sub":
      return `(${a} - ${b})`;
    case "mul":
      return `(${a} * ${b})`;
    case "div":
      return ty === "f32" ? `(${a} / ${b})` : `select(${a} / ${b}, 0i, ${b} == 0i)`;
    case "max":
      return `max(${a}, ${b})`;
    case "min":
      return `min(${a}, ${b})`;
    case "pow":
      return ty === "f32" ? `pow_js(${a}, ${b})` : `i32(pow_js(f32(${a}), f32(${b})))`;
    case "gt":
    case "ge":
    case "lt":
    case "le":
    case "eq":
      return ty === "f32" ? `select(0.0, 1.0, ${compareExpr(op, a, b)})` : `select(0i, 1i, ${compareExpr(op, a, b)})`;
    default:
      return op;
  }
}
function castF32(x, to) {
  switch (to) {
    case "f32":
      return x;
    case "i32":
      return `trunc(${x})`;
    case "bool":
      return `select(0.0, 1.0, ${x} != 0.0)`;
    default:
      return to;
  }
}
function castStorage(x, from, to) {
  if (from === to) return x;
  switch (to) {
    case "f32":
      return `f32(${x})`;
    case "i32":
      return from === "f32" ? `i32(${x})` : x;
    // WGSL i32(f32) truncates toward zero (clamping out of range)
    case "bool":
      return from === "f32" ? `select(0i, 1i, ${x} != 0.0)` : `select(0i, 1i, ${x} != 0i)`;
    default:
      return to;
  }
}

// packages/wgsl-kernels/src/wgsl.ts
function wgslType(dtype) {
  switch (dtype) {
    case "f32":
      return "f32";
    case "i32":
    case "bool":
      return "i32";
    default:
      return dtype;
  }
}
function f32Lit(x) {
  const v = Math.fround(x);
  if (!Number.isFinite(v)) throw new KernelError(`cannot write ${x} as a WGSL f32 literal (not finite in float32)`);
  if (Object.is(v, -0)) return "-0.0";
  let s = String(v);
  if (Math.fround(Number(s)) !== v) s = v.toPrecision(9);
  if (!/[.eE]/.test(s)) s += ".0";
  return s;
}
function u32Lit(x) {
  if (!Number.isInteger(x) || x < 0 || x > 4294967295) throw new KernelError(`index constant ${x} does not fit in u32`);
  return `${x}u`;
}
function declareBindings(bindings, names, elements = []) {
  return bindings.map((b, i) => {
    const access = b.access === "read" ? "read" : "read_write";
    return `@group(0) @binding(${i}) var<storage, ${access}> ${names[i]}: array<${elements[i] ?? wgslType(b.dtype)}>;`;
  }).join("\n");
}
function dims(shape) {
  return shape.length === 0 ? "scalar" : shape.join("x");
}
function labelOf(node, extra) {
  return `${node.op}[${extra ?? dims(node.shape)}]`;
}
function describeSpec(spec) {
  const ins = spec.inputs.map((t) => `${fmtShape(t.shape)}:${t.dtype}`).join(", ");
  return `${ins || "no operands"} -> ${fmtShape(spec.node.shape)}:${spec.node.dtype}`;
}
function header(spec, strategy) {
  return `// neura kernel: ${spec.node.op} ${describeSpec(spec)}
// ${strategy}
`;
}
function kernelError(spec, why) {
  throw new KernelError(`${spec.node.op} (${describeSpec(spec)}): ${why}`);
}
function bytesOf(t) {
  return numel(t.shape) * 4;
}
function floorPow2(n2) {
  let p = 1;
  while (p * 2 <= n2) p *= 2;
  return p;
}
function linearWorkgroupSize(caps, preferred = 256) {
  return floorPow2(Math.max(1, Math.min(preferred, caps.maxComputeInvocationsPerWorkgroup, caps.maxComputeWorkgroupSizeX)));
}
function linearGrid(spec, count, caps) {
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (count <= max) return { grid: [Math.max(count, 0), 1, 1], index: "wid.x" };
  const gy = Math.ceil(count / max);
  if (gy > max)
    kernelError(spec, `needs ${count} workgroups, more than maxComputeWorkgroupsPerDimension\xB2 (device value ${max})`);
  const gx = Math.ceil(count / gy);
  return { grid: [gx, gy, 1], index: `(wid.x + wid.y * ${u32Lit(gx)})` };
}
function checkWorkgroupMemory(spec, bytes, caps) {
  if (bytes > caps.maxComputeWorkgroupStorageSize)
    kernelError(spec, `needs ${bytes} bytes of workgroup memory, more than maxComputeWorkgroupStorageSize (device value ${caps.maxComputeWorkgroupStorageSize})`);
}
function indexMath(lin, shape, strides, names, prefix = "c") {
  const lines = [];
  const terms = names.map(() => []);
  const rank = shape.length;
  let rem = lin;
  for (let ax = rank - 1; ax >= 0; ax--) {
    const c = `${prefix}${ax}`;
    const used = strides.some((s) => s[ax] !== 0);
    if (ax === 0) {
      if (used) lines.push(`let ${c} = ${rem};`);
    } else {
      if (used) lines.push(`let ${c} = ${rem} % ${u32Lit(shape[ax])};`);
      const next = `${prefix}r${ax}`;
      lines.push(`let ${next} = ${rem} / ${u32Lit(shape[ax])};`);
      rem = next;
    }
    strides.forEach((s, j) => {
      if (s[ax] === 1) terms[j].push(c);
      else if (s[ax] !== 0) terms[j].push(`${c} * ${u32Lit(s[ax])}`);
    });
  }
  names.forEach((n2, j) => {
    lines.push(`let ${n2} = ${terms[j].length ? terms[j].reverse().join(" + ") : "0u"};`);
  });
  return lines.join("\n");
}
function collapseAxes(shape, strides) {
  const outShape = [];
  const outStrides = strides.map(() => []);
  for (let ax = 0; ax < shape.length; ax++) {
    if (shape[ax] === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strides.every((s, j) => outStrides[j][last] === s[ax] * shape[ax])) {
      outShape[last] *= shape[ax];
      strides.forEach((s, j) => {
        outStrides[j][last] = s[ax];
      });
    } else {
      outShape.push(shape[ax]);
      strides.forEach((s, j) => {
        outStrides[j].push(s[ax]);
      });
    }
  }
  return { shape: outShape, strides: outStrides };
}
function indent(code, by = 2) {
  const pad = " ".repeat(by);
  return code.split("\n").map((l) => l ? pad + l : l).join("\n");
}
function workgroupReduceFns(wg, which) {
  const fns = which.map((w2) => {
    const combine = w2 === "sum" ? "red[lid] + red[lid + s]" : `${w2}(red[lid], red[lid + s])`;
    return `fn wg_${w2}(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = ${u32Lit(wg / 2)}; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = ${combine}; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}`;
  });
  return `var<workgroup> red: array<f32, ${wg}>;

${fns.join("\n\n")}`;
}
function ceilPow2(n2) {
  let p = 1;
  while (p < n2) p *= 2;
  return p;
}

// packages/wgsl-kernels/src/pointwise.ts
var POW_UNROLL_LIMIT = 8;
function emitPwExpr(e, input, runtimeZero = "(o & 0u)") {
  const keys = /* @__PURE__ */ new WeakMap();
  const names = /* @__PURE__ */ new Map();
  const lines = [];
  const loaded = /* @__PURE__ */ new Map();
  let ops = 0;
  const interned = /* @__PURE__ */ new Map();
  const keyOf2 = (x) => {
    const hit = keys.get(x);
    if (hit !== void 0) return hit;
    let k;
    switch (x.op) {
      case "in":
        k = `$${x.index}`;
        break;
      case "const":
        k = `#${Object.is(x.value, -0) ? "-0" : String(Math.fround(x.value))}`;
        break;
      case "where":
        k = `where ${keyOf2(x.c)} ${keyOf2(x.a)} ${keyOf2(x.b)}`;
        break;
      case "cast":
        k = `cast:${x.to} ${keyOf2(x.a)}`;
        break;
      default:
        k = "b" in x ? `${x.op} ${keyOf2(x.a)} ${keyOf2(x.b)}` : `${x.op} ${keyOf2(x.a)}`;
    }
    let id = interned.get(k);
    if (id === void 0) {
      id = `@${interned.size}`;
      interned.set(k, id);
    }
    keys.set(x, id);
    return id;
  };
  const constant = (value) => {
    const v = Math.fround(value);
    if (Number.isFinite(v)) return f32Lit(v);
    const bits = Number.isNaN(v) ? "0x7fc00000u" : v > 0 ? "0x7f800000u" : "0xff800000u";
    return `bitcast<f32>(${bits} | ${runtimeZero})`;
  };
  const visit = (x) => {
    if (x.op === "in") {
      let v = loaded.get(x.index);
      if (v === void 0) {
        v = input(x.index);
        loaded.set(x.index, v);
      }
      return v;
    }
    if (x.op === "const") return constant(x.value);
    const key = keyOf2(x);
    const hit = names.get(key);
    if (hit !== void 0) return hit;
    let rhs;
    switch (x.op) {
      case "where":
        rhs = `select(${visit(x.b)}, ${visit(x.a)}, ${visit(x.c)} != 0.0)`;
        break;
      case "cast":
        rhs = castF32(visit(x.a), x.to);
        break;
      default:
        if ("b" in x) {
          const a = visit(x.a);
          if (x.op === "pow" && x.b.op === "const" && Number.isInteger(x.b.value) && Math.abs(x.b.value) <= POW_UNROLL_LIMIT) {
            const c = x.b.value;
            const prod = c === 0 ? "1.0" : `(${new Array(Math.abs(c)).fill(a).join(" * ")})`;
            rhs = c < 0 ? `(1.0 / ${prod})` : prod;
          } else rhs = binaryF32(x.op, a, visit(x.b));
        } else rhs = unaryF32(x.op, visit(x.a));
    }
    const name = `t${names.size}`;
    names.set(key, name);
    lines.push(`let ${name} = ${rhs};`);
    ops++;
    return name;
  };
  const result = visit(e);
  return { code: lines.join("\n"), result, ops };
}

// packages/wgsl-kernels/src/shader.ts
function inputVar(spec, index, name, access = "read") {
  return { name, binding: { source: { kind: "input", index }, access, dtype: spec.inputs[index].dtype } };
}
function outputVar(spec, name = "y", o = {}) {
  const source = o.index === void 0 ? { kind: "output" } : { kind: "output", index: o.index };
  return { name, binding: { source, access: "read_write", dtype: spec.node.dtype }, element: o.element };
}
function scratchVar(index, name, access) {
  return { name, binding: { source: { kind: "scratch", index }, access, dtype: "f32" } };
}
function bindOperands(spec, operands, names) {
  const buffers = [];
  const byNode = /* @__PURE__ */ new Map();
  const nameOf = /* @__PURE__ */ new Map();
  operands.forEach((i, k) => {
    const id = spec.node.inputs[i];
    let n2 = byNode.get(id);
    if (n2 === void 0) {
      n2 = names[k];
      byNode.set(id, n2);
      buffers.push(inputVar(spec, i, n2));
    }
    nameOf.set(i, n2);
  });
  buffers.push(outputVar(spec));
  return { buffers, name: (i) => nameOf.get(i) ?? kernelError(spec, `operand ${i} is not bound`) };
}
var calls = (code, fn) => new RegExp(`\\b${fn}\\(`).test(code);
function shaderCode(spec, parts, wg) {
  const decls = parts.decls ?? [];
  const code = [...decls, parts.main].join("\n");
  const helpers = new Set(Object.keys(HELPERS).filter((h) => calls(code, h)));
  const trees = ["sum", "max", "min"].filter((w2) => calls(code, `wg_${w2}`));
  const moduleScope = [...decls, ...trees.length ? [workgroupReduceFns(wg, trees)] : []].join("\n");
  const bindings = declareBindings(
    parts.buffers.map((b) => b.binding),
    parts.buffers.map((b) => b.name),
    parts.buffers.map((b) => b.element)
  );
  return `${header(spec, parts.strategy)}${[bindings, emitHelpers(helpers), moduleScope, parts.main].filter(Boolean).join("\n\n")}`;
}
function shaderDispatch(spec, d) {
  const [x, y] = typeof d.workgroupSize === "number" ? [d.workgroupSize, 1] : d.workgroupSize;
  return { label: d.label ?? labelOf(spec.node), code: shaderCode(spec, d, x), bindings: d.buffers.map((b) => b.binding), workgroupSize: [x, y, 1], grid: d.grid };
}
function planOf(dispatches, scratch = []) {
  return { dispatches, scratch };
}
var WID_LID = "@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32";
function computeMain(size, params, body) {
  return `@compute @workgroup_size(${size})
fn main(${params}) {
${indent(body)}
}
`;
}
function perElementMain(wg, workgroupIndex, count, body, id = "o") {
  return computeMain(wg, WID_LID, `let ${id} = ${workgroupIndex} * ${u32Lit(wg)} + lid;
if (${id} >= ${count}) { return; }
${body}`);
}
function perWorkgroupMain(wg, workgroupIndex, count, body, id = "o") {
  return computeMain(wg, WID_LID, `let ${id} = ${workgroupIndex};
if (${id} >= ${count}) { return; }
${body}`);
}
function singleWorkgroupMain(wg, body) {
  return computeMain(wg, "@builtin(local_invocation_index) lid: u32", body);
}
function perElementDispatch(spec, caps, o) {
  const wg = linearWorkgroupSize(caps);
  const g = linearGrid(spec, Math.ceil(o.n / wg), caps);
  const decls = o.count ? [`const ${o.count} = ${u32Lit(o.n)};`, ...o.decls ?? []] : o.decls;
  return shaderDispatch(spec, { ...o, decls, main: perElementMain(wg, g.index, o.count ?? u32Lit(o.n), o.body), workgroupSize: wg, grid: g.grid });
}

// packages/wgsl-kernels/src/elementwise.ts
function elementwisePlan(spec, caps, strategy, emit) {
  const { node, inputs } = spec;
  const outShape = node.shape;
  const n2 = numel(outShape);
  const used = /* @__PURE__ */ new Set();
  const body = emit((i) => {
    if (i < 0 || i >= inputs.length) kernelError(spec, `the body reads operand ${i}, but there are ${inputs.length}`);
    used.add(i);
    return `v${i}`;
  });
  const k = spec.inPlace;
  if (k !== void 0) checkInPlace(spec, k, `inPlace operand ${k}`);
  const sorted = [...used].sort((a, b) => a - b);
  const groups = groupByNode(spec, k === void 0 || used.has(k) ? sorted : [...sorted, k]);
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`, k !== void 0 && g.includes(k) ? "read_write" : "read"));
  const out2 = k === void 0 ? outputVar(spec) : buffers[groups.findIndex((g) => g.includes(k))];
  if (k === void 0) buffers.push(out2);
  if (n2 === 0) return EMPTY_PLAN;
  const lines = operandLoads(inputs, groups, buffers.map((b) => b.name), used, outShape);
  if (body.code) lines.push(body.code);
  lines.push(`${out2.name}[o] = ${body.result};`);
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: n2, count: "N", body: lines.join("\n") })]);
}
function checkInPlace(spec, k, what) {
  const { inputs, node } = spec;
  if (!(k >= 0 && k < inputs.length)) kernelError(spec, `${what} does not exist`);
  if (!sameShape(inputs[k].shape, node.shape) || wgslType(inputs[k].dtype) !== wgslType(node.dtype))
    kernelError(spec, `${what} is ${fmtShape(inputs[k].shape)}:${inputs[k].dtype}, not the output's ${fmtShape(node.shape)}:${node.dtype}`);
}
function groupByNode(spec, operands) {
  const groups = [];
  const groupOf = /* @__PURE__ */ new Map();
  for (const i of new Set(operands)) {
    const id = spec.node.inputs[i];
    const g = groupOf.get(id);
    if (g === void 0) {
      groupOf.set(id, groups.length);
      groups.push([i]);
    } else groups[g].push(i);
  }
  return groups;
}
function operandLoads(inputs, groups, names, used, outShape) {
  const n2 = numel(outShape);
  const idx = [];
  const general = [];
  groups.forEach((g, gi) => {
    const shape = inputs[g[0]].shape;
    if (sameShape(shape, outShape) || numel(shape) === n2) idx.push("o");
    else if (numel(shape) === 1) idx.push("0u");
    else {
      idx.push(`i${g[0]}`);
      general.push({ g: gi, strides: broadcastStrides(shape, outShape) });
    }
  });
  const lines = [];
  if (general.length) {
    const c = collapseAxes(outShape, general.map((x) => x.strides));
    lines.push(indexMath("o", c.shape, c.strides, general.map((x) => idx[x.g])));
  }
  groups.forEach((g, gi) => {
    for (const i of g) if (used.has(i)) lines.push(`let v${i} = ${names[gi]}[${idx[gi]}];`);
  });
  return lines;
}
var f32Of = (v, dtype) => dtype === "f32" ? v : `f32(${v})`;
function unaryKernel(spec, caps) {
  const op = spec.node.op;
  if (!isUnary(op)) return kernelError(spec, "not a unary op");
  return elementwisePlan(spec, caps, `elementwise unary ${op}`, (load) => ({ code: "", result: unaryF32(op, load(0)) }));
}
function binaryKernel(spec, caps) {
  const op = spec.node.op;
  if (!isBinary(op)) return kernelError(spec, "not a binary op");
  const dtype = spec.inputs[0].dtype;
  return elementwisePlan(spec, caps, `elementwise binary ${op} (${dtype === "f32" ? "f32" : "i32"} arithmetic)`, (load) => {
    const a = load(0);
    const b = load(1);
    const cmp = compareExpr(op, a, b);
    let result;
    if (cmp) result = `select(0i, 1i, ${cmp})`;
    else if (dtype === "f32") result = binaryF32(op, a, b);
    else result = binaryI32(op, a, b);
    return { code: "", result };
  });
}
function whereKernel(spec, caps) {
  return elementwisePlan(spec, caps, "elementwise where", (load) => {
    const c = load(0);
    return { code: "", result: `select(${load(2)}, ${load(1)}, ${c} != 0i)` };
  });
}
function castKernel(spec, caps) {
  const from = spec.inputs[0].dtype;
  const to = spec.node.dtype;
  return elementwisePlan(spec, caps, `elementwise cast ${from} -> ${to}`, (load) => ({ code: "", result: castStorage(load(0), from, to) }));
}
function pointwiseKernel(spec, caps) {
  if (spec.node.op !== "pointwise") return kernelError(spec, "not a pointwise op");
  const { expr, dtype } = spec.node.attrs;
  return elementwisePlan(spec, caps, "fused pointwise expression (f32 arithmetic, one let per distinct subexpression)", (load) => {
    const e = emitPwExpr(expr, (i) => f32Of(load(i), spec.inputs[i].dtype));
    return { code: e.code, result: castStorage(e.result, "f32", dtype) };
  });
}

// packages/wgsl-kernels/src/pointwiseMulti.ts
var f32Of2 = (v, dtype) => dtype === "f32" ? v : `f32(${v})`;
function readsOf(e, into) {
  switch (e.op) {
    case "in":
      into.add(e.index);
      return;
    case "const":
      return;
    case "where":
      readsOf(e.c, into);
      readsOf(e.a, into);
      readsOf(e.b, into);
      return;
    default:
      readsOf(e.a, into);
      if ("b" in e) readsOf(e.b, into);
  }
}
function pointwiseMultiKernel(spec, caps) {
  const { node, inputs } = spec;
  const { exprs, dtype } = node.attrs;
  const targets = spec.results ?? exprs.map(() => "buffer");
  if (targets.length !== exprs.length) kernelError(spec, `results names ${targets.length} targets for ${exprs.length} expressions`);
  const outShape = node.shape;
  const n2 = numel(outShape);
  const used = /* @__PURE__ */ new Set();
  exprs.forEach((e, j) => {
    if (targets[j] !== "unused") readsOf(e, used);
  });
  const inPlaceOf = /* @__PURE__ */ new Map();
  targets.forEach((t, j) => {
    if (typeof t !== "object") return;
    const k = t.inPlace;
    checkInPlace(spec, k, `result ${j} in place through operand ${k}`);
    const other = [...inPlaceOf].find(([kk]) => node.inputs[kk] === node.inputs[k]);
    if (other) kernelError(spec, `results ${other[1]} and ${j} are both in place through operand ${k}`);
    inPlaceOf.set(k, j);
  });
  const groups = groupByNode(spec, [.../* @__PURE__ */ new Set([...used, ...inPlaceOf.keys()])].sort((a, b) => a - b));
  const resultName = /* @__PURE__ */ new Map();
  const buffers = groups.map((g) => {
    const writer = g.find((i) => inPlaceOf.has(i));
    if (writer !== void 0) resultName.set(inPlaceOf.get(writer), `x${g[0]}`);
    return inputVar(spec, g[0], `x${g[0]}`, writer !== void 0 ? "read_write" : "read");
  });
  targets.forEach((t, j) => {
    if (t !== "buffer") return;
    buffers.push(outputVar(spec, `y${j}`, { index: j }));
    resultName.set(j, `y${j}`);
  });
  if (n2 === 0 || resultName.size === 0) return EMPTY_PLAN;
  const lines = operandLoads(inputs, groups, buffers.map((b) => b.name), used, outShape);
  const results = [];
  exprs.forEach((e, j) => {
    const name = resultName.get(j);
    if (!name) return;
    const em = emitPwExpr(e, (i) => f32Of2(`v${i}`, inputs[i].dtype));
    lines.push(`var r${j}: ${wgslType(dtype)};`, `{
${indent(`${em.code ? `${em.code}
` : ""}r${j} = ${castStorage(em.result, "f32", dtype)};`)}
}`);
    results.push(`${name}[o] = r${j};`);
  });
  lines.push(...results);
  const strategy = `pointwise with ${exprs.length} results (${targets.map((t) => typeof t === "object" ? `in place via operand ${t.inPlace}` : t).join(", ")})`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: n2, count: "N", body: lines.join("\n") })]);
}

// packages/wgsl-kernels/src/pointwiseMultiTensor.ts
var tableStride = (roles, partials = false) => 2 + roles + (partials ? 1 : 0);
function multiTensorTable(node, offsets) {
  const { shapes, partials } = node.attrs;
  const roles = groupOperands(node).roles;
  const stride = tableStride(roles, partials !== void 0);
  const t = new Uint32Array(shapes.length * stride);
  let first = 0;
  shapes.forEach((s, g) => {
    const at = g * stride;
    t[at] = first;
    t[at + 1] = numel(s);
    for (let k = 0; k < roles; k++) t[at + 2 + k] = offsets[g][k];
    if (partials) t[at + 2 + roles] = partials.splits[g];
    first += numel(s);
  });
  return t;
}
function rolesWritten(spec, targets) {
  const { shared, roles } = groupOperands(spec.node);
  const R = spec.node.attrs.exprs.length;
  const out2 = [];
  for (let j = 0; j < targets.length; j++) {
    const t = targets[j];
    if (typeof t !== "object") return `result ${j} is not written in place`;
    const g = Math.floor(j / R);
    const k = t.inPlace - shared - g * roles;
    if (!(k >= 0 && k < roles)) return `result ${j} is written through operand ${t.inPlace}, not one of its group`;
    const r = j % R;
    if (g === 0) out2.push(k);
    else if (out2[r] !== k) return `result ${j} is written through role ${k}, group 0's through role ${out2[r]}`;
  }
  if (new Set(out2).size !== out2.length) return "two results are written through one role";
  return out2;
}
function pointwiseMultiTensorKernel(spec, caps) {
  const { node, inputs } = spec;
  const { exprs, dtype, shapes } = node.attrs;
  const { shared, roles } = groupOperands(node);
  const R = exprs.length;
  const targets = spec.results ?? shapes.flatMap(() => exprs.map(() => "buffer"));
  if (targets.length !== shapes.length * R) kernelError(spec, `results names ${targets.length} targets for ${shapes.length * R} results`);
  if (!spec.arenas) return splitPlan(spec, targets, caps);
  const written2 = rolesWritten(spec, targets);
  if (typeof written2 === "string") kernelError(spec, `the arena form writes every result in place: ${written2}`);
  const P = node.attrs.partials;
  if (P && written2.includes(P.role)) kernelError(spec, `role ${P.role} is read as split-K partials and cannot be written in place`);
  if (dtype !== "f32" || inputs.some((t) => t.dtype !== "f32")) kernelError(spec, "the arena form is f32 only");
  const total = shapes.reduce((s, sh) => s + numel(sh), 0);
  if (total === 0) return EMPTY_PLAN;
  const buffers = [];
  for (let i = 0; i < shared; i++) {
    if (numel(inputs[i].shape) !== 1) kernelError(spec, `shared operand ${i} has ${numel(inputs[i].shape)} elements, not 1`);
    buffers.push(inputVar(spec, i, `s${i}`));
  }
  for (let k = 0; k < roles; k++)
    buffers.push({ name: `a${k}`, binding: { source: { kind: "arena", role: k }, access: written2.includes(k) ? "read_write" : "read", dtype } });
  const stride = tableStride(roles, P !== void 0);
  buffers.push({ name: "tab", binding: { source: { kind: "table", words: shapes.length * stride }, access: "read", dtype: "i32" }, element: "u32" });
  const lines = [
    // the group of element o: the last one whose first index is ≤ o
    `var lo = 0u;
var hi = ${u32Lit(shapes.length - 1)};`,
    `while (lo < hi) {
  let mid = (lo + hi + 1u) / 2u;
  if (tab[mid * ${u32Lit(stride)}] <= o) { lo = mid; } else { hi = mid - 1u; }
}`,
    `let row = lo * ${u32Lit(stride)};`,
    "let e = o - tab[row];"
  ];
  for (let i = 0; i < shared; i++) lines.push(`let v${i} = s${i}[0];`);
  for (let k = 0; k < roles; k++) {
    lines.push(`let p${k} = tab[row + ${u32Lit(2 + k)}] + e;`);
    if (P?.role === k) lines.push(`var v${shared + k} = a${k}[p${k}];`, `for (var s = 1u; s < tab[row + ${u32Lit(2 + roles)}]; s = s + 1u) { v${shared + k} = v${shared + k} + a${k}[p${k} + s * tab[row + 1u]]; }`);
    else lines.push(`let v${shared + k} = a${k}[p${k}];`);
  }
  const stores = [];
  exprs.forEach((e, r) => {
    const em = emitPwExpr(e, (i) => `v${i}`);
    lines.push(`var r${r}: ${wgslType(dtype)};`, `{
${indent(`${em.code ? `${em.code}
` : ""}r${r} = ${castStorage(em.result, "f32", dtype)};`)}
}`);
    stores.push(`a${written2[r]}[p${written2[r]}] = r${r};`);
  });
  lines.push(...stores);
  const strategy = `multi-tensor pointwise: ${shapes.length} groups x ${R} results in place, roles in one buffer each, group by binary search${P ? `, role ${P.role} summed over split-K partials` : ""}`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: total, count: "N", body: lines.join("\n") })]);
}
function splitPlan(spec, targets, caps) {
  const { node, inputs } = spec;
  const { exprs, dtype, shapes } = node.attrs;
  const { shared, roles } = groupOperands(node);
  const R = exprs.length;
  const operand = (g, j) => j < shared ? j : shared + g * roles + (j - shared);
  const P = node.attrs.partials;
  const scratch = [];
  const dispatches = shapes.flatMap((shape, g) => {
    const ops = Array.from({ length: shared + roles }, (_, j) => operand(g, j));
    const S = P && P.splits[g] > 1 ? P.splits[g] : 0;
    const summed = S ? operand(g, shared + P.role) : -1;
    const pre = S ? [sumPartials(spec, summed, S, numel(shape), scratch.push(numel(shape) * 4) - 1, g, caps)] : [];
    const sub = { id: node.id, op: "pointwiseMulti", inputs: ops.map((o) => node.inputs[o]), attrs: { exprs, dtype }, shape, dtype, site: node.site };
    const results = exprs.map((_, r) => {
      const t = targets[g * R + r];
      return typeof t === "object" ? { inPlace: ops.indexOf(t.inPlace) } : t;
    });
    const plan = pointwiseMultiKernel({ node: sub, inputs: ops.map((o) => o === summed ? { shape, dtype: inputs[o].dtype } : inputs[o]), results }, caps);
    return [...pre, ...plan.dispatches.map((d) => ({
      ...d,
      label: `${d.label}.g${g}`,
      bindings: d.bindings.map((b) => {
        const s = b.source;
        if (s.kind === "input" && ops[s.index] === summed) return { ...b, source: { kind: "scratch", index: scratch.length - 1 } };
        if (s.kind === "input") return { ...b, source: { kind: "input", index: ops[s.index] } };
        if (s.kind === "output") return { ...b, source: { kind: "output", index: g * R + (s.index ?? 0) } };
        return b;
      })
    }))];
  });
  return planOf(dispatches, scratch);
}
function sumPartials(spec, index, S, n2, into, g, caps) {
  const buffers = [inputVar(spec, index, "x"), scratchVar(into, "y", "read_write")];
  const body = `var v = x[o];
for (var s = 1u; s < ${u32Lit(S)}; s = s + 1u) { v = v + x[s * N + o]; }
y[o] = v;`;
  const d = perElementDispatch(spec, caps, { strategy: `group ${g}'s ${S} split-K partials summed`, buffers, n: n2, count: "N", body });
  return { ...d, label: `${d.label}.g${g}:sum` };
}

// packages/wgsl-kernels/src/reduce.ts
var ROW_CHUNK = 4096;
var nonEmptyChunks = (len, chunks2) => Math.ceil(len / Math.ceil(len / chunks2));
var treeOf = (kind) => kind === "reduceMax" ? "max" : kind === "reduceMin" ? "min" : "sum";
var combineOf = (kind) => (acc, v) => kind === "reduceMax" ? `max(${acc}, ${v})` : kind === "reduceMin" ? `min(${acc}, ${v})` : `${acc} + ${v}`;
function rowsDispatch(spec, caps, kind, o) {
  const chunkLen = Math.ceil(o.rowLen / o.chunks);
  const wg = Math.min(linearWorkgroupSize(caps), Math.max(32, ceilPow2(Math.ceil(chunkLen / 8))), ceilPow2(chunkLen));
  const g = linearGrid(spec, o.rows * o.chunks, caps);
  const { read, dst } = o;
  const combine = combineOf(kind);
  const span = o.chunks === 1 ? `let base = w * ${u32Lit(o.rowLen)};
let end = base + ${u32Lit(o.rowLen)};` : `let base = (w / ${u32Lit(o.chunks)}) * ${u32Lit(o.rowLen)} + (w % ${u32Lit(o.chunks)}) * ${u32Lit(chunkLen)};
let end = min(base + ${u32Lit(chunkLen)}, (w / ${u32Lit(o.chunks)} + 1u) * ${u32Lit(o.rowLen)});`;
  const body = `${span}
var acc = ${kind === "reduceMax" || kind === "reduceMin" ? read("base") : "0.0"};
for (var j = base + lid; j < end; j = j + ${u32Lit(wg)}) { acc = ${combine("acc", read("j"))}; }
let total = wg_${treeOf(kind)}(acc, lid);
${o.store ? `if (lid == 0u) {
${indent(o.store("w", "total"))}
}` : `if (lid == 0u) { ${dst}[w] = ${o.finish("total")}; }`}`;
  const main = perWorkgroupMain(wg, g.index, "ROWS", body, "w");
  const decls = [`const ROWS = ${u32Lit(o.rows * o.chunks)};`, ...o.decls ?? []];
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls, main, workgroupSize: wg, grid: g.grid });
}
function columnPartialsDispatch(spec, caps, kind, o) {
  const reads = o.reads ?? [o.source.read];
  const w2 = o.source.plain && reads.length === 1 && o.cols % 4 === 0 ? 4 : 1;
  const ty = w2 === 4 ? "vec4<f32>" : "f32";
  const units = o.cols / w2;
  const wg = linearWorkgroupSize(caps);
  const threads = units * o.chunks;
  const g = linearGrid(spec, Math.ceil(threads / wg), caps);
  const ch = Math.ceil(o.rows / o.chunks);
  const combine = combineOf(kind);
  const at = (row) => `${row} * ${u32Lit(units)} + o4`;
  const zero = kind === "sum" || kind === "mean";
  const member = (j, read) => {
    const r = w2 === 4 ? (i) => `x[${i}]` : read;
    const a = (q) => reads.length === 1 ? `a${q}` : `a${j}_${q}`;
    return {
      init: `var ${a(0)} = ${r(at("i0"))};
${zero ? `var ${a(1)} = ${ty}(); var ${a(2)} = ${ty}(); var ${a(3)} = ${ty}();` : `var ${a(1)} = ${a(0)}; var ${a(2)} = ${a(0)}; var ${a(3)} = ${a(0)};`}`,
      step4: [0, 1, 2, 3].map((q) => `  ${a(q)} = ${combine(a(q), r(at(q === 0 ? "i" : `(i + ${q}u)`)))};`).join("\n"),
      step1: `${a(0)} = ${combine(a(0), r(at("i")))};`,
      acc: combine(combine(a(0), a(1)), combine(a(2), a(3)))
    };
  };
  const ms = reads.map((r, j) => member(j, r));
  const base = (j) => j === 0 ? "" : `${u32Lit(j * o.cols)} + `;
  const acc = (j) => reads.length === 1 ? "acc" : `acc${j}`;
  const stores = w2 === 4 ? ["x", "y", "z", "w"].map((c, q) => `part[(o4 * 4u + ${u32Lit(q)}) * ${u32Lit(o.chunks)} + p] = acc.${c};`).join(" ") : ms.map((_, j) => `part[${j === 0 ? "o4" : `(${base(j)}o4)`} * ${u32Lit(o.chunks)} + p] = ${acc(j)};`).join("\n");
  const body = `let o4 = t % ${u32Lit(units)};
let p = t / ${u32Lit(units)};
let i0 = p * ${u32Lit(ch)};
let i1 = min(i0 + ${u32Lit(ch)}, ${u32Lit(o.rows)});
${ms.map((m) => m.init).join("\n")}
var i = i0 + 1u;
for (; i + 3u < i1; i = i + 4u) {
${ms.map((m) => m.step4).join("\n")}
}
for (; i < i1; i = i + 1u) { ${ms.map((m) => m.step1).join(" ")} }
${ms.map((m, j) => `let ${acc(j)} = ${m.acc};`).join("\n")}
${stores}`;
  const inputs = w2 === 4 ? o.source.buffers.map((b) => ({ ...b, element: ty })) : o.source.buffers;
  return shaderDispatch(spec, {
    label: o.label,
    strategy: `columns, pass 1 of 2: a thread per (${w2 === 4 ? "vec4 of outputs" : "output"}, chunk of ${ch} rows), ${o.chunks} chunks, four loads in flight${reads.length > 1 ? ` for each of ${reads.length} reductions` : ""}, partials transposed into scratch`,
    buffers: [...inputs, o.part],
    decls: o.source.decls,
    main: perElementMain(wg, g.index, u32Lit(threads), body, "t"),
    workgroupSize: wg,
    grid: g.grid
  });
}
var COLUMN_STRIPS = { strip: COLUMN_STRIP, threads: 1024 };
function columnStripsDispatch(spec, caps, kind, o) {
  const k = o.members.length;
  const vec = o.plain && k === 1 && o.cols % 4 === 0 && o.cfg.strip % 4 === 0;
  const ty = vec ? "vec4<f32>" : "f32";
  const lanes = vec ? o.cfg.strip / 4 : o.cfg.strip;
  const units = vec ? o.cols / 4 : o.cols;
  const limit = linearWorkgroupSize(caps, o.cfg.threads);
  if (lanes > limit || ceilPow2(lanes) !== lanes) kernelError(spec, `column strips of ${o.cfg.strip} need a power-of-two lane count up to the workgroup size ${limit}`);
  let threads = Math.max(lanes, Math.min(limit, lanes * ceilPow2(o.rows)));
  while (threads > lanes && threads * k * (vec ? 16 : 4) > caps.maxComputeWorkgroupStorageSize) threads /= 2;
  checkWorkgroupMemory(spec, threads * k * (vec ? 16 : 4), caps);
  const rl = threads / lanes;
  const strips = Math.ceil(units / lanes);
  const g = linearGrid(spec, strips, caps);
  const combine = combineOf(kind);
  const zero = kind === "sum" || kind === "mean";
  const at = (row) => `${row} * ${u32Lit(units)} + c`;
  const readOf = (m) => vec ? (i) => `x[${i}]` : m.read;
  const lines = [];
  o.members.forEach((m, j) => {
    const r = readOf(m);
    const a = (q) => `a${j}_${q}`;
    const init = zero ? `${ty}()` : r(at("0u"));
    lines.push(`var ${a(0)} = ${init}; var ${a(1)} = ${a(0)}; var ${a(2)} = ${a(0)}; var ${a(3)} = ${a(0)};`);
  });
  const step4 = o.members.flatMap((m, j) => [0, 1, 2, 3].map((q) => `  a${j}_${q} = ${combine(`a${j}_${q}`, readOf(m)(at(q === 0 ? "r" : `(r + ${u32Lit(q * rl)})`)))};`));
  const step1 = o.members.map((m, j) => `a${j}_0 = ${combine(`a${j}_0`, readOf(m)(at("r")))};`);
  const slot = (j, off = "") => `strip[${j === 0 ? "" : `${u32Lit(j * threads)} + `}lid${off}]`;
  const stores = o.members.map(
    (m, j) => vec ? ["x", "y", "z", "w"].map((q, i) => `${m.out.name}[c * 4u + ${u32Lit(i)}] = ${m.finish(`v.${q}`)};`).join(" ") : `${m.out.name}[c] = ${m.finish(slot(j))};`
  );
  const body = `let lane = lid % ${u32Lit(lanes)};
let rl = lid / ${u32Lit(lanes)};
let u = s * ${u32Lit(lanes)} + lane;
let c = min(u, ${u32Lit(units - 1)});
${lines.join("\n")}
var r = rl;
for (; r + ${u32Lit(3 * rl)} < ${u32Lit(o.rows)}; r = r + ${u32Lit(4 * rl)}) {
${step4.join("\n")}
}
for (; r < ${u32Lit(o.rows)}; r = r + ${u32Lit(rl)}) { ${step1.join(" ")} }
${o.members.map((_, j) => `${slot(j)} = ${combine(combine(`a${j}_0`, `a${j}_1`), combine(`a${j}_2`, `a${j}_3`))};`).join("\n")}
workgroupBarrier();
for (var h = ${u32Lit(rl / 2)}; h > 0u; h = h >> 1u) {
  if (rl < h) {
${o.members.map((_, j) => `    ${slot(j)} = ${combine(slot(j), slot(j, ` + h * ${u32Lit(lanes)}`))};`).join("\n")}
  }
  workgroupBarrier();
}
if (rl == 0u && u < ${u32Lit(units)}) {
${vec ? `  let v = ${slot(0)};
` : ""}${stores.map((x) => `  ${x}`).join("\n")}
}`;
  const inputs = vec ? o.buffers.map((b) => ({ ...b, element: ty })) : o.buffers;
  return shaderDispatch(spec, {
    label: o.label,
    strategy: `columns, one pass: a workgroup per strip of ${o.cfg.strip} columns (${strips} strips, ${vec ? "vec4" : "scalar"} lanes) walks all ${o.rows} rows with ${rl} row lanes, four loads in flight, then a fixed tree${k > 1 ? `, ${k} reductions side by side` : ""}`,
    buffers: [...inputs, ...o.members.map((m) => m.out)],
    decls: [`var<workgroup> strip: array<${ty}, ${threads * k}>;`, ...o.decls],
    main: perWorkgroupMain(threads, g.index, u32Lit(strips), body, "s"),
    workgroupSize: threads,
    grid: g.grid
  });
}
function reduceKernel(spec, caps, columns = {}) {
  const { node } = spec;
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const source = { buffers: [buffers[0]], read: (i) => `x[${i}]`, decls: [], plain: true };
  return reducePlan(spec, caps, node.op, { shape: spec.inputs[0].shape, axes: node.attrs.axes, source, out: buffers[1], columns });
}
function columnsFormOf(shape, axes, columns) {
  const path = columnsPath(shape, axes);
  return path && columns?.form ? columns.form : path;
}
function reducePlan(spec, caps, kind, o) {
  const { node } = spec;
  const { axes, source } = o;
  const inShape = o.shape;
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * inShape[a], 1);
  if (R === 0) return EMPTY_PLAN;
  if (C === 0) kernelError(spec, "reduces over an empty axis");
  const merged = mergeReduceAxes(inShape, axes);
  const label = labelOf(node, `${inShape.join("x") || "scalar"}->${node.shape.join("x") || "scalar"}`);
  const combine = combineOf(kind);
  const post = o.finish?.apply ?? ((v) => v);
  const finish2 = (acc) => post(kind === "mean" ? `${acc} / ${f32Lit(C)}` : acc);
  const finishDecls = o.finish?.decls ?? [];
  const same = (acc) => acc;
  const pattern = merged.map((a) => a.reduced ? "r" : "k").join("");
  const y = o.out;
  const part = (access) => scratchVar(0, "part", access);
  const readPart = (i) => `part[${i}]`;
  const pass1 = { buffers: [...source.buffers, part("read_write")], read: source.read, dst: "part", decls: source.decls };
  const pass2 = { buffers: [part("read"), y], read: readPart, dst: y.name, decls: finishDecls };
  const split = reduceSplit(inShape, axes);
  const columns = columnsFormOf(inShape, axes, o.columns);
  if ((pattern === "kr" || pattern === "r") && C >= ROWS_PATH_MIN) {
    const chunks2 = split === "rows" ? nonEmptyChunks(C, Math.ceil(C / ROW_CHUNK)) : 1;
    if (chunks2 === 1) {
      const d = rowsDispatch(spec, caps, kind, {
        label,
        strategy: `rows: a workgroup per output reduces ${C} contiguous elements (tree in shared memory)`,
        buffers: [...source.buffers, y],
        read: source.read,
        dst: y.name,
        decls: [...source.decls, ...finishDecls],
        rows: R,
        rowLen: C,
        chunks: 1,
        finish: finish2
      });
      return planOf([d]);
    }
    const d1 = rowsDispatch(spec, caps, kind, { label: `${label}:partials`, strategy: `rows, pass 1 of 2: ${R}x${chunks2} workgroups each reduce a chunk of ${Math.ceil(C / chunks2)} into scratch`, ...pass1, rows: R, rowLen: C, chunks: chunks2, finish: same });
    const d2 = rowsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `rows, pass 2 of 2: a workgroup per output reduces its ${chunks2} partials`, ...pass2, rows: R, rowLen: chunks2, chunks: 1, finish: finish2 });
    return planOf([d1, d2], [R * chunks2 * 4]);
  }
  if (columns === "strips") {
    const d = columnStripsDispatch(spec, caps, kind, {
      label,
      buffers: source.buffers,
      decls: [...source.decls, ...finishDecls],
      plain: source.plain,
      members: [{ read: source.read, out: y, finish: finish2 }],
      cols: R,
      rows: C,
      cfg: o.columns?.strips ?? COLUMN_STRIPS
    });
    return planOf([d]);
  }
  if (columns === "split") {
    const chunks2 = nonEmptyChunks(C, Math.ceil(C / COLUMN_CHUNK));
    const d1 = columnPartialsDispatch(spec, caps, kind, { label: `${label}:partials`, source, part: part("read_write"), cols: R, rows: C, chunks: chunks2 });
    const d2 = rowsDispatch(spec, caps, kind, { label: `${label}:combine`, strategy: `columns, pass 2 of 2: a workgroup per output reduces its ${chunks2} contiguous partials (tree in shared memory)`, ...pass2, rows: R, rowLen: chunks2, chunks: 1, finish: finish2 });
    return planOf([d1, d2], [R * chunks2 * 4]);
  }
  if (split === "outerKeptInner") {
    const [A, K, B] = merged.map((a) => a.extent);
    const d1 = rowsDispatch(spec, caps, kind, { label: `${label}:rows`, strategy: `outer-kept-inner, pass 1 of 2: a workgroup per (outer, kept) reduces ${B} contiguous elements into scratch`, ...pass1, rows: A * K, rowLen: B, chunks: 1, finish: same });
    const wg2 = linearWorkgroupSize(caps, 64);
    const g2 = linearGrid(spec, Math.ceil(K / wg2), caps);
    const body2 = `var acc = part[o];
for (var i = 1u; i < ${u32Lit(A)}; i = i + 1u) { acc = ${combine("acc", `part[i * ${u32Lit(K)} + o]`)}; }
${y.name}[o] = ${finish2("acc")};`;
    const d2 = shaderDispatch(spec, {
      label: `${label}:combine`,
      strategy: `outer-kept-inner, pass 2 of 2: a thread per output walks its ${A} partials (stride ${K})`,
      buffers: pass2.buffers,
      decls: finishDecls,
      main: perElementMain(wg2, g2.index, u32Lit(K), body2),
      workgroupSize: wg2,
      grid: g2.grid
    });
    return planOf([d1, d2], [A * K * 4]);
  }
  const read = source.read;
  let body;
  let strategy;
  if (pattern === "rk") {
    strategy = `columns: a thread per output walks ${C} rows of stride ${R} (coalesced)`;
    body = `var acc = ${read("o")};
for (var i = 1u; i < ${u32Lit(C)}; i = i + 1u) { acc = ${combine("acc", read(`i * ${u32Lit(R)} + o`))}; }`;
  } else {
    strategy = `general: a thread per output loops over ${C} reduced elements by baked strides (merged axes ${pattern})`;
    const ext = merged.map((a) => a.extent);
    const str = new Array(ext.length);
    let acc = 1;
    for (let i = ext.length - 1; i >= 0; i--) {
      str[i] = acc;
      acc *= ext[i];
    }
    const kept = merged.map((a, i) => ({ ...a, stride: str[i] })).filter((a) => !a.reduced);
    const red = merged.map((a, i) => ({ ...a, stride: str[i] })).filter((a) => a.reduced);
    const outer = indexMath("o", kept.map((a) => a.extent), [kept.map((a) => a.stride)], ["base"], "k");
    const inner = red.length ? indexMath("j", red.map((a) => a.extent), [red.map((a) => a.stride)], ["off"], "q") : "let off = 0u;";
    body = `${outer}
var acc = ${read("base")};
for (var j = 1u; j < ${u32Lit(C)}; j = j + 1u) {
${indent(inner)}
  acc = ${combine("acc", read("base + off"))};
}`;
  }
  const decls = [...source.decls, ...finishDecls];
  return planOf([perElementDispatch(spec, caps, { label, strategy, buffers: [...source.buffers, y], n: R, count: "R", decls: decls.length ? decls : void 0, body: `${body}
${y.name}[o] = ${finish2("acc")};` })]);
}
function reduceMultiPlan(spec, caps, kind, o) {
  const { node } = spec;
  const { shape, axes } = o;
  const members = o.members.filter((m) => m.out !== void 0);
  const R = numel(node.shape);
  const C = axes.reduce((p, a) => p * shape[a], 1);
  if (R === 0 || members.length === 0) return EMPTY_PLAN;
  if (C === 0) kernelError(spec, "reduces over an empty axis");
  const columns = columnsFormOf(shape, axes, o.columns);
  if (columns === void 0) {
    const plans = members.map((m) => reducePlan(spec, caps, kind, { shape, axes, source: { buffers: o.buffers, read: m.read, decls: o.decls, plain: false }, out: m.out, finish: m.finish }));
    return planOf(
      plans.flatMap((p) => p.dispatches),
      [Math.max(0, ...plans.map((p) => p.scratch[0] ?? 0))].filter((b) => b > 0)
    );
  }
  const k = members.length;
  const label = labelOf(node, `${shape.join("x")}->${node.shape.join("x")}x${k}`);
  const finishOf = (m) => (v) => (m.finish?.apply ?? ((x) => x))(kind === "mean" ? `${v} / ${f32Lit(C)}` : v);
  const finishDecls = members.flatMap((m) => m.finish?.decls ?? []);
  if (columns === "strips") {
    const d = columnStripsDispatch(spec, caps, kind, {
      label,
      buffers: o.buffers,
      decls: [...o.decls, ...finishDecls],
      plain: false,
      members: members.map((m) => ({ read: m.read, out: m.out, finish: finishOf(m) })),
      cols: R,
      rows: C,
      cfg: o.columns?.strips ?? COLUMN_STRIPS
    });
    return planOf([d]);
  }
  const chunks2 = nonEmptyChunks(C, Math.ceil(C / COLUMN_CHUNK));
  const source = { buffers: o.buffers, read: members[0].read, decls: o.decls, plain: false };
  const d1 = columnPartialsDispatch(spec, caps, kind, { label: `${label}:partials`, source, part: scratchVar(0, "part", "read_write"), cols: R, rows: C, chunks: chunks2, reads: members.map((m) => m.read) });
  const store = (w2, total) => `let j = ${w2} / ${u32Lit(R)};
let o = ${w2} % ${u32Lit(R)};
${members.map((m, j) => `if (j == ${u32Lit(j)}) { ${m.out.name}[o] = ${finishOf(m)(total)}; }`).join("\n")}`;
  const d2 = rowsDispatch(spec, caps, kind, {
    label: `${label}:combine`,
    strategy: `columns, pass 2 of 2: a workgroup per output of each of ${k} reductions reduces its ${chunks2} contiguous partials (tree in shared memory)`,
    buffers: [scratchVar(0, "part", "read"), ...members.map((m) => m.out)],
    read: (i) => `part[${i}]`,
    dst: members[0].out.name,
    decls: finishDecls,
    rows: k * R,
    rowLen: chunks2,
    chunks: 1,
    finish: (v) => v,
    store
  });
  return planOf([d1, d2], [k * R * chunks2 * 4]);
}

// packages/wgsl-kernels/src/pointwiseReduce.ts
var f32Of3 = (v, dtype) => dtype === "f32" ? v : `f32(${v})`;
function pointwiseReduceKernel(spec, caps, columns = {}) {
  if (spec.node.op !== "pointwiseReduce") return kernelError(spec, "not a pointwiseReduce op");
  const { expr, shape, reduce: reduce2, axes, post } = spec.node.attrs;
  const used = /* @__PURE__ */ new Set();
  const e = emitPwExpr(
    expr,
    (i) => {
      if (i < 0 || i >= spec.inputs.length) kernelError(spec, `the prologue reads operand ${i}, but there are ${spec.inputs.length}`);
      used.add(i);
      return f32Of3(`v${i}`, spec.inputs[i].dtype);
    },
    "(o & 0u)"
  );
  const groups = groupByNode(spec, [...used].sort((a, b) => a - b));
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`));
  const loads = operandLoads(spec.inputs, groups, buffers.map((b) => b.name), used, shape);
  const fn = `fn prologue(o: u32) -> f32 {
${indent([...loads, e.code].filter(Boolean).join("\n"))}
  return ${e.result};
}`;
  const source = { buffers, read: (i) => `prologue(${i})`, decls: [fn], plain: false };
  let finish2;
  if (!(post.op === "in" && post.index === 0)) {
    const p = emitPwExpr(post, () => "v", "(bitcast<u32>(v) & 0u)");
    finish2 = { decls: [`fn epilogue(v: f32) -> f32 {
${indent([p.code, `return ${p.result};`].filter(Boolean).join("\n"))}
}`], apply: (v) => `epilogue(${v})` };
  }
  return reducePlan(spec, caps, reduce2, { shape, axes, source, out: outputVar(spec), finish: finish2, columns });
}
function prologues(spec, exprs, shape, name) {
  const usedBy = exprs.map(() => /* @__PURE__ */ new Set());
  const emitted = exprs.map(
    (expr, j) => emitPwExpr(
      expr,
      (i) => {
        if (i < 0 || i >= spec.inputs.length) kernelError(spec, `prologue ${j} reads operand ${i}, but there are ${spec.inputs.length}`);
        usedBy[j].add(i);
        return f32Of3(`v${i}`, spec.inputs[i].dtype);
      },
      "(o & 0u)"
    )
  );
  const all2 = new Set(usedBy.flatMap((u) => [...u]));
  const groups = groupByNode(spec, [...all2].sort((a, b) => a - b));
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`));
  const decls = emitted.map((e, j) => {
    const loads = operandLoads(spec.inputs, groups, buffers.map((b) => b.name), usedBy[j], shape);
    return `fn ${name}${j}(o: u32) -> f32 {
${indent([...loads, e.code].filter(Boolean).join("\n"))}
  return ${e.result};
}`;
  });
  return { buffers, decls };
}
function pointwiseReduceMultiKernel(spec, caps, columns = {}) {
  if (spec.node.op !== "pointwiseReduceMulti") return kernelError(spec, "not a pointwiseReduceMulti op");
  const { results, shape, reduce: reduce2, axes } = spec.node.attrs;
  const targets = spec.results ?? results.map(() => "buffer");
  const live = results.map((_, j) => j === 0 || targets[j] !== "unused");
  const p = prologues(spec, results.map((r, j) => live[j] ? r.expr : { op: "const", value: 0 }), shape, "prologue");
  const members = results.map((r, j) => {
    if (targets[j] !== void 0 && typeof targets[j] === "object") kernelError(spec, `result ${j} cannot be written in place`);
    const out2 = live[j] ? outputVar(spec, `y${j}`, { index: j }) : void 0;
    const post = r.post;
    let finish2;
    if (!(post.op === "in" && post.index === 0)) {
      const e = emitPwExpr(post, () => "v", "(bitcast<u32>(v) & 0u)");
      finish2 = { decls: [`fn epilogue${j}(v: f32) -> f32 {
${indent([e.code, `return ${e.result};`].filter(Boolean).join("\n"))}
}`], apply: (v) => `epilogue${j}(${v})` };
    }
    return { read: (i) => `prologue${j}(${i})`, out: out2, finish: finish2 };
  });
  return reduceMultiPlan(spec, caps, reduce2, { shape, axes, buffers: p.buffers, decls: p.decls, members, columns });
}

// packages/wgsl-kernels/src/rowwise.ts
var f32Of4 = (v, dtype) => dtype === "f32" ? v : `f32(${v})`;
var TREE = { sum: "sum", mean: "sum", reduceMax: "max", reduceMin: "min" };
function rowwiseKernel(spec, caps) {
  if (spec.node.op !== "rowwise") return kernelError(spec, "not a rowwise op");
  return rowwisePlan(spec, caps, [spec.node.attrs.expr], spec.node.attrs.stats, ["buffer"]);
}
function rowwiseMultiKernel(spec, caps) {
  if (spec.node.op !== "rowwiseMulti") return kernelError(spec, "not a rowwiseMulti op");
  const { exprs, stats } = spec.node.attrs;
  const targets = spec.results ?? exprs.map(() => "buffer");
  if (targets.length !== exprs.length) return kernelError(spec, `results names ${targets.length} targets for ${exprs.length} expressions`);
  targets.forEach((t, j) => {
    if (typeof t === "object") kernelError(spec, `result ${j} cannot be written in place (the row is read again after the first results are stored)`);
  });
  return rowwisePlan(spec, caps, exprs, stats, targets);
}
function rowwisePlan(spec, caps, exprs, stats, targets) {
  const multi = spec.node.op === "rowwiseMulti";
  const shape = spec.node.shape;
  const C = shape[shape.length - 1];
  const total = numel(shape);
  if (total === 0) return EMPTY_PLAN;
  const rows = total / C;
  const n2 = spec.inputs.length;
  const used = /* @__PURE__ */ new Set();
  const groups = groupByNode(spec, Array.from({ length: n2 }, (_, i) => i));
  const names = groups.map((g2) => `x${g2[0]}`);
  const inline = (what, e, statsSeen) => {
    const reads = /* @__PURE__ */ new Set();
    const body = emitPwExpr(e, (i) => {
      if (i < n2) {
        reads.add(i);
        used.add(i);
        return f32Of4(`v${i}`, spec.inputs[i].dtype);
      }
      if (i - n2 >= statsSeen) kernelError(spec, `${what} reads stat ${i - n2}, computed after it`);
      return `s${i - n2}`;
    });
    const loads = operandLoads(spec.inputs, groups, names, reads, shape);
    return { code: [...loads, body.code].filter(Boolean).join("\n"), result: body.result };
  };
  const posts = stats.map((s) => {
    if (s.post.op === "in" && s.post.index === 0) return void 0;
    const p = emitPwExpr(s.post, () => "v", "(bitcast<u32>(v) & 0u)");
    return { code: p.code, result: p.result };
  });
  const wg = Math.min(linearWorkgroupSize(caps), Math.max(32, ceilPow2(Math.ceil(C / 8))), ceilPow2(C));
  const g = linearGrid(spec, rows, caps);
  const lines = [`let base = row * ${u32Lit(C)};`];
  const loop = (body) => `for (var j = lid; j < ${u32Lit(C)}; j = j + ${u32Lit(wg)}) {
${indent(`let o = base + j;
${body}`)}
}`;
  stats.forEach((s, k) => {
    const tree = TREE[s.reduce];
    const init = s.reduce === "reduceMax" ? "bitcast<f32>(0xff800000u | (lid & 0u))" : s.reduce === "reduceMin" ? "bitcast<f32>(0x7f800000u | (lid & 0u))" : "0.0";
    const combine = (acc, v) => tree === "sum" ? `${acc} + ${v}` : `${tree}(${acc}, ${v})`;
    const e = inline(`stat ${k}`, s.expr, k);
    const total2 = `wg_${tree}(a${k}, lid)`;
    lines.push(`var a${k} = ${init};`);
    lines.push(loop(`${e.code}
a${k} = ${combine(`a${k}`, e.result)};`));
    const post = posts[k];
    if (k > 0) lines.push("workgroupBarrier();");
    lines.push(`let r${k} = ${s.reduce === "mean" ? `${total2} / ${f32Lit(C)}` : total2};`);
    if (post) lines.push(`var s${k} = 0.0;
{
${indent(`let v = r${k};
${post.code}
s${k} = ${post.result};`)}
}`);
    else lines.push(`let s${k} = r${k};`);
  });
  const outputs = [];
  const stores = exprs.flatMap((expr, j) => {
    if (targets[j] !== "buffer") return [];
    const name = multi ? `y${j}` : "y";
    outputs.push(multi ? outputVar(spec, name, { index: j }) : outputVar(spec));
    const e = inline(multi ? `expression ${j}` : "the expression", expr, stats.length);
    const store = `${e.code}
${name}[o] = ${e.result};`;
    return [multi ? `{
${indent(store)}
}` : store];
  });
  if (stores.length === 0) return EMPTY_PLAN;
  lines.push(loop(stores.join("\n")));
  const buffers = [...groups.filter((g2) => g2.some((i) => used.has(i))).map((g2) => inputVar(spec, g2[0], `x${g2[0]}`)), ...outputs];
  const strategy = `rowwise: a workgroup per row of ${C} (${wg} lanes) computes ${stats.length} stat(s) by tree reductions, then the row's elements${multi ? ` for ${stores.length} result(s)` : ""}`;
  const d = shaderDispatch(spec, {
    label: labelOf(spec.node, `${rows}x${C}`),
    strategy,
    buffers,
    decls: [`const ROWS = ${u32Lit(rows)};`],
    main: perWorkgroupMain(wg, g.index, "ROWS", lines.join("\n"), "row"),
    workgroupSize: wg,
    grid: g.grid
  });
  return planOf([d]);
}

// packages/wgsl-kernels/src/attentionDims.ts
function attentionDims(spec) {
  const [q, k, v] = spec.inputs;
  const r = q.shape.length;
  const dv = v ? v.shape[r - 1] : 0;
  const { seqMajor: seqMajor2, window } = spec.node.attrs;
  if (seqMajor2) {
    const h = window ? window.heads : q.shape[r - 2];
    const views = {};
    if (window) for (const [i, t] of spec.inputs.slice(0, 3).entries()) views[["q", "k", "v"][i]] = { width: t.shape[r - 2], offset: window.offsets[i] };
    return { heads: numel(q.shape.slice(0, -3)) * h, seqHeads: h, tq: q.shape[r - 3], tk: k.shape[r - 3], d: q.shape[r - 1], dv, views };
  }
  return { heads: numel(q.shape.slice(0, -2)), seqHeads: 0, tq: q.shape[r - 2], tk: k.shape[r - 2], d: q.shape[r - 1], dv, views: {} };
}
var withResultViews = (dm, y, y2) => ({ ...dm, views: { ...dm.views, ...y ? { y } : {}, ...y2 ? { y2 } : {} } });
var rowIndex = (dm, t, rows, view) => {
  if (dm.seqHeads === 0) return `(h * ${u32Lit(rows)} + ${t})`;
  const v = view ? dm.views[view] : void 0;
  const [width, off] = v ? [v.width, v.offset] : [dm.seqHeads, 0];
  return `((h / ${u32Lit(dm.seqHeads)}) * ${u32Lit(rows * width)} + (${t}) * ${u32Lit(width)} + ${off > 0 ? `${u32Lit(off)} + ` : ""}h % ${u32Lit(dm.seqHeads)})`;
};
var rowDelta = (ri, v4, dst = "val") => `${dst} = ${Array.from({ length: v4 }, (_, c) => `dot(dout[${ri} * ${u32Lit(v4)} + ${u32Lit(c)}], rowdot[${ri} * ${u32Lit(v4)} + ${u32Lit(c)}])`).join(" + ")};`;
function gradReadBindings(deltaFromOut2) {
  return [
    "@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;",
    "@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;",
    "@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;",
    "@group(0) @binding(3) var<storage, read> dout: array<vec4<f32>>;",
    "@group(0) @binding(4) var<storage, read> lse: array<f32>;",
    `@group(0) @binding(5) var<storage, read> rowdot: array<${deltaFromOut2 ? "vec4<f32>" : "f32"}>;`
  ];
}

// packages/wgsl-kernels/src/flashAttentionTiledGrad.ts
var BC = 32;
var GROUPS = BC / 4;
var TILED_GRAD_CONFIGS = [
  { threads: 128, partners: 32 },
  { threads: 128, partners: 16 },
  { threads: 64, partners: 8 }
];
var DEFAULT_TILED_GRAD = TILED_GRAD_CONFIGS[0];
function tiledGradSmem(dm, byQuery, cfg = DEFAULT_TILED_GRAD) {
  const { d, dv } = dm;
  const br = cfg.partners;
  const anchors = BC * (d + 4 + dv + 4);
  const partners = br * (d + 4 + dv + 4);
  const weights = (byQuery ? 1 : 2) * br * BC;
  const stats = 2 * (byQuery ? BC : br);
  return (anchors + partners + weights + stats) * 4;
}
function chooseTiledGrad(dm, byQuery, caps, cfg) {
  return (cfg ? [cfg] : TILED_GRAD_CONFIGS).find((c) => tiledGradFits(dm, byQuery, caps, c));
}
function tiledGradFits(dm, byQuery, caps, cfg = DEFAULT_TILED_GRAD) {
  const t = cfg.threads;
  return t >= GROUPS && t % GROUPS === 0 && t <= caps.maxComputeInvocationsPerWorkgroup && t <= caps.maxComputeWorkgroupSizeX && cfg.partners * GROUPS % t === 0 && tiledGradSmem(dm, byQuery, cfg) <= caps.maxComputeWorkgroupStorageSize;
}
var range = (n2) => Array.from({ length: n2 }, (_, i) => i);
var viewOf = (src) => src === "q" || src === "k" || src === "v" ? src : void 0;
function tiledGradCode(spec, caps, dm, causal, scale2, writes, cfg = DEFAULT_TILED_GRAD, deltaFromOut2 = false, oneOutput = false) {
  const { tq, tk, d, dv } = dm;
  const WG = cfg.threads;
  const BR = cfg.partners;
  const byQuery = writes.q === true;
  const wantK = !byQuery && writes.k;
  const wantV = !byQuery && writes.v;
  const D4 = d / 4;
  const V4 = dv / 4;
  const sc = f32Lit(scale2);
  const [a1, a2, p1, p2] = byQuery ? ["q", "dout", "k", "v"] : ["k", "v", "q", "dout"];
  const [na, np] = byQuery ? [tq, tk] : [tk, tq];
  const PG = WG / GROUPS;
  const PPT = BR / PG;
  const CL = WG / GROUPS;
  const out1N4 = byQuery || wantK ? D4 : 0;
  const out2N4 = wantV ? V4 : 0;
  const M1 = Math.ceil(out1N4 / CL);
  const M2 = Math.ceil(out2N4 / CL);
  const bindings = [
    ...gradReadBindings(deltaFromOut2),
    ...out1N4 > 0 ? ["@group(0) @binding(6) var<storage, read_write> y: array<vec4<f32>>;"] : [],
    // dk and dv into one result (`oneOutput`, attentionGradQKV): both through binding 6, at their head windows
    ...out2N4 > 0 && !(oneOutput && out1N4 > 0) ? [`@group(0) @binding(${out1N4 > 0 ? 7 : 6}) var<storage, read_write> ${out1N4 > 0 ? "y2" : "y"}: array<vec4<f32>>;`] : []
  ].join("\n");
  const out2Name = out1N4 > 0 && !oneOutput ? "y2" : "y";
  const smem = tiledGradSmem(dm, byQuery, cfg);
  checkWorkgroupMemory(spec, smem, caps);
  const stageAnchors = (sh, src, n4) => `for (var e = lid; e < ${u32Lit(BC * n4)}; e = e + ${u32Lit(WG)}) {
    let r = e / ${u32Lit(n4)};
    var val = vec4<f32>();
    if (b0 + r < ${u32Lit(na)}) { val = ${src}[${rowIndex(dm, "b0 + r", na, viewOf(src))} * ${u32Lit(n4)} + e % ${u32Lit(n4)}]; }
    ${sh}[r * ${u32Lit(n4 + 1)} + e % ${u32Lit(n4)}] = val;
  }`;
  const stagePartners = (sh, src, n4) => `for (var e = lid; e < ${u32Lit(BR * n4)}; e = e + ${u32Lit(WG)}) {
      let r = e / ${u32Lit(n4)};
      var val = vec4<f32>();
      if (t0 + r < ${u32Lit(np)}) { val = ${src}[${rowIndex(dm, "t0 + r", np, viewOf(src))} * ${u32Lit(n4)} + e % ${u32Lit(n4)}]; }
      ${sh}[r * ${u32Lit(n4 + 1)} + e % ${u32Lit(n4)}] = val;
    }`;
  const stageStats = (n2, first, rows) => `for (var e = lid; e < ${u32Lit(n2)}; e = e + ${u32Lit(WG)}) {
    var lv = 0.0; var dl = 0.0;
    if (${first} + e < ${u32Lit(rows)}) { let ri = ${rowIndex(dm, `${first} + e`, rows)}; lv = lse[ri]; ${deltaFromOut2 ? rowDelta("ri", V4, "dl") : "dl = rowdot[ri];"} }
    st[e] = lv; st[${u32Lit(n2)} + e] = dl;
  }`;
  const anchorOf = (r) => `g + ${u32Lit(GROUPS * r)}`;
  const pIdx = (p) => `pg + ${u32Lit(PG * p)}`;
  const tileDots = (acc, as, ps, n4) => `for (var c = 0u; c < ${u32Lit(n4)}; c = c + 1u) {
        ${range(4).map((r) => `let x${r} = ${as}[(${anchorOf(r)}) * ${u32Lit(n4 + 1)} + c];`).join(" ")}
        ${range(PPT).map((p) => `let y${p} = ${ps}[(${pIdx(p)}) * ${u32Lit(n4 + 1)} + c];`).join(" ")}
        ${range(4).flatMap((r) => range(PPT).map((p) => `${acc}${r}_${p} = ${acc}${r}_${p} + dot(x${r}, y${p});`)).join(" ")}
      }`;
  const weightsOf = (p) => {
    const lines = range(4).map((r) => {
      const anchor = `b0 + ${anchorOf(r)}`;
      const [qi, kj] = byQuery ? [anchor, `pt${p}`] : [`pt${p}`, anchor];
      const mask = [`pt${p} < ${u32Lit(np)}`, `${anchor} < ${u32Lit(na)}`, ...causal ? [`${kj} <= ${qi}`] : []].join(" && ");
      const pl = pIdx(p);
      const [L, dl] = byQuery ? [`st[${anchorOf(r)}]`, `st[${u32Lit(BC)} + ${anchorOf(r)}]`] : [`st[${pl}]`, `st[${u32Lit(BR)} + ${pl}]`];
      return `let ok${r} = ${mask};
        let e${r} = select(0.0, exp(s${r}_${p} * ${sc} - ${L}), ok${r});
        let w${r} = select(0.0, e${r} * (dp${r}_${p} - ${dl}), ok${r});`;
    });
    return `{
        let pt${p} = t0 + ${pIdx(p)};
        ${lines.join("\n        ")}
        dss[(${pIdx(p)}) * ${u32Lit(GROUPS)} + g] = vec4<f32>(w0, w1, w2, w3);
        ${wantV ? `pss[(${pIdx(p)}) * ${u32Lit(GROUPS)} + g] = vec4<f32>(e0, e1, e2, e3);` : ""}
      }`;
  };
  const phaseA = `{
      ${range(4).flatMap((r) => range(PPT).map((p) => `var s${r}_${p} = 0.0; var dp${r}_${p} = 0.0;`)).join(" ")}
      ${tileDots("s", "a1s", "p1s", D4)}
      ${tileDots("dp", "a2s", "p2s", V4)}
      ${range(PPT).map(weightsOf).join("\n      ")}
    }`;
  const accDecl = [
    ...range(4).flatMap((r) => range(M1).map((m) => `var x${r}_${m} = vec4<f32>();`)),
    ...range(4).flatMap((r) => range(M2).map((m) => `var z${r}_${m} = vec4<f32>();`))
  ].join(" ");
  const accumulate = (acc, M, n4, weights, src) => range(M).map((m) => {
    const col = `cl + ${u32Lit(CL * m)}`;
    const body = range(4).map((r) => `${acc}${r}_${m} = fma(vec4<f32>(wt.${"xyzw"[r]}), pr, ${acc}${r}_${m});`).join(" ");
    const guard = CL * (m + 1) > n4 ? `if (${col} < ${u32Lit(n4)}) ` : "";
    return `${guard}{ let pr = ${src}[pi * ${u32Lit(n4 + 1)} + ${col}]; let wt = ${weights}; ${body} }`;
  }).join("\n        ");
  const phaseB = `for (var pi = 0u; pi < ${u32Lit(BR)}; pi = pi + 1u) {
        ${M1 > 0 ? accumulate("x", M1, out1N4, `dss[pi * ${u32Lit(GROUPS)} + g]`, "p1s") : ""}
        ${M2 > 0 ? accumulate("z", M2, out2N4, `${wantV ? "pss" : "dss"}[pi * ${u32Lit(GROUPS)} + g]`, "p2s") : ""}
      }`;
  const writeOut = (acc, M, n4, dst, view, scaled) => range(4).flatMap(
    (r) => range(M).map((m) => {
      const col = `cl + ${u32Lit(CL * m)}`;
      const guard = CL * (m + 1) > n4 ? ` && ${col} < ${u32Lit(n4)}` : "";
      return `if (b0 + ${anchorOf(r)} < ${u32Lit(na)}${guard}) { ${dst}[${rowIndex(dm, `b0 + ${anchorOf(r)}`, na, view)} * ${u32Lit(n4)} + ${col}] = ${acc}${r}_${m}${scaled ? ` * ${sc}` : ""}; }`;
    })
  ).join("\n  ");
  const loop = byQuery ? `let tend = ${causal ? `min(b0 + ${u32Lit(BC)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var t0 = 0u; t0 < tend; t0 = t0 + ${u32Lit(BR)}) {` : `let tstart = ${causal ? `(b0 / ${u32Lit(BR)}) * ${u32Lit(BR)}` : "0u"};
  for (var t0 = tstart; t0 < ${u32Lit(tq)}; t0 = t0 + ${u32Lit(BR)}) {`;
  const what = byQuery ? "dq" : wantK && wantV ? "dk and dv" : wantK ? "dk" : "dv";
  const code = `${header(spec, `flash attention gradient ${what}, tiled: a workgroup of ${WG} per (head, ${BC} ${byQuery ? "query" : "key"} rows), ${byQuery ? "key" : "query"} tiles of ${BR} in workgroup memory, scores and dS computed cooperatively${causal ? ", causal tiles skipped" : ""}`)}${bindings}

var<workgroup> a1s: array<vec4<f32>, ${BC * (D4 + 1)}>;
var<workgroup> a2s: array<vec4<f32>, ${BC * (V4 + 1)}>;
var<workgroup> p1s: array<vec4<f32>, ${BR * (D4 + 1)}>;
var<workgroup> p2s: array<vec4<f32>, ${BR * (V4 + 1)}>;
var<workgroup> dss: array<vec4<f32>, ${BR * BC / 4}>;
${byQuery ? "" : `var<workgroup> pss: array<vec4<f32>, ${BR * BC / 4}>;
`}var<workgroup> st: array<f32, ${2 * (byQuery ? BC : BR)}>;

@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let b0 = wid.x * ${u32Lit(BC)};
  let g = lid % ${u32Lit(GROUPS)};
  let pg = lid / ${u32Lit(GROUPS)};
  let cl = lid / ${u32Lit(GROUPS)};
  ${stageAnchors("a1s", a1, D4)}
  ${stageAnchors("a2s", a2, V4)}
  ${byQuery ? stageStats(BC, "b0", tq) : ""}
  ${accDecl}
  ${loop}
    ${stagePartners("p1s", p1, D4)}
    ${stagePartners("p2s", p2, V4)}
    ${byQuery ? "" : stageStats(BR, "t0", tq)}
    workgroupBarrier();
    ${phaseA}
    workgroupBarrier();
    ${phaseB}
    workgroupBarrier();
  }
  ${M1 > 0 ? writeOut("x", M1, out1N4, "y", "y", true) : ""}
  ${M2 > 0 ? writeOut("z", M2, out2N4, out2Name, out1N4 > 0 ? "y2" : "y", false) : ""}
}
`;
  return { code, wg: WG, rows: BC };
}

// packages/wgsl-kernels/src/flashAttention.ts
var FLASH_MAX_DIM2 = 128;
function flashEligible(d, dv, caps) {
  return d % 4 === 0 && dv % 4 === 0 && d > 0 && dv > 0 && d <= FLASH_MAX_DIM2 && dv <= FLASH_MAX_DIM2 && linearWorkgroupSize(caps, 64) >= 16 && tileRows(d, dv, caps) > 0;
}
function tileRows(a, b, caps, most = 32) {
  for (const bc of [64, 32, 16, 8, 4]) if (bc <= most && bc * (a + b + 2) * 4 <= caps.maxComputeWorkgroupStorageSize) return bc;
  return 0;
}
var defaultFlashConfig = (caps) => ({ rows: linearWorkgroupSize(caps, 64), tile: 16 });
function resolve(caps, d, dv, cfg) {
  const c = cfg ?? defaultFlashConfig(caps);
  return { wg: Math.min(c.rows, linearWorkgroupSize(caps, c.rows)), bc: tileRows(d, dv, caps, c.tile) };
}
var MASKED = "-3.0e38";
var range2 = (n2) => Array.from({ length: n2 }, (_, i) => i);
var loadRow = (name, src, off, n2, valid) => range2(n2 / 4).map((i) => `var ${name}${i} = vec4<f32>(); if (${valid}) { ${name}${i} = ${src}[(${off}) / 4u + ${u32Lit(i)}]; }`).join("\n  ");
var dotRow = (reg, sh, base, n2) => range2(n2 / 4).map((i) => `dot(${reg}${i}, ${sh}[${base} + ${u32Lit(i)}])`).join(" + ");
var viewRow = (dm, name, t, rows, plain2) => dm.views[name] ? rowIndex(dm, t, rows, name) : plain2;
var viewOf2 = (src) => src === "q" || src === "k" || src === "v" ? src : void 0;
var stageRows = (dm, sh, src, r0, n2, rows, bc, wg) => `for (var e = lid; e < ${u32Lit(bc * n2 / 4)}; e = e + ${u32Lit(wg)}) {
      let rr = e / ${u32Lit(n2 / 4)};
      var val = vec4<f32>();
      if (${r0} + rr < ${u32Lit(rows)}) { val = ${src}[${rowIndex(dm, `${r0} + rr`, rows, viewOf2(src))} * ${u32Lit(n2 / 4)} + e % ${u32Lit(n2 / 4)}]; }
      ${sh}[e] = val;
    }`;
function forwardCode(spec, caps, dm, causal, scale2, writes, cfg) {
  const { tq, tk, d } = dm;
  const lseOnly = !writes.out;
  const dv = lseOnly ? 0 : dm.dv;
  const { wg, bc } = resolve(caps, d, dv, cfg);
  const D4 = d / 4;
  const V4 = dv / 4;
  const decl = [
    "@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;",
    "@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;",
    ...lseOnly ? [] : ["@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;", "@group(0) @binding(3) var<storage, read_write> y: array<vec4<f32>>;"],
    ...writes.lse ? [`@group(0) @binding(${lseOnly ? 2 : 4}) var<storage, read_write> lse: array<f32>;`] : []
  ].join("\n");
  const chunk = `let s0 = select(${MASKED}, (${dotRow("q", "ks", "c * D4", d)}), j < kend);
        let s1 = select(${MASKED}, (${dotRow("q", "ks", "(c + 1u) * D4", d)}), j + 1u < kend);
        let s2 = select(${MASKED}, (${dotRow("q", "ks", "(c + 2u) * D4", d)}), j + 2u < kend);
        let s3 = select(${MASKED}, (${dotRow("q", "ks", "(c + 3u) * D4", d)}), j + 3u < kend);
        let cm = max(max(s0, s1), max(s2, s3));
        if (cm > m) {
          let alpha = exp(m - cm);
          l = l * alpha;
          ${range2(V4).map((i) => `o${i} = o${i} * alpha;`).join(" ")}
          m = cm;
        }
        let p0 = exp(s0 - m); let p1 = exp(s1 - m); let p2 = exp(s2 - m); let p3 = exp(s3 - m);
        l = l + (p0 + p1) + (p2 + p3);
        ${range2(V4).map((i) => `o${i} = fma(vec4<f32>(p0), vs[c * V4 + ${u32Lit(i)}], fma(vec4<f32>(p1), vs[(c + 1u) * V4 + ${u32Lit(i)}], fma(vec4<f32>(p2), vs[(c + 2u) * V4 + ${u32Lit(i)}], fma(vec4<f32>(p3), vs[(c + 3u) * V4 + ${u32Lit(i)}], o${i}))));`).join("\n        ")}`;
  const finish2 = `if (valid) {
    ${writes.lse ? "lse[row] = m + log(l);" : ""}
    ${lseOnly ? "" : `let inv = 1.0 / l;
    ${range2(V4).map((i) => `y[${viewRow(dm, "y", "i", tq, "row")} * ${u32Lit(V4)} + ${u32Lit(i)}] = o${i} * inv;`).join("\n    ")}`}
  }`;
  const smem = bc * (d + dv) * 4;
  const code = `${header(spec, `flash attention ${lseOnly ? "log-sum-exp" : writes.lse ? "forward and log-sum-exp" : "forward"}: a workgroup of ${wg} query rows per head, a thread per row, key tiles of ${bc} in workgroup memory, online softmax${causal ? ", causal tiles skipped" : ""}`)}${decl}

const D4 = ${u32Lit(D4)};
${lseOnly ? "" : `const V4 = ${u32Lit(V4)};
`}var<workgroup> ks: array<vec4<f32>, ${bc * d / 4}>;
${lseOnly ? "" : `var<workgroup> vs: array<vec4<f32>, ${bc * dv / 4}>;
`}
@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  let i = wid.x * ${u32Lit(wg)} + lid;
  let valid = i < ${u32Lit(tq)};
  let row = ${rowIndex(dm, "i", tq)};
  ${loadRow("qr", "q", `${viewRow(dm, "q", "i", tq, "row")} * ${u32Lit(d)}`, d, "valid")}
  ${range2(D4).map((x) => `let q${x} = qr${x} * ${f32Lit(scale2)};`).join(" ")}
  ${range2(V4).map((x) => `var o${x} = vec4<f32>();`).join(" ")}
  var m = ${MASKED};
  var l = 0.0;
  let kend = select(0u, ${causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)}, valid);
  let tend = ${causal ? `min((wid.x + 1u) * ${u32Lit(wg)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bc)}) {
    ${stageRows(dm, "ks", "k", "j0", d, tk, bc, wg)}
    ${lseOnly ? "" : stageRows(dm, "vs", "v", "j0", dv, tk, bc, wg)}
    workgroupBarrier();
    for (var c = 0u; c < ${u32Lit(bc)}; c = c + 4u) {
      let j = j0 + c;
      if (j >= kend) { break; }
      {
        ${chunk}
      }
    }
    workgroupBarrier();
  }
  ${finish2}
}
`;
  checkWorkgroupMemory(spec, smem, caps);
  return { code, wg, smem };
}
function gridFor(spec, caps, rows, wg, heads) {
  const g = [Math.ceil(rows / wg), heads, 1];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (g[0] > max || g[1] > max) kernelError(spec, `needs a ${g[0]}x${g[1]} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  return g;
}
function flashAttentionPlan(spec, caps, cfg) {
  const { causal, scale: scale2 } = spec.node.attrs;
  const dm = attentionDims(spec);
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale2, { out: true, lse: false }, cfg);
  const bindings = [0, 1, 2].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}
function flashAttentionLsePlan(spec, caps, cfg) {
  const { causal, scale: scale2 } = spec.node.attrs;
  const dm = attentionDims(spec);
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale2, { out: false, lse: true }, cfg);
  const bindings = [0, 1].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}
function flashAttentionWithLsePlan(spec, caps, writes, cfg) {
  const { causal, scale: scale2 } = spec.node.attrs;
  const dm = attentionDims(spec);
  if (!writes.out && !writes.lse) return { dispatches: [], scratch: [] };
  const { code, wg } = forwardCode(spec, caps, dm, causal, scale2, writes, cfg);
  const bindings = (writes.out ? [0, 1, 2] : [0, 1]).map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  if (writes.out) bindings.push({ source: { kind: "output", index: 0 }, access: "read_write", dtype: "f32" });
  if (writes.lse) bindings.push({ source: { kind: "output", index: 1 }, access: "read_write", dtype: "f32" });
  return { dispatches: [{ label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor(spec, caps, dm.tq, wg, dm.heads) }], scratch: [] };
}
function gradCode(spec, caps, dm, causal, scale2, wrt, cfg, deltaFromOut2 = false, oneOutput = false) {
  const { tq, tk, d, dv } = dm;
  const { wg, bc: tile } = resolve(caps, d, dv, cfg);
  const D4 = d / 4;
  const V4 = dv / 4;
  const sc = f32Lit(scale2);
  const byQuery = wrt === "q";
  const outN = wrt === "v" ? dv : d;
  const O4 = outN / 4;
  const decl = [
    ...gradReadBindings(deltaFromOut2),
    "@group(0) @binding(6) var<storage, read_write> y: array<vec4<f32>>;",
    // dk and dv into one result (attentionGradQKV): both through binding 6, at their head windows
    ...wrt === "kv" && !oneOutput ? ["@group(0) @binding(7) var<storage, read_write> y2: array<vec4<f32>>;"] : []
  ].join("\n");
  const acc = range2(O4).map((i) => `var a${i} = vec4<f32>();`).join(" ");
  let body;
  let smemDecl;
  let smem;
  if (byQuery) {
    const bc = tile;
    smem = bc * (d + dv) * 4;
    smemDecl = `var<workgroup> ks: array<vec4<f32>, ${bc * d / 4}>;
var<workgroup> vs: array<vec4<f32>, ${bc * dv / 4}>;`;
    body = `let i = wid.x * ${u32Lit(wg)} + lid;
  let valid = i < ${u32Lit(tq)};
  let row = ${rowIndex(dm, "i", tq)};
  ${loadRow("q", "q", `${viewRow(dm, "q", "i", tq, "row")} * ${u32Lit(d)}`, d, "valid")}
  ${loadRow("g", "dout", `row * ${u32Lit(dv)}`, dv, "valid")}
  var L = 0.0; var delta = 0.0;
  if (valid) { L = lse[row]; delta = ${deltaFromOut2 ? range2(V4).map((x) => `dot(g${x}, rowdot[row * ${u32Lit(V4)} + ${u32Lit(x)}])`).join(" + ") : "rowdot[row]"}; }
  ${acc}
  let kend = select(0u, ${causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)}, valid);
  let tend = ${causal ? `min((wid.x + 1u) * ${u32Lit(wg)}, ${u32Lit(tk)})` : u32Lit(tk)};
  for (var j0 = 0u; j0 < tend; j0 = j0 + ${u32Lit(bc)}) {
    ${stageRows(dm, "ks", "k", "j0", d, tk, bc, wg)}
    ${stageRows(dm, "vs", "v", "j0", dv, tk, bc, wg)}
    workgroupBarrier();
    for (var c = 0u; c < ${u32Lit(bc)}; c = c + 1u) {
      if (j0 + c >= kend) { break; }
      let p = exp((${dotRow("q", "ks", `c * ${u32Lit(D4)}`, d)}) * ${sc} - L);
      let dp = ${dotRow("g", "vs", `c * ${u32Lit(V4)}`, dv)};
      let ds = vec4<f32>(p * (dp - delta));
      ${range2(D4).map((x) => `a${x} = fma(ds, ks[c * ${u32Lit(D4)} + ${u32Lit(x)}], a${x});`).join(" ")}
    }
    workgroupBarrier();
  }
  if (valid) { ${range2(D4).map((x) => `y[${viewRow(dm, "y", "i", tq, "row")} * ${u32Lit(D4)} + ${u32Lit(x)}] = a${x} * ${sc};`).join(" ")} }`;
  } else {
    const br = tile;
    const dk = wrt !== "v";
    const dvToo = wrt === "kv";
    smem = br * (d + dv + 2) * 4;
    smemDecl = `var<workgroup> qs: array<vec4<f32>, ${br * d / 4}>;
var<workgroup> gs: array<vec4<f32>, ${br * dv / 4}>;
var<workgroup> st: array<f32, ${2 * br}>;`;
    const kRow = rowIndex(dm, "j", tk);
    const vRow = `${viewRow(dm, "v", "j", tk, kRow)} * ${u32Lit(dv)}`;
    const dpExpr = dotRow("vv", "gs", `c * ${u32Lit(V4)}`, dv);
    const dkStep = `let dp = ${dpExpr};
        let ds = vec4<f32>(p * (dp - st[2u * c + 1u]));
        ${range2(D4).map((x) => `a${x} = fma(ds, qs[c * ${u32Lit(D4)} + ${u32Lit(x)}], a${x});`).join(" ")}`;
    const dvStep = `let pv = vec4<f32>(p);
        ${range2(V4).map((x) => `${dvToo ? "b" : "a"}${x} = fma(pv, gs[c * ${u32Lit(V4)} + ${u32Lit(x)}], ${dvToo ? "b" : "a"}${x});`).join(" ")}`;
    const rowOut = (arr, n4, reg, scaled) => range2(n4).map((x) => `${oneOutput ? "y" : arr}[${viewRow(dm, arr, "j", tk, kRow)} * ${u32Lit(n4)} + ${u32Lit(x)}] = ${reg}${x}${scaled ? ` * ${sc}` : ""};`).join(" ");
    body = `let j = wid.x * ${u32Lit(wg)} + lid;
  let valid = j < ${u32Lit(tk)};
  ${loadRow("kk", "k", `${viewRow(dm, "k", "j", tk, kRow)} * ${u32Lit(d)}`, d, "valid")}
  ${dk ? loadRow("vv", "v", vRow, dv, "valid") : ""}
  ${acc}
  ${dvToo ? range2(V4).map((i) => `var b${i} = vec4<f32>();`).join(" ") : ""}
  // queries i \u2265 j attend key j when causal: the block's first tile starts at its first key, rounded down
  let t0 = ${causal ? `((wid.x * ${u32Lit(wg)}) / ${u32Lit(br)}) * ${u32Lit(br)}` : "0u"};
  for (var i0 = t0; i0 < ${u32Lit(tq)}; i0 = i0 + ${u32Lit(br)}) {
    ${stageRows(dm, "qs", "q", "i0", d, tq, br, wg)}
    ${stageRows(dm, "gs", "dout", "i0", dv, tq, br, wg)}
    for (var e = lid; e < ${u32Lit(2 * br)}; e = e + ${u32Lit(wg)}) {
      var val = 0.0;
      let r = i0 + e / 2u;
      if (r < ${u32Lit(tq)}) { let ri = ${rowIndex(dm, "r", tq)}; ${deltaFromOut2 ? `if (e % 2u == 0u) { val = lse[ri]; } else { ${rowDelta("ri", V4)} }` : "val = select(rowdot[ri], lse[ri], e % 2u == 0u);"} }
      st[e] = val;
    }
    workgroupBarrier();
    if (valid) {
      for (var c = 0u; c < ${u32Lit(br)}; c = c + 1u) {
        let i = i0 + c;
        if (i >= ${u32Lit(tq)}) { break; }
        ${causal ? "if (i < j) { continue; }" : ""}
        let p = exp((${dotRow("kk", "qs", `c * ${u32Lit(D4)}`, d)}) * ${sc} - st[2u * c]);
        ${dk ? dkStep : ""}
        ${wrt !== "k" ? dvStep : ""}
      }
    }
    workgroupBarrier();
  }
  if (valid) { ${rowOut("y", O4, "a", dk)} ${dvToo ? rowOut("y2", V4, "b", false) : ""} }`;
  }
  checkWorkgroupMemory(spec, smem, caps);
  const code = `${header(spec, `flash attentionGrad d${wrt}: a workgroup of ${wg} ${byQuery ? "query" : "key"} rows per head, a thread per row, ${byQuery ? "key" : "query"} tiles in workgroup memory${causal ? ", causal tiles skipped" : ""}`)}${decl}

${smemDecl}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let h = wid.y;
  ${body}
}
`;
  return { code, wg, rows: wg };
}
var DEFAULT_FLASH_GRAD = { q: "rows", kv: "tiled" };
function tiledShape(dm, wrt, caps, cfg) {
  const byQuery = wrt === "q";
  if (cfg?.grad === "rows") return void 0;
  if (cfg?.grad === "tiled") return chooseTiledGrad(dm, byQuery, caps, cfg.tiled);
  if (wrt !== "kv" || DEFAULT_FLASH_GRAD.kv !== "tiled") return void 0;
  return chooseTiledGrad(dm, byQuery, caps, cfg?.tiled ?? DEFAULT_TILED_GRAD);
}
function flashAttentionGradPlan(spec, caps, cfg) {
  const { causal, scale: scale2, wrt, deltaFromOut: deltaFromOut2 = false } = spec.node.attrs;
  const dm = attentionDims(spec);
  const tiled = tiledShape(dm, wrt, caps, cfg);
  const gr = tiled ? tiledGradCode(spec, caps, dm, causal, scale2, wrt === "q" ? { q: true } : { k: wrt === "k", v: wrt === "v" }, tiled, deltaFromOut2) : gradCode(spec, caps, dm, causal, scale2, wrt, cfg, deltaFromOut2);
  const bindings = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
  const rows = wrt === "q" ? dm.tq : dm.tk;
  return { dispatches: [{ label: labelOf(spec.node, `${spec.node.shape.join("x")}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1], grid: gridFor(spec, caps, rows, gr.rows, dm.heads) }], scratch: [] };
}
function flashAttentionGradQKVPlan(spec, caps, cfg) {
  const { causal, scale: scale2, deltaFromOut: deltaFromOut2 = false } = spec.node.attrs;
  const base = attentionDims(spec);
  const view = (part) => ({ width: 3 * base.seqHeads, offset: part * base.seqHeads });
  const dispatch = (wrt, dm) => {
    const tiled = tiledShape(dm, wrt, caps, cfg);
    const gr = tiled ? tiledGradCode(spec, caps, dm, causal, scale2, wrt === "q" ? { q: true } : { k: true, v: true }, tiled, deltaFromOut2, true) : gradCode(spec, caps, dm, causal, scale2, wrt, cfg, deltaFromOut2, true);
    const bindings = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
    bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
    const rows = wrt === "q" ? dm.tq : dm.tk;
    return { label: labelOf(spec.node, `${spec.node.shape.join("x")}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1], grid: gridFor(spec, caps, rows, gr.rows, dm.heads) };
  };
  return { dispatches: [dispatch("q", withResultViews(base, view(0))), dispatch("kv", withResultViews(base, view(1), view(2)))], scratch: [] };
}
function flashAttentionGradKVPlan(spec, caps, wanted, cfg) {
  const { causal, scale: scale2, deltaFromOut: deltaFromOut2 = false } = spec.node.attrs;
  const dm = attentionDims(spec);
  const wrt = wanted.length === 2 ? "kv" : wanted[0];
  const tiled = tiledShape(dm, wrt, caps, cfg);
  const gr = tiled ? tiledGradCode(spec, caps, dm, causal, scale2, { k: wanted.includes("k"), v: wanted.includes("v") }, tiled, deltaFromOut2) : gradCode(spec, caps, dm, causal, scale2, wrt, cfg, deltaFromOut2);
  const bindings = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  for (const w2 of wanted) bindings.push({ source: { kind: "output", index: w2 === "k" ? 0 : 1 }, access: "read_write", dtype: "f32" });
  return { dispatches: [{ label: labelOf(spec.node, `${spec.node.shape.join("x")}:d${wrt}`), code: gr.code, bindings, workgroupSize: [gr.wg, 1, 1], grid: gridFor(spec, caps, dm.tk, gr.rows, dm.heads) }], scratch: [] };
}

// packages/wgsl-kernels/src/attention.ts
var wgOf = (caps) => linearWorkgroupSize(caps, 64);
var MASKED2 = "-3.0e38";
function gridFor2(spec, caps, rows, heads) {
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (rows > max || heads > max) kernelError(spec, `needs a ${rows}x${heads} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  return [rows, heads, 1];
}
var stage = (dst, src, off, len, wg) => `for (var c = lid; c < ${u32Lit(len)}; c = c + ${u32Lit(wg)}) { ${dst}[c] = ${src}[${off} + c]; }`;
var dotWith = (sh, src, off, row, len) => `var dacc = 0.0; for (var dc = 0u; dc < ${u32Lit(len)}; dc = dc + 1u) { dacc = fma(${sh}[dc], ${src}[${off} + ${row} * ${u32Lit(len)} + dc], dacc); }`;
function checkSeqMajor(spec, d, dv, caps) {
  const attrs = spec.node.attrs;
  const form = attrs.seqMajor ? "seq-major ([..., T, H, D])" : attrs.deltaFromOut ? "with deltaFromOut (\u0394 from the output)" : void 0;
  if (form && !flashEligible(d, dv, caps))
    kernelError(spec, `runs ${form} only on the flash kernels: head sizes D = ${d}, Dv = ${dv} must be multiples of 4 up to 128 and the caps must allow 16 threads and a staged tile`);
}
var queryRowStart = (spec, wg) => {
  const { tq, tk, d } = attentionDims(spec);
  return `var<workgroup> qs: array<f32, ${d}>;
var<workgroup> w: array<f32, ${wg}>;

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = wid.x;
  let h = wid.y;
  let row = h * ${u32Lit(tq)} + i;
  ${stage("qs", "q", `row * ${u32Lit(d)}`, d, wg)}
  workgroupBarrier();
  let kend = ${spec.node.attrs.causal ? `min(i + 1u, ${u32Lit(tk)})` : u32Lit(tk)};
  var m = ${MASKED2};
  var l = 0.0;`;
};
var onlineSoftmaxBlocks = (spec, wg, accumulate) => {
  const { tk, d } = attentionDims(spec);
  return `for (var j0 = 0u; j0 < kend; j0 = j0 + ${u32Lit(wg)}) {
    let j = j0 + lid;
    var s = ${MASKED2};
    if (j < kend) { ${dotWith("qs", "k", `h * ${u32Lit(tk * d)}`, "j", d)} s = dacc * ${f32Lit(spec.node.attrs.scale)}; }
    w[lid] = s;
    workgroupBarrier();
    let n = min(${u32Lit(wg)}, kend - j0);
    var bm = m;
    for (var jj = 0u; jj < n; jj = jj + 1u) { bm = max(bm, w[jj]); }
    let alpha = exp(m - bm);
    var bs = 0.0;
    for (var jj = 0u; jj < n; jj = jj + 1u) { bs = bs + exp(w[jj] - bm); }
    l = l * alpha + bs;
    m = bm;
    ${accumulate}
    workgroupBarrier();
  }`;
};
function attentionKernel(spec, caps) {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  if (heads * tq * dv === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, "attends over zero keys");
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionPlan(spec, caps);
  return { dispatches: [simpleForwardDispatch(spec, caps, 0)], scratch: [] };
}
function attentionWithLseKernel(spec, caps) {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  const targets = spec.results ?? ["buffer", "buffer"];
  if (targets.length !== 2 || targets.some((t) => typeof t === "object")) kernelError(spec, `writes its two results into buffers, got targets ${JSON.stringify(targets)}`);
  const writes = { out: targets[0] === "buffer" && dv > 0, lse: targets[1] === "buffer" };
  if (heads * tq === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, "attends over zero keys");
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionWithLsePlan(spec, caps, writes);
  const dispatches = [];
  if (writes.out) dispatches.push(simpleForwardDispatch(spec, caps, 0));
  if (writes.lse) dispatches.push(simpleLseDispatch(spec, caps, 1));
  return { dispatches, scratch: [] };
}
function simpleForwardDispatch(spec, caps, out2) {
  const { causal } = spec.node.attrs;
  const { heads, tq, tk, dv } = attentionDims(spec);
  const wg = wgOf(caps);
  const nc = Math.ceil(dv / wg);
  const bindings = [0, 1, 2].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output", index: out2 }, access: "read_write", dtype: "f32" });
  const code = `${header(spec, `attention: a workgroup of ${wg} per (head, query row), online softmax over blocks of ${wg} keys${causal ? ", causal" : ""}`)}${declareBindings(bindings, ["q", "k", "v", "y"])}

${queryRowStart(spec, wg)}
  var oacc: array<f32, ${nc}>;
  ${onlineSoftmaxBlocks(spec, wg, `for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
      let c = lid + t * ${u32Lit(wg)};
      if (c < ${u32Lit(dv)}) {
        var a = oacc[t] * alpha;
        for (var jj = 0u; jj < n; jj = jj + 1u) { a = fma(exp(w[jj] - bm), v[(h * ${u32Lit(tk)} + j0 + jj) * ${u32Lit(dv)} + c], a); }
        oacc[t] = a;
      }
    }`)}
  for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
    let c = lid + t * ${u32Lit(wg)};
    if (c < ${u32Lit(dv)}) { y[row * ${u32Lit(dv)} + c] = oacc[t] / l; }
  }
}
`;
  return { label: labelOf(spec.node), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor2(spec, caps, tq, heads) };
}
function attentionLseKernel(spec, caps) {
  const { heads, tq, tk, d } = attentionDims(spec);
  if (heads * tq === 0) return { dispatches: [], scratch: [] };
  if (tk === 0) kernelError(spec, "attends over zero keys");
  checkSeqMajor(spec, d, d, caps);
  if (flashEligible(d, d, caps)) return flashAttentionLsePlan(spec, caps);
  return { dispatches: [simpleLseDispatch(spec, caps, 0)], scratch: [] };
}
function simpleLseDispatch(spec, caps, out2) {
  const { causal } = spec.node.attrs;
  const { heads, tq } = attentionDims(spec);
  const wg = wgOf(caps);
  const bindings = [0, 1].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output", index: out2 }, access: "read_write", dtype: "f32" });
  const code = `${header(spec, `attentionLse: a workgroup of ${wg} per (head, query row), online max and sum over blocks of ${wg} keys${causal ? ", causal" : ""}`)}${declareBindings(bindings, ["q", "k", "lse"])}

${queryRowStart(spec, wg)}
  ${onlineSoftmaxBlocks(spec, wg, "")}
  if (lid == 0u) { lse[row] = m + log(l); }
}
`;
  return { label: labelOf(spec.node, out2 > 0 ? `${spec.node.shape.join("x")}:lse` : void 0), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor2(spec, caps, tq, heads) };
}
function attentionGradKernel(spec, caps) {
  const { causal, scale: scale2, wrt } = spec.node.attrs;
  const { tq, tk, d, dv } = attentionDims(spec);
  if (numel(spec.node.shape) === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, "attends over zero keys or queries");
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionGradPlan(spec, caps);
  return { dispatches: [simpleGradDispatch(spec, caps, causal, scale2, wrt, 0)], scratch: [] };
}
function attentionGradKVKernel(spec, caps) {
  const { causal, scale: scale2 } = spec.node.attrs;
  const { tq, tk, d, dv } = attentionDims(spec);
  const targets = spec.results ?? ["buffer", "buffer"];
  if (targets.length !== 2 || targets.some((t) => typeof t === "object")) kernelError(spec, `writes its two results into buffers, got targets ${JSON.stringify(targets)}`);
  const wanted = ["k", "v"].filter((_, r) => targets[r] === "buffer");
  if (numel(spec.node.shape) === 0 || wanted.length === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, "attends over zero keys or queries");
  checkSeqMajor(spec, d, dv, caps);
  if (flashEligible(d, dv, caps)) return flashAttentionGradKVPlan(spec, caps, wanted);
  return { dispatches: wanted.map((wrt) => simpleGradDispatch(spec, caps, causal, scale2, wrt, wrt === "k" ? 0 : 1)), scratch: [] };
}
function attentionGradQKVKernel(spec, caps) {
  const { tq, tk, d, dv } = attentionDims(spec);
  if (numel(spec.node.shape) === 0) return { dispatches: [], scratch: [] };
  if (tk === 0 || tq === 0) kernelError(spec, "attends over zero keys or queries");
  checkSeqMajor(spec, d, dv, caps);
  return flashAttentionGradQKVPlan(spec, caps);
}
function simpleGradDispatch(spec, caps, causal, scale2, wrt, out2) {
  const { heads, tq, tk, d, dv } = attentionDims(spec);
  const wg = wgOf(caps);
  const byQuery = wrt === "q";
  const outDim = wrt === "v" ? dv : d;
  const nc = Math.ceil(outDim / wg);
  const sc = f32Lit(scale2);
  const bindings = [0, 1, 2, 3, 4, 5].map((index) => ({ source: { kind: "input", index }, access: "read", dtype: "f32" }));
  bindings.push({ source: { kind: "output", index: out2 }, access: "read_write", dtype: "f32" });
  const qOff = `h * ${u32Lit(tq * d)}`;
  const kOff = `h * ${u32Lit(tk * d)}`;
  const vOff = `h * ${u32Lit(tk * dv)}`;
  const gOff = `h * ${u32Lit(tq * dv)}`;
  const stageLines = byQuery ? `${stage("sa", "q", `(h * ${u32Lit(tq)} + a) * ${u32Lit(d)}`, d, wg)}
  ${stage("sb", "dout", `(h * ${u32Lit(tq)} + a) * ${u32Lit(dv)}`, dv, wg)}` : `${stage("sa", "k", `(h * ${u32Lit(tk)} + a) * ${u32Lit(d)}`, d, wg)}
  ${stage("sb", "v", `(h * ${u32Lit(tk)} + a) * ${u32Lit(dv)}`, dv, wg)}`;
  const range3 = byQuery ? `let p0 = 0u; let pend = ${causal ? `min(a + 1u, ${u32Lit(tk)})` : u32Lit(tk)};` : `let p0 = ${causal ? "a" : "0u"}; let pend = ${u32Lit(tq)};`;
  const qi = byQuery ? "a" : "p";
  const weight = `var s = 0.0;
      { ${dotWith("sa", byQuery ? "k" : "q", byQuery ? kOff : qOff, "p", d)} s = dacc * ${sc}; }
      let L = lse[h * ${u32Lit(tq)} + ${qi}];
      let P = exp(s - L);
      ${wrt === "v" ? "wt = P;" : `var dp = 0.0;
      { ${dotWith("sb", byQuery ? "v" : "dout", byQuery ? vOff : gOff, "p", dv)} dp = dacc; }
      wt = P * (dp - rowdot[h * ${u32Lit(tq)} + ${qi}]) * ${sc};`}`;
  const [R, rOff] = wrt === "q" ? ["k", kOff] : wrt === "k" ? ["q", qOff] : ["dout", gOff];
  const anchors = byQuery ? tq : tk;
  const code = `${header(spec, `attentionGrad pass 2 (d${wrt}): a workgroup of ${wg} per (head, ${byQuery ? "query" : "key"} row) accumulates weighted ${R} rows`)}${declareBindings(bindings, ["q", "k", "v", "dout", "lse", "rowdot", "y"])}

var<workgroup> sa: array<f32, ${d}>;
var<workgroup> sb: array<f32, ${dv}>;
var<workgroup> w: array<f32, ${wg}>;

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let a = wid.x;
  let h = wid.y;
  ${stageLines}
  workgroupBarrier();
  ${range3}
  var acc2: array<f32, ${nc}>;
  for (var b0 = p0; b0 < pend; b0 = b0 + ${u32Lit(wg)}) {
    let p = b0 + lid;
    var wt = 0.0;
    if (p < pend) {
      ${weight}
    }
    w[lid] = wt;
    workgroupBarrier();
    let n = min(${u32Lit(wg)}, pend - b0);
    for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
      let c = lid + t * ${u32Lit(wg)};
      if (c < ${u32Lit(outDim)}) {
        var x = acc2[t];
        for (var pp = 0u; pp < n; pp = pp + 1u) { x = fma(w[pp], ${R}[${rOff} + (b0 + pp) * ${u32Lit(outDim)} + c], x); }
        acc2[t] = x;
      }
    }
    workgroupBarrier();
  }
  for (var t = 0u; t < ${u32Lit(nc)}; t = t + 1u) {
    let c = lid + t * ${u32Lit(wg)};
    if (c < ${u32Lit(outDim)}) { y[(h * ${u32Lit(anchors)} + a) * ${u32Lit(outDim)} + c] = acc2[t]; }
  }
}
`;
  return { label: labelOf(spec.node, `${spec.node.shape.join("x")}:d${wrt}`), code, bindings, workgroupSize: [wg, 1, 1], grid: gridFor2(spec, caps, anchors, heads) };
}

// packages/wgsl-kernels/src/conv.ts
var nchw2 = (shape, [n2, c, y, x]) => {
  const [, C, H, W] = shape;
  return `let ${x} = i32(o % ${u32Lit(W)});
let ${y} = i32((o / ${u32Lit(W)}) % ${u32Lit(H)});
let ${c} = (o / ${u32Lit(W * H)}) % ${u32Lit(C)};
let ${n2} = o / ${u32Lit(W * H * C)};`;
};
var perElementPlan = (spec, caps, strategy, buffers, n2, body) => planOf([perElementDispatch(spec, caps, { strategy, buffers, n: n2, body })]);
var channelTile = (n2) => n2 % 4 === 0 ? 4 : n2 % 2 === 0 ? 2 : 1;
var tileVars = (t) => Array.from({ length: t }, (_, i) => `acc${i}`);
function conv2dKernel(spec, caps) {
  const a = spec.node.attrs;
  const [, C, H, W] = spec.inputs[0].shape;
  const [O, CG, KH, KW] = spec.inputs[1].shape;
  const [N, , HO, WO] = spec.node.shape;
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const T = channelTile(OG);
  const acc = tileVars(T);
  const { buffers, name } = bindOperands(spec, [0, 1], ["x", "w"]);
  const body = `${nchw2([N, O / T, HO, WO], ["b", "ot", "oy", "ox"])}
let oc0 = ot * ${u32Lit(T)};
let g = oc0 / ${u32Lit(OG)};
${acc.map((v) => `var ${v} = 0.0;`).join("\n")}
for (var ic = 0u; ic < ${u32Lit(CG)}; ic = ic + 1u) {
  for (var ky = 0; ky < ${KH}; ky = ky + 1) {
    let iy = oy * ${a.stride[0]} - ${a.padding[0]} + ky * ${a.dilation[0]};
    if (iy < 0 || iy >= ${H}) { continue; }
    for (var kx = 0; kx < ${KW}; kx = kx + 1) {
      let ix = ox * ${a.stride[1]} - ${a.padding[1]} + kx * ${a.dilation[1]};
      if (ix < 0 || ix >= ${W}) { continue; }
      let xv = ${name(0)}[((b * ${u32Lit(C)} + g * ${u32Lit(CG)} + ic) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix)];
      let wi = ((oc0 * ${u32Lit(CG)} + ic) * ${u32Lit(KH)} + u32(ky)) * ${u32Lit(KW)} + u32(kx);
${acc.map((v, t) => `      ${v} = fma(xv, ${name(1)}[wi${t ? ` + ${u32Lit(t * CG * KH * KW)}` : ""}], ${v});`).join("\n")}
    }
  }
}
let yo = ((b * ${u32Lit(O)} + oc0) * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox);
${acc.map((v, t) => `y[yo${t ? ` + ${u32Lit(t * HO * WO)}` : ""}] = ${v};`).join("\n")}`;
  return perElementPlan(spec, caps, `direct conv2d: a thread per output pixel \xD7 ${T} output channels, ${CG}x${KH}x${KW} taps`, buffers, n2 / T, body);
}
function conv2dGradInputKernel(spec, caps) {
  const a = spec.node.attrs;
  const [, O, HO, WO] = spec.inputs[0].shape;
  const [, CG, KH, KW] = spec.inputs[1].shape;
  const [N, C, H, W] = spec.node.shape;
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const T = channelTile(CG);
  const acc = tileVars(T);
  const { buffers, name } = bindOperands(spec, [0, 1], ["dy", "w"]);
  const [sh, sw] = a.stride;
  const body = `${nchw2([N, C / T, H, W], ["b", "ct", "iy", "ix"])}
let c0 = ct * ${u32Lit(T)};
let g = c0 / ${u32Lit(CG)};
let ic0 = c0 % ${u32Lit(CG)};
${acc.map((v) => `var ${v} = 0.0;`).join("\n")}
for (var q = 0u; q < ${u32Lit(OG)}; q = q + 1u) {
  let oc = g * ${u32Lit(OG)} + q;
  for (var ky = 0; ky < ${KH}; ky = ky + 1) {
    let ty = iy + ${a.padding[0]} - ky * ${a.dilation[0]};
    if (ty < 0 || ty % ${sh} != 0 || ty / ${sh} >= ${HO}) { continue; }
    for (var kx = 0; kx < ${KW}; kx = kx + 1) {
      let tx = ix + ${a.padding[1]} - kx * ${a.dilation[1]};
      if (tx < 0 || tx % ${sw} != 0 || tx / ${sw} >= ${WO}) { continue; }
      let dv = ${name(0)}[((b * ${u32Lit(O)} + oc) * ${u32Lit(HO)} + u32(ty / ${sh})) * ${u32Lit(WO)} + u32(tx / ${sw})];
      let wi = ((oc * ${u32Lit(CG)} + ic0) * ${u32Lit(KH)} + u32(ky)) * ${u32Lit(KW)} + u32(kx);
${acc.map((v, t) => `      ${v} = fma(dv, ${name(1)}[wi${t ? ` + ${u32Lit(t * KH * KW)}` : ""}], ${v});`).join("\n")}
    }
  }
}
let xo = ((b * ${u32Lit(C)} + c0) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix);
${acc.map((v, t) => `y[xo${t ? ` + ${u32Lit(t * H * W)}` : ""}] = ${v};`).join("\n")}`;
  return perElementPlan(spec, caps, `conv2dGradInput (gather-style transposed conv): a thread per input pixel \xD7 ${T} input channels`, buffers, n2 / T, body);
}
function conv2dGradWeightKernel(spec, caps) {
  const a = spec.node.attrs;
  const [N, C, H, W] = spec.inputs[0].shape;
  const [, O, HO, WO] = spec.inputs[1].shape;
  const [, CG, KH, KW] = spec.node.shape;
  const nw = numel(spec.node.shape);
  if (nw === 0) return EMPTY_PLAN;
  const OG = O / a.groups;
  const total = N * HO * WO;
  const wg = Math.min(linearWorkgroupSize(caps), 256, Math.max(32, 2 ** Math.floor(Math.log2(Math.max(1, total / 32)))));
  const g = linearGrid(spec, nw, caps);
  const { buffers, name } = bindOperands(spec, [0, 1], ["x", "dy"]);
  const body = `let kx = i32(o % ${u32Lit(KW)});
let ky = i32((o / ${u32Lit(KW)}) % ${u32Lit(KH)});
let ic = (o / ${u32Lit(KW * KH)}) % ${u32Lit(CG)};
let oc = o / ${u32Lit(KW * KH * CG)};
let c = (oc / ${u32Lit(OG)}) * ${u32Lit(CG)} + ic;
var acc = 0.0;
for (var t = lid; t < ${u32Lit(total)}; t = t + ${u32Lit(wg)}) {
  let ox = i32(t % ${u32Lit(WO)});
  let oy = i32((t / ${u32Lit(WO)}) % ${u32Lit(HO)});
  let b = t / ${u32Lit(WO * HO)};
  let iy = oy * ${a.stride[0]} - ${a.padding[0]} + ky * ${a.dilation[0]};
  let ix = ox * ${a.stride[1]} - ${a.padding[1]} + kx * ${a.dilation[1]};
  if (iy >= 0 && iy < ${H} && ix >= 0 && ix < ${W}) {
    acc = fma(${name(0)}[((b * ${u32Lit(C)} + c) * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix)], ${name(1)}[((b * ${u32Lit(O)} + oc) * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)], acc);
  }
}
let s = wg_sum(acc, lid);
if (lid == 0u) { y[o] = s; }`;
  const strategy = `conv2dGradWeight: a workgroup of ${wg} per weight element sums ${total} products (tree in shared memory)`;
  return planOf([shaderDispatch(spec, { strategy, buffers, main: perWorkgroupMain(wg, g.index, u32Lit(nw), body), workgroupSize: wg, grid: g.grid })]);
}
function windowScan(a, H, W, oy, ox, p, visit) {
  return `for (var ky = 0; ky < ${a.kernel[0]}; ky = ky + 1) {
  let iy = ${oy} * ${a.stride[0]} - ${a.padding[0]} + ky;
  if (iy < 0 || iy >= ${H}) { continue; }
  for (var kx = 0; kx < ${a.kernel[1]}; kx = kx + 1) {
    let ix = ${ox} * ${a.stride[1]} - ${a.padding[1]} + kx;
    if (ix < 0 || ix >= ${W}) { continue; }
    let ti = (${p} * ${u32Lit(H)} + u32(iy)) * ${u32Lit(W)} + u32(ix);
    ${visit}
  }
}`;
}
var firstMax = (a, H, W, oy, ox, p) => `var best = 0xffffffffu;
var bv = 0.0;
${windowScan(a, H, W, oy, ox, p, "let v = x[ti]; if (best == 0xffffffffu || v > bv) { best = ti; bv = v; }")}`;
function coveringWindows(a, HO, WO, visit) {
  const [sh, sw] = a.stride;
  return `for (var ky = 0; ky < ${a.kernel[0]}; ky = ky + 1) {
  let ty = iy + ${a.padding[0]} - ky;
  if (ty < 0 || ty % ${sh} != 0 || ty / ${sh} >= ${HO}) { continue; }
  let oy = ty / ${sh};
  for (var kx = 0; kx < ${a.kernel[1]}; kx = kx + 1) {
    let tx = ix + ${a.padding[1]} - kx;
    if (tx < 0 || tx % ${sw} != 0 || tx / ${sw} >= ${WO}) { continue; }
    let ox = tx / ${sw};
    ${visit}
  }
}`;
}
var planeOf = (H, W, y, x) => `let ${x} = i32(o % ${u32Lit(W)});
let ${y} = i32((o / ${u32Lit(W)}) % ${u32Lit(H)});
let p = o / ${u32Lit(W * H)};`;
function poolPlan(spec, caps, strategy, buffers, body) {
  const grad2 = spec.node.op === "maxPool2dGrad" || spec.node.op === "avgPool2dGrad";
  const [, , H, W] = grad2 ? spec.node.shape : spec.inputs[0].shape;
  const [, , HO, WO] = grad2 ? spec.inputs[spec.inputs.length - 1].shape : spec.node.shape;
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  return perElementPlan(spec, caps, strategy, buffers, n2, body(spec.node.attrs, { H, W, HO, WO }));
}
function maxPool2dKernel(spec, caps) {
  const strategy = `maxPool2d ${spec.node.attrs.kernel.join("x")}: a thread per output`;
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ["x"]).buffers, (a, { H, W, HO, WO }) => `${planeOf(HO, WO, "oy", "ox")}
${firstMax(a, H, W, "oy", "ox", "p")}
y[o] = bv;`);
}
function maxPool2dGradKernel(spec, caps) {
  const strategy = "maxPool2dGrad (gather-style): a thread per input element re-finds the maxima of the windows covering it";
  const buffers = [inputVar(spec, 0, "x"), inputVar(spec, 1, "dy"), outputVar(spec)];
  return poolPlan(spec, caps, strategy, buffers, (a, { H, W, HO, WO }) => `${planeOf(H, W, "iy", "ix")}
var acc = 0.0;
${coveringWindows(a, HO, WO, `{
${firstMax(a, H, W, "oy", "ox", "p")}
    if (best == o) { acc = acc + dy[(p * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)]; }
    }`)}
y[o] = acc;`);
}
function avgPool2dKernel(spec, caps) {
  const strategy = `avgPool2d ${spec.node.attrs.kernel.join("x")}: a thread per output`;
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ["x"]).buffers, (a, { H, W, HO, WO }) => `${planeOf(HO, WO, "oy", "ox")}
var acc = 0.0;
${windowScan(a, H, W, "oy", "ox", "p", "acc = acc + x[ti];")}
y[o] = acc / ${f32Lit(a.kernel[0] * a.kernel[1])};`);
}
function avgPool2dGradKernel(spec, caps) {
  const strategy = "avgPool2dGrad (gather-style): a thread per input element";
  return poolPlan(spec, caps, strategy, bindOperands(spec, [0], ["dy"]).buffers, (a, { H, W, HO, WO }) => `${planeOf(H, W, "iy", "ix")}
var acc = 0.0;
${coveringWindows(a, HO, WO, `acc = acc + dy[(p * ${u32Lit(HO)} + u32(oy)) * ${u32Lit(WO)} + u32(ox)];`)}
y[o] = acc / ${f32Lit(a.kernel[0] * a.kernel[1])};`);
}

// packages/wgsl-kernels/src/customKernel.ts
var KEY2 = /* @__PURE__ */ Symbol.for("@neura/wgsl-kernels/customKernels");
var table2 = globalThis[KEY2] ?? /* @__PURE__ */ new Map();
globalThis[KEY2] = table2;
var customKernel = (spec, caps) => {
  const name = spec.node.attrs.name;
  const gen = table2.get(name);
  if (!gen) kernelError(spec, `custom op '${name}' has no kernel: register one with registerCustomKernel (or customOp in @neura/nn)`);
  return gen(spec, caps);
};

// packages/wgsl-kernels/src/dropout.ts
function dropoutKernel(spec, caps) {
  const { p, seed } = spec.node.attrs;
  const threshold = Math.floor(p * 4294967296);
  const scale2 = Math.fround(1 / (1 - p));
  const hasOffset = spec.inputs.length === 2;
  return elementwisePlan(spec, caps, `dropout p=${p} seed=${seed} (lowbias32 mask, as ir's dropoutKeeps)`, (load) => {
    const x = load(0);
    const key = `lowbias32(${u32Lit(seed >>> 0)}${hasOffset ? ` + bitcast<u32>(${load(1)})` : ""})`;
    return { code: `let keep = lowbias32(o ^ ${key}) >= ${u32Lit(Math.min(threshold, 4294967295))};`, result: `select(0.0, ${x} * ${f32Lit(scale2)}, keep)` };
  });
}

// packages/wgsl-kernels/src/rope.ts
function ropeKernel(spec, caps) {
  const { base, inverse } = spec.node.attrs;
  const s = spec.inputs[0].shape;
  const [t, dim] = [s[s.length - 2], s[s.length - 1]];
  const half = dim / 2;
  const n2 = numel(s);
  if (n2 === 0) return EMPTY_PLAN;
  const inv = Array.from({ length: half }, (_, i) => f32Lit(base ** (-2 * i / dim)));
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const body = `let i = o % ${u32Lit(dim)};
let row = o / ${u32Lit(dim)};
let pos = f32(row % ${u32Lit(t)});
let lo = i < ${u32Lit(half)};
let f = select(i - ${u32Lit(half)}, i, lo);
let th = pos * INV[f];
let kq = round(th * 0.159154943);
let r = (th - kq * 6.28125) - kq * 0.00193530717;
let c = cos(r);
let sn = ${inverse ? "-" : ""}sin(r);
let a = x[select(o - ${u32Lit(half)}, o, lo)];
let b = x[select(o, o + ${u32Lit(half)}, lo)];
y[o] = select(b * c + a * sn, a * c - b * sn, lo);`;
  const decls = [`const INV = array<f32, ${half}>(${inv.join(", ")});`];
  return planOf([perElementDispatch(spec, caps, { strategy: `rope: half-split rotation over [${t}, ${dim}]${inverse ? " (inverse)" : ""}`, buffers, decls, n: n2, body })]);
}

// packages/wgsl-kernels/src/indexing.ts
function storageConst(value, dtype) {
  if (dtype === "i32") return `${Math.trunc(value)}i`;
  const v = Math.fround(value);
  if (Number.isFinite(v)) return f32Lit(v);
  const bits = Number.isNaN(v) ? "0x7fc00000u" : v > 0 ? "0x7f800000u" : "0xff800000u";
  return `bitcast<f32>(${bits} | (o & 0u))`;
}
function sliceKernel(spec, caps) {
  const { node } = spec;
  const { starts, steps } = node.attrs;
  const n2 = numel(node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const xs = stridesOf(spec.inputs[0].shape);
  const base = starts.reduce((s, st, i) => s + st * xs[i], 0);
  const c = collapseAxes(node.shape, [xs.map((s, i) => s * steps[i])]);
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const body = `${indexMath("o", c.shape, c.strides, ["i"])}
y[o] = x[${u32Lit(base)} + i];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `strided window: base ${base}, merged shape [${c.shape}]`, buffers, n: n2, body })]);
}
function padKernel(spec, caps) {
  const { node } = spec;
  const { before, interior, value } = node.attrs;
  const n2 = numel(node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const xShape = spec.inputs[0].shape;
  const xs = stridesOf(xShape);
  const ty = wgslType(node.dtype);
  const lines = ["var inside = true;", "var i = 0u;", `var r = o;`];
  for (let ax = node.shape.length - 1; ax >= 0; ax--) {
    const d = node.shape[ax];
    const step = interior[ax] + 1;
    lines.push(`{ let c = i32(r % ${u32Lit(d)}) - ${before[ax]}i; r = r / ${u32Lit(d)};`);
    const q = step === 1 ? "c" : `c / ${step}i`;
    const conds = [`c >= 0i`, step === 1 ? "" : `c % ${step}i == 0i`, `${q} < ${xShape[ax]}i`].filter(Boolean).join(" && ");
    lines.push(`  if (${conds}) { i = i + u32(${q}) * ${u32Lit(xs[ax])}; } else { inside = false; } }`);
  }
  lines.push(`var v = ${storageConst(value, ty)};`, numel(xShape) ? "if (inside) { v = x[i]; }" : "", "y[o] = v;");
  const { buffers } = bindOperands(spec, [0], ["x"]);
  return planOf([perElementDispatch(spec, caps, { strategy: `pad: before [${before}], interior [${interior}], value ${value}`, buffers, n: n2, body: lines.filter(Boolean).join("\n") })]);
}
function concatKernel(spec, caps) {
  const { node, inputs } = spec;
  const { axis } = node.attrs;
  const outer = numel(node.shape.slice(0, axis));
  const inner = numel(node.shape.slice(axis + 1));
  const total = node.shape[axis];
  if (numel(node.shape) === 0) return EMPTY_PLAN;
  const maxIn = caps.maxStorageBuffersPerShaderStage - 1;
  if (maxIn < 1) kernelError(spec, `needs 2 storage buffers, more than maxStorageBuffersPerShaderStage (device value ${caps.maxStorageBuffersPerShaderStage})`);
  const offs = [];
  let acc = 0;
  for (const t of inputs) {
    offs.push(acc);
    acc += t.shape[axis];
  }
  const groups = [];
  let cur = [];
  let nodes = /* @__PURE__ */ new Set();
  inputs.forEach((t, i) => {
    if (t.shape[axis] === 0) return;
    const id = node.inputs[i];
    if (!nodes.has(id) && nodes.size === maxIn) {
      groups.push(cur);
      cur = [];
      nodes = /* @__PURE__ */ new Set();
    }
    nodes.add(id);
    cur.push(i);
  });
  if (cur.length) groups.push(cur);
  const dispatches = groups.map((g, gi) => {
    const { buffers, name } = bindOperands(spec, g, g.map((i) => `x${i}`));
    const a0 = offs[g[0]];
    const a1 = offs[g[g.length - 1]] + inputs[g[g.length - 1]].shape[axis];
    const span = a1 - a0;
    const n2 = outer * span * inner;
    const branches = g.map((i, k) => {
      const e = inputs[i].shape[axis];
      const rel = offs[i] - a0;
      const read = `${name(i)}[(ou * ${u32Lit(e)} + ap - ${u32Lit(rel)}) * ${u32Lit(inner)} + iv]`;
      return k === g.length - 1 ? `{ v = ${read}; }` : `if (ap < ${u32Lit(rel + e)}) { v = ${read}; }`;
    });
    const body = `let iv = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let ap = t % ${u32Lit(span)};
let ou = t / ${u32Lit(span)};
var v: ${wgslType(node.dtype)};
${branches.join(" else ")}
y[(ou * ${u32Lit(total)} + ${u32Lit(a0)} + ap) * ${u32Lit(inner)} + iv] = v;`;
    return perElementDispatch(spec, caps, { label: groups.length > 1 ? labelOf(node, `${node.shape.join("x")}:part${gi}`) : void 0, strategy: `concat along axis ${axis}: inputs ${g.join(", ")} into [${a0}, ${a1})`, buffers, n: n2, body });
  });
  return planOf(dispatches);
}
function gatherDims(tableShape, k, axis) {
  return { outer: numel(tableShape.slice(0, axis)), inner: numel(tableShape.slice(axis + 1)), extent: tableShape[axis], k };
}
function gatherKernel(spec, caps) {
  const { node } = spec;
  const { axis } = node.attrs;
  const n2 = numel(node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const { inner, extent, k } = gatherDims(spec.inputs[0].shape, numel(spec.inputs[1].shape), axis);
  const { buffers, name } = bindOperands(spec, [0, 1], ["table", "idx"]);
  const body = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let j = t % ${u32Lit(k)};
let a = t / ${u32Lit(k)};
let r = u32(clamp(${name(1)}[j], 0i, ${extent - 1}i));
y[o] = ${name(0)}[(a * ${u32Lit(extent)} + r) * ${u32Lit(inner)} + b];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `gather along axis ${axis}: ${k} indices into ${extent} rows of ${inner} (indices clamped)`, buffers, n: n2, body })]);
}
function scatterAddKernel(spec, caps) {
  const { node } = spec;
  const { axis } = node.attrs;
  const n2 = numel(node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const { outer, inner, extent, k } = gatherDims(spec.inputs[0].shape, numel(spec.inputs[1].shape), axis);
  if (k <= SCATTER_LOOP_MAX_INDICES) {
    const { buffers, name } = bindOperands(spec, [0, 1, 2], ["tgt", "idx", "upd"]);
    const body2 = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let r = i32(t % ${u32Lit(extent)});
let a = t / ${u32Lit(extent)};
var acc = ${name(0)}[o];
for (var j = 0u; j < ${u32Lit(k)}; j = j + 1u) {
  if (${name(1)}[j] == r) { acc = acc + ${name(2)}[(a * ${u32Lit(k)} + j) * ${u32Lit(inner)} + b]; }
}
y[o] = acc;`;
    return planOf([perElementDispatch(spec, caps, { strategy: `scatterAdd (gather-style): each target element sums the updates of the ${k} indices that hit its row`, buffers, n: n2, body: body2 })]);
  }
  const segmented = segmentedScatterAdd(spec, caps, { outer, inner, extent, k });
  if (segmented) return segmented;
  const copy = elementwisePlan(spec, caps, "scatterAdd pass 1 of 2: copy the target", (load) => ({ code: "", result: load(0) })).dispatches[0];
  const body = `let b = o % ${u32Lit(inner)};
let t = o / ${u32Lit(inner)};
let j = t % ${u32Lit(k)};
let a = t / ${u32Lit(k)};
let r = idx[j];
if (r < 0i || r >= ${extent}i) { return; }
let dst = (a * ${u32Lit(extent)} + u32(r)) * ${u32Lit(inner)} + b;
let u = upd[o];
var old = atomicLoad(&y[dst]);
loop {
  let res = atomicCompareExchangeWeak(&y[dst], old, bitcast<u32>(bitcast<f32>(old) + u));
  if (res.exchanged) { break; }
  old = res.old_value;
}`;
  const add = perElementDispatch(spec, caps, {
    label: labelOf(node, `${node.shape.join("x")}:add`),
    strategy: "scatterAdd pass 2 of 2: a thread per update element adds it at its index (CAS loop on atomic<u32>: WGSL has no f32 atomicAdd)",
    buffers: [inputVar(spec, 1, "idx"), inputVar(spec, 2, "upd"), outputVar(spec, "y", { element: "atomic<u32>" })],
    n: outer * k * inner,
    body
  });
  return planOf([{ ...copy, label: labelOf(node, `${node.shape.join("x")}:copy`) }, add]);
}
var SCATTER_CHUNK = 128;
function segmentedScatterAdd(spec, caps, d) {
  const { outer, inner, extent, k } = d;
  const node = spec.node;
  const cols = [64, 32].find((c) => extent * c * 4 <= caps.maxComputeWorkgroupStorageSize && c <= caps.maxComputeInvocationsPerWorkgroup && c <= caps.maxComputeWorkgroupSizeX);
  const chunks2 = Math.ceil(k / SCATTER_CHUNK);
  const partBytes = outer * chunks2 * extent * inner * 4;
  if (!cols || partBytes > caps.maxStorageBufferBindingSize || spec.inputs[2].dtype !== "f32") return void 0;
  const blocks = Math.ceil(inner / cols);
  const g1 = linearGrid(spec, outer * chunks2 * blocks, caps);
  const body1 = `let cb = w % ${u32Lit(blocks)};
let c = (w / ${u32Lit(blocks)}) % ${u32Lit(chunks2)};
let a = w / ${u32Lit(blocks * chunks2)};
let b = cb * ${u32Lit(cols)} + lid;
for (var r = 0u; r < ${u32Lit(extent)}; r = r + 1u) { sums[r * ${u32Lit(cols)} + lid] = 0.0; }
if (b < ${u32Lit(inner)}) {
  let j1 = min((c + 1u) * ${u32Lit(SCATTER_CHUNK)}, ${u32Lit(k)});
  for (var j = c * ${u32Lit(SCATTER_CHUNK)}; j < j1; j = j + 1u) {
    let r = idx[j];
    if (r >= 0i && r < ${extent}i) { sums[u32(r) * ${u32Lit(cols)} + lid] = sums[u32(r) * ${u32Lit(cols)} + lid] + upd[(a * ${u32Lit(k)} + j) * ${u32Lit(inner)} + b]; }
  }
  let base = (a * ${u32Lit(chunks2)} + c) * ${u32Lit(extent * inner)} + b;
  for (var r = 0u; r < ${u32Lit(extent)}; r = r + 1u) { part[base + r * ${u32Lit(inner)}] = sums[r * ${u32Lit(cols)} + lid]; }
}`;
  const d1 = shaderDispatch(spec, {
    label: labelOf(node, `${node.shape.join("x")}:partials`),
    strategy: `scatterAdd pass 1 of 2 (segmented): a workgroup per (chunk of ${SCATTER_CHUNK} indices, ${cols} columns) sums the updates per target row in workgroup memory, a thread per column`,
    buffers: [inputVar(spec, 1, "idx"), inputVar(spec, 2, "upd"), scratchVar(0, "part", "read_write")],
    decls: [`var<workgroup> sums: array<f32, ${extent * cols}>;`],
    main: perWorkgroupMain(cols, g1.index, u32Lit(outer * chunks2 * blocks), body1, "w"),
    workgroupSize: cols,
    grid: g1.grid
  });
  const body2 = `let b = o % ${u32Lit(inner)};
let ar = o / ${u32Lit(inner)};
let a = ar / ${u32Lit(extent)};
let r = ar % ${u32Lit(extent)};
var acc = tgt[o];
for (var c = 0u; c < ${u32Lit(chunks2)}; c = c + 1u) { acc = acc + part[((a * ${u32Lit(chunks2)} + c) * ${u32Lit(extent)} + r) * ${u32Lit(inner)} + b]; }
y[o] = acc;`;
  const d2 = perElementDispatch(spec, caps, {
    label: labelOf(node, `${node.shape.join("x")}:combine`),
    strategy: `scatterAdd pass 2 of 2 (segmented): a thread per target element adds its ${chunks2} chunk sums in order`,
    buffers: [inputVar(spec, 0, "tgt"), scratchVar(0, "part", "read"), outputVar(spec)],
    n: outer * extent * inner,
    body: body2
  });
  return planOf([d1, d2], [partBytes]);
}
function oneHotKernel(spec, caps) {
  const { classes: classes2 } = spec.node.attrs;
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ["labels"]);
  const body = `y[o] = select(0.0, 1.0, labels[o / ${u32Lit(classes2)}] == i32(o % ${u32Lit(classes2)}));`;
  return planOf([perElementDispatch(spec, caps, { strategy: `oneHot over ${classes2} classes`, buffers, n: n2, body })]);
}
function argmaxKernel(spec, caps) {
  const { axis } = spec.node.attrs;
  const xShape = spec.inputs[0].shape;
  const extent = xShape[axis];
  const inner = numel(xShape.slice(axis + 1));
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const body = `let b = o % ${u32Lit(inner)};
let base = (o / ${u32Lit(inner)}) * ${u32Lit(extent * inner)} + b;
var best = 0i;
var bv = x[base];
for (var j = 1u; j < ${u32Lit(extent)} && bv == bv; j = j + 1u) {
  let v = x[base + j * ${u32Lit(inner)}];
  if (v > bv || v != v) { best = i32(j); bv = v; }
}
y[o] = best;`;
  return planOf([perElementDispatch(spec, caps, { strategy: `argmax over ${extent} elements of stride ${inner}, a thread per output`, buffers, n: n2, body })]);
}
function stopGradientKernel(spec, caps) {
  return elementwisePlan(spec, caps, "copy (stopGradient)", (load) => ({ code: "", result: load(0) }));
}

// packages/wgsl-kernels/src/layout.ts
function expandKernel(spec, caps) {
  return elementwisePlan(spec, caps, "broadcast copy (expand)", (load) => ({ code: "", result: load(0) }));
}
function transposeTile(caps) {
  for (const t of [16, 8, 4]) {
    if (t * t <= caps.maxComputeInvocationsPerWorkgroup && t <= caps.maxComputeWorkgroupSizeX && t <= caps.maxComputeWorkgroupSizeY && t * (t + 1) * 4 <= caps.maxComputeWorkgroupStorageSize) return t;
  }
  return 0;
}
function transposeKernel(spec, caps) {
  const { node } = spec;
  const perm = node.attrs.perm;
  const x = spec.inputs[0];
  const n2 = numel(node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const inStrides = stridesOf(x.shape);
  const c = collapseAxes(node.shape, [perm.map((p) => inStrides[p])]);
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const ty = wgslType(node.dtype);
  const max = caps.maxComputeWorkgroupsPerDimension;
  const s = c.shape.length === 2 ? [1, ...c.shape] : c.shape;
  const st = c.shape.length === 2 ? [0, ...c.strides[0]] : c.strides[0];
  const t = transposeTile(caps);
  if (t && s.length === 3 && st[1] === 1 && st[2] === s[1] && (s[0] === 1 || st[0] === s[1] * s[2])) {
    const [B, R, C] = s;
    const grid = [Math.ceil(C / t), Math.ceil(R / t), B];
    if (grid.every((g) => g <= max)) {
      const main = computeMain(
        `${t}, ${t}`,
        "@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>",
        `let base = wid.z * R * C;
let r0 = wid.y * T;
let c0 = wid.x * T;
// read x[b, c0 + ly, r0 + lx] (contiguous in lx)
let xc = c0 + lid.y;
let xr = r0 + lid.x;
if (xc < C && xr < R) { tile[lid.y * (T + 1u) + lid.x] = x[base + xc * R + xr]; }
workgroupBarrier();
// write y[b, r0 + ly, c0 + lx] = x[b, c0 + lx, r0 + ly] (contiguous in lx)
let yr = r0 + lid.y;
let yc = c0 + lid.x;
if (yr < R && yc < C) { y[base + yr * C + yc] = tile[lid.x * (T + 1u) + lid.y]; }`
      );
      const decls = [`const R = ${u32Lit(R)};`, `const C = ${u32Lit(C)};`, `const T = ${u32Lit(t)};`, `var<workgroup> tile: array<${ty}, ${t * (t + 1)}>;`];
      const strategy = `tiled ${t}x${t} shared-memory transpose of ${B} matri${B === 1 ? "x" : "ces"} [${C}, ${R}] -> [${R}, ${C}]`;
      return planOf([shaderDispatch(spec, { strategy, buffers, decls, main, workgroupSize: [t, t], grid })]);
    }
  }
  const body = `${indexMath("o", c.shape, c.strides, ["i"])}
y[o] = x[i];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `strided gather, perm [${perm}] over merged shape [${c.shape}]`, buffers, n: n2, count: "N", body })]);
}

// packages/wgsl-kernels/src/matmulEpilogue.ts
var f32Of5 = (v, dtype) => dtype === "f32" ? v : `f32(${v})`;
var calls2 = (code, fn) => new RegExp(`\\b${fn}\\(`).test(code);
function matmulEpilogueHook(spec) {
  if (!isSpecOf(spec, "matmulEpilogue")) return void 0;
  const { expr } = spec.node.attrs;
  const extras = spec.inputs.slice(2);
  const used = /* @__PURE__ */ new Set();
  const e = emitPwExpr(
    expr,
    (i) => {
      if (i === 0) return "prod";
      if (i - 1 >= extras.length) kernelError(spec, `the epilogue reads $${i}, but there are ${extras.length} extra operands`);
      used.add(i - 1);
      return f32Of5(`v${i - 1}`, extras[i - 1].dtype);
    },
    "(o & 0u)"
  );
  const order = [...used].sort((a, b) => a - b);
  const names = order.map((k) => `ep${k}`);
  const loads = operandLoads(
    extras,
    order.map((k) => [k]),
    names,
    used,
    spec.node.shape
  );
  const fn = `fn epilogue(prod: f32, o: u32) -> f32 {
${indent([...loads, e.code, `return ${e.result};`].filter(Boolean).join("\n"))}
}`;
  const helpers = Object.keys(HELPERS).filter((h) => calls2(fn, h));
  return {
    declare(first) {
      const bindings = order.map((k) => ({ source: { kind: "input", index: k + 2 }, access: "read", dtype: extras[k].dtype }));
      const decl = order.map((k, j) => `@group(0) @binding(${first + j}) var<storage, read> ${names[j]}: array<${wgslType(extras[k].dtype)}>;`);
      const h = emitHelpers(new Set(helpers));
      return { bindings, decl: [...decl, ...h ? [h] : [], fn] };
    },
    at: (v, index) => `epilogue(${v}, ${index})`,
    what: `epilogue ${fmtPwExpr(expr)}`
  };
}

// packages/wgsl-kernels/src/matmul.ts
var MATMUL_CONFIGS = [
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 256 },
  { bm: 64, bn: 64, bk: 16, tm: 8, tn: 4, minTiles: 128 },
  { bm: 32, bn: 32, bk: 16, tm: 4, tn: 4, minTiles: 0 },
  { bm: 16, bn: 16, bk: 16, tm: 4, tn: 4, minTiles: 0 }
];
var MATMUL_LARGE = { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8, minTiles: 256, unroll: true, ka: true };
function prefersLarge(p, caps) {
  const c = MATMUL_LARGE;
  return !p.transA && !p.transB && p.batches === 1 && p.K % 4 === 0 && p.N % 4 === 0 && Math.ceil(p.M / c.bm) * Math.ceil(p.N / c.bn) >= c.minTiles && matmulConfigFits(c, caps);
}
var MATMUL_CANDIDATES = [
  [128, 64, 16, 8, 8],
  [128, 64, 8, 8, 8],
  [128, 128, 8, 8, 8],
  [128, 128, 16, 8, 8],
  [64, 128, 16, 8, 8],
  [64, 64, 16, 8, 4],
  [32, 32, 16, 4, 4]
].flatMap(([bm, bn, bk, tm, tn]) => [
  { bm, bn, bk, tm, tn, minTiles: 0 },
  { bm, bn, bk, tm, tn, minTiles: 0, unroll: true },
  { bm, bn, bk, tm, tn, minTiles: 0, unroll: true, db: true }
]).concat([
  { ...MATMUL_LARGE, minTiles: 0 },
  { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8, minTiles: 0, unroll: true, ka: true },
  { bm: 128, bn: 64, bk: 8, tm: 8, tn: 8, minTiles: 0, unroll: true, db: true, ka: true },
  { bm: 128, bn: 128, bk: 8, tm: 8, tn: 8, minTiles: 0, unroll: true, db: true, ka: true }
]);
var matmulConfigName = (c) => `${c.bm}x${c.bn}x${c.bk}/${c.tm}x${c.tn}${c.unroll ? "+u" : ""}${c.db ? "+db" : ""}${c.ka ? "+ka" : ""}`;
var SKINNY_MAX_M = 64;
var SKINNY_MAX_TILES = 128;
function prefersSkinny(m, n2, transA, transB) {
  return m <= SKINNY_MAX_M && Math.ceil(m / 32) * Math.ceil(n2 / 32) < SKINNY_MAX_TILES && !(transA && transB);
}
var threadsOf = (c) => c.bn / c.tn * (c.bm / c.tm);
var sharedBytesOf = (c) => ((c.ka ? c.bk + 4 : c.bk) * c.bm + c.bk * c.bn) * 4 * (c.db ? 2 : 1);
function matmulConfigFits(c, caps) {
  return threadsOf(c) <= caps.maxComputeInvocationsPerWorkgroup && c.bn / c.tn <= caps.maxComputeWorkgroupSizeX && c.bm / c.tm <= caps.maxComputeWorkgroupSizeY && sharedBytesOf(c) <= caps.maxComputeWorkgroupStorageSize;
}
function chooseMatmulConfig(m, n2, caps, configs = MATMUL_CONFIGS) {
  const fits2 = configs.filter((c) => matmulConfigFits(c, caps));
  return fits2.find((c) => Math.ceil(m / c.bm) * Math.ceil(n2 / c.bn) >= c.minTiles) ?? fits2[fits2.length - 1];
}
function chooseSkinnyConfig(m, transB, caps) {
  let nt = 256;
  while (nt > caps.maxComputeInvocationsPerWorkgroup || nt > caps.maxComputeWorkgroupSizeX) nt /= 2;
  if (nt < 16) return void 0;
  const rm = Math.min(8, m);
  const s = transB ? 16 : Math.min(32, nt / 8);
  const cfg = { rm, wn: nt / s, s };
  return rm * nt * 4 <= caps.maxComputeWorkgroupStorageSize ? cfg : void 0;
}
function matmulShapeOf(out2, a, transA, transB) {
  const rank = out2.length;
  return { m: out2[rank - 2], n: out2[rank - 1], k: transA ? a[a.length - 2] : a[a.length - 1], transA, transB, batches: numel(out2.slice(0, rank - 2)) };
}
function matmulProblemOf(spec) {
  const { node } = spec;
  const attrs = node.attrs;
  const hasBias = node.op === "fusedMatmul" && node.attrs.bias;
  const relu = node.op === "fusedMatmul" && node.attrs.activation === "relu";
  const rank = node.shape.length;
  const a = spec.inputs[0].shape;
  const { m: M, n: N, k: K } = matmulShapeOf(node.shape, a, attrs.transA, attrs.transB);
  const batch = node.shape.slice(0, rank - 2);
  const batches = numel(batch);
  let offsets = "let aoff = 0u; let boff = 0u; let yoff = 0u; let zbias = 0u;";
  if (batch.length) {
    const sa = broadcastStrides(a.slice(0, -2), batch).map((x) => x * M * K);
    const sb = broadcastStrides(spec.inputs[1].shape.slice(0, -2), batch).map((x) => x * K * N);
    const sz = hasBias ? broadcastStrides(spec.inputs[2].shape, node.shape).slice(0, rank - 2) : batch.map(() => 0);
    offsets = `${indexMath("wid.z", batch, [sa, sb, sz], ["aoff", "boff", "zbias"], "z").split("\n").join(" ")} let yoff = wid.z * ${u32Lit(M * N)};`;
  }
  return { spec, M, N, K, transA: attrs.transA, transB: attrs.transB, hasBias, relu, epi: matmulEpilogueHook(spec), batch, batches, offsets };
}
var SPLIT_K_TARGET_WORKGROUPS2 = 512;
var SPLIT_K_MIN_K2 = 512;
var SPLIT_K_MIN_CHUNK2 = 128;
function chooseSplitK(m, n2, k, batches, caps, configs = MATMUL_CONFIGS) {
  if (batches !== 1 || k < SPLIT_K_MIN_K2 || k < 4 * Math.max(m, n2)) return void 0;
  const cfg = configs.find((c) => matmulConfigFits(c, caps));
  if (!cfg) return void 0;
  const tiles = Math.ceil(m / cfg.bm) * Math.ceil(n2 / cfg.bn);
  if (tiles >= SPLIT_K_TARGET_WORKGROUPS2 / 4) return void 0;
  let splits = Math.min(Math.ceil(SPLIT_K_TARGET_WORKGROUPS2 / tiles), Math.floor(k / SPLIT_K_MIN_CHUNK2));
  splits = Math.min(splits, Math.floor(caps.maxStorageBufferBindingSize / (m * n2 * 4)), caps.maxComputeWorkgroupsPerDimension);
  if (splits < 2) return void 0;
  const chunk = Math.ceil(k / splits / cfg.bk) * cfg.bk;
  return { cfg, splits: Math.ceil(k / chunk), chunk };
}
function matmulKernel(spec, caps, configs = MATMUL_CONFIGS) {
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0) return { dispatches: [], scratch: [] };
  if (prefersSkinny(p.M, p.N * p.batches, p.transA, p.transB)) {
    const s = chooseSkinnyConfig(p.M, p.transB, caps);
    if (s) return skinnyPlan(p, s, caps);
  }
  const split = chooseSplitK(p.M, p.N, p.K, p.batches, caps, configs);
  if (split) return tiledPlan(p, split.cfg, caps, split);
  if (configs === MATMUL_CONFIGS && prefersLarge(p, caps)) return tiledPlan(p, MATMUL_LARGE, caps);
  const cfg = chooseMatmulConfig(p.M, p.N * p.batches, caps, configs);
  if (!cfg) {
    const c = configs[configs.length - 1];
    checkWorkgroupMemory(spec, sharedBytesOf(c), caps);
    return kernelError(spec, `needs ${threadsOf(c)} invocations per workgroup, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  }
  return tiledPlan(p, cfg, caps);
}
function matmulPlanWith(spec, caps, cfg) {
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0) return { dispatches: [], scratch: [] };
  if ("rm" in cfg) return skinnyPlan(p, cfg, caps);
  if (!matmulConfigFits(cfg, caps)) kernelError(spec, `configuration ${JSON.stringify(cfg)} does not fit the device`);
  return tiledPlan(p, cfg, caps);
}
function bindMatmul(p, vecA, vecB, withEpilogue = true) {
  const { spec } = p;
  const same = spec.node.inputs[0] === spec.node.inputs[1];
  const va = vecA && !same;
  const vb = vecB && !same;
  const bindings = [{ source: { kind: "input", index: 0 }, access: "read", dtype: "f32" }];
  const decl = [`@group(0) @binding(0) var<storage, read> a: array<${va ? "vec4<f32>" : "f32"}>;`];
  if (!same) {
    bindings.push({ source: { kind: "input", index: 1 }, access: "read", dtype: "f32" });
    decl.push(`@group(0) @binding(1) var<storage, read> b: array<${vb ? "vec4<f32>" : "f32"}>;`);
  }
  if (p.hasBias) {
    decl.push(`@group(0) @binding(${bindings.length}) var<storage, read> bias: array<f32>;`);
    bindings.push({ source: { kind: "input", index: 2 }, access: "read", dtype: "f32" });
  }
  if (p.epi && withEpilogue) {
    const e = p.epi.declare(bindings.length);
    bindings.push(...e.bindings);
    decl.push(...e.decl);
  }
  return { bindings, decl, A: "a", B: same ? "a" : "b", va, vb };
}
function biasAt(p, r, c) {
  if (!p.hasBias) return "";
  const st = broadcastStrides(p.spec.inputs[2].shape, p.spec.node.shape);
  const [bs0, bs1] = st.slice(st.length - 2);
  const terms = [p.batch.length ? "zbias" : "", bs0 ? `${r} * ${u32Lit(bs0)}` : "", bs1 ? bs1 === 1 ? c : `${c} * ${u32Lit(bs1)}` : ""].filter(Boolean);
  return `bias[${terms.join(" + ") || "0u"}]`;
}
function storeVec4(p, partial, vecOut) {
  const parts = [];
  if (p.hasBias && !partial) parts.push(`v = v + vec4<f32>(${[0, 1, 2, 3].map((x) => biasAt(p, "r", `min(c + ${u32Lit(x)}, N - 1u)`)).join(", ")});`);
  if (p.relu && !partial) parts.push("v = max(v, vec4<f32>());");
  if (p.epi && !partial) {
    const epi = p.epi;
    parts.push(`v = vec4<f32>(${[0, 1, 2, 3].map((x) => epi.at(`v.${"xyzw"[x]}`, `yoff + r * N + min(c + ${u32Lit(x)}, N - 1u)`)).join(", ")});`);
  }
  if (vecOut) parts.push("if (c < N) { y[(yoff + r * N + c) / 4u] = v; }");
  else parts.push(["x", "y", "z", "w"].map((cc, x) => `if (c + ${u32Lit(x)} < N) { y[yoff + r * N + c + ${u32Lit(x)}] = v.${cc}; }`).join(" "));
  return parts;
}
var matmulWhat = (p) => `${p.transA ? "A\u1D40" : "A"}\xB7${p.transB ? "B\u1D40" : "B"}${p.hasBias ? " + bias" : ""}${p.relu ? ", relu" : ""}${p.epi ? `, ${p.epi.what}` : ""}`;
function tiledPlan(p, cfg, caps, split) {
  const { spec, M, N, K, transA, transB } = p;
  const { bm, bn, bk, tm, tn } = cfg;
  const tx = bn / tn;
  const ty = bm / tm;
  const nt = tx * ty;
  if (split && (p.batches !== 1 || split.chunk % bk !== 0)) kernelError(spec, `split-K needs an unbatched matmul and a chunk that is a multiple of BK=${bk}`);
  const grid = [Math.ceil(N / bn), Math.ceil(M / bm), split ? split.splits : p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max))
    kernelError(spec, `needs a ${grid.join("x")} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  checkWorkgroupMemory(spec, sharedBytesOf(cfg), caps);
  const { bindings, decl, A, B, va, vb } = bindMatmul(p, transA ? M % 4 === 0 : K % 4 === 0, transB ? K % 4 === 0 : N % 4 === 0, !split);
  const vecOut = N % 4 === 0;
  const kA = !!cfg.ka && !transA && va && bk % 4 === 0;
  const twoD = !!cfg.ka;
  const at = (sh, k, x, w2) => {
    if (twoD) return `${sh}[${k}][${x}]`;
    const kk = k.includes(" + ") && !(k.startsWith("(") && k.endsWith(")")) ? `(${k})` : k;
    return `${sh}[${kk} * ${u32Lit(w2)} + ${x}]`;
  };
  if (split && p.hasBias) {
    decl.pop();
    bindings.pop();
  }
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${vecOut ? "vec4<f32>" : "f32"}>;`);
  bindings.push(split && !split.partialsOut ? { source: { kind: "scratch", index: 0 }, access: "read_write", dtype: "f32" } : { source: { kind: "output" }, access: "read_write", dtype: "f32" });
  const tileLoad = (which) => {
    const isA = which === "A";
    const buf = isA ? A : B;
    const vec = isA ? va : vb;
    const bx = isA ? bm : bn;
    const ext = isA ? "M" : "N";
    const g0 = isA ? "row0" : "col0";
    const sh = isA ? "As" : "Bs";
    const alongK = isA ? !transA : transB;
    const w2 = vec ? 4 : 1;
    const units = bx * bk / w2;
    const per = Math.ceil(units / nt);
    const kRows = isA && kA;
    const stores = [];
    const out2 = { regs: [], fetch: [], store: (slot) => stores.map((f) => f(slot ? `${u32Lit(slot * (kRows ? bx : bk))} + ` : "")) };
    for (let l = 0; l < per; l++) {
      const r = `${which.toLowerCase()}r${l}`;
      out2.regs.push(`var ${r}: ${vec ? "vec4<f32>" : "f32"};`);
      const e = `(lid + ${u32Lit(l * nt)})`;
      const guard = units % nt === 0 || l < per - 1 ? "" : `if (${e} < ${u32Lit(units)}) `;
      const coords = alongK ? `let x = ${e} / ${u32Lit(bk / w2)}; let k = (${e} % ${u32Lit(bk / w2)}) * ${u32Lit(w2)};` : `let k = ${e} / ${u32Lit(bx / w2)}; let x = (${e} % ${u32Lit(bx / w2)}) * ${u32Lit(w2)};`;
      const gx = `${g0} + x`;
      const gk = "kt + k";
      const index = `${isA ? "aoff" : "boff"} + ${isA ? transA ? `(${gk}) * M + ${gx}` : `(${gx}) * K + ${gk}` : transB ? `(${gx}) * K + ${gk}` : `(${gk}) * N + ${gx}`}`;
      const zero = vec ? "vec4<f32>()" : "0.0";
      out2.fetch.push(`${guard}{ ${coords} ${r} = ${zero}; if (${gx} < ${ext} && ${gk} < K) { ${r} = ${buf}[${vec ? `(${index}) / 4u` : index}]; } }`);
      const w4 = bx / 4;
      if (kRows) stores.push((so) => `${guard}{ ${coords} ${sh}[${so}x][k / 4u] = ${r}; }`);
      else if (!vec) stores.push((so) => `${guard}{ ${coords} ${at(sh, `${so}k`, "x / 4u", w4)}[x % 4u] = ${r}; }`);
      else if (alongK) stores.push((so) => `${guard}{ ${coords} ${["x", "y", "z", "w"].map((c, q) => `${at(sh, `${so}(k + ${u32Lit(q)})`, "x / 4u", w4)}[x % 4u] = ${r}.${c};`).join(" ")} }`);
      else stores.push((so) => `${guard}{ ${coords} ${at(sh, `${so}k`, "x / 4u", w4)} = ${r}; }`);
    }
    return out2;
  };
  const la = tileLoad("A");
  const lb = tileLoad("B");
  const mi = tm / 4;
  const nj = tn / 4;
  const lines = [];
  const L = (s, d = 1) => lines.push(`${"  ".repeat(d)}${s}`);
  for (let r = 0; r < tm; r++) for (let j = 0; j < nj; j++) L(`var acc${r}_${j} = vec4<f32>();`);
  for (const s of [...la.regs, ...lb.regs]) L(s);
  L(split ? `let kbeg = wid.z * ${u32Lit(split.chunk)}; let kend = min(K, kbeg + ${u32Lit(split.chunk)});` : "let kbeg = 0u; let kend = K;");
  L("{ let kt = kbeg;");
  for (const s of [...la.fetch, ...lb.fetch]) L(s, 2);
  L("}");
  const step = (k, slot, d) => {
    if (kA) return stepKA(k, slot, d);
    const ks = slot ? `(${u32Lit(slot * bk)} + ${k})` : k;
    for (let i = 0; i < mi; i++) L(`let a${i} = ${at("As", ks, `${u32Lit(i * ty)} + ty`, bm / 4)};`, d);
    for (let j = 0; j < nj; j++) L(`let b${j} = ${at("Bs", ks, `${u32Lit(j * tx)} + tx`, bn / 4)};`, d);
    for (let i = 0; i < mi; i++)
      for (let q = 0; q < 4; q++) L(Array.from({ length: nj }, (_, j) => `acc${i * 4 + q}_${j} = fma(vec4<f32>(a${i}.${"xyzw"[q]}), b${j}, acc${i * 4 + q}_${j});`).join(" "), d);
  };
  const stepKA = (k, slot, d) => {
    const ks = slot ? `${u32Lit(slot * bk)} + ${k}` : k;
    for (let i = 0; i < mi; i++)
      for (let q = 0; q < 4; q++) L(`let a${i}_${q} = As[${u32Lit(slot * bm + (i * 4 + q) * ty)} + ty][(${k}) / 4u];`, d);
    for (let c = 0; c < 4; c++) {
      for (let j = 0; j < nj; j++) L(`let b${j}_${c} = Bs[${ks} + ${u32Lit(c)}][${u32Lit(j * tx)} + tx];`, d);
      for (let i = 0; i < mi; i++)
        for (let q = 0; q < 4; q++) L(Array.from({ length: nj }, (_, j) => `acc${i * 4 + q}_${j} = fma(vec4<f32>(a${i}_${q}.${"xyzw"[c]}), b${j}_${c}, acc${i * 4 + q}_${j});`).join(" "), d);
    }
  };
  const kStep = kA ? 4 : 1;
  const slice = (slot, d) => {
    if (!cfg.unroll) {
      L(`for (var k = 0u; k < BK; k = k + ${u32Lit(kStep)}) {`, d);
      step("k", slot, d + 1);
      L("}", d);
    } else for (let k = 0; k < bk; k += kStep) {
      L("{", d);
      step(u32Lit(k), slot, d + 1);
      L("}", d);
    }
  };
  if (!cfg.db) {
    L("for (var k0 = kbeg; k0 < kend; k0 = k0 + BK) {");
    for (const s of [...la.store(0), ...lb.store(0)]) L(s, 2);
    L("workgroupBarrier();", 2);
    L("if (k0 + BK < kend) { let kt = k0 + BK;", 2);
    for (const s of [...la.fetch, ...lb.fetch]) L(s, 3);
    L("}", 2);
    slice(0, 2);
    L("workgroupBarrier();", 2);
    L("}");
  } else {
    for (const s of [...la.store(0), ...lb.store(0)]) L(s);
    L("if (kbeg + BK < kend) { let kt = kbeg + BK;");
    for (const s of [...la.fetch, ...lb.fetch]) L(s, 2);
    L("}");
    L("workgroupBarrier();");
    L("for (var k0 = kbeg; k0 < kend; k0 = k0 + 2u * BK) {");
    for (const slot of [0, 1]) {
      const at2 = slot ? "k0 + BK" : "k0";
      const d = slot ? 3 : 2;
      if (slot) L("if (k0 + BK < kend) {", 2);
      L(`if (${at2} + BK < kend) {`, d);
      for (const s of [...la.store(1 - slot), ...lb.store(1 - slot)]) L(s, d + 1);
      L("}", d);
      L(`if (${at2} + 2u * BK < kend) { let kt = ${at2} + 2u * BK;`, d);
      for (const s of [...la.fetch, ...lb.fetch]) L(s, d + 1);
      L("}", d);
      slice(slot, d);
      L("workgroupBarrier();", d);
      if (slot) L("}", 2);
    }
    L("}");
  }
  for (let i = 0; i < mi; i++)
    for (let q = 0; q < 4; q++) {
      const r = i * 4 + q;
      L(kA ? `{ let r = row0 + ${u32Lit((i * 4 + q) * ty)} + ty; if (r < M) {` : `{ let r = row0 + (${u32Lit(i * ty)} + ty) * 4u + ${u32Lit(q)}; if (r < M) {`);
      for (let j = 0; j < nj; j++) {
        const parts = [`let c = col0 + (${u32Lit(j * tx)} + tx) * 4u;`, `var v = acc${r}_${j};`, ...storeVec4(p, split !== void 0, vecOut)];
        L(`{ ${parts.join(" ")} }`, 2);
      }
      L("} }");
    }
  const body = lines.join("\n");
  const loads = `${va ? "vec4" : "scalar"} A loads, ${vb ? "vec4" : "scalar"} B loads, ${vecOut ? "vec4" : "scalar"} stores`;
  const slots = cfg.db ? 2 : 1;
  const code = `${header(spec, `tiled matmul ${matmulWhat(p)}: M=${M} N=${N} K=${K}, tile ${bm}x${bn}x${bk}${cfg.db ? " double-buffered" : ""}${cfg.unroll ? ", k unrolled" : ""}${kA ? ", A staged k-contiguous" : ""}, ${tm}x${tn} per thread, ${tx}x${ty} threads, ${loads}`)}${decl.join("\n")}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
const BM = ${u32Lit(bm)};
const BN = ${u32Lit(bn)};
const BK = ${u32Lit(bk)};
var<workgroup> As: ${kA ? `array<array<vec4<f32>, ${bk / 4 + 1}>, ${slots * bm}>` : twoD ? `array<array<vec4<f32>, ${bm / 4}>, ${slots * bk}>` : `array<vec4<f32>, ${slots * bk * bm / 4}>`};
var<workgroup> Bs: ${twoD ? `array<array<vec4<f32>, ${bn / 4}>, ${slots * bk}>` : `array<vec4<f32>, ${slots * bk * bn / 4}>`};

@compute @workgroup_size(${tx}, ${ty})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * BM;
  let col0 = wid.x * BN;
  let tx = lid3.x;
  let ty = lid3.y;
  ${split ? `let aoff = 0u; let boff = 0u; let yoff = wid.z * ${u32Lit(M * N)};` : p.offsets}
${body}
}
`;
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join("x")}x` : ""}${M}x${K}x${N}`);
  const main = { label: split ? `${label}:split${split.splits}` : label, code, bindings, workgroupSize: [tx, ty, 1], grid };
  if (!split || split.partialsOut) return { dispatches: [main], scratch: [] };
  return { dispatches: [main, splitReduce(p, split.splits, caps, label)], scratch: [split.splits * M * N * 4] };
}
function splitReduce(p, splits, caps, label) {
  const { spec, M, N } = p;
  const vec = N % 4 === 0;
  const w2 = vec ? 4 : 1;
  const ty = vec ? "vec4<f32>" : "f32";
  const bindings = [{ source: { kind: "scratch", index: 0 }, access: "read", dtype: "f32" }];
  const decl = [`@group(0) @binding(0) var<storage, read> part: array<${ty}>;`];
  if (p.hasBias) {
    decl.push("@group(0) @binding(1) var<storage, read> bias: array<f32>;");
    bindings.push({ source: { kind: "input", index: 2 }, access: "read", dtype: "f32" });
  }
  if (p.epi) {
    const e = p.epi.declare(bindings.length);
    bindings.push(...e.bindings);
    decl.push(...e.decl);
  }
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${ty}>;`);
  bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
  const units = M * N / w2;
  const wg = linearWorkgroupSize(caps, 256);
  const g = linearGrid(spec, Math.ceil(units / wg), caps);
  const bias = p.hasBias ? vec ? `v = v + vec4<f32>(${[0, 1, 2, 3].map((x) => biasAt(p, "r", `c + ${u32Lit(x)}`)).join(", ")});` : `v = v + ${biasAt(p, "r", "c")};` : "";
  const code = `${header(spec, `split-K reduction: sums ${splits} partial products${p.hasBias ? ", adds the bias" : ""}${p.relu ? ", relu" : ""}; a thread per output ${vec ? "vec4" : "element"}`)}${decl.join("\n")}

@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let e = (${g.index}) * ${u32Lit(wg)} + lid;
  if (e >= ${u32Lit(units)}) { return; }
  let r = (e * ${u32Lit(w2)}) / ${u32Lit(N)};
  let c = (e * ${u32Lit(w2)}) % ${u32Lit(N)};
  var v = part[e];
  for (var s = 1u; s < ${u32Lit(splits)}; s = s + 1u) { v = v + part[s * ${u32Lit(units)} + e]; }
  ${bias}
  ${p.relu ? `v = max(v, ${ty}());` : ""}
  ${p.epi ? `v = ${epiSplit(p.epi, vec)};` : ""}
  y[e] = v;
}
`;
  return { label: `${label}:reduce`, code, bindings, workgroupSize: [wg, 1, 1], grid: g.grid };
}
function epiSplit(epi, vec) {
  if (!vec) return epi.at("v", "e");
  return `vec4<f32>(${[0, 1, 2, 3].map((x) => epi.at(`v.${"xyzw"[x]}`, `e * 4u + ${u32Lit(x)}`)).join(", ")})`;
}
function skinnyPlan(p, cfg, caps) {
  const { spec, M, N, K, transA, transB } = p;
  const { rm, wn, s } = cfg;
  const nt = wn * s;
  const grid = [Math.ceil(N / wn), Math.ceil(M / rm), p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max))
    kernelError(spec, `needs a ${grid.join("x")} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  checkWorkgroupMemory(spec, rm * nt * 4, caps);
  const { bindings, decl, A, B } = bindMatmul(p, false, false);
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<f32>;`);
  bindings.push({ source: { kind: "output" }, access: "read_write", dtype: "f32" });
  const lane = transB ? `let ks = lid % ${u32Lit(s)}; let nl = lid / ${u32Lit(s)};` : `let nl = lid % ${u32Lit(wn)}; let ks = lid / ${u32Lit(wn)};`;
  const aAt = (r) => transA ? `${A}[aoff + k * M + m0 + ${u32Lit(r)}]` : `${A}[aoff + (m0 + ${u32Lit(r)}) * K + k]`;
  const bAt = transB ? `${B}[boff + n * K + k]` : `${B}[boff + k * N + n]`;
  const rows = Array.from({ length: rm }, (_, r) => r);
  const full = M % rm === 0;
  const accs = rows.map((r) => `var acc${r} = 0.0;`).join(" ");
  const fmas = rows.map((r) => full ? `acc${r} = fma(${aAt(r)}, bv, acc${r});` : `if (m0 + ${u32Lit(r)} < M) { acc${r} = fma(${aAt(r)}, bv, acc${r}); }`).join("\n      ");
  const parts = rows.map((r) => `part[${u32Lit(r * nt)} + lid] = acc${r};`).join(" ");
  const bias = biasAt(p, "m", "n");
  const code = `${header(spec, `skinny matmul ${matmulWhat(p)}: M=${M} N=${N} K=${K}, ${rm} rows x ${wn} columns per workgroup, K split ${s} ways (${transB ? "k" : "column"} lanes fastest), partials summed in workgroup memory`)}${decl.join("\n")}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
const S = ${u32Lit(s)};
var<workgroup> part: array<f32, ${rm * nt}>;

@compute @workgroup_size(${nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.y * ${u32Lit(rm)};
  ${p.offsets}
  ${lane}
  let n = wid.x * ${u32Lit(wn)} + nl;
  ${accs}
  if (n < N) {
    for (var k = ks; k < K; k = k + S) {
      let bv = ${bAt};
      ${fmas}
    }
  }
  ${parts}
  workgroupBarrier();
  for (var o = lid; o < ${u32Lit(rm * wn)}; o = o + ${u32Lit(nt)}) {
    let r = o / ${u32Lit(wn)};
    let c = o % ${u32Lit(wn)};
    let m = m0 + r;
    let n = wid.x * ${u32Lit(wn)} + c;
    if (m < M && n < N) {
      var v = 0.0;
      for (var q = 0u; q < S; q = q + 1u) { v = v + part[r * ${u32Lit(nt)} + ${transB ? "c * S + q" : `q * ${u32Lit(wn)} + c`}]; }
${bias ? `      v = v + ${bias};
` : ""}${p.relu ? "      v = max(v, 0.0);\n" : ""}${p.epi ? `      v = ${p.epi.at("v", "yoff + m * N + n")};
` : ""}      y[yoff + m * N + n] = v;
    }
  }
}
`;
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join("x")}x` : ""}${M}x${K}x${N}`);
  return { dispatches: [{ label, code, bindings, workgroupSize: [nt, 1, 1], grid }], scratch: [] };
}

// packages/wgsl-kernels/src/matmulPartials.ts
function matmulPartialsKernel(spec, caps) {
  const { transA, transB, splits } = spec.node.attrs;
  const [S, M, N] = spec.node.shape;
  const a = spec.inputs[0].shape;
  const K = transA ? a[0] : a[1];
  if (S === 0 || M === 0 || N === 0) return { dispatches: [], scratch: [] };
  const cfg = MATMUL_CONFIGS.find((c) => matmulConfigFits(c, caps));
  if (!cfg) return kernelError(spec, "no tiled matmul configuration fits the device");
  const chunk = splitKChunk(K, splits);
  if (chunk % cfg.bk !== 0) kernelError(spec, `the chunk of K (${chunk}) is not a multiple of the tile's k slice ${cfg.bk}`);
  const p = { spec, M, N, K, transA, transB, hasBias: false, relu: false, batch: [], batches: 1, offsets: "" };
  return tiledPlan(p, cfg, caps, { splits, chunk, partialsOut: true });
}

// packages/wgsl-kernels/src/matmulSubgroupMatrix.ts
var SUBGROUP_MATRIX_LANES = 32;
var TILINGS = [
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, minTiles: 256 },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, minTiles: 128 },
  { sgm: 2, sgn: 2, fm: 2, fn: 2, bk: 32, minTiles: 0 }
];
var tileOf = (t, s) => ({ bm: t.sgm * t.fm * s.m, bn: t.sgn * t.fn * s.n, nt: t.sgm * t.sgn * SUBGROUP_MATRIX_LANES });
var bytesOf2 = (t, s) => {
  const { bm, bn } = tileOf(t, s);
  return (bm + bn) * t.bk * 2 * (t.db ? 2 : 1) + t.sgm * t.sgn * t.fn * s.m * s.n * 4;
};
function fits(t, s, caps) {
  return tileOf(t, s).nt <= caps.maxComputeInvocationsPerWorkgroup && tileOf(t, s).nt <= caps.maxComputeWorkgroupSizeX && bytesOf2(t, s) <= caps.maxComputeWorkgroupStorageSize && t.bk % s.k === 0;
}
function chooseSubgroupMatrixTiling(m, n2, s, caps) {
  const ok = TILINGS.filter((t) => fits(t, s, caps));
  return ok.find((t) => Math.ceil(m / tileOf(t, s).bm) * Math.ceil(n2 / tileOf(t, s).bn) >= t.minTiles) ?? ok[ok.length - 1];
}
function splitOf(p, t, s, caps) {
  const { M, N, K } = p;
  if (p.batches !== 1 || K < 512 || K < 4 * Math.max(M, N)) return void 0;
  const { bm, bn } = tileOf(t, s);
  const tiles = Math.ceil(M / bm) * Math.ceil(N / bn);
  if (tiles >= 128) return void 0;
  let splits = Math.min(Math.ceil(512 / tiles), Math.floor(K / 128), Math.floor(caps.maxStorageBufferBindingSize / (M * N * 4)), caps.maxComputeWorkgroupsPerDimension);
  if (splits < 2) return void 0;
  const chunk = Math.ceil(K / splits / t.bk) * t.bk;
  splits = Math.ceil(K / chunk);
  return splits < 2 ? void 0 : { splits, chunk };
}
function matmulMixedKernel(spec, caps) {
  if (!caps.mixedMatmul) return matmulKernel(spec, caps);
  const p = matmulProblemOf(spec);
  if (p.M === 0 || p.N === 0 || p.batches === 0 || prefersSkinny(p.M, p.N * p.batches, p.transA, p.transB)) return matmulKernel(spec, caps);
  return subgroupMatrixPlan(p, caps) ?? matmulKernel(spec, caps);
}
function subgroupMatrixPlan(p, caps, given) {
  const s = caps.mixedMatmul;
  if (!s) return kernelError(p.spec, "a subgroup-matrix plan needs caps.mixedMatmul (precision: mixed)");
  const t = given ?? chooseSubgroupMatrixTiling(p.M, p.N * p.batches, s, caps);
  if (!t) return void 0;
  if (given && !fits(given, s, caps)) kernelError(p.spec, `subgroup-matrix tiling ${JSON.stringify(given)} does not fit the device`);
  const split = splitOf(p, t, s, caps);
  const main = mainDispatch(p, s, t, caps, split);
  if (!split) return { dispatches: [main], scratch: [] };
  return { dispatches: [main, splitReduce(p, split.splits, caps, main.label.replace(/:split\d+$/, ""))], scratch: [split.splits * p.M * p.N * 4] };
}
function mainDispatch(p, s, t, caps, split) {
  const { spec, M, N, K, transA, transB } = p;
  const { sgm, sgn, fm, fn, bk } = t;
  const { bm, bn, nt } = tileOf(t, s);
  const grid = [Math.ceil(N / bn), Math.ceil(M / bm), split ? split.splits : p.batches];
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (grid.some((g) => g > max)) kernelError(spec, `needs a ${grid.join("x")} grid of workgroups, beyond maxComputeWorkgroupsPerDimension (device value ${max})`);
  const epilogue = !split && (p.hasBias || p.relu || p.epi !== void 0);
  const direct = !epilogue && M % s.m === 0 && N % s.n === 0;
  const vecA = transA ? M % 4 === 0 : K % 4 === 0;
  const vecB = transB ? K % 4 === 0 : N % 4 === 0;
  const { bindings, decl, A, B, va, vb } = bindMatmul(p, vecA, vecB, !split);
  if (split && p.hasBias) {
    decl.pop();
    bindings.pop();
  }
  const vecOut = !direct && N % 4 === 0;
  decl.push(`@group(0) @binding(${bindings.length}) var<storage, read_write> y: array<${vecOut ? "vec4<f32>" : "f32"}>;`);
  bindings.push(split ? { source: { kind: "scratch", index: 0 }, access: "read_write", dtype: "f32" } : { source: { kind: "output" }, access: "read_write", dtype: "f32" });
  const regs = [];
  const fetch = [];
  const store = [];
  const operand = (isA) => {
    const trans = isA ? transA : transB;
    const vec = isA ? va : vb;
    const w2 = vec ? 4 : 1;
    const bx = isA ? bm : bn;
    const alongK = isA ? !trans : trans;
    const inner = alongK ? bk : bx;
    const units = bx * bk / w2;
    const buf = isA ? A : B;
    const g0 = isA ? "row0" : "col0";
    const ext = isA ? "M" : "N";
    const x = alongK ? "o" : "i0";
    const k = alongK ? "i0" : "o";
    const index = `${isA ? "aoff" : "boff"} + ${isA ? trans ? `(kt + ${k}) * M + ${g0} + ${x}` : `(${g0} + ${x}) * K + kt + ${k}` : trans ? `(${g0} + ${x}) * K + kt + ${k}` : `(kt + ${k}) * N + ${g0} + ${x}`}`;
    const ty = vec ? "vec4<f16>" : "f16";
    for (let l = 0; l < Math.ceil(units / nt); l++) {
      const r = `${isA ? "a" : "b"}r${l}`;
      const e = `(lid + ${u32Lit(l * nt)})`;
      const guard = units % nt === 0 ? "" : `if (${e} < ${u32Lit(units)}) `;
      const at = `let i0 = (${e} % ${u32Lit(inner / w2)}) * ${u32Lit(w2)}; let o = ${e} / ${u32Lit(inner / w2)};`;
      regs.push(`var ${r}: ${ty};`);
      fetch.push(`${guard}{ ${at} ${r} = ${ty}(); if (${g0} + ${x} < ${ext} && kt + ${k} < K) { ${r} = ${ty}(${buf}[${vec ? `(${index}) / 4u` : index}]); } }`);
      const sh = isA ? "As" : "Bs";
      const put = vec ? [0, 1, 2, 3].map((q) => `${sh}[s + ${u32Lit(q)}] = ${r}.${"xyzw"[q]};`).join(" ") : `${sh}[s] = ${r};`;
      store.push(`${guard}{ ${at} let s = ${t.db ? `${isA ? "sA" : "sB"} + ` : ""}o * ${u32Lit(inner)} + i0; ${put} }`);
    }
  };
  operand(true);
  operand(false);
  const L = `subgroup_matrix_left<f16, ${s.k}, ${s.m}>`;
  const R = `subgroup_matrix_right<f16, ${s.n}, ${s.k}>`;
  const C = `subgroup_matrix_result<f32, ${s.n}, ${s.m}>`;
  const load = (ty, off, colMajor, stride) => {
    const left = ty.includes("left");
    return `subgroupMatrixLoad<${ty}, ${colMajor ? "col_major" : "row_major"}>(&${left ? "As" : "Bs"}, ${t.db ? `${left ? "rA" : "rB"} + ` : ""}${off}, ${u32Lit(stride)})`;
  };
  const lines = [];
  const emit = (x, d = 1) => lines.push(`${"  ".repeat(d)}${x}`);
  for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) emit(`var c${i}_${j}: ${C};`);
  emit(regs.join(" "));
  emit(split ? `let kbeg = wid.z * ${u32Lit(split.chunk)}; let kend = min(K, kbeg + ${u32Lit(split.chunk)});` : "let kbeg = 0u; let kend = K;");
  emit("{ let kt = kbeg;");
  for (const f of fetch) emit(f, 2);
  emit("}");
  const compute = () => {
    for (let kk = 0; kk < bk; kk += s.k) {
      emit("{", 2);
      for (let i = 0; i < fm; i++) {
        const m = `sm * ${u32Lit(fm * s.m)} + ${u32Lit(i * s.m)}`;
        emit(`let l${i} = ${transA ? load(L, `${u32Lit(kk * bm)} + ${m}`, true, bm) : load(L, `(${m}) * ${u32Lit(bk)} + ${u32Lit(kk)}`, false, bk)};`, 3);
      }
      for (let j = 0; j < fn; j++) {
        const n2 = `sn * ${u32Lit(fn * s.n)} + ${u32Lit(j * s.n)}`;
        emit(`let r${j} = ${transB ? load(R, `(${n2}) * ${u32Lit(bk)} + ${u32Lit(kk)}`, true, bk) : load(R, `${u32Lit(kk * bn)} + ${n2}`, false, bn)};`, 3);
      }
      for (let i = 0; i < fm; i++) for (let j = 0; j < fn; j++) emit(`c${i}_${j} = subgroupMatrixMultiplyAccumulate(l${i}, r${j}, c${i}_${j});`, 3);
      emit("}", 2);
    }
  };
  if (!t.db) {
    emit(`for (var k0 = kbeg; k0 < kend; k0 = k0 + ${u32Lit(bk)}) {`);
    for (const x of store) emit(x, 2);
    emit("workgroupBarrier();", 2);
    emit(`if (k0 + ${u32Lit(bk)} < kend) { let kt = k0 + ${u32Lit(bk)};`, 2);
    for (const f of fetch) emit(f, 3);
    emit("}", 2);
    compute();
    emit("workgroupBarrier();", 2);
    emit("}");
  } else {
    const sa = u32Lit(bm * bk);
    const sb = u32Lit(bk * bn);
    emit("{ let sA = 0u; let sB = 0u;");
    for (const x of store) emit(x, 2);
    emit("}");
    emit(`if (kbeg + ${u32Lit(bk)} < kend) { let kt = kbeg + ${u32Lit(bk)};`);
    for (const f of fetch) emit(f, 2);
    emit("}");
    emit("workgroupBarrier();");
    emit("var cur = 0u;");
    emit(`for (var k0 = kbeg; k0 < kend; k0 = k0 + ${u32Lit(bk)}) {`);
    emit(`let rA = cur * ${sa}; let rB = cur * ${sb}; let sA = ${sa} - rA; let sB = ${sb} - rB;`, 2);
    emit(`if (k0 + ${u32Lit(bk)} < kend) {`, 2);
    for (const x of store) emit(x, 3);
    emit("}", 2);
    emit(`if (k0 + ${u32Lit(2 * bk)} < kend) { let kt = k0 + ${u32Lit(2 * bk)};`, 2);
    for (const f of fetch) emit(f, 3);
    emit("}", 2);
    compute();
    emit("workgroupBarrier();", 2);
    emit("cur = 1u - cur;", 2);
    emit("}");
  }
  const r0 = (i) => `row0 + sm * ${u32Lit(fm * s.m)} + ${u32Lit(i * s.m)}`;
  const c0 = (j) => `col0 + sn * ${u32Lit(fn * s.n)} + ${u32Lit(j * s.n)}`;
  if (direct) {
    for (let i = 0; i < fm; i++)
      for (let j = 0; j < fn; j++) emit(`if (${r0(i)} < M && ${c0(j)} < N) { subgroupMatrixStore<row_major>(&y, yoff + (${r0(i)}) * N + ${c0(j)}, c${i}_${j}, N); }`);
  } else {
    const bw = fn * s.n;
    const per = s.m * bw / 4;
    for (let i = 0; i < fm; i++) {
      for (let j = 0; j < fn; j++) emit(`subgroupMatrixStore<row_major>(&Cs, sg * ${u32Lit(s.m * bw)} + ${u32Lit(j * s.n)}, c${i}_${j}, ${u32Lit(bw)});`);
      emit("workgroupBarrier();");
      emit(`for (var e = sl; e < ${u32Lit(per)}; e = e + ${u32Lit(SUBGROUP_MATRIX_LANES)}) {`);
      emit(`let r = ${r0(i)} + e / ${u32Lit(bw / 4)}; let c = col0 + sn * ${u32Lit(bw)} + (e % ${u32Lit(bw / 4)}) * 4u; let q = sg * ${u32Lit(s.m * bw)} + e * 4u;`, 2);
      const parts = ["var v = vec4<f32>(Cs[q], Cs[q + 1u], Cs[q + 2u], Cs[q + 3u]);", ...storeVec4(p, split !== void 0, vecOut)];
      emit(`if (r < M) { ${parts.join(" ")} }`, 2);
      emit("}");
      emit("workgroupBarrier();");
    }
  }
  const label = labelOf(spec.node, `${p.batch.length ? `${p.batch.join("x")}x` : ""}${M}x${K}x${N}`);
  const code = `${header(spec, `subgroup-matrix matmul ${matmulWhat(p)} (f16 operands, f32 accumulation): M=${M} N=${N} K=${K}, tile ${bm}x${bn}x${bk}, ${sgm}x${sgn} subgroups of ${fm}x${fn} ${s.m}x${s.n}x${s.k} matrices${t.db ? ", double-buffered" : ""}, ${va ? "vec4" : "scalar"} A loads, ${vb ? "vec4" : "scalar"} B loads, ${direct ? "results stored directly" : "results staged per row of matrices"}${split ? `, split-K ${split.splits}` : ""}`)}enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium.subgroup_matrix_uniformity);
${decl.join("\n")}

const M = ${u32Lit(M)};
const N = ${u32Lit(N)};
const K = ${u32Lit(K)};
var<workgroup> As: array<f16, ${bm * bk * (t.db ? 2 : 1)}>;
var<workgroup> Bs: array<f16, ${bk * bn * (t.db ? 2 : 1)}>;
${direct ? "" : `var<workgroup> Cs: array<f32, ${sgm * sgn * s.m * fn * s.n}>;
`}
@compute @workgroup_size(${nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let row0 = wid.y * ${u32Lit(bm)};
  let col0 = wid.x * ${u32Lit(bn)};
  let sg = lid / ${u32Lit(SUBGROUP_MATRIX_LANES)};
  let sl = lid % ${u32Lit(SUBGROUP_MATRIX_LANES)};
  let sm = sg / ${u32Lit(sgn)};
  let sn = sg % ${u32Lit(sgn)};
  ${split ? `let aoff = 0u; let boff = 0u; let yoff = wid.z * ${u32Lit(M * N)};` : p.offsets}
${lines.join("\n")}
}
`;
  return { label: split ? `${label}:split${split.splits}` : label, code, bindings, workgroupSize: [nt, 1, 1], grid };
}

// packages/wgsl-kernels/src/matmulTuning.ts
var MATMUL_HEURISTIC = "default";
var matmulShapeKey = (s) => `${s.m}x${s.n}x${s.k}:${s.transA ? "T" : "N"}${s.transB ? "T" : "N"}:b${s.batches ?? 1}`;
var shapeOfProblem = (p) => ({ m: p.M, n: p.N, k: p.K, transA: p.transA, transB: p.transB, batches: p.batches });
var MATMUL_CONFIG_BY_NAME = new Map([...MATMUL_CANDIDATES, ...MATMUL_CONFIGS].map((c) => [matmulConfigName(c), { ...c, minTiles: 0 }]));
function misfitOf(cfg, caps) {
  if (matmulConfigFits(cfg, caps)) return void 0;
  const threads = cfg.bm / cfg.tm * (cfg.bn / cfg.tn);
  const why = [];
  if (threads > caps.maxComputeInvocationsPerWorkgroup) why.push(`${threads} invocations > maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
  if (cfg.bn / cfg.tn > caps.maxComputeWorkgroupSizeX) why.push(`workgroup x ${cfg.bn / cfg.tn} > maxComputeWorkgroupSizeX (device value ${caps.maxComputeWorkgroupSizeX})`);
  if (cfg.bm / cfg.tm > caps.maxComputeWorkgroupSizeY) why.push(`workgroup y ${cfg.bm / cfg.tm} > maxComputeWorkgroupSizeY (device value ${caps.maxComputeWorkgroupSizeY})`);
  if (sharedBytesOf(cfg) > caps.maxComputeWorkgroupStorageSize) why.push(`${sharedBytesOf(cfg)} bytes of workgroup memory > maxComputeWorkgroupStorageSize (device value ${caps.maxComputeWorkgroupStorageSize})`);
  return why.join("; ");
}
function configOfEntry(key, name, caps) {
  if (name === MATMUL_HEURISTIC) return void 0;
  const cfg = MATMUL_CONFIG_BY_NAME.get(name);
  if (!cfg) return `tuning entry '${key}' names configuration '${name}', which is not a tiled matmul configuration (known: ${MATMUL_HEURISTIC}, ${[...MATMUL_CONFIG_BY_NAME.keys()].join(", ")})`;
  const why = misfitOf(cfg, caps);
  return why ? `tuning entry '${key}' names configuration '${name}', which does not fit the device: ${why}` : cfg;
}
function checkMatmulTuning(tuning, caps) {
  for (const [key, name] of Object.entries(tuning)) {
    const cfg = configOfEntry(key, name, caps);
    if (typeof cfg === "string") throw new KernelError(`matmul ${cfg}`);
  }
}
function tunedMatmulConfig(p, caps) {
  const key = matmulShapeKey(shapeOfProblem(p));
  const name = caps.matmulTuning?.[key];
  if (name === void 0) return void 0;
  const cfg = configOfEntry(key, name, caps);
  return typeof cfg === "string" ? kernelError(p.spec, cfg) : cfg;
}
function matmulTunedKernel(spec, caps) {
  if (!caps.matmulTuning) return matmulMixedKernel(spec, caps);
  const p = matmulProblemOf(spec);
  const cfg = tunedMatmulConfig(p, caps);
  if (!cfg) return matmulMixedKernel(spec, caps);
  if (caps.mixedMatmul) return kernelError(spec, `tuning entry '${matmulShapeKey(shapeOfProblem(p))}' is an fp32 measurement; it cannot apply under precision 'mixed'`);
  return matmulPlanWith(spec, caps, cfg);
}

// packages/wgsl-kernels/src/softmax.ts
function rowWorkgroupSize(cols, caps) {
  return Math.min(linearWorkgroupSize(caps), ceilPow2(Math.max(1, cols)));
}
function rowLse(x, wg) {
  return `var mx = ${x}[base];
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { mx = max(mx, ${x}[base + j]); }
let m = wg_max(mx, lid);
var se = 0.0;
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { se = se + exp(${x}[base + j] - m); }
let lse = m + log(wg_sum(se, lid));`;
}
function rowsDispatch2(spec, { R, C, wg, g }, o) {
  const main = perWorkgroupMain(wg, g.index, "R", `let base = row * C;
${o.body}`, "row");
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls: [`const R = ${u32Lit(R)};`, `const C = ${u32Lit(C)};`], main, workgroupSize: wg, grid: g.grid });
}
function rowsSetup(spec, caps) {
  const shape = spec.inputs[0].shape;
  const C = shape[shape.length - 1] ?? 1;
  const R = C === 0 ? 0 : numel(shape) / C;
  const wg = rowWorkgroupSize(C, caps);
  return { R, C, wg, g: linearGrid(spec, R, caps) };
}
function logSoftmaxKernel(spec, caps) {
  const rows = rowsSetup(spec, caps);
  const { wg } = rows;
  if (rows.R === 0) return EMPTY_PLAN;
  const { buffers } = bindOperands(spec, [0], ["x"]);
  const body = `${rowLse("x", wg)}
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = x[base + j] - lse; }`;
  return planOf([rowsDispatch2(spec, rows, { strategy: `a workgroup of ${wg} per row: max, sum of exp, then x - logsumexp`, buffers, body })]);
}
function logSoftmaxGradKernel(spec, caps) {
  const rows = rowsSetup(spec, caps);
  const { wg } = rows;
  if (rows.R === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1], ["ls", "gr"]);
  const [Y, G] = [name(0), name(1)];
  const body = `var acc = 0.0;
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { acc = acc + ${G}[base + j]; }
let s = wg_sum(acc, lid);
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) { y[base + j] = ${G}[base + j] - exp(${Y}[base + j]) * s; }`;
  return planOf([rowsDispatch2(spec, rows, { strategy: `a workgroup of ${wg} per row: s = sum(g), then g - exp(y) * s`, buffers, body })]);
}
var labelRead = (labels) => `let l = ${labels}[row];
let ok = l >= 0i && l < i32(C);
let lc = u32(clamp(l, 0i, i32(C) - 1i));`;
function sumToScalarDispatch(spec, o) {
  const main = singleWorkgroupMain(
    o.wg,
    `var acc = 0.0;
for (var row = lid; row < R; row = row + ${u32Lit(o.wg)}) {
${indent(o.load)}
}
let total = wg_sum(acc, lid);
if (lid == 0u) { y[0] = total${o.scale}; }`
  );
  return shaderDispatch(spec, { label: o.label, strategy: o.strategy, buffers: o.buffers, decls: [`const R = ${u32Lit(o.rows)};`], main, workgroupSize: o.wg, grid: [1, 1, 1] });
}
var scaleOf = (reduction, n2) => reduction === "mean" ? ` / ${f32Lit(n2)}` : "";
function softmaxCrossEntropyKernel(spec, caps) {
  const rows = rowsSetup(spec, caps);
  const { R, C, wg } = rows;
  const { reduction } = spec.node.attrs;
  if (R === 0 || C === 0) kernelError(spec, "empty batch or no classes");
  const losses = rowsDispatch2(spec, rows, {
    label: labelOf(spec.node, `${R}x${C}:rows`),
    strategy: `pass 1 of 2: a workgroup of ${wg} per row writes logsumexp - x[label] (0 for a label outside [0, C))`,
    buffers: [inputVar(spec, 0, "x"), inputVar(spec, 1, "labels"), scratchVar(0, "losses", "read_write")],
    body: `${rowLse("x", wg)}
${labelRead("labels")}
if (lid == 0u) { losses[row] = select(0.0, lse - x[base + lc], ok); }`
  });
  const sum = sumToScalarDispatch(spec, {
    label: labelOf(spec.node, `${R}x${C}:sum`),
    strategy: `pass 2 of 2: one workgroup sums ${R} row losses (${reduction})`,
    buffers: [scratchVar(0, "losses", "read"), outputVar(spec)],
    wg: linearWorkgroupSize(caps),
    rows: R,
    load: "acc = acc + losses[row];",
    scale: scaleOf(reduction, R)
  });
  return planOf([losses, sum], [R * 4]);
}
function softmaxCrossEntropyGradKernel(spec, caps) {
  const rows = rowsSetup(spec, caps);
  const { R, wg } = rows;
  const { reduction } = spec.node.attrs;
  if (R === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1, 2], ["x", "labels", "dy"]);
  const body = `${rowLse(name(0), wg)}
${labelRead(name(1))}
let k = ${name(2)}[0]${scaleOf(reduction, R)};
for (var j = lid; j < C; j = j + ${u32Lit(wg)}) {
  let hot = select(0.0, 1.0, ok && j == lc);
  y[base + j] = (exp(${name(0)}[base + j] - lse) - hot) * k;
}`;
  const strategy = `a workgroup of ${wg} per row: (exp(x - logsumexp) - onehot) * dy${reduction === "mean" ? " / N" : ""}`;
  return planOf([rowsDispatch2(spec, rows, { strategy, buffers, body })]);
}

// packages/wgsl-kernels/src/nll.ts
function nllKernel(spec, caps) {
  const [N, C] = spec.inputs[0].shape;
  const { reduction } = spec.node.attrs;
  if (N === 0 || C === 0) kernelError(spec, "empty batch or no classes");
  const { buffers, name } = bindOperands(spec, [0, 1], ["logp", "labels"]);
  const load = `let l = ${name(1)}[row];
let ok = l >= 0i && l < ${C}i;
let lc = u32(clamp(l, 0i, ${C - 1}i));
acc = acc - select(0.0, ${name(0)}[row * ${u32Lit(C)} + lc], ok);`;
  const wg = linearWorkgroupSize(caps);
  const strategy = `one workgroup of ${wg} sums -logp[i, label_i] over ${N} rows (${reduction}); labels outside [0, ${C}) add 0`;
  return planOf([sumToScalarDispatch(spec, { label: labelOf(spec.node, `${N}x${C}`), strategy, buffers, wg, rows: N, load, scale: reduction === "mean" ? ` / ${f32Lit(N)}` : "" })]);
}
function nllGradKernel(spec, caps) {
  const [N, C] = spec.node.shape;
  const { reduction } = spec.node.attrs;
  const n2 = numel(spec.node.shape);
  if (n2 === 0) return EMPTY_PLAN;
  const { buffers, name } = bindOperands(spec, [0, 1], ["labels", "dy"]);
  const body = `let row = o / C;
let col = o % C;
let v = -${name(1)}[0]${reduction === "mean" ? ` / ${f32Lit(N)}` : ""};
y[o] = select(0.0, v, ${name(0)}[row] == i32(col));`;
  const strategy = `a thread per element: -dy${reduction === "mean" ? ` / ${N}` : ""} where the column is the row's label, else 0`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: n2, count: "TOTAL", decls: [`const C = ${u32Lit(C)};`], body })]);
}

// packages/wgsl-kernels/src/registry.ts
var KERNELS = {
  ...perUnaryOp(() => unaryKernel),
  ...perBinaryOp(() => binaryKernel),
  where: whereKernel,
  cast: castKernel,
  sum: reduceKernel,
  mean: reduceKernel,
  reduceMax: reduceKernel,
  reduceMin: reduceKernel,
  argmax: argmaxKernel,
  transpose: transposeKernel,
  expand: expandKernel,
  slice: sliceKernel,
  pad: padKernel,
  concat: concatKernel,
  gather: gatherKernel,
  scatterAdd: scatterAddKernel,
  oneHot: oneHotKernel,
  stopGradient: stopGradientKernel,
  custom: customKernel,
  matmul: matmulTunedKernel,
  logSoftmax: logSoftmaxKernel,
  logSoftmaxGrad: logSoftmaxGradKernel,
  nll: nllKernel,
  nllGrad: nllGradKernel,
  attention: attentionKernel,
  attentionLse: attentionLseKernel,
  attentionWithLse: attentionWithLseKernel,
  attentionGradKV: attentionGradKVKernel,
  attentionGradQKV: attentionGradQKVKernel,
  attentionGrad: attentionGradKernel,
  rope: ropeKernel,
  dropout: dropoutKernel,
  conv2d: conv2dKernel,
  conv2dGradInput: conv2dGradInputKernel,
  conv2dGradWeight: conv2dGradWeightKernel,
  maxPool2d: maxPool2dKernel,
  maxPool2dGrad: maxPool2dGradKernel,
  avgPool2d: avgPool2dKernel,
  avgPool2dGrad: avgPool2dGradKernel,
  fusedMatmul: matmulTunedKernel,
  matmulEpilogue: matmulTunedKernel,
  matmulPartials: matmulPartialsKernel,
  pointwise: pointwiseKernel,
  pointwiseMulti: pointwiseMultiKernel,
  pointwiseMultiTensor: pointwiseMultiTensorKernel,
  pointwiseReduceMulti: pointwiseReduceMultiKernel,
  pointwiseReduce: pointwiseReduceKernel,
  rowwise: rowwiseKernel,
  rowwiseMulti: rowwiseMultiKernel,
  softmaxCrossEntropy: softmaxCrossEntropyKernel,
  softmaxCrossEntropyGrad: softmaxCrossEntropyGradKernel
};
var REGISTRY_FORMAT = 1;
var REGISTRY_KEY = /* @__PURE__ */ Symbol.for("@neura/wgsl-kernels/registry");
function sharedRegistry() {
  const g = globalThis;
  const found = g[REGISTRY_KEY];
  if (found === void 0) {
    const created = { format: REGISTRY_FORMAT, overrides: /* @__PURE__ */ new Map() };
    Object.defineProperty(g, REGISTRY_KEY, { value: created, enumerable: false, configurable: true });
    return created;
  }
  if (found.format !== REGISTRY_FORMAT || !(found.overrides instanceof Map))
    throw new Error(
      `@neura/wgsl-kernels: another copy of this package with an incompatible kernel registry (format ${String(found.format)}, this copy ${REGISTRY_FORMAT}) is loaded in this process; install one version of @neura/wgsl-kernels (npm ls @neura/wgsl-kernels shows the copies)`
    );
  return found;
}
var overrides = sharedRegistry().overrides;
function kernelFor(op) {
  const builtIn = KERNELS[op];
  return overrides.get(op) ?? builtIn;
}
function generateKernel(spec, caps) {
  const op = spec.node.op;
  const gen = kernelFor(op);
  if (!gen) kernelError(spec, `no kernel: ${op} is handled by the runtime (${isLeafOp(op) ? "uploaded" : isAliasOp(op) ? "aliased" : "unknown op"})`);
  if (spec.inputs.length !== spec.node.inputs.length)
    kernelError(spec, `spec has ${spec.inputs.length} operand types for ${spec.node.inputs.length} node inputs`);
  if (spec.inPlace !== void 0 && !isElementwise(op)) kernelError(spec, "inPlace is only supported for elementwise ops");
  const plan = gen(spec, caps);
  checkPlan(spec, plan, caps);
  return plan;
}
function checkPlan(spec, plan, caps) {
  const outBytes = bytesOf(spec.node);
  for (const d of plan.dispatches) {
    const where = plan.dispatches.length > 1 ? ` in dispatch ${d.label}` : "";
    if (d.bindings.length > caps.maxStorageBuffersPerShaderStage)
      kernelError(spec, `needs ${d.bindings.length} storage buffers${where}, more than maxStorageBuffersPerShaderStage (device value ${caps.maxStorageBuffersPerShaderStage})`);
    for (const b of d.bindings) {
      const s = b.source;
      const bytes = bindingBytes(spec, plan, s, outBytes);
      if (bytes === void 0) kernelError(spec, `binding refers to missing ${s.kind}${where}`);
      if (bytes > caps.maxStorageBufferBindingSize) {
        const what = s.kind === "output" ? "the output" : s.kind === "arena" ? `arena of role ${s.role}` : s.kind === "table" ? "the table" : `${s.kind} ${s.index}`;
        kernelError(spec, `binds ${what} of ${bytes} bytes${where}, more than maxStorageBufferBindingSize (device value ${caps.maxStorageBufferBindingSize})`);
      }
    }
    const [x, y, z] = d.workgroupSize;
    if (x * y * z > caps.maxComputeInvocationsPerWorkgroup)
      kernelError(spec, `workgroup of ${x * y * z} invocations${where}, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
    if (x > caps.maxComputeWorkgroupSizeX) kernelError(spec, `workgroup x size ${x}${where}, more than maxComputeWorkgroupSizeX (device value ${caps.maxComputeWorkgroupSizeX})`);
    if (y > caps.maxComputeWorkgroupSizeY) kernelError(spec, `workgroup y size ${y}${where}, more than maxComputeWorkgroupSizeY (device value ${caps.maxComputeWorkgroupSizeY})`);
    for (const g of d.grid)
      if (g > caps.maxComputeWorkgroupsPerDimension)
        kernelError(spec, `grid [${d.grid}]${where} exceeds maxComputeWorkgroupsPerDimension (device value ${caps.maxComputeWorkgroupsPerDimension})`);
  }
}
function bindingBytes(spec, plan, s, outBytes) {
  switch (s.kind) {
    case "input":
      return spec.inputs[s.index] && bytesOf(spec.inputs[s.index]);
    case "output":
      return outBytes;
    case "scratch":
      return plan.scratch[s.index];
    case "arena": {
      if (!isSpecOf(spec, "pointwiseMultiTensor")) return void 0;
      const { operand, groups, shared } = groupOperands(spec.node);
      let bytes = 0;
      for (let g = 0; g < groups; g++) bytes += bytesOf(spec.inputs[operand(g, shared + s.role)]);
      return bytes;
    }
    case "table":
      return s.words * 4;
    default:
      return s;
  }
}

// packages/runtime-webgpu/src/errors.ts
var InputError = class extends Error {
  name = "InputError";
  /** The input (or param/state) name at fault. */
  input;
  constructor(input, message) {
    super(message);
    this.input = input;
  }
};
var KernelCompileError = class extends Error {
  name = "KernelCompileError";
  /** Label of the dispatch (e.g. `matmul[32x784x128]`) and the graph node it came from. */
  kernel;
  diagnostics;
  source;
  constructor(kernel, diagnostics, source, cause) {
    super(`${kernel}: WGSL failed to compile
${diagnostics.map((d) => `${d.line}:${d.col} error: ${d.message}
${excerpt(source, d.line, d.col)}`).join("\n")}`, { cause });
    this.kernel = kernel;
    this.diagnostics = diagnostics;
    this.source = source;
  }
};
var GpuValidationError = class extends Error {
  name = "GpuValidationError";
  /** What the runtime was doing: `compile`, `step 12`, `read 'loss'`, `uncaptured`. */
  phase;
  constructor(phase, message) {
    super(`WebGPU error during ${phase}: ${message}`);
    this.phase = phase;
  }
};
var DeviceLostError = class extends Error {
  name = "DeviceLostError";
  /** `GPUDeviceLostInfo.reason`: `destroyed` or `unknown`. */
  reason;
  constructor(reason, message) {
    super(`WebGPU device lost (${reason})${message ? `: ${message}` : ""}`);
    this.reason = reason;
  }
};
function excerpt(source, line, col) {
  const lines = source.split("\n");
  const out2 = [];
  for (let l = Math.max(1, line - 2); l <= Math.min(lines.length, line + 1); l++) {
    out2.push(`${String(l).padStart(4)} | ${lines[l - 1]}`);
    if (l === line) out2.push(`     | ${" ".repeat(Math.max(0, col - 1))}^`);
  }
  return out2.join("\n");
}

// packages/runtime-webgpu/src/errorScopes.ts
var ErrorScopes = class {
  constructor(gpu) {
    this.gpu = gpu;
  }
  gpu;
  pending = [];
  open = false;
  /** Pushes a pair of scopes (before a synchronous stretch of GPU calls). */
  begin() {
    this.gpu.pushErrorScope("out-of-memory");
    this.gpu.pushErrorScope("validation");
    this.open = true;
  }
  /** Pops the open pair (before an `await`); nothing when none is open. */
  end() {
    if (!this.open) return;
    this.open = false;
    this.pending.push(this.gpu.popErrorScope(), this.gpu.popErrorScope());
  }
  /** Ends the open pair and throws a `GpuValidationError` naming `phase` if any scope caught an error. */
  async check(phase) {
    this.end();
    const err = (await Promise.all(this.pending.splice(0))).find((e) => e);
    if (err) throw new GpuValidationError(phase, err.message);
  }
};

// packages/runtime-webgpu/src/feeds.ts
function fmtType2(n2) {
  return `${fmtShape(n2.shape)} ${n2.dtype}`;
}
function toDeviceData(name, n2, value) {
  const want = numel(n2.shape);
  if (value instanceof Float32Array || value instanceof Int32Array) {
    const got = value instanceof Float32Array ? "f32" : "i32";
    const ok = n2.dtype === "f32" ? got === "f32" : got === "i32";
    if (!ok) throw new InputError(name, `'${name}': expected ${fmtType2(n2)}, got a ${value.constructor.name} (${got})`);
    if (value.length !== want)
      throw new InputError(name, `'${name}': expected ${fmtType2(n2)} (${want} values), got ${value.length} values`);
    return value;
  }
  if (!value || typeof value !== "object" || !("data" in value) || !("shape" in value))
    throw new InputError(name, `'${name}': expected a TensorValue, Float32Array or Int32Array for ${fmtType2(n2)}, got ${typeof value}`);
  const shapeOk = value.shape.length === n2.shape.length && value.shape.every((d, i) => d === n2.shape[i]);
  if (!shapeOk || value.dtype !== n2.dtype) throw new InputError(name, `'${name}': expected ${fmtType2(n2)}, got ${fmtType2(value)}`);
  if (value.data.length !== want)
    throw new InputError(name, `'${name}': shape ${fmtShape(n2.shape)} needs ${want} values, data has ${value.data.length}`);
  if (n2.dtype === "f32") return value.data instanceof Float32Array ? value.data : Float32Array.from(value.data);
  if (value.data instanceof Int32Array) return value.data;
  const data2 = value.data;
  for (let i = 0; i < data2.length; i++) {
    const v = data2[i];
    if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647)
      throw new InputError(name, `'${name}': value ${v} at index ${i} is not an integer (${fmtType2(n2)})`);
  }
  return Int32Array.from(data2);
}
function checkLabels(name, check, data2) {
  const { role, bound, what } = check;
  for (let i = 0; i < data2.length; i++) {
    const l = data2[i];
    if (l < 0 || l >= bound)
      throw new RangeError(`input '${name}': ${role} ${l} at ${role === "label" ? "index" : "position"} ${i} is outside [0, ${bound}) (${what})`);
  }
}

// packages/runtime-webgpu/src/pipelineCache.ts
var PipelineCache = class {
  constructor(device2) {
    this.device = device2;
  }
  device;
  pipelines = /* @__PURE__ */ new Map();
  layouts = /* @__PURE__ */ new Map();
  /** Requests served from the cache (or from a compile in flight). */
  hits = 0;
  /** Number of distinct pipelines created or in flight. */
  get size() {
    return this.pipelines.size;
  }
  /** The bind group layout for a binding list (read → read-only-storage, read_write → storage). */
  layoutFor(bindings) {
    const sig = bindings.map((b) => b.access === "read" ? "r" : "w").join("");
    let layout = this.layouts.get(sig);
    if (!layout) {
      layout = this.device.createBindGroupLayout({
        label: `neura.layout[${sig}]`,
        entries: bindings.map((b, i) => ({
          binding: i,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: b.access === "read" ? "read-only-storage" : "storage" }
        }))
      });
      this.layouts.set(sig, layout);
    }
    return layout;
  }
  /** The pipeline for a dispatch: cached, shared while in flight, or compiled now. */
  get(req) {
    const sig = req.bindings.map((b) => b.access === "read" ? "r" : "w").join("");
    const key = `${sig}
${req.code}`;
    const hit = this.pipelines.get(key);
    if (hit) {
      this.hits++;
      return hit;
    }
    const p = this.compile(req);
    this.pipelines.set(key, p);
    p.catch(() => this.pipelines.delete(key));
    return p;
  }
  async compile(req) {
    this.device.pushErrorScope("validation");
    const module = this.device.createShaderModule({ label: req.label, code: req.code });
    const moduleError = this.device.popErrorScope().catch(() => null);
    const info9 = await module.getCompilationInfo();
    const errors = info9.messages.filter((m) => m.type === "error");
    if (errors.length) throw new KernelCompileError(req.label, errors.map(diagnostic), req.code);
    const invalid = await moduleError;
    if (invalid) throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: invalid.message }], req.code);
    this.device.pushErrorScope("validation");
    const layout = this.layoutFor(req.bindings);
    const pipelineLayout = this.device.createPipelineLayout({ label: req.label, bindGroupLayouts: [layout] });
    const layoutError = await this.device.popErrorScope();
    if (layoutError) throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: `pipeline layout: ${layoutError.message}` }], req.code);
    try {
      const pipeline = await this.device.createComputePipelineAsync({
        label: req.label,
        layout: pipelineLayout,
        compute: { module, entryPoint: "main" }
      });
      return { pipeline, layout };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new KernelCompileError(req.label, [{ line: 0, col: 0, message: `pipeline creation failed: ${message}` }], req.code, e);
    }
  }
};
function diagnostic(m) {
  return { line: m.lineNum, col: m.linePos, message: m.message };
}

// packages/runtime-webgpu/src/matmulTuning.ts
function tunedCaps(caps, tuning) {
  if (!tuning || Object.keys(tuning).length === 0) return caps;
  checkMatmulTuning(tuning, caps);
  return { ...caps, matmulTuning: tuning };
}
function adapterKey(device2) {
  const a = device2.adapterInfo;
  return `${a.vendor}|${a.architecture}|${a.device}|${a.description}|${a.backend}`;
}

// packages/runtime-webgpu/src/shippedMatmulTuning.ts
var SHIPPED_MATMUL_TUNINGS = [
  {
    // GPT 6×384 step's input-gradient shapes (A·Bᵀ) and logits: the k-unrolled tilings, 1.08–1.25× per shape (GPU
    // timestamps), whole step 49.40 → 48.07 ms synced. Weight gradients (K = 16384): split-K heuristic kept. The
    // forward A·B shapes were tuned before MATMUL_LARGE (k-contiguous A tiles) became their default, which beats the
    // tuned `+u` tilings there (matmul-variants-h200-2026-12-04.md): those entries are left out, not to undo it.
    adapter: "nvidia||nvidia-h200|NVIDIA: 580.159.04 580.159.4.0|vulkan",
    source: "apps/bench/results/matmul-tuning-h200-2026-12-04.md",
    tuning: {
      "16384x65x384:NN:b1": "128x64x16/8x8+u",
      "16384x384x65:NT:b1": "128x64x8/8x8",
      "16384x1536x384:NT:b1": "128x128x16/8x8+u",
      "16384x384x1536:NT:b1": "128x64x16/8x8+u",
      "16384x384x384:NT:b1": "128x64x16/8x8+u",
      "16384x384x1152:NT:b1": "128x64x16/8x8+u"
    }
  },
  {
    // Mesa llvmpipe (the CI and developer machines' software adapter): the GPT 2×128 step's shapes and 256³; the
    // heuristic's small GPU-shaped tiles (32x32, many workgroups) lose 1.5–6× to the large tiles on a CPU (wall
    // clock on a loaded 2-core machine: among the large tiles the order is noise, against the heuristic it is not).
    adapter: "||llvmpipe-llvm-15-0-6-256-bits-|OpenGL version OpenGL ES 3.2 Mesa 22.3.6|opengles",
    source: "apps/bench/results/matmul-tuning-software-2026-12-04.md",
    tuning: {
      "1024x384x128:NN:b1": "128x64x8/8x8+u",
      "1024x128x128:NN:b1": "128x64x16/8x8",
      "1024x512x128:NN:b1": "128x128x16/8x8+u",
      "1024x128x512:NN:b1": "128x128x16/8x8",
      "1024x65x128:NN:b1": "64x128x16/8x8+u",
      "1024x128x65:NT:b1": "128x128x8/8x8+u+db",
      "1024x512x128:NT:b1": "128x64x8/8x8+u",
      "1024x128x512:NT:b1": "128x64x16/8x8",
      "1024x128x128:NT:b1": "128x64x16/8x8+u",
      "1024x128x384:NT:b1": "64x128x16/8x8+u+db",
      "128x384x1024:TN:b1": "64x128x16/8x8",
      "128x128x1024:TN:b1": "128x64x8/8x8",
      "128x512x1024:TN:b1": "128x64x16/8x8+u",
      "512x128x1024:TN:b1": "128x128x16/8x8+u",
      "128x65x1024:TN:b1": "128x128x16/8x8+u+db",
      "256x256x256:NN:b1": "128x128x8/8x8"
    }
  },
  {
    // SwiftShader in Chromium (headless, web/tuningCheck.mjs tune): the same shapes, 1.5–5.1× over the heuristic.
    // Browsers hide the driver: the key is vendor and architecture only.
    adapter: "google|swiftshader|||browser",
    source: "apps/bench/results/matmul-tuning-software-2026-12-04.md",
    tuning: {
      "1024x384x128:NN:b1": "128x128x16/8x8+u",
      "1024x128x128:NN:b1": "64x128x16/8x8",
      "1024x512x128:NN:b1": "128x128x8/8x8+u",
      "1024x128x512:NN:b1": "64x64x16/8x4+u+db",
      "1024x65x128:NN:b1": "128x64x8/8x8+u+db",
      "1024x128x65:NT:b1": "64x128x16/8x8+u",
      "1024x512x128:NT:b1": "128x128x16/8x8",
      "1024x128x512:NT:b1": "128x128x16/8x8+u+db",
      "1024x128x128:NT:b1": "64x128x16/8x8+u",
      "1024x128x384:NT:b1": "128x64x8/8x8+u",
      "128x384x1024:TN:b1": "128x128x8/8x8+u",
      "128x128x1024:TN:b1": "64x128x16/8x8",
      "128x512x1024:TN:b1": "64x128x16/8x8+u",
      "512x128x1024:TN:b1": "64x128x16/8x8",
      "128x65x1024:TN:b1": "128x64x16/8x8",
      "256x256x256:NN:b1": "128x128x8/8x8+u+db"
    }
  }
];
function shippedTuningFor(key, caps, tables = SHIPPED_MATMUL_TUNINGS) {
  const t = tables.find((s) => s.adapter === key);
  if (!t) return void 0;
  for (const name of Object.values(t.tuning)) {
    if (name === MATMUL_HEURISTIC) continue;
    const cfg = MATMUL_CONFIG_BY_NAME.get(name);
    if (!cfg) throw new Error(`shipped matmul tuning of adapter '${key}' names configuration '${name}', which is not a tiled matmul configuration`);
    if (misfitOf(cfg, caps)) return void 0;
  }
  return t;
}
var shippedMatmulTuning = (device2) => shippedTuningFor(adapterKey(device2), device2.caps);
function matmulTuningOf(device2, opts) {
  const shipped = opts.shippedMatmulTuning !== false && (opts.precision ?? "fp32") === "fp32" ? shippedMatmulTuning(device2) : void 0;
  return shipped ? { ...shipped.tuning, ...opts.matmulTuning } : opts.matmulTuning;
}

// packages/runtime-webgpu/src/device.ts
var SUBGROUP_MATRIX_FEATURE = "chromium-experimental-subgroup-matrix";
var MIXED_PRECISION_TOGGLES = ["allow_unsafe_apis", "vulkan_enable_f16_on_nvidia"];
function withDawnToggles(options, toggles) {
  const key = "enable-dawn-features=";
  const at = options.findIndex((o) => o.startsWith(key));
  if (at < 0) return [...options, `${key}${toggles.join(",")}`];
  const have = options[at].slice(key.length).split(",").filter(Boolean);
  const out2 = [...options];
  out2[at] = `${key}${[...have, ...toggles.filter((t) => !have.includes(t))].join(",")}`;
  return out2;
}
function parseDawnOptions(text) {
  const out2 = [];
  for (const piece of text.split(",").filter(Boolean)) {
    if (piece.includes("=")) out2.push(piece);
    else if (out2.length > 0) out2[out2.length - 1] += `,${piece}`;
    else throw new Error(`NEURA_DAWN_OPTIONS: '${piece}' has no key; expected key=value entries, e.g. enable-dawn-features=allow_unsafe_apis,disable_robustness`);
  }
  return out2;
}
function lowerCaps(caps, limit = {}) {
  const out2 = { ...caps };
  for (const [k, v] of Object.entries(limit)) if (typeof v === "number" && v < caps[k]) out2[k] = v;
  return out2;
}
var COMPUTE_LIMITS = [
  "maxComputeInvocationsPerWorkgroup",
  "maxComputeWorkgroupSizeX",
  "maxComputeWorkgroupSizeY",
  "maxComputeWorkgroupSizeZ",
  "maxComputeWorkgroupsPerDimension",
  "maxStorageBuffersPerShaderStage",
  "maxStorageBufferBindingSize",
  "maxBufferSize",
  "maxComputeWorkgroupStorageSize"
];
var OPTIONAL_FEATURES = ["subgroups", "shader-f16", "timestamp-query"];
var SOFTWARE = /llvmpipe|lavapipe|swiftshader|softpipe|software/i;
var SWIFTSHADER_ICD = "/usr/lib/chromium/vk_swiftshader_icd.json";
function isNode() {
  return typeof process !== "undefined" && typeof process.versions?.node === "string";
}
async function loadDawn() {
  const spec = "webgpu";
  let mod;
  try {
    mod = await import(
      /* @vite-ignore */
      spec
    );
  } catch (e) {
    const code = e.code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw e;
    throw new Error(
      "createDevice: Node.js has no WebGPU of its own; install the optional peer dependency 'webgpu' (Dawn for Node, `npm install webgpu@~0.6.2`), or pass `gpu` (a GPU object) to createDevice",
      { cause: e }
    );
  }
  const dawn = typeof mod.create === "function" ? mod : mod.default;
  Object.assign(globalThis, dawn.globals);
  return dawn;
}
async function fileExists(path) {
  const fsSpec = "node:fs";
  const fs = await import(
    /* @vite-ignore */
    fsSpec
  );
  return fs.existsSync(path);
}
async function vulkanLoaderFound() {
  if (process.platform !== "linux") return true;
  const fsSpec = "node:fs";
  const fs = await import(
    /* @vite-ignore */
    fsSpec
  );
  const dirs = (process.env.LD_LIBRARY_PATH ?? "").split(":").filter((d) => d !== "");
  if (dirs.some((d) => fs.existsSync(`${d}/libvulkan.so.1`))) return true;
  try {
    return fs.readFileSync("/etc/ld.so.cache").includes("libvulkan.so.1");
  } catch {
    return true;
  }
}
function infoOf(adapter, backend) {
  const i = adapter.info;
  const text = `${i.vendor} ${i.architecture} ${i.device} ${i.description}`;
  const fallback = i.isFallbackAdapter === true;
  const subgroupMatrixConfigs = [...i.subgroupMatrixConfigs ?? []].map((c) => ({ m: c.M, n: c.N, k: c.K, componentType: c.componentType, resultComponentType: c.resultComponentType }));
  return {
    vendor: i.vendor,
    architecture: i.architecture,
    device: i.device,
    description: i.description,
    backend,
    software: fallback || SOFTWARE.test(text) || backend === "swiftshader",
    subgroupMatrixConfigs,
    ...typeof i.subgroupMinSize === "number" && typeof i.subgroupMaxSize === "number" ? { subgroupSizes: [i.subgroupMinSize, i.subgroupMaxSize] } : {}
  };
}
var KEEP_ALIVE = /* @__PURE__ */ new Set();
var INSTANCES = /* @__PURE__ */ new Map();
function instance(dawn, kind, extra) {
  const key = `${kind}|${extra.join(",")}`;
  let gpu = INSTANCES.get(key);
  if (!gpu) INSTANCES.set(key, gpu = dawn.create([kind === "opengles" ? "backend=opengles" : "backend=vulkan", ...extra]));
  return gpu;
}
async function nodeAdapter(choice, powerPreference, extra = []) {
  const dawn = await loadDawn();
  const tried = [];
  const vulkan = async (as) => {
    const gpu = instance(dawn, as, extra);
    const adapter = await gpu.requestAdapter(powerPreference ? { powerPreference } : {});
    if (!adapter) {
      tried.push(`${as}: no adapter`);
      return void 0;
    }
    const info9 = infoOf(adapter, as === "swiftshader" || /swiftshader/i.test(adapter.info.architecture + adapter.info.description) ? "swiftshader" : "vulkan");
    tried.push(`${as}: ${info9.device || info9.description}`);
    return { instance: gpu, adapter, info: info9 };
  };
  const opengles = async () => {
    process.env.EGL_PLATFORM ??= "surfaceless";
    const gpu = instance(dawn, "opengles", extra);
    const adapter = await gpu.requestAdapter({ featureLevel: "compatibility" });
    if (!adapter) {
      tried.push("opengles: no adapter");
      return void 0;
    }
    const info9 = infoOf(adapter, "opengles");
    tried.push(`opengles: ${info9.device || info9.description}`);
    return { instance: gpu, adapter, info: info9 };
  };
  const swiftshader = async () => {
    if (await fileExists(SWIFTSHADER_ICD)) process.env.VK_DRIVER_FILES ??= SWIFTSHADER_ICD;
    else tried.push(`swiftshader: ${SWIFTSHADER_ICD} not found`);
    return vulkan("swiftshader");
  };
  let found;
  if (choice === "vulkan") found = await vulkan("vulkan");
  else if (choice === "opengles") found = await opengles();
  else if (choice === "swiftshader") found = await swiftshader();
  else {
    const hasLoader = await vulkanLoaderFound();
    if (!hasLoader) tried.push("vulkan: no Vulkan loader (libvulkan.so.1)");
    const v = hasLoader ? await vulkan("vulkan") : void 0;
    found = v && !v.info.software ? v : await opengles() ?? v ?? await swiftshader();
  }
  if (!found) throw new Error(`createDevice: no WebGPU adapter for NEURA_ADAPTER=${choice} (tried ${tried.join("; ")})`);
  return found;
}
async function browserAdapter(gpu, powerPreference) {
  const adapter = await gpu.requestAdapter(powerPreference ? { powerPreference } : {}) ?? await gpu.requestAdapter({ featureLevel: "compatibility" });
  if (!adapter) throw new Error("createDevice: navigator.gpu.requestAdapter() returned no adapter");
  return { instance: gpu, adapter, info: infoOf(adapter, "browser") };
}
async function createDevice(opts = {}) {
  const found = await findAdapter(opts);
  const { adapter, info: info9 } = found;
  const keep = { instance: found.instance, adapter };
  KEEP_ALIVE.add(keep);
  const gpu = await requestComputeDevice(adapter, opts.label ?? "neura", opts.mixedPrecision === true);
  const errors = new DeviceErrors(gpu, opts.onError);
  const kind = info9.software ? "software" : "gpu";
  const short = (info9.device || info9.architecture || info9.description || info9.vendor || "unknown").split(/[\s-]/)[0];
  return {
    gpu,
    caps: lowerCaps(capsOf(gpu), opts.limitCaps),
    adapterInfo: info9,
    name: `${short} (${info9.backend}, ${kind})`,
    features: /* @__PURE__ */ new Set([...gpu.features]),
    check: () => errors.check(),
    get destroyed() {
      return errors.destroyed;
    },
    destroy() {
      if (errors.destroyed) return;
      errors.close();
      gpu.destroy();
      KEEP_ALIVE.delete(keep);
    }
  };
}
async function findAdapter(opts) {
  const envChoice = isNode() ? process.env.NEURA_ADAPTER : void 0;
  const choice = opts.adapter ?? envChoice ?? "auto";
  if (!["auto", "vulkan", "opengles", "swiftshader"].includes(choice))
    throw new Error(`createDevice: NEURA_ADAPTER must be auto|vulkan|opengles|swiftshader, got '${choice}'`);
  if (opts.gpu) return browserAdapter(opts.gpu, opts.powerPreference);
  if (isNode()) {
    const dawnOptions = opts.dawnOptions ?? parseDawnOptions(process.env.NEURA_DAWN_OPTIONS ?? "");
    return nodeAdapter(choice, opts.powerPreference, opts.mixedPrecision ? withDawnToggles(dawnOptions, MIXED_PRECISION_TOGGLES) : dawnOptions);
  }
  if (typeof navigator !== "undefined" && navigator.gpu) return browserAdapter(navigator.gpu, opts.powerPreference);
  throw new Error("createDevice: WebGPU is not available (no navigator.gpu, and not running in Node)");
}
function requestComputeDevice(adapter, label, mixed) {
  const requiredLimits = {};
  for (const k of COMPUTE_LIMITS) {
    const v = adapter.limits[k];
    if (typeof v === "number") requiredLimits[k] = v;
  }
  const wanted = mixed ? [...OPTIONAL_FEATURES, SUBGROUP_MATRIX_FEATURE] : OPTIONAL_FEATURES;
  const requiredFeatures = wanted.filter((f) => adapter.features.has(f));
  return adapter.requestDevice({ label, requiredLimits, requiredFeatures });
}
var DeviceErrors = class {
  constructor(gpu, onError) {
    this.gpu = gpu;
    this.onError = onError;
    gpu.addEventListener("uncapturederror", this.onUncaptured);
    void gpu.lost.then((li) => {
      if (this.destroyed && li.reason === "destroyed") return;
      this.lost = new DeviceLostError(li.reason, li.message);
      this.onError?.(this.lost);
    });
  }
  gpu;
  onError;
  pending = [];
  lost;
  /** Set by `close`: the owner destroyed the device (its loss is then not an error). */
  destroyed = false;
  onUncaptured = (ev) => {
    const e = new GpuValidationError("uncaptured", ev.error.message);
    this.pending.push(e);
    this.onError?.(e);
  };
  /** Throws the loss, a destroyed device, or the oldest uncaptured error not thrown yet. */
  check() {
    if (this.lost) throw this.lost;
    if (this.destroyed) throw new DeviceLostError("destroyed", "NeuraDevice.destroy() was called");
    const e = this.pending.shift();
    if (e) throw e;
  }
  /** Before the owner destroys the device: the listener would keep it (~2.4 MiB) alive in dawn.node (issue 9, item 10). */
  close() {
    this.destroyed = true;
    this.gpu.removeEventListener("uncapturederror", this.onUncaptured);
  }
};

// packages/runtime-webgpu/src/precision.ts
var PrecisionError = class extends Error {
  name = "PrecisionError";
};
function capsFor(device2, precision = "fp32") {
  if (precision === "fp32") return device2.caps;
  if (precision !== "mixed") throw new PrecisionError(`precision must be 'fp32' or 'mixed', got '${String(precision)}'`);
  const missing = [SUBGROUP_MATRIX_FEATURE, "shader-f16", "subgroups"].filter((f) => !device2.features.has(f));
  const info9 = device2.adapterInfo;
  const configs = info9.subgroupMatrixConfigs.filter((c) => c.componentType === "f16" && c.resultComponentType === "f32");
  const why = [];
  if (missing.length) why.push(`lacks the feature(s) ${missing.map((f) => `'${f}'`).join(", ")}`);
  else if (configs.length === 0) why.push(`offers no f16 x f16 -> f32 subgroup-matrix configuration (configurations: ${JSON.stringify(info9.subgroupMatrixConfigs)})`);
  if (info9.subgroupSizes && (info9.subgroupSizes[0] !== 32 || info9.subgroupSizes[1] !== 32)) why.push(`has subgroups of ${info9.subgroupSizes.join("\u2013")} lanes (the kernel needs 32)`);
  if (why.length)
    throw new PrecisionError(
      `precision 'mixed' needs tensor-core matmuls ('${SUBGROUP_MATRIX_FEATURE}' with f16 operands and f32 results, plus 'shader-f16' and 'subgroups'); device ${device2.name} (${[info9.vendor, info9.device || info9.description].filter(Boolean).join(" ")}) ${why.join("; ")}. In Node, create the device with createDevice({ mixedPrecision: true }) (Dawn toggles allow_unsafe_apis and vulkan_enable_f16_on_nvidia); use precision 'fp32' elsewhere.`
    );
  const best = configs.filter((c) => 32 % c.k === 0).sort((a, b) => b.m * b.n * b.k - a.m * a.n * a.k)[0];
  if (!best) throw new PrecisionError(`precision 'mixed': device ${device2.name} has no f16 subgroup-matrix configuration with k dividing 32 (${JSON.stringify(configs)})`);
  return { ...device2.caps, mixedMatmul: { m: best.m, n: best.n, k: best.k } };
}

// packages/runtime-webgpu/src/stepProfile.ts
var sizeOf = (n2) => numel(n2.shape) * 4;
var fmt = (s) => `[${s.join(",")}]`;
function exprOps2(e, out2) {
  if (e.op === "in" || e.op === "const") return out2;
  out2.add(e.op);
  if ("a" in e) exprOps2(e.a, out2);
  if ("b" in e) exprOps2(e.b, out2);
  if ("c" in e) exprOps2(e.c, out2);
  return out2;
}
function fusedOpsOf(n2) {
  switch (n2.op) {
    case "pointwise":
      return `pointwise(${[...exprOps2(n2.attrs.expr, /* @__PURE__ */ new Set())].join(", ")})`;
    case "matmul":
    case "fusedMatmul":
    case "matmulEpilogue":
    case "matmulPartials": {
      const a = n2.attrs;
      const parts = [`matmul ${a.transA ? "A\u1D40" : "A"}\xB7${a.transB ? "B\u1D40" : "B"}`];
      if (n2.op === "fusedMatmul" && n2.attrs.bias) parts.push("+ bias");
      if (n2.op === "fusedMatmul" && n2.attrs.activation !== "none") parts.push(n2.attrs.activation);
      if (n2.op === "matmulEpilogue") parts.push(`then pointwise(${[...exprOps2(n2.attrs.expr, /* @__PURE__ */ new Set())].join(", ")})`);
      if (n2.op === "matmulPartials") parts.push(`as ${n2.attrs.splits} split-K partials`);
      return parts.join(" ");
    }
    case "pointwiseReduce":
      return `${n2.attrs.reduce} of pointwise(${[...exprOps2(n2.attrs.expr, /* @__PURE__ */ new Set())].join(", ")})`;
    case "pointwiseReduceMulti":
      return `${n2.attrs.results.length} ${n2.attrs.reduce}s of pointwise(${[...n2.attrs.results.reduce((s, r) => exprOps2(r.expr, s), /* @__PURE__ */ new Set())].join(", ")})`;
    case "rowwise": {
      const ops = n2.attrs.stats.reduce((s, st) => exprOps2(st.post, exprOps2(st.expr, s)), exprOps2(n2.attrs.expr, /* @__PURE__ */ new Set()));
      return `rowwise ${n2.attrs.stats.map((s) => s.reduce).join("+")} then pointwise(${[...ops].join(", ")})`;
    }
    case "rowwiseMulti": {
      const ops = n2.attrs.stats.reduce((s, st) => exprOps2(st.post, exprOps2(st.expr, s)), n2.attrs.exprs.reduce((s, e) => exprOps2(e, s), /* @__PURE__ */ new Set()));
      return `rowwise ${n2.attrs.stats.map((s) => s.reduce).join("+")} then ${n2.attrs.exprs.length} results of pointwise(${[...ops].join(", ")})`;
    }
    case "attention":
    case "attentionLse":
    case "attentionWithLse":
    case "attentionGradKV":
    case "attentionGradQKV":
      return `${n2.op}${n2.attrs.causal ? " causal" : ""}`;
    case "attentionGrad":
      return `attentionGrad d${n2.attrs.wrt}${n2.attrs.causal ? " causal" : ""}`;
    case "sum":
    case "mean":
    case "reduceMax":
    case "reduceMin":
      return `${n2.op} axes ${fmt(n2.attrs.axes)}`;
    case "transpose":
      return `transpose ${fmt(n2.attrs.perm)}`;
    default:
      return n2.op;
  }
}
function kernelInfoOf(graph, n2) {
  const ins = n2.inputs.map((i) => graph.nodes[i]);
  const distinct = [...new Set(n2.inputs)].map((i) => graph.nodes[i]);
  const joiner = n2.op === "matmul" || n2.op === "fusedMatmul" ? "\xB7" : ", ";
  return {
    node: n2.id,
    op: n2.op,
    fused: fusedOpsOf(n2),
    shapes: `${ins.map((x) => fmt(x.shape)).join(joiner)} \u2192 ${fmt(n2.shape)}`,
    flops: kernelFlops(n2.op, { attrs: n2.attrs, ins: distinct, out: n2, operands: n2.inputs.map((i) => graph.nodes[i]) }),
    bytes: distinct.reduce((s, x) => s + sizeOf(x), 0) + sizeOf(n2)
  };
}
function summarizeProfile(timings, ceilings) {
  const groups = /* @__PURE__ */ new Map();
  let gpuNs = 0;
  for (const t of timings) {
    const ns = Math.max(0, t.endNs - t.startNs);
    gpuNs += ns;
    const key = t.kernel ?? t.label;
    let g = groups.get(key);
    if (!g) groups.set(key, g = { label: t.kernel ? t.label.replace(/\.\d+$/, "") : t.label, kernel: t.kernel, ns: 0, n: 0 });
    g.ns += ns;
    g.n++;
  }
  const rows = [...groups.values()].map((g) => {
    const s = g.ns * 1e-9;
    const flops = g.kernel?.flops ?? 0;
    const bytes = g.kernel?.bytes ?? 0;
    const floor = ceilings ? Math.max(flops / ceilings.flopsPerSecond, bytes / ceilings.bytesPerSecond) : void 0;
    return {
      label: g.label,
      kernel: g.kernel,
      dispatches: g.n,
      ms: g.ns * 1e-6,
      share: gpuNs > 0 ? g.ns / gpuNs : 0,
      gflops: s > 0 ? flops / s / 1e9 : 0,
      gbps: s > 0 ? bytes / s / 1e9 : 0,
      ...floor !== void 0 ? { roofline: s > 0 ? Math.min(1, floor / s) : 0 } : {}
    };
  });
  rows.sort((a, b) => b.ms - a.ms);
  const start = Math.min(...timings.map((t) => t.startNs));
  const end = Math.max(...timings.map((t) => t.endNs));
  return { rows, gpuMs: gpuNs * 1e-6, spanMs: timings.length ? (end - start) * 1e-6 : 0, dispatches: timings.length };
}
function kernelClassOf(op) {
  if (!op) return "other";
  if (op === "matmul" || op === "fusedMatmul" || op === "matmulEpilogue" || op === "matmulPartials") return "matmul";
  if (op.startsWith("attention")) return "attention";
  if (op === "pointwise") return "pointwise";
  if (["sum", "mean", "reduceMax", "reduceMin", "pointwiseReduce", "pointwiseReduceMulti", "rowwise", "rowwiseMulti"].includes(op)) return "reduction";
  if (op.startsWith("softmaxCrossEntropy") || op.startsWith("logSoftmax") || op.startsWith("nll")) return "softmax/CE";
  if (["transpose", "expand", "slice", "concat", "pad"].includes(op)) return "layout copy";
  if (["gather", "scatterAdd", "oneHot"].includes(op)) return "gather/scatter";
  return "elementwise/other";
}
var pct = (x) => `${(100 * x).toFixed(1)}%`;
var num = (x, d = 1) => x >= 100 ? x.toFixed(0) : x.toFixed(d);
function profileTable(sum, opts = {}) {
  const top = opts.top ?? 40;
  const out2 = [];
  out2.push(`GPU time ${sum.gpuMs.toFixed(3)} ms over ${sum.dispatches} dispatches (span ${sum.spanMs.toFixed(3)} ms, one pass per dispatch while profiling).`);
  if (opts.ceilings)
    out2.push(`Ceilings: ${(opts.ceilings.flopsPerSecond / 1e12).toFixed(1)} TFLOP/s, ${(opts.ceilings.bytesPerSecond / 1e9).toFixed(0)} GB/s.`);
  out2.push("", "| class | kernels | dispatches | ms | share | GFLOP/s | GB/s |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const classes2 = /* @__PURE__ */ new Map();
  for (const r of sum.rows) {
    const c = kernelClassOf(r.kernel?.op);
    let e = classes2.get(c);
    if (!e) classes2.set(c, e = { k: 0, d: 0, ms: 0, flops: 0, bytes: 0 });
    e.k++;
    e.d += r.dispatches;
    e.ms += r.ms;
    e.flops += r.kernel?.flops ?? 0;
    e.bytes += r.kernel?.bytes ?? 0;
  }
  for (const [c, e] of [...classes2].sort((a, b) => b[1].ms - a[1].ms))
    out2.push(`| ${c} | ${e.k} | ${e.d} | ${e.ms.toFixed(3)} | ${pct(sum.gpuMs ? e.ms / sum.gpuMs : 0)} | ${num(e.ms ? e.flops / e.ms / 1e6 : 0)} | ${num(e.ms ? e.bytes / e.ms / 1e6 : 0)} |`);
  out2.push("", `Slowest ${Math.min(top, sum.rows.length)} of ${sum.rows.length} kernels:`, "");
  out2.push("| kernel | fused ops | shapes | ms | share | GFLOP/s | GB/s | roofline |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const r of sum.rows.slice(0, top))
    out2.push(
      `| ${r.label}${r.dispatches > 1 ? ` (${r.dispatches} dispatches)` : ""} | ${r.kernel?.fused ?? ""} | ${r.kernel?.shapes ?? ""} | ${r.ms.toFixed(3)} | ${pct(r.share)} | ${num(r.gflops)} | ${num(r.gbps)} | ${r.roofline === void 0 ? "" : pct(r.roofline)} |`
    );
  return out2.join("\n");
}
function chromeTrace(timings, name = "neura step") {
  const events = [
    { name: "process_name", ph: "M", pid: 1, tid: 1, args: { name } },
    { name: "thread_name", ph: "M", pid: 1, tid: 1, args: { name: "GPU queue" } }
  ];
  for (const t of timings)
    events.push({
      name: t.label,
      cat: t.kernel ? kernelClassOf(t.kernel.op) : "other",
      ph: "X",
      pid: 1,
      tid: 1,
      ts: t.startNs / 1e3,
      dur: Math.max(0, t.endNs - t.startNs) / 1e3,
      args: t.kernel ? { fused: t.kernel.fused, shapes: t.kernel.shapes, flops: t.kernel.flops, bytes: t.kernel.bytes, node: t.kernel.node } : {}
    });
  return { traceEvents: events, displayTimeUnit: "ns" };
}

// packages/runtime-webgpu/src/profiler.ts
var ProfilerError = class extends Error {
  name = "ProfilerError";
};
var MAX_QUERIES = 4096;
function checkProfilable(device2) {
  if (!device2.features.has("timestamp-query"))
    throw new ProfilerError(
      `profiling needs the 'timestamp-query' feature, which this adapter (${device2.name}) does not offer; features: ${[...device2.features].join(", ") || "none"}`
    );
}
var DispatchTimer = class {
  constructor(device2, count, label, repeats = 1) {
    this.count = count;
    this.repeats = repeats;
    checkProfilable(device2);
    if (!Number.isInteger(repeats) || repeats < 1) throw new ProfilerError(`profile repeats must be an integer \u2265 1, got ${repeats}`);
    const gpu = device2.gpu;
    const queries = 2 * count * repeats;
    for (let q = 0; q < queries; q += MAX_QUERIES)
      this.sets.push(gpu.createQuerySet({ label: `${label}.timestamps${this.sets.length}`, type: "timestamp", count: Math.min(MAX_QUERIES, queries - q) }));
    const bytes = Math.max(8, queries * 8);
    this.resolve = gpu.createBuffer({ label: `${label}.timestamps.resolve`, size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = gpu.createBuffer({ label: `${label}.timestamps.read`, size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }
  count;
  repeats;
  sets = [];
  resolve;
  readback;
  labels = [];
  kernels = [];
  /** Encodes every dispatch in its own timed compute pass. */
  encode(enc, dispatches, label) {
    if (dispatches.length !== this.count) throw new ProfilerError(`DispatchTimer made for ${this.count} dispatches, given ${dispatches.length}`);
    const all2 = Array.from({ length: this.repeats }, () => dispatches).flat();
    all2.forEach((d, i) => {
      const q = 2 * i;
      const querySet = this.sets[Math.floor(q / MAX_QUERIES)];
      const at = q % MAX_QUERIES;
      const pass = enc.beginComputePass({ label: `${label}.pass.${d.label}`, timestampWrites: { querySet, beginningOfPassWriteIndex: at, endOfPassWriteIndex: at + 1 } });
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
      pass.end();
    });
    this.labels = all2.map((d) => d.label);
    this.kernels = all2.map((d) => d.kernel);
    this.sets.forEach((s, k) => {
      enc.resolveQuerySet(s, 0, s.count, this.resolve, k * MAX_QUERIES * 8);
    });
    enc.copyBufferToBuffer(this.resolve, 0, this.readback, 0, this.readback.size);
  }
  /** Maps the resolved timestamps (after the submit) and frees the timer's GPU objects. */
  async read() {
    try {
      await this.readback.mapAsync(GPUMapMode.READ);
      const ts = new BigInt64Array(this.readback.getMappedRange().slice(0));
      this.readback.unmap();
      const t0 = this.labels.length ? ts[0] : 0n;
      return this.labels.map((label, i) => {
        const kernel = this.kernels[i];
        const startNs = Number(ts[2 * i] - t0);
        const endNs = Number(ts[2 * i + 1] - t0);
        return kernel ? { label, kernel, startNs, endNs } : { label, startNs, endNs };
      });
    } finally {
      this.destroy();
    }
  }
  /** Frees the query sets and buffers. */
  destroy() {
    for (const s of this.sets) s.destroy();
    this.resolve.destroy();
    this.readback.destroy();
  }
};
var StepProfile = class {
  constructor(timings, label) {
    this.timings = timings;
    this.label = label;
  }
  timings;
  label;
  /** Per-kernel rows (slowest first) and totals; with ceilings, each kernel's fraction of the roofline. */
  summary(ceilings) {
    return summarizeProfile(this.timings, ceilings);
  }
  /** The per-kernel markdown table (by-class summary, then the slowest `top` kernels). */
  table(opts = {}) {
    return profileTable(this.summary(opts.ceilings), opts);
  }
  /** Chrome/Perfetto trace JSON (an object; `JSON.stringify` it to a .json file). */
  trace() {
    return chromeTrace(this.timings, this.label);
  }
  /** Whether the timestamps look quantized (Dawn's `timestamp_quantization` toggle): every value a multiple of 4096 ns. */
  get quantized() {
    const v = this.timings.flatMap((t) => [t.startNs, t.endNs]).filter((x) => x !== 0);
    return v.length > 4 && v.every((x) => x % 4096 === 0);
  }
};
function profileRequestFromEnv() {
  if (typeof process === "undefined" || !process.env?.NEURA_PROFILE) return void 0;
  const step = Number(process.env.NEURA_PROFILE_STEP ?? 2);
  if (!Number.isInteger(step) || step < 0) throw new ProfilerError(`NEURA_PROFILE_STEP must be a step index \u2265 0, got '${process.env.NEURA_PROFILE_STEP}'`);
  return { path: process.env.NEURA_PROFILE, step };
}
async function writeProfileFiles(profile, path) {
  const fsSpec = "node:fs";
  const fs = await import(
    /* @vite-ignore */
    fsSpec
  );
  fs.writeFileSync(path, JSON.stringify(profile.trace()));
  fs.writeFileSync(`${path}.md`, `# ${profile.label}: per-kernel profile

${profile.table()}
`);
}

// packages/runtime-webgpu/src/readbackRing.ts
var ReadbackRing = class {
  constructor(device2, label, bytes, shape, dtype, size = 2) {
    this.bytes = bytes;
    this.shape = shape;
    this.dtype = dtype;
    const alloc = Math.max(16, Math.ceil(bytes / 4) * 4);
    this.slots = Array.from(
      { length: size },
      (_, i) => ({ buffer: device2.createBuffer({ label: `${label}.readback${i}`, size: alloc, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }) })
    );
  }
  bytes;
  shape;
  dtype;
  slots;
  next = 0;
  /** A free slot's buffer and its index; waits for the oldest mapping when every slot is in use. */
  async acquire() {
    const index = this.next;
    this.next = (this.next + 1) % this.slots.length;
    const slot = this.slots[index];
    if (slot.busy) await slot.busy.catch(() => void 0);
    slot.busy = void 0;
    return { buffer: slot.buffer, index };
  }
  /** Starts mapping slot `index` (after its copy was submitted); resolves to the tensor it holds. */
  arm(index) {
    const slot = this.slots[index];
    const p = slot.buffer.mapAsync(GPUMapMode.READ, 0, slot.buffer.size).then(() => {
      const raw = slot.buffer.getMappedRange(0, slot.buffer.size).slice(0, this.bytes);
      slot.buffer.unmap();
      const data2 = this.dtype === "f32" ? new Float32Array(raw) : new Int32Array(raw);
      return { shape: [...this.shape], dtype: this.dtype, data: data2 };
    });
    slot.busy = p;
    return p;
  }
  /** Resolves when no mapping of this ring is in flight (whether it succeeded or not). */
  async settled() {
    await Promise.all(this.slots.map((s) => s.busy?.catch(() => void 0)));
  }
  /** Destroys the slots' buffers (a pending mapping then rejects). */
  destroy() {
    for (const s of this.slots) s.buffer.destroy();
  }
};

// packages/runtime-webgpu/src/session.ts
var Session = class {
  c;
  rings = /* @__PURE__ */ new Map();
  tail = Promise.resolve();
  /** Calls queued or running in `serial` (0: a new step may write its feeds to the device at once). */
  queued = 0;
  /** The next step's replay, encoded ahead (undefined until the first step, and while a step consumes it). */
  replay;
  steps = 0;
  disposed = false;
  freed;
  /** NEURA_PROFILE: which step to profile and where to write its trace. */
  envProfile = profileRequestFromEnv();
  /** @internal Use `compile`. */
  constructor(compiled) {
    this.c = compiled;
    for (const t of compiled.outputs.values()) this.ringFor(t);
  }
  /** Dispatch, kernel, pipeline, memory and copy counts of one step. */
  get stats() {
    return this.c.stats;
  }
  /** Names of the graph's outputs. */
  get outputNames() {
    return [...this.c.outputs.keys()];
  }
  /** Names of the params and state tensors. */
  get stateNames() {
    return [...this.c.state.keys()];
  }
  /**
   * Runs one step: one pass of all dispatches, one submit. `feeds` are checked and copied now, when `step` is
   * called, so the caller may refill its arrays at once even though the step runs after the ones queued before it.
   */
  step(feeds, opts = {}) {
    let prepared;
    try {
      prepared = this.prepare(feeds, opts);
    } catch (e) {
      return Promise.reject(e);
    }
    const env = this.envProfile;
    if (env && this.steps === env.step) {
      return this.serial(async () => {
        const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label);
        let r;
        try {
          r = await this.runStep(prepared, timer);
        } catch (e) {
          timer.destroy();
          throw e;
        }
        await writeProfileFiles(new StepProfile(await timer.read(), this.c.label), env.path);
        return r;
      });
    }
    return this.serial(() => this.runStep(prepared));
  }
  /**
   * Runs one step (updates included, exactly as `step`) with GPU timestamps per dispatch, one compute pass each;
   * returns its profile (per-kernel table, Chrome trace). Needs the `timestamp-query` feature (ProfilerError).
   * `repeats` > 1 (benchmarks) encodes the step's dispatches that many times in the one submission.
   */
  profile(feeds, opts = {}) {
    let prepared;
    try {
      checkProfilable(this.c.device);
      prepared = this.prepare(feeds, {});
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serial(async () => {
      const timer = new DispatchTimer(this.c.device, this.c.dispatches.length, this.c.label, opts.repeats);
      try {
        await this.runStep(prepared, timer);
      } catch (e) {
        timer.destroy();
        throw e;
      }
      return new StepProfile(await timer.read(), this.c.label);
    });
  }
  /** Reads an output, param or state tensor by name (after every step queued before this call). */
  read(name) {
    return this.serial(async () => (await this.readMany([name]))[name]);
  }
  /** Reads every param and state tensor, in one submission. */
  readState() {
    return this.serial(() => this.readMany([...this.c.state.keys()]));
  }
  /** Overwrites a param or state tensor (after every step queued before this call); checked and copied now. */
  writeState(name, value) {
    return this.writeStates({ [name]: value });
  }
  /**
   * Overwrites several params/state tensors at once (after every step queued before this call). Every value is
   * checked (name, shape, dtype, length) and copied before anything is written: a bad one writes nothing.
   */
  writeStates(values) {
    let writes;
    try {
      if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
      writes = Object.entries(values).map(([name, value]) => {
        const t = this.c.state.get(name);
        if (!t) throw new InputError(name, `writeState: '${name}' is not a param or state; known: ${[...this.c.state.keys()].join(", ") || "none"}`);
        return { t, data: snapshot(toDeviceData(name, t.node, value), value) };
      });
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serial(async () => {
      const gpu = this.c.device.gpu;
      gpu.pushErrorScope("validation");
      for (const { t, data: data2 } of writes) gpu.queue.writeBuffer(t.buffer, t.offset, data2.buffer, data2.byteOffset, data2.byteLength);
      const err = await gpu.popErrorScope();
      if (err) throw new GpuValidationError(`writeState ${writes.map((w2) => w2.t.name).join(", ")}`, err.message);
    });
  }
  /** Waits until the GPU has finished all submitted work; throws a pending device error if there is one. */
  flush() {
    return this.serial(async () => {
      await this.c.device.gpu.queue.onSubmittedWorkDone();
      this.c.device.check();
    });
  }
  /** Same as `flush()`. */
  sync() {
    return this.flush();
  }
  /**
   * Frees every buffer of the session (the device stays alive). Calls made after it throw at once; calls queued
   * before it that have not started are refused; the one running finishes first, and so do pending readbacks —
   * destroying buffers under in-flight work would leave a stale device error for an unrelated caller (issue 9).
   * The promise resolves once everything is freed.
   */
  dispose() {
    if (this.disposed) return this.freed ?? Promise.resolve();
    this.disposed = true;
    this.freed = this.tail.then(async () => {
      await Promise.all([...this.rings.values()].map((r) => r.settled()));
      for (const r of this.rings.values()) r.destroy();
      for (const b of this.c.buffers) b.destroy();
    });
    return this.freed;
  }
  serial(fn) {
    this.queued++;
    const run = this.tail.then(async () => {
      try {
        if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
        this.c.device.check();
        return await fn();
      } finally {
        this.queued--;
      }
    });
    this.tail = run.catch(() => void 0);
    return run;
  }
  /**
   * Encodes the step's fixed work as command buffers: the pre-copies and every dispatch in one compute pass
   * (`main`), and the state copies that follow the readback copies (`post`). Its error scope is popped at once;
   * the step that submits it reports an encoding error.
   */
  encodeReplay() {
    const { device: device2, dispatches, preCopies, postCopies, label } = this.c;
    const gpu = device2.gpu;
    gpu.pushErrorScope("validation");
    const enc = gpu.createCommandEncoder({ label: `${label}.step` });
    for (const c of preCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
    const pass = enc.beginComputePass({ label: `${label}.pass` });
    for (const d of dispatches) {
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.grid[0], d.grid[1], d.grid[2]);
    }
    pass.end();
    const main = enc.finish();
    let post;
    if (postCopies.length) {
      const pe = gpu.createCommandEncoder({ label: `${label}.stateCopies` });
      for (const c of postCopies) pe.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
      post = pe.finish();
    }
    const error = gpu.popErrorScope();
    error.catch(() => void 0);
    return { main, post, error };
  }
  /** Writes checked feeds to the input buffers now, in an error scope popped at once. */
  writeInputs(data2) {
    const gpu = this.c.device.gpu;
    gpu.pushErrorScope("validation");
    this.c.inputs.forEach((slot, i) => {
      const d = data2[i];
      gpu.queue.writeBuffer(slot.buffer, slot.offset, d.buffer, d.byteOffset, d.byteLength);
    });
    const error = gpu.popErrorScope();
    error.catch(() => void 0);
    return error;
  }
  ringFor(t) {
    let r = this.rings.get(t);
    if (!r) {
      r = new ReadbackRing(this.c.device.gpu, `${this.c.label}.${t.name}`, t.bytes, t.node.shape, t.node.dtype, this.c.readbackSlots);
      this.rings.set(t, r);
    }
    return r;
  }
  readable(name, what) {
    const t = this.c.outputs.get(name) ?? this.c.state.get(name);
    if (!t)
      throw new InputError(
        name,
        `${what}: '${name}' is not an output, param or state; outputs: ${[...this.c.outputs.keys()].join(", ") || "none"}; state: ${[...this.c.state.keys()].join(", ") || "none"}`
      );
    return t;
  }
  /** Names of outputs to copy out, each once, in first-mention order; throws on a name that is not an output. */
  outputList(names) {
    for (const n2 of names)
      if (!this.c.outputs.has(n2)) throw new InputError(n2, `step: '${n2}' is not an output; outputs: ${[...this.c.outputs.keys()].join(", ") || "none"}`);
    return [...new Set(names)];
  }
  /** Checks every feed before anything is written; returns the arrays to upload (copies of the caller's), in input order. */
  checkFeeds(feeds, copy = false) {
    const expected = () => this.c.inputs.map((i) => `${i.name} ${fmtType2(i.node)}`).join(", ") || "none";
    for (const name of Object.keys(feeds))
      if (!this.c.deadInputs.has(name) && !this.c.inputs.some((i) => i.name === name))
        throw new InputError(name, `unknown input '${name}'; expected inputs: ${expected()}`);
    return this.c.inputs.map((slot) => {
      const v = feeds[slot.name];
      if (v === void 0) throw new InputError(slot.name, `missing input '${slot.name}' (${fmtType2(slot.node)}); expected inputs: ${expected()}`);
      const data2 = toDeviceData(`input ${slot.name}`, slot.node, v);
      for (const chk of slot.labelChecks) checkLabels(slot.name, chk, data2);
      return copy ? snapshot(data2, v) : data2;
    });
  }
  /**
   * What `step` takes at call time: the checked feeds and the outputs to copy out, each once. With nothing
   * queued before it the feeds go to the device now (`writeBuffer` copies them: no host copy, and no earlier
   * step is left to read the input buffers); otherwise they are copied, to be written when the step runs.
   */
  prepare(feeds, opts) {
    if (this.disposed) throw new Error(`session '${this.c.label}' is disposed`);
    const readNames = this.outputList(opts.read ?? []);
    const fetchNames = this.outputList(opts.fetch ?? []);
    if (this.queued === 0) return { written: this.writeInputs(this.checkFeeds(feeds)), readNames, fetchNames };
    return { data: this.checkFeeds(feeds, true), readNames, fetchNames };
  }
  async runStep({ data: data2, written: written2, readNames, fetchNames }, timer) {
    const { device: device2, dispatches, label } = this.c;
    const gpu = device2.gpu;
    const names = [.../* @__PURE__ */ new Set([...readNames, ...fetchNames])];
    const slots = names.length ? await Promise.all(names.map((n2) => this.ringFor(this.c.outputs.get(n2)).acquire())) : [];
    const index = this.steps++;
    const writeError = written2 ?? this.writeInputs(data2 ?? []);
    const replay = this.replay ?? this.encodeReplay();
    this.replay = void 0;
    gpu.pushErrorScope("validation");
    const buffers = [];
    if (timer) {
      this.replay = replay;
      const enc = gpu.createCommandEncoder({ label: `${label}.profile` });
      for (const c of this.c.preCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
      timer.encode(enc, dispatches, label);
      buffers.push(enc.finish());
    } else buffers.push(replay.main);
    if (names.length) {
      const enc = gpu.createCommandEncoder({ label: `${label}.readback` });
      names.forEach((n2, k) => {
        const t = this.c.outputs.get(n2);
        enc.copyBufferToBuffer(t.buffer, t.offset, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
      });
      buffers.push(enc.finish());
    }
    if (timer) {
      if (this.c.postCopies.length) {
        const enc = gpu.createCommandEncoder({ label: `${label}.stateCopies` });
        for (const c of this.c.postCopies) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.bytes);
        buffers.push(enc.finish());
      }
    } else if (replay.post) buffers.push(replay.post);
    gpu.queue.submit(buffers);
    const stepError = gpu.popErrorScope();
    if (!this.replay && !this.disposed) this.replay = this.encodeReplay();
    const [err, encodeErr, feedErr] = await Promise.all([stepError, timer ? null : replay.error, writeError]);
    const cause = feedErr ?? encodeErr ?? err;
    if (cause) throw new GpuValidationError(`step ${index}`, cause.message);
    const mapped = new Map(names.map((n2, k) => [n2, this.ringFor(this.c.outputs.get(n2)).arm(slots[k].index)]));
    const collect = async (which) => {
      const out2 = {};
      for (const n2 of which) out2[n2] = await mapped.get(n2);
      return out2;
    };
    const fetched = fetchNames.length ? collect(fetchNames) : void 0;
    fetched?.catch(() => void 0);
    const outputs = readNames.length ? await collect(readNames) : {};
    return { step: index, outputs, ...fetched ? { fetched } : {} };
  }
  async readMany(names) {
    const gpu = this.c.device.gpu;
    const ts = [...new Set(names)].map((n2) => this.readable(n2, "read"));
    gpu.pushErrorScope("validation");
    const rings = ts.map((t) => this.ringFor(t));
    const ringError = await gpu.popErrorScope();
    if (ringError) throw new GpuValidationError(`read ${names.join(", ")}`, ringError.message);
    const slots = await Promise.all(rings.map((r) => r.acquire()));
    gpu.pushErrorScope("validation");
    const enc = gpu.createCommandEncoder({ label: `${this.c.label}.read` });
    ts.forEach((t, k) => {
      enc.copyBufferToBuffer(t.buffer, t.offset, slots[k].buffer, 0, Math.ceil(t.bytes / 4) * 4);
    });
    gpu.queue.submit([enc.finish()]);
    const err = await gpu.popErrorScope();
    if (err) throw new GpuValidationError(`read ${names.join(", ")}`, err.message);
    const out2 = {};
    const values = await Promise.all(ts.map((t, k) => this.ringFor(t).arm(slots[k].index)));
    ts.forEach((t, k) => {
      out2[t.name] = values[k];
    });
    return out2;
  }
};
function snapshot(data2, given) {
  return data2 === given || data2 === given.data ? data2.slice() : data2;
}

// packages/runtime-webgpu/src/arenaPlan.ts
var keyOf = (root) => `n${root}`;
function rolesWritten2(n2, s) {
  const { shared, roles, groups } = groupOperands(n2);
  const R = n2.attrs.exprs.length;
  const out2 = [];
  for (let j = 0; j < groups * R; j++) {
    const v = s.resultNode.get(n2.id)?.get(j);
    const w2 = v === void 0 ? void 0 : s.writes.get(v);
    if (!w2?.multi || w2.input === void 0) return void 0;
    const g = Math.floor(j / R);
    const k = w2.input - shared - g * roles;
    if (!(k >= 0 && k < roles) || g > 0 && out2[j % R] !== k) return void 0;
    if (g === 0) out2.push(k);
  }
  return new Set(out2).size === out2.length ? out2 : void 0;
}
function planArenas(graph, s, rootOf, exclude = /* @__PURE__ */ new Set()) {
  const out2 = /* @__PURE__ */ new Map();
  const taken = /* @__PURE__ */ new Set();
  for (const id of s.order) {
    const n2 = graph.nodes[id];
    if (n2.op !== "pointwiseMultiTensor" || exclude.has(id) || !rolesWritten2(n2, s)) continue;
    const { shared, roles, groups, operand } = groupOperands(n2);
    const rootsOf = Array.from({ length: roles }, (_, k) => Array.from({ length: groups }, (_2, g) => rootOf(n2.inputs[operand(g, shared + k)])));
    const all2 = rootsOf.flat();
    const persistentRole = rootsOf.map((rs) => rs.map((r) => isLeafOp(graph.nodes[r].op)));
    if (new Set(all2).size !== all2.length || all2.some((r) => taken.has(r)) || persistentRole.some((p) => p.some((x) => x !== p[0]))) continue;
    for (const r of all2) taken.add(r);
    out2.set(
      id,
      rootsOf.map((rs, k) => ({ key: `arena${id}.${k}`, tensors: rs.map(keyOf) }))
    );
  }
  return out2;
}
function arenaTables(graph, arenas, memory) {
  const tables = /* @__PURE__ */ new Map();
  for (const [id, roles] of arenas) {
    const n2 = graph.nodes[id];
    const offsets = n2.attrs.shapes.map((_, g) => roles.map((a) => (memory.offsetOf.get(a.tensors[g]) ?? 0) / 4));
    tables.set(id, multiTensorTable(n2, offsets));
  }
  return tables;
}
function arenaClashes(arenas, plans, memory, bufferOfBinding) {
  const ownerOf = /* @__PURE__ */ new Map();
  for (const [id, roles] of arenas) for (const a of roles) ownerOf.set(memory.arenas.get(a.key)?.buffer, id);
  const clashes = /* @__PURE__ */ new Set();
  for (const [id, plan] of plans) {
    if (arenas.has(id)) continue;
    for (const d of plan.dispatches) {
      const seen = /* @__PURE__ */ new Map();
      for (const b of d.bindings) {
        const buf = bufferOfBinding(id, b);
        if (buf === void 0) continue;
        const write = b.access === "read_write";
        const use = seen.get(buf) ?? { write: false, read: false };
        const next = { write: use.write || write, read: use.read || !write };
        if (next.write && next.read && ownerOf.has(buf)) clashes.add(ownerOf.get(buf));
        seen.set(buf, next);
      }
    }
  }
  return clashes;
}

// packages/runtime-webgpu/src/updatePlan.ts
var isLeaf = (n2) => isLeafOp(n2.op);
var isAlias = (n2) => isAliasOp(n2.op);
function liveFacts(graph, live) {
  const node = (id) => graph.nodes[id];
  const rootOf = (id) => {
    let r = id;
    while (isAlias(node(r))) r = node(r).inputs[0];
    return r;
  };
  const readers = /* @__PURE__ */ new Map();
  for (const id of live) {
    const n2 = node(id);
    if (isAlias(n2)) continue;
    for (const i of n2.inputs) {
      const r = rootOf(i);
      let s = readers.get(r);
      if (!s) readers.set(r, s = /* @__PURE__ */ new Set());
      s.add(id);
    }
  }
  const outputRoots = new Set([...graph.outputs.values()].map(rootOf));
  return { node, rootOf, readers, outputRoots, updatedStates: new Set(graph.updates.map((u) => u.state)) };
}
var Constraints = class {
  succ = /* @__PURE__ */ new Map();
  constructor(graph, live) {
    const liveSet = new Set(live);
    for (const id of live) for (const i of graph.nodes[id].inputs) if (liveSet.has(i)) this.add(i, id);
  }
  add(a, b) {
    let l = this.succ.get(a);
    if (!l) this.succ.set(a, l = []);
    l.push(b);
  }
  next(a) {
    return this.succ.get(a) ?? [];
  }
  /** Whether `from` reaches any of `targets` along the edges. */
  reaches(from, targets) {
    const seen = /* @__PURE__ */ new Set();
    const stack = [from];
    while (stack.length) {
      const x = stack.pop();
      if (targets.has(x)) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      for (const y of this.next(x)) stack.push(y);
    }
    return false;
  }
};
function writeOf(f, state, value) {
  const s = f.node(state);
  const v = f.node(value);
  if (isLeaf(v) || isAlias(v)) return "the value is a leaf or an alias of one (no kernel writes it)";
  if (f.outputRoots.has(state)) return "the old value is a graph output";
  if (v.op === "pointwiseMulti" || v.op === "pointwiseMultiTensor" || v.op === "pick") {
    const multi = v.op === "pick" ? f.node(v.inputs[0]) : v;
    const result = v.op === "pick" ? v.attrs.index : 0;
    const k = multi.inputs.indexOf(state);
    const t = v.op === "pick" ? v : multi;
    if (k < 0 || multi.inputs.some((i) => i !== state && f.rootOf(i) === state) || !sameShape(t.shape, s.shape) || t.dtype !== s.dtype)
      return "the multi-result kernel does not read the state elementwise (or not at all)";
    return { state, mode: "elementwise", input: k, multi: { node: multi.id, result } };
  }
  const stateOperands = v.inputs.map((i, k) => f.rootOf(i) === state ? k : -1).filter((k) => k >= 0);
  if (stateOperands.length === 0) return { state, mode: "direct" };
  if (isElementwise(v.op) && stateOperands.every((k) => v.inputs[k] === state) && sameShape(v.shape, s.shape) && v.dtype === s.dtype)
    return { state, mode: "elementwise", input: stateOperands[0] };
  return "the value reads the state at other indices (not elementwise, broadcast, or through an alias)";
}
function planWrites(graph, f, edges) {
  const writes = /* @__PURE__ */ new Map();
  const copies = [];
  let identities = 0;
  for (const { state, value } of graph.updates) {
    const v = f.node(value);
    const vr = f.rootOf(value);
    if (vr === state) {
      identities++;
      continue;
    }
    const viaTemp = (isLeaf(v) || isAlias(v)) && f.updatedStates.has(vr);
    const copy = (reason) => copies.push({ state, value, viaTemp, reason });
    if (writes.has(value) && !isLeaf(v) && !isAlias(v)) {
      copy(`the value already writes state ${writes.get(value)?.state} in place`);
      continue;
    }
    const w2 = writeOf(f, state, value);
    if (typeof w2 === "string") {
      copy(w2);
      continue;
    }
    const writer = w2.multi?.node ?? value;
    const others = new Set([...f.readers.get(state) ?? []].filter((r) => r !== writer));
    if (edges.reaches(writer, others)) {
      copy("a reader of the old value depends on the new value");
      continue;
    }
    for (const r of others) edges.add(r, writer);
    writes.set(value, w2);
  }
  return { writes, copies, identities };
}
function schedule(live, edges) {
  const indeg = new Map(live.map((id) => [id, 0]));
  for (const id of live) for (const b of edges.next(id)) indeg.set(b, (indeg.get(b) ?? 0) + 1);
  const ready = new MinHeap();
  for (const [id, d] of indeg) if (d === 0) ready.push(id);
  const order = [];
  while (ready.size) {
    const id = ready.pop();
    order.push(id);
    for (const b of edges.next(id)) {
      const d = indeg.get(b) - 1;
      indeg.set(b, d);
      if (d === 0) ready.push(b);
    }
  }
  if (order.length !== live.length) throw new Error(`planUpdates: schedule has a cycle (${order.length} of ${live.length} nodes ordered)`);
  return order;
}
function planUpdates(graph, live = graph.live()) {
  const facts = liveFacts(graph, live);
  const edges = new Constraints(graph, live);
  const planned = planWrites(graph, facts, edges);
  return { order: schedule(live, edges), ...planned };
}
var MinHeap = class {
  a = [];
  get size() {
    return this.a.length;
  }
  push(x) {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = i - 1 >> 1;
      if (a[p] <= a[i]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop() {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l] < a[m]) m = l;
        if (r < a.length && a[r] < a[m]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
};

// packages/runtime-webgpu/src/stepPlan.ts
var isLeaf2 = (n2) => isLeafOp(n2.op);
var tensorBytes2 = (n2) => numel(n2.shape) * 4;
function scheduleStep(graph) {
  const live = graph.live();
  const updates = planUpdates(graph, live);
  const resultNode = /* @__PURE__ */ new Map();
  for (const id of live) {
    const n2 = graph.nodes[id];
    if (isMultiResultOp(n2.op)) resultNode.set(id, new Map([[0, id], ...resultNode.get(id) ?? []]));
    if (n2.op !== "pick") continue;
    const m = resultNode.get(n2.inputs[0]) ?? /* @__PURE__ */ new Map();
    m.set(n2.attrs.index, id);
    resultNode.set(n2.inputs[0], m);
  }
  return { live, order: updates.order, writes: new Map(updates.writes), copies: [...updates.copies], resultNode };
}
function checkLegal(graph, n2, caps) {
  const ins = [...new Set(n2.inputs)].map((i) => graph.nodes[i]);
  const multiTensor = n2.op === "pointwiseMultiTensor" ? { attrs: n2.attrs, inputs: n2.inputs.length } : void 0;
  const why = kernelIllegality(n2.op, ins, n2, caps, 1, multiTensor);
  if (why) throw new KernelError(`${why} (optimize with this device's limits: optimize(graph, { limits: device.caps }))`);
}
function planKernels(graph, s, caps, generate, arenas = /* @__PURE__ */ new Map()) {
  const node = (id) => graph.nodes[id];
  const { writes, copies, resultNode } = s;
  const resultsOf = (n2) => Array.from({ length: kernelOutputs(n2) }, (_, j) => {
    const v = resultNode.get(n2.id)?.get(j);
    if (v === void 0) return "unused";
    const w2 = writes.get(v);
    return w2?.multi ? { inPlace: w2.input } : "buffer";
  });
  const plans = /* @__PURE__ */ new Map();
  for (const id of s.order) {
    const n2 = node(id);
    if (isLeaf2(n2) || isAliasOp(n2.op) || n2.op === "pick") continue;
    const inputs = n2.inputs.map((i) => ({ shape: node(i).shape, dtype: node(i).dtype }));
    const w2 = writes.get(id);
    try {
      checkLegal(graph, n2, caps);
      if (isMultiResultOp(n2.op)) {
        plans.set(id, generate({ node: n2, inputs, results: resultsOf(n2), ...arenas.has(id) ? { arenas: true } : {} }, caps));
        continue;
      }
      if (w2?.mode === "elementwise") {
        try {
          plans.set(id, generate({ node: n2, inputs, inPlace: w2.input }, caps));
          continue;
        } catch (e) {
          if (!(e instanceof KernelError)) throw e;
          writes.delete(id);
          const u = graph.updates.find((x) => x.value === id && x.state === w2.state);
          copies.push({ state: u.state, value: u.value, viaTemp: false, reason: `generator refused in-place: ${e.message}` });
        }
      }
      plans.set(id, generate({ node: n2, inputs }, caps));
    } catch (e) {
      const where = n2.site ? ` (built at ${n2.site})` : "";
      const msg = `${n2.op} node ${id}${where}: ${e.message}`;
      throw e instanceof KernelError ? new KernelError(msg, { cause: e }) : new Error(msg, { cause: e });
    }
  }
  return plans;
}
function planStorage(graph, s, plans, arenas = /* @__PURE__ */ new Map()) {
  const node = (id) => graph.nodes[id];
  const { order, copies } = s;
  const rootOf = storageRoots(graph, s);
  const pos = new Map(order.map((id, i) => [id, i]));
  const end = order.length;
  const lastUse = /* @__PURE__ */ new Map();
  const use = (id, at) => {
    const r = rootOf(id);
    lastUse.set(r, Math.max(lastUse.get(r) ?? -1, at));
  };
  for (const id of order) for (const i of node(id).inputs) use(i, pos.get(id));
  for (const id of graph.outputs.values()) use(id, end);
  for (const c of copies) use(c.value, end);
  const lifetimes = [];
  for (const id of order) {
    const n2 = node(id);
    const scratch = plans.get(id)?.scratch ?? [];
    const at = pos.get(id);
    for (let k = 0; k < scratch.length; k++) lifetimes.push({ key: `n${id}.s${k}`, bytes: scratch[k], start: at, end: at, persistent: false });
    if (rootOf(id) !== id) continue;
    const start = pos.get(n2.op === "pick" ? n2.inputs[0] : id);
    lifetimes.push({ key: `n${id}`, bytes: tensorBytes2(n2), start, end: Math.max(start, lastUse.get(id) ?? start), persistent: isLeaf2(n2) });
  }
  for (const c of copies)
    if (c.viaTemp) lifetimes.push({ key: `copy${c.state}`, bytes: tensorBytes2(node(c.state)), start: -1, end, persistent: false });
  for (const id of arenas.keys()) {
    const table4 = plans.get(id)?.dispatches[0]?.bindings.find((b) => b.source.kind === "table")?.source;
    if (table4?.kind === "table") lifetimes.push({ key: `n${id}.table`, bytes: table4.words * 4, start: 0, end: 0, persistent: true });
  }
  const memory = planMemory(lifetimes, [...arenas.values()].flat());
  return { rootOf, pos, memory };
}
function storageRoots(graph, s) {
  const node = (id) => graph.nodes[id];
  const { writes, resultNode } = s;
  const roots = /* @__PURE__ */ new Map();
  const rootOf = (id) => {
    const path = [];
    let r = id;
    while (isAliasOp(node(r).op) && !roots.has(r)) {
      path.push(r);
      r = node(r).inputs[0];
    }
    const r0 = isMultiResultOp(node(r).op) ? resultNode.get(r)?.get(0) : void 0;
    const root = r0 !== void 0 && r0 !== r ? rootOf(r0) : roots.get(r) ?? writes.get(r)?.state ?? r;
    for (const p of path) roots.set(p, root);
    return root;
  };
  return rootOf;
}
function planIndexChecks(graph, order, rootOf) {
  const node = (id) => graph.nodes[id];
  const labelChecks = /* @__PURE__ */ new Map();
  for (const id of order) {
    const n2 = node(id);
    for (const ix of indexOperandsOf(n2.op)) {
      const r = rootOf(n2.inputs[ix.operand]);
      if (node(r).op !== "input") continue;
      let l = labelChecks.get(r);
      if (!l) labelChecks.set(r, l = []);
      const operands = n2.inputs.map((i) => node(i));
      l.push({ role: ix.role, bound: ix.bound(n2.attrs, operands), what: ix.describe(n2.attrs) });
    }
  }
  return labelChecks;
}
function planStep(graph, caps, generate) {
  const s = scheduleStep(graph);
  const exclude = /* @__PURE__ */ new Set();
  for (; ; ) {
    const arenas = planArenas(graph, s, storageRoots(graph, s), exclude);
    const plans = planKernels(graph, s, caps, generate, arenas);
    const again = planArenas(graph, s, storageRoots(graph, s), exclude);
    const changed = [...arenas.keys()].filter((id) => JSON.stringify(again.get(id)) !== JSON.stringify(arenas.get(id)));
    if (changed.length) {
      for (const id of changed) exclude.add(id);
      continue;
    }
    const storage = planStorage(graph, s, plans, arenas);
    const clashes = arenaClashes(arenas, plans, storage.memory, (id, b) => bindingBuffer(graph, s, storage, id, b.source));
    if (clashes.size) {
      for (const id of clashes) exclude.add(id);
      continue;
    }
    const tables = arenaTables(graph, arenas, storage.memory);
    return { ...s, plans, ...storage, arenas, tables, indexChecks: planIndexChecks(graph, s.order, storage.rootOf) };
  }
}
function bindingBuffer(graph, s, storage, id, src) {
  const { rootOf, memory } = storage;
  switch (src.kind) {
    case "input":
      return memory.bufferOf.get(`n${rootOf(graph.nodes[id].inputs[src.index])}`);
    case "output": {
      const r = src.index ?? 0;
      const holder = r === 0 ? id : s.resultNode.get(id)?.get(r);
      return holder === void 0 ? void 0 : memory.bufferOf.get(`n${rootOf(holder)}`);
    }
    case "scratch":
      return memory.bufferOf.get(`n${id}.s${src.index}`);
    default:
      return void 0;
  }
}

// packages/runtime-webgpu/src/compile.ts
async function compile(graph, device2, opts = {}) {
  device2.check();
  const gpu = device2.gpu;
  const label = opts.label ?? "neura";
  const plan = planStep(graph, tunedCaps(capsFor(device2, opts.precision), matmulTuningOf(device2, opts)), opts.generator ?? generateKernel);
  const scopes = new ErrorScopes(gpu);
  scopes.begin();
  const buffers = createBuffers(gpu, graph, plan.memory, label);
  const bufferFor = (key) => buffers[plan.memory.bufferOf.get(key)];
  const storageOf = (id) => bufferFor(`n${plan.rootOf(id)}`);
  let session;
  try {
    const state = uploadLeaves(gpu, graph, plan, storageOf, { initialState: opts.initialState, label, buffers });
    for (const [id, table4] of plan.tables) gpu.queue.writeBuffer(bufferFor(`n${id}.table`), 0, table4.buffer, table4.byteOffset, table4.byteLength);
    const { inputs, deadInputs, outputs } = ioSlots(graph, plan, storageOf);
    const jobs = bindDispatches(graph, plan, storageOf, bufferFor, buffers);
    const dispatches = await createDispatches(gpu, jobs, opts.pipelineCache ?? new PipelineCache(gpu), scopes);
    const { preCopies, postCopies } = recordCopies(graph, plan, plan.copies, storageOf, bufferFor);
    const stats = sessionStats(plan, dispatches, preCopies.length + postCopies.length);
    const readbackSlots = opts.readbackSlots ?? 2;
    session = new Session({ device: device2, graph, label, inputs, deadInputs, outputs, state, dispatches, preCopies, postCopies, buffers, stats, readbackSlots });
    await scopes.check("compile");
    return session;
  } catch (e) {
    await scopes.check("compile").catch(() => void 0);
    if (session) await session.dispose();
    else for (const b of buffers) b.destroy();
    throw e;
  }
}
var storageUsage = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
function createBuffers(gpu, graph, memory, label) {
  return memory.buffers.map((b) => {
    const held = `${b.tensors.slice(0, 4).map((k) => describe(graph, k)).join(",")}${b.tensors.length > 4 ? ",\u2026" : ""}`;
    return gpu.createBuffer({ label: `${label}.${b.persistent ? "persistent" : "transient"}${b.index}[${held}]`, size: b.bytes, usage: storageUsage() });
  });
}
async function createDispatches(gpu, jobs, cache, scopes) {
  scopes.end();
  const compiled = await Promise.all(jobs.map((j) => cache.get({ label: j.label, code: j.d.code, bindings: j.d.bindings })));
  scopes.begin();
  return jobs.map((j, k) => ({
    label: j.label,
    pipeline: compiled[k].pipeline,
    bindGroup: gpu.createBindGroup({ label: j.label, layout: compiled[k].layout, entries: j.entries }),
    grid: j.d.grid,
    kernel: j.kernel
  }));
}
function sessionStats(plan, dispatches, copiesPerStep) {
  return {
    dispatchesPerStep: dispatches.length,
    kernels: plan.plans.size,
    pipelines: new Set(dispatches.map((d) => d.pipeline)).size,
    bytesAllocated: plan.memory.report.bytesAllocated,
    bytesIfUnshared: plan.memory.report.bytesIfUnshared,
    copiesPerStep,
    inPlaceUpdates: plan.writes.size,
    multiTensorArenas: plan.arenas.size,
    memory: plan.memory.report
  };
}
function uploadLeaves(gpu, graph, plan, storageOf, o) {
  const named = /* @__PURE__ */ new Map();
  for (const n2 of graph.nodes) if (n2.op === "param" || n2.op === "state" || n2.op === "input") named.set(leafName(n2), n2);
  for (const key of Object.keys(o.initialState ?? {})) {
    const n2 = named.get(key);
    if (!n2 || n2.op === "input") throw new InputError(key, `compile: initialState '${key}' is not a param or state of this graph (${[...named.values()].filter((x) => x.op !== "input").map((x) => leafName(x)).join(", ") || "none"})`);
  }
  const state = /* @__PURE__ */ new Map();
  for (const n2 of graph.nodes) {
    if (n2.op !== "param" && n2.op !== "state") continue;
    const name = leafName(n2);
    const buffer = plan.pos.has(n2.id) ? storageOf(n2.id) : gpu.createBuffer({ label: `${o.label}.unused[${name}]`, size: alignedBytes(tensorBytes2(n2)), usage: storageUsage() });
    if (!plan.pos.has(n2.id)) o.buffers.push(buffer);
    const given = o.initialState?.[name];
    const init = given ?? initialValue(n2.attrs.init, n2.shape, n2.dtype);
    const data2 = toDeviceData(name, n2, init);
    const offset = plan.pos.has(n2.id) ? offsetIn(plan, n2.id) : 0;
    gpu.queue.writeBuffer(buffer, offset, data2.buffer, data2.byteOffset, data2.byteLength);
    state.set(name, { name, node: n2, buffer, offset, bytes: tensorBytes2(n2) });
  }
  for (const id of plan.order) {
    const n2 = graph.nodes[id];
    if (n2.op !== "const") continue;
    const v = initialValue({ kind: "fill", value: n2.attrs.value }, n2.shape, n2.dtype);
    const data2 = toDeviceData(`const ${id}`, n2, v);
    gpu.queue.writeBuffer(storageOf(id), offsetIn(plan, id), data2.buffer, data2.byteOffset, data2.byteLength);
  }
  return state;
}
function ioSlots(graph, plan, storageOf) {
  const inputs = [];
  const deadInputs = /* @__PURE__ */ new Set();
  for (const n2 of graph.nodes) {
    if (n2.op !== "input") continue;
    if (!plan.pos.has(n2.id)) deadInputs.add(leafName(n2));
    else inputs.push({ name: leafName(n2), node: n2, buffer: storageOf(n2.id), offset: offsetIn(plan, n2.id), labelChecks: plan.indexChecks.get(n2.id) ?? [] });
  }
  const outputs = /* @__PURE__ */ new Map();
  for (const [name, id] of graph.outputs) outputs.set(name, { name, node: graph.nodes[id], buffer: storageOf(id), offset: offsetIn(plan, id), bytes: tensorBytes2(graph.nodes[id]) });
  return { inputs, deadInputs, outputs };
}
function bindDispatches(graph, step, storageOf, bufferFor, buffers) {
  const jobs = [];
  for (const id of step.order) {
    const plan = step.plans.get(id);
    if (!plan) continue;
    const n2 = graph.nodes[id];
    const kernel = kernelInfoOf(graph, n2);
    plan.dispatches.forEach((d, j) => {
      const dl = `${d.label}#${id}${plan.dispatches.length > 1 ? `.${j}` : ""}`;
      const bound = [];
      const entries = d.bindings.map((b, i) => {
        let buffer;
        let size;
        let what;
        let offset = 0;
        if (b.source.kind === "input") {
          const src = n2.inputs[b.source.index];
          buffer = storageOf(src);
          offset = offsetIn(step, src);
          size = tensorBytes2(graph.nodes[src]);
          what = `input ${b.source.index}`;
        } else if (b.source.kind === "output") {
          const r = b.source.index ?? 0;
          const holder = r === 0 ? id : step.resultNode.get(id)?.get(r);
          if (holder === void 0) throw new Error(`compile: ${dl} writes result ${r}, which no live node holds`);
          buffer = storageOf(holder);
          offset = offsetIn(step, holder);
          size = tensorBytes2(graph.nodes[holder]);
          what = r === 0 ? "output" : `result ${r}`;
        } else if (b.source.kind === "arena") {
          const arena = step.memory.arenas.get(step.arenas.get(id)?.[b.source.role]?.key ?? "");
          if (!arena) throw new Error(`compile: ${dl} binds the arena of role ${b.source.role}, which the memory plan did not make`);
          buffer = buffers[arena.buffer];
          size = arena.bytes;
          what = `arena ${b.source.role}`;
        } else if (b.source.kind === "table") {
          buffer = bufferFor(`n${id}.table`);
          size = b.source.words * 4;
          what = "table";
        } else {
          buffer = bufferFor(`n${id}.s${b.source.index}`);
          size = plan.scratch[b.source.index];
          what = `scratch ${b.source.index}`;
        }
        const write = b.access === "read_write";
        const end = offset + size;
        const clash = bound.find((x) => x.buffer === buffer && (x.write !== write || write && x.offset < end && offset < x.end));
        if (clash)
          throw new Error(`compile: ${dl} binds one buffer as ${clash.what} and ${what}, ${clash.write && write ? "overlapping writable ranges" : "writable and read-only"} (WebGPU forbids it in one dispatch)`);
        bound.push({ buffer, write, what, offset, end });
        return { binding: i, resource: { buffer, offset, size: Math.max(4, Math.ceil(size / 4) * 4) } };
      });
      jobs.push({ id, d, label: dl, entries, kernel });
    });
  }
  return jobs;
}
function recordCopies(graph, plan, copies, storageOf, bufferFor) {
  const preCopies = [];
  const postCopies = [];
  for (const c of copies) {
    const bytes = tensorBytes2(graph.nodes[c.state]);
    const dst = storageOf(c.state);
    const at = { src: offsetIn(plan, c.value), dst: offsetIn(plan, c.state) };
    if (c.viaTemp) {
      const temp = bufferFor(`copy${c.state}`);
      preCopies.push({ src: storageOf(c.value), srcOffset: at.src, dst: temp, dstOffset: 0, bytes });
      postCopies.push({ src: temp, srcOffset: 0, dst, dstOffset: at.dst, bytes });
    } else postCopies.push({ src: storageOf(c.value), srcOffset: at.src, dst, dstOffset: at.dst, bytes });
  }
  return { preCopies, postCopies };
}
function offsetIn(plan, id) {
  return plan.memory.offsetOf.get(`n${plan.rootOf(id)}`) ?? 0;
}
function describe(graph, key) {
  const m = /^n(\d+)(\.s\d+)?$/.exec(key);
  if (!m) return key;
  const n2 = graph.nodes[Number(m[1])];
  return `${leafName(n2) ?? `${n2.op}#${n2.id}`}${m[2] ?? ""}`;
}

// packages/nn/src/errors.ts
var TrainingStepError = class extends Error {
  name = "TrainingStepError";
};

// packages/autograd/src/customVjp.ts
var KEY3 = /* @__PURE__ */ Symbol.for("@neura/autograd/customVjps");
var table3 = globalThis[KEY3] ?? /* @__PURE__ */ new Map();
globalThis[KEY3] = table3;
function customVjp(name) {
  return table3.get(name);
}

// packages/autograd/src/sumToShape.ts
function sumToShape(graph, grad2, shape) {
  if (sameShape(grad2.shape, shape)) return grad2;
  const axes = broadcastAxes(shape, grad2.shape);
  const summed = axes.length > 0 ? graph.sum(grad2, axes) : grad2;
  if (summed.shape.reduce((p, d) => p * d, 1) !== shape.reduce((p, d) => p * d, 1))
    throw new GraphError(`autograd: gradient ${fmtShape(grad2.shape)} does not reduce to operand shape ${fmtShape(shape)}`);
  return graph.reshape(summed, shape);
}

// packages/autograd/src/vjp.ts
var LEAF = { kind: "leaf" };
var noGradient = (why) => ({ kind: "noGradient", why });
var notDifferentiable = (why) => ({ kind: "notDifferentiable", why });
var rule = (fn) => ({ kind: "rule", fn });
var unary2 = (f) => rule(({ graph, g, inputs, node }) => [f(graph, g, inputs[0], node)]);
var binary2 = (da, db) => rule(({ graph, g, inputs: [a, b], node, needs }) => [
  needs[0] ? sumToShape(graph, da(graph, g, a, b, node), a.shape) : void 0,
  needs[1] ? sumToShape(graph, db(graph, g, a, b, node), b.shape) : void 0
]);
var f32 = (G, mask) => G.cast(mask, "f32");
var pick = (win, side) => (G, g, a, b) => {
  const wins = side === 0 ? G[win](a, b) : G[win](b, a);
  return G.where(wins, g, G.where(G.eq(a, b), G.mul(g, 0.5), 0));
};
var keptShape = (x, axes) => x.shape.map((d, i) => axes.includes(i) ? 1 : d);
var unreduce = (G, g, x, axes) => G.expand(G.reshape(g, keptShape(x, axes)), x.shape);
function matmulGrads(G, g, a, b, transA, transB, needs) {
  let da;
  let db;
  if (!transA && !transB) {
    if (needs[0]) da = G.matmul(g, b, { transB: true });
    if (needs[1]) db = G.matmul(a, g, { transA: true });
  } else if (!transA && transB) {
    if (needs[0]) da = G.matmul(g, b);
    if (needs[1]) db = G.matmul(g, a, { transA: true });
  } else if (transA && !transB) {
    if (needs[0]) da = G.matmul(b, g, { transB: true });
    if (needs[1]) db = G.matmul(a, g);
  } else {
    if (needs[0]) da = G.matmul(b, g, { transA: true, transB: true });
    if (needs[1]) db = G.matmul(g, a, { transA: true, transB: true });
  }
  return [da && sumToShape(G, da, a.shape), db && sumToShape(G, db, b.shape)];
}
var comparison = noGradient("comparisons produce a bool mask, which carries no gradient");
var secondOrder = notDifferentiable("it is a backward op, and second-order gradients are not supported");
var fusedOnly = notDifferentiable("it is a fused op made by the optimizer after differentiation: differentiate the primitives, then optimize");
var VJPS = {
  input: LEAF,
  param: LEAF,
  state: LEAF,
  const: LEAF,
  neg: unary2((G, g) => G.neg(g)),
  abs: unary2((G, g, x) => G.mul(g, G.sub(f32(G, G.gt(x, 0)), f32(G, G.lt(x, 0))))),
  // sign(x); 0 at 0
  exp: unary2((G, g, _x, y) => G.mul(g, y)),
  log: unary2((G, g, x) => G.div(g, x)),
  sqrt: unary2((G, g, _x, y) => G.div(g, G.mul(y, 2))),
  rsqrt: unary2((G, g, _x, y) => G.mul(g, G.mul(G.mul(y, G.square(y)), -0.5))),
  // d x^-1/2 = -x^-3/2 / 2
  recip: unary2((G, g, _x, y) => G.neg(G.mul(g, G.square(y)))),
  square: unary2((G, g, x) => G.mul(g, G.mul(x, 2))),
  relu: unary2((G, g, x) => G.mul(g, f32(G, G.gt(x, 0)))),
  // subgradient 0 at 0
  sigmoid: unary2((G, g, _x, y) => G.mul(g, G.mul(y, G.sub(1, y)))),
  tanh: unary2((G, g, _x, y) => G.mul(g, G.sub(1, G.square(y)))),
  sin: unary2((G, g, x) => G.mul(g, G.cos(x))),
  cos: unary2((G, g, x) => G.neg(G.mul(g, G.sin(x)))),
  erf: unary2((G, g, x) => G.mul(g, G.mul(G.exp(G.neg(G.square(x))), 2 / Math.sqrt(Math.PI)))),
  // d/dx x·Φ(x) = Φ(x) + x·φ(x), Φ(x) = (1 + erf(x/√2))/2, φ(x) = e^(−x²/2)/√(2π)
  gelu: unary2((G, g, x) => {
    const cdf = G.mul(G.add(G.erf(G.mul(x, Math.SQRT1_2)), 1), 0.5);
    const pdf = G.mul(G.exp(G.mul(G.square(x), -0.5)), 1 / Math.sqrt(2 * Math.PI));
    return G.mul(g, G.add(cdf, G.mul(x, pdf)));
  }),
  // with t = tanh(k(x + c·x³)): (1 + t)/2 + x/2·(1 − t²)·k(1 + 3c·x²)
  geluTanh: unary2((G, g, x) => {
    const t = G.tanh(G.mul(G.add(x, G.mul(G.mul(x, G.square(x)), 0.044715)), GELU_TANH_K));
    const dt = G.mul(G.sub(1, G.square(t)), G.mul(G.add(G.mul(G.square(x), 3 * 0.044715), 1), GELU_TANH_K));
    return G.mul(g, G.add(G.mul(G.add(t, 1), 0.5), G.mul(G.mul(x, 0.5), dt)));
  }),
  silu: unary2((G, g, x) => {
    const s = G.sigmoid(x);
    return G.mul(g, G.mul(s, G.add(G.mul(x, G.sub(1, s)), 1)));
  }),
  softplus: unary2((G, g, x) => G.mul(g, G.sigmoid(x))),
  add: binary2(
    (_G, g) => g,
    (_G, g) => g
  ),
  sub: binary2(
    (_G, g) => g,
    (G, g) => G.neg(g)
  ),
  mul: binary2(
    (G, g, _a, b) => G.mul(g, b),
    (G, g, a) => G.mul(g, a)
  ),
  div: binary2(
    (G, g, _a, b) => G.div(g, b),
    (G, g, _a, b, y) => G.neg(G.div(G.mul(g, y), b))
    // -g·a/b² = -g·y/b
  ),
  max: binary2(pick("gt", 0), pick("gt", 1)),
  min: binary2(pick("lt", 0), pick("lt", 1)),
  pow: binary2(
    (G, g, a, b) => G.mul(g, G.mul(b, G.pow(a, G.sub(b, 1)))),
    (G, g, a, _b, y) => G.mul(g, G.mul(y, G.log(a)))
    // NaN for a < 0, as in PyTorch
  ),
  gt: comparison,
  ge: comparison,
  lt: comparison,
  le: comparison,
  eq: comparison,
  where: rule(({ graph: G, g, inputs: [c, a, b], needs }) => [
    void 0,
    needs[1] ? sumToShape(G, G.where(c, g, 0), a.shape) : void 0,
    needs[2] ? sumToShape(G, G.where(c, 0, g), b.shape) : void 0
  ]),
  // only an f32 → f32 cast can be on a gradient path: casts to or from i32/bool stop it (not f32 = not active)
  cast: rule(({ g, inputs: [x], node }) => [x.dtype === "f32" && node.dtype === "f32" ? g : void 0]),
  sum: rule(({ graph: G, g, inputs: [x], node }) => [unreduce(G, g, x, node.attrs.axes)]),
  mean: rule(({ graph: G, g, inputs: [x], node }) => {
    const count = node.attrs.axes.reduce((p, ax) => p * x.shape[ax], 1);
    return [G.mul(unreduce(G, g, x, node.attrs.axes), 1 / count)];
  }),
  // g is shared equally among tied maxima (as torch.amax does), so the routed gradient always sums to g
  reduceMax: rule(({ graph: G, g, inputs: [x], node }) => {
    const kept = keptShape(x, node.attrs.axes);
    const mask = f32(G, G.eq(x, G.reshape(node, kept)));
    const ties = G.sum(mask, node.attrs.axes, true);
    return [G.mul(mask, G.div(G.reshape(g, kept), ties))];
  }),
  reduceMin: rule(({ graph: G, g, inputs: [x], node }) => {
    const kept = keptShape(x, node.attrs.axes);
    const mask = f32(G, G.eq(x, G.reshape(node, kept)));
    const ties = G.sum(mask, node.attrs.axes, true);
    return [G.mul(mask, G.div(G.reshape(g, kept), ties))];
  }),
  argmax: noGradient("argmax gives i32 indices, which carry no gradient"),
  reshape: rule(({ graph: G, g, inputs: [x] }) => [G.reshape(g, x.shape)]),
  transpose: rule(({ graph: G, g, node }) => {
    const inverse = new Array(node.attrs.perm.length);
    node.attrs.perm.forEach((p, i) => {
      inverse[p] = i;
    });
    return [G.transpose(g, inverse)];
  }),
  expand: rule(({ graph: G, g, inputs: [x] }) => [sumToShape(G, g, x.shape)]),
  // the window's elements go back to their places, with zeros between (interior) and around them (edges)
  slice: rule(({ graph: G, g, inputs: [x], node }) => {
    const { starts, steps } = node.attrs;
    const after = x.shape.map((d, i) => d - (node.shape[i] === 0 ? starts[i] : starts[i] + (node.shape[i] - 1) * steps[i] + 1));
    return [G.node("pad", [g], { before: [...starts], after, interior: steps.map((s) => s - 1), value: 0 })];
  }),
  pad: rule(({ graph: G, g, inputs: [x], node }) => {
    const { before, interior } = node.attrs;
    const ends = x.shape.map((d, i) => d === 0 ? before[i] : before[i] + (d - 1) * (interior[i] + 1) + 1);
    return [G.node("slice", [g], { starts: [...before], ends, steps: interior.map((v) => v + 1) })];
  }),
  concat: rule(({ graph: G, g, inputs, node, needs }) => {
    const { axis } = node.attrs;
    let at = 0;
    return inputs.map((x, k) => {
      const from = at;
      at += x.shape[axis];
      if (!needs[k]) return void 0;
      return G.slice(g, g.shape.map((_, i) => i === axis ? from : 0), g.shape.map((d, i) => i === axis ? from + x.shape[axis] : d));
    });
  }),
  gather: rule(({ graph: G, g, inputs: [table4, indices], node }) => [
    G.scatterAdd(G.constant(0, table4.shape), indices, g, node.attrs.axis),
    void 0
  ]),
  scatterAdd: rule(({ graph: G, g, inputs: [, indices], node, needs }) => [
    needs[0] ? g : void 0,
    void 0,
    needs[2] ? G.gather(g, indices, node.attrs.axis) : void 0
  ]),
  oneHot: noGradient("oneHot reads i32 labels"),
  stopGradient: noGradient("stopGradient blocks the gradient by definition"),
  custom: rule(({ graph, node, inputs, g, needs }) => {
    const { name, params } = node.attrs;
    const vjp = customVjp(name);
    if (!vjp) throw new GraphError(`custom op '${name}' has no vjp: register one (registerCustomVjp, or customOp's vjp) to differentiate through it`, "custom", node.site);
    const grads = vjp({ graph, node, inputs, g, params, needs });
    if (grads.length !== inputs.length) throw new GraphError(`custom op '${name}': its vjp returned ${grads.length} gradients for ${inputs.length} operands`, "custom", node.site);
    return grads;
  }),
  matmul: rule(({ graph: G, g, inputs: [a, b], node, needs }) => matmulGrads(G, g, a, b, node.attrs.transA, node.attrs.transB, needs)),
  logSoftmax: rule(({ graph: G, g, node }) => [G.node("logSoftmaxGrad", [node, g], { axis: node.attrs.axis })]),
  logSoftmaxGrad: secondOrder,
  // labels are i32: never differentiated
  nll: rule(({ graph: G, g, inputs: [logp, labels], node }) => [
    G.node("nllGrad", [labels, g], { reduction: node.attrs.reduction, classes: logp.shape[1] }),
    void 0
  ]),
  nllGrad: secondOrder,
  // flash-attention style (no T×T tensor): the scores' log-sum-exp L and Δ = rowsum(g ⊙ out) once, then one
  // backward op per operand recomputing P = exp(s − L) from them (the e-graph may share L with the forward kernel)
  attention: rule(({ graph: G, g, inputs: [q, k, v], node, needs }) => {
    const lse = G.node("attentionLse", [q, k], node.attrs);
    const delta = G.sum(G.mul(g, node), -1);
    return ["q", "k", "v"].map((wrt, i) => needs[i] ? G.node("attentionGrad", [q, k, v, g, lse, delta], { ...node.attrs, wrt }) : void 0);
  }),
  attentionLse: secondOrder,
  attentionGrad: secondOrder,
  attentionWithLse: fusedOnly,
  attentionGradKV: fusedOnly,
  attentionGradQKV: fusedOnly,
  conv2d: rule(({ graph: G, g, inputs: [x, w2], node, needs }) => [
    needs[0] ? G.node("conv2dGradInput", [g, w2], { ...node.attrs, inputSize: [x.shape[2], x.shape[3]] }) : void 0,
    needs[1] ? G.node("conv2dGradWeight", [x, g], { ...node.attrs, kernelSize: [w2.shape[2], w2.shape[3]] }) : void 0
  ]),
  // conv2dGradInput is conv2d's adjoint in x (a transposed convolution, e.g. ConvTranspose2d): ⟨g, convᵀ(dy, w)⟩ =
  // ⟨conv(g, w), dy⟩, so d/d(dy) = conv(g, w) and d/dw = conv2dGradWeight(g, dy)
  conv2dGradInput: rule(({ graph: G, g, inputs: [dy, w2], node, needs }) => {
    const { stride, padding, dilation, groups } = node.attrs;
    const conv = { stride, padding, dilation, groups };
    return [
      needs[0] ? G.node("conv2d", [g, w2], conv) : void 0,
      needs[1] ? G.node("conv2dGradWeight", [g, dy], { ...conv, kernelSize: [w2.shape[2], w2.shape[3]] }) : void 0
    ];
  }),
  conv2dGradWeight: secondOrder,
  maxPool2d: rule(({ graph: G, g, inputs: [x], node }) => [G.node("maxPool2dGrad", [x, g], node.attrs)]),
  maxPool2dGrad: secondOrder,
  avgPool2d: rule(({ graph: G, g, inputs: [x], node }) => [G.node("avgPool2dGrad", [g], { ...node.attrs, inputSize: [x.shape[2], x.shape[3]] })]),
  avgPool2dGrad: secondOrder,
  // a rotation's transpose is the opposite rotation
  rope: rule(({ graph: G, g, node }) => [G.node("rope", [g], { ...node.attrs, inverse: !node.attrs.inverse })]),
  // the mask depends only on (seed, offset, index): the gradient is dropout of g with the same mask
  dropout: rule(({ graph: G, g, inputs, node }) => [G.node("dropout", inputs.length === 2 ? [g, inputs[1]] : [g], node.attrs), void 0]),
  // fused ops exist only after `optimize`, which runs once on the whole step after differentiation (see the
  // egraph README, "One optimization, after grad"): nothing differentiates them, so they keep no VJP
  fusedMatmul: fusedOnly,
  pointwise: fusedOnly,
  pointwiseMulti: fusedOnly,
  pointwiseMultiTensor: fusedOnly,
  pointwiseReduce: fusedOnly,
  pointwiseReduceMulti: fusedOnly,
  matmulEpilogue: fusedOnly,
  after: fusedOnly,
  matmulPartials: fusedOnly,
  rowwise: fusedOnly,
  rowwiseMulti: fusedOnly,
  pick: fusedOnly,
  softmaxCrossEntropy: fusedOnly,
  softmaxCrossEntropyGrad: secondOrder
};

// packages/autograd/src/grad.ts
function vjpOf(op) {
  return VJPS[op];
}
var describe2 = (n2) => {
  const name = leafName(n2);
  return `${n2.op}${name !== void 0 ? ` '${name}'` : ""} %${n2.id} ${fmtShape(n2.shape)}:${n2.dtype}`;
};
function backprop(graph, root, seed, wrt) {
  const wrtIds = new Set(wrt.map((t) => t.id));
  const active = new Uint8Array(root.id + 1);
  for (let id = 0; id <= root.id; id++) {
    const n2 = graph.nodes[id];
    if (n2.dtype !== "f32") continue;
    if (VJPS[n2.op].kind === "noGradient" && !wrtIds.has(id)) continue;
    if (wrtIds.has(id) || n2.inputs.some((i) => active[i] === 1)) active[id] = 1;
  }
  const pending = /* @__PURE__ */ new Map();
  const totals = /* @__PURE__ */ new Map();
  if (!active[root.id]) return totals;
  pending.set(root.id, [seed]);
  const lowest = Math.min(...wrtIds);
  for (let id = root.id; id >= lowest; id--) {
    const parts = pending.get(id);
    if (!parts) continue;
    pending.delete(id);
    const total = parts.reduce((acc, p) => graph.add(acc, p));
    totals.set(id, total);
    const node = graph.nodes[id];
    const needs = node.inputs.map((i) => active[i] === 1);
    if (!needs.some(Boolean)) continue;
    const entry = vjpOf(node.op);
    if (entry.kind === "leaf" || entry.kind === "noGradient") continue;
    if (entry.kind === "notDifferentiable")
      throw new GraphError(`autograd: ${node.op} is not differentiable: ${entry.why}`, node.op, node.site);
    const ctx = { graph, node, inputs: node.inputs.map((i) => graph.nodes[i]), g: total, needs };
    const grads = entry.fn(ctx);
    node.inputs.forEach((inputId, k) => {
      const gk = grads[k];
      if (!needs[k] || gk === void 0) return;
      const x = graph.nodes[inputId];
      if (!sameShape(gk.shape, x.shape) || gk.dtype !== x.dtype)
        throw new GraphError(
          `autograd: the VJP of ${node.op} gave operand ${k} a gradient ${fmtShape(gk.shape)}:${gk.dtype} for ${describe2(x)} (a bug in its rule)`,
          node.op,
          node.site
        );
      const list = pending.get(inputId);
      if (list) list.push(gk);
      else pending.set(inputId, [gk]);
    });
  }
  return totals;
}
function grad(graph, loss, wrt, opts = {}) {
  if (graph.nodes[loss.id] !== loss) throw new GraphError(`grad: the loss ${describe2(loss)} is not a node of this graph`);
  if (loss.dtype !== "f32") throw new GraphError(`grad: the loss must be f32, got ${describe2(loss)}`, loss.op, loss.site);
  for (const t of wrt) {
    if (graph.nodes[t.id] !== t) throw new GraphError(`grad: ${describe2(t)} is not a node of this graph`);
    if (t.dtype !== "f32") throw new GraphError(`grad: cannot differentiate with respect to ${describe2(t)}: only f32 tensors have gradients`, t.op, t.site);
  }
  let seed = opts.seed;
  if (seed === void 0) {
    if (loss.shape.length !== 0)
      throw new GraphError(`grad: the loss ${describe2(loss)} is not a scalar; pass a seed of shape ${fmtShape(loss.shape)}`, loss.op, loss.site);
    seed = graph.constant(1, []);
  } else if (!sameShape(seed.shape, loss.shape) || seed.dtype !== "f32") {
    throw new GraphError(`grad: the seed ${describe2(seed)} must be f32 of the loss's shape ${fmtShape(loss.shape)}`, seed.op, seed.site);
  }
  const totals = wrt.length ? backprop(graph, loss, seed, wrt) : /* @__PURE__ */ new Map();
  return wrt.map((t) => {
    const gt = totals.get(t.id);
    if (gt) return gt;
    if (opts.allowUnused) return graph.constant(0, t.shape);
    throw new GraphError(`grad: the loss ${describe2(loss)} has no gradient path to ${describe2(t)}: it is disconnected, or reaches the loss only through ops without a gradient (comparisons, casts to i32/bool); pass allowUnused to get zeros`, t.op, t.site);
  });
}

// packages/optim/src/optimizer.ts
function checkScalar(what, x) {
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new GraphError(`${what} must be a finite number, got ${x}`);
    return x;
  }
  if (x.shape.length !== 0 || x.dtype !== "f32")
    throw new GraphError(`${what} must be a scalar f32 tensor, got ${fmtShape(x.shape)}:${x.dtype}`, x.op, x.site);
  return x;
}
function checkRange(what, x, low, high, highOpen = false) {
  if (!(x >= low && (highOpen ? x < high : x <= high))) throw new GraphError(`${what} must be in [${low}, ${high}${highOpen ? ")" : "]"}, got ${x}`);
  return x;
}
function paramNames(optimizer, graph, params, grads) {
  if (params.length !== grads.length)
    throw new GraphError(`${optimizer}: ${params.length} params but ${grads.length} gradients`);
  return params.map((p, i) => {
    if (graph.nodes[p.id] !== p || graph.nodes[grads[i].id] !== grads[i])
      throw new GraphError(`${optimizer}: param ${i} or its gradient is not a node of this graph`);
    if (p.op !== "param") throw new GraphError(`${optimizer}: params[${i}] must be a param leaf, got ${p.op}`, p.op, p.site);
    const name = p.attrs.name;
    const g = grads[i];
    if (!sameShape(p.shape, g.shape) || g.dtype !== "f32")
      throw new GraphError(`${optimizer}: the gradient of '${name}' is ${fmtShape(g.shape)}:${g.dtype}, the param is ${fmtShape(p.shape)}:f32`, g.op, g.site);
    return name;
  });
}
function scale(graph, a, s) {
  return typeof s === "number" && s === 1 ? a : graph.mul(a, s);
}

// packages/optim/src/adam.ts
function adamFamily(opts, defaultName, decoupled, defaultDecay) {
  const name = opts.name ?? defaultName;
  const beta1 = checkRange(`${name}: beta1`, opts.beta1 ?? 0.9, 0, 1, true);
  const beta2 = checkRange(`${name}: beta2`, opts.beta2 ?? 0.999, 0, 1, true);
  const eps = checkRange(`${name}: eps`, opts.eps ?? 1e-8, 0, Infinity);
  const weightDecay = checkRange(`${name}: weightDecay`, opts.weightDecay ?? defaultDecay, 0, Infinity);
  return {
    name,
    apply(graph, params, grads) {
      const lr = checkScalar(`${name}: lr`, opts.lr ?? 1e-3);
      const names = paramNames(name, graph, params, grads);
      const step = graph.state(`${name}.step`, []);
      const t = graph.add(step, 1);
      graph.update(step, t);
      const bc1 = graph.sub(1, graph.pow(beta1, t));
      const bc2 = graph.sub(1, graph.pow(beta2, t));
      const decay = decoupled && weightDecay ? typeof lr === "number" ? 1 - lr * weightDecay : graph.sub(1, graph.mul(lr, weightDecay)) : void 0;
      params.forEach((p, i) => {
        const g = !decoupled && weightDecay ? graph.add(grads[i], graph.mul(p, weightDecay)) : grads[i];
        const m = graph.state(`${name}.m/${names[i]}`, p.shape);
        const v = graph.state(`${name}.v/${names[i]}`, p.shape);
        const m1 = graph.add(graph.mul(m, beta1), graph.mul(g, 1 - beta1));
        const v1 = graph.add(graph.mul(v, beta2), graph.mul(graph.square(g), 1 - beta2));
        graph.update(m, m1);
        graph.update(v, v1);
        const direction = graph.div(graph.div(m1, bc1), graph.add(graph.sqrt(graph.div(v1, bc2)), eps));
        const base = decay === void 0 ? p : graph.mul(p, decay);
        graph.update(p, graph.sub(base, scale(graph, direction, lr)));
      });
    }
  };
}

// packages/optim/src/adamW.ts
function adamW(opts = {}) {
  return adamFamily(opts, "adamW", true, 0.01);
}

// packages/optim/src/clipGradNorm.ts
function globalNorm(graph, grads) {
  if (grads.length === 0) throw new GraphError("globalNorm: no gradients given");
  const squares = grads.map((g) => graph.sum(graph.square(g)));
  return graph.sqrt(squares.reduce((a, b) => graph.add(a, b)));
}
function clipGradNorm(graph, grads, maxNorm) {
  const max = checkScalar("clipGradNorm: maxNorm", maxNorm);
  if (typeof max === "number" && !(max > 0)) throw new GraphError(`clipGradNorm: maxNorm must be > 0, got ${max}`);
  const factor = graph.min(1, graph.div(max, graph.add(globalNorm(graph, grads), 1e-6)));
  return grads.map((g) => graph.mul(g, factor));
}

// packages/nn/src/compileTraining.ts
var ACCUMULATE_INPUT = "applyUpdate";
function buildTrainingStep(graph, opts) {
  const { loss } = opts;
  if (loss.shape.length !== 0) throw new TrainingStepError(`compileTraining: loss must be a scalar, got shape [${loss.shape.join(", ")}]`);
  graph.output("loss", loss);
  const params = graph.leaves("param");
  if (params.length === 0) throw new TrainingStepError("compileTraining: the graph has no parameters to train");
  const names = params.map((p) => p.attrs.name);
  const groups = groupsOf(names, opts);
  const acc = opts.accumulate ?? 1;
  if (!(Number.isInteger(acc) && acc >= 1)) throw new RangeError(`compileTraining: accumulate must be a positive integer, got ${acc}`);
  const scale2 = opts.lossScale ?? 1;
  if (!(scale2 > 0 && Number.isFinite(scale2) && 2 ** Math.round(Math.log2(scale2)) === scale2))
    throw new RangeError(`compileTraining: lossScale must be a positive power of two, got ${scale2}`);
  let grads = scale2 === 1 ? grad(graph, loss, params) : grad(graph, loss, params, { seed: graph.constant(scale2, []) }).map((g) => graph.mul(g, 1 / scale2));
  let apply;
  if (acc > 1) {
    apply = graph.gt(graph.input(ACCUMULATE_INPUT, [], "f32"), 0.5);
    grads = grads.map((g, i) => {
      const sum = graph.state(`accumulate/${names[i]}`, g.shape);
      const next = graph.add(sum, graph.mul(g, 1 / acc));
      graph.update(sum, graph.where(apply, 0, next));
      return next;
    });
  }
  if (opts.clipGradNorm !== void 0) grads = clipGradNorm(graph, grads, opts.clipGradNorm);
  const firstUpdate = graph.updates.length;
  for (const { optimizer, members } of groups)
    optimizer.apply(
      graph,
      members.map((i) => params[i]),
      members.map((i) => grads[i])
    );
  if (apply) {
    for (let i = firstUpdate; i < graph.updates.length; i++) {
      const u = graph.updates[i];
      graph.updates[i] = { state: u.state, value: graph.where(apply, graph.get(u.value), graph.get(u.state)).id };
    }
  }
  return params;
}
function groupsOf(names, opts) {
  if (!opts.groups) {
    if (!opts.optimizer) throw new TrainingStepError("compileTraining: give an optimizer or parameter groups");
    return [{ optimizer: opts.optimizer, members: names.map((_, i) => i) }];
  }
  if (opts.optimizer) throw new TrainingStepError("compileTraining: give either an optimizer or parameter groups, not both");
  const owner = /* @__PURE__ */ new Map();
  const out2 = opts.groups.map((grp, gi) => {
    const has = typeof grp.params === "function" ? grp.params : (n2) => grp.params.includes(n2);
    if (typeof grp.params !== "function") {
      for (const n2 of grp.params) if (!names.includes(n2)) throw new TrainingStepError(`compileTraining: group ${gi} names '${n2}', which is not a param of the graph`);
    }
    const members = [];
    names.forEach((n2, i) => {
      if (!has(n2)) return;
      if (owner.has(i)) throw new TrainingStepError(`compileTraining: '${n2}' is in parameter groups ${owner.get(i)} and ${gi}`);
      owner.set(i, gi);
      members.push(i);
    });
    return { optimizer: grp.optimizer, members };
  });
  const orphans = names.filter((_, i) => !owner.has(i));
  if (orphans.length) throw new TrainingStepError(`compileTraining: params in no parameter group: ${orphans.join(", ")}`);
  return out2.filter((grp) => grp.members.length > 0);
}

// packages/nn/src/module.ts
function paramName(prefix, name) {
  return prefix ? `${prefix}.${name}` : name;
}
function leafInit(spec, fullName) {
  const init = spec.init;
  return init.kind === "uniform" || init.kind === "normal" ? { ...init, seed: init.seed + hashName(fullName) } : init;
}
var NAME = /^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$/;
var Module = class _Module {
  /** Training mode (default): BatchNorm uses batch statistics and updates its running ones, Dropout drops. */
  training = true;
  params = /* @__PURE__ */ new Map();
  bufs = /* @__PURE__ */ new Map();
  mods = /* @__PURE__ */ new Map();
  /** Declares a trainable f32 parameter (created in the graph on first use by `forward`). */
  registerParameter(name, shape, init) {
    this.checkFree(name);
    this.params.set(name, { shape: [...shape], dtype: "f32", init });
  }
  /** Declares a buffer: persistent, not trained, part of the state dict (running statistics, counters). */
  registerBuffer(name, shape, init = { kind: "zeros" }, dtype = "f32") {
    this.checkFree(name);
    this.bufs.set(name, { shape: [...shape], dtype, init });
  }
  /** Declares a child module; its leaves are named `name.<leaf>`. Returns the child. */
  registerModule(name, module) {
    this.checkFree(name);
    if (!(module instanceof _Module)) throw new GraphError(`registerModule '${name}': not a Module`, "Module");
    this.mods.set(name, module);
    return module;
  }
  /** The graph leaf of a registered parameter under `prefix` (reused if this graph already has it). */
  param(g, prefix, name) {
    const spec = this.params.get(name);
    if (!spec) throw new GraphError(`${this.constructor.name}: no parameter '${name}' was registered (have: ${[...this.params.keys()].join(", ") || "none"})`, "Module");
    return leaf3(g, "param", paramName(prefix, name), spec);
  }
  /** The graph leaf of a registered buffer under `prefix` (reused if this graph already has it). */
  buffer(g, prefix, name) {
    const spec = this.bufs.get(name);
    if (!spec) throw new GraphError(`${this.constructor.name}: no buffer '${name}' was registered (have: ${[...this.bufs.keys()].join(", ") || "none"})`, "Module");
    return leaf3(g, "state", paramName(prefix, name), spec);
  }
  /** Runs the registered child `name` on `x` under `prefix.name`. */
  child(name, g, x, prefix) {
    const m = this.mods.get(name);
    if (!m) throw new GraphError(`${this.constructor.name}: no child module '${name}' (have: ${[...this.mods.keys()].join(", ") || "none"})`, "Module");
    return m.forward(g, x, paramName(prefix, name));
  }
  /** Direct children with their names, in registration order. */
  namedChildren() {
    return [...this.mods.entries()];
  }
  /** This module and every descendant with its dotted name ('' for this one), depth first. */
  namedModules(prefix = "") {
    const out2 = [[prefix, this]];
    for (const [n2, m] of this.mods) out2.push(...m.namedModules(paramName(prefix, n2)));
    return out2;
  }
  /** Every parameter of the tree by full dotted name, in registration order (a shared module once). */
  namedParameters(prefix = "") {
    return this.collect(prefix, (m) => m.params);
  }
  /** Every buffer of the tree by full dotted name. */
  namedBuffers(prefix = "") {
    return this.collect(prefix, (m) => m.bufs);
  }
  /** Parameters and buffers together: the names and types a state dict of this model holds. */
  stateDictSpec(prefix = "") {
    return new Map([...this.namedParameters(prefix), ...this.namedBuffers(prefix)]);
  }
  /** The initial values of every parameter and buffer, computed on the host exactly as a session initialises them. */
  initialState(prefix = "") {
    const out2 = {};
    for (const [n2, s] of this.stateDictSpec(prefix)) out2[n2] = initialValue(leafInit(s, n2), s.shape, s.dtype);
    return out2;
  }
  /** Sets training mode on this module and every descendant; returns this. */
  train(mode = true) {
    for (const [, m] of this.namedModules()) m.training = mode;
    return this;
  }
  /** Sets evaluation mode (running statistics, no dropout) on the whole tree; returns this. */
  eval() {
    return this.train(false);
  }
  /** Number of trainable scalars. */
  parameterCount() {
    return this.namedParameters().reduce((s, [, p]) => s + p.shape.reduce((a, b) => a * b, 1), 0);
  }
  checkFree(name) {
    if (!NAME.test(name)) throw new GraphError(`${this.constructor.name}: '${name}' is not a valid member name (letters, digits, _; or an index)`, "Module");
    if (this.params.has(name) || this.bufs.has(name) || this.mods.has(name))
      throw new GraphError(`${this.constructor.name}: '${name}' is already registered`, "Module");
  }
  collect(prefix, pick2) {
    const out2 = [];
    const seen = /* @__PURE__ */ new Set();
    const walk = (m, p) => {
      if (seen.has(m)) return;
      seen.add(m);
      for (const [n2, s] of pick2(m)) out2.push([paramName(p, n2), s]);
      for (const [n2, c] of m.mods) walk(c, paramName(p, n2));
    };
    walk(this, prefix);
    return out2;
  }
};
function leaf3(g, op, name, spec) {
  const have = g.byName(name);
  if (have) {
    if (have.op !== op || have.dtype !== spec.dtype || have.shape.join() !== spec.shape.join())
      throw new GraphError(
        `${op} '${name}': the graph already has a ${have.op} of this name [${have.shape.join(", ")}]:${have.dtype}, this module wants [${spec.shape.join(", ")}]:${spec.dtype}`,
        "Module"
      );
    return have;
  }
  return op === "param" ? g.param(name, spec.shape, leafInit(spec, name)) : g.state(name, spec.shape, leafInit(spec, name), spec.dtype);
}
function kaimingUniform(fanIn, seed = 0) {
  const bound = 1 / Math.sqrt(Math.max(1, fanIn));
  return { kind: "uniform", low: -bound, high: bound, seed };
}

// packages/nn/src/layers/containers.ts
var ModuleList = class extends Module {
  items = [];
  constructor(modules = []) {
    super();
    for (const m of modules) this.append(m);
  }
  /** Adds a module at the end; returns this. */
  append(m) {
    this.registerModule(String(this.items.length), m);
    this.items.push(m);
    return this;
  }
  /** The module at `i`. */
  at(i) {
    const m = this.items[i < 0 ? this.items.length + i : i];
    if (!m) throw new GraphError(`ModuleList: index ${i} out of range (length ${this.items.length})`, "Module");
    return m;
  }
  /** Number of modules. */
  get length() {
    return this.items.length;
  }
  [Symbol.iterator]() {
    return this.items[Symbol.iterator]();
  }
  /** Runs module `i` under `prefix.i` (leaf names stay those of `namedParameters`). */
  call(i, g, x, prefix) {
    this.at(i);
    return this.child(String(i < 0 ? this.items.length + i : i), g, x, prefix);
  }
  forward() {
    throw new GraphError("ModuleList has no forward: call its modules (list.call(i, g, x, prefix))", "Module");
  }
};

// packages/nn/src/layers/linear.ts
var Linear = class extends Module {
  constructor(inFeatures, outFeatures, options = {}) {
    super();
    this.inFeatures = inFeatures;
    this.outFeatures = outFeatures;
    this.options = options;
    const init = kaimingUniform(inFeatures, options.seed ?? 0);
    this.registerParameter("weight", [inFeatures, outFeatures], options.weightInit ?? init);
    if (options.bias !== false) this.registerParameter("bias", [outFeatures], options.biasInit ?? init);
  }
  inFeatures;
  outFeatures;
  options;
  forward(g, x, prefix) {
    if (x.shape[x.shape.length - 1] !== this.inFeatures)
      throw new GraphError(
        `Linear(${this.inFeatures}, ${this.outFeatures}) '${prefix ?? ""}': input has ${x.shape[x.shape.length - 1]} features, expected ${this.inFeatures} (input shape [${x.shape.join(", ")}])`,
        "Linear"
      );
    const y = g.matmul(x, this.param(g, prefix, "weight"));
    return this.options.bias === false ? y : g.add(y, this.param(g, prefix, "bias"));
  }
};

// packages/nn/src/layers/dropout.ts
var DROPOUT_OFFSET = "dropoutOffset";
function dropoutOffset(g) {
  const have = g.byName(DROPOUT_OFFSET);
  if (have) {
    if (have.op !== "input" || have.dtype !== "i32" || have.shape.length !== 0)
      throw new GraphError(`'${DROPOUT_OFFSET}' must be an i32 scalar input, the graph has a ${have.op} [${have.shape.join(", ")}]:${have.dtype}`, "Dropout");
    return have;
  }
  return g.input(DROPOUT_OFFSET, [], "i32");
}
var Dropout = class extends Module {
  constructor(p = 0.5, seed = 0) {
    super();
    this.p = p;
    this.seed = seed;
    if (!(p >= 0 && p < 1)) throw new GraphError(`Dropout: p must be in [0, 1), got ${p}`, "Dropout");
  }
  p;
  seed;
  forward(g, x, prefix) {
    if (!this.training || this.p === 0) return x;
    return g.dropout(x, this.p, this.seed + hashName(prefix ?? "dropout") >>> 0, dropoutOffset(g));
  }
};

// packages/nn/src/layers/attention.ts
var ATTENTION_MASK = "mask";
var MultiheadAttention = class extends Module {
  constructor(width, options) {
    super();
    this.width = width;
    this.options = options;
    const h = options.heads;
    const hkv = options.kvHeads ?? h;
    if (!(Number.isInteger(h) && h > 0 && width % h === 0)) throw new GraphError(`MultiheadAttention: width ${width} is not a multiple of heads ${h}`, "MultiheadAttention");
    if (!(Number.isInteger(hkv) && hkv > 0 && h % hkv === 0)) throw new GraphError(`MultiheadAttention: heads ${h} is not a multiple of kvHeads ${hkv}`, "MultiheadAttention");
    this.heads = h;
    this.kvHeads = hkv;
    this.headDim = width / h;
    if (options.rope && this.headDim % 2 !== 0) throw new GraphError(`MultiheadAttention: rotary embeddings need an even head size, got ${this.headDim}`, "MultiheadAttention");
    const bias = options.bias !== false;
    const normal = (std) => ({ kind: "normal", mean: 0, std, seed: 0 });
    const inInit = options.init ? { weightInit: normal(options.init.std), biasInit: { kind: "zeros" } } : {};
    const outInit = options.init ? { weightInit: normal(options.init.outStd ?? options.init.std), biasInit: { kind: "zeros" } } : {};
    const kvWidth = hkv * this.headDim;
    const add = (name, m) => this.lins.set(name, this.registerModule(name, m));
    if (options.layout === "fused") {
      add("c_attn", new Linear(width, width + 2 * kvWidth, { bias, ...inInit }));
      add("c_proj", new Linear(width, width, { bias, ...outInit }));
      this.names = ["c_attn", "c_proj"];
    } else {
      add("q_proj", new Linear(width, width, { bias, ...inInit }));
      add("k_proj", new Linear(width, kvWidth, { bias, ...inInit }));
      add("v_proj", new Linear(width, kvWidth, { bias, ...inInit }));
      add("o_proj", new Linear(width, width, { bias, ...outInit }));
      this.names = ["q_proj", "k_proj", "v_proj", "o_proj"];
    }
    if (options.dropout) this.drop = this.registerModule("resid_dropout", new Dropout(options.dropout));
  }
  width;
  options;
  heads;
  kvHeads;
  headDim;
  names;
  lins = /* @__PURE__ */ new Map();
  drop;
  /** Self-attention over whole sequences: `x [B, T, W] → [B, T, W]`. */
  forward(g, x, prefix) {
    if (x.shape.length !== 3 || x.shape[2] !== this.width)
      throw new GraphError(`MultiheadAttention(${this.width}) '${prefix ?? ""}': expected x [B, T, ${this.width}], got [${x.shape.join(", ")}]`, "MultiheadAttention");
    const [b, t] = x.shape;
    return g.reshape(this.forwardRows(g, g.reshape(x, [b * t, this.width]), b, t, prefix), [b, t, this.width]);
  }
  /** The same on rows `x [B·T, W]` (the residual stream of a transformer stays 2-D): → [B·T, W]. */
  forwardRows(g, x, batch, seq, prefix) {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    const { q, k, v } = this.project(g, x, prefix);
    const split = (y, n2) => g.transpose(g.reshape(y, [batch, seq, n2, d]), [0, 2, 1, 3]);
    let qh = split(q, h);
    let kh = split(k, hkv);
    const vh = this.repeatKv(g, split(v, hkv), batch, seq);
    if (this.options.rope) {
      qh = g.rope(qh, this.options.rope);
      kh = g.rope(kh, this.options.rope);
    }
    kh = this.repeatKv(g, kh, batch, seq);
    const scale2 = 1 / Math.sqrt(d);
    const causal = this.options.causal !== false;
    let o;
    if (this.options.kernel === "decomposed") {
      let scores = g.mul(g.matmul(qh, kh, { transB: true }), scale2);
      if (causal) scores = g.add(scores, maskInput(g, seq));
      o = g.matmul(g.softmax(scores), vh);
    } else o = g.attention(qh, kh, vh, { causal, scale: scale2 });
    return this.output(g, g.reshape(g.transpose(o, [0, 2, 1, 3]), [batch * seq, this.width]), prefix);
  }
  /**
   * One decode step: `x [B, W]` (the new token's rows) attends to every cached position ≤ the current one;
   * writes this token's K/V into the cache (state `<prefix>.cache.k/v`, updated in place) → [B, W].
   */
  decodeRows(g, x, ctx, prefix) {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    const batch = x.shape[0];
    const { q, k, v } = this.project(g, x, prefix);
    const heads = (y, n2) => g.reshape(y, [batch, n2, 1, d]);
    const place = (y) => g.mul(y, ctx.slot);
    let kPlaced = place(heads(k, hkv));
    const vPlaced = place(heads(v, hkv));
    let qh = heads(q, h);
    if (this.options.rope) {
      kPlaced = g.rope(kPlaced, this.options.rope);
      qh = g.sum(g.rope(place(qh), this.options.rope), 2, true);
    }
    const keep = g.sub(1, ctx.slot);
    const cache = (name, placed) => {
      const s = g.state(paramName(prefix, `cache.${name}`), [batch, hkv, ctx.maxLen, d]);
      const next = g.add(g.mul(s, keep), placed);
      g.update(s, next);
      return next;
    };
    const kc = cache("k", kPlaced);
    const vc = cache("v", vPlaced);
    const qg = g.reshape(qh, [batch, hkv, h / hkv, d]);
    const scores = g.add(g.mul(g.matmul(qg, kc, { transB: true }), 1 / Math.sqrt(d)), ctx.mask);
    const o = g.matmul(g.softmax(scores), vc);
    return this.output(g, g.reshape(o, [batch, this.width]), prefix);
  }
  /** q [N, H·D], k and v [N, Hkv·D] from rows x [N, W]. */
  project(g, x, prefix) {
    const lin = (name, y) => this.linear(name).forward(g, y, paramName(prefix, name));
    if (this.options.layout === "fused") {
      const kvWidth = this.kvHeads * this.headDim;
      const [q, k, v] = g.split(lin("c_attn", x), [this.width, kvWidth, kvWidth], -1);
      return { q, k, v };
    }
    return { q: lin("q_proj", x), k: lin("k_proj", x), v: lin("v_proj", x) };
  }
  output(g, o, prefix) {
    const name = this.names[this.names.length - 1];
    const y = this.linear(name).forward(g, o, paramName(prefix, name));
    return this.drop ? this.drop.forward(g, y, paramName(prefix, "resid_dropout")) : y;
  }
  linear(name) {
    return this.lins.get(name);
  }
  /** [B, Hkv, T, D] → [B, H, T, D], each K/V head repeated for its group of query heads. */
  repeatKv(g, y, batch, seq) {
    const { heads: h, kvHeads: hkv, headDim: d } = this;
    if (h === hkv) return y;
    const e = g.expand(g.reshape(y, [batch, hkv, 1, seq, d]), [batch, hkv, h / hkv, seq, d]);
    return g.reshape(e, [batch, h, seq, d]);
  }
};
function maskInput(g, seq) {
  const have = g.byName(ATTENTION_MASK);
  if (have) {
    if (have.op !== "input" || have.shape.join() !== `${seq},${seq}`)
      throw new GraphError(`'${ATTENTION_MASK}' must be an f32 input [${seq}, ${seq}], the graph has a ${have.op} [${have.shape.join(", ")}]`, "MultiheadAttention");
    return have;
  }
  return g.input(ATTENTION_MASK, [seq, seq]);
}

// packages/nn/src/layers/embedding.ts
var Embedding = class extends Module {
  constructor(num2, dim, options = {}) {
    super();
    this.num = num2;
    this.dim = dim;
    if (options.paddingIdx !== void 0) {
      const p = options.paddingIdx < 0 ? options.paddingIdx + num2 : options.paddingIdx;
      if (!Number.isInteger(p) || p < 0 || p >= num2) throw new GraphError(`Embedding(${num2}, ${dim}): paddingIdx ${options.paddingIdx} is outside [-${num2}, ${num2})`, "Embedding");
      this.paddingIdx = p;
    }
    this.registerParameter("weight", [num2, dim], options.init ?? { kind: "normal", mean: 0, std: 1, seed: 0 });
  }
  num;
  dim;
  /** The normalised padding id, if any. */
  paddingIdx;
  forward(g, ids2, prefix) {
    if (ids2.dtype !== "i32") throw new GraphError(`Embedding '${prefix ?? ""}': ids must be i32, got ${ids2.dtype}`, "Embedding");
    const e = g.gather(this.param(g, prefix, "weight"), ids2);
    if (this.paddingIdx === void 0) return e;
    return g.where(g.reshape(g.eq(ids2, this.paddingIdx), [...ids2.shape, 1]), 0, e);
  }
  /** The table leaf (for a tied output head: logits = x·weightᵀ). */
  weight(g, prefix) {
    return this.param(g, prefix, "weight");
  }
};

// packages/nn/src/layers/layerNorm.ts
function checkFeatures(what, features, x, prefix) {
  if (x.shape[x.shape.length - 1] !== features)
    throw new GraphError(`${what}(${features}) '${prefix ?? ""}': input [${x.shape.join(", ")}] has ${x.shape[x.shape.length - 1]} features in its last axis`, what);
}
var LayerNorm = class extends Module {
  constructor(features, options = {}) {
    super();
    this.features = features;
    this.options = options;
    this.eps = options.eps ?? 1e-5;
    if (options.elementwiseAffine !== false) {
      this.registerParameter("weight", [features], { kind: "ones" });
      if (options.bias !== false) this.registerParameter("bias", [features], { kind: "zeros" });
    }
  }
  features;
  options;
  eps;
  forward(g, x, prefix) {
    checkFeatures("LayerNorm", this.features, x, prefix);
    const affine = this.options.elementwiseAffine !== false;
    const w2 = affine ? this.param(g, prefix, "weight") : void 0;
    const b = affine && this.options.bias !== false ? this.param(g, prefix, "bias") : void 0;
    return g.layerNorm(x, w2, b, { eps: this.eps });
  }
};
var RMSNorm = class extends Module {
  constructor(features, options = {}) {
    super();
    this.features = features;
    this.options = options;
    this.eps = options.eps ?? 1e-6;
    if (options.elementwiseAffine !== false) this.registerParameter("weight", [features], { kind: "ones" });
  }
  features;
  options;
  eps;
  forward(g, x, prefix) {
    checkFeatures("RMSNorm", this.features, x, prefix);
    return g.rmsNorm(x, this.options.elementwiseAffine !== false ? this.param(g, prefix, "weight") : void 0, { eps: this.eps });
  }
};

// packages/nn/src/layers/transformerBlock.ts
var MLP = class extends Module {
  constructor(width, hidden, options = {}) {
    super();
    this.width = width;
    this.hidden = hidden;
    this.options = options;
    const bias = options.bias !== false;
    const normal = (std) => ({ kind: "normal", mean: 0, std, seed: 0 });
    const zeros = { kind: "zeros" };
    const inInit = options.init ? { weightInit: normal(options.init.std), biasInit: zeros } : {};
    const outInit = options.init ? { weightInit: normal(options.init.outStd ?? options.init.std), biasInit: zeros } : {};
    const add = (name, m) => this.lins.set(name, this.registerModule(name, m));
    if (options.kind === "swiglu") {
      add("gate_proj", new Linear(width, hidden, { bias, ...inInit }));
      add("up_proj", new Linear(width, hidden, { bias, ...inInit }));
      add("down_proj", new Linear(hidden, width, { bias, ...outInit }));
    } else {
      add("c_fc", new Linear(width, hidden, { bias, ...inInit }));
      add("c_proj", new Linear(hidden, width, { bias, ...outInit }));
    }
    if (options.dropout) this.drop = this.registerModule("dropout", new Dropout(options.dropout));
  }
  width;
  hidden;
  options;
  drop;
  lins = /* @__PURE__ */ new Map();
  forward(g, x, prefix) {
    const lin = (name, y2) => this.lins.get(name).forward(g, y2, paramName(prefix, name));
    const y = this.options.kind === "swiglu" ? lin("down_proj", g.mul(g.silu(lin("gate_proj", x)), lin("up_proj", x))) : lin("c_proj", g.gelu(lin("c_fc", x), { approximate: this.options.gelu ?? "tanh" }));
    return this.drop ? this.drop.forward(g, y, paramName(prefix, "dropout")) : y;
  }
};
function llamaHidden(width, multipleOf = 32) {
  return Math.ceil(Math.floor(8 * width / 3) / multipleOf) * multipleOf;
}
var TransformerBlock = class extends Module {
  constructor(options) {
    super();
    this.options = options;
    const { width, heads } = options;
    const style = this.style = options.style ?? "gpt";
    const llama = style === "llama";
    const bias = options.bias ?? !llama;
    const norm = () => llama ? new RMSNorm(width, { eps: options.eps }) : new LayerNorm(width, { eps: options.eps, bias });
    this.n = llama ? ["input_layernorm", "self_attn", "post_attention_layernorm"] : ["ln_1", "attn", "ln_2"];
    const norm1 = this.registerModule(this.n[0], norm());
    this.attn = this.registerModule(
      this.n[1],
      new MultiheadAttention(width, {
        heads,
        kvHeads: options.kvHeads,
        bias,
        layout: llama ? "separate" : "fused",
        rope: llama ? { base: options.ropeBase ?? 1e4 } : void 0,
        kernel: options.kernel,
        init: options.init,
        dropout: options.dropout
      })
    );
    this.norms = [norm1, this.registerModule(this.n[2], norm())];
    const hidden = options.hidden ?? (llama ? llamaHidden(width) : 4 * width);
    this.mlp = this.registerModule("mlp", new MLP(width, hidden, { kind: llama ? "swiglu" : "gelu", gelu: options.gelu, bias, init: options.init, dropout: options.dropout }));
  }
  options;
  style;
  attn;
  mlp;
  n;
  // norm₁, attention, norm₂ names
  norms;
  /** `x [B, T, W] → [B, T, W]`. */
  forward(g, x, prefix) {
    if (x.shape.length !== 3) throw new GraphError(`TransformerBlock '${prefix ?? ""}': expected x [B, T, W], got [${x.shape.join(", ")}]`, "TransformerBlock");
    const [b, t, w2] = x.shape;
    return g.reshape(this.forwardRows(g, g.reshape(x, [b * t, w2]), b, t, prefix), [b, t, w2]);
  }
  /** On rows `x [B·T, W]` → [B·T, W]. */
  forwardRows(g, x, batch, seq, prefix) {
    return this.body(g, x, prefix, (h) => this.attn.forwardRows(g, h, batch, seq, paramName(prefix, this.n[1])));
  }
  /** One decode step on rows `x [B, W]` against the attention's KV cache → [B, W]. */
  decodeRows(g, x, ctx, prefix) {
    return this.body(g, x, prefix, (h) => this.attn.decodeRows(g, h, ctx, paramName(prefix, this.n[1])));
  }
  body(g, x, prefix, attend) {
    const norm = (i, y) => this.norms[i / 2].forward(g, y, paramName(prefix, this.n[i]));
    const h = g.add(x, attend(norm(0, x)));
    return g.add(h, this.mlp.forward(g, norm(2, h), paramName(prefix, "mlp")));
  }
};

// packages/nn/src/models/causalLm.ts
var CausalLM = class extends Module {
  /** `tokens [B, T] i32 → logits [B, T, V]`. */
  forward(g, tokens, prefix) {
    const [b, t] = this.checkTokens(tokens, prefix);
    return g.reshape(this.logitsRows(g, tokens, prefix), [b, t, this.vocab]);
  }
  /** A new graph with inputs `tokens` and `targets` [batch, seq] i32 and the mean cross-entropy `loss`. */
  trainingGraph(batch, seq = this.maxContext) {
    if (seq === void 0) throw new GraphError(`${this.constructor.name}.trainingGraph: give the sequence length`, "CausalLM");
    const graph = new Graph();
    const tokens = graph.input("tokens", [batch, seq], "i32");
    const targets = graph.input("targets", [batch, seq], "i32");
    const logits = this.logitsRows(graph, tokens);
    return { graph, logits, loss: graph.crossEntropy(logits, graph.reshape(targets, [batch * seq])) };
  }
  /** Throws unless each of `keys` of `config` is a positive integer (the sizes a model cannot be built without). */
  static checkSizes(model, config, keys) {
    for (const k of keys)
      if (!(Number.isInteger(config[k]) && config[k] > 0)) throw new GraphError(`${model}: ${k} must be a positive integer, got ${config[k]}`, model);
  }
  /** Checks `tokens [B, T] i32` (T within `maxContext`) and returns [B, T]. */
  checkTokens(tokens, prefix) {
    if (tokens.dtype !== "i32" || tokens.shape.length !== 2)
      throw new GraphError(`${this.constructor.name} '${prefix ?? ""}': tokens must be i32 [B, T], got [${tokens.shape.join(", ")}]:${tokens.dtype}`, "CausalLM");
    const [b, t] = tokens.shape;
    if (this.maxContext !== void 0 && t > this.maxContext)
      throw new GraphError(`${this.constructor.name}: ${t} tokens exceed the context of ${this.maxContext}`, "CausalLM");
    return [b, t];
  }
};
function blockStack(layers, options) {
  return new ModuleList(Array.from({ length: layers }, () => new TransformerBlock(options)));
}
function blockRows(g, blocks, x, batch, seq, prefix) {
  for (let l = 0; l < blocks.length; l++) x = blocks.at(l).forwardRows(g, x, batch, seq, `${prefix}.${l}`);
  return x;
}
function blockDecode(g, blocks, x, ctx, prefix) {
  for (let l = 0; l < blocks.length; l++) x = blocks.at(l).decodeRows(g, x, ctx, `${prefix}.${l}`);
  return x;
}
function lmHead(width, vocab) {
  return new Linear(width, vocab, { bias: false, weightInit: { kind: "normal", mean: 0, std: 0.02, seed: 0 } });
}
function headLogits(g, x, head, tokens, tokensName, prefix) {
  if (head) return head.forward(g, x, paramName(prefix, "lm_head"));
  return g.matmul(x, tokens.weight(g, paramName(prefix, tokensName)), { transB: true });
}
function causalMask(context) {
  const data2 = new Float32Array(context * context);
  for (let i = 0; i < context; i++) for (let j = i + 1; j < context; j++) data2[i * context + j] = -1e9;
  return tensor([context, context], data2);
}

// packages/nn/src/models/gpt.ts
var GptTransformer = class extends Module {
  wte;
  wpe;
  drop;
  h;
  ln_f;
  constructor(c) {
    super();
    const normal = (std) => ({ kind: "normal", mean: 0, std, seed: 0 });
    this.wte = this.registerModule("wte", new Embedding(c.vocab, c.width, { init: normal(0.02) }));
    this.wpe = this.registerModule("wpe", new Embedding(c.context, c.width, { init: normal(0.02) }));
    if (c.dropout) this.drop = this.registerModule("drop", new Dropout(c.dropout));
    const init = { std: 0.02, outStd: 0.02 / Math.sqrt(2 * c.layers) };
    const block = { width: c.width, heads: c.heads, kvHeads: c.kvHeads, style: "gpt", bias: c.bias, gelu: c.gelu, kernel: c.attention, dropout: c.dropout, init };
    this.h = this.registerModule("h", blockStack(c.layers, block));
    this.ln_f = this.registerModule("ln_f", new LayerNorm(c.width, { bias: c.bias }));
  }
  forward() {
    throw new GraphError("GPT.transformer is run by GPT (use gpt.forward)", "GPT");
  }
};
var GPT = class extends CausalLM {
  constructor(config) {
    super();
    this.config = config;
    const c = config;
    CausalLM.checkSizes("GPT", c, ["vocab", "context", "layers", "heads", "width"]);
    this.vocab = c.vocab;
    this.maxContext = c.context;
    this.transformer = this.registerModule("transformer", new GptTransformer(c));
    if (!c.tiedHead) this.lm_head = this.registerModule("lm_head", lmHead(c.width, c.vocab));
  }
  config;
  vocab;
  maxContext;
  transformer;
  lm_head;
  logitsRows(g, tokens, prefix) {
    const [b, t] = this.checkTokens(tokens, prefix);
    const tr = this.transformer;
    const p = (name) => paramName(prefix, `transformer.${name}`);
    const w2 = this.config.width;
    const wpe = tr.wpe.weight(g, p("wpe"));
    const pos = t === this.maxContext ? wpe : g.slice(wpe, [0, 0], [t, w2]);
    let x = g.reshape(g.add(tr.wte.forward(g, tokens, p("wte")), pos), [b * t, w2]);
    if (tr.drop) x = tr.drop.forward(g, x, p("drop"));
    x = blockRows(g, tr.h, x, b, t, p("h"));
    return this.head(g, tr.ln_f.forward(g, x, p("ln_f")), prefix);
  }
  decodeRows(g, token, pos, ctx, prefix) {
    const tr = this.transformer;
    const p = (name) => paramName(prefix, `transformer.${name}`);
    if (ctx.maxLen > this.maxContext) throw new GraphError(`GPT: a cache of ${ctx.maxLen} positions exceeds the context of ${this.maxContext}`, "GPT");
    let x = g.add(tr.wte.forward(g, token, p("wte")), g.gather(tr.wpe.weight(g, p("wpe")), pos));
    x = blockDecode(g, tr.h, x, ctx, p("h"));
    return this.head(g, tr.ln_f.forward(g, x, p("ln_f")), prefix);
  }
  /** Options for `importTorchStateDict(torch, gpt, …)` with a nanoGPT state dict (drops its `attn.bias` masks). */
  torchImportOptions() {
    return { ignore: this.config.tiedHead ? /(\.attn\.bias|\.attn\.masked_bias|^lm_head\.weight)$/ : /\.attn\.(bias|masked_bias)$/ };
  }
  head(g, x, prefix) {
    return headLogits(g, x, this.lm_head, this.transformer.wte, "transformer.wte", prefix);
  }
};

// apps/bench/src/workloads/stepFigures.ts
function feedBatches(k, make) {
  return Array.from({ length: k }, (_, i) => make(i));
}

// apps/bench/src/workloads/gpt.ts
var GPT_WORKLOADS = [
  { name: "gpt-2x128-ctx64-b16-adamw", config: { layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65, attention: "op" } },
  { name: "gpt-6x384-ctx256-b64-adamw", config: { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65, attention: "op" } }
];
function gptBatches(w2, k = 4) {
  const c = w2.config;
  const n2 = c.batch * c.context;
  return feedBatches(k, (b) => {
    const f = {
      tokens: Int32Array.from({ length: n2 }, (_, i) => (i * 31 + 7 + b * 13) % c.vocab),
      targets: Int32Array.from({ length: n2 }, (_, i) => (i * 17 + 3 + b * 5) % c.vocab)
    };
    if (c.attention !== "op") f.mask = Float32Array.from(causalMask(c.context).data);
    return f;
  });
}

// apps/bench/tmp/x/skfold.tmp.ts
var device = await createDevice();
var w = GPT_WORKLOADS.find((x) => x.name.startsWith(process.env.W ?? "gpt-6x384"));
var STEPS = Number(process.env.STEPS ?? 40);
var WARM = Number(process.env.WARM ?? 1e3);
var out = { caps: { bufs: device.caps.maxStorageBuffersPerShaderStage, bind: device.caps.maxStorageBufferBindingSize } };
for (const variant of ["nofold", "fold", "nofold2", "fold2"]) {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  const t0 = performance.now();
  const { graph, report } = optimize(g, { limits: device.caps, ...variant.startsWith("nofold") ? { withoutRules: ["update-fold-partials"] } : {} });
  const optMs = performance.now() - t0;
  const session = await compile(graph, device, { label: `skfold-${variant}` });
  const batches = gptBatches(w);
  const losses = [];
  for (let s = 0; s < 4; s++) losses.push((await session.step(batches[s % batches.length], { read: ["loss"] })).outputs.loss.data[0]);
  let k = 0;
  const t1 = performance.now();
  while (performance.now() - t1 < WARM) {
    await session.step(batches[k++ % 4]);
    await session.sync();
  }
  const times = [];
  for (let i = 0; i < STEPS; i++) {
    const a = performance.now();
    await session.step(batches[k++ % 4]);
    await session.sync();
    times.push(performance.now() - a);
  }
  times.sort((a, b) => a - b);
  const partials = report.kernels.filter((x) => x.op === "matmulPartials").length;
  const r = { losses, dispatches: session.stats.dispatchesPerStep, planDispatches: report.dispatchesAfter, partials, bytesAllocated: session.stats.bytesAllocated, medianMs: times[Math.floor(STEPS / 2)], p10: times[Math.floor(STEPS / 10)], p90: times[Math.floor(STEPS * 9 / 10)], optMs };
  out[variant] = r;
  console.log(variant, JSON.stringify(r));
  await session.dispose();
}
writeFileSync(`${process.env.OUT ?? "."}/skfold.json`, JSON.stringify(out, null, 1));
device.destroy();

// The tensor analysis: per e-class shape, dtype and, when every element is known to hold one value, that
// constant. Must not add nodes (constant folding is a rule, so its hits are reported). Invariant: merging two
// classes of different shape or dtype throws an Error naming both types (a rule claimed a false equality).

import type { DType, OpWithAttrs, Shape, TensorType } from '@neura/ir';
import { BINARY_FN, castScalar, COMPARISON_OPS, f16round, fmtShape, inferType, isBinary, isFloat, isMultiResultOp, isUnary, sameShape, UNARY_FN } from '@neura/ir';
import type { Analysis, EGraph, ENode, Id } from '../core/index.js';
import { dataKey, RuleError } from '../core/index.js';
import { TensorTypeError } from './errors.js';
import { DEFAULT_FUSION_WIDTH, DEFAULT_MAX_EXPR_SIZE } from './fusionWidth.js';
import { RuleCtx } from './ruleCtx.js';
import { fromENode, keepDataId, keptDataId, type IrOp, isOpKind, leafTypeOf } from './tensorLanguage.js';
import { EMPTY_RULES, type RuleSet, ruleSetOf, unionRules } from './ruleSet.js';

/** Analysis data of one e-class. */
export interface TensorInfo {
  /** The shape of every value in the class. */
  readonly shape: Shape;
  /** The dtype of every value in the class. */
  readonly dtype: DType;
  /** The value of every element, when known (finite values only). */
  readonly constant?: number;
}

/** Settings the tensor rules read from the analysis (so rule sets stay plain arrays). */
export interface TensorAnalysisOptions {
  /** Most distinct inputs of a fused pointwise kernel (storage buffers per stage minus the output); default `DEFAULT_FUSION_WIDTH`. */
  readonly maxPointwiseInputs?: number;
  /**
   * Most storage buffers (operands plus results) of an optimizer update grouped with its moments (m, v and p in one
   * kernel): the device's limit, which may exceed the fusion width; default `maxPointwiseInputs` + 1.
   */
  readonly maxBindings?: number;
  /** Most nodes of a fused pointwise expression tree; default `DEFAULT_MAX_EXPR_SIZE`. */
  readonly maxExprSize?: number;
  /** Largest storage binding in bytes (a multi-tensor update binds each operand role of every group as one); default 128 MiB. */
  readonly maxBindingBytes?: number;
}

const fmtType = (t: TensorInfo) => `${fmtShape(t.shape)}:${t.dtype}`;

/**
 * A constant the rules may fold and inline: finite and not -0. NaN, ±Infinity and -0 stay opaque leaves (JSON,
 * which keys pointwise expressions, writes them as `null` and `0`: x / -0 would become x / 0).
 */
const foldable = (v: number | undefined): number | undefined => (v !== undefined && Number.isFinite(v) && !Object.is(v, -0) ? v : undefined);

/** Rounding of float64 and of float32 arithmetic (the interpreter's two precisions). */
const ROUND_F64 = (x: number) => x;
const ROUND_F32 = Math.fround;

/** A node's value from its operands' values, every f32 result rounded by `round`, following the interpreter's rules. */
function evalConstant(ir: IrOp, v: readonly number[], kids: readonly TensorInfo[], out: TensorType, round: (x: number) => number): number | undefined {
  const op = ir.op;
  // an f16 result is rounded to a half once (exact in both precisions, as the interpreter's f16 store)
  const f = (x: number) => (out.dtype === 'f32' ? round(x) : out.dtype === 'f16' ? f16round(x) : x);
  if (isUnary(op)) return f(UNARY_FN[op](v[0]));
  if (isBinary(op)) {
    const x = BINARY_FN[op](v[0], v[1]);
    return COMPARISON_OPS.includes(op) ? x : isFloat(out.dtype) ? f(x) : x | 0;
  }
  if (op === 'where') return v[0] !== 0 ? v[1] : v[2];
  if (op === 'cast') return f(castScalar(v[0], out.dtype));
  if (op === 'reshape' || op === 'expand' || op === 'transpose' || op === 'mean') return v[0];
  if (op === 'reduceMax') return kids[0].shape.some((d) => d === 0) ? undefined : v[0];
  return undefined;
}

/**
 * The constant a node evaluates to when its operands are constants, or undefined. A class's constant must be one
 * value in both of the interpreter's precisions: it is folded only when evaluating in float32 (Math.fround after
 * every step, as the GPU does) gives the float64 value rounded to f32. So (2^24+1)+1 and (1e30·1e30)/1e30 (Infinity
 * in f32) are not folded: the unfolded nodes keep their f32 results.
 */
function constantOf(ir: IrOp, kids: readonly TensorInfo[], out: TensorType): number | undefined {
  if (ir.op === 'const') {
    const v = foldable(out.dtype === 'f16' ? f16round(ir.attrs.value) : ir.attrs.value);
    // an f32 constant too large for f32 is Infinity there: opaque
    return v !== undefined && out.dtype === 'f32' && !Number.isFinite(Math.fround(v)) ? undefined : v;
  }
  // most classes made have an operand of unknown value: asked before any list is built
  if (kids.length === 0) return undefined;
  for (const k of kids) if (k.constant === undefined) return undefined;
  const v64 = kids.map((k) => k.constant as number);
  const r64 = evalConstant(ir, v64, kids, out, ROUND_F64);
  if (r64 === undefined) return undefined;
  const v32 = v64.map((x, i) => (kids[i].dtype === 'f32' ? Math.fround(x) : x));
  const r32 = evalConstant(ir, v32, kids, out, ROUND_F32);
  if (r32 === undefined || !Object.is(out.dtype === 'f32' ? Math.fround(r64) : r64, r32)) return undefined;
  return foldable(r64);
}

/**
 * A `pick`'s operand as its type rule needs it: the multi-result e-node of the class (a class holding one is
 * never unioned with another value) with the class's type, which is the node's result 0.
 */
function multiOf(egraph: EGraph<TensorInfo>, id: Id): TensorType & OpWithAttrs {
  const c = egraph.eclass(id);
  const multi = c.nodes.find((n) => isOpKind(n.op) && isMultiResultOp(n.op));
  if (!multi) throw new TensorTypeError(`tensor analysis: a pick reads class ${id}, which holds no multi-result node`);
  const { op, attrs } = fromENode(multi);
  return { op, attrs, shape: c.data.shape, dtype: c.data.dtype } as TensorType & OpWithAttrs;
}

/** The shape/dtype/constant analysis; also keeps which rules produced which fused e-nodes (provenance). */
export class TensorAnalysis implements Analysis<TensorInfo> {
  /** Most distinct inputs of a fused pointwise kernel (see `widen`). */
  get maxPointwiseInputs(): number {
    return this.width;
  }
  /** Most storage buffers of a grouped optimizer update. */
  readonly maxBindings: number;
  /** Most nodes of a fused pointwise expression tree. */
  readonly maxExprSize: number;
  /** Largest storage binding in bytes. */
  readonly maxBindingBytes: number;
  /** The rules' per-run state (an analysis serves one optimize run; `widen` starts it afresh). */
  get ctx(): RuleCtx {
    return this.ruleState;
  }
  private width: number;
  private ruleState = new RuleCtx();
  // keyed by op and data as one number (`opDataKey`; children change with merges); per key, class → rules (an
  // interned set), re-homed to canonical ids lazily
  private readonly provenance = new Map<number, ByClass<RuleSet>>();
  private readonly rootIds: Id[] = [];
  private readonly updatePairs: [Id, Id][] = [];
  private stateOfValue: Map<Id, Id> | undefined;
  private stateOfValueUnions = -1;
  /** The canonical ids the map was built from (state, value per pair, flat): unions elsewhere leave it as it is. */
  private stateOfValueIds: Id[] = [];
  private rootSet: Set<Id> | undefined;
  private rootSetUnions = -1;
  // keyed by a number naming op, data and arity (asked for every producer a merge considers: a text key per ask
  // was a large share of the fuse pass's garbage)
  private readonly respecting = new Map<number, ByClass<true>>();
  private readonly opIds = new Map<string, number>();

  // small ids of node data keys, for compact cache keys; per analysis (one optimize run), so it dies with the run
  private readonly dataIds = new Map<string, number>();

  /** Makes an analysis with the given fusion limits. */
  constructor(opts: TensorAnalysisOptions = {}) {
    this.width = opts.maxPointwiseInputs ?? DEFAULT_FUSION_WIDTH;
    this.maxBindings = opts.maxBindings ?? this.width + 1;
    this.maxExprSize = opts.maxExprSize ?? DEFAULT_MAX_EXPR_SIZE;
    this.maxBindingBytes = opts.maxBindingBytes ?? 128 * 1024 * 1024;
  }

  /**
   * Raises the fusion width for the passes still to run, and drops the rules' per-run state but what holds at any
   * width (`RuleCtx.ofAnyWidth`): a node rule skips nodes unchanged since it last applied, which at the new width
   * may fuse further (the ctx holds only what makes rules skip work, so dropping it is always sound).
   */
  widen(maxPointwiseInputs: number): void {
    if (maxPointwiseInputs < this.width) throw new RuleError(`TensorAnalysis.widen: ${maxPointwiseInputs} is narrower than the current width ${this.width}`);
    this.width = maxPointwiseInputs;
    this.ruleState = this.ruleState.widened();
  }

  /** Type (and constant) of a class holding only `node`; throws a GraphError for an ill-typed node. */
  make(egraph: EGraph<TensorInfo>, node: ENode): TensorInfo {
    const ir = fromENode(node);
    const declared = leafTypeOf(node);
    const kids: TensorInfo[] = [];
    for (const c of node.children) kids.push(egraph.eclass(c).data);
    const type = declared ?? inferType(ir.op, node.op === 'pick' ? [multiOf(egraph, node.children[0])] : kids, ir.attrs);
    const constant = constantOf(ir, kids, type);
    return constant === undefined ? { shape: type.shape, dtype: type.dtype } : { shape: type.shape, dtype: type.dtype, constant };
  }

  /** Joins two classes' data; throws naming both types when shape or dtype differ. */
  merge(a: TensorInfo, b: TensorInfo): TensorInfo {
    if (!sameShape(a.shape, b.shape) || a.dtype !== b.dtype)
      throw new TensorTypeError(`tensor analysis: cannot merge a class of type ${fmtType(a)} with one of type ${fmtType(b)}`);
    if (a.constant === undefined && b.constant !== undefined) return { ...a, constant: b.constant };
    return a; // two known constants may differ by rounding (reassociation); the first one stays
  }

  /** A small integer naming a node's data (equal data, equal id) within this analysis. */
  private dataId(data: ENode['data']): number {
    const kept = keptDataId(this, data);
    if (kept >= 0) return kept;
    const id = this.dataIdByKey(data);
    keepDataId(this, data, id);
    return id;
  }

  /** `dataId` by the data's key text. */
  private dataIdByKey(data: ENode['data']): number {
    // looked up by the key text (cached per data object; the engine keeps the string's hash): a weak-map entry per
    // data object, most of them short-lived, cost more in the GC than it saved
    const key = dataKey(data);
    let id = this.dataIds.get(key);
    if (id === undefined) this.dataIds.set(key, (id = this.dataIds.size));
    return id;
  }

  /** Marks classes that are materialised whatever is chosen (outputs, update values): fusion may stop there. */
  markRoots(ids: Iterable<Id>): void {
    for (const id of ids) this.rootIds.push(id);
    this.rootSet = undefined;
  }

  /** Records the state updates (state class, value class): the multi-result update rule groups them. */
  markUpdates(pairs: Iterable<readonly [Id, Id]>): void {
    for (const p of pairs) this.updatePairs.push([p[0], p[1]]);
    this.stateOfValue = undefined;
  }

  /** The state class whose update value is class `id` (canonical), if any. */
  updatedState(egraph: EGraph<TensorInfo>, id: Id): Id | undefined {
    if (!this.stateOfValue || this.stateOfValueUnions !== egraph.unionCount) {
      this.stateOfValueUnions = egraph.unionCount;
      // rebuilt only when a union moved one of its ids: most unions (every rule's) touch no update pair, and a map
      // rebuilt after each of them was much of the update rules' time
      const ids = this.stateOfValueIds;
      let moved = !this.stateOfValue;
      for (let i = 0; i < ids.length && !moved; i++) moved = egraph.find(ids[i]) !== ids[i];
      if (moved) {
        this.stateOfValueIds = this.updatePairs.flatMap(([s, v]) => [egraph.find(s), egraph.find(v)]);
        this.stateOfValue = new Map(this.updatePairs.map(([s, v]) => [egraph.find(v), egraph.find(s)]));
      }
    }
    return this.stateOfValue?.get(egraph.find(id)); // built above when missing
  }

  /** Whether a class is a root (an output or update value, always materialised). */
  isRoot(egraph: EGraph<TensorInfo>, id: Id): boolean {
    // canonical ids of the roots, refreshed after unions: only entries whose id stopped being canonical move
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
  markRootRespecting(cls: Id, node: ENode): void {
    addTo(this.respecting, this.shapeKey(node), cls, true, keepFirst);
  }

  /** Whether a node was marked by `markRootRespecting` (in this class). */
  isRootRespecting(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): boolean {
    return lookupIn(egraph, this.respecting, this.shapeKey(node), cls, keepFirst) !== undefined;
  }

  /** A number naming a node's op, data and arity (equal for nodes equal but for their children). */
  private shapeKey(node: ENode): number {
    return (this.dataId(node.data) * 1024 + Math.min(node.children.length, 1023)) * 1024 + this.opId(node.op);
  }

  /** A number naming a node's op and data (a text key per provenance record and ask was garbage). */
  private opDataKey(node: ENode): number {
    return this.dataId(node.data) * 1024 + this.opId(node.op);
  }

  /** A small number naming an op (ops are far fewer than 1024). */
  private opId(name: string): number {
    let op = this.opIds.get(name);
    if (op === undefined) this.opIds.set(name, (op = this.opIds.size));
    return op;
  }

  /** Records that `rules` produced `node` in class `cls` (for the report's kernel provenance). */
  record(cls: Id, node: ENode, rules: Iterable<string> | RuleSet): void {
    addTo(this.provenance, this.opDataKey(node), cls, ruleSetOf(rules), unionRules);
  }

  /** Folds provenance recorded under merged-away ids into their classes (call once rules are done). */
  settle(egraph: EGraph<TensorInfo>): void {
    for (const byClass of this.provenance.values()) if (byClass.homedAt !== egraph.unionCount) rehome(egraph, byClass, unionRules);
  }

  /** The rules recorded for a node of this op and data in class `cls` (sorted, deduplicated; shared: do not modify). */
  rulesOf(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): readonly string[] {
    return this.ruleSetOf(egraph, cls, node).list;
  }

  /** `rulesOf` as an interned set (rules join it to what they record without a list per node). */
  ruleSetOf(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): RuleSet {
    return lookupIn(egraph, this.provenance, this.opDataKey(node), cls, unionRules) ?? EMPTY_RULES;
  }
}

/**
 * An index entry's values by class id, and the union count they were last re-homed at (-1: never): a field, not a
 * weak map by entry (a lookup in one on every miss).
 */
interface ByClass<V> {
  readonly map: Map<Id, V>;
  homedAt: number;
}

/** The merge of root-respecting marks: a mark is a mark. */
const keepFirst = (a: true): true => a;

function addTo<K, V>(index: Map<K, ByClass<V>>, key: K, cls: Id, value: V, merge: (a: V, b: V) => V): void {
  let byClass = index.get(key);
  if (!byClass) index.set(key, (byClass = { map: new Map(), homedAt: -1 }));
  const had = byClass.map.get(cls);
  const v = had === undefined ? value : merge(had, value);
  if (v !== had) byClass.map.set(cls, v);
}

/**
 * The entry of `cls` under `key`. While rules run this is the canonical class's own entry when it has one
 * (entries of merged-away ids are folded in only on a miss: a full fold on every lookup was quadratic);
 * `settle` folds everything before the report reads provenance.
 */
function lookupIn<K, V>(egraph: EGraph<TensorInfo>, index: Map<K, ByClass<V>>, key: K, cls: Id, merge: (a: V, b: V) => V): V | undefined {
  const byClass = index.get(key);
  if (!byClass) return undefined;
  const root = egraph.find(cls);
  const hit = byClass.map.get(root);
  if (hit !== undefined || byClass.homedAt === egraph.unionCount) return hit;
  rehome(egraph, byClass, merge);
  return byClass.map.get(root);
}

/**
 * Moves the entries of merged-away ids to their canonical class. Every entry was canonical when last homed or
 * added, so only ids merged away since can need a move: those are read from the e-graph's union log when they
 * are fewer than the entries (a full pass over a large index on every miss was most of the rules' lookup time).
 */
function rehome<V>(egraph: EGraph<TensorInfo>, byClass: ByClass<V>, merge: (a: V, b: V) => V): void {
  const from = byClass.homedAt < 0 ? 0 : byClass.homedAt;
  const to = egraph.unionCount;
  byClass.homedAt = to;
  if (to - from < byClass.map.size) {
    const merged = egraph.mergedIds;
    for (let i = from; i < to; i++) moveEntry(egraph, byClass.map, merged[i], merge);
  } else for (const id of [...byClass.map.keys()]) moveEntry(egraph, byClass.map, id, merge);
}

/**
 * Moves the entry of `id`, if any, to its canonical class (a module function, not a closure per `rehome`: under
 * tsx every named closure costs a `__name` call each time it is made).
 */
function moveEntry<V>(egraph: EGraph<TensorInfo>, byClass: Map<Id, V>, id: Id, merge: (a: V, b: V) => V): void {
  const v = byClass.get(id);
  if (v === undefined) return;
  const c = egraph.find(id);
  if (c === id) return;
  byClass.delete(id);
  const into = byClass.get(c);
  byClass.set(c, into === undefined ? v : merge(into, v));
}

/** The analysis data of a class (for rules and conditions). */
export function info(egraph: EGraph<TensorInfo>, id: Id): TensorInfo {
  return egraph.eclass(id).data;
}

/** The tensor analysis of an e-graph, or undefined when it runs another analysis. */
export function tensorAnalysisOf(egraph: EGraph<TensorInfo>): TensorAnalysis | undefined {
  return egraph.analysis instanceof TensorAnalysis ? egraph.analysis : undefined;
}

/** The fusion width every fusion rule obeys: the analysis's current width, or the default under another analysis. */
export function fusionWidth(egraph: EGraph<TensorInfo>): number {
  return tensorAnalysisOf(egraph)?.maxPointwiseInputs ?? DEFAULT_FUSION_WIDTH;
}

/** Most nodes of a fused expression tree: the analysis's, or the default under another analysis. */
export function fusionExprSize(egraph: EGraph<TensorInfo>): number {
  return tensorAnalysisOf(egraph)?.maxExprSize ?? DEFAULT_MAX_EXPR_SIZE;
}

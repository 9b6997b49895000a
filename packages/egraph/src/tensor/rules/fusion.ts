// Fusion rules: these decide which kernels run. Matmul epilogues (bias, relu), softmax + cross-entropy, and
// pointwise chains (every elementwise primitive becomes a `pointwise` expression; producers are inlined into
// consumers up to the storage-buffer limit). Must not hand-pick a fusion: rules only add alternatives, the cost
// model chooses. Must not keep state: what a rule remembers within a run lives in the run's `RuleCtx`.
// Invariant: a fused node computes exactly what the nodes of its class compute.

import type { EGraph, ENode, Id } from '../../core/index.js';
import { buildPointwise, exprOf, inlineExpr, isPrimaryExpr, liftable, nodeExprSize, primitiveExpr } from '../pointwiseFusion.js';
import type { TensorAnalysis, TensorInfo } from '../tensorAnalysis.js';
import { fusionWidth, tensorAnalysisOf } from '../tensorAnalysis.js';
import type { RuleCtx } from '../ruleCtx.js';
import { addRecorded, childSignature, classHasOp, classOpCount, classOps, ctxOf as ctxOfRules, nodeRule, type PatternGuard, patternRule, ruleSetIn, type TensorRewrite, trw } from './ruleKit.js';
import { type RuleSet, unionRules, withRule } from '../ruleSet.js';
import type { PwExpr } from '@neura/ir';
import { BINARY_OPS, broadcastShapes, sameShape, UNARY_OPS } from '@neura/ir';


const info = (egraph: EGraph<TensorInfo>, id: Id) => egraph.eclass(id).data;

/**
 * Guard of `matmul-bias` with the product as child `side` of the add: the product has the add's shape and the f32
 * operand ?c broadcasts to it (a row bias [N], a residual or gradient accumulation of the full shape, or a batched
 * product's bias: the kernel reads the bias with broadcast strides).
 */
function biasFits(side: 0 | 1): PatternGuard {
  return (egraph, eclass, subst, node) => {
    const shape = info(egraph, eclass).shape;
    const cs = info(egraph, subst.get('?c'));
    if (!sameShape(info(egraph, node.children[side]).shape, shape) || cs.dtype !== 'f32') return false;
    const b = broadcastShapes(cs.shape, shape);
    return b !== undefined && sameShape(b, shape);
  };
}

const MM = 'matmul[transA=?ta,transB=?tb]';
const FUSED = (bias: boolean, act: string) => `fusedMatmul[transA=?ta,transB=?tb,bias=${bias},activation="${act}"]`;

/** Adds a built pointwise node (if legal) with its provenance; returns its class and node, if any. `like`: see `buildPointwise`. */
function addPointwise(
  egraph: EGraph<TensorInfo>,
  eclass: Id,
  expr: PwExpr,
  inputs: readonly Id[],
  rules: Iterable<string> | RuleSet,
  like?: ENode,
): { id: Id; node: ENode } | undefined {
  const node = buildPointwise(egraph, expr, inputs, info(egraph, eclass), like);
  return node ? { id: addRecorded(egraph, node, rules), node } : undefined;
}

/** The classes of the nodes built (a loop: `flatMap` made an array per element, on every apply). */
function ids(xs: readonly ({ id: Id } | undefined)[]): Id[] {
  const out: Id[] = [];
  for (const x of xs) if (x) out.push(x.id);
  return out;
}

/** Small numbers naming e-node objects in one run (for plan keys; nodes are immutable, so identity is content). */
interface ObjectIds {
  readonly ids: Map<ENode, number>;
  next: number;
}

const newObjectIds = (): ObjectIds => ({ ids: new Map(), next: 1 });
/** A fresh map (a shared `init` of ctx slots: no closure per lookup). */
const newMap = <K, V>(): Map<K, V> => new Map<K, V>();
/** A fresh array (a shared `init` of ctx slots). */
const newArray = <T>(): T[] => [];
/** The ctx keys of the nodes `pointwise-merge` and `pointwise-inline` left something out of for the width. */
const WIDTH_CUTS = { merge: 'fusion:width-cuts:merge', inline: 'fusion:width-cuts:inline' } as const;

/** The ctx keys of the merge plans, per variant (built once). */
const PLAN_KEYS = { all: 'fusion:merge-plans:all', respecting: 'fusion:merge-plans:respecting' } as const;

/** The run's number for an e-node object. */
function objectId(ctx: RuleCtx, n: ENode): number {
  const t = ctx.ofAnyWidth<ObjectIds>('fusion:object-ids', newObjectIds);
  let id = t.ids.get(n);
  if (id === undefined) t.ids.set(n, (id = t.next++));
  return id;
}

/**
 * Every elementwise primitive → a one-op `pointwise` node over its operands. Per run, which constant inputs a
 * node had when lifted (lifting folds them, and a class's constant may become known later).
 */
function liftPointwise(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  if (!liftable(node.op, info(egraph, eclass))) return [];
  // an identity merged into its operand's class (x·1 ≡ x): its lift would read its own class, and each merge
  // into a consumer then inlined one more (mul 1 …) level per iteration
  if (node.children.some((c) => egraph.find(c) === egraph.find(eclass))) return [];
  // kept at a wider width: a lift that was not built is remembered with the width it was tried at
  const liftedWith = ctx.ofAnyWidth<Map<ENode, string>>('fusion:lifted-with', newMap);
  const consts = node.children.map((c) => (info(egraph, c).constant === undefined ? '.' : 'c')).join('');
  const width = fusionWidth(egraph);
  const last = liftedWith.get(node);
  if (last === consts || last === `${consts}@${width}`) return []; // lifted before: the same node, already in this class
  const expr = primitiveExpr(node, info(egraph, eclass));
  const added = expr ? addPointwise(egraph, eclass, expr, node.children, ['pointwise-lift']) : undefined;
  liftedWith.set(node, added ? consts : `${consts}@${width}`);
  if (added) tensorAnalysisOf(egraph)?.markRootRespecting(added.id, added.node); // it inlines nothing
  return ids([added]);
}

/** A class's pointwise producers, largest expression first (a stable sort: in node order among equals). */
export interface Producers {
  readonly list: readonly ENode[];
  /** Index of the first producer of at most `INLINE_ONE_MAX_SIZE` nodes (the ones `pointwise-inline` takes). */
  readonly small: number;
  /** Per producer, once asked: its distinct input classes, canonical when found (see `distinctKids`). */
  readonly kids: (Id[] | undefined)[];
  /** Per producer: the `KidWatch` epoch its `kids` were last known canonical at. */
  readonly kidsAt: number[];
}

const NO_PRODUCERS: Producers = { list: [], small: 0, kids: [], kidsAt: [] };

/**
 * Which classes some kept `Producers.kids` list names (by class id), and how far the e-graph's union log has been
 * read: the epoch advances when a class so named was merged away. A list checked at the current epoch is still
 * canonical without a `find` per class (~380 000 producers are tried per GPT 6×384 run; checking each list's
 * classes was ~30 % of the merge scan, and the unions between two scans almost only merge away fresh classes).
 */
interface KidWatch {
  named: Uint8Array;
  read: number;
  epoch: number;
}

const newKidWatch = (): KidWatch => ({ named: new Uint8Array(1024), read: 0, epoch: 0 });

/** The run's `KidWatch`, its union log read up to now (a read of it holds until the next union). */
function kidWatch(egraph: EGraph<TensorInfo>, ctx: RuleCtx): KidWatch {
  const w = ctx.ofAnyWidth<KidWatch>('fusion:kid-watch', newKidWatch);
  const merged = egraph.mergedIds;
  let stale = false;
  for (; w.read < merged.length; w.read++) if (merged[w.read] < w.named.length && w.named[merged[w.read]] === 1) stale = true;
  if (stale) w.epoch++;
  return w;
}

/**
 * The distinct canonical input classes of producer `i` (in first-read order). Kept with the producer list: while
 * every class kept is still canonical, each input still reads as the class it read as then, so the list holds
 * (the merge scan asks it for every producer of every input of every consumer; recounting repeats was quadratic).
 * `watch`: read since the last union.
 */
function distinctKids(egraph: EGraph<TensorInfo>, prods: Producers, i: number, watch: KidWatch): readonly Id[] {
  const kept = prods.kids[i];
  if (kept !== undefined) {
    if (prods.kidsAt[i] === watch.epoch) return kept;
    let fresh = true;
    for (let h = 0; h < kept.length && fresh; h++) fresh = egraph.find(kept[h]) === kept[h];
    if (fresh) {
      prods.kidsAt[i] = watch.epoch;
      return kept;
    }
  }
  const out: Id[] = [];
  for (const k of prods.list[i].children) {
    const c = egraph.find(k);
    if (!out.includes(c)) out.push(c);
  }
  if (watch.named.length < egraph.totalIds) {
    const grown = new Uint8Array(Math.max(egraph.totalIds, 2 * watch.named.length));
    grown.set(watch.named);
    watch.named = grown;
  }
  for (const c of out) watch.named[c] = 1;
  prods.kids[i] = out;
  prods.kidsAt[i] = watch.epoch;
  return out;
}

/** Whether a node reads class `cls` (canonical). */
function readsClass(egraph: EGraph<TensorInfo>, n: ENode, cls: Id): boolean {
  const kids = n.children;
  for (let i = 0; i < kids.length; i++) if (egraph.find(kids[i]) === cls) return true;
  return false;
}

/** The pointwise nodes of a class other than `self` (none reading the class itself), largest expression first. */
export function producers(egraph: EGraph<TensorInfo>, cls: Id, self: Id, ctx: RuleCtx): Producers {
  return producersOf(egraph, egraph.find(cls), egraph.find(self), producersCache(ctx));
}

/**
 * The run's `producers` cache, by canonical class id: asked once per consumer node and input, kept per class while its
 * node list and canonical id stand still (a union gives the class a longer list or another id, a rebuild a new list).
 * The entry of the list last seen: a list only grows or is replaced, so no earlier entry of the class could match
 * again (a map keyed by the list object cost a hash lookup per ask, ~1/3 of `producers`' profile on the GPT step).
 */
function producersCache(ctx: RuleCtx): (ProducersEntry | undefined)[] {
  return ctx.ofAnyWidth<(ProducersEntry | undefined)[]>('fusion:producers', newArray);
}

/**
 * `producers` of canonical class `own` to a consumer in canonical class `self`, with the run's `cache` (a consumer's
 * rule asks it for each input: its class and the cache looked up once).
 */
function producersOf(egraph: EGraph<TensorInfo>, own: Id, self: Id, cache: (ProducersEntry | undefined)[]): Producers {
  if (own === self) return NO_PRODUCERS;
  const nodes = egraph.eclass(own).nodes;
  const hit = own < cache.length ? cache[own] : undefined;
  if (hit !== undefined && hit.nodes === nodes && hit.length === nodes.length) return hit.producers;
  const list: ENode[] = [];
  for (const n of nodes) if (n.op === 'pointwise' && !readsClass(egraph, n, own)) list.push(n);
  list.sort(byLargerExpr); // stable: equal sizes keep node order
  let small = 0;
  while (small < list.length && nodeExprSize(list[small]) > INLINE_ONE_MAX_SIZE) small++;
  const result: Producers = { list, small, kids: new Array(list.length), kidsAt: new Array<number>(list.length).fill(-1) };
  // grown one slot at a time: a write far past the end would turn the array into a slow dictionary
  while (cache.length <= own) cache.push(undefined);
  cache[own] = { nodes, length: nodes.length, producers: result };
  return result;
}

/** Sort order of `producers`: larger expressions first (each node's size is kept with its data). */
function byLargerExpr(a: ENode, b: ENode): number {
  return nodeExprSize(b) - nodeExprSize(a);
}

/** A class's producers as computed for its node list at a length. */
interface ProducersEntry {
  readonly nodes: readonly ENode[];
  readonly length: number;
  readonly producers: Producers;
}

/**
 * Maximal merge: each input of a pointwise node whose class holds a pointwise producer gets the largest one
 * inlined, while the distinct inputs stay within the limit. Repeated over iterations, chains of any depth
 * become one kernel; each iteration's result stays in the class, so the cost model can stop at any depth.
 * A second variant never recomputes a root (an output or update value): roots are materialised anyway, so
 * reading them is usually cheaper (Adam's p' reads m' and v' instead of recomputing them from m, v and g).
 */
function mergePointwise(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const analysis = tensorAnalysisOf(egraph);
  const respecting = analysis?.isRootRespecting(egraph, eclass, node) ?? false;
  // Only the largest node of a class merges on (per variant): merging every smaller variant again re-derived
  // the same deep kernels many times over (most of the fusion time on the GPT step); the smaller variants stay
  // in the class as stopping points for the cost model.
  const size = nodeExprSize(node);
  const sized = pointwiseSizes(egraph, eclass, ctx);
  if (sized.largest > size) {
    if (!respecting) return [];
    for (let i = 0; i < sized.nodes.length; i++) if (sized.sizes[i] > size && analysis?.isRootRespecting(egraph, eclass, sized.nodes[i])) return [];
  }
  LAST_BUILD.plan = undefined;
  const all = mergeVariant(egraph, eclass, node, ctx, undefined);
  if (!respecting || !analysis) return all ? [all.id] : [];
  const r = mergeVariant(egraph, eclass, node, ctx, analysis, LAST_BUILD.plan);
  if (r) analysis.markRootRespecting(r.id, r.node);
  return ids([all, r]);
}

/**
 * Guard of `pointwise-merge`: the node is its class's largest pointwise variant, or a root-respecting one with no
 * larger root-respecting variant. `mergePointwise` returns at once for the others (GPT 6×384: ~9 500 of ~15 500
 * matches); failing at search time keeps them out of the match counts and the apply loop.
 */
function mergesOn(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): boolean {
  const size = nodeExprSize(node);
  const sized = pointwiseSizes(egraph, eclass, ctxOfRules(egraph));
  if (sized.largest <= size) return true;
  const analysis = tensorAnalysisOf(egraph);
  if (!analysis?.isRootRespecting(egraph, eclass, node)) return false;
  for (let i = 0; i < sized.nodes.length; i++) if (sized.sizes[i] > size && analysis.isRootRespecting(egraph, eclass, sized.nodes[i])) return false;
  return true;
}

/** The pointwise nodes of a node list with their expression sizes, in list order, and the largest size (0 if none). */
interface PointwiseSizes {
  /** The class's node list these are of. */
  readonly list: readonly ENode[];
  length: number;
  largest: number;
  readonly nodes: ENode[];
  readonly sizes: number[];
}

/**
 * The pointwise nodes and sizes of class `cls`'s node list, kept per list and extended as it grows: by canonical id,
 * for the list last seen (a list only grows or is replaced: as `producers`' cache).
 */
function pointwiseSizes(egraph: EGraph<TensorInfo>, cls: Id, ctx: RuleCtx): PointwiseSizes {
  const c = egraph.eclass(cls);
  const nodes = c.nodes;
  const cache = ctx.ofAnyWidth<(PointwiseSizes | undefined)[]>('fusion:pointwise-sizes', newArray);
  let e = c.id < cache.length ? cache[c.id] : undefined;
  if (e === undefined || e.list !== nodes) {
    while (cache.length <= c.id) cache.push(undefined);
    cache[c.id] = e = { list: nodes, length: 0, largest: 0, nodes: [], sizes: [] };
  }
  for (; e.length < nodes.length; e.length++) {
    const n = nodes[e.length];
    if (n.op !== 'pointwise') continue;
    const size = nodeExprSize(n);
    e.nodes.push(n);
    e.sizes.push(size);
    e.largest = Math.max(e.largest, size);
  }
  return e;
}

/** `mergeVariant`'s picks: the producer inlined at each input position, if any (scratch, reset per call). */
const MERGE_INLINE: (ENode | undefined)[] = [];
/**
 * What the last `mergeVariant` call of the current `mergePointwise` built: its plan (undefined when it built
 * nothing) and its result. A root-respecting plan equal to the plain one (no root among the producers either
 * picked) builds the same node from the same rules: ~40 % of the GPT 6×384 step's merge builds were such repeats,
 * each a fresh expression, key and memo lookup that found the node just added.
 */
const LAST_BUILD: { plan: string | undefined; built: { id: Id; node: ENode } | undefined } = { plan: undefined, built: undefined };
/** Per class id, the stamp of the merge that reads it (see `mergeVariant`); 0 never is a stamp. */
let readStamps = new Int32Array(1024);
let lastStamp = 0;

/** A fresh stamp for `readStamps`, grown to cover `ids` class ids (restarted from zeros before it would overflow). */
function nextReadStamp(ids: number): number {
  if (readStamps.length < ids) readStamps = new Int32Array(Math.max(ids, 2 * readStamps.length));
  if (lastStamp === 0x7fffffff) {
    readStamps.fill(0);
    lastStamp = 0;
  }
  return ++lastStamp;
}

/**
 * One variant of `mergePointwise` at `node`: with `respecting` (the analysis), the root-respecting one, which inlines
 * only root-respecting producers and none into a root (a variant as an argument, not a pair of closures per merge).
 * `builtPlan`: the plan the plain variant just built.
 */
function mergeVariant(
  egraph: EGraph<TensorInfo>,
  eclass: Id,
  node: ENode,
  ctx: RuleCtx,
  respecting: TensorAnalysis | undefined,
  builtPlan?: string,
): { id: Id; node: ENode } | undefined {
  const limit = fusionWidth(egraph);
  // scratch picks, reset per call (a merge is never nested in another; nothing keeps it)
  const inline = MERGE_INLINE;
  const arity = node.children.length;
  for (let j = 0; j < arity; j++) inline[j] = undefined;
  let picked = 0;
  // the classes read, as this call's stamp by class id: ~380 000 producers are tried a GPT 6x384 run, 97 % over the
  // width, each testing its inputs (a Set's lookups were most of the merge rule's time)
  const stamp = nextReadStamp(egraph.totalIds);
  const readAt = readStamps;
  let reads = 0;
  for (let j = 0; j < arity; j++) {
    const id = egraph.find(node.children[j]);
    if (readAt[id] !== stamp) {
      readAt[id] = stamp;
      reads++;
    }
  }
  let cut = false; // a producer left out for the width: a wider one may plan this node otherwise
  const watch = kidWatch(egraph, ctx); // no union until this call returns
  const cache = producersCache(ctx);
  const self = egraph.find(eclass);
  for (let j = 0; j < node.children.length; j++) {
    const c = node.children[j];
    const own = egraph.find(c);
    if (respecting && respecting.isRoot(egraph, c)) continue; // asked once per input, not per producer
    const prods = producersOf(egraph, own, self, cache);
    for (let pi = 0; pi < prods.list.length; pi++) {
      const p = prods.list[pi];
      // distinct reads with p inlined at c: the reads but c, plus p's inputs not among them (counted, not copied)
      let size = readAt[own] === stamp ? reads - 1 : reads;
      const kids = distinctKids(egraph, prods, pi, watch);
      // counted only up to one over the width: `size` is compared with `limit` alone
      for (let i = 0; i < kids.length && size <= limit; i++) if (kids[i] === own || readAt[kids[i]] !== stamp) size++;
      // the width before the variant's test (both only read): most producers are over it, and once a cut is known
      // the test (a provenance lookup for root-respecting merges) need not run for them
      if (size > limit) {
        if (!cut && (!respecting || respecting.isRootRespecting(egraph, c, p))) cut = true;
        continue;
      }
      if (respecting && !respecting.isRootRespecting(egraph, c, p)) continue;
      inline[j] = p;
      picked++;
      if (readAt[own] === stamp) {
        readAt[own] = 0;
        reads--;
      }
      for (let i = 0; i < kids.length; i++) {
        if (readAt[kids[i]] !== stamp) {
          readAt[kids[i]] = stamp;
          reads++;
        }
      }
      break;
    }
  }
  if (cut) ctx.refusedAtWidth(WIDTH_CUTS.merge, node, limit);
  if (picked === 0) return undefined;
  // the same producers as last time give the same node, already in this class: skip building it again
  let plan = '';
  for (let j = 0; j < arity; j++) {
    const p = inline[j];
    if (p) plan += `${j}:${objectId(ctx, p)},`;
  }
  // per consumer: the last plan; kept at a wider width (a plan reads at most the width it was made at, so only
  // width-free limits can have refused its node)
  const plans = ctx.ofAnyWidth<Map<ENode, string>>(respecting ? PLAN_KEYS.respecting : PLAN_KEYS.all, newMap);
  if (plans.get(node) === plan) return undefined;
  plans.set(node, plan);
  // the plan the other variant just built (or found illegal): the same node, its provenance recorded already
  if (plan === builtPlan) return LAST_BUILD.built;
  // provenance only for a plan that is built (most repeat the last one): the node's rules, then each producer's
  let rules = withRule('pointwise-merge', ruleSetIn(egraph, eclass, node));
  for (let j = 0; j < arity; j++) {
    const p = inline[j];
    if (p) rules = unionRules(rules, ruleSetIn(egraph, node.children[j], p));
  }
  const { expr, inputs } = inlineExpr(node, inline);
  const built = addPointwise(egraph, eclass, expr, inputs, rules);
  LAST_BUILD.plan = plan;
  LAST_BUILD.built = built;
  return built;
}

/**
 * Whether a class holds a node that is not elementwise (a leaf, matmul, reduction, …): its value is
 * materialised whatever fuses around it, so a chain that stops there reads it for free.
 */
function materialised(egraph: EGraph<TensorInfo>, cls: Id): boolean {
  for (const op of classOps(egraph, cls)) if (op !== 'pointwise' && !ELEMENTWISE_SET.has(op)) return true;
  return false;
}

/** Largest producer expression (in nodes) that `pointwise-inline` inlines. */
const INLINE_ONE_MAX_SIZE = 4;
/**
 * Largest consumer expression (in nodes) `pointwise-inline` inlines a one-op producer into, beyond one-op
 * consumers: the class's largest variant alone merges on, so a small stopping point would otherwise never take a
 * small producer, e.g. a layer norm backward's dx + (−Σ…)/n reading the residual sum a + b (GPT: a separate add
 * kernel per layer).
 */
const INLINE_ONE_MAX_CONSUMER = 8;

/**
 * Single inlines into one-op pointwise nodes: for each input, each producer of that input's class. This gives
 * the cost model chains that stop at an input that is materialised anyway (e.g. a matmul's relu output).
 */
function inlineOne(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode, ctx: RuleCtx): Id[] {
  const primary = isPrimaryExpr(exprOf(node));
  if (!primary && nodeExprSize(node) > INLINE_ONE_MAX_CONSUMER) return [];
  // per consumer: pairs tried, each with Infinity once built, else the width it was refused at (kept at a wider
  // width, where only the refused ones are tried again)
  const inlined = ctx.ofAnyWidth<Map<ENode, Map<number, number>>>('fusion:inlined', newMap);
  let done = inlined.get(node);
  const width = fusionWidth(egraph);
  const out: Id[] = [];
  const cache = producersCache(ctx);
  const self = egraph.find(eclass); // no union until this call returns
  for (let j = 0; j < node.children.length; j++) {
    const c = node.children[j];
    // only small producers: inlining every fused variant of a producer class was combinatorial (5 758 nodes
    // on the small GPT step); small ones keep the short chains that matter (relu's mask `cast(gt(relu z, 0))`)
    const { list, small } = producersOf(egraph, egraph.find(c), self, cache);
    for (let i = small; i < list.length; i++) {
      const p = list[i]; // the producers before `small` are larger than INLINE_ONE_MAX_SIZE
      if (!primary && !isPrimaryExpr(exprOf(p))) continue; // never, whatever was tried: no lookup
      const key = objectId(ctx, p) * 1024 + j; // the pair (input, producer) as one number (inputs are far fewer)
      if (!done) inlined.set(node, (done = new Map()));
      if ((done.get(key) ?? -1) >= width) continue; // tried before at this width, or built: already in this class
      if (!readsMaterialised(egraph, p)) continue;
      INLINE_ONE[j] = p;
      const { expr, inputs } = inlineExpr(node, INLINE_ONE);
      INLINE_ONE[j] = undefined;
      const added = addPointwise(egraph, eclass, expr, inputs, withRule('pointwise-inline', ruleSetIn(egraph, c, p)));
      done.set(key, added ? Number.POSITIVE_INFINITY : width);
      if (!added && readsOverWidth(egraph, inputs, width)) ctx.refusedAtWidth(WIDTH_CUTS.inline, node, width);
      if (added) out.push(added.id);
    }
  }
  return out;
}

/** `inlineOne`'s scratch picks for `inlineExpr`: empty but while one expression is built. */
const INLINE_ONE: (ENode | undefined)[] = [];

/** Whether every input class of a node is materialised (see `materialised`). */
function readsMaterialised(egraph: EGraph<TensorInfo>, n: ENode): boolean {
  for (const k of n.children) if (!materialised(egraph, k)) return false;
  return true;
}

/** Whether `inputs` name more distinct classes than `width` (a fused node built over them would be cut by the width). */
function readsOverWidth(egraph: EGraph<TensorInfo>, inputs: readonly Id[], width: number): boolean {
  if (inputs.length <= width) return false;
  const distinct = new Set<Id>();
  for (const i of inputs) distinct.add(egraph.find(i));
  return distinct.size > width;
}

/** Static guard: a consumer `pointwise-inline` inlines into (its expression never changes: a node failing it never matches). */
function smallConsumer(node: ENode): boolean {
  return isPrimaryExpr(exprOf(node)) || nodeExprSize(node) <= INLINE_ONE_MAX_CONSUMER;
}

/** A pointwise input that is an `expand` is read broadcast instead (the kernel broadcasts its inputs). */
function absorbExpand(egraph: EGraph<TensorInfo>, eclass: Id, node: ENode): Id[] {
  const out: Id[] = [];
  for (let j = 0; j < node.children.length; j++) {
    for (const e of egraph.eclass(node.children[j]).nodes) {
      if (e.op !== 'expand') continue;
      const inputs = node.children.slice();
      inputs[j] = e.children[0];
      const added = addPointwise(egraph, eclass, exprOf(node), inputs, withRule('pointwise-expand', ruleSetIn(egraph, eclass, node)), node);
      if (added) out.push(added.id);
    }
  }
  return out;
}

/** Guard: some child class holds a node of `op`. */
function childHasOp(op: string) {
  return (egraph: EGraph<TensorInfo>, _eclass: Id, node: ENode): boolean => node.children.some((c) => classHasOp(egraph, c, op));
}

const ELEMENTWISE = [...UNARY_OPS, ...BINARY_OPS, 'where', 'cast'];
const ELEMENTWISE_SET: ReadonlySet<string> = new Set(ELEMENTWISE);

/**
 * What `pointwise-merge` reads of a child class: its pointwise producers (a root-respecting mark comes with the
 * node it marks). Nodes of other ops joining a child re-matched every consumer each iteration of the fuse pass.
 */
const pointwiseCount = (egraph: EGraph<TensorInfo>, cls: Id): number => classOpCount(egraph, cls, 'pointwise');

/** The fusion rule set. */
export const fusionRules: readonly TensorRewrite[] = [
  // the add's own dispatch and its read of the product go away
  patternRule(
    'matmul-bias',
    [
      { lhs: `(add (${MM} ?a ?b) ?c)`, rhs: `(${FUSED(true, 'none')} ?a ?b ?c)`, guard: biasFits(0) },
      { lhs: `(add ?c (${MM} ?a ?b))`, rhs: `(${FUSED(true, 'none')} ?a ?b ?c)`, guard: biasFits(1) },
    ],
    // the match reads only the children's matmul nodes and types: other nodes joining an add's inputs (the fuse
    // pass's pointwise variants) re-tested every add on each scan; no width bounds it
    { guard: childHasOp('matmul'), guardBySignature: true, signature: childSignature((eg, c) => classOpCount(eg, c, 'matmul')), anyWidth: true },
  ),
  patternRule('matmul-relu', [
    { lhs: `(relu (${MM} ?a ?b))`, rhs: `(${FUSED(false, 'relu')} ?a ?b)` },
    { lhs: `(relu (${FUSED(false, 'none')} ?a ?b))`, rhs: `(${FUSED(false, 'relu')} ?a ?b)` },
    { lhs: `(relu (${FUSED(true, 'none')} ?a ?b ?c))`, rhs: `(${FUSED(true, 'relu')} ?a ?b ?c)` },
  ]),
  trw('softmax-cross-entropy', '(nll[reduction=mean] (logSoftmax ?x) ?labels)', '(softmaxCrossEntropy[reduction=mean] ?x ?labels)'),
  trw('softmax-cross-entropy-sum', '(nll[reduction=sum] (logSoftmax ?x) ?labels)', '(softmaxCrossEntropy[reduction=sum] ?x ?labels)'),
  // a lift reads at most three inputs, an absorbed expand no more than its consumer: neither depends on the width
  nodeRule('pointwise-lift', ELEMENTWISE, liftPointwise, { signature: childSignature(() => 0), anyWidth: true }),
  // merge and inline depend on the width only where they record a cut: the wide pass matches those nodes again
  nodeRule('pointwise-merge', ['pointwise'], mergePointwise, { guard: mergesOn, signature: childSignature(pointwiseCount), widthRefusals: WIDTH_CUTS.merge }),
  nodeRule('pointwise-inline', ['pointwise'], inlineOne, { staticGuard: smallConsumer, widthRefusals: WIDTH_CUTS.inline }),
  // the guard reads the children's expand counts, which the signature covers: a node failing it is not tested again
  // until one changes
  nodeRule('pointwise-expand', ['pointwise'], absorbExpand, { guard: childHasOp('expand'), guardBySignature: true, signature: childSignature((eg, c) => classOpCount(eg, c, 'expand')), anyWidth: true }),
];

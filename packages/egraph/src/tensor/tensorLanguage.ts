// The tensor language: how an ir node becomes an e-node (op = ir op kind, data = the op's attrs) and back.
// Must not know rules or costs. Invariant: attributes are part of e-node identity; leaves also carry their
// declared shape and dtype (and params/state their init), consts their value, shape and dtype.

import type { DType, Init, Node, OpAttrs, OpKind, OpWithAttrs, PwExpr, TensorType } from '@neura/ir';
import { attrsOf, OP_KINDS, pwExprSize, withAttrs } from '@neura/ir';
import type { ENode, Id, Language, NodeData } from '../core/index.js';
import { DATA_KEY, isDataRecord } from '../core/index.js';
import { EXPR_ATTR_OPS, keyedAttrs } from './attrsKey.js';
import { exprKey } from './exprKey.js';
import { TensorLanguageError } from './errors.js';

const OPS: ReadonlySet<string> = new Set(OP_KINDS);

/** Whether a string names an ir op. */
export function isOpKind(op: string): op is OpKind {
  return OPS.has(op);
}

/** An ir op ready for `Graph.node`: kind, attrs and (for leaves) the declared type. */
export type IrOp<K extends OpKind = OpKind> = OpWithAttrs<K> & { readonly leafType?: TensorType };

/**
 * The e-node data of an ir node. Leaves add `shape`/`dtype`; a non-finite constant adds `repr` because
 * JSON (and so the e-node key) writes NaN and ±Infinity alike as `null`.
 */
export function nodeData(ir: OpWithAttrs, type?: TensorType): NodeData {
  if (ir.op === 'pointwise') {
    // the expression is keyed as one JSON string: e-node keys of deep expressions are computed very often
    const pw = ir.attrs;
    return new PointwiseData(pw.dtype, pw.expr) as unknown as NodeData;
  }
  // fused attributes holding expressions: their key written once, in one pass (attrsKey.ts)
  if (EXPR_ATTR_OPS.has(ir.op)) return keyedAttrs(ir.attrs) as unknown as NodeData;
  if (ir.op === 'input' || ir.op === 'param' || ir.op === 'state' || ir.op === 'const') {
    if (!type) throw new TensorLanguageError(`tensorLanguage: leaf ${ir.op} needs its declared type`);
    const d: Record<string, NodeData> = { ...ir.attrs, shape: [...type.shape], dtype: type.dtype };
    if (ir.op === 'const' && !Number.isFinite(ir.attrs.value)) d.repr = String(ir.attrs.value);
    return d;
  }
  return ir.attrs;
}

/** The e-node of an ir node whose operands sit in the given e-classes. */
export function toENode(node: Node, children: readonly Id[]): ENode {
  return enodeOf(node, children, node);
}

/**
 * The e-node of an ir op. Ops without attributes carry no data (as nodes built by pattern right sides do),
 * so both spellings hash-cons to one node.
 */
export function irENode<K extends OpKind>(op: K, attrs: OpAttrs[K], children: readonly Id[], type?: TensorType): ENode {
  return enodeOf(withAttrs<OpKind>(op, attrs), children, type); // K is one op at every call site
}

function enodeOf(ir: OpWithAttrs, children: readonly Id[], type?: TensorType): ENode {
  const data = nodeData(ir, type);
  // pointwise data always has fields: no walk over them for the most common fused node
  const empty = !(data instanceof PointwiseData) && data !== null && typeof data === 'object' && !Array.isArray(data) && !hasOwnFields(data);
  return empty ? { op: ir.op, children: children.slice() } : { op: ir.op, data, children: children.slice() };
}

/** Whether an object has an own enumerable field (`Object.keys(o).length > 0`, without the key list). */
function hasOwnFields(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/** The e-node of a constant filled with `value`. */
export function constENode(value: number, shape: readonly number[], dtype: DType): ENode {
  return { op: 'const', data: nodeData({ op: 'const', attrs: { value } }, { shape, dtype }), children: [] };
}

/** The attributes of an e-node of one of the ops `ops`, typed (throws if the node is of another op). */
export function enodeAttrs<K extends OpKind>(n: ENode, ...ops: readonly K[]): OpAttrs[K] {
  return attrsOf(fromENode(n), ...ops);
}

/** The ir op (kind, attrs, leaf type) of an e-node of the tensor language; throws on a foreign op. */
export function fromENode(n: ENode): IrOp {
  if (!isOpKind(n.op)) throw new TensorLanguageError(`tensorLanguage: '${n.op}' is not an ir op`);
  const d = (n.data ?? {}) as Record<string, unknown>;
  switch (n.op) {
    case 'input':
      return { op: n.op, attrs: { name: d.name as string }, leafType: leafType(d) };
    case 'param':
    case 'state':
      return { op: n.op, attrs: { name: d.name as string, init: d.init as Init }, leafType: leafType(d) };
    case 'const':
      return { op: n.op, attrs: { value: d.value as number }, leafType: leafType(d) };
    case 'pointwise':
      return { op: n.op, attrs: { expr: pointwiseExprOf(n), dtype: d.dtype as DType } };
    default:
      // the data of a non-leaf, non-pointwise e-node is the op's attributes as nodeData wrote them (a trust boundary)
      return withAttrs(n.op, d as OpAttrs[typeof n.op]);
  }
}

/**
 * The data of a `pointwise` e-node: the expression as JSON text and the dtype (its only enumerable fields, in that
 * order, as a plain record's), carrying its e-node key and the parsed expression in private fields: most of these
 * objects are built by a fusion rule, found in the memo and dropped, and a weak-map entry each (key, expression) was
 * much of the GC's work. The key is the dtype and the expression's compact key (exprKey.ts); the JSON text is
 * written only when read (a text per built node was ~8 % of optimize on the GPT step).
 */
class PointwiseData {
  declare readonly expr: string;
  declare readonly dtype: DType;
  readonly #key: string;
  readonly #parsed: PwExpr;
  #text: string | undefined;
  #size = -1;
  #owner: object | undefined;
  #ownerId = -1;
  constructor(dtype: DType, parsed: PwExpr) {
    // an expression's key opens with a code no dtype holds: the key splits after the dtype (keys of other ops' data
    // never meet these: node keys hold the op)
    this.#key = exprKey(parsed, dtype);
    this.#parsed = parsed; // `make` reads the expression back: no JSON.parse of what was just written
    // `expr` first, then `dtype`, both enumerable: the fields of the plain record this data stands for (`dtype` a
    // plain field: a second `Object.defineProperty` was ~40 % of building this object)
    Object.defineProperty(this, 'expr', EXPR_TEXT);
    this.dtype = dtype;
  }
  /** The JSON text of the expression, written on first read (one getter shared by every instance). */
  static textOf(d: PointwiseData): string {
    d.#text ??= JSON.stringify(d.#parsed);
    return d.#text;
  }
  /** The e-node data key (see `DATA_KEY`). */
  get [DATA_KEY](): string {
    return this.#key;
  }
  /** The expression the text was written from. */
  parsed(): PwExpr {
    return this.#parsed;
  }
  /** The expression's node count (`pwExprSize`), computed once. */
  size(): number {
    if (this.#size < 0) this.#size = pwExprSize(this.#parsed);
    return this.#size;
  }
  /** Records the node count of the expression, already computed by its builder. */
  knownSize(size: number): void {
    this.#size = size;
  }
  /** The number `owner` gave this data (see `dataIdCached`), or -1. */
  idFor(owner: object): number {
    return this.#owner === owner ? this.#ownerId : -1;
  }
  /** Keeps the number `owner` gave this data (one owner at a time: the analysis of the run that built it). */
  keepId(owner: object, id: number): void {
    this.#owner = owner;
    this.#ownerId = id;
  }
}

/** The `expr` field of every `PointwiseData`: an enumerable getter of its JSON text. */
const EXPR_TEXT: PropertyDescriptor = {
  get(this: PointwiseData) {
    return PointwiseData.textOf(this);
  },
  enumerable: true,
};

/**
 * The number `owner` kept for node data `data` with `keepDataId`, or -1: `pointwise` data keeps it in the data object
 * itself (the analysis asks it on every provenance and root-respecting lookup: a text-keyed lookup each).
 */
export function keptDataId(owner: object, data: ENode['data']): number {
  return data instanceof PointwiseData ? data.idFor(owner) : -1;
}

/** Keeps `owner`'s number for node data (see `keptDataId`; no-op for data other than `pointwise`). */
export function keepDataId(owner: object, data: ENode['data'], id: number): void {
  if (data instanceof PointwiseData) data.keepId(owner, id);
}

/** The node count of a `pointwise` e-node's expression (`pwExprSize`, cached per node data). */
export function pointwiseSizeOf(n: ENode): number {
  const d = n.data;
  if (d instanceof PointwiseData) return d.size();
  return pwExprSize(pointwiseExprOf(n));
}

/** Records a `pointwise` e-node's expression size, known to its builder (no-op for other data). */
export function knownPointwiseSize(n: ENode, size: number): void {
  if (n.data instanceof PointwiseData) n.data.knownSize(size);
}

// The parsed expression of pointwise data built elsewhere (by hand, in tests): weak, so no run leaves entries behind.
const exprOfData = new WeakMap<object, PwExpr>();

/** The expression of a `pointwise` e-node (stored as JSON text in the node data; parsed once per data object). */
export function pointwiseExprOf(n: ENode): PwExpr {
  const d = n.data;
  if (d instanceof PointwiseData) return d.parsed();
  if (!isDataRecord(d) || typeof d.expr !== 'string') throw new TensorLanguageError(`tensorLanguage: ${n.op} node has no pointwise expression`);
  let e = exprOfData.get(d);
  if (!e) exprOfData.set(d, (e = JSON.parse(d.expr) as PwExpr));
  return e;
}

function leafType(d: Record<string, unknown>): TensorType {
  return { shape: d.shape as number[], dtype: d.dtype as DType };
}

/** The declared type of a leaf e-node (input, param, state, const), or undefined for other ops. */
export function leafTypeOf(n: ENode): TensorType | undefined {
  if (n.op !== 'input' && n.op !== 'param' && n.op !== 'state' && n.op !== 'const') return undefined;
  return leafType((n.data ?? {}) as Record<string, unknown>);
}

/**
 * Pattern syntax of the tensor language: a numeric token is a constant of that value (any shape and dtype:
 * pattern data matches by subset), e.g. `(mul ?a 1)`; leaves print as their name or value.
 */
export const tensorLanguage: Language = {
  parseLeaf(token) {
    const v = Number(token);
    return token.trim() !== '' && Number.isFinite(v) ? { op: 'const', data: { value: v } } : { op: token };
  },
  formatLeaf(node) {
    const d = node.data;
    if (!isDataRecord(d)) return undefined;
    if (node.op === 'const') return String(d.value);
    if (node.op === 'input' || node.op === 'param' || node.op === 'state') return String(d.name);
    return undefined;
  },
};

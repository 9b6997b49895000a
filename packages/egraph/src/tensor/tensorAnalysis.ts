// The tensor analysis: per e-class shape, dtype and, when every element is known to hold one value, that
// constant. Must not add nodes (constant folding is a rule, so its hits are reported). Invariant: merging two
// classes of different shape or dtype throws an Error naming both types (a rule claimed a false equality).

import type { DType, OpAttrs, OpKind, Shape, TensorType } from '@neura/ir';
import { BINARY_FN, castScalar, COMPARISON_OPS, fmtShape, inferType, isBinary, isUnary, sameShape, UNARY_FN } from '@neura/ir';
import type { Analysis, EGraph, ENode, Id } from '../core/index.js';
import { dataKey } from '../core/index.js';
import { fromENode, leafTypeOf } from './tensorLanguage.js';

/** Analysis data of one e-class. */
export interface TensorInfo {
  readonly shape: Shape;
  readonly dtype: DType;
  /** The value of every element, when known (finite values only). */
  readonly constant?: number;
}

/** Settings the tensor rules read from the analysis (so rule sets stay plain arrays). */
export interface TensorAnalysisOptions {
  /** Most distinct inputs of a fused pointwise kernel (storage buffers per stage minus the output); default 7. */
  readonly maxPointwiseInputs?: number;
  /** Most nodes of a fused pointwise expression tree; default 96. */
  readonly maxExprSize?: number;
}

const fmtType = (t: TensorInfo) => `${fmtShape(t.shape)}:${t.dtype}`;

/** The constant a node evaluates to when its operands are constants, following the interpreter's rules. */
function constantOf(node: ENode, attrs: OpAttrs[OpKind], kids: readonly TensorInfo[], out: TensorType): number | undefined {
  const op = node.op as OpKind;
  if (op === 'const') return (attrs as OpAttrs['const']).value;
  const vals = kids.map((k) => k.constant);
  if (vals.length === 0 || vals.some((v) => v === undefined)) return undefined;
  const v = vals as number[];
  let r: number | undefined;
  if (isUnary(op)) r = UNARY_FN[op](v[0]);
  else if (isBinary(op)) {
    const x = BINARY_FN[op](v[0], v[1]);
    r = out.dtype === 'f32' || (COMPARISON_OPS as readonly string[]).includes(op) ? x : x | 0;
  } else if (op === 'where') r = v[0] !== 0 ? v[1] : v[2];
  else if (op === 'cast') r = castScalar(v[0], out.dtype);
  else if (op === 'reshape' || op === 'expand' || op === 'transpose' || op === 'mean') r = v[0];
  else if (op === 'reduceMax') r = kids[0].shape.some((d) => d === 0) ? undefined : v[0];
  return r !== undefined && Number.isFinite(r) ? r : undefined;
}

/** The shape/dtype/constant analysis; also keeps which rules produced which fused e-nodes (provenance). */
export class TensorAnalysis implements Analysis<TensorInfo> {
  /** Most distinct inputs of a fused pointwise kernel. */
  readonly maxPointwiseInputs: number;
  /** Most nodes of a fused pointwise expression tree. */
  readonly maxExprSize: number;
  private readonly provenance = new Map<string, { cls: Id; rules: Set<string> }[]>();
  private readonly rootIds: Id[] = [];
  private readonly respecting = new Map<string, Id[]>();

  /** Makes an analysis with the given fusion limits. */
  constructor(opts: TensorAnalysisOptions = {}) {
    this.maxPointwiseInputs = opts.maxPointwiseInputs ?? 7;
    this.maxExprSize = opts.maxExprSize ?? 96;
  }

  /** Type (and constant) of a class holding only `node`; throws a GraphError for an ill-typed node. */
  make(egraph: EGraph<TensorInfo>, node: ENode): TensorInfo {
    const ir = fromENode(node);
    const declared = leafTypeOf(node);
    const kids = node.children.map((c) => egraph.eclass(c).data);
    const type = declared ?? inferType(ir.op, kids, ir.attrs);
    const constant = constantOf(node, ir.attrs, kids, type);
    return constant === undefined ? { shape: type.shape, dtype: type.dtype } : { shape: type.shape, dtype: type.dtype, constant };
  }

  /** Joins two classes' data; throws naming both types when shape or dtype differ. */
  merge(a: TensorInfo, b: TensorInfo): TensorInfo {
    if (!sameShape(a.shape, b.shape) || a.dtype !== b.dtype)
      throw new Error(`tensor analysis: cannot merge a class of type ${fmtType(a)} with one of type ${fmtType(b)}`);
    if (a.constant === undefined && b.constant !== undefined) return { ...a, constant: b.constant };
    return a; // two known constants may differ by rounding (reassociation); the first one stays
  }

  /** Marks classes that are materialised whatever is chosen (outputs, update values): fusion may stop there. */
  markRoots(ids: Iterable<Id>): void {
    for (const id of ids) this.rootIds.push(id);
  }

  /** Whether a class is a root (an output or update value, always materialised). */
  isRoot(egraph: EGraph<TensorInfo>, id: Id): boolean {
    const c = egraph.find(id);
    return this.rootIds.some((r) => egraph.find(r) === c);
  }

  /** Marks a pointwise node as reading roots rather than recomputing them (see the fusion rules). */
  markRootRespecting(cls: Id, node: ENode): void {
    const key = `${node.op}\u0001${dataKey(node.data)}\u0001${node.children.length}`;
    let list = this.respecting.get(key);
    if (!list) this.respecting.set(key, (list = []));
    list.push(cls);
  }

  /** Whether a node was marked by `markRootRespecting` (in this class). */
  isRootRespecting(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): boolean {
    const list = this.respecting.get(`${node.op}\u0001${dataKey(node.data)}\u0001${node.children.length}`);
    const c = egraph.find(cls);
    return list?.some((r) => egraph.find(r) === c) ?? false;
  }

  /** Records that `rules` produced `node` in class `cls` (for the report's kernel provenance). */
  record(cls: Id, node: ENode, rules: Iterable<string>): void {
    const key = `${node.op}\u0001${dataKey(node.data)}`;
    let list = this.provenance.get(key);
    if (!list) this.provenance.set(key, (list = []));
    list.push({ cls, rules: new Set(rules) });
  }

  /** The rules recorded for a node of this op and data in class `cls` (sorted, deduplicated). */
  rulesOf(egraph: EGraph<TensorInfo>, cls: Id, node: ENode): string[] {
    const list = this.provenance.get(`${node.op}\u0001${dataKey(node.data)}`);
    if (!list) return [];
    const root = egraph.find(cls);
    const out = new Set<string>();
    for (const r of list) if (egraph.find(r.cls) === root) for (const n of r.rules) out.add(n);
    return [...out].sort();
  }
}

/** The analysis data of a class (for rules and conditions). */
export function info(egraph: EGraph<TensorInfo>, id: Id): TensorInfo {
  return egraph.eclass(id).data;
}

/** The tensor analysis of an e-graph, or undefined when it runs another analysis. */
export function tensorAnalysisOf(egraph: EGraph<TensorInfo>): TensorAnalysis | undefined {
  return egraph.analysis instanceof TensorAnalysis ? egraph.analysis : undefined;
}

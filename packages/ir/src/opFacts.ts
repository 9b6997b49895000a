// The op-facts table: every per-op fact that is not a behaviour (inference, interpretation, VJP, WGSL live in
// their own exhaustive tables; kernel cost and legality in kernelCost.ts) is written here once, typed per op — its
// family, whether its output is an alias of its operand's storage, whether only fusion makes it, which operands
// hold i32 labels or indices with their bound, the primitive ops a fused kernel stands for, and its class in
// profiles. Every other package reads these facts instead of keeping its own list; `OP_KINDS`, `LEAF_OPS`,
// `FUSED_OPS` and `ALIAS_OPS` are derived from this table.
// Must stay data: no behaviour beyond the index bounds and the absorbed-op lists (read off attributes), no imports
// but types, the elementwise op lists and the expression walker.

import { perBinaryOp, perUnaryOp } from './elementwise.js';
import type { TensorType } from './inferCore.js';
import type { AttentionAttrs, AttentionGradAttrs, BinaryOp, OpAttrs, OpKind, RowStat, UnaryOp } from './ops.js';
import { type PwExpr, pwExprOps } from './pointwiseExpr.js';

/** What kind of op it is (drives generic handling: leaves are uploaded, elementwise ops fuse into pointwise). */
export type OpFamily =
  | 'leaf'
  | 'unary'
  | 'binary'
  | 'elementwise' // where, cast: elementwise but neither unary nor binary
  | 'reduce'
  | 'layout'
  | 'indexing'
  | 'linalg'
  | 'nn'
  | 'conv';

/** An operand that holds i32 class labels or indices into an axis; the host checks it when it is fed directly. */
export interface IndexOperand<K extends OpKind = OpKind> {
  /** Position in `node.inputs`. */
  readonly operand: number;
  /** `label`: a class id of a loss; `index`: a position along an axis of another operand. */
  readonly role: 'label' | 'index';
  /** The exclusive upper bound of valid values, from the node's attributes and its operands' types. */
  readonly bound: (attrs: OpAttrs[K], operands: readonly TensorType[]) => number;
  /** What the bound is, for error messages (e.g. `axis 0 of gather`). */
  readonly describe: (attrs: OpAttrs[K]) => string;
}

/** A kernel's class in profiles' by-class summary (runtime's `kernelClassOf`). */
export type KernelClass = 'matmul' | 'attention' | 'pointwise' | 'reduction' | 'softmax/CE' | 'layout copy' | 'gather/scatter' | 'elementwise/other';

/** Leaf op names. */
export type LeafOp = 'input' | 'param' | 'state' | 'const';

/** Leaves that carry a user-visible name. */
export type NamedLeafOp = 'input' | 'param' | 'state';

/**
 * Ops whose output is a view of operand 0's storage. Written as a type so that other packages' tables can
 * exclude them (`Exclude<OpKind, AliasOpKind>`); the `alias` fact below must agree, or OP_FACTS fails to compile.
 */
export type AliasOpKind = 'reshape' | 'after';

/** Ops that compute something on a device: neither leaves nor aliases. */
export type ComputeOp = Exclude<OpKind, LeafOp | AliasOpKind>;

/** The facts of one op. */
export interface OpFacts<K extends OpKind = OpKind> {
  /** The op's family (`leaf`, `elementwise`, `reduce`, …), which decides how passes treat it. */
  readonly family: K extends LeafOp ? 'leaf' : Exclude<OpFamily, 'leaf'>;
  /** The output is a view of operand 0's storage (same bytes, new shape): no kernel, no copy. */
  readonly alias: K extends AliasOpKind ? true : false;
  /** Only the e-graph's extraction creates it, after differentiation (it has no VJP). */
  readonly fused: boolean;
  /** Operands holding labels or indices (empty for most ops). */
  readonly indexOperands: readonly IndexOperand<K>[];
  /** Its value is a result that operand 0's kernel writes (`pick` of a multi-result op): no kernel of its own. */
  readonly resultOfOperand?: true;
  /** Its kernel's class in profiles. */
  readonly kernelClass: KernelClass;
  /**
   * The primitive ops a node of it stands for, from its attributes (the ones its fusion rules absorbed), when more
   * than itself: a registered kernel of any of them must not be hidden inside it (egraph's kernelBoundaries.ts).
   */
  readonly absorbs?: (attrs: OpAttrs[K]) => readonly OpKind[];
}

const NONE: readonly never[] = [];
type Family = Exclude<OpFamily, 'leaf'>;
const OTHER: KernelClass = 'elementwise/other';
const leaf: OpFacts<LeafOp> = { family: 'leaf', alias: false, fused: false, indexOperands: NONE, kernelClass: OTHER };
const un: OpFacts<ComputeOp> = { family: 'unary', alias: false, fused: false, indexOperands: NONE, kernelClass: OTHER };
const bin: OpFacts<ComputeOp> = { family: 'binary', alias: false, fused: false, indexOperands: NONE, kernelClass: OTHER };
const plain = (family: Family, kernelClass: KernelClass = OTHER): OpFacts<ComputeOp> => ({ family, alias: false, fused: false, indexOperands: NONE, kernelClass });
const fusedOp = (family: Family, kernelClass: KernelClass = OTHER): OpFacts<ComputeOp> => ({ family, alias: false, fused: true, indexOperands: NONE, kernelClass });
const exprsOps = (exprs: readonly PwExpr[], out = new Set<OpKind>()) => exprs.reduce((s, e) => pwExprOps(e, s), out);
const statsOps = (stats: readonly RowStat[], out: Set<OpKind>) => stats.reduce((s, st) => pwExprOps(st.post, pwExprOps(st.expr, s.add(st.reduce))), out);
/** An attention node also stands for the slices it reads its head window through (attention-head-window). */
const windowed = (a: AttentionAttrs): readonly OpKind[] => (a.window ? ['slice'] : []);
/** A gradient computing Δ from attention's output also stands for Δ's sum(mul(dOut, out)) (attention-delta-from-out). */
const delta = (a: AttentionGradAttrs): readonly OpKind[] => (a.deltaFromOut ? ['sum', 'mul'] : []);
const classes = (t: TensorType) => t.shape[t.shape.length - 1];

/** Labels of a class loss: operand `operand`, bounded by the classes of logits/log-probabilities operand 0. */
const labelsOf = <K extends OpKind>(operand: number, op: K): readonly IndexOperand<K>[] => [
  { operand, role: 'label', bound: (_a, ins) => classes(ins[0]), describe: () => `classes of ${op}` },
];
/** Indices along `attrs.axis` of operand 0 (gather's table, scatterAdd's target). */
const indicesOf = <K extends 'gather' | 'scatterAdd'>(op: K): readonly IndexOperand<K>[] => [
  { operand: 1, role: 'index', bound: (a, ins) => ins[0].shape[a.axis], describe: (a) => `axis ${a.axis} of ${op}` },
];

/** The facts of every op. Adding an op to `OtherOpAttrs` fails compilation until it has a row here. */
export const OP_FACTS: { readonly [K in OpKind]: OpFacts<K> } = {
  input: leaf,
  param: leaf,
  state: leaf,
  const: leaf,
  ...perUnaryOp(() => un), // unary and binary ops: their facts follow from their list (elementwise.ts)
  ...perBinaryOp(() => bin),
  where: plain('elementwise'),
  cast: plain('elementwise'),
  sum: plain('reduce', 'reduction'),
  mean: plain('reduce', 'reduction'),
  reduceMax: plain('reduce', 'reduction'),
  reduceMin: plain('reduce', 'reduction'),
  argmax: plain('reduce'),
  cumsum: plain('reduce'),
  reshape: { family: 'layout', alias: true, fused: false, indexOperands: NONE, kernelClass: OTHER },
  after: { family: 'layout', alias: true, fused: true, indexOperands: NONE, kernelClass: OTHER },
  transpose: plain('layout', 'layout copy'),
  expand: plain('layout', 'layout copy'),
  slice: plain('indexing', 'layout copy'),
  pad: plain('indexing', 'layout copy'),
  concat: plain('indexing', 'layout copy'),
  gather: { ...plain('indexing', 'gather/scatter'), indexOperands: indicesOf('gather') },
  scatterAdd: { ...plain('indexing', 'gather/scatter'), indexOperands: indicesOf('scatterAdd') },
  // labels outside [0, classes) give a zero row by definition (ignore_index is built on it): not checked
  oneHot: plain('indexing', 'gather/scatter'),
  stopGradient: plain('layout'),
  custom: plain('nn'),
  matmul: plain('linalg', 'matmul'),
  logSoftmax: plain('nn', 'softmax/CE'),
  logSoftmaxGrad: plain('nn', 'softmax/CE'),
  nll: { ...plain('nn', 'softmax/CE'), indexOperands: labelsOf(1, 'nll') },
  nllGrad: {
    ...plain('nn', 'softmax/CE'),
    indexOperands: [{ operand: 0, role: 'label', bound: (a) => a.classes, describe: () => 'classes of nllGrad' }],
  },
  attention: { ...plain('nn', 'attention'), absorbs: (a) => ['attention', ...windowed(a)] },
  attentionLse: { ...plain('nn', 'attention'), absorbs: (a) => ['attentionLse', ...windowed(a)] },
  attentionWithLse: { ...fusedOp('nn', 'attention'), absorbs: (a) => ['attention', 'attentionLse', ...windowed(a)] },
  attentionGradKV: { ...fusedOp('nn', 'attention'), absorbs: (a) => ['attentionGrad', ...delta(a), ...windowed(a)] },
  attentionGradQKV: { ...fusedOp('nn', 'attention'), absorbs: (a) => ['attentionGrad', 'concat', ...delta(a), ...windowed(a)] },
  attentionGrad: { ...plain('nn', 'attention'), absorbs: (a) => ['attentionGrad', ...delta(a), ...windowed(a)] },
  rope: plain('nn'),
  dropout: plain('nn'),
  conv2d: plain('conv'),
  conv2dGradInput: plain('conv'),
  conv2dGradWeight: plain('conv'),
  maxPool2d: plain('conv'),
  maxPool2dGrad: plain('conv'),
  maxPool2dIndices: plain('conv'),
  avgPool2d: plain('conv'),
  avgPool2dGrad: plain('conv'),
  fusedMatmul: { ...fusedOp('linalg', 'matmul'), absorbs: (a) => ['matmul', ...(a.bias ? (['add'] as const) : []), ...(a.activation === 'relu' ? (['relu'] as const) : [])] },
  matmulEpilogue: { ...fusedOp('linalg', 'matmul'), absorbs: (a) => ['matmul', ...pwExprOps(a.expr)] },
  matmulPartials: { ...fusedOp('linalg', 'matmul'), absorbs: () => ['matmul'] },
  matmulQ8: { ...plain('linalg', 'matmul'), absorbs: (a) => ['matmulQ8', ...(a.expr ? pwExprOps(a.expr) : [])] },
  matmulQ4: { ...plain('linalg', 'matmul'), absorbs: (a) => ['matmulQ4', ...(a.expr ? pwExprOps(a.expr) : [])] },
  pointwise: { ...fusedOp('elementwise', 'pointwise'), absorbs: (a) => [...pwExprOps(a.expr)] },
  pointwiseMulti: { ...fusedOp('elementwise'), absorbs: (a) => [...exprsOps(a.exprs)] },
  pointwiseMultiTensor: { ...fusedOp('elementwise'), absorbs: (a) => [...exprsOps(a.exprs)] },
  pointwiseReduce: { ...fusedOp('reduce', 'reduction'), absorbs: (a) => [a.reduce, ...pwExprOps(a.post, pwExprOps(a.expr))] },
  pointwiseReduceMulti: { ...fusedOp('reduce', 'reduction'), absorbs: (a) => [a.reduce, ...a.results.reduce((s, r) => pwExprOps(r.post, pwExprOps(r.expr, s)), new Set<OpKind>())] },
  rowwise: { ...fusedOp('reduce', 'reduction'), absorbs: (a) => [...statsOps(a.stats, pwExprOps(a.expr))] },
  rowwiseMulti: { ...fusedOp('reduce', 'reduction'), absorbs: (a) => [...statsOps(a.stats, exprsOps(a.exprs))] },
  pick: { ...fusedOp('layout'), resultOfOperand: true },
  softmaxCrossEntropy: { ...fusedOp('nn', 'softmax/CE'), indexOperands: labelsOf(1, 'softmaxCrossEntropy'), absorbs: () => ['logSoftmax', 'nll'] },
  softmaxCrossEntropyGrad: { ...fusedOp('nn', 'softmax/CE'), indexOperands: labelsOf(1, 'softmaxCrossEntropyGrad'), absorbs: () => ['logSoftmax', 'logSoftmaxGrad', 'nllGrad'] },
};

/** The facts of one op. */
export function factsOf<K extends OpKind>(op: K): OpFacts<K> {
  return OP_FACTS[op];
}

/** The primitive ops a node of `op` with these attributes stands for: its `absorbs` fact, else the op itself. */
export function absorbedOpsOf<K extends OpKind>(op: K, attrs: OpAttrs[K]): readonly OpKind[] {
  const absorbs = OP_FACTS[op].absorbs as OpFacts<K>['absorbs'];
  return absorbs ? absorbs(attrs) : [op];
}

/** Every op name, in the table's order (derived: never kept by hand). */
export const OP_KINDS: readonly OpKind[] = Object.keys(OP_FACTS) as OpKind[];

/** Leaves: ops with no inputs whose value comes from outside the computation. */
export const LEAF_OPS: readonly OpKind[] = OP_KINDS.filter((op) => OP_FACTS[op].family === 'leaf');

/** Ops produced only by fusion (the e-graph extracts them after differentiation: they have no VJP). */
export const FUSED_OPS: readonly OpKind[] = OP_KINDS.filter((op) => OP_FACTS[op].fused);

/** Ops whose output is a view of operand 0's storage (no kernel: the runtime aliases the buffer). */
export const ALIAS_OPS: readonly OpKind[] = OP_KINDS.filter((op) => OP_FACTS[op].alias);

/** Whether an op is a leaf (input, param, state, const). */
export function isLeafOp(op: OpKind): op is LeafOp {
  return OP_FACTS[op].family === 'leaf';
}

/** Whether an op's output is a view of operand 0's storage. */
export function isAliasOp(op: OpKind): boolean {
  return OP_FACTS[op].alias;
}

/** Whether an op runs a kernel on a device (everything but leaves, aliases and results of another node's kernel). */
export function needsKernel(op: OpKind): boolean {
  return OP_FACTS[op].family !== 'leaf' && !OP_FACTS[op].alias && !OP_FACTS[op].resultOfOperand;
}

/** Whether an op is an elementwise op of one operand. */
export function isUnary(op: OpKind): op is UnaryOp {
  return OP_FACTS[op].family === 'unary';
}

/** Whether an op is an elementwise op of two operands. */
export function isBinary(op: OpKind): op is BinaryOp {
  return OP_FACTS[op].family === 'binary';
}

/** Whether an op is elementwise (including `where`, `cast` and `pointwise`, which fuse into pointwise kernels). */
export function isElementwise(op: OpKind): boolean {
  const f = OP_FACTS[op].family;
  return f === 'unary' || f === 'binary' || f === 'elementwise';
}

/** Ops with an index operand, with the operand, its role and its bound for a node of this op. */
export function indexOperandsOf<K extends OpKind>(op: K): readonly IndexOperand<K>[] {
  return OP_FACTS[op].indexOperands;
}

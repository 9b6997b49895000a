// The op-facts table: every per-op fact that is not a behaviour (inference, interpretation, VJP, WGSL live in
// their own exhaustive tables; kernel cost and legality in kernelCost.ts) is written here once, typed per op — its
// family, whether its output is an alias of its operand's storage, whether only fusion makes it, and which operands
// hold i32 labels or indices with their bound. Every other package reads these facts instead of keeping its own
// list; `OP_KINDS`, `LEAF_OPS`, `FUSED_OPS` and `ALIAS_OPS` are derived from this table.
// Must stay data: no behaviour beyond the index bounds, no imports but types and the elementwise op lists.

import { perBinaryOp, perUnaryOp } from './elementwise.js';
import type { TensorType } from './inferCore.js';
import type { BinaryOp, OpAttrs, OpKind, UnaryOp } from './ops.js';

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
}

const NONE: readonly never[] = [];
type Family = Exclude<OpFamily, 'leaf'>;
const leaf: OpFacts<LeafOp> = { family: 'leaf', alias: false, fused: false, indexOperands: NONE };
const un: OpFacts<ComputeOp> = { family: 'unary', alias: false, fused: false, indexOperands: NONE };
const bin: OpFacts<ComputeOp> = { family: 'binary', alias: false, fused: false, indexOperands: NONE };
const plain = (family: Family): OpFacts<ComputeOp> => ({ family, alias: false, fused: false, indexOperands: NONE });
const fusedOp = (family: Family): OpFacts<ComputeOp> => ({ family, alias: false, fused: true, indexOperands: NONE });
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
  sum: plain('reduce'),
  mean: plain('reduce'),
  reduceMax: plain('reduce'),
  reduceMin: plain('reduce'),
  argmax: plain('reduce'),
  cumsum: plain('reduce'),
  reshape: { family: 'layout', alias: true, fused: false, indexOperands: NONE },
  after: { family: 'layout', alias: true, fused: true, indexOperands: NONE },
  transpose: plain('layout'),
  expand: plain('layout'),
  slice: plain('indexing'),
  pad: plain('indexing'),
  concat: plain('indexing'),
  gather: { ...plain('indexing'), indexOperands: indicesOf('gather') },
  scatterAdd: { ...plain('indexing'), indexOperands: indicesOf('scatterAdd') },
  // labels outside [0, classes) give a zero row by definition (ignore_index is built on it): not checked
  oneHot: plain('indexing'),
  stopGradient: plain('layout'),
  custom: plain('nn'),
  matmul: plain('linalg'),
  logSoftmax: plain('nn'),
  logSoftmaxGrad: plain('nn'),
  nll: { ...plain('nn'), indexOperands: labelsOf(1, 'nll') },
  nllGrad: {
    ...plain('nn'),
    indexOperands: [{ operand: 0, role: 'label', bound: (a) => a.classes, describe: () => 'classes of nllGrad' }],
  },
  attention: plain('nn'),
  attentionLse: plain('nn'),
  attentionWithLse: fusedOp('nn'),
  attentionGradKV: fusedOp('nn'),
  attentionGradQKV: fusedOp('nn'),
  attentionGrad: plain('nn'),
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
  fusedMatmul: fusedOp('linalg'),
  matmulEpilogue: fusedOp('linalg'),
  matmulPartials: fusedOp('linalg'),
  pointwise: fusedOp('elementwise'),
  pointwiseMulti: fusedOp('elementwise'),
  pointwiseMultiTensor: fusedOp('elementwise'),
  pointwiseReduce: fusedOp('reduce'),
  pointwiseReduceMulti: fusedOp('reduce'),
  rowwise: fusedOp('reduce'),
  rowwiseMulti: fusedOp('reduce'),
  pick: { ...fusedOp('layout'), resultOfOperand: true },
  softmaxCrossEntropy: { ...fusedOp('nn'), indexOperands: labelsOf(1, 'softmaxCrossEntropy') },
  softmaxCrossEntropyGrad: { ...fusedOp('nn'), indexOperands: labelsOf(1, 'softmaxCrossEntropyGrad') },
};

/** The facts of one op. */
export function factsOf<K extends OpKind>(op: K): OpFacts<K> {
  return OP_FACTS[op];
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

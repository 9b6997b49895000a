// The op-facts table: every per-op fact that is not a behaviour (inference, interpretation, VJP, WGSL live in
// their own exhaustive tables) is written here once, typed per op — its family, whether its output is an alias of
// its operand's storage, which operands hold i32 labels or indices and their bound, and its cost class. Every
// other package reads these facts instead of keeping its own list; `OP_KINDS` is derived from this table.
// Must stay data: no behaviour beyond the index bounds, no imports but types.

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

/**
 * How an op's work grows, for a cost model: `free` runs no kernel (leaves, aliases); `movement` copies or routes
 * elements (no arithmetic); `elementwise` a few flops per output; `transcendental` one builtin such as exp per
 * output; `reduction` work per input element; `contraction` shape-dependent products (matmul, attention, conv);
 * `window` one tap per pooled output and window element.
 */
export type CostClass = 'free' | 'movement' | 'elementwise' | 'transcendental' | 'reduction' | 'contraction' | 'window';

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
export type AliasOpKind = 'reshape';

/** Ops that compute something on a device: neither leaves nor aliases. */
export type ComputeOp = Exclude<OpKind, LeafOp | AliasOpKind>;

/** The facts of one op. */
export interface OpFacts<K extends OpKind = OpKind> {
  readonly family: K extends LeafOp ? 'leaf' : Exclude<OpFamily, 'leaf'>;
  /** The output is a view of operand 0's storage (same bytes, new shape): no kernel, no copy. */
  readonly alias: K extends AliasOpKind ? true : false;
  /** Only the e-graph's extraction creates it (autograd still has a VJP for it). */
  readonly fused: boolean;
  readonly cost: CostClass;
  /** Operands holding labels or indices (empty for most ops). */
  readonly indexOperands: readonly IndexOperand<K>[];
}

const NONE: readonly never[] = [];
type Family = Exclude<OpFamily, 'leaf'>;
const leaf: OpFacts<LeafOp> = { family: 'leaf', alias: false, fused: false, cost: 'free', indexOperands: NONE };
const un = (cost: CostClass): OpFacts<ComputeOp> => ({ family: 'unary', alias: false, fused: false, cost, indexOperands: NONE });
const bin = (cost: CostClass): OpFacts<ComputeOp> => ({ family: 'binary', alias: false, fused: false, cost, indexOperands: NONE });
const plain = (family: Family, cost: CostClass): OpFacts<ComputeOp> => ({ family, alias: false, fused: false, cost, indexOperands: NONE });
const fusedOp = (family: Family, cost: CostClass): OpFacts<ComputeOp> => ({ family, alias: false, fused: true, cost, indexOperands: NONE });
const classes = (t: TensorType) => t.shape[t.shape.length - 1];

/** Labels of a class loss: operand `operand`, bounded by the classes of logits/log-probabilities operand 0. */
const labelsOf = <K extends OpKind>(operand: number, op: K): readonly IndexOperand<K>[] => [
  { operand, role: 'label', bound: (_a, ins) => classes(ins[0]), describe: () => `classes of ${op}` },
];
/** Indices along `attrs.axis` of operand 0 (gather's table, scatterAdd's target). */
const indicesOf = <K extends 'gather' | 'scatterAdd'>(op: K): readonly IndexOperand<K>[] => [
  { operand: 1, role: 'index', bound: (a, ins) => ins[0].shape[a.axis], describe: (a) => `axis ${a.axis} of ${op}` },
];

/** The facts of every op. Adding an op to `OpAttrs` fails compilation until it has a row here. */
export const OP_FACTS: { readonly [K in OpKind]: OpFacts<K> } = {
  input: leaf,
  param: leaf,
  state: leaf,
  const: leaf,
  neg: un('elementwise'),
  abs: un('elementwise'),
  exp: un('transcendental'),
  log: un('transcendental'),
  sqrt: un('transcendental'),
  rsqrt: un('transcendental'),
  recip: un('elementwise'),
  square: un('elementwise'),
  relu: un('elementwise'),
  sigmoid: un('transcendental'),
  tanh: un('transcendental'),
  sin: un('transcendental'),
  cos: un('transcendental'),
  erf: un('transcendental'),
  gelu: un('transcendental'),
  geluTanh: un('transcendental'),
  silu: un('transcendental'),
  softplus: un('transcendental'),
  add: bin('elementwise'),
  sub: bin('elementwise'),
  mul: bin('elementwise'),
  div: bin('elementwise'),
  max: bin('elementwise'),
  min: bin('elementwise'),
  pow: bin('transcendental'),
  gt: bin('elementwise'),
  ge: bin('elementwise'),
  lt: bin('elementwise'),
  le: bin('elementwise'),
  eq: bin('elementwise'),
  where: plain('elementwise', 'elementwise'),
  cast: plain('elementwise', 'elementwise'),
  sum: plain('reduce', 'reduction'),
  mean: plain('reduce', 'reduction'),
  reduceMax: plain('reduce', 'reduction'),
  reduceMin: plain('reduce', 'reduction'),
  argmax: plain('reduce', 'reduction'),
  reshape: { family: 'layout', alias: true, fused: false, cost: 'free', indexOperands: NONE },
  transpose: plain('layout', 'movement'),
  expand: plain('layout', 'movement'),
  slice: plain('indexing', 'movement'),
  pad: plain('indexing', 'movement'),
  concat: plain('indexing', 'movement'),
  gather: { ...plain('indexing', 'movement'), indexOperands: indicesOf('gather') },
  scatterAdd: { ...plain('indexing', 'reduction'), indexOperands: indicesOf('scatterAdd') },
  // labels outside [0, classes) give a zero row by definition (ignore_index is built on it): not checked
  oneHot: plain('indexing', 'movement'),
  stopGradient: plain('layout', 'movement'),
  matmul: plain('linalg', 'contraction'),
  logSoftmax: plain('nn', 'reduction'),
  logSoftmaxGrad: plain('nn', 'reduction'),
  nll: { ...plain('nn', 'reduction'), indexOperands: labelsOf(1, 'nll') },
  nllGrad: {
    ...plain('nn', 'elementwise'),
    indexOperands: [{ operand: 0, role: 'label', bound: (a) => a.classes, describe: () => 'classes of nllGrad' }],
  },
  attention: plain('nn', 'contraction'),
  attentionGrad: plain('nn', 'contraction'),
  rope: plain('nn', 'transcendental'),
  dropout: plain('nn', 'elementwise'),
  conv2d: plain('conv', 'contraction'),
  conv2dGradInput: plain('conv', 'contraction'),
  conv2dGradWeight: plain('conv', 'contraction'),
  maxPool2d: plain('conv', 'window'),
  maxPool2dGrad: plain('conv', 'window'),
  avgPool2d: plain('conv', 'window'),
  avgPool2dGrad: plain('conv', 'window'),
  fusedMatmul: fusedOp('linalg', 'contraction'),
  pointwise: fusedOp('elementwise', 'elementwise'),
  softmaxCrossEntropy: { ...fusedOp('nn', 'reduction'), indexOperands: labelsOf(1, 'softmaxCrossEntropy') },
  softmaxCrossEntropyGrad: { ...fusedOp('nn', 'reduction'), indexOperands: labelsOf(1, 'softmaxCrossEntropyGrad') },
};

/** The facts of one op. */
export function factsOf<K extends OpKind>(op: K): OpFacts<K> {
  return OP_FACTS[op];
}

/** Every op name, in the table's order (derived: never kept by hand). */
export const OP_KINDS: readonly OpKind[] = Object.keys(OP_FACTS) as OpKind[];

/** Leaves: ops with no inputs whose value comes from outside the computation. */
export const LEAF_OPS: readonly OpKind[] = OP_KINDS.filter((op) => OP_FACTS[op].family === 'leaf');

/** Ops produced only by fusion (the e-graph extracts them; autograd still has VJPs for them). */
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

/** Whether an op runs a kernel on a device (everything but leaves and aliases). */
export function needsKernel(op: OpKind): boolean {
  return OP_FACTS[op].cost !== 'free';
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

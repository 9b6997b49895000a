// The autocast pass of `precision: 'mixed'`: a copy of the forward graph with explicit casts, so that matmul inputs
// and outputs are f16 in memory and numerically sensitive ops run in f32 — PyTorch autocast's op lists, as one table.
// Runs before autodiff (the cast's VJP casts back, so f32 params get f32 gradients); parameters stay f32 masters, their
// cast to f16 is part of the step. Must not change the caller's graph; outputs and state updates keep their dtypes.

import { type DType, Graph, isFloat, type Node, type NodeId, type OpKind, perBinaryOp, perUnaryOp, type Tensor } from '@neura/ir';

/**
 * What autocast does at an op (PyTorch's names in brackets):
 * - `f16`: float operands cast to f16, result f16 [autocast_to_fp16 list: mm, matmul, linear, conv, baddbmm…];
 * - `f32`: float operands cast to f32 [autocast_to_fp32 list: exp, log, pow, softmax, log_softmax, sum, layer_norm,
 *   losses…], and ops whose kernels take f32 only for now;
 * - `promote`: runs in its operands' dtype; mixed f16/f32 operands run in f32 [promote list], except that an f32
 *   operand computed only from parameters and constants (a bias, a LayerNorm weight) is cast to f16 instead, as
 *   F.linear(x, w, b) casts its bias: so `matmul + bias` and the GELU after it stay f16;
 * - `leaf`: graph inputs, parameters, state and constants, copied as they are.
 */
export type CastPolicy = 'f16' | 'f32' | 'promote' | 'leaf';

/** The autocast policy of every op (exhaustive: a new op fails to compile until it is placed). */
export const AUTOCAST_POLICY: { readonly [K in OpKind]: CastPolicy } = {
  input: 'leaf',
  param: 'leaf',
  state: 'leaf',
  const: 'leaf',
  // elementwise: in the operands' dtype, except PyTorch's fp32 list
  ...perUnaryOp((): CastPolicy => 'promote'),
  ...perBinaryOp((): CastPolicy => 'promote'),
  exp: 'f32',
  log: 'f32',
  rsqrt: 'f32',
  recip: 'f32',
  softplus: 'f32',
  pow: 'f32',
  where: 'promote',
  cast: 'promote', // an explicit cast is the user's choice: kept
  // reductions and scans accumulate in f32
  sum: 'f32',
  mean: 'f32',
  reduceMax: 'f32',
  reduceMin: 'f32',
  cumsum: 'f32',
  argmax: 'f32',
  // layout and indexing move values: any dtype
  reshape: 'promote',
  after: 'promote',
  transpose: 'promote',
  expand: 'promote',
  slice: 'promote',
  pad: 'promote',
  concat: 'promote',
  gather: 'promote',
  scatterAdd: 'f32',
  oneHot: 'promote',
  stopGradient: 'promote',
  // tensor-core ops: f16 in, f16 out (f32 accumulation inside the kernel)
  matmul: 'f16',
  fusedMatmul: 'f16',
  matmulEpilogue: 'f16',
  matmulPartials: 'f16',
  matmulQ4: 'f32', // as matmulQ8
  matmulQ8: 'f32', // its kernel reads f32 activations (the weight is int8 already)
  // softmax statistics, norms and losses: f32
  logSoftmax: 'f32',
  logSoftmaxGrad: 'f32',
  nll: 'f32',
  nllGrad: 'f32',
  softmaxCrossEntropy: 'f32',
  softmaxCrossEntropyGrad: 'f32',
  rowwise: 'f32',
  rowwiseMulti: 'f32',
  // f16 in PyTorch's lists, f32 here until their kernels take f16 (f16Storage.ts in wgsl-kernels refuses them)
  attention: 'f32',
  attentionLse: 'f32',
  attentionWithLse: 'f32',
  attentionGrad: 'f32',
  attentionGradKV: 'f32',
  attentionGradQKV: 'f32',
  conv2d: 'f32',
  conv2dGradInput: 'f32',
  conv2dGradWeight: 'f32',
  maxPool2d: 'f32',
  maxPool2dGrad: 'f32',
  maxPool2dIndices: 'f32',
  avgPool2d: 'f32',
  avgPool2dGrad: 'f32',
  rope: 'f32',
  dropout: 'f32',
  custom: 'f32', // a user's kernel is written for f32
  // fused ops are made by the optimizer after autocast: should one be in a forward graph, it runs as written
  pointwise: 'f32',
  pointwiseMulti: 'f32',
  pointwiseMultiTensor: 'f32',
  pointwiseReduce: 'f32',
  pointwiseReduceMulti: 'f32',
  pick: 'promote',
};

/** Ops of one operand that only move or repeat values: a cast of their result is their result of the cast. */
const MOVES: ReadonlySet<OpKind> = new Set<OpKind>(['reshape', 'transpose', 'expand', 'slice']);

/** What `autocast` returns: the cast copy and its loss. */
export interface Autocast {
  /** The forward graph with casts (a new graph). */
  readonly graph: Graph;
  /** The loss in the new graph (f32). */
  readonly loss: Tensor;
}

/**
 * A copy of `forward` with PyTorch autocast's casts (see AUTOCAST_POLICY), and its loss. Graph outputs and state
 * updates are cast back to the dtype they had, so callers read what they built.
 */
export function autocast(forward: Graph, loss: Tensor): Autocast {
  const { graph, of, castTo } = castCopy(forward);
  return { graph, loss: castTo(of(loss.id), 'f32') };
}

/**
 * A copy of a model graph (no loss: compileInference's) with autocast's casts; its outputs and state updates keep
 * the dtypes they had.
 */
export function autocastModel(forward: Graph): Graph {
  return castCopy(forward).graph;
}

/** The cast copy of `forward`, the copy of each node (`of`), and the cast builder (see `autocast`). */
function castCopy(forward: Graph): { graph: Graph; of: (id: NodeId) => Tensor; castTo: (t: Tensor, to: DType) => Tensor } {
  const g = new Graph();
  const map = new Map<NodeId, Tensor>();
  // whether a node's value comes from parameters and constants only (a weight, not an activation)
  const weightLike = new Map<NodeId, boolean>();
  const castTo = (t: Tensor, to: DType): Tensor => {
    if (t.dtype === to || !isFloat(t.dtype)) return t;
    if (t.op === 'const') return g.constant(t.attrs.value as number, t.shape, to);
    // a cast commutes with ops that only move values: cast their source, so that a layout chain (the heads split
    // off a QKV projection) reaches the cast's consumer in its dtype and the optimizer's layout rules still see it
    if (MOVES.has(t.op)) return g.node(t.op, [castTo(g.get(t.inputs[0]), to)], t.attrs as never);
    return g.cast(t, to);
  };
  for (const n of forward.nodes) {
    const ins = n.inputs.map((i) => map.get(i) as Tensor);
    weightLike.set(n.id, n.op === 'param' || n.op === 'const' || (n.inputs.length > 0 && n.op !== 'state' && n.inputs.every((i) => weightLike.get(i))));
    map.set(n.id, rebuild(g, n, ins, castTo, (k) => weightLike.get(n.inputs[k]) === true));
  }
  for (const [name, id] of forward.outputs) g.output(name, castTo(map.get(id) as Tensor, forward.nodes[id].dtype));
  for (const u of forward.updates) g.update(map.get(u.state) as Tensor, castTo(map.get(u.value) as Tensor, forward.nodes[u.value].dtype));
  return { graph: g, of: (id) => map.get(id) as Tensor, castTo };
}

/** Node `n` in `g` over its new operands, with the casts its policy asks for. */
function rebuild(g: Graph, n: Node, ins: readonly Tensor[], castTo: (t: Tensor, to: DType) => Tensor, weight: (k: number) => boolean): Tensor {
  const policy: CastPolicy = AUTOCAST_POLICY[n.op];
  switch (policy) {
    case 'leaf':
      return leaf(g, n);
    case 'f16':
    case 'f32':
      return g.node(n.op, ins.map((t) => castTo(t, policy)), n.attrs);
    case 'promote': {
      if (n.op === 'cast' || !ins.some((t) => t.dtype === 'f16')) return g.node(n.op, ins, n.attrs);
      // f16 next to f32: activations promote to f32; parameter-only operands join the f16 side instead
      const activationF32 = ins.some((t, k) => t.dtype === 'f32' && !weight(k));
      return g.node(n.op, ins.map((t) => castTo(t, activationF32 ? 'f32' : 'f16')), n.attrs);
    }
    default:
      return policy satisfies never;
  }
}

/** A leaf of the forward graph, declared again in `g` (same name, shape, dtype and init). */
function leaf(g: Graph, n: Node): Tensor {
  switch (n.op) {
    case 'input':
      return g.input((n as Node<'input'>).attrs.name, n.shape, n.dtype);
    case 'param':
      return g.param((n as Node<'param'>).attrs.name, n.shape, (n as Node<'param'>).attrs.init);
    case 'state':
      return g.state((n as Node<'state'>).attrs.name, n.shape, (n as Node<'state'>).attrs.init, n.dtype);
    default:
      return g.constant((n as Node<'const'>).attrs.value, n.shape, n.dtype);
  }
}

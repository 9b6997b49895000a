// The VJP table: for every ir op, how an upstream gradient `g` (shaped like the op's output) becomes
// gradients of its operands. Rules build only existing ir ops, never a transpose for matmul (flags instead),
// and never a fused op (fused ops are made after differentiation and have no VJP). Every returned gradient
// has exactly its operand's shape (broadcasts are summed away with `sumToShape`); the engine checks this.

import { GELU_TANH_K, type Graph, GraphError, isFloat, type Node, type OpKind, type Tensor } from '@neura/ir';
import { customVjp } from './customVjp.js';
import { sumToShape } from './sumToShape.js';

/** What a VJP rule sees: the forward node, its operands, the upstream gradient and which operands need one. */
export interface VjpContext<K extends OpKind> {
  /** The graph the backward nodes are appended to. */
  readonly graph: Graph;
  /** The forward node being differentiated (its value is available as a tensor: `node` itself). */
  readonly node: Node<K>;
  /** The forward node's operands, in order. */
  readonly inputs: readonly Node[];
  /** The upstream gradient, shaped like `node`. */
  readonly g: Tensor;
  /** Whether operand i needs a gradient (f32 and depending on something differentiated); rules may skip others. */
  readonly needs: readonly boolean[];
}

/** A rule: one gradient (or `undefined` for none) per operand. */
export type VjpFn<K extends OpKind> = (ctx: VjpContext<K>) => readonly (Tensor | undefined)[];

/**
 * How an op is differentiated: `leaf` (no operands), `noGradient` (its output carries no gradient, e.g. a
 * boolean comparison: the gradient stops silently), `notDifferentiable` (reaching it with a gradient is an
 * error) or a `rule`.
 */
export type Vjp<K extends OpKind> =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'noGradient'; readonly why: string }
  | { readonly kind: 'notDifferentiable'; readonly why: string }
  | { readonly kind: 'rule'; readonly fn: VjpFn<K> };

const LEAF = { kind: 'leaf' } as const;
const noGradient = (why: string) => ({ kind: 'noGradient', why }) as const;
const notDifferentiable = (why: string) => ({ kind: 'notDifferentiable', why }) as const;
const rule = <K extends OpKind>(fn: VjpFn<K>): Vjp<K> => ({ kind: 'rule', fn });

/**
 * A unary rule from `dx = f(graph, g, x, y)`. For an f16 op the derivative is computed in f32 and rounded to f16
 * once, as PyTorch's half backward kernels (gelu_backward, tanh_backward…) compute in float: not op by op in f16.
 */
const unary = (f: (G: Graph, g: Tensor, x: Tensor, y: Tensor) => Tensor): Vjp<OpKind> =>
  rule<OpKind>(({ graph: G, g, inputs, node }) => {
    if (inputs[0].dtype !== 'f16') return [f(G, g, inputs[0], node)];
    const up = (t: Tensor) => G.cast(t, 'f32');
    return [G.cast(f(G, up(g), up(inputs[0]), up(node)), 'f16')];
  });

type BinaryGrad = (G: Graph, g: Tensor, a: Tensor, b: Tensor, y: Tensor) => Tensor;

/** A binary rule: each side computed only when needed, then summed back over broadcast axes. */
const binary = (da: BinaryGrad, db: BinaryGrad): Vjp<OpKind> =>
  rule<OpKind>(({ graph, g, inputs: [a, b], node, needs }) => [
    needs[0] ? sumToShape(graph, da(graph, g, a, b, node), a.shape) : undefined,
    needs[1] ? sumToShape(graph, db(graph, g, a, b, node), b.shape) : undefined,
  ]);

/** A boolean mask as 0/1 in the dtype of the gradient it multiplies (f32, or f16 in an autocast graph). */
const f32 = (G: Graph, mask: Tensor, like?: Tensor) => G.cast(mask, like?.dtype ?? 'f32');

/**
 * Gradient routing for `max` (`min` with `lt`): the winner gets g; on a tie each side gets g/2, as
 * PyTorch's `maximum`/`minimum` do, so the two halves still sum to g.
 */
const pick =
  (win: 'gt' | 'lt', side: 0 | 1): BinaryGrad =>
  (G, g, a, b) => {
    const wins = side === 0 ? G[win](a, b) : G[win](b, a);
    return G.where(wins, g, G.where(G.eq(a, b), G.mul(g, 0.5), 0));
  };

/** Shape of `x` with the reduced axes kept as 1. */
const keptShape = (x: Tensor, axes: readonly number[]) => x.shape.map((d, i) => (axes.includes(i) ? 1 : d));

/** Spreads a reduced gradient back over the reduced axes. */
const unreduce = (G: Graph, g: Tensor, x: Tensor, axes: readonly number[]) => G.expand(G.reshape(g, keptShape(x, axes)), x.shape);

/**
 * Gradients of `op(a)·op(b)` for each transpose flag, as matmuls with flags (no transpose is built); batched
 * products give batched gradients, reduced over the batch axes each operand was broadcast along.
 */
function matmulGrads(G: Graph, g: Tensor, a: Tensor, b: Tensor, transA: boolean, transB: boolean, needs: readonly boolean[]) {
  let da: Tensor | undefined;
  let db: Tensor | undefined;
  if (!transA && !transB) {
    if (needs[0]) da = G.matmul(g, b, { transB: true }); // g·bᵀ
    if (needs[1]) db = G.matmul(a, g, { transA: true }); // aᵀ·g
  } else if (!transA && transB) {
    if (needs[0]) da = G.matmul(g, b); // g·b
    if (needs[1]) db = G.matmul(g, a, { transA: true }); // (aᵀ·g)ᵀ = gᵀ·a
  } else if (transA && !transB) {
    if (needs[0]) da = G.matmul(b, g, { transB: true }); // (g·bᵀ)ᵀ = b·gᵀ
    if (needs[1]) db = G.matmul(a, g); // a·g
  } else {
    if (needs[0]) da = G.matmul(b, g, { transA: true, transB: true }); // (g·b)ᵀ = bᵀ·gᵀ
    if (needs[1]) db = G.matmul(g, a, { transA: true, transB: true }); // (a·g)ᵀ = gᵀ·aᵀ
  }
  // batch axes a or b was broadcast along are summed away (a no-op for unbatched operands)
  return [da && sumToShape(G, da, a.shape), db && sumToShape(G, db, b.shape)] as const;
}

const comparison = noGradient('comparisons produce a bool mask, which carries no gradient');
const secondOrder = notDifferentiable('it is a backward op, and second-order gradients are not supported');
const fusedOnly = notDifferentiable('it is a fused op made by the optimizer after differentiation: differentiate the primitives, then optimize');

/** The VJP of every op (exhaustive: a new op in ir fails to compile until it has an entry). */
export const VJPS: { [K in OpKind]: Vjp<K> } = {
  input: LEAF,
  param: LEAF,
  state: LEAF,
  const: LEAF,
  neg: unary((G, g) => G.neg(g)),
  abs: unary((G, g, x) => G.mul(g, G.sub(f32(G, G.gt(x, 0), g), f32(G, G.lt(x, 0), g)))), // sign(x); 0 at 0
  exp: unary((G, g, _x, y) => G.mul(g, y)),
  log: unary((G, g, x) => G.div(g, x)),
  sqrt: unary((G, g, _x, y) => G.div(g, G.mul(y, 2))),
  rsqrt: unary((G, g, _x, y) => G.mul(g, G.mul(G.mul(y, G.square(y)), -0.5))), // d x^-1/2 = -x^-3/2 / 2
  recip: unary((G, g, _x, y) => G.neg(G.mul(g, G.square(y)))),
  square: unary((G, g, x) => G.mul(g, G.mul(x, 2))),
  relu: unary((G, g, x) => G.mul(g, f32(G, G.gt(x, 0), g))), // subgradient 0 at 0
  sigmoid: unary((G, g, _x, y) => G.mul(g, G.mul(y, G.sub(1, y)))),
  tanh: unary((G, g, _x, y) => G.mul(g, G.sub(1, G.square(y)))),
  sin: unary((G, g, x) => G.mul(g, G.cos(x))),
  cos: unary((G, g, x) => G.neg(G.mul(g, G.sin(x)))),
  erf: unary((G, g, x) => G.mul(g, G.mul(G.exp(G.neg(G.square(x))), 2 / Math.sqrt(Math.PI)))),
  // d/dx x·Φ(x) = Φ(x) + x·φ(x), Φ(x) = (1 + erf(x/√2))/2, φ(x) = e^(−x²/2)/√(2π)
  gelu: unary((G, g, x) => {
    const cdf = G.mul(G.add(G.erf(G.mul(x, Math.SQRT1_2)), 1), 0.5);
    const pdf = G.mul(G.exp(G.mul(G.square(x), -0.5)), 1 / Math.sqrt(2 * Math.PI));
    return G.mul(g, G.add(cdf, G.mul(x, pdf)));
  }),
  // with t = tanh(k(x + c·x³)): (1 + t)/2 + x/2·(1 − t²)·k(1 + 3c·x²)
  geluTanh: unary((G, g, x) => {
    const t = G.tanh(G.mul(G.add(x, G.mul(G.mul(x, G.square(x)), 0.044715)), GELU_TANH_K));
    const dt = G.mul(G.sub(1, G.square(t)), G.mul(G.add(G.mul(G.square(x), 3 * 0.044715), 1), GELU_TANH_K));
    return G.mul(g, G.add(G.mul(G.add(t, 1), 0.5), G.mul(G.mul(x, 0.5), dt)));
  }),
  silu: unary((G, g, x) => {
    const s = G.sigmoid(x);
    return G.mul(g, G.mul(s, G.add(G.mul(x, G.sub(1, s)), 1))); // s·(1 + x(1 − s))
  }),
  softplus: unary((G, g, x) => G.mul(g, G.sigmoid(x))),
  add: binary(
    (_G, g) => g,
    (_G, g) => g,
  ),
  sub: binary(
    (_G, g) => g,
    (G, g) => G.neg(g),
  ),
  mul: binary(
    (G, g, _a, b) => G.mul(g, b),
    (G, g, a) => G.mul(g, a),
  ),
  div: binary(
    (G, g, _a, b) => G.div(g, b),
    (G, g, _a, b, y) => G.neg(G.div(G.mul(g, y), b)), // -g·a/b² = -g·y/b
  ),
  max: binary(pick('gt', 0), pick('gt', 1)),
  min: binary(pick('lt', 0), pick('lt', 1)),
  pow: binary(
    (G, g, a, b) => G.mul(g, G.mul(b, G.pow(a, G.sub(b, 1)))),
    (G, g, a, _b, y) => G.mul(g, G.mul(y, G.log(a))), // NaN for a < 0, as in PyTorch
  ),
  gt: comparison,
  ge: comparison,
  lt: comparison,
  le: comparison,
  eq: comparison,
  where: rule(({ graph: G, g, inputs: [c, a, b], needs }) => [
    undefined,
    needs[1] ? sumToShape(G, G.where(c, g, 0), a.shape) : undefined,
    needs[2] ? sumToShape(G, G.where(c, 0, g), b.shape) : undefined,
  ]),
  // a float → float cast passes the gradient cast back to the operand's dtype (f16 ↔ f32 under autocast, as torch's
  // `.half()` backward); casts to or from i32/bool stop it (not a float = not active)
  cast: rule(({ graph: G, g, inputs: [x], node }) => [isFloat(x.dtype) && isFloat(node.dtype) ? G.cast(g, x.dtype) : undefined]),
  sum: rule(({ graph: G, g, inputs: [x], node }) => [unreduce(G, g, x, node.attrs.axes)]),
  mean: rule(({ graph: G, g, inputs: [x], node }) => {
    const count = node.attrs.axes.reduce((p, ax) => p * x.shape[ax], 1);
    return [G.mul(unreduce(G, g, x, node.attrs.axes), 1 / count)];
  }),
  // g is shared equally among tied maxima (as torch.amax does), so the routed gradient always sums to g
  reduceMax: rule(({ graph: G, g, inputs: [x], node }) => {
    const kept = keptShape(x, node.attrs.axes);
    const mask = f32(G, G.eq(x, G.reshape(node, kept)), g);
    const ties = G.sum(mask, node.attrs.axes, true);
    return [G.mul(mask, G.div(G.reshape(g, kept), ties))];
  }),
  reduceMin: rule(({ graph: G, g, inputs: [x], node }) => {
    const kept = keptShape(x, node.attrs.axes);
    const mask = f32(G, G.eq(x, G.reshape(node, kept)), g);
    const ties = G.sum(mask, node.attrs.axes, true);
    return [G.mul(mask, G.div(G.reshape(g, kept), ties))];
  }),
  argmax: noGradient('argmax gives i32 indices, which carry no gradient'),
  // y_i = Σ_{j ≤ i} x_j, so dx_j = Σ_{i ≥ j} g_i: the scan the other way (an i32 cumsum is never on a gradient path)
  cumsum: rule(({ graph: G, g, node }) => [G.cumsum(g, node.attrs.axis, { reverse: !node.attrs.reverse })]),
  reshape: rule(({ graph: G, g, inputs: [x] }) => [G.reshape(g, x.shape)]),
  transpose: rule(({ graph: G, g, node }) => {
    const inverse = new Array<number>(node.attrs.perm.length);
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
    return [G.node('pad', [g], { before: [...starts], after, interior: steps.map((s) => s - 1), value: 0 })];
  }),
  pad: rule(({ graph: G, g, inputs: [x], node }) => {
    const { before, interior } = node.attrs;
    const ends = x.shape.map((d, i) => (d === 0 ? before[i] : before[i] + (d - 1) * (interior[i] + 1) + 1));
    return [G.node('slice', [g], { starts: [...before], ends, steps: interior.map((v) => v + 1) })];
  }),
  concat: rule(({ graph: G, g, inputs, node, needs }) => {
    const { axis } = node.attrs;
    let at = 0;
    return inputs.map((x, k) => {
      const from = at;
      at += x.shape[axis];
      if (!needs[k]) return undefined;
      return G.slice(g, g.shape.map((_, i) => (i === axis ? from : 0)), g.shape.map((d, i) => (i === axis ? from + x.shape[axis] : d)));
    });
  }),
  gather: rule(({ graph: G, g, inputs: [table, indices], node }) => [
    G.scatterAdd(G.constant(0, table.shape), indices, g, node.attrs.axis),
    undefined,
  ]),
  scatterAdd: rule(({ graph: G, g, inputs: [, indices], node, needs }) => [
    needs[0] ? g : undefined,
    undefined,
    needs[2] ? G.gather(g, indices, node.attrs.axis) : undefined,
  ]),
  oneHot: noGradient('oneHot reads i32 labels'),
  stopGradient: noGradient('stopGradient blocks the gradient by definition'),
  custom: rule(({ graph, node, inputs, g, needs }) => {
    const { name, params } = node.attrs;
    const vjp = customVjp(name);
    if (!vjp) throw new GraphError(`custom op '${name}' has no vjp: register one (registerCustomVjp, or customOp's vjp) to differentiate through it`, 'custom', node.site);
    const grads = vjp({ graph, node, inputs, g, params, needs });
    if (grads.length !== inputs.length) throw new GraphError(`custom op '${name}': its vjp returned ${grads.length} gradients for ${inputs.length} operands`, 'custom', node.site);
    return grads;
  }),
  matmul: rule(({ graph: G, g, inputs: [a, b], node, needs }) => matmulGrads(G, g, a, b, node.attrs.transA, node.attrs.transB, needs)),
  logSoftmax: rule(({ graph: G, g, node }) => [G.node('logSoftmaxGrad', [node, g], { axis: node.attrs.axis })]),
  logSoftmaxGrad: secondOrder,
  // labels are i32: never differentiated
  nll: rule(({ graph: G, g, inputs: [logp, labels], node }) => [
    G.node('nllGrad', [labels, g], { reduction: node.attrs.reduction, classes: logp.shape[1] }),
    undefined,
  ]),
  nllGrad: secondOrder,
  // flash-attention style (no T×T tensor): the scores' log-sum-exp L and Δ = rowsum(g ⊙ out) once, then one
  // backward op per operand recomputing P = exp(s − L) from them (the e-graph may share L with the forward kernel)
  attention: rule(({ graph: G, g, inputs: [q, k, v], node, needs }) => {
    const lse = G.node('attentionLse', [q, k], node.attrs);
    const delta = G.sum(G.mul(g, node), -1);
    return (['q', 'k', 'v'] as const).map((wrt, i) => (needs[i] ? G.node('attentionGrad', [q, k, v, g, lse, delta], { ...node.attrs, wrt }) : undefined));
  }),
  attentionLse: secondOrder,
  attentionGrad: secondOrder,
  attentionWithLse: fusedOnly,
  attentionGradKV: fusedOnly,
  attentionGradQKV: fusedOnly,
  conv2d: rule(({ graph: G, g, inputs: [x, w], node, needs }) => [
    needs[0] ? G.node('conv2dGradInput', [g, w], { ...node.attrs, inputSize: [x.shape[2], x.shape[3]] }) : undefined,
    needs[1] ? G.node('conv2dGradWeight', [x, g], { ...node.attrs, kernelSize: [w.shape[2], w.shape[3]] }) : undefined,
  ]),
  // conv2dGradInput is conv2d's adjoint in x (a transposed convolution, e.g. ConvTranspose2d): ⟨g, convᵀ(dy, w)⟩ =
  // ⟨conv(g, w), dy⟩, so d/d(dy) = conv(g, w) and d/dw = conv2dGradWeight(g, dy)
  conv2dGradInput: rule(({ graph: G, g, inputs: [dy, w], node, needs }) => {
    const { stride, padding, dilation, groups } = node.attrs;
    const conv = { stride, padding, dilation, groups };
    return [
      needs[0] ? G.node('conv2d', [g, w], conv) : undefined,
      needs[1] ? G.node('conv2dGradWeight', [g, dy], { ...conv, kernelSize: [w.shape[2], w.shape[3]] }) : undefined,
    ];
  }),
  conv2dGradWeight: secondOrder,
  maxPool2d: rule(({ graph: G, g, inputs: [x], node }) => [G.node('maxPool2dGrad', [x, g], node.attrs)]),
  maxPool2dGrad: secondOrder,
  maxPool2dIndices: noGradient('maxPool2dIndices gives i32 indices, which carry no gradient'),
  avgPool2d: rule(({ graph: G, g, inputs: [x], node }) => [G.node('avgPool2dGrad', [g], { ...node.attrs, inputSize: [x.shape[2], x.shape[3]] })]),
  avgPool2dGrad: secondOrder,
  // a rotation's transpose is the opposite rotation
  rope: rule(({ graph: G, g, node }) => [G.node('rope', [g], { ...node.attrs, inverse: !node.attrs.inverse })]),
  // the mask depends only on (seed, offset, index): the gradient is dropout of g with the same mask
  dropout: rule(({ graph: G, g, inputs, node }) => [G.node('dropout', inputs.length === 2 ? [g, inputs[1]] : [g], node.attrs), undefined]),
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
  matmulQ4: notDifferentiable('its weight is quantized for inference (Q4_0): train the f32 model, then quantize'),
  matmulQ8: notDifferentiable('its weight is quantized for inference (Q8_0): train the f32 model, then quantize'),
  rowwise: fusedOnly,
  rowwiseMulti: fusedOnly,
  pick: fusedOnly,
  softmaxCrossEntropy: fusedOnly,
  softmaxCrossEntropyGrad: secondOrder,
};

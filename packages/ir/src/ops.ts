// The closed op set of neura: every op any package can see, primitive or fused, with its attributes (typed per
// op). Per-op facts (family, alias-ness, index operands, cost class) are in opFacts.ts; every per-op behaviour
// elsewhere (shape inference, interpretation, VJP, WGSL) is a table typed `{ [K in OpKind]: ... }`, so adding an
// op here fails compilation until every table covers it.
// Attributes are plain JSON values: they take part in structural identity (hash-consing, e-node keys).

import type { DType } from './dtype.js';
import type { BinaryOp, UnaryOp } from './elementwise.js';
import type { PwExpr } from './pointwiseExpr.js';

export { BINARY_OPS, type BinaryOp, COMPARISON_OPS, UNARY_OPS, type UnaryOp } from './elementwise.js';

/** Reductions over a set of axes. */
export const REDUCE_OPS = ['sum', 'mean', 'reduceMax', 'reduceMin'] as const;
/** A reduction over axes. */
export type ReduceOp = (typeof REDUCE_OPS)[number];

/**
 * How a parameter or state tensor gets its first value; `zeroRow` then sets one row (an index along the first
 * axis) to zero, as torch's nn.Embedding does with its padding_idx row.
 */
export type Init = (
  | { kind: 'zeros' }
  | { kind: 'ones' }
  | { kind: 'fill'; value: number }
  | { kind: 'uniform'; low: number; high: number; seed: number }
  | { kind: 'normal'; mean: number; std: number; seed: number }
) & { zeroRow?: number };

/** Activation applied in a matmul epilogue. */
export type Activation = 'none' | 'relu';

/** How a loss over a batch is reduced. */
export type Reduction = 'mean' | 'sum';

type ReduceAttrs = {
  /** Normalised (non-negative, sorted) axes. */
  axes: number[];
  keepdims: boolean;
};

/**
 * A per-row statistic of a `rowwise` node: `post(reduce over the row of expr)`.
 * @property expr - the value reduced, over the node's inputs
 * @property reduce - the reduction over the row
 * @property post - applied to the reduced value (its input 0)
 */
export type RowStat = { expr: PwExpr; reduce: ReduceOp; post: PwExpr };

/** Attributes of a 2-D convolution: [along H, along W] pairs. */
export type Conv2dAttrs = {
  /** Step between windows. */
  stride: [number, number];
  /** Zeros added on each side. */
  padding: [number, number];
  /** Spacing between kernel taps. */
  dilation: [number, number];
  /** Channel groups: input and output channels split into this many independent convolutions. */
  groups: number;
};

/** Attributes of a 2-D pooling window. */
export type PoolAttrs = {
  /** Window size. */
  kernel: [number, number];
  /** Step between windows. */
  stride: [number, number];
  /** Padding on each side (implicit −Inf for max pooling, zeros for average pooling). */
  padding: [number, number];
};

/** Attributes of a max-pooling window: PoolAttrs plus PyTorch's dilation and ceil_mode. */
export type MaxPoolAttrs = PoolAttrs & {
  /** Spacing between window taps. */
  dilation: [number, number];
  /** Output extents rounded up, keeping only windows that start inside the input or its left padding. */
  ceilMode: boolean;
};

/** The parameters of a custom op: plain JSON data (part of the node's identity). */
export type CustomParams = Readonly<Record<string, number | string | boolean | readonly number[]>>;

/**
 * Attributes of the attention ops. `seqMajor`: the head axis follows the sequence axis, so q, k, v, dOut and the
 * ops' results are [..., T, H, D] (the rows of a [..., T, H·D] projection, no head-split transpose) and lse and
 * delta [..., T, H]; otherwise (default) [..., H, T, D] and [..., H, T] as documented per op below. Made by the
 * optimizer's layout rules from transposes around the heads-major op.
 */
export type AttentionAttrs = {
  /** Mask keys after the query's position (decoder self-attention). */
  causal: boolean;
  /** Factor applied to q·k before the softmax (usually 1/√D). */
  scale: number;
  /** Operands and results are [..., T, H, D] instead of [..., H, T, D] (see above). */
  seqMajor?: boolean;
  /** Seq-major only: q, k and v are read as head windows of wider tensors (see `AttentionWindow`). */
  window?: AttentionWindow;
};

/**
 * Head windows of a seq-major attention op: operand i of q, k, v is a wider seq-major tensor [..., T, W_i, D] and the
 * op reads its heads [offsets[i], offsets[i] + heads) — the column slices of a fused QKV projection, read in place
 * instead of copied out. `attentionLse` reads q and k only (offsets[2] is 0). Made by the optimizer's layout rules.
 * @property heads - heads the op reads from each operand
 * @property offsets - first head read in operand i's wider tensor, for q, k and v
 */
export type AttentionWindow = { heads: number; offsets: number[] };

/**
 * attentionGrad / attentionGradKV: with `deltaFromOut`, operand 5 is attention's output O (shaped as dOut) instead
 * of Δ, and the kernel computes Δ = rowsum(dOut ⊙ O) of the rows it reads (no separate reduction).
 */
export type AttentionGradAttrs = AttentionAttrs & { deltaFromOut?: boolean };

/** Attributes of every op that is not a plain unary or binary elementwise op. */
export interface OtherOpAttrs {
  // leaves
  /** A named graph input fed each step. */
  input: { name: string };
  /** A named trainable parameter with its initializer. */
  param: { name: string; init: Init };
  /** A named non-trainable state tensor (running statistics, optimizer moments) with its initializer. */
  state: { name: string; init: Init };
  /** A constant scalar. */
  const: { value: number };
  // elementwise (unary and binary ops come from UNARY_OPS / BINARY_OPS)
  /** inputs [cond (bool), a, b]: `cond ? a : b` elementwise with broadcasting. */
  where: Record<string, never>;
  /** Converts to dtype `to` (f32 → i32 truncates toward zero, as torch). */
  cast: { to: DType };
  // reductions
  /** Sum over `axes`. */
  sum: ReduceAttrs;
  /** Mean over `axes`. */
  mean: ReduceAttrs;
  /** Maximum over `axes` (ties share the gradient, as torch.amax). */
  reduceMax: ReduceAttrs;
  /** Minimum over `axes` (ties share the gradient, as torch.amin). */
  reduceMin: ReduceAttrs;
  /** Index (i32) of the first maximum along a normalised axis. */
  argmax: { axis: number; keepdims: boolean };
  /**
   * Inclusive prefix sum along a normalised axis (torch.cumsum); `reverse` sums from the end instead
   * (y[i] = Σ_{j ≥ i} x[j]: the VJP of the forward scan).
   */
  cumsum: { axis: number; reverse: boolean };
  // layout
  /** Same elements in a new shape (row-major; same element count): a view, no copy. */
  reshape: { shape: number[] };
  /**
   * inputs [x, dep]: x itself (a view of x's storage), ordered after `dep`. Only the optimizer makes it: the
   * recompute-versus-store alternative reads a forward value through it so that a recomputation runs in the
   * backward, once `dep` exists, instead of keeping its result alive from the forward (see egraph recompute.ts).
   */
  after: Record<string, never>;
  /** Permutes axes: output axis i is input axis `perm[i]`. */
  transpose: { perm: number[] };
  /** Broadcasts to `shape` (numpy rules: extent-1 axes repeat, new axes in front). */
  expand: { shape: number[] };
  /**
   * Strided window, one entry per axis (normalised: 0 ≤ start ≤ end ≤ extent, step ≥ 1); the output extent is
   * ceil((end − start) / step).
   */
  slice: { starts: number[]; ends: number[]; steps: number[] };
  /**
   * Constant padding per axis: `before`/`after` elements at the edges and `interior` between neighbours (as in
   * XLA; all ≥ 0). The output extent is before + n + (n − 1)·interior + after (before + after when n = 0).
   */
  pad: { before: number[]; after: number[]; interior: number[]; value: number };
  /** n ≥ 1 inputs of equal dtype and equal extents except along the (normalised) axis, joined along it. */
  concat: { axis: number };
  /**
   * inputs [table, indices i32]: numpy `take` along the axis; out shape = table[:axis] + indices + table[axis+1:].
   * An embedding is `gather(table [V, D], ids [...])` → [..., D] (axis 0). Indices must be in [0, extent).
   */
  gather: { axis: number };
  /** inputs [target, indices i32, updates shaped like gather's output]: target + the updates summed at indices. */
  scatterAdd: { axis: number };
  /** inputs [labels i32 [...]]: f32 [..., classes], 1 at each label; labels outside [0, classes) give a zero row. */
  oneHot: { classes: number };
  /** Identity forward; no gradient flows through it. */
  stopGradient: Record<string, never>;
  /** A user-defined op registered by name (see customOp.ts): inputs as its definition takes them, `params` plain data. */
  custom: { name: string; params: CustomParams };
  // linear algebra: a [...A, M, K] (or [..., K, M] if transA) times b [...B, K, N] (or [..., N, K] if transB)
  // gives [...broadcast(A, B), M, N]: the flags apply to the last two axes, leading axes broadcast (numpy)
  /** Matrix product (see the comment above for shapes and transposes). */
  matmul: { transA: boolean; transB: boolean };
  // normalisation and losses
  /** log(softmax(x)) along `axis`, computed stably. */
  logSoftmax: { axis: number };
  /** inputs [y = logSoftmax(x), g]: g - exp(y) * sum(g, axis). */
  logSoftmaxGrad: { axis: number };
  /** inputs [logp [N,C], labels [N] i32]: negative log-likelihood, reduced to a scalar. */
  nll: { reduction: Reduction };
  /** inputs [labels [N] i32, dy []]: the gradient of nll with respect to logp, shape [N, classes]. */
  nllGrad: { reduction: Reduction; classes: number };
  // transformer parts
  /**
   * inputs [q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv]] (equal leading axes): softmax(scale·q·kᵀ + mask)·v
   * → [..., Tq, Dv]; `causal` masks key j > query i (top-left aligned, as PyTorch's `is_causal`).
   */
  attention: AttentionAttrs;
  /**
   * inputs [q [..., Tq, D], k [..., Tk, D]]: the log-sum-exp of each query row's scores, log Σ_j exp(scale·q_i·k_j)
   * over its unmasked keys → [..., Tq] (what attention's backward needs besides its output).
   */
  attentionLse: AttentionAttrs;
  /**
   * inputs [q, k, v, dOut, lse [..., Tq], delta [..., Tq]]: the gradient of attention with respect to one operand,
   * from the forward's log-sum-exp L and Δ = rowsum(dOut ⊙ out): P = exp(scale·q·kᵀ − L) (0 where masked),
   * dS = P ⊙ (dOut·vᵀ − Δ); dq = scale·dS·k, dk = scale·dSᵀ·q, dv = Pᵀ·dOut.
   */
  attentionGrad: AttentionGradAttrs & { wrt: 'q' | 'k' | 'v' };
  /**
   * inputs as attention's: one kernel, two results: attention's output (the node's value) and attentionLse of q
   * and k ([..., Tq], `pick` 1). Made by the optimizer when a step needs both (the backward reads the log-sum-exp).
   */
  attentionWithLse: AttentionAttrs;
  /**
   * inputs as attentionGrad's (q, k, v, dOut, lse, delta) with v shaped as k: one kernel, two results: dk (the
   * node's value) and dv (`pick` 1). Made by the optimizer when a step needs both (FlashAttention-2's backward).
   */
  attentionGradKV: AttentionGradAttrs;
  /**
   * inputs as attentionGrad's, seq-major, with q, k and v of one shape (self-attention, D = Dv): one node, two
   * dispatches (dq, then dk and dv), one result [..., T, 3H, D] holding dq, dk and dv along the head axis — the
   * gradient of a fused QKV projection's output written in place instead of concatenated. Made by the optimizer.
   */
  attentionGradQKV: AttentionGradAttrs;
  /**
   * Rotary position embedding of x [..., T, D] (D even), half-split pairs (x[i], x[i + D/2]) rotated by
   * t·base^(−2i/D) for position t (the index along axis −2); `inverse` rotates the other way (its VJP).
   */
  rope: { base: number; inverse: boolean };
  /**
   * inputs [x] or [x, offset i32 []]: x / (1 − p) where the element is kept, else 0. Element i (row-major) is
   * kept iff lowbias32(i ^ lowbias32(seed + offset)) ≥ floor(p·2³²) (u32 arithmetic; see dropoutKeeps).
   */
  dropout: { p: number; seed: number };
  // convolution and pooling (NCHW; pairs are [along H, along W])
  /** inputs [x [N, C, H, W], w [O, C/groups, KH, KW]] → [N, O, Ho, Wo], Ho = ⌊(H + 2ph − dh(KH − 1) − 1)/sh⌋ + 1. */
  conv2d: Conv2dAttrs;
  /** inputs [dy, w]: the gradient of conv2d with respect to x, of spatial size `inputSize` (a transposed conv). */
  conv2dGradInput: Conv2dAttrs & { inputSize: [number, number] };
  /** inputs [x, dy]: the gradient of conv2d with respect to w, of kernel size `kernelSize`. */
  conv2dGradWeight: Conv2dAttrs & { kernelSize: [number, number] };
  /** inputs [x [N, C, H, W]]: window maxima (padding never wins), output size as PyTorch's max_pool2d. */
  maxPool2d: MaxPoolAttrs;
  /** inputs [x, dy]: dy routed to the first maximum of each window (as PyTorch's indices). */
  maxPool2dGrad: MaxPoolAttrs;
  /** inputs [x [N, C, H, W]]: i32 index iy·W + ix in its H×W plane of each window's first maximum (PyTorch's indices). */
  maxPool2dIndices: MaxPoolAttrs;
  /** inputs [x [N, C, H, W]]: window means, padding counted (PyTorch's default count_include_pad). */
  avgPool2d: PoolAttrs;
  /** inputs [dy]: the gradient of avgPool2d, of spatial size `inputSize`. */
  avgPool2dGrad: PoolAttrs & { inputSize: [number, number] };
  // fused ops: only the e-graph's extraction creates these
  /** inputs [a, b] or [a, b, bias]: activation(a·b + bias), bias broadcast to the (batched) output. */
  fusedMatmul: { transA: boolean; transB: boolean; bias: boolean; activation: Activation };
  /**
   * inputs [a, b, ...extras]: a matmul (as `matmul` with the flags) whose every product element passes through a
   * pointwise epilogue: `$0` in `expr` is the product, `$k` (k ≥ 1) is extra k − 1 broadcast to the output (a bias,
   * a residual, a GELU's operands, a scale). One kernel: the product is never written. `dtype`: the result's dtype
   * when it is not the operands' (f16 operands with an f32 result: an f16 product cast to f32 by its epilogue).
   * `round[i]`: operand i is f32 in memory and read rounded to f16 (an autocast cast folded into the product).
   */
  matmulEpilogue: { transA: boolean; transB: boolean; expr: PwExpr; dtype?: DType; round?: [boolean, boolean] };
  /**
   * inputs [a, b] (matrices, flags as `matmul`): the split-K partial products of op(a)·op(b), [splits, M, N].
   * Partial s sums k in [s·chunk, min(K, (s + 1)·chunk)), chunk = `splitKChunk(K, splits)`; their sum over axis 0
   * is the product. Made by the optimizer for a consumer that reads the partials summed (a multi-tensor update),
   * which saves the reduce pass of a split-K matmul. `round`: operands read rounded to f16, as `matmulEpilogue`'s
   * (the partials stay f32; an f16 product is their sum rounded once).
   */
  matmulPartials: { transA: boolean; transB: boolean; splits: number; round?: [boolean, boolean] };
  /**
   * inputs [x [..., M, K] f32, q [N, ceil(K/32)·8] i32, d [N, ceil(ceil(K/32)/2)] i32]: x·w with w a Q8_0 weight
   * (GGUF's int8 blocks of 32 along K, 4 per i32 word, one f16 scale each, 2 per word; see quantQ8.ts), dequantized as the kernel loads it,
   * w[k][n] = d[n][⌊k/32⌋]·q[n][k] → [..., M, N] f32. Weight-only quantization for inference (no gradient).
   * With `expr` (inputs [x, q, d, ...extras]), every product element passes through that pointwise epilogue as
   * `matmulEpilogue`'s does (`$0` the product, `$k` extra k − 1 broadcast to the output): a Linear's bias, GELU,
   * residual add in the matmul's kernel. Only the e-graph's fusion sets it.
   */
  matmulQ8: { expr?: PwExpr };
  /**
   * inputs [x [..., M, K] f32, q [N, ceil(K/32)·4] i32, d [N, ceil(ceil(K/32)/2)] i32]: x·w with w a Q4_0 weight
   * (GGUF's 4-bit blocks of 32 along K, 16 bytes each in 4 i32 words, one f16 scale each, 2 per word; see quantQ4.ts),
   * dequantized as the kernel loads it, w[k][n] = d[n][⌊k/32⌋]·(q[n][k] − 8) → [..., M, N] f32. Inference only.
   * `expr`: a pointwise epilogue over the product and extras [x, q, d, ...extras], as `matmulQ8`'s.
   */
  matmulQ4: { expr?: PwExpr };
  /**
   * Row-local fusion (layer norm, RMS norm, softmax and their gradients as one kernel): inputs broadcast to the
   * output shape; per row (the last axis), the `stats` in order, each `post(reduce(expr))` over the row, then
   * `expr` per element. In every expression `$i` below the operand count n is operand i at the element and
   * `$n + k` is stat k of the row (a stat reads only the stats before it; `post` reads `$0`, the reduced value).
   */
  rowwise: { expr: PwExpr; stats: RowStat[] };
  /**
   * Row-local fusion with several results (a layer norm's x̂ and its affine output x̂·γ + β from one read of the
   * rows): the `stats` as in `rowwise`, then result j is `exprs[j]` per element, each of the output's type. The
   * node's value is result 0; `pick` reads the others.
   */
  rowwiseMulti: { exprs: PwExpr[]; stats: RowStat[] };
  /** inputs broadcast to the output shape, combined by one expression. */
  pointwise: { expr: PwExpr; dtype: DType };
  /**
   * inputs broadcast to the output shape, combined by several expressions: one kernel, several results (e.g. an
   * optimizer updating a parameter and its moments). The node's value is result 0; `pick` reads the others.
   */
  pointwiseMulti: { exprs: PwExpr[]; dtype: DType };
  /**
   * The same multi-result expressions over several groups of operands: one kernel updating many parameters and
   * their optimizer state. Inputs are `shared` one-element operands, then per group g the same number of
   * operands (its roles) of shape `shapes[g]`; `$i` reads shared operand i (i < shared) or the group's role
   * i − shared. Result g·R + r (R expressions) is expression r over group g, of shape `shapes[g]`; the node's
   * value is result 0 and `pick` reads the others (see `groupOperands`). With `partials`, role `partials.role`
   * of group g is read summed over a leading axis of `partials.splits[g]` when that is > 1 (the operand is then
   * [splits[g], ...shapes[g]]: a weight gradient's split-K partial products, `matmulPartials`, whose reduce pass
   * the update does as it reads them).
   */
  pointwiseMultiTensor: { exprs: PwExpr[]; dtype: DType; shared: number; shapes: number[][]; partials?: { role: number; splits: number[] } };
  /** inputs [a pointwiseMulti node]: its result `index` (an alias: no kernel of its own). */
  pick: { index: number };
  /**
   * A reduction with a pointwise prologue and epilogue, one kernel: inputs broadcast to `shape`, combined by
   * `expr`, reduced over `axes` by `reduce` (as that op with `keepdims`), then `post` applied to each reduced
   * value (`$0` in it; `$0` alone when there is no epilogue). The prologue's tensor is never written. `dtype`: the
   * result's (default f32; f16 stores each reduced value rounded once, as an f16 reduction of the prologue does).
   */
  pointwiseReduce: { expr: PwExpr; shape: number[]; reduce: ReduceOp; axes: number[]; keepdims: boolean; post: PwExpr; dtype?: DType };
  /**
   * Sibling reductions in one kernel: result r is `pointwiseReduce` with `results[r]`'s prologue and epilogue over
   * the same inputs, `shape`, `reduce`, `axes` (e.g. a layer norm's dγ = Σ dY·x̂ and dβ = Σ dY, reading dY once).
   * The node's value is result 0; `pick` reads the others (each of the same type).
   */
  pointwiseReduceMulti: { results: { expr: PwExpr; post: PwExpr }[]; shape: number[]; reduce: ReduceOp; axes: number[]; keepdims: boolean };
  /** inputs [logits [N,C], labels [N] i32]: cross-entropy of softmax(logits), reduced to a scalar. */
  softmaxCrossEntropy: { reduction: Reduction };
  /** inputs [logits [N,C], labels [N] i32, dy []]: (softmax(logits) - onehot(labels)) * dy (/ N for mean). */
  softmaxCrossEntropyGrad: { reduction: Reduction };
}

/** Attributes of an op without any. */
export type NoAttrs = Record<string, never>;

/**
 * Attributes of every op, by op name: elementwise ops of one or two operands have none (their names come from
 * `UNARY_OPS`/`BINARY_OPS`, so adding one there adds it here), the rest are listed in `OtherOpAttrs`.
 */
export type OpAttrs = { readonly [K in UnaryOp | BinaryOp]: NoAttrs } & OtherOpAttrs;

/** Every op name. */
export type OpKind = keyof OpAttrs;

/**
 * An op with its attributes, typed together: a union discriminated by `op`, so testing `x.op` narrows `x.attrs`
 * (a graph `Node` is one; so is an e-node read back as an ir op).
 */
export type OpWithAttrs<K extends OpKind = OpKind> = { [P in K]: { readonly op: P; readonly attrs: OpAttrs[P] } }[K];

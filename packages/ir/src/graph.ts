// The Graph builder: an append-only list of immutable, hash-consed nodes with named outputs and in-place
// state updates. Every node is type-checked when built (see infer.ts); a bad node throws a GraphError that
// names the op, the operands' shapes and the user's call site, and leaves the graph unchanged. Longer than
// 500 lines on purpose: one builder method per op or decomposition (norms, losses) keeps the API in one place.

import { type DType, isFloat } from './dtype.js';
import { GraphError, userCallSite } from './graphError.js';
import { inferType, type TensorType } from './infer.js';
import type { NamedLeafOp } from './opFacts.js';
import type { CustomParams, Init, MaxPoolAttrs, OpAttrs, OpKind, Reduction, UnaryOp } from './ops.js';
import { isOp } from './opWithAttrs.js';
import { broadcastShapes, fmtShape, normalizeAxes, type Shape } from './shape.js';

/** Index of a node in its graph. */
export type NodeId = number;

/** One immutable node of one op: the op applied to earlier nodes, with its attributes and inferred type. */
export interface NodeOf<K extends OpKind> {
  /** Position of this node in `Graph.nodes` (its id; operands always have smaller ids). */
  readonly id: NodeId;
  /** The op this node applies. */
  readonly op: K;
  /** Ids of the operand nodes, in the op's operand order. */
  readonly inputs: readonly NodeId[];
  /** The op's attributes (axes, shapes, flags), as `OpAttrs[op]`. */
  readonly attrs: OpAttrs[K];
  /** The inferred output shape (extents, outermost first; `[]` is a scalar). */
  readonly shape: Shape;
  /** The inferred output element type. */
  readonly dtype: DType;
  /** `file:line:col` in user code that built this node. */
  readonly site?: string;
}

/**
 * A node of any of the ops `K` (default: any op), as a union discriminated by `op`: testing `n.op` narrows
 * `n.attrs` to that op's attributes, so no code needs to cast attributes.
 */
export type Node<K extends OpKind = OpKind> = { [P in K]: NodeOf<P> }[K];

/** The name of an input, param or state leaf; undefined for any other node. */
export function leafName(n: Node): string | undefined {
  return n.op === 'input' || n.op === 'param' || n.op === 'state' ? n.attrs.name : undefined;
}

/** A tensor value in a graph under construction (a node). */
export type Tensor = Node;

/** A tensor or a number, which becomes a scalar constant. */
export type TensorLike = Tensor | number;

/** Options of `Graph.crossEntropy`. */
export interface CrossEntropyOptions {
  /** `none` gives the per-row losses, shaped as the labels. */
  readonly reduction?: Reduction | 'none';
  /** ε in [0, 1]: the target puts 1 − ε on the label and ε/C on every class. */
  readonly labelSmoothing?: number;
  /** Rows whose label is this value, in range or not (PyTorch's pad ids), count for nothing (PyTorch: -100). */
  readonly ignoreIndex?: number;
  /** Per-class weights [C] (PyTorch's `weight`): row i counts w[y_i] times, and `mean` divides by Σ w[y_i]. */
  readonly weight?: Tensor;
}

/** Options of `Graph.maxPool2d` (PyTorch's max_pool2d arguments). */
export interface MaxPool2dOptions {
  /** Default: the kernel size. */
  readonly stride?: number | [number, number];
  /** Zero padding added on each side, one value for both axes or [along H, along W] (default 0). */
  readonly padding?: number | [number, number];
  /** Spacing between window taps (default 1). */
  readonly dilation?: number | [number, number];
  /** Round the output size up (PyTorch's ceil_mode): a last, partial window is kept if it starts inside the input or its left padding. */
  readonly ceilMode?: boolean;
}

/** A state tensor overwritten at the end of each step by a value computed in the step. */
export interface StateUpdate {
  /** Id of the `param` or `state` leaf that is overwritten. */
  readonly state: NodeId;
  /** Id of the node whose value it takes at the end of the step (same shape and dtype). */
  readonly value: NodeId;
}

const EMPTY: Record<string, never> = {};

/**
 * Builds a tensor graph with shape inference, hash-consing and clear errors. Each builder method appends one node
 * (or returns an identical existing one) and returns it as a `Tensor`; a bad operand throws a `GraphError` naming
 * the op, the shapes and the call site, and leaves the graph unchanged.
 *
 * @example
 * ```ts
 * const g = new Graph();
 * const x = g.input('x', [32, 784]);                       // f32 [batch, features]
 * const w = g.param('w', [784, 10], { kind: 'normal', mean: 0, std: 0.01, seed: 1 });
 * const logits = g.matmul(x, w);                           // [32, 10]
 * const loss = g.crossEntropy(logits, g.input('labels', [32], 'i32'));
 * g.output('loss', loss);
 * ```
 */
export class Graph {
  /** Every node, in creation order (a node's id is its index; operands precede their users). */
  readonly nodes: Node[] = [];
  /** Named results of the graph (for example `loss`). */
  readonly outputs = new Map<string, NodeId>();
  /** In-place updates of `param`/`state` leaves, in the order they were declared. */
  readonly updates: StateUpdate[] = [];
  private readonly memo = new Map<string, NodeId>();
  private readonly names = new Map<string, NodeId>();
  private readonly recordSites: boolean;

  /**
   * An empty graph. `recordSites: false` skips recording each node's user call site (a stack trace per node):
   * for graphs built by passes (the optimizer's rebuild), whose nodes have no user site worth the cost.
   */
  constructor(opts: { readonly recordSites?: boolean } = {}) {
    this.recordSites = opts.recordSites ?? true;
  }

  /**
   * A copy that shares the (immutable) nodes: building on the copy never changes this graph, and a node of this
   * graph is a node of the copy (same id), so tensors built here can be used there.
   */
  clone(): Graph {
    const g = new Graph({ recordSites: this.recordSites });
    for (const n of this.nodes) g.nodes.push(n);
    for (const [k, v] of this.outputs) g.outputs.set(k, v);
    for (const u of this.updates) g.updates.push(u);
    for (const [k, v] of this.memo) g.memo.set(k, v);
    for (const [k, v] of this.names) g.names.set(k, v);
    return g;
  }

  /** The node with this id. */
  get(id: NodeId): Node {
    const n = this.nodes[id];
    if (!n) throw new GraphError(`no node with id ${id} in this graph`);
    return n;
  }

  /** Leaves of one kind (`input`, `param`, `state`), in creation order. */
  leaves<K extends NamedLeafOp>(op: K): Node<K>[] {
    return this.nodes.filter((n): n is Node & Node<K> => isOp(n, op));
  }

  /** The input, param or state leaf with this name, if any. */
  byName(name: string): Node<NamedLeafOp> | undefined {
    const id = this.names.get(name);
    const n = id === undefined ? undefined : this.nodes[id];
    return n && isOp(n, 'input', 'param', 'state') ? n : undefined;
  }

  /**
   * Adds (or finds, by structure) a node. The generic entry point used by every builder method and by
   * passes that rebuild graphs; `leafType` is the declared type of a leaf.
   */
  node<K extends OpKind>(op: K, inputs: readonly (NodeId | Node)[], attrs: OpAttrs[K], leafType?: TensorType): Node<K> & Node {
    const ids = inputs.map((x) => (typeof x === 'number' ? x : x.id));
    for (const id of ids) if (!this.nodes[id]) throw new GraphError(`${op}: operand ${id} is not a node of this graph`, op);
    // a Node of another graph may share an id with one of ours: taking it by id would silently wire the wrong tensor
    inputs.forEach((x, k) => {
      if (typeof x !== 'number' && this.nodes[x.id] !== x && !sameNode(this.nodes[x.id], x))
        throw new GraphError(`${op}: operand ${k} (${fmtShape(x.shape)} ${x.dtype}) belongs to another graph`, op, userCallSite());
    });
    if (leafType && leafType.shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`${op}: invalid shape ${fmtShape(leafType.shape)} (extents must be integers ≥ 0)`, op, userCallSite());
    const key = `${op}|${JSON.stringify(attrs, exactNumbers)}|${ids.join(',')}|${leafType ? `${leafType.shape}:${leafType.dtype}` : ''}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return this.nodes[hit] as Node<K> & Node; // same key, so same op K
    let type: TensorType;
    try {
      type = inferType(
        op,
        ids.map((id) => this.nodes[id]),
        attrs,
        leafType,
      );
    } catch (e) {
      if (e instanceof GraphError && !e.site) throw new GraphError(e.message, e.op, userCallSite());
      throw e;
    }
    // a NodeOf<K> is a Node<K> for every single op K; TypeScript cannot see it for a generic K
    const node = { id: this.nodes.length, op, inputs: ids, attrs, shape: [...type.shape], dtype: type.dtype, site: this.recordSites ? userCallSite() : undefined } as NodeOf<K> as Node<K> & Node;
    this.nodes.push(node);
    this.memo.set(key, node.id);
    return node;
  }

  private named<K extends 'input' | 'param' | 'state'>(op: K, attrs: OpAttrs[K], shape: Shape, dtype: DType): Node<K> {
    const name = attrs.name;
    if (this.names.has(name)) throw new GraphError(`${op}: the name '${name}' is already used by another leaf`, op, userCallSite());
    if (shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`${op} '${name}': invalid shape ${fmtShape(shape)}`, op, userCallSite());
    const n = this.node(op, [], attrs, { shape, dtype });
    this.names.set(name, n.id);
    return n;
  }

  /** A value fed at every step (data, labels). */
  input(name: string, shape: Shape, dtype: DType = 'f32'): Tensor {
    return this.named('input', { name }, shape, dtype);
  }

  /**
   * A trainable parameter, initialised once. Default init: PyTorch's kaiming_uniform(a=√5) = U(±1/√fanIn), with
   * fanIn = shape[0] for a matrix (neura stores Linear weights [in, out]) and C·KH·KW = ∏shape[1:] for a
   * convolution-style weight [O, C, KH, …] of rank ≥ 3; a vector uses its length.
   */
  param(name: string, shape: Shape, init?: Init): Tensor {
    const fanIn = shape.length > 2 ? shape.slice(1).reduce((a, b) => a * b, 1) : (shape[0] ?? 1);
    const bound = 1 / Math.sqrt(Math.max(1, fanIn));
    const seed = hashName(name);
    return this.named('param', { name, init: init ?? { kind: 'uniform', low: -bound, high: bound, seed } }, shape, 'f32');
  }

  /** A non-trainable persistent tensor (optimizer moments, counters). */
  state(name: string, shape: Shape, init: Init = { kind: 'zeros' }, dtype: DType = 'f32'): Tensor {
    return this.named('state', { name, init }, shape, dtype);
  }

  /** A constant filled with one value. */
  constant(value: number, shape: Shape = [], dtype: DType = 'f32'): Tensor {
    if (!isFloat(dtype) && !(Number.isInteger(value) && value >= -2147483648 && value <= 2147483647))
      throw new GraphError(`const: value ${value} is not representable as ${dtype}`, 'const', userCallSite());
    return this.node('const', [], { value }, { shape, dtype });
  }

  private lift(x: TensorLike, like?: Tensor): Tensor {
    // a number next to an f16 tensor is an f16 constant (as torch's `half_tensor * 0.5` stays half)
    const dtype = like?.dtype === 'i32' && Number.isInteger(x) ? 'i32' : like?.dtype === 'f16' ? 'f16' : 'f32';
    return typeof x === 'number' ? this.constant(x, [], dtype) : x;
  }

  /**
   * The operands of a binary op with a Python-style scalar: an integer number next to an i32 tensor stays i32;
   * any other number makes an f32 constant and promotes an i32 tensor to f32 (PyTorch: `int_tensor * 0.5` is float).
   */
  private scalarOperands(a: TensorLike, b: TensorLike): [Tensor, Tensor] {
    const promote = (t: TensorLike, other: TensorLike): TensorLike =>
      typeof t !== 'number' && t.dtype === 'i32' && typeof other === 'number' && !Number.isInteger(other) ? this.cast(t, 'f32') : t;
    const pa = promote(a, b);
    const pb = promote(b, a);
    const ta = this.lift(pa, typeof pb === 'number' ? undefined : pb);
    return [ta, this.lift(pb, ta)];
  }

  /** Any elementwise op of one operand, by name (the named methods below are shorthands). */
  unary(op: UnaryOp, x: Tensor): Tensor {
    return this.node(op, [x], EMPTY);
  }
  /** Elementwise −x. */
  neg(x: Tensor): Tensor { return this.unary('neg', x); }
  /** Elementwise |x|. */
  abs(x: Tensor): Tensor { return this.unary('abs', x); }
  /** Elementwise eˣ. */
  exp(x: Tensor): Tensor { return this.unary('exp', x); }
  /** Elementwise natural logarithm (−Inf at 0, NaN below 0, as torch.log). */
  log(x: Tensor): Tensor { return this.unary('log', x); }
  /** Elementwise √x (NaN below 0). */
  sqrt(x: Tensor): Tensor { return this.unary('sqrt', x); }
  /** Elementwise 1/√x. */
  rsqrt(x: Tensor): Tensor { return this.unary('rsqrt', x); }
  /** Elementwise 1/x. */
  recip(x: Tensor): Tensor { return this.unary('recip', x); }
  /** Elementwise x². */
  square(x: Tensor): Tensor { return this.unary('square', x); }
  /** max(x, 0) with gradient 0 at x = 0, as torch.relu (`max(x, 0)` splits it in half there, as torch.maximum). */
  relu(x: Tensor): Tensor { return this.unary('relu', x); }
  /** Elementwise logistic 1/(1 + e⁻ˣ). */
  sigmoid(x: Tensor): Tensor { return this.unary('sigmoid', x); }
  /** Elementwise hyperbolic tangent. */
  tanh(x: Tensor): Tensor { return this.unary('tanh', x); }
  /** Elementwise sine (radians). */
  sin(x: Tensor): Tensor { return this.unary('sin', x); }
  /** Elementwise cosine (radians). */
  cos(x: Tensor): Tensor { return this.unary('cos', x); }
  /** Elementwise Gauss error function erf(x). */
  erf(x: Tensor): Tensor { return this.unary('erf', x); }
  /** Elementwise SiLU (swish): x·sigmoid(x). */
  silu(x: Tensor): Tensor { return this.unary('silu', x); }
  /** Elementwise softplus log(1 + eˣ), as torch.nn.functional.softplus with beta 1. */
  softplus(x: Tensor): Tensor { return this.unary('softplus', x); }

  /** GELU: exact (erf) by default, or the tanh approximation (PyTorch's `approximate` option). */
  gelu(x: Tensor, opts: { approximate?: 'none' | 'tanh' } = {}): Tensor {
    return this.unary(opts.approximate === 'tanh' ? 'geluTanh' : 'gelu', x);
  }

  /** `x > 0 ? x : alpha·x`, built from where/gt/mul so that it fuses into pointwise kernels. */
  leakyRelu(x: Tensor, alpha = 0.01): Tensor {
    return this.where(this.gt(x, 0), x, this.mul(x, alpha));
  }

  private bin(op: 'add' | 'sub' | 'mul' | 'div' | 'max' | 'min' | 'pow' | 'gt' | 'ge' | 'lt' | 'le' | 'eq', a: TensorLike, b: TensorLike): Tensor {
    return this.node(op, this.scalarOperands(a, b), EMPTY);
  }
  /** Elementwise a + b with numpy broadcasting; a number becomes a scalar constant (an integer next to an i32 tensor stays i32, any other number is f32). */
  add(a: TensorLike, b: TensorLike): Tensor { return this.bin('add', a, b); }
  /** Elementwise a − b with numpy broadcasting. */
  sub(a: TensorLike, b: TensorLike): Tensor { return this.bin('sub', a, b); }
  /** Elementwise a · b with numpy broadcasting. */
  mul(a: TensorLike, b: TensorLike): Tensor { return this.bin('mul', a, b); }
  /** Elementwise a / b with numpy broadcasting (IEEE: x/0 is ±Inf or NaN). */
  div(a: TensorLike, b: TensorLike): Tensor { return this.bin('div', a, b); }
  /** Elementwise maximum, as torch.maximum: tied operands get half of the gradient each. */
  max(a: TensorLike, b: TensorLike): Tensor { return this.bin('max', a, b); }
  /** Elementwise minimum, as torch.minimum: tied operands get half of the gradient each. */
  min(a: TensorLike, b: TensorLike): Tensor { return this.bin('min', a, b); }
  /** Elementwise aᵇ with numpy broadcasting, as torch.pow. */
  pow(a: TensorLike, b: TensorLike): Tensor { return this.bin('pow', a, b); }
  /** Elementwise a > b with numpy broadcasting; the result is `bool`. */
  gt(a: TensorLike, b: TensorLike): Tensor { return this.bin('gt', a, b); }
  /** Elementwise a ≥ b with numpy broadcasting; the result is `bool`. */
  ge(a: TensorLike, b: TensorLike): Tensor { return this.bin('ge', a, b); }
  /** Elementwise a < b with numpy broadcasting; the result is `bool`. */
  lt(a: TensorLike, b: TensorLike): Tensor { return this.bin('lt', a, b); }
  /** Elementwise a ≤ b with numpy broadcasting; the result is `bool`. */
  le(a: TensorLike, b: TensorLike): Tensor { return this.bin('le', a, b); }
  /** Elementwise a == b with numpy broadcasting; the result is `bool`. */
  eq(a: TensorLike, b: TensorLike): Tensor { return this.bin('eq', a, b); }

  /** Elementwise `cond ? a : b` with broadcasting. */
  where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
    return this.node('where', [cond, ...this.scalarOperands(a, b)], EMPTY);
  }

  /** Converts to another dtype. */
  cast(x: Tensor, to: DType): Tensor {
    return x.dtype === to ? x : this.node('cast', [x], { to });
  }

  private axes(op: string, x: Tensor, axes?: number | readonly number[]): number[] {
    const list = axes === undefined ? x.shape.map((_, i) => i) : typeof axes === 'number' ? [axes] : axes;
    const norm = normalizeAxes(list, x.shape.length);
    if (!norm) throw new GraphError(`${op}: axes [${list}] out of range for shape ${fmtShape(x.shape)}`, op, userCallSite());
    return norm;
  }

  /** Sum over axes (all by default). */
  sum(x: Tensor, axes?: number | readonly number[], keepdims = false): Tensor {
    return this.node('sum', [x], { axes: this.axes('sum', x, axes), keepdims });
  }

  /** Mean over axes (all by default). */
  mean(x: Tensor, axes?: number | readonly number[], keepdims = false): Tensor {
    return this.node('mean', [x], { axes: this.axes('mean', x, axes), keepdims });
  }

  /**
   * Maximum over axes (all by default), as torch.amax: the gradient is shared evenly among tied maxima (see
   * `maxAlong` for torch.max(x, dim), which sends it to the first one).
   */
  reduceMax(x: Tensor, axes?: number | readonly number[], keepdims = false): Tensor {
    return this.node('reduceMax', [x], { axes: this.axes('reduceMax', x, axes), keepdims });
  }

  /** Minimum over axes (all by default), as torch.amin: the gradient is shared evenly among tied minima (see `minAlong`). */
  reduceMin(x: Tensor, axes?: number | readonly number[], keepdims = false): Tensor {
    return this.node('reduceMin', [x], { axes: this.axes('reduceMin', x, axes), keepdims });
  }

  /**
   * Log-sum-exp over axes, stably: m + log Σ exp(x − m) with m the maximum, taken as 0 where it is ±∞ (as
   * torch.logsumexp: a row of −∞ gives −∞, a +∞ entry gives +∞). Its gradient is softmax(x) (m carries none).
   */
  logsumexp(x: Tensor, axes: number | readonly number[], keepdims = false): Tensor {
    const ax = this.axes('logsumexp', x, axes);
    const m = this.reduceMax(x, ax, true);
    const shift = this.stopGradient(this.where(this.eq(this.abs(m), Infinity), 0, m));
    const lse = this.add(this.log(this.sum(this.exp(this.sub(x, shift)), ax, true)), shift);
    return keepdims ? lse : this.reshape(lse, x.shape.filter((_, i) => !ax.includes(i)));
  }

  /**
   * Inclusive prefix sum along an axis, as torch.cumsum (f32 or i32); `reverse` sums from the end. Its
   * gradient is the reverse cumulative sum of the upstream gradient.
   */
  cumsum(x: Tensor, axis: number, opts: { reverse?: boolean } = {}): Tensor {
    return this.node('cumsum', [x], { axis: this.axis('cumsum', x, axis), reverse: opts.reverse ?? false });
  }

  /**
   * Clamps into [min, max] (either bound may be left out), as torch.clamp: NaN stays NaN, min > max gives max.
   * The gradient is 1 where min ≤ x ≤ max (bounds included) and 0 elsewhere, NaN included (torch's
   * clamp_backward); so `clamp(x, 0)` passes the gradient at 0 where `relu` and `max(x, 0)` do not.
   */
  clamp(x: Tensor, min?: number, max?: number): Tensor {
    if (min === undefined && max === undefined) throw new GraphError('clamp: give at least one of min and max', 'clamp', userCallSite());
    for (const [name, v] of [['min', min], ['max', max]] as const)
      if (v !== undefined && (typeof v !== 'number' || Number.isNaN(v))) throw new GraphError(`clamp: ${name} must be a number, got ${v}`, 'clamp', userCallSite());
    if (x.dtype === 'bool') throw new GraphError('clamp: the operand must be f32 or i32, got bool', 'clamp', userCallSite());
    // an i32 tensor clamped to a fractional bound is promoted, as PyTorch's type promotion does
    const t = x.dtype === 'i32' && [min, max].some((v) => v !== undefined && !Number.isInteger(v)) ? this.cast(x, 'f32') : x;
    const c = (v: number) => this.constant(v, [], t.dtype);
    // the branch no comparison takes is x's NaNs: a NaN constant, so that they carry no gradient (i32 has none)
    const nanOr = (v: number) => c(isFloat(t.dtype) ? Number.NaN : v);
    if (min === undefined) return this.where(this.le(t, max as number), t, this.where(this.gt(t, max as number), c(max as number), nanOr(max as number)));
    const upper = max === undefined ? t : this.where(this.le(t, max), t, c(max));
    // min > max: max everywhere (torch); x stays an operand that no element selects, so its gradient is 0, not absent
    const below = max !== undefined && min > max ? max : min;
    return this.where(this.ge(t, min), upper, this.where(this.lt(t, min), c(below), nanOr(below)));
  }

  /**
   * The maximum along an axis with its index (i32), as torch.max(x, dim): the gradient goes wholly to that index,
   * the first maximal one (NaN counts as the maximum), where `reduceMax` (torch.amax) shares it among ties.
   */
  maxAlong(x: Tensor, axis = -1, keepdims = false): { values: Tensor; indices: Tensor } {
    return this.extremeAlong('maxAlong', x, x, axis, keepdims);
  }

  /** The minimum along an axis with its index, as torch.min(x, dim): the gradient goes wholly to the first minimum. */
  minAlong(x: Tensor, axis = -1, keepdims = false): { values: Tensor; indices: Tensor } {
    return this.extremeAlong('minAlong', x, this.neg(x), axis, keepdims);
  }

  /** x at the first maximum of `key` along an axis, selected by a one-hot mask so that only it gets a gradient. */
  private extremeAlong(op: string, x: Tensor, key: Tensor, axis: number, keepdims: boolean): { values: Tensor; indices: Tensor } {
    const a = this.axis(op, x, axis);
    const rank = x.shape.length;
    const hot = this.oneHot(this.argmax(key, a), x.shape[a]); // the class axis last: move it back to a
    const perm = x.shape.map((_, i) => (i < a ? i : i === a ? rank - 1 : i - 1));
    const values = this.sum(this.where(this.gt(this.transpose(hot, perm), 0.5), x, 0), a, keepdims);
    return { values, indices: this.argmax(key, a, keepdims) };
  }

  /** Index (i32) of the first maximum along an axis (the last by default); carries no gradient. */
  argmax(x: Tensor, axis = -1, keepdims = false): Tensor {
    return this.node('argmax', [x], { axis: this.axis('argmax', x, axis), keepdims });
  }

  /**
   * Variance over axes (all by default), as the decomposition mean((x − mean(x))²) so that the e-graph can fuse
   * it; `correction` 1 gives the unbiased estimate (PyTorch's default is 1, ours 0 as in LayerNorm).
   */
  variance(x: Tensor, axes?: number | readonly number[], opts: { keepdims?: boolean; correction?: number } = {}): Tensor {
    const ax = this.axes('variance', x, axes);
    const centred = this.sub(x, this.mean(x, ax, true));
    const v = this.mean(this.square(centred), ax, opts.keepdims ?? false);
    const count = ax.reduce((p, a) => p * x.shape[a], 1);
    const c = opts.correction ?? 0;
    return c === 0 ? v : this.mul(v, count / (count - c));
  }

  private axis(op: string, x: Tensor, axis: number, rank = x.shape.length): number {
    const a = axis < 0 ? axis + rank : axis;
    if (!Number.isInteger(a) || a < 0 || a >= rank)
      throw new GraphError(`${op}: axis ${axis} out of range for shape ${fmtShape(x.shape)}`, op, userCallSite());
    return a;
  }

  /**
   * A strided window, Python-style per axis: negative indices count from the end, bounds are clamped, and
   * missing trailing axes are taken whole. `slice(x, [0, 2], [4, -1])` is `x[0:4, 2:-1]`.
   */
  slice(x: Tensor, starts: readonly number[], ends: readonly number[], steps: readonly number[] = []): Tensor {
    const rank = x.shape.length;
    if (starts.length > rank || ends.length > rank || steps.length > rank)
      throw new GraphError(`slice: more entries than axes for shape ${fmtShape(x.shape)}`, 'slice', userCallSite());
    const norm = (v: number | undefined, d: number, dflt: number) => (v === undefined ? dflt : Math.min(d, Math.max(0, v < 0 ? v + d : v)));
    const st = x.shape.map((_, i) => steps[i] ?? 1);
    const s = x.shape.map((d, i) => norm(starts[i], d, 0));
    const e = x.shape.map((d, i) => Math.max(s[i], norm(ends[i], d, d)));
    if (x.shape.every((d, i) => s[i] === 0 && e[i] === d && st[i] === 1)) return x;
    return this.node('slice', [x], { starts: s, ends: e, steps: st });
  }

  /** Splits along an axis into pieces of the given sizes (or `n` equal pieces): several slices. */
  split(x: Tensor, sizes: number | readonly number[], axis = -1): Tensor[] {
    const a = this.axis('split', x, axis);
    const d = x.shape[a];
    const list = typeof sizes === 'number' ? Array.from({ length: sizes }, () => d / sizes) : [...sizes];
    if (list.some((v) => !Number.isInteger(v) || v < 0) || list.reduce((p, v) => p + v, 0) !== d)
      throw new GraphError(`split: sizes [${list}] do not partition axis ${a} of ${fmtShape(x.shape)}`, 'split', userCallSite());
    let at = 0;
    return list.map((n) => {
      const starts = x.shape.map((_, i) => (i === a ? at : 0));
      const ends = x.shape.map((e, i) => (i === a ? at + n : e));
      at += n;
      return this.slice(x, starts, ends);
    });
  }

  /** Pads each axis with `value`: `before[i]`/`after[i]` elements at its edges (missing entries are 0). */
  pad(x: Tensor, before: readonly number[], after: readonly number[], value = 0, interior: readonly number[] = []): Tensor {
    const full = (v: readonly number[]) => x.shape.map((_, i) => v[i] ?? 0);
    return this.node('pad', [x], { before: full(before), after: full(after), interior: full(interior), value });
  }

  /** Joins tensors along an axis. */
  concat(xs: readonly Tensor[], axis = 0): Tensor {
    if (xs.length === 0) throw new GraphError('concat: needs at least one operand', 'concat', userCallSite());
    if (xs.length === 1) return xs[0];
    return this.node('concat', xs, { axis: this.axis('concat', xs[0], axis) });
  }

  /** numpy `take(table, indices, axis)`; `gather(table [V, D], ids [B, T])` is an embedding lookup → [B, T, D]. */
  gather(table: Tensor, indices: Tensor, axis = 0): Tensor {
    return this.node('gather', [table, indices], { axis: this.axis('gather', table, axis) });
  }

  /** `target` plus `updates` (shaped like `gather(target, indices, axis)`) summed in at `indices`. */
  scatterAdd(target: Tensor, indices: Tensor, updates: Tensor, axis = 0): Tensor {
    return this.node('scatterAdd', [target, indices, updates], { axis: this.axis('scatterAdd', target, axis) });
  }

  /** f32 one-hot rows of i32 labels; labels outside [0, classes) give zero rows. */
  oneHot(labels: Tensor, classes: number): Tensor {
    return this.node('oneHot', [labels], { classes });
  }

  /** A registered custom op (see `registerCustomOp`, or `customOp` in @neura/nn) on `inputs`, with plain-data `params`. */
  custom(name: string, inputs: readonly Tensor[], params: CustomParams = {}): Tensor {
    return this.node('custom', inputs, { name, params });
  }

  /** Identity forward; gradients do not flow through it. */
  stopGradient(x: Tensor): Tensor {
    return this.node('stopGradient', [x], EMPTY);
  }

  /** `x` itself, ordered after `dep` (a view: no kernel, no copy); made by the optimizer's recompute alternatives. */
  after(x: Tensor, dep: Tensor): Tensor {
    return this.node('after', [x, dep], EMPTY);
  }

  /** Same data, new shape; one extent may be -1 (inferred). */
  reshape(x: Tensor, shape: readonly number[]): Tensor {
    const known = shape.reduce((p, d) => (d === -1 ? p : p * d), 1);
    const total = x.shape.reduce((p, d) => p * d, 1);
    const resolved = shape.map((d) => (d === -1 ? (known === 0 ? 0 : total / known) : d));
    if (resolved.length === x.shape.length && resolved.every((d, i) => d === x.shape[i])) return x;
    return this.node('reshape', [x], { shape: resolved });
  }

  /** Permutes axes (reverses them by default). */
  transpose(x: Tensor, perm?: readonly number[]): Tensor {
    const p = perm ? [...perm] : x.shape.map((_, i) => x.shape.length - 1 - i);
    if (p.every((v, i) => v === i) && p.length === x.shape.length) return x;
    return this.node('transpose', [x], { perm: p });
  }

  /** Broadcasts to a larger shape (numpy rules). */
  expand(x: Tensor, shape: readonly number[]): Tensor {
    if (shape.some((d) => !Number.isInteger(d) || d < 0))
      throw new GraphError(`expand: invalid target shape ${fmtShape(shape)} (extents must be integers ≥ 0)`, 'expand', userCallSite());
    if (shape.length === x.shape.length && shape.every((d, i) => d === x.shape[i])) return x;
    return this.node('expand', [x], { shape: [...shape] });
  }

  /**
   * Matrix product over the last two axes, with optional transposes of either operand's last two axes;
   * leading (batch) axes broadcast as in numpy: [B, T, K]·[K, N] → [B, T, N].
   */
  matmul(a: Tensor, b: Tensor, opts: { transA?: boolean; transB?: boolean } = {}): Tensor {
    return this.node('matmul', [a, b], { transA: opts.transA ?? false, transB: opts.transB ?? false });
  }

  /**
   * The split-K partial products of op(a)·op(b) (matrices), [splits, M, N]: their sum over axis 0 is the product
   * (see `OpAttrs['matmulPartials']`; `matmulSplitK` gives the runtime's split).
   */
  matmulPartials(a: Tensor, b: Tensor, splits: number, opts: { transA?: boolean; transB?: boolean } = {}): Tensor {
    return this.node('matmulPartials', [a, b], { transA: opts.transA ?? false, transB: opts.transB ?? false, splits });
  }

  /**
   * x [..., M, K] times a Q8_0 weight: `q` [N, ceil(K/32)·8] i32 and `d` [N, ceil(ceil(K/32)/2)] i32 (f16 pairs) as `quantizeQ8_0`
   * packs a [K, N] weight; dequantized as it is read (see `OpAttrs['matmulQ8']`) → [..., M, N].
   */
  matmulQ8(x: Tensor, q: Tensor, d: Tensor): Tensor {
    return this.node('matmulQ8', [x, q, d], {});
  }

  /**
   * x [..., M, K] times a Q4_0 weight: `q` [N, ceil(K/32)·4] i32 and `d` [N, ceil(ceil(K/32)/2)] i32 (f16 pairs) as `quantizeQ4_0`
   * packs a [K, N] weight; dequantized as it is read (see `OpAttrs['matmulQ4']`) → [..., M, N].
   */
  matmulQ4(x: Tensor, q: Tensor, d: Tensor): Tensor {
    return this.node('matmulQ4', [x, q, d], {});
  }

  /** `x · w + b`: an affine layer with w of shape [in, out]. */
  linear(x: Tensor, w: Tensor, b?: Tensor): Tensor {
    const y = this.matmul(x, w);
    return b ? this.add(y, b) : y;
  }

  /** Log-softmax along an axis (the last). */
  logSoftmax(x: Tensor, axis = -1): Tensor {
    return this.node('logSoftmax', [x], { axis: axis < 0 ? axis + x.shape.length : axis });
  }

  /** Softmax along an axis (the last). */
  softmax(x: Tensor, axis = -1): Tensor {
    return this.exp(this.logSoftmax(x, axis));
  }

  /** Negative log-likelihood of integer labels under log-probabilities [N, C]. */
  nll(logp: Tensor, labels: Tensor, reduction: Reduction = 'mean'): Tensor {
    return this.node('nll', [logp, labels], { reduction });
  }

  /**
   * Cross-entropy of integer labels under logits [N, C] (or [..., C] with labels [...], flattened). Plain, it is
   * nll(logSoftmax(logits)), which the e-graph fuses. With `labelSmoothing` ε, `ignoreIndex`, `weight` or
   * reduction `none` it is the decomposition −Σ_c target·logSoftmax(logits) with target = ((1 − ε)·oneHot(labels)
   * + ε/C)·w on rows whose label is in range; rows labelled `ignoreIndex` (and rows with an out-of-range label)
   * count for nothing, and `mean` divides by Σ w[y_i] over counted rows (their number without weights): PyTorch's
   * semantics, NaN when every row is ignored.
   */
  crossEntropy(logits: Tensor, labels: Tensor, opts: Reduction | 'none' | CrossEntropyOptions = 'mean'): Tensor {
    const o: CrossEntropyOptions = typeof opts === 'string' ? { reduction: opts } : opts;
    const reduction = o.reduction ?? 'mean';
    if (logits.shape.length < 2)
      throw new GraphError(`crossEntropy: logits must be [N, C] or [..., C], got ${fmtShape(logits.shape)}`, 'crossEntropy', userCallSite());
    const c = logits.shape[logits.shape.length - 1];
    const rows = logits.shape.slice(0, -1);
    if (labels.dtype !== 'i32') throw new GraphError(`crossEntropy: labels must be i32, got ${labels.dtype}`, 'crossEntropy', userCallSite());
    if (labels.shape.length !== rows.length || labels.shape.some((d, i) => d !== rows[i]))
      throw new GraphError(
        `crossEntropy: labels ${fmtShape(labels.shape)} do not match logits ${fmtShape(logits.shape)} (want labels ${fmtShape(rows)})`,
        'crossEntropy',
        userCallSite(),
      );
    const w = o.weight;
    if (w && (w.shape.length !== 1 || w.shape[0] !== c || w.dtype !== 'f32'))
      throw new GraphError(
        `crossEntropy: weight ${fmtShape(w.shape)}:${w.dtype} does not match the ${c} classes of logits ${fmtShape(logits.shape)} (want weight [${c}]:f32)`,
        'crossEntropy',
        userCallSite(),
      );
    if (!['mean', 'sum', 'none'].includes(reduction))
      throw new GraphError(`crossEntropy: reduction '${reduction}' is not 'mean', 'sum' or 'none'`, 'crossEntropy', userCallSite());
    const x = logits.shape.length === 2 ? logits : this.reshape(logits, [-1, c]);
    const flat = labels.shape.length === 1 ? labels : this.reshape(labels, [-1]);
    const ii = o.ignoreIndex;
    if (ii !== undefined && !Number.isInteger(ii)) throw new GraphError(`crossEntropy: ignoreIndex ${ii} is not an integer`, 'crossEntropy', userCallSite());
    // an in-range ignore index (a pad id such as 0) is relabelled out of range, so its one-hot row is zero
    const l = ii !== undefined && ii >= 0 && ii < c ? this.where(this.eq(flat, ii), -1, flat) : flat;
    const eps = o.labelSmoothing ?? 0;
    if (eps === 0 && o.ignoreIndex === undefined && !w && reduction !== 'none') return this.nll(this.logSoftmax(x), l, reduction);
    if (!(eps >= 0 && eps <= 1)) throw new GraphError(`crossEntropy: labelSmoothing ${eps} is outside [0, 1]`, 'crossEntropy', userCallSite());
    const logp = this.logSoftmax(x);
    const hot = this.oneHot(l, c);
    const counted = this.sum(hot, 1, true); // [N, 1]: 1 for a row with an in-range label, 0 for an ignored one
    const smoothed = eps === 0 ? hot : this.add(this.mul(hot, 1 - eps), this.mul(counted, eps / c));
    // PyTorch weights the smoothing term per class too: ε/C·Σ_c w_c·(−logp_c), over Σ w[y_i] under `mean`
    const target = w ? this.mul(smoothed, w) : smoothed;
    const perRow = this.neg(this.sum(this.mul(target, logp), 1));
    if (reduction === 'none') return labels.shape.length === 1 ? perRow : this.reshape(perRow, labels.shape);
    if (reduction === 'sum') return this.sum(perRow);
    if (w) return this.div(this.sum(perRow), this.sum(this.mul(hot, w)));
    return o.ignoreIndex === undefined ? this.mean(perRow) : this.div(this.sum(perRow), this.sum(counted));
  }

  /** Layer normalisation over the last axes (default the last): (x − mean)·rsqrt(var + eps)·weight + bias, decomposed. */
  layerNorm(x: Tensor, weight?: Tensor, bias?: Tensor, opts: { eps?: number; axes?: number | readonly number[] } = {}): Tensor {
    const axes = this.axes('layerNorm', x, opts.axes ?? -1);
    const centred = this.sub(x, this.mean(x, axes, true));
    const variance = this.mean(this.square(centred), axes, true);
    let y = this.mul(centred, this.rsqrt(this.add(variance, opts.eps ?? 1e-5)));
    if (weight) y = this.mul(y, weight);
    return bias ? this.add(y, bias) : y;
  }

  /** RMS normalisation over the last axis: x·rsqrt(mean(x²) + eps)·weight, decomposed. */
  rmsNorm(x: Tensor, weight?: Tensor, opts: { eps?: number } = {}): Tensor {
    const y = this.mul(x, this.rsqrt(this.add(this.mean(this.square(x), -1, true), opts.eps ?? 1e-6)));
    return weight ? this.mul(y, weight) : y;
  }

  /**
   * Group normalisation of x [N, C, ...] (NCHW for images): the channels split into `groups` groups, each
   * normalised over its channels and spatial positions as [N, G, C/G·rest] → (x − mean)·rsqrt(var + eps), then
   * a per-channel affine with weight/bias [C] broadcast as [1, C, 1, ...]; decomposed.
   */
  groupNorm(x: Tensor, groups: number, weight?: Tensor, bias?: Tensor, opts: { eps?: number } = {}): Tensor {
    if (x.shape.length < 2 || !Number.isInteger(groups) || groups < 1 || x.shape[1] % groups !== 0)
      throw new GraphError(`groupNorm: ${groups} groups do not divide the channels of ${fmtShape(x.shape)} (want [N, C, ...])`, 'groupNorm', userCallSite());
    const [n, c] = x.shape;
    const grouped = this.reshape(x, [n, groups, -1]);
    const centred = this.sub(grouped, this.mean(grouped, 2, true));
    const variance = this.mean(this.square(centred), 2, true);
    let y = this.reshape(this.mul(centred, this.rsqrt(this.add(variance, opts.eps ?? 1e-5))), x.shape);
    const perChannel = x.shape.map((_, i) => (i === 1 ? c : 1));
    if (weight) y = this.mul(y, this.reshape(weight, perChannel));
    return bias ? this.add(y, this.reshape(bias, perChannel)) : y;
  }

  private reduceLoss(x: Tensor, reduction: Reduction): Tensor {
    return reduction === 'mean' ? this.mean(x) : this.sum(x);
  }

  /** Mean (or summed) squared error. */
  mse(pred: Tensor, target: TensorLike, reduction: Reduction = 'mean'): Tensor {
    return this.reduceLoss(this.square(this.sub(pred, target)), reduction);
  }

  /** Mean (or summed) absolute error. */
  l1(pred: Tensor, target: TensorLike, reduction: Reduction = 'mean'): Tensor {
    return this.reduceLoss(this.abs(this.sub(pred, target)), reduction);
  }

  /** Binary cross-entropy of targets in [0, 1] under logits, stably: relu(x) − x·t + softplus(−|x|). */
  bceWithLogits(logits: Tensor, targets: TensorLike, reduction: Reduction = 'mean'): Tensor {
    const per = this.add(this.sub(this.relu(logits), this.mul(logits, targets)), this.softplus(this.neg(this.abs(logits))));
    return this.reduceLoss(per, reduction);
  }

  /**
   * Scaled dot-product attention of q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] as one op (default scale
   * 1/√D; `causal` masks future keys, top-left aligned).
   */
  attention(q: Tensor, k: Tensor, v: Tensor, opts: { causal?: boolean; scale?: number } = {}): Tensor {
    const d = q.shape[q.shape.length - 1];
    return this.node('attention', [q, k, v], { causal: opts.causal ?? false, scale: opts.scale ?? 1 / Math.sqrt(d) });
  }

  /**
   * bool [T, T], true where key j > query i: the positions a causal query must not see, for
   * `where(futureMask(T), −∞, scores)` (PyTorch's `masked_fill(~tril, -inf)`). Built from index ramps (cumsum of
   * ones), the form the optimizer proves causal and replaces, with its softmax·v, by the fused attention op.
   */
  futureMask(t: number): Tensor {
    if (!(Number.isInteger(t) && t >= 1)) throw new GraphError(`futureMask: size must be a positive integer, got ${t}`, 'futureMask', userCallSite());
    const cols = this.cumsum(this.constant(1, [1, t]), 1); // j + 1 along the last axis
    const rows = this.cumsum(this.constant(1, [t, 1]), 0); // i + 1 along the second-to-last
    return this.gt(cols, rows);
  }

  /** f32 additive causal mask [T, T]: 0 on and below the diagonal, −∞ above (`scores + causalMask(T)`; see `futureMask`). */
  causalMask(t: number): Tensor {
    if (!(Number.isInteger(t) && t >= 1)) throw new GraphError(`causalMask: size must be a positive integer, got ${t}`, 'causalMask', userCallSite());
    return this.where(this.futureMask(t), Number.NEGATIVE_INFINITY, 0);
  }

  /** Rotary position embedding of x [..., T, D] (half-split pairs, base 10000 by default). */
  rope(x: Tensor, opts: { base?: number } = {}): Tensor {
    return this.node('rope', [x], { base: opts.base ?? 10000, inverse: false });
  }

  /**
   * Dropout with probability p and an explicit seed: the mask is a hash of (seed + offset, element index), so
   * the same on every run and device; feed a different i32 scalar `offset` (the step) to vary it per step.
   */
  dropout(x: Tensor, p: number, seed: number, offset?: Tensor): Tensor {
    if (p === 0) return x;
    return this.node('dropout', offset ? [x, offset] : [x], { p, seed });
  }

  /**
   * 2-D convolution, NCHW: x [N, C, H, W], w [O, C/groups, KH, KW], optional bias [O]. Numbers apply to both
   * axes; pairs are [H, W].
   */
  conv2d(x: Tensor, w: Tensor, bias?: Tensor, opts: { stride?: number | [number, number]; padding?: number | [number, number]; dilation?: number | [number, number]; groups?: number } = {}): Tensor {
    const y = this.node('conv2d', [x, w], { stride: pair(opts.stride ?? 1), padding: pair(opts.padding ?? 0), dilation: pair(opts.dilation ?? 1), groups: opts.groups ?? 1 });
    return bias ? this.add(y, this.reshape(bias, [bias.shape[0], 1, 1])) : y;
  }

  /**
   * Transposed 2-D convolution (PyTorch's conv_transpose2d), NCHW: x [N, Cin, H, W], w [Cin, Cout/groups, KH, KW],
   * optional bias [Cout]; Ho = (H − 1)·sh − 2ph + dh(KH − 1) + outputPadding + 1. It is conv2d's gradient in its input.
   */
  convTranspose2d(x: Tensor, w: Tensor, bias?: Tensor, opts: { stride?: number | [number, number]; padding?: number | [number, number]; outputPadding?: number | [number, number]; dilation?: number | [number, number]; groups?: number } = {}): Tensor {
    const [stride, padding, dilation, outPad] = [pair(opts.stride ?? 1), pair(opts.padding ?? 0), pair(opts.dilation ?? 1), pair(opts.outputPadding ?? 0)];
    if (x.shape.length !== 4 || w.shape.length !== 4)
      throw new GraphError(`convTranspose2d: x ${fmtShape(x.shape)} and w ${fmtShape(w.shape)} must be 4-D`, 'convTranspose2d', userCallSite());
    if (outPad.some((p, i) => !Number.isInteger(p) || p < 0 || (p >= stride[i] && p >= dilation[i])))
      throw new GraphError(`convTranspose2d: outputPadding [${outPad}] must be smaller than the stride [${stride}] or the dilation [${dilation}]`, 'convTranspose2d', userCallSite());
    const size = (i: 0 | 1) => (x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w.shape[2 + i] - 1) + outPad[i] + 1;
    const y = this.node('conv2dGradInput', [x, w], { stride, padding, dilation, groups: opts.groups ?? 1, inputSize: [size(0), size(1)] });
    return bias ? this.add(y, this.reshape(bias, [bias.shape[0], 1, 1])) : y;
  }

  /** Max pooling, NCHW, as PyTorch's max_pool2d (stride defaults to the kernel; dilation 1; floor mode). */
  maxPool2d(x: Tensor, kernel: number | [number, number], opts: MaxPool2dOptions = {}): Tensor {
    return this.node('maxPool2d', [x], maxPoolAttrs(kernel, opts));
  }

  /**
   * Max pooling that also gives PyTorch's indices (return_indices): [values, indices], indices i32 of the same
   * shape, each the position iy·W + ix of its window's first maximum in its H×W plane.
   */
  maxPool2dWithIndices(x: Tensor, kernel: number | [number, number], opts: MaxPool2dOptions = {}): [Tensor, Tensor] {
    const a = maxPoolAttrs(kernel, opts);
    return [this.node('maxPool2d', [x], a), this.node('maxPool2dIndices', [x], a)];
  }

  /** Average pooling, NCHW (stride defaults to the kernel; padding counts in the mean). */
  avgPool2d(x: Tensor, kernel: number | [number, number], opts: { stride?: number | [number, number]; padding?: number | [number, number] } = {}): Tensor {
    return this.node('avgPool2d', [x], { kernel: pair(kernel), stride: pair(opts.stride ?? kernel), padding: pair(opts.padding ?? 0) });
  }

  /** Mean over H and W of x [N, C, H, W] → [N, C] (keepdims: [N, C, 1, 1]). */
  globalAvgPool(x: Tensor, keepdims = false): Tensor {
    return this.mean(x, [2, 3], keepdims);
  }

  /** Marks a node as a named result of the graph. */
  output(name: string, t: Tensor): Tensor {
    this.outputs.set(name, t.id);
    return t;
  }

  /** Declares that `state` (a param or state leaf) takes `value` at the end of each step. */
  update(state: Tensor, value: Tensor): void {
    if (state.op !== 'param' && state.op !== 'state')
      throw new GraphError(`update: target must be a param or state leaf, got ${state.op}`, 'update', userCallSite());
    if (fmtShape(state.shape) !== fmtShape(value.shape) || state.dtype !== value.dtype)
      throw new GraphError(
        `update: value ${fmtShape(value.shape)}:${value.dtype} does not match state ${fmtShape(state.shape)}:${state.dtype}`,
        'update',
        userCallSite(),
      );
    if (this.updates.some((u) => u.state === state.id))
      throw new GraphError(`update: '${state.attrs.name}' is already updated`, 'update', userCallSite());
    this.updates.push({ state: state.id, value: value.id });
  }

  /** Node ids reachable from the outputs and update values, in topological order (dead nodes dropped). */
  live(): NodeId[] {
    const seen = new Uint8Array(this.nodes.length);
    const roots = [...this.outputs.values(), ...this.updates.flatMap((u) => [u.value, u.state])];
    const stack = [...roots];
    while (stack.length) {
      const id = stack.pop() as NodeId;
      if (seen[id]) continue;
      seen[id] = 1;
      for (const i of this.nodes[id].inputs) stack.push(i);
    }
    const ids: NodeId[] = [];
    for (let i = 0; i < seen.length; i++) if (seen[i]) ids.push(i);
    return ids; // ids are created after their inputs, so id order is topological
  }
}

/** Whether two nodes are the same value (same op, operands, attributes and type): a copy of a node is not foreign. */
function sameNode(a: Node, b: Node): boolean {
  return (
    a.op === b.op &&
    a.dtype === b.dtype &&
    a.shape.length === b.shape.length &&
    a.shape.every((d, i) => d === b.shape[i]) &&
    a.inputs.length === b.inputs.length &&
    a.inputs.every((d, i) => d === b.inputs[i]) &&
    JSON.stringify(a.attrs, exactNumbers) === JSON.stringify(b.attrs, exactNumbers)
  );
}

/**
 * JSON replacer for node keys: JSON writes NaN, ±Infinity as `null` and -0 as `0`, which would hash-cons
 * `constant(-Infinity)` and `constant(Infinity)` into one node; these get distinct texts instead.
 */
function exactNumbers(_key: string, v: unknown): unknown {
  return typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)) ? `\u0000${Object.is(v, -0) ? '-0' : String(v)}` : v;
}

const pair = (v: number | readonly [number, number]): [number, number] => (typeof v === 'number' ? [v, v] : [v[0], v[1]]);

/** maxPool2d's attributes from the builder's arguments, with PyTorch's defaults. */
const maxPoolAttrs = (kernel: number | [number, number], o: MaxPool2dOptions): MaxPoolAttrs => ({
  kernel: pair(kernel),
  stride: pair(o.stride ?? kernel),
  padding: pair(o.padding ?? 0),
  dilation: pair(o.dilation ?? 1),
  ceilMode: o.ceilMode ?? false,
});

/** Result shape of broadcasting two tensors (exposed for builders in other packages). */
export function broadcastOf(a: Tensor, b: Tensor): number[] {
  const s = broadcastShapes(a.shape, b.shape);
  if (!s) throw new GraphError(`shapes ${fmtShape(a.shape)} and ${fmtShape(b.shape)} do not broadcast`);
  return s;
}

/** A stable 31-bit seed from a name, so default initialisation is reproducible per parameter. */
export function hashName(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 1) % 2147483647;
}

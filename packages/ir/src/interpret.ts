// The reference interpreter: the ground truth for every op, rewrite rule, gradient and kernel. Written for
// clarity, not speed: each op is a direct loop over row-major data. In float64 mode every float is a double;
// in float32 mode each op's result is rounded to float32, as a GPU kernel would store it.

import { isFloat } from './dtype.js';
import { f16round } from './f16.js';
import { type Graph, leafName, type Node, type NodeId } from './graph.js';
import { customOpDef } from './customOp.js';
import { q4Value } from './quantQ4.js';
import { q8Scale, q8Value } from './quantQ8.js';
import { perBinaryOp, perUnaryOp } from './elementwise.js';
import { alloc, broadcastMap, type Ctx, type Impl, out } from './interpretCore.js';
import {
  interpretAvgPool2d,
  interpretAvgPool2dGrad,
  interpretConv2d,
  interpretConv2dGradInput,
  interpretConv2dGradWeight,
  interpretMaxPool2d,
  interpretMaxPool2dGrad,
  interpretMaxPool2dIndices,
} from './interpretConv.js';
import { interpretAttention, interpretAttentionGrad, interpretAttentionWithLse, interpretAttentionGradKV, interpretAttentionGradQKV, interpretAttentionLse, interpretDropout, interpretRope } from './interpretNn.js';
import { interpretArgmax, interpretCumsum, interpretConcat, interpretGather, interpretOneHot, interpretPad, interpretScatterAdd, interpretSlice } from './interpretIndexing.js';
import { BINARY_FN, castScalar, evalPwExpr, type PwExpr, UNARY_FN } from './pointwiseExpr.js';
import type { OpKind, ReduceOp, RowStat } from './ops.js';
import { splitKChunk } from './splitK.js';
import { groupOperands } from './multiResult.js';
import { attrsOf } from './opWithAttrs.js';
import { broadcastStrides, numel, type Shape, stridesOf } from './shape.js';
import { initialValue, type TensorData, type TensorValue } from './tensorValue.js';
import type { Precision } from './interpretCore.js';

export type { Precision } from './interpretCore.js';

/** What `interpret` returns: every live node's value, the named outputs and the new state values. */
export interface InterpretResult {
  /** The value of every node that was evaluated, by node id. */
  readonly values: Map<NodeId, TensorValue>;
  /** The graph's named outputs, by name. */
  readonly outputs: Record<string, TensorValue>;
  /** New values of updated params/state, by leaf name. */
  readonly updates: Record<string, TensorValue>;
}

const unary =
  (f: (x: number) => number): Impl<any> =>
  (node, [x], ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    for (let i = 0; i < d.length; i++) d[i] = ctx.round(f(x.data[i]));
    return out(node, d);
  };

const binary =
  (f: (a: number, b: number) => number): Impl<any> =>
  (node, ins, ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    const [a, b] = ins;
    const r = isFloat(node.dtype) ? ctx.round : (x: number) => x | 0;
    broadcastMap(node, ins, (o, idx) => {
      d[o] = r(f(a.data[idx[0]], b.data[idx[1]]));
    });
    return out(node, d);
  };

/** One expression of a (multi-)pointwise node over its operand values, shaped and typed like the node. */
function pointwiseResult(node: Node, expr: PwExpr, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const d = alloc(node.shape, node.dtype, ctx);
  const vals = new Array<number>(ins.length);
  const r = isFloat(node.dtype) ? ctx.round : (x: number) => castScalar(x, node.dtype);
  broadcastMap(node, ins, (o, idx) => {
    for (let j = 0; j < ins.length; j++) vals[j] = ins[j].data[idx[j]];
    d[o] = r(evalPwExpr(expr, vals, ctx.round));
  });
  return out(node, d);
}

/** [S, ...shape] summed over its leading axis (float64 sums, rounded once): split-K partials read as their product. */
function sumLeading(x: TensorValue, shape: Shape, ctx: Ctx): TensorValue {
  const n = numel(shape);
  const S = x.shape[0];
  const d = alloc(shape, 'f32', ctx);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let p = 0; p < S; p++) s += x.data[p * n + i];
    d[i] = ctx.round(s);
  }
  return { shape, dtype: 'f32', data: d };
}

/** Result `index` of a pointwiseMultiTensor: its expression over its group's operands (shared ones first). */
function multiTensorResult(node: Node<'pointwiseMultiTensor'>, index: number, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { exprs, shapes } = node.attrs;
  const g = Math.floor(index / exprs.length);
  const { shared, roles, operand } = groupOperands(node);
  const group = Array.from({ length: shared + roles }, (_, j) => ins[operand(g, j)]);
  const P = node.attrs.partials;
  if (P && P.splits[g] > 1) group[shared + P.role] = sumLeading(group[shared + P.role], shapes[g], ctx);
  return pointwiseResult({ ...node, shape: shapes[g] }, exprs[index % exprs.length], group, ctx);
}

/** Folds `x` over the reduced axes; `init` and `step` define the reduction. */
function reduce(node: Node<'sum' | 'mean' | 'reduceMax' | 'reduceMin'>, x: TensorValue, ctx: Ctx, init: number, step: (acc: number, v: number) => number, finish: (acc: number, count: number) => number): TensorValue {
  return out(node, reduceData(node.attrs.axes, node.shape, x, ctx, init, step, finish));
}

/** The reductions by kind: start value, combine, finish (from the sum and the count). */
const REDUCERS: Readonly<Record<ReduceOp, readonly [number, (acc: number, v: number) => number, (acc: number, count: number) => number]>> = {
  sum: [0, (a, v) => a + v, (a) => a],
  mean: [0, (a, v) => a + v, (a, n) => a / n],
  reduceMax: [-Infinity, (a, v) => Math.max(a, v), (a) => a],
  reduceMin: [Infinity, (a, v) => Math.min(a, v), (a) => a],
};

/**
 * `pointwiseReduce`: the prologue over the broadcast inputs (each value rounded as a `pointwise` node's), the
 * reduction (float64, rounded once), then the epilogue per reduced value: exactly the unfused nodes' values.
 */
function pointwiseReduce(node: Node<'pointwiseReduce'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const a = node.attrs;
  const pre = alloc(a.shape, 'f32', ctx);
  const vals = new Array<number>(ins.length);
  broadcastMap({ shape: a.shape }, ins, (o, idx) => {
    for (let j = 0; j < ins.length; j++) vals[j] = ins[j].data[idx[j]];
    pre[o] = ctx.round(evalPwExpr(a.expr, vals, ctx.round));
  });
  const [init, step, finish] = REDUCERS[a.reduce];
  const d = reduceData(a.axes, node.shape, { shape: a.shape, dtype: 'f32', data: pre }, ctx, init, step, finish);
  if (!(a.post.op === 'in' && a.post.index === 0)) for (let i = 0; i < d.length; i++) d[i] = ctx.round(evalPwExpr(a.post, [d[i]], ctx.round));
  return out(node, d);
}

/** Result `index` of a `pointwiseReduceMulti`: that result's `pointwiseReduce` (`node` gives the result's type). */
function reduceMultiResult(node: Node, index: number, ins: readonly TensorValue[], ctx: Ctx, multi: Node<'pointwiseReduceMulti'> = node as Node<'pointwiseReduceMulti'>): TensorValue {
  const { results, ...rest } = multi.attrs;
  return pointwiseReduce({ ...node, op: 'pointwiseReduce', attrs: { ...rest, ...results[index] } } as Node<'pointwiseReduce'>, ins, ctx);
}

/**
 * `rowwise`: per row, each stat as a `pointwiseReduce` over the row would compute it (prologue values rounded, the
 * reduction in float64, rounded, then the epilogue), then the expression per element: the unfused nodes' values.
 */
function rowwise(node: Node<'rowwise'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  return rowwiseResult(node, node.attrs.expr, node.attrs.stats, ins, ctx);
}

/** One result of a row kernel: the stats as `rowwise` computes them, then `expr` (`node` gives the result's type). */
function rowwiseResult(node: Node, expr: PwExpr, stats: readonly RowStat[], ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const shape = node.shape;
  const C = shape[shape.length - 1];
  const rows = C === 0 ? 0 : numel(shape) / C;
  const vals = new Array<number>(ins.length + stats.length).fill(0);
  // every operand's value at every element, in row-major order of the output (broadcast once)
  const at: number[][] = ins.map(() => new Array<number>(numel(shape)));
  broadcastMap(node, ins, (o, idx) => {
    for (let j = 0; j < ins.length; j++) at[j][o] = ins[j].data[idx[j]];
  });
  const d = alloc(shape, 'f32', ctx);
  const load = (o: number) => {
    for (let j = 0; j < ins.length; j++) vals[j] = at[j][o];
  };
  for (let r = 0; r < rows; r++) {
    stats.forEach((s, k) => {
      const [init, step, finish] = REDUCERS[s.reduce];
      let acc = init;
      for (let c = 0; c < C; c++) {
        load(r * C + c);
        acc = step(acc, ctx.round(evalPwExpr(s.expr, vals, ctx.round)));
      }
      const v = ctx.round(finish(acc, C));
      vals[ins.length + k] = s.post.op === 'in' && s.post.index === 0 ? v : ctx.round(evalPwExpr(s.post, [v], ctx.round));
    });
    for (let c = 0; c < C; c++) {
      load(r * C + c);
      d[r * C + c] = ctx.round(evalPwExpr(expr, vals, ctx.round));
    }
  }
  return out(node, d);
}

/** The data of `x` folded over `axes` into `outShape` (a reduction's values, rounded). */
function reduceData(axes: readonly number[], outShape: Shape, x: TensorValue, ctx: Ctx, init: number, step: (acc: number, v: number) => number, finish: (acc: number, count: number) => number): TensorData {
  const shape = x.shape;
  const keptShape = shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const keptStrides = stridesOf(keptShape);
  const acc = new Float64Array(numel(keptShape)).fill(init);
  const inStrides = stridesOf(shape);
  const n = numel(shape);
  for (let i = 0; i < n; i++) {
    let o = 0;
    for (let ax = 0; ax < shape.length; ax++) {
      if (axes.includes(ax)) continue;
      o += Math.floor(i / inStrides[ax]) % shape[ax] * keptStrides[ax];
    }
    acc[o] = step(acc[o], x.data[i]);
  }
  const count = axes.reduce((p, ax) => p * shape[ax], 1);
  const d = alloc(outShape, 'f32', ctx);
  for (let i = 0; i < d.length; i++) d[i] = ctx.round(finish(acc[i], count));
  return d;
}

/** Batched a·b with the flags on the last two axes and numpy-broadcast batch axes (float64 sums). */
function matmulCore(node: Node, a: TensorValue, b: TensorValue, transA: boolean, transB: boolean, ctx: Ctx): TensorData {
  const rank = node.shape.length;
  const [m, n] = [node.shape[rank - 2], node.shape[rank - 1]];
  const k = transA ? a.shape[a.shape.length - 2] : a.shape[a.shape.length - 1];
  const batch = node.shape.slice(0, -2);
  const aStr = broadcastStrides(a.shape.slice(0, -2), batch);
  const bStr = broadcastStrides(b.shape.slice(0, -2), batch);
  const bStrides = stridesOf(batch);
  const d = alloc(node.shape, 'f32', ctx);
  const batches = numel(batch);
  for (let bi = 0; bi < batches; bi++) {
    let ao = 0;
    let bo = 0;
    for (let ax = 0; ax < batch.length; ax++) {
      const c = Math.floor(bi / bStrides[ax]) % batch[ax];
      ao += c * aStr[ax];
      bo += c * bStr[ax];
    }
    ao *= m * k;
    bo *= k * n;
    const oo = bi * m * n;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) {
          const av = transA ? a.data[ao + p * m + i] : a.data[ao + i * k + p];
          const bv = transB ? b.data[bo + j * k + p] : b.data[bo + p * n + j];
          s += av * bv;
        }
        d[oo + i * n + j] = s;
      }
  }
  return d;
}

/** Row-wise log-softmax over the last axis, in float64. */
/** A quantized matmul's product `y` (rounded) through its epilogue, if any, over `extras` (as `matmulEpilogue`'s). */
function withEpilogue(node: Node<'matmulQ8' | 'matmulQ4'>, y: TensorData, extras: readonly TensorValue[], ctx: Ctx): TensorData {
  const { expr } = node.attrs;
  if (expr === undefined) return y;
  const vals = new Array<number>(extras.length + 1);
  broadcastMap(node, extras, (o, idx) => {
    vals[0] = y[o];
    for (let j = 0; j < extras.length; j++) vals[j + 1] = extras[j].data[idx[j]];
    y[o] = ctx.round(evalPwExpr(expr, vals, ctx.round));
  });
  return y;
}

function logSoftmaxRows(x: TensorData, rows: number, cols: number): Float64Array {
  const y = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let mx = -Infinity;
    for (let c = 0; c < cols; c++) mx = Math.max(mx, x[r * cols + c]);
    let s = 0;
    for (let c = 0; c < cols; c++) s += Math.exp(x[r * cols + c] - mx);
    const lse = mx + Math.log(s);
    for (let c = 0; c < cols; c++) y[r * cols + c] = x[r * cols + c] - lse;
  }
  return y;
}

function checkLabels(op: string, labels: TensorValue, classes: number): void {
  for (let i = 0; i < labels.data.length; i++) {
    const l = labels.data[i];
    if (!(l >= 0 && l < classes)) throw new RangeError(`${op}: label ${l} at index ${i} is outside [0, ${classes})`);
  }
}

const scale = (reduction: 'mean' | 'sum', n: number) => (reduction === 'mean' ? 1 / n : 1);

const leafError: Impl<any> = (node: Node): never => {
  throw new Error(`interpret: leaf ${node.op} must be supplied by the caller`);
};

/**
 * A weight-only quantized matmul (`matmulQ8`, `matmulQ4`): x · w with w[k][n] = d[n][⌊k/32⌋] times the format's
 * value of q at (n, k) (`value`: quantQ8's or quantQ4's reader), sums in float64, then the op's epilogue if any.
 */
function quantizedMatmul(node: Node<'matmulQ8' | 'matmulQ4'>, ins: readonly TensorValue[], ctx: Ctx, value: (q: ArrayLike<number>, words: number, n: number, k: number) => number): TensorValue {
  const [x, q, d] = ins;
  const k = x.shape[x.shape.length - 1];
  const rows = k === 0 ? 0 : x.data.length / k;
  const [n, words] = q.shape;
  const dWords = d.shape[1];
  const w = new Float64Array(k * n);
  for (let j = 0; j < n; j++) for (let p = 0; p < k; p++) w[p * n + j] = q8Scale(d.data, dWords, j, p >> 5) * value(q.data, words, j, p);
  const y = alloc(node.shape, 'f32', ctx);
  for (let r = 0; r < rows; r++)
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let p = 0; p < k; p++) acc += x.data[r * k + p] * w[p * n + j];
      y[r * n + j] = ctx.round(acc);
    }
  return out(node, withEpilogue(node, y, ins.slice(3), ctx));
}

/** Reference semantics of every op. */
export const INTERPRET: { [K in OpKind]: Impl<K> } = {
  input: leafError,
  param: leafError,
  state: leafError,
  ...perUnaryOp((op) => unary(UNARY_FN[op])),
  ...perBinaryOp((op) => binary(BINARY_FN[op])),
  const: (node, _ins, ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    d.fill(isFloat(node.dtype) ? ctx.round(node.attrs.value) : castScalar(node.attrs.value, node.dtype));
    return out(node, d);
  },
  where: (node, ins, ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    const [c, a, b] = ins;
    broadcastMap(node, ins, (o, idx) => {
      d[o] = c.data[idx[0]] !== 0 ? a.data[idx[1]] : b.data[idx[2]];
    });
    return out(node, d);
  },
  cast: (node, [x], ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    for (let i = 0; i < d.length; i++) d[i] = node.dtype === 'f32' ? ctx.round(x.data[i]) : castScalar(x.data[i], node.dtype);
    return out(node, d);
  },
  sum: (node, [x], ctx) => reduce(node, x, ctx, ...REDUCERS.sum),
  mean: (node, [x], ctx) => reduce(node, x, ctx, ...REDUCERS.mean),
  reduceMax: (node, [x], ctx) => reduce(node, x, ctx, ...REDUCERS.reduceMax),
  reduceMin: (node, [x], ctx) => reduce(node, x, ctx, ...REDUCERS.reduceMin),
  argmax: interpretArgmax,
  cumsum: interpretCumsum,
  reshape: (node, [x]) => ({ shape: node.shape, dtype: node.dtype, data: x.data }),
  after: (node, [x]) => ({ shape: node.shape, dtype: node.dtype, data: x.data }),
  transpose: (node, [x], ctx) => {
    const { perm } = node.attrs;
    const inStrides = stridesOf(x.shape);
    const permStrides = perm.map((p) => inStrides[p]);
    const src = { shape: node.shape, dtype: x.dtype, data: x.data };
    const d = alloc(node.shape, node.dtype, ctx);
    // read through permuted strides: treat the input as broadcast-free with custom strides
    const shape = node.shape;
    const coord = new Array<number>(shape.length).fill(0);
    for (let o = 0; o < d.length; o++) {
      let i = 0;
      for (let ax = 0; ax < shape.length; ax++) i += coord[ax] * permStrides[ax];
      d[o] = src.data[i];
      for (let ax = shape.length - 1; ax >= 0; ax--) {
        if (++coord[ax] < shape[ax]) break;
        coord[ax] = 0;
      }
    }
    return out(node, d);
  },
  expand: (node, ins, ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    broadcastMap(node, ins, (o, idx) => {
      d[o] = ins[0].data[idx[0]];
    });
    return out(node, d);
  },
  slice: interpretSlice,
  pad: interpretPad,
  concat: interpretConcat,
  gather: interpretGather,
  scatterAdd: interpretScatterAdd,
  oneHot: interpretOneHot,
  stopGradient: (node, [x]) => ({ shape: node.shape, dtype: node.dtype, data: x.data }),
  custom: (node, ins, ctx) => {
    const values = customOpDef(node.attrs.name).interpret(ins, node.attrs.params, { shape: node.shape, dtype: node.dtype });
    const d = alloc(node.shape, node.dtype, ctx);
    if (values.length !== d.length) throw new Error(`interpret: custom op '${node.attrs.name}' returned ${values.length} values for shape [${node.shape.join(', ')}]`);
    const r = isFloat(node.dtype) ? ctx.round : (x: number) => x | 0;
    for (let i = 0; i < d.length; i++) d[i] = r(values[i]);
    return out(node, d);
  },
  matmul: (node, [a, b], ctx) => {
    const d = matmulCore(node, a, b, node.attrs.transA, node.attrs.transB, ctx);
    for (let i = 0; i < d.length; i++) d[i] = ctx.round(d[i]);
    return out(node, d);
  },
  logSoftmax: (node, [x], ctx) => {
    const cols = x.shape[x.shape.length - 1];
    const y = logSoftmaxRows(x.data, x.data.length / cols, cols);
    const d = alloc(node.shape, 'f32', ctx);
    for (let i = 0; i < d.length; i++) d[i] = ctx.round(y[i]);
    return out(node, d);
  },
  logSoftmaxGrad: (node, [y, g], ctx) => {
    const cols = y.shape[y.shape.length - 1];
    const rows = y.data.length / cols;
    const d = alloc(node.shape, 'f32', ctx);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let c = 0; c < cols; c++) s += g.data[r * cols + c];
      for (let c = 0; c < cols; c++) d[r * cols + c] = ctx.round(g.data[r * cols + c] - Math.exp(y.data[r * cols + c]) * s);
    }
    return out(node, d);
  },
  nll: (node, [logp, labels], ctx) => {
    const [n, c] = logp.shape;
    checkLabels('nll', labels, c);
    let s = 0;
    for (let i = 0; i < n; i++) s -= logp.data[i * c + labels.data[i]];
    const d = alloc([], 'f32', ctx);
    d[0] = ctx.round(s * scale(node.attrs.reduction, n));
    return out(node, d);
  },
  nllGrad: (node, [labels, dy], ctx) => {
    const [n, c] = node.shape;
    checkLabels('nllGrad', labels, c);
    const d = alloc(node.shape, 'f32', ctx);
    const v = ctx.round(-dy.data[0] * scale(node.attrs.reduction, n));
    for (let i = 0; i < n; i++) d[i * c + labels.data[i]] = v;
    return out(node, d);
  },
  attention: interpretAttention,
  attentionLse: interpretAttentionLse,
  attentionGrad: interpretAttentionGrad,
  attentionWithLse: (node, ins, ctx) => interpretAttentionWithLse(node, node.attrs, ins, 0, ctx),
  attentionGradKV: (node, ins, ctx) => interpretAttentionGradKV(node, node.attrs, ins, 0, ctx),
  attentionGradQKV: interpretAttentionGradQKV,
  rope: interpretRope,
  dropout: interpretDropout,
  conv2d: interpretConv2d,
  conv2dGradInput: interpretConv2dGradInput,
  conv2dGradWeight: interpretConv2dGradWeight,
  maxPool2d: interpretMaxPool2d,
  maxPool2dGrad: interpretMaxPool2dGrad,
  maxPool2dIndices: interpretMaxPool2dIndices,
  avgPool2d: interpretAvgPool2d,
  avgPool2dGrad: interpretAvgPool2dGrad,
  fusedMatmul: (node, ins, ctx) => {
    const { transA, transB, bias, activation } = node.attrs;
    const d = matmulCore(node, ins[0], ins[1], transA, transB, ctx);
    if (bias) {
      const b = ins[2];
      broadcastMap(node, [b], (o, idx) => {
        d[o] += b.data[idx[0]];
      });
    }
    for (let i = 0; i < d.length; i++) d[i] = ctx.round(activation === 'relu' ? Math.max(0, d[i]) : d[i]);
    return out(node, d);
  },
  // x · w with w[k][n] = d[n][⌊k/32⌋]·q[n][k] (exact in f32: an f16 times an int8)
  matmulQ8: (node, ins, ctx) => quantizedMatmul(node, ins, ctx, q8Value),
  // x · w with w[k][n] = d[n][⌊k/32⌋]·(q[n][k] − 8) (exact in f32: an f16 times a small integer)
  matmulQ4: (node, ins, ctx) => quantizedMatmul(node, ins, ctx, q4Value),
  matmulPartials: (node, ins, ctx) => {
    // partial s is the product of op(a)'s columns and op(b)'s rows in chunk s of K (float64 sums, then rounded);
    // operands read rounded to f16 (`round`) take their f16 values
    const { transA, transB, splits, round } = node.attrs;
    const [a, b] = [0, 1].map((i) => (round?.[i] ? toF16(ins[i]) : ins[i]));
    const [, m, n] = node.shape;
    const k = transA ? a.shape[0] : a.shape[1];
    const chunk = splitKChunk(k, splits);
    const d = alloc(node.shape, 'f32', ctx);
    for (let s = 0; s < splits; s++)
      for (let i = 0; i < m; i++)
        for (let j = 0; j < n; j++) {
          let acc = 0;
          for (let p = s * chunk; p < Math.min(k, (s + 1) * chunk); p++) acc += (transA ? a.data[p * m + i] : a.data[i * k + p]) * (transB ? b.data[j * k + p] : b.data[p * n + j]);
          d[(s * m + i) * n + j] = ctx.round(acc);
        }
    return out(node, d);
  },
  matmulEpilogue: (node, ins, ctx) => {
    const { transA, transB, expr, round } = node.attrs;
    // operands read rounded to f16 (an autocast cast folded in) take their f16 values
    const [a, b] = [0, 1].map((i) => (round?.[i] ? toF16(ins[i]) : ins[i]));
    const prod = matmulCore(node, a, b, transA, transB, ctx);
    const extras = ins.slice(2);
    const d = alloc(node.shape, 'f32', ctx);
    const vals = new Array<number>(ins.length - 1);
    // the product rounded as a `matmul` node's value, then the epilogue as a `pointwise` node evaluates it
    broadcastMap(node, extras, (o, idx) => {
      vals[0] = ctx.round(prod[o]);
      for (let j = 0; j < extras.length; j++) vals[j + 1] = extras[j].data[idx[j]];
      d[o] = ctx.round(evalPwExpr(expr, vals, ctx.round));
    });
    return out(node, d);
  },
  pointwiseMulti: (node, ins, ctx) => pointwiseResult(node, node.attrs.exprs[0], ins, ctx),
  pointwiseMultiTensor: (node, ins, ctx) => multiTensorResult(node, 0, ins, ctx),
  pick: (node) => {
    throw new Error(`interpret: pick %${node.id} is evaluated from its multi-result node's operands (by interpret itself)`);
  },
  pointwiseReduce,
  pointwiseReduceMulti: (node, ins, ctx) => reduceMultiResult(node, 0, ins, ctx),
  rowwise,
  rowwiseMulti: (node, ins, ctx) => rowwiseResult(node, node.attrs.exprs[0], node.attrs.stats, ins, ctx),
  pointwise: (node, ins, ctx) => {
    const d = alloc(node.shape, node.dtype, ctx);
    const vals = new Array<number>(ins.length);
    const r = isFloat(node.dtype) ? ctx.round : (x: number) => castScalar(x, node.dtype);
    broadcastMap(node, ins, (o, idx) => {
      for (let j = 0; j < ins.length; j++) vals[j] = ins[j].data[idx[j]];
      d[o] = r(evalPwExpr(node.attrs.expr, vals, ctx.round));
    });
    return out(node, d);
  },
  softmaxCrossEntropy: (node, [x, labels], ctx) => {
    const [n, c] = x.shape;
    checkLabels('softmaxCrossEntropy', labels, c);
    const y = logSoftmaxRows(x.data, n, c);
    let s = 0;
    for (let i = 0; i < n; i++) s -= y[i * c + labels.data[i]];
    const d = alloc([], 'f32', ctx);
    d[0] = ctx.round(s * scale(node.attrs.reduction, n));
    return out(node, d);
  },
  softmaxCrossEntropyGrad: (node, [x, labels, dy], ctx) => {
    const [n, c] = x.shape;
    checkLabels('softmaxCrossEntropyGrad', labels, c);
    const y = logSoftmaxRows(x.data, n, c);
    const k = dy.data[0] * scale(node.attrs.reduction, n);
    const d = alloc(node.shape, 'f32', ctx);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < c; j++) d[i * c + j] = ctx.round((Math.exp(y[i * c + j]) - (labels.data[i] === j ? 1 : 0)) * k);
    return out(node, d);
  },
};

/** The reference implementation of op `K` (for a node of any op: `implOf(node.op)(node, …)`). */
function implOf<K extends OpKind>(op: K): Impl<K> {
  return INTERPRET[op];
}

function toPrecision(v: TensorValue, ctx: Ctx): TensorValue {
  if (!isFloat(v.dtype)) return v.data instanceof Int32Array ? v : { ...v, data: Int32Array.from(v.data) };
  const want = ctx.precision === 'f64' ? Float64Array : Float32Array;
  return v.data instanceof want ? v : { ...v, data: want.from(v.data) };
}

/**
 * An f16 node's value: computed as an f32 (or f64) result, then rounded to f16 once, as a kernel's f16 store does;
 * a copy, so that a view's source or a caller's feed is never rewritten.
 */
function toF16(v: TensorValue): TensorValue {
  const data = v.data instanceof Float64Array ? new Float64Array(v.data.length) : new Float32Array(v.data.length);
  for (let i = 0; i < data.length; i++) data[i] = f16round(v.data[i]);
  return { shape: v.shape, dtype: 'f16', data };
}

/**
 * Runs a graph on the host. `feeds` supplies inputs by name; `state` supplies params and state by name
 * (missing ones take their `init`). Only nodes that outputs and updates depend on are evaluated.
 */
export function interpret(
  graph: Graph,
  feeds: Record<string, TensorValue>,
  state: Record<string, TensorValue> = {},
  precision: Precision = 'f64',
): InterpretResult {
  const ctx: Ctx = { precision, round: precision === 'f64' ? (x) => x : Math.fround };
  const values = new Map<NodeId, TensorValue>();
  for (const id of graph.live()) {
    const node = graph.nodes[id];
    let v: TensorValue;
    if (node.op === 'input' || node.op === 'param' || node.op === 'state') {
      const name = node.attrs.name;
      if (node.op === 'input') {
        const given = feeds[name];
        if (!given) throw new Error(`interpret: missing input '${name}'`);
        v = toPrecision(given, ctx);
      } else v = toPrecision(state[name] ?? initialValue(node.attrs.init, node.shape, node.dtype, name), ctx);
      if (v.data.length !== numel(node.shape)) throw new Error(`interpret: '${name}' has ${v.data.length} values, expected shape [${node.shape}]`);
    } else if (node.op === 'pick') {
      // result `index` of a multi-result node, from that node's operands
      const multi = graph.nodes[node.inputs[0]];
      const ins = multi.inputs.map((i) => values.get(i) as TensorValue);
      if (multi.op === 'attentionWithLse') v = interpretAttentionWithLse(node, attrsOf(multi, 'attentionWithLse'), ins, node.attrs.index, ctx);
      else if (multi.op === 'pointwiseMultiTensor') v = multiTensorResult(multi, node.attrs.index, ins, ctx);
      else if (multi.op === 'pointwiseReduceMulti') v = reduceMultiResult(node, node.attrs.index, ins, ctx, multi as Node<'pointwiseReduceMulti'>);
      else if (multi.op === 'rowwiseMulti') {
        const a = attrsOf(multi, 'rowwiseMulti');
        v = rowwiseResult(node, a.exprs[node.attrs.index], a.stats, ins, ctx);
      }
      else if (multi.op === 'attentionGradKV') v = interpretAttentionGradKV(node, attrsOf(multi, 'attentionGradKV'), ins, node.attrs.index, ctx);
      else v = pointwiseResult(multi, attrsOf(multi, 'pointwiseMulti').exprs[node.attrs.index], ins, ctx);
    } else {
      v = implOf(node.op)(node, node.inputs.map((i) => values.get(i) as TensorValue), ctx);
    }
    if (node.dtype === 'f16') v = toF16(v);
    values.set(id, v);
  }
  const outputs: Record<string, TensorValue> = {};
  for (const [name, id] of graph.outputs) outputs[name] = values.get(id) as TensorValue;
  const updates: Record<string, TensorValue> = {};
  for (const u of graph.updates) updates[leafName(graph.nodes[u.state]) as string] = values.get(u.value) as TensorValue;
  return { values, outputs, updates };
}

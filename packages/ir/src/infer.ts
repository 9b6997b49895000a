// Shape and dtype inference: one rule per op, required for every op by the type checker. Each rule either
// returns the output type or throws a GraphError naming the op and the operands' shapes.

import { type DType, DTYPES, isFloat } from './dtype.js';
import { arity, fail, float, floating, type Rule, sameDtype, type TensorType } from './inferCore.js';
import { inferAvgPool2dGrad, inferConv2d, inferConv2dGradInput, inferConv2dGradWeight, inferMaxPool2dGrad, inferMaxPool2dIndices, inferPool } from './inferConv.js';
import { inferAttention, inferAttentionGrad, inferAttentionWithLse, inferAttentionGradKV, inferAttentionGradQKV, inferAttentionLse, inferDropout, inferRope } from './inferNn.js';
import { inferArgmax, inferCumsum, inferConcat, inferGather, inferOneHot, inferPad, inferScatterAdd, inferSlice } from './inferIndexing.js';
import { customOpDef } from './customOp.js';
import { inferMatmulQ4 } from './quantQ4.js';
import { inferMatmulQ8 } from './quantQ8.js';
import { SPLIT_K_SLICE, splitKChunk } from './splitK.js';
import { groupOperands, isMultiResultOp, kernelOutputs, MULTI_RESULT_OPS, resultType } from './multiResult.js';
import type { BinaryOp, OpAttrs, OpKind, OpWithAttrs, RowStat } from './ops.js';
import { COMPARISON_OPS, perBinaryOp, perUnaryOp } from './elementwise.js';
import { type PwExpr, pwArity } from './pointwiseExpr.js';

export type { TensorType } from './inferCore.js';
import { broadcastShapes, broadcastsTo, broadcastTypes, fmtShape, numel, reducedShape } from './shape.js';

const unary =
  (op: string): Rule<OpAttrs['neg']> =>
  (ins) => {
    arity(op, ins, 1);
    floating(op, ins, 0);
    return ins[0];
  };

/** The operands of a binary op (one list, not one per node typed). */
const BOTH: readonly number[] = [0, 1];

const binary =
  (op: BinaryOp): Rule<OpAttrs['add']> =>
  (ins) => {
    arity(op, ins, 2);
    sameDtype(op, ins, BOTH);
    const shape = broadcastShapes(ins[0].shape, ins[1].shape);
    if (!shape) fail(op, `shapes ${fmtShape(ins[0].shape)} and ${fmtShape(ins[1].shape)} do not broadcast`, ins);
    const dtype: DType = COMPARISON_OPS.includes(op) ? 'bool' : ins[0].dtype;
    return { shape: shape as number[], dtype };
  };

const reduce =
  (op: string): Rule<OpAttrs['sum']> =>
  (ins, a) => {
    arity(op, ins, 1);
    floating(op, ins, 0);
    const rank = ins[0].shape.length;
    if (a.axes.some((x) => x < 0 || x >= rank)) fail(op, `axes [${a.axes}] out of range for rank ${rank}`, ins);
    // an f16 reduction accumulates in f32 and stores f16, as torch.sum of a half tensor
    return { shape: reducedShape(ins[0].shape, a.axes, a.keepdims), dtype: ins[0].dtype };
  };

const classLoss = (op: string, ins: readonly TensorType[]): void => {
  const [x, labels] = ins;
  if (x.shape.length !== 2) fail(op, `logits must be [N, C], got ${fmtShape(x.shape)}`, ins);
  if (labels.dtype !== 'i32') fail(op, `labels must be i32, got ${labels.dtype}`, ins);
  if (labels.shape.length !== 1 || labels.shape[0] !== x.shape[0])
    fail(op, `labels must be [${x.shape[0]}] to match logits ${fmtShape(x.shape)}, got ${fmtShape(labels.shape)}`, ins);
};

const matmulType = (op: string, ins: readonly TensorType[], transA: boolean, transB: boolean): TensorType => {
  const a = ins[0];
  const b = ins[1];
  if (a.shape.length < 2 || b.shape.length < 2) fail(op, 'operands must have rank ≥ 2 (batch axes, then a matrix)', ins);
  floating(op, ins, 0);
  floating(op, ins, 1);
  sameDtype(op, ins, BOTH);
  const ra = a.shape.length;
  const rb = b.shape.length;
  // extents read by index, not destructured from pairs (every matmul epilogue a rule builds is typed here)
  const m = a.shape[transA ? ra - 1 : ra - 2];
  const ka = a.shape[transA ? ra - 2 : ra - 1];
  const kb = b.shape[transB ? rb - 1 : rb - 2];
  const n = b.shape[transB ? rb - 2 : rb - 1];
  if (ka !== kb) fail(op, `inner dimensions differ: ${ka} vs ${kb}`, ins);
  const batchA = a.shape.slice(0, -2);
  const batchB = b.shape.slice(0, -2);
  const batch = broadcastShapes(batchA, batchB);
  if (!batch) fail(op, `batch dimensions ${fmtShape(batchA)} and ${fmtShape(batchB)} do not broadcast`, ins);
  // f16 operands give an f16 product (accumulated in f32), as torch.matmul of halves
  return { shape: [...(batch as number[]), m, n], dtype: a.dtype };
};

const leaf: Rule<unknown> = (_ins, _a, type) => type ?? { shape: [], dtype: 'f32' };

/** A row kernel's type (`rowwise`, `rowwiseMulti`): operands broadcast to rows; stats read only earlier stats. */
function inferRowwise(op: 'rowwise' | 'rowwiseMulti', ins: readonly TensorType[], exprs: readonly PwExpr[], stats: readonly RowStat[]): TensorType {
  const n = ins.length;
  const shape = broadcastTypes(ins);
  if (!shape || shape.length === 0) fail(op, 'input shapes do not broadcast to a shape with rows', ins);
  for (let k = 0; k < stats.length; k++) {
    const reads = pwArity(stats[k].expr);
    if (reads > n + k) fail(op, `stat ${k} reads $${reads - 1}: only the ${n} operands and the ${k} stats before it`, ins);
    const postReads = pwArity(stats[k].post);
    if (postReads > 1) fail(op, `the epilogue of stat ${k} reads $${postReads - 1}, but sees only the reduced value $0`, ins);
  }
  for (let j = 0; j < exprs.length; j++) {
    const reads = pwArity(exprs[j]);
    if (reads > n + stats.length) {
      const what = exprs.length === 1 && op === 'rowwise' ? 'the expression' : `expression ${j}`;
      fail(op, `${what} reads $${reads - 1}: there are ${n} operands and ${stats.length} stats`, ins);
    }
  }
  return { shape: shape as number[], dtype: 'f32' };
}

/**
 * A `pointwiseReduce`'s type (and a `pointwiseReduceMulti` result's, errors naming `op`). Loops rather than
 * closures and copies: every reduction a fusion rule builds is typed here (~6 000 per GPT 6×384 optimize).
 */
function inferPointwiseReduce(op: 'pointwiseReduce' | 'pointwiseReduceMulti', ins: readonly TensorType[], a: OpAttrs['pointwiseReduce']): TensorType {
  const reads = pwArity(a.expr);
  if (ins.length < reads) fail(op, `expression reads ${reads} inputs`, ins);
  const postReads = pwArity(a.post);
  if (postReads > 1) fail(op, `the epilogue reads $${postReads - 1}, but sees only the reduced value $0`, ins);
  if (a.expr.op === 'in') for (const t of ins) if (t.dtype === 'i32') fail(op, 'reduces f32 values: an i32 operand must go through the expression', ins);
  const shape = a.shape;
  for (const d of shape) if (!Number.isInteger(d) || d < 0) fail(op, `shape [${shape}] is not a list of extents`, ins);
  // the inputs broadcast together with the prologue's shape to that shape exactly when each broadcasts to it
  for (const t of ins) if (!broadcastsTo(t.shape, shape)) fail(op, `inputs do not broadcast to the prologue's shape ${fmtShape(shape)}`, ins);
  const rank = shape.length;
  const axes = a.axes;
  for (let i = 0; i < axes.length; i++) {
    const x = axes[i];
    if (x < 0 || x >= rank || (i > 0 && x <= axes[i - 1])) fail(op, `axes [${axes}] are not sorted, distinct and within rank ${rank}`, ins);
  }
  if (a.dtype !== undefined && a.dtype !== 'f32' && a.dtype !== 'f16') fail(op, `result dtype ${a.dtype} is not f32 or f16`, ins);
  return { shape: reducedShape(shape, axes, a.keepdims), dtype: a.dtype ?? 'f32' };
}

/** Shape and dtype inference for every op. `leafType` carries the declared type of leaves. */
export const INFER: { [K in OpKind]: Rule<OpAttrs[K]> } = {
  input: leaf,
  param: leaf,
  state: leaf,
  const: leaf,
  ...perUnaryOp(unary),
  ...perBinaryOp(binary),
  where: (ins) => {
    arity('where', ins, 3);
    if (ins[0].dtype !== 'bool') fail('where', `condition must be bool, got ${ins[0].dtype}`, ins);
    sameDtype('where', ins, [1, 2]);
    const shape = broadcastShapes(ins[0].shape, ins[1].shape, ins[2].shape);
    if (!shape) fail('where', 'shapes do not broadcast', ins);
    return { shape: shape as number[], dtype: ins[1].dtype };
  },
  cast: (ins, a) => {
    arity('cast', ins, 1);
    return { shape: ins[0].shape, dtype: a.to };
  },
  sum: reduce('sum'),
  mean: reduce('mean'),
  reduceMax: reduce('reduceMax'),
  reduceMin: reduce('reduceMin'),
  argmax: inferArgmax,
  cumsum: inferCumsum,
  reshape: (ins, a) => {
    arity('reshape', ins, 1);
    if (a.shape.some((d) => !Number.isInteger(d) || d < 0) || numel(a.shape) !== numel(ins[0].shape))
      fail('reshape', `cannot reshape ${fmtShape(ins[0].shape)} to ${fmtShape(a.shape)}`, ins);
    return { shape: a.shape, dtype: ins[0].dtype };
  },
  after: (ins) => {
    arity('after', ins, 2);
    return ins[0];
  },
  transpose: (ins, a) => {
    arity('transpose', ins, 1);
    const rank = ins[0].shape.length;
    const ok = a.perm.length === rank && [...a.perm].sort((x, y) => x - y).every((p, i) => p === i);
    if (!ok) fail('transpose', `perm [${a.perm}] is not a permutation of rank ${rank}`, ins);
    return { shape: a.perm.map((p) => ins[0].shape[p]), dtype: ins[0].dtype };
  },
  expand: (ins, a) => {
    arity('expand', ins, 1);
    if (!broadcastsTo(ins[0].shape, a.shape))
      fail('expand', `${fmtShape(ins[0].shape)} does not broadcast to ${fmtShape(a.shape)}`, ins);
    return { shape: a.shape, dtype: ins[0].dtype };
  },
  slice: inferSlice,
  pad: inferPad,
  concat: inferConcat,
  gather: inferGather,
  scatterAdd: inferScatterAdd,
  oneHot: inferOneHot,
  custom: (ins, a) => {
    const t = customOpDef(a.name).infer(ins, a.params);
    if (!t || !Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0) || !DTYPES.includes(t.dtype))
      fail(`custom ${a.name}`, `its infer returned ${JSON.stringify(t)}, not a { shape, dtype } type`, ins);
    return { shape: [...t.shape], dtype: t.dtype };
  },
  stopGradient: (ins) => {
    arity('stopGradient', ins, 1);
    return ins[0];
  },
  matmul: (ins, a) => {
    arity('matmul', ins, 2);
    return matmulType('matmul', ins, a.transA, a.transB);
  },
  logSoftmax: (ins, a) => {
    arity('logSoftmax', ins, 1);
    float('logSoftmax', ins, 0);
    if (a.axis !== ins[0].shape.length - 1) fail('logSoftmax', `only the last axis is supported, got ${a.axis}`, ins);
    return ins[0];
  },
  logSoftmaxGrad: (ins, a) => {
    arity('logSoftmaxGrad', ins, 2);
    if (fmtShape(ins[0].shape) !== fmtShape(ins[1].shape)) fail('logSoftmaxGrad', 'shapes differ', ins);
    if (a.axis !== ins[0].shape.length - 1) fail('logSoftmaxGrad', 'only the last axis is supported', ins);
    return ins[0];
  },
  nll: (ins) => {
    arity('nll', ins, 2);
    classLoss('nll', ins);
    return { shape: [], dtype: 'f32' };
  },
  nllGrad: (ins, a) => {
    arity('nllGrad', ins, 2);
    if (ins[0].dtype !== 'i32' || ins[0].shape.length !== 1) fail('nllGrad', 'labels must be [N] i32', ins);
    if (ins[1].shape.length !== 0) fail('nllGrad', 'dy must be a scalar', ins);
    return { shape: [ins[0].shape[0], a.classes], dtype: 'f32' };
  },
  attention: inferAttention,
  attentionLse: inferAttentionLse,
  attentionWithLse: inferAttentionWithLse,
  attentionGradKV: inferAttentionGradKV,
  attentionGradQKV: inferAttentionGradQKV,
  attentionGrad: inferAttentionGrad,
  rope: inferRope,
  dropout: inferDropout,
  conv2d: inferConv2d,
  conv2dGradInput: inferConv2dGradInput,
  conv2dGradWeight: inferConv2dGradWeight,
  maxPool2d: inferPool('maxPool2d'),
  maxPool2dGrad: inferMaxPool2dGrad,
  maxPool2dIndices: inferMaxPool2dIndices,
  avgPool2d: inferPool('avgPool2d'),
  avgPool2dGrad: inferAvgPool2dGrad,
  fusedMatmul: (ins, a) => {
    arity('fusedMatmul', ins, a.bias ? 3 : 2);
    const t = matmulType('fusedMatmul', ins, a.transA, a.transB);
    if (a.bias && !broadcastsTo(ins[2].shape, t.shape))
      fail('fusedMatmul', `bias ${fmtShape(ins[2].shape)} does not broadcast to ${fmtShape(t.shape)}`, ins);
    return t;
  },
  rowwise: (ins, a) => inferRowwise('rowwise', ins, [a.expr], a.stats),
  rowwiseMulti: (ins, a) => {
    if (a.exprs.length === 0) fail('rowwiseMulti', 'needs at least one expression', ins);
    return inferRowwise('rowwiseMulti', ins, a.exprs, a.stats);
  },
  matmulQ8: inferMatmulQ8,
  matmulQ4: inferMatmulQ4,
  matmulPartials: (ins, a) => {
    const op = 'matmulPartials';
    arity(op, ins, 2);
    // an operand read rounded to f16 (as `matmulEpilogue`'s `round`) is f32 in memory and an f16 operand of the product
    a.round?.forEach((r, i) => {
      if (r && ins[i].dtype !== 'f32') fail(op, `operand ${i} is read rounded to f16, so it must be f32, got ${ins[i].dtype}`, ins);
    });
    const t = matmulType(op, ins.map((x, i) => (a.round?.[i] ? { shape: x.shape, dtype: 'f16' as const } : x)), a.transA, a.transB);
    if (t.shape.length !== 2) fail(op, 'operands must be matrices (split-K is for unbatched products)', ins);
    const k = a.transA ? ins[0].shape[0] : ins[0].shape[1];
    if (!Number.isInteger(a.splits) || a.splits < 1 || Math.ceil(k / splitKChunk(k, a.splits)) !== a.splits)
      fail(op, `splits ${a.splits} is not a split of K=${k} into chunks of a multiple of ${SPLIT_K_SLICE} (see splitKChunk)`, ins);
    return { shape: [a.splits, ...t.shape], dtype: 'f32' };
  },
  matmulEpilogue: (ins, a) => {
    const op = 'matmulEpilogue';
    if (ins.length < 2) fail(op, 'needs the two matmul operands', ins);
    // an operand read rounded to f16 is f32 in memory and an f16 operand of the product
    a.round?.forEach((r, i) => {
      if (r && ins[i].dtype !== 'f32') fail(op, `operand ${i} is read rounded to f16, so it must be f32, got ${ins[i].dtype}`, ins);
    });
    const product = a.round?.some((r) => r) ? ins.map((x, i) => (a.round?.[i] ? { shape: x.shape, dtype: 'f16' as const } : x)) : ins;
    const t = matmulType(op, product, a.transA, a.transB);
    const reads = pwArity(a.expr);
    if (reads > ins.length - 1) fail(op, `the epilogue reads $${reads - 1}, but there are ${ins.length - 2} extra operands`, ins);
    for (let k = 2; k < ins.length; k++) {
      const e = ins[k];
      if (!broadcastsTo(e.shape, t.shape)) fail(op, `extra operand ${k - 2} ${fmtShape(e.shape)} does not broadcast to ${fmtShape(t.shape)}`, ins);
    }
    if (a.dtype !== undefined && !isFloat(a.dtype)) fail(op, `result dtype ${a.dtype} is not a float`, ins);
    return a.dtype === undefined ? t : { shape: t.shape, dtype: a.dtype };
  },
  pointwise: (ins, a) => {
    const reads = pwArity(a.expr);
    if (ins.length < reads) fail('pointwise', `expression reads ${reads} inputs`, ins);
    const shape = broadcastTypes(ins);
    if (!shape) fail('pointwise', 'input shapes do not broadcast', ins);
    return { shape: shape as number[], dtype: a.dtype };
  },
  pointwiseMulti: (ins, a) => {
    if (a.exprs.length === 0) fail('pointwiseMulti', 'needs at least one expression', ins);
    const reads = Math.max(...a.exprs.map((e) => pwArity(e)));
    if (ins.length < reads) fail('pointwiseMulti', `expressions read ${reads} inputs`, ins);
    const shape = broadcastTypes(ins);
    if (!shape) fail('pointwiseMulti', 'input shapes do not broadcast', ins);
    return { shape: shape as number[], dtype: a.dtype };
  },
  pointwiseMultiTensor: (ins, a) => {
    const op = 'pointwiseMultiTensor';
    if (a.exprs.length === 0) fail(op, 'needs at least one expression', ins);
    const { shared, roles, groups, operand } = groupOperands({ inputs: ins, attrs: a });
    if (groups === 0) fail(op, 'needs at least one group', ins);
    if (!(Number.isInteger(shared) && shared >= 0 && Number.isInteger(roles) && roles >= 1))
      fail(op, `${ins.length} inputs do not split into ${shared} shared operands and ${groups} groups of equal size`, ins);
    const reads = Math.max(...a.exprs.map((e) => pwArity(e)));
    if (reads > shared + roles) fail(op, `expressions read ${reads} operands, a group has ${shared + roles}`, ins);
    for (let i = 0; i < shared; i++) if (ins[i].shape.reduce((p, d) => p * d, 1) !== 1) fail(op, `shared operand ${i} has more than one element`, ins);
    const P = a.partials;
    if (P && (!(Number.isInteger(P.role) && P.role >= 0 && P.role < roles) || P.splits.length !== groups || P.splits.some((s) => !(Number.isInteger(s) && s >= 1))))
      fail(op, `partials ${JSON.stringify(P)} name no role of ${roles} or not one split count (≥ 1) per group of ${groups}`, ins);
    a.shapes.forEach((shape, g) => {
      for (let j = shared; j < shared + roles; j++) {
        const t = ins[operand(g, j)];
        // a role read summed over split-K partials carries their leading axis
        const S = P && P.role === j - shared && P.splits[g] > 1 ? P.splits[g] : 0;
        const want = S ? [S, ...shape] : shape;
        if (t.shape.length !== want.length || t.shape.some((d, i) => d !== want[i])) fail(op, `operand ${operand(g, j)} (group ${g}, role ${j - shared}) is not of shape [${want}]${S ? ` (${S} partials of its group's shape)` : " (its group's shape)"}`, ins);
      }
    });
    return { shape: [...a.shapes[0]], dtype: a.dtype };
  },
  pointwiseReduce: (ins, a) => inferPointwiseReduce('pointwiseReduce', ins, a),
  pointwiseReduceMulti: (ins, a) => {
    if (a.results.length === 0) fail('pointwiseReduceMulti', 'needs at least one result', ins);
    const { results, ...rest } = a;
    // every result is checked; all share result 0's type (the same shape, axes and keepdims)
    return results.map((r) => inferPointwiseReduce('pointwiseReduceMulti', ins, { ...rest, ...r }))[0];
  },
  pick: (ins, a) => {
    arity('pick', ins, 1);
    const src = ins[0] as TensorType & Partial<OpWithAttrs>;
    // the operand must be seen as a node (a graph node, or the e-graph's analysis passing the multi-result e-node
    // with its class's type): the result's type depends on the op (e.g. attentionWithLse's log-sum-exp)
    if (src.op === undefined || !isMultiResultOp(src.op)) fail('pick', `reads a result of a multi-result op (${MULTI_RESULT_OPS.join(', ')}), not of ${src.op ?? 'a bare tensor'}`, ins);
    const k = kernelOutputs(src as OpWithAttrs);
    if (!Number.isInteger(a.index) || a.index < 0 || a.index >= k) fail('pick', `result ${a.index} does not exist`, ins);
    return resultType(src as OpWithAttrs, src, a.index);
  },
  softmaxCrossEntropy: (ins) => {
    arity('softmaxCrossEntropy', ins, 2);
    classLoss('softmaxCrossEntropy', ins);
    return { shape: [], dtype: 'f32' };
  },
  softmaxCrossEntropyGrad: (ins) => {
    arity('softmaxCrossEntropyGrad', ins, 3);
    classLoss('softmaxCrossEntropyGrad', ins);
    if (ins[2].shape.length !== 0) fail('softmaxCrossEntropyGrad', 'dy must be a scalar', ins);
    return ins[0];
  },
};

/** Infers the output type of an op applied to operands of the given types. */
export function inferType<K extends OpKind>(
  op: K,
  ins: readonly TensorType[],
  attrs: OpAttrs[K],
  leafType?: TensorType,
): TensorType {
  return (INFER[op] as Rule<OpAttrs[K]>)(ins, attrs, leafType);
}

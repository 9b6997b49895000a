// Reliability suite (issue 9, "keep it that way"): a bad node of every op is a GraphError at build time that
// names the op, and leaves the graph exactly as it was (no node added, nothing half-built). The table is keyed
// by OpKind, so a new op does not compile until it has a bad-graph case here.
import { describe, expect, it } from 'vitest';
import { Graph, GraphError, type OpKind, OP_KINDS, perBinaryOp, perUnaryOp, type Tensor } from '@neura/ir';

interface Operands {
  readonly f: Tensor; // [2, 3] f32
  readonly g3: Tensor; // [4, 5] f32
  readonly i: Tensor; // [2] i32
  readonly b: Tensor; // [2, 3] bool
  readonly img: Tensor; // [1, 2, 4, 4] f32
  readonly q: Tensor; // [2, 3, 4] f32
}

// the generic entry point with loose types: these cases are wrong on purpose
const raw = (g: Graph, op: OpKind, ins: readonly Tensor[], attrs: object) => g.node(op as never, ins, attrs as never);
const unary = (op: OpKind) => (g: Graph, t: Operands) => raw(g, op, [t.i], {}); // f32 only
const binary = (op: OpKind) => (g: Graph, t: Operands) => raw(g, op, [t.f, t.g3], {}); // [2, 3] vs [4, 5]

/** One genuinely bad construction per op. */
const BAD: { [K in OpKind]: (g: Graph, t: Operands) => unknown } = {
  input: (g) => g.input('x', [2, -1]),
  param: (g) => g.param('w', [1.5]),
  state: (g) => g.state('s', [Number.NaN]),
  const: (g) => g.constant(0.5, [2], 'i32'),
  ...perUnaryOp(unary), // every unary op: an i32 operand
  ...perBinaryOp(binary), // every binary op: shapes that do not broadcast
  where: (g, t) => g.where(t.f, t.f, t.f), // condition must be bool
  cast: (g, t) => raw(g, 'cast', [t.f, t.f], { to: 'i32' }),
  sum: (g, t) => g.sum(t.f, 2),
  mean: (g, t) => g.mean(t.f, [-3]),
  reduceMax: (g, t) => g.reduceMax(t.i),
  reduceMin: (g, t) => raw(g, 'reduceMin', [t.f], { axes: [5], keepdims: false }),
  argmax: (g, t) => g.argmax(t.f, 2),
  cumsum: (g, t) => g.cumsum(t.b, 1), // bool must be cast first
  reshape: (g, t) => g.reshape(t.f, [4, 2]),
  after: (g, t) => raw(g, 'after', [t.f], {}),
  transpose: (g, t) => g.transpose(t.f, [0, 0]),
  expand: (g, t) => g.expand(t.f, [2, -3]),
  slice: (g, t) => g.slice(t.f, [0, 0, 0], [1, 1, 1]),
  pad: (g, t) => g.pad(t.f, [-5, 0], [0, 0]),
  concat: (g, t) => g.concat([t.f, t.g3], 0),
  gather: (g, t) => g.gather(t.f, t.f), // indices must be i32
  scatterAdd: (g, t) => g.scatterAdd(t.f, t.i, t.g3),
  oneHot: (g, t) => g.oneHot(t.f, 3),
  stopGradient: (g, t) => raw(g, 'stopGradient', [t.f, t.f], {}),
  custom: (g, t) => g.custom('no.such.op', [t.f]), // not registered
  matmul: (g, t) => g.matmul(t.f, t.g3),
  logSoftmax: (g, t) => g.logSoftmax(t.f, 4),
  logSoftmaxGrad: (g, t) => raw(g, 'logSoftmaxGrad', [t.f, t.g3], { axis: 1 }),
  nll: (g, t) => g.nll(t.f, t.f),
  nllGrad: (g, t) => raw(g, 'nllGrad', [t.f, t.f], { reduction: 'mean', classes: 3 }),
  attention: (g, t) => g.attention(t.q, t.f, t.q),
  attentionLse: (g, t) => raw(g, 'attentionLse', [t.q, t.f], { causal: false, scale: 1 }),
  // v not shaped as k
  attentionGradKV: (g, t) => raw(g, 'attentionGradKV', [t.q, t.q, t.f, t.q, t.f, t.f], { causal: false, scale: 1 }),
  attentionWithLse: (g, t) => raw(g, 'attentionWithLse', [t.q, t.q], { causal: true, scale: 1 }),
  // the joined gradients need the seq-major layout
  attentionGradQKV: (g, t) => raw(g, 'attentionGradQKV', [t.q, t.q, t.q, t.q, t.f, t.f], { causal: false, scale: 1 }),
  // lse and delta must hold one value per query row, not a whole q
  attentionGrad: (g, t) => raw(g, 'attentionGrad', [t.q, t.q, t.q, t.q, t.q, t.q], { causal: false, scale: 1, wrt: 'q' }),
  rope: (g, t) => g.rope(t.i),
  dropout: (g, t) => g.dropout(t.f, 1.5, 1),
  conv2d: (g, t) => g.conv2d(t.img, t.f),
  conv2dGradInput: (g, t) => raw(g, 'conv2dGradInput', [t.f], {}),
  conv2dGradWeight: (g, t) => raw(g, 'conv2dGradWeight', [t.f], {}),
  maxPool2d: (g, t) => g.maxPool2d(t.f, 2),
  maxPool2dGrad: (g, t) => raw(g, 'maxPool2dGrad', [t.f], {}),
  maxPool2dIndices: (g, t) => g.maxPool2dWithIndices(t.f, 2)[1],
  avgPool2d: (g, t) => g.avgPool2d(t.img, 8),
  avgPool2dGrad: (g, t) => raw(g, 'avgPool2dGrad', [t.f], {}),
  fusedMatmul: (g, t) => raw(g, 'fusedMatmul', [t.f, t.g3], { transA: false, transB: false, bias: false, activation: 'none' }),
  // the operands do not multiply ([2, 3]·[2, 3]); the epilogue would read a second extra that is not there
  matmulEpilogue: (g, t) => raw(g, 'matmulEpilogue', [t.f, t.f, t.f], { transA: false, transB: false, expr: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 2 } } }),
  // 3 splits of K = 3 into chunks of 16 do not exist (one chunk covers all of K)
  matmulQ4: (g, t) => raw(g, 'matmulQ4', [t.f, t.i, t.f], {}), // q must be i32 [N, 4] for K = 3
  matmulQ8: (g, t) => raw(g, 'matmulQ8', [t.f, t.i, t.f], {}), // q must be i32 [N, 8] for K = 3
  matmulPartials: (g, t) => raw(g, 'matmulPartials', [t.f, t.g3], { transA: false, transB: false, splits: 3 }),
  pointwise: (g, t) => raw(g, 'pointwise', [t.f], { expr: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 3 } }, dtype: 'f32' }),
  pointwiseMulti: (g, t) => raw(g, 'pointwiseMulti', [t.f], { exprs: [{ op: 'in', index: 0 }, { op: 'in', index: 2 }], dtype: 'f32' }),
  // group 1's operand [4, 5] is not of its group's shape [2, 3]
  pointwiseMultiTensor: (g, t) => raw(g, 'pointwiseMultiTensor', [t.f, t.g3], { exprs: [{ op: 'neg', a: { op: 'in', index: 0 } }], dtype: 'f32', shared: 0, shapes: [[2, 3], [2, 3]] }),
  pick: (g, t) => raw(g, 'pick', [t.f], { index: 0 }), // not a result of a multi-result op
  // the stat reads $1, a stat computed after it (one operand: $1 is stat 0 itself)
  rowwise: (g, t) => raw(g, 'rowwise', [t.f], { expr: { op: 'in', index: 0 }, stats: [{ expr: { op: 'in', index: 1 }, reduce: 'sum', post: { op: 'in', index: 0 } }] }),
  // expression 1 reads $2: one operand and one stat
  rowwiseMulti: (g, t) => raw(g, 'rowwiseMulti', [t.f], { exprs: [{ op: 'in', index: 1 }, { op: 'in', index: 2 }], stats: [{ expr: { op: 'in', index: 0 }, reduce: 'sum', post: { op: 'in', index: 0 } }] }),
  // the input does not broadcast to the prologue's shape
  pointwiseReduce: (g, t) => raw(g, 'pointwiseReduce', [t.f], { expr: { op: 'in', index: 0 }, shape: [7], reduce: 'sum', axes: [0], keepdims: false, post: { op: 'in', index: 0 } }),
  // result 1's prologue reads $1, but there is one operand
  pointwiseReduceMulti: (g, t) =>
    raw(g, 'pointwiseReduceMulti', [t.f], { results: [{ expr: { op: 'in', index: 0 }, post: { op: 'in', index: 0 } }, { expr: { op: 'in', index: 1 }, post: { op: 'in', index: 0 } }], shape: [2, 3], reduce: 'sum', axes: [0], keepdims: false }),
  softmaxCrossEntropy: (g, t) => raw(g, 'softmaxCrossEntropy', [t.f, t.f], { reduction: 'mean' }),
  softmaxCrossEntropyGrad: (g, t) => raw(g, 'softmaxCrossEntropyGrad', [t.f, t.f, t.f], { reduction: 'mean' }),
};

function operands(): { g: Graph; t: Operands } {
  const g = new Graph();
  const f = g.input('f', [2, 3]);
  return {
    g,
    t: { f, g3: g.input('g3', [4, 5]), i: g.input('i', [2], 'i32'), b: g.gt(f, 0), img: g.input('img', [1, 2, 4, 4]), q: g.input('q', [2, 3, 4]) },
  };
}

describe('a bad node of every op is a GraphError and changes nothing', () => {
  for (const op of OP_KINDS)
    it(op, () => {
      const { g, t } = operands();
      const before = g.nodes.length;
      const outputs = g.outputs.size;
      let err: unknown;
      try {
        BAD[op](g, t);
      } catch (e) {
        err = e;
      }
      expect(err, `${op} accepted a bad node`).toBeInstanceOf(GraphError);
      expect(g.nodes.length).toBe(before);
      expect(g.outputs.size).toBe(outputs);
    });
});

describe('bad graph-level declarations', () => {
  it('update of a non-leaf, of a mismatched value, or twice', () => {
    const { g, t } = operands();
    const w = g.param('w', [2, 3]);
    expect(() => g.update(t.f, t.f)).toThrow(/update: target must be a param or state leaf/);
    expect(() => g.update(w, t.g3)).toThrow(/does not match state/);
    g.update(w, g.neg(w));
    expect(() => g.update(w, w)).toThrow(/already updated/);
  });

  it('a leaf name used twice is refused', () => {
    const { g } = operands();
    expect(() => g.input('f', [1])).toThrow(/already used/);
  });

  it('an operand from another graph is refused, even when this graph has a node with its id', () => {
    const { g, t } = operands();
    const other = new Graph();
    const foreign = other.input('o', [7]);
    expect(g.nodes[foreign.id]).toBeDefined(); // same id, different node: must not be taken for it
    const before = g.nodes.length;
    expect(() => g.neg(foreign)).toThrow(/neg: operand 0 \(\[7\] f32\) belongs to another graph/);
    expect(() => g.add(t.f, other.input('p', [2, 3]))).toThrow(GraphError);
    expect(g.nodes.length).toBe(before);
  });
});

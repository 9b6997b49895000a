import { describe, expect, it } from 'vitest';
import { Graph } from './graph.js';
import { INFER } from './infer.js';
import { INTERPRET, interpret } from './interpret.js';
import { isKernelOp } from './kernelCost.js';
import { ALIAS_OPS, absorbedOpsOf, FUSED_OPS, factsOf, indexOperandsOf, isAliasOp, LEAF_OPS, needsKernel, OP_FACTS, OP_KINDS } from './opFacts.js';
import { BINARY_OPS, UNARY_OPS } from './elementwise.js';
import { tensor } from './tensorValue.js';

describe('op facts', () => {
  it('OP_KINDS is derived from the facts table and agrees with the inference and interpreter tables', () => {
    expect(OP_KINDS).toEqual(Object.keys(OP_FACTS));
    expect(new Set(OP_KINDS).size).toBe(OP_KINDS.length);
    expect([...OP_KINDS].sort()).toEqual(Object.keys(INFER).sort());
    expect([...OP_KINDS].sort()).toEqual(Object.keys(INTERPRET).sort());
    for (const op of [...UNARY_OPS, ...BINARY_OPS]) expect(OP_KINDS).toContain(op);
  });

  it('derived lists: leaves, fused ops, aliases, kernel ops', () => {
    expect(LEAF_OPS).toEqual(['input', 'param', 'state', 'const']);
    expect(FUSED_OPS).toEqual(['after', 'attentionWithLse', 'attentionGradKV', 'attentionGradQKV', 'fusedMatmul', 'matmulEpilogue', 'matmulPartials', 'pointwise', 'pointwiseMulti', 'pointwiseMultiTensor', 'pointwiseReduce', 'pointwiseReduceMulti', 'rowwise', 'rowwiseMulti', 'pick', 'softmaxCrossEntropy', 'softmaxCrossEntropyGrad']);
    expect(ALIAS_OPS).toEqual(['reshape', 'after']);
    expect(OP_KINDS.filter((op) => !needsKernel(op))).toEqual(['input', 'param', 'state', 'const', 'reshape', 'after', 'pick']);
    // the kernel facts read the same: exactly leaves, aliases and picks (results of another kernel) run no kernel
    for (const op of OP_KINDS) expect(isKernelOp(op), op).toBe(needsKernel(op));
  });

  it('an alias op is the identity on data in the interpreter (same buffer, new shape)', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    g.output('y', g.reshape(x, [3, 2]));
    const r = interpret(g, { x: tensor([2, 3], [1, 2, 3, 4, 5, 6]) });
    expect(isAliasOp('reshape')).toBe(true);
    expect(Array.from(r.outputs.y.data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('index operands name an i32 operand and a bound the interpreter enforces', () => {
    const g = new Graph();
    const table = g.input('table', [5, 2]);
    const ids = g.input('ids', [3], 'i32');
    const y = g.gather(table, ids);
    g.output('y', y);
    const [ix] = indexOperandsOf('gather');
    expect(ix.operand).toBe(1);
    expect(ix.role).toBe('index');
    expect(g.nodes[y.inputs[ix.operand]].dtype).toBe('i32');
    const bound = ix.bound(y.op === 'gather' ? y.attrs : { axis: 0 }, [table, ids]);
    expect(bound).toBe(5);
    const feeds = (v: number) => ({ table: tensor([5, 2], new Array(10).fill(1)), ids: tensor([3], [0, v, 1], 'i32') });
    expect(() => interpret(g, feeds(bound - 1))).not.toThrow();
    expect(() => interpret(g, feeds(bound))).toThrow();
  });

  it('every op with an index operand says so; losses hold labels bounded by their classes', () => {
    const withIndices = OP_KINDS.filter((op) => indexOperandsOf(op).length > 0);
    expect(withIndices).toEqual(['gather', 'scatterAdd', 'nll', 'nllGrad', 'softmaxCrossEntropy', 'softmaxCrossEntropyGrad']);
    const [nll] = indexOperandsOf('nll');
    expect(nll.role).toBe('label');
    expect(nll.bound({ reduction: 'mean' }, [{ shape: [4, 7], dtype: 'f32' }, { shape: [4], dtype: 'i32' }])).toBe(7);
    const [nllGrad] = indexOperandsOf('nllGrad');
    expect(nllGrad.bound({ reduction: 'mean', classes: 9 }, [{ shape: [4], dtype: 'i32' }, { shape: [], dtype: 'f32' }])).toBe(9);
  });
});

describe('fused-op facts', () => {
  it('every fused op that runs a kernel says which primitive ops it absorbs (a missing one would hide a registered kernel)', () => {
    expect(FUSED_OPS.filter((op) => needsKernel(op) && !factsOf(op).absorbs)).toEqual([]);
  });

  it('absorbed ops are read off the attributes, and a plain op stands for itself', () => {
    const relu = { op: 'relu', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } } as const;
    expect([...absorbedOpsOf('pointwise', { expr: relu, dtype: 'f32' })].sort()).toEqual(['add', 'relu']);
    expect(absorbedOpsOf('fusedMatmul', { transA: false, transB: false, bias: true, activation: 'relu' })).toEqual(['matmul', 'add', 'relu']);
    expect(absorbedOpsOf('fusedMatmul', { transA: false, transB: false, bias: false, activation: 'none' })).toEqual(['matmul']);
    const windowed = { causal: true, scale: 1, seqMajor: true, window: { heads: 2, offsets: [0, 2, 4] }, deltaFromOut: true };
    expect(absorbedOpsOf('attentionGradKV', windowed)).toEqual(['attentionGrad', 'sum', 'mul', 'slice']);
    expect(absorbedOpsOf('attention', { causal: false, scale: 1 })).toEqual(['attention']);
    expect(absorbedOpsOf('matmul', { transA: false, transB: false })).toEqual(['matmul']);
  });

  it('every kernel has a profile class; fused kernels count with what they fuse', () => {
    expect(OP_FACTS.matmulEpilogue.kernelClass).toBe(OP_FACTS.matmul.kernelClass);
    expect(OP_FACTS.rowwise.kernelClass).toBe(OP_FACTS.sum.kernelClass);
    expect(OP_FACTS.softmaxCrossEntropy.kernelClass).toBe(OP_FACTS.logSoftmax.kernelClass);
    expect(OP_FACTS.attentionGradQKV.kernelClass).toBe('attention');
  });
});

import { describe, expect, it } from 'vitest';
import { Graph } from './graph.js';
import { INFER } from './infer.js';
import { INTERPRET, interpret } from './interpret.js';
import { isKernelOp } from './kernelCost.js';
import { ALIAS_OPS, FUSED_OPS, indexOperandsOf, isAliasOp, LEAF_OPS, needsKernel, OP_FACTS, OP_KINDS } from './opFacts.js';
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

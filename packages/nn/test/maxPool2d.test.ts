// nn.MaxPool2d's PyTorch options: dilation and ceil mode reach the graph op; return_indices is forwardWithIndices.
import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { MaxPool2d } from '@neura/nn';

describe('MaxPool2d', () => {
  it('passes dilation and ceil mode to maxPool2d (torch: [1, 2, 8, 10], k (3, 2), s 2, p 1, d 2, ceil → [1, 2, 4, 6])', () => {
    const g = new Graph();
    const x = g.input('x', [1, 2, 8, 10]);
    const y = new MaxPool2d([3, 2], { stride: 2, padding: 1, dilation: 2, ceilMode: true }).forward(g, x);
    expect(y.shape).toEqual([1, 2, 4, 6]);
    expect(y.op === 'maxPool2d' && y.attrs).toEqual({ kernel: [3, 2], stride: [2, 2], padding: [1, 1], dilation: [2, 2], ceilMode: true });
    expect(new MaxPool2d(3, { stride: 2, padding: 1, dilation: 2 }).forward(g, x).shape).toEqual([1, 2, 3, 4]); // torch: floor mode, k 3
  });

  it('gives values and PyTorch indices with forwardWithIndices, and refuses forward with returnIndices', () => {
    const g = new Graph();
    const x = g.input('x', [1, 1, 3, 3]);
    const pool = new MaxPool2d(2, { stride: 1, returnIndices: true });
    expect(() => pool.forward(g, x)).toThrow(/MaxPool2d\(returnIndices: true\).*forwardWithIndices/);
    const [y, idx] = pool.forwardWithIndices(g, x);
    g.output('y', y);
    g.output('idx', idx);
    // torch: F.max_pool2d(tensor([[1, 5, 5], [2, 0, 3], [7, 7, 1]]), 2, 1, return_indices=True) → [[5, 5], [7, 7]], [[1, 1], [6, 7]]
    const r = interpret(g, { x: tensor([1, 1, 3, 3], [1, 5, 5, 2, 0, 3, 7, 7, 1]) });
    expect(Array.from(r.outputs.y.data)).toEqual([5, 5, 7, 7]);
    expect(Array.from(r.outputs.idx.data)).toEqual([1, 1, 6, 7]);
  });
});

// maxPool2d with dilation and ceil mode, its indices (PyTorch's return_indices) and its gradient, against PyTorch
// 1.13 in float64 (fixtures/maxPool2dTorch.py writes the JSON): odd sizes, padding, stride > kernel, dilation 2,
// ceil mode adding a window and dropping one that would start past the input, ties (the first max in scan order).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { grad } from '../src/index.js';

interface Case {
  shape: number[];
  kernel: [number, number];
  stride: [number, number];
  padding: [number, number];
  dilation: [number, number];
  ceil: boolean;
  ties: boolean;
  outShape: number[];
  floorShape: number[];
  y: number[];
  indices: number[];
  grad: number[];
}

const CASES: Case[] = JSON.parse(readFileSync(new URL('./fixtures/maxPool2dTorch.json', import.meta.url), 'utf8'));
const numel = (s: readonly number[]) => s.reduce((p, d) => p * d, 1);

describe('maxPool2d matches PyTorch', () => {
  for (const c of CASES) {
    const what = `x [${c.shape}], kernel [${c.kernel}], stride [${c.stride}], padding [${c.padding}], dilation [${c.dilation}], ceilMode ${c.ceil}${c.ties ? ', with ties' : ''}`;
    it(`gives torch's values, indices and gradient for ${what}`, () => {
      const g = new Graph();
      const x = g.param('x', c.shape);
      const opts = { stride: c.stride, padding: c.padding, dilation: c.dilation, ceilMode: c.ceil };
      const [y, idx] = g.maxPool2dWithIndices(x, c.kernel, opts);
      expect(y.shape).toEqual(c.outShape);
      expect(idx.shape).toEqual(c.outShape);
      expect(idx.dtype).toBe('i32');
      expect(g.maxPool2d(x, c.kernel, { ...opts, ceilMode: false }).shape).toEqual(c.floorShape);
      g.output('y', y);
      g.output('idx', idx);
      const u = g.input('u', y.shape);
      g.output('dx', grad(g, g.sum(g.mul(y, u)), [x])[0]);
      const xs = Array.from({ length: numel(c.shape) }, (_, i) => (c.ties ? (((i * 37) % 23) - 11) / 8 : ((i * 7919) % 1009) / 64 - 8));
      const us = Array.from({ length: numel(c.outShape) }, (_, j) => (((j * 13) % 7) - 3) / 4);
      const r = interpret(g, { u: tensor(c.outShape, us) }, { x: tensor(c.shape, xs) }, 'f64');
      expect(Array.from(r.outputs.y.data)).toEqual(c.y);
      expect(Array.from(r.outputs.idx.data)).toEqual(c.indices);
      expect(Array.from(r.outputs.dx.data)).toEqual(c.grad);
    });
  }

  it('refuses a window that does not fit, and ceilMode that is not a boolean, naming the op', () => {
    const g = new Graph();
    const x = g.input('x', [1, 1, 4, 4]);
    expect(() => g.maxPool2d(x, 3, { dilation: 2 })).toThrow(/maxPool2d.*does not fit/);
    expect(() => g.node('maxPool2d', [x], { kernel: [2, 2], stride: [2, 2], padding: [0, 0], dilation: [0, 1], ceilMode: false })).toThrow(/dilation \[0,1\] must be two integers ≥ 1/);
    expect(() => g.node('maxPool2d', [x], { kernel: [2, 2], stride: [2, 2], padding: [0, 0], dilation: [1, 1], ceilMode: 'yes' as unknown as boolean })).toThrow(/maxPool2d.*ceilMode yes must be a boolean/);
  });
});

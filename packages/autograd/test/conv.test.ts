import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { checkGradients } from '../src/index.js';
import { expectGradientsMatch } from './helpers.js';

const CONVS = [
  { x: [2, 2, 5, 5], w: [3, 2, 3, 3], opts: {} },
  { x: [1, 2, 6, 5], w: [2, 2, 3, 2], opts: { stride: 2, padding: 1 } },
  { x: [1, 2, 7, 7], w: [2, 2, 2, 3], opts: { dilation: [2, 1] as [number, number], padding: [1, 2] as [number, number] } },
  { x: [1, 4, 4, 4], w: [2, 2, 3, 3], opts: { groups: 2, padding: 1 } },
];

describe('conv2d', () => {
  for (const { x: sx, w: sw, opts } of CONVS) {
    it(`differentiates conv2d x [${sx}] w [${sw}] ${JSON.stringify(opts)} with a bias, mid-graph`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', sx);
        const w = g.param('w', sw);
        const b = g.param('b', [sw[0]]);
        const y = g.conv2d(g.mul(x, 1.3), g.tanh(w), b, opts);
        return g.sum(g.mul(g.input('u', y.shape), g.sin(y)));
      });
      expectGradientsMatch(report);
    });
  }

  it('computes a known 1-channel convolution and names shapes on a channel mismatch', () => {
    const g = new Graph();
    const y = g.output('y', g.conv2d(g.input('x', [1, 1, 3, 3]), g.input('w', [1, 1, 2, 2])));
    expect(y.shape).toEqual([1, 1, 2, 2]);
    const r = interpret(g, { x: tensor([1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]), w: tensor([1, 1, 2, 2], [1, 0, 0, 1]) });
    expect(Array.from(r.outputs.y.data)).toEqual([6, 8, 12, 14]);
    expect(() => g.conv2d(g.input('a', [1, 3, 4, 4]), g.input('k', [2, 2, 3, 3]))).toThrow(/conv2d: weight \[2, 2, 3, 3\] needs C\/groups = 3 input channels, has 2 \(operands \[1, 3, 4, 4\]:f32, \[2, 2, 3, 3\]:f32\)/);
  });
});

describe('pooling', () => {
  for (const op of ['maxPool2d', 'avgPool2d'] as const)
    for (const [kernel, opts] of [
      [2, {}],
      [3, { stride: 2, padding: 1 }],
      [[2, 3], { stride: [1, 2] }],
    ] as const) {
      it(`differentiates ${op} kernel ${JSON.stringify(kernel)} ${JSON.stringify(opts)} mid-graph`, () => {
        const report = checkGradients((g) => {
          const x = g.param('x', [2, 2, 5, 6]);
          const y = g[op](g.mul(x, 1.3), kernel as number, opts as { stride?: number; padding?: number });
          return g.sum(g.mul(g.input('u', y.shape), g.tanh(y)));
        });
        expectGradientsMatch(report);
      });
    }

  it('pools known values, with the first maximum winning and padding counted in the mean', () => {
    const g = new Graph();
    const x = g.input('x', [1, 1, 2, 2]);
    g.output('m', g.maxPool2d(x, 2));
    g.output('a', g.avgPool2d(x, 2, { stride: 2, padding: 1 }));
    g.output('gap', g.globalAvgPool(x));
    const r = interpret(g, { x: tensor([1, 1, 2, 2], [1, 4, 4, 2]) });
    expect(Array.from(r.outputs.m.data)).toEqual([4]);
    expect(Array.from(r.outputs.a.data)).toEqual([0.25, 1, 1, 0.5]);
    expect(Array.from(r.outputs.gap.data)).toEqual([2.75]);
  });
});

describe('convTranspose2d (conv2dGradInput as a forward op)', () => {
  const CASES = [
    { x: [2, 3, 3, 3], w: [3, 2, 3, 3], opts: {} },
    { x: [1, 2, 3, 4], w: [2, 2, 3, 2], opts: { stride: 2, padding: 1, outputPadding: 1 } },
    { x: [1, 4, 3, 3], w: [4, 1, 2, 2], opts: { stride: 2, groups: 2, dilation: [1, 2] as [number, number] } },
  ];
  for (const { x: sx, w: sw, opts } of CASES) {
    it(`differentiates convTranspose2d x [${sx}] w [${sw}] ${JSON.stringify(opts)} with a bias, mid-graph`, () => {
      const report = checkGradients((g) => {
        const x = g.param('x', sx);
        const w = g.param('w', sw);
        const b = g.param('b', [sw[1] * ((opts as { groups?: number }).groups ?? 1)]);
        const y = g.convTranspose2d(g.mul(x, 1.3), g.tanh(w), b, opts);
        return g.sum(g.mul(g.input('u', y.shape), g.sin(y)));
      });
      expectGradientsMatch(report);
    });
  }

  it('upsamples a known 1-channel input with stride 2 (PyTorch: each input scatters the kernel)', () => {
    const g = new Graph();
    const y = g.output('y', g.convTranspose2d(g.input('x', [1, 1, 2, 2]), g.input('w', [1, 1, 2, 2]), undefined, { stride: 2 }));
    expect(y.shape).toEqual([1, 1, 4, 4]);
    const r = interpret(g, { x: tensor([1, 1, 2, 2], [1, 2, 3, 4]), w: tensor([1, 1, 2, 2], [1, 10, 100, 1000]) });
    expect(Array.from(r.outputs.y.data)).toEqual([1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000]);
    expect(() => g.convTranspose2d(g.input('a', [1, 1, 2, 2]), g.input('k', [1, 1, 2, 2]), undefined, { stride: 2, outputPadding: 2 })).toThrow(/outputPadding \[2,2\] must be smaller/);
  });
});

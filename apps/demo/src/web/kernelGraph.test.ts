// The e-graph panel's picture: which kernels read which (through views), and an SVG with a box per kernel and a
// line per edge, for a hand-built graph and a real optimized MLP training step; the canvas drawing (the workers'
// PNG) draws the same boxes and edges as the SVG, checked on a context that records its calls.
import { optimize } from '@neura/egraph';
import { Graph } from '@neura/ir';
import { buildTrainingStep, mlp } from '@neura/nn';
import { adam } from '@neura/optim';
import { describe, expect, it } from 'vitest';
import { kernelOpCounts } from './egraphPanel.js';
import { drawKernelGraph, type KernelCanvas, kernelDag, kernelGraphSvg, kernelLayout } from './kernelGraph.js';

describe('the e-graph panel kernel graph', () => {
  it('links a kernel to the kernels it reads through views', () => {
    const g = new Graph();
    const m = g.matmul(g.input('x', [2, 3]), g.param('w', [3, 4]));
    const r = g.relu(m);
    g.output('s', g.sum(g.reshape(r, [8])));
    const dag = kernelDag(g);
    expect(dag.kernels.map((k) => k.op)).toEqual(['matmul', 'relu', 'sum']);
    const [mm, relu, sum] = dag.kernels.map((k) => k.id);
    expect(dag.edges).toEqual([
      [mm, relu],
      [relu, sum],
    ]);
    const svg = kernelGraphSvg(g, 'tiny');
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(kernelGraphSvg(g, 'tiny', 2)).toMatch(/3 kernels, too many to draw/);
  });

  it('draws every kernel of an optimized MLP step, before and after', () => {
    const g = new Graph();
    const loss = g.crossEntropy(mlp([16, 8, 4]).forward(g, g.input('x', [4, 16])), g.input('labels', [4], 'i32'));
    buildTrainingStep(g, { loss, optimizer: adam({ lr: 1e-3 }) });
    const { graph } = optimize(g);
    for (const x of [g, graph]) {
      const n = kernelOpCounts(x).reduce((s, r) => s + r[1], 0);
      const dag = kernelDag(x);
      expect(dag.kernels).toHaveLength(n);
      for (const [a, b] of dag.edges) expect(a).toBeLessThan(b);
      const svg = kernelGraphSvg(x, 'step');
      expect(svg.match(/<rect /g)).toHaveLength(n);
      expect(svg.match(/<polyline /g)).toHaveLength(dag.edges.length);
      expect(svg).not.toMatch(/NaN/);
    }
  });

  it('draws the same layout on a canvas: a box and label per kernel, a line and arrow head per edge', () => {
    const g = new Graph();
    const loss = g.crossEntropy(mlp([16, 8, 4]).forward(g, g.input('x', [4, 16])), g.input('labels', [4], 'i32'));
    buildTrainingStep(g, { loss, optimizer: adam({ lr: 1e-3 }) });
    const { graph } = optimize(g);
    const l = kernelLayout(graph);
    if ('tooMany' in l) throw new Error('the MLP step is small enough to draw');
    const calls: string[] = [];
    const texts: string[] = [];
    const rects: number[][] = [];
    const ctx = new Proxy({} as Record<string, unknown>, {
      get: (_t, k: string) => (...args: unknown[]) => {
        calls.push(k);
        if (k === 'fillText') texts.push(args[0] as string);
        if (k === 'fillRect') rects.push(args as number[]);
      },
      set: () => true,
    }) as unknown as KernelCanvas;
    drawKernelGraph(ctx, l, 2);
    expect(calls[0]).toBe('scale');
    expect(rects).toHaveLength(l.boxes.length + 1); // the white background, then a box per kernel
    expect(rects[0]).toEqual([0, 0, l.width, l.height]);
    expect(texts.sort()).toEqual(l.boxes.map((b) => b.op).sort());
    expect(calls.filter((c) => c === 'stroke')).toHaveLength(l.edges.filter((e) => e.length >= 2).length);
    expect(calls.filter((c) => c === 'fill')).toHaveLength(l.edges.filter((e) => e.length >= 2).length);
    expect(l.edges.length).toBe(kernelDag(graph).edges.length);
    for (const r of rects.flat()) expect(Number.isFinite(r)).toBe(true);
    expect(kernelLayout(graph, 2)).toEqual({ tooMany: l.boxes.length });
  });
});

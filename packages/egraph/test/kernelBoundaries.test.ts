// Ops with a user-registered kernel are fusion boundaries: optimize keeps them as their own nodes (neither folded
// into a matmul epilogue nor into a pointwise expression), and says so in the report NEURA_DEBUG=1 prints.

import { Graph, interpret, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { optimize } from '../src/index.js';

function mlp() {
  const g = new Graph();
  const x = g.input('x', [4, 6]);
  const h = g.relu(g.add(g.matmul(x, g.param('w', [6, 5])), g.param('b', [5])));
  g.output('y', g.mul(g.sigmoid(h), 3));
  return g;
}

describe('custom-kernel ops are fusion boundaries', () => {
  it('without boundaries relu fuses; with relu as a boundary it stays one node and the result is the same', () => {
    const g = mlp();
    const fused = optimize(g).graph;
    expect(fused.nodes.some((n) => n.op === 'relu')).toBe(false);
    const { graph, report } = optimize(g, { customKernelOps: ['relu'] });
    expect(graph.nodes.filter((n) => n.op === 'relu')).toHaveLength(1);
    for (const n of graph.nodes) {
      if (n.op === 'fusedMatmul') expect(n.attrs.activation).toBe('none');
      if (n.op === 'pointwise') expect(JSON.stringify(n.attrs.expr)).not.toContain('"relu"');
    }
    expect(report.customKernelOps).toEqual(['relu']);
    expect(report.summary()).toMatch(/custom kernels \(fusion boundaries\): relu$/);
    const feeds = { x: tensor([4, 6], Array.from({ length: 24 }, (_, i) => Math.cos(i))) };
    expect(interpret(graph, feeds).outputs.y.data).toBeAllclose(interpret(g, feeds).outputs.y.data, { rtol: 1e-12, atol: 1e-12 });
  });

  it('a boundary on a fused op\'s part (matmul) keeps the plain matmul', () => {
    const { graph } = optimize(mlp(), { customKernelOps: ['matmul'] });
    expect(graph.nodes.some((n) => n.op === 'matmul')).toBe(true);
    expect(graph.nodes.some((n) => n.op === 'fusedMatmul')).toBe(false);
  });

  it('a boundary on attention or attentionGrad keeps them apart from their multi-result fusions', () => {
    const build = () => {
      const g = new Graph();
      const [q, k, v] = ['q', 'k', 'v'].map((n) => g.input(n, [2, 5, 4]));
      const attrs = { causal: true, scale: 0.5 };
      const [lse, delta, dO] = [g.input('lse', [2, 5]), g.input('delta', [2, 5]), g.input('dO', [2, 5, 4])];
      g.output('o', g.attention(q, k, v, attrs));
      g.output('lse', g.node('attentionLse', [q, k], attrs));
      g.output('dk', g.node('attentionGrad', [q, k, v, dO, lse, delta], { ...attrs, wrt: 'k' }));
      g.output('dv', g.node('attentionGrad', [q, k, v, dO, lse, delta], { ...attrs, wrt: 'v' }));
      return g;
    };
    const ops = (g: Graph) => new Set(g.nodes.map((n) => n.op));
    const fused = ops(optimize(build()).graph);
    expect(fused.has('attentionWithLse') && fused.has('attentionGradKV')).toBe(true); // the fusions fire without boundaries
    const kept = ops(optimize(build(), { customKernelOps: ['attention', 'attentionGrad'] }).graph);
    expect(kept.has('attentionWithLse') || kept.has('attentionGradKV')).toBe(false);
    expect(kept.has('attention') && kept.has('attentionGrad')).toBe(true);
  });

  it('a boundary on attentionGrad or on sum keeps Δ = rowsum(dO ⊙ O) out of the gradients (no deltaFromOut)', () => {
    const build = () => {
      const g = new Graph();
      const [q, k, v, dO] = ['q', 'k', 'v', 'dO'].map((n) => g.input(n, [2, 5, 4]));
      const attrs = { causal: true, scale: 0.5 };
      const o = g.attention(q, k, v, attrs);
      const [lse, delta] = [g.node('attentionLse', [q, k], attrs), g.sum(g.mul(dO, o), -1)];
      g.output('o', o);
      for (const wrt of ['q', 'k', 'v'] as const) g.output(`d${wrt}`, g.node('attentionGrad', [q, k, v, dO, lse, delta], { ...attrs, wrt }));
      return g;
    };
    const fromOut = (g: Graph) => g.nodes.some((n) => (n.op === 'attentionGrad' || n.op === 'attentionGradKV') && n.attrs.deltaFromOut);
    expect(fromOut(optimize(build()).graph)).toBe(true); // the rule fires without boundaries
    for (const b of [['attentionGrad'], ['sum']] as const) expect(fromOut(optimize(build(), { customKernelOps: [...b] }).graph), b[0]).toBe(false);
  });
});

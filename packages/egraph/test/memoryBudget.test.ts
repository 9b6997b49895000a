// `optimize({ memoryBudget })`: a plan that fits is the plan without a budget, node for node; one over it is
// scheduled for memory and recomputes a forward value where its backward reader needs it (through `after`),
// computing the same outputs; a budget no plan meets is a MemoryBudgetError naming the budget and the smallest plan.
import { MemoryBudgetError, optimize } from '@neura/egraph';
import { estimateGraphMemory, Graph, graphToJson, interpret, mulberry32, numel, tensor } from '@neura/ir';
import { describe, expect, it } from 'vitest';

/** A forward GELU layer whose output a weight gradient reads at the end, after a chain of big intermediates. */
function layerStep(): Graph {
  const g = new Graph();
  const x = g.input('x', [64, 32]);
  const w1 = g.param('w1', [32, 128]);
  const w2 = g.param('w2', [128, 32]);
  const y = g.gelu(g.matmul(x, w1));
  let z = g.matmul(y, w2);
  for (let i = 0; i < 4; i++) z = g.matmul(g.tanh(g.matmul(z, g.param(`u${i}`, [32, 128]))), g.param(`v${i}`, [128, 32]));
  const dz = g.sin(z);
  g.output('loss', g.sum(g.mul(z, z)));
  g.update(w2, g.sub(w2, g.mul(g.matmul(y, dz, { transA: true }), 0.1)));
  return g;
}

describe('optimize with a memory budget', () => {
  it('keeps the plan of no budget, node for node, when it fits', () => {
    const free = optimize(layerStep());
    const roomy = optimize(layerStep(), { memoryBudget: 1e12 });
    expect(graphToJson(roomy.graph)).toEqual(graphToJson(free.graph));
    expect(free.report.memory).toBeUndefined();
    const bytes = estimateGraphMemory(free.graph).bytesAllocated;
    expect(roomy.report.memory).toEqual({ budget: 1e12, before: bytes, after: bytes, recomputed: 0, reordered: false });
  });

  it('recomputes the GELU output for its late reader to fit, computing the same values', () => {
    const g = layerStep();
    const free = estimateGraphMemory(optimize(layerStep()).graph).bytesAllocated;
    let smallest = 0;
    try {
      optimize(layerStep(), { memoryBudget: 1000 });
    } catch (e) {
      expect(e).toBeInstanceOf(MemoryBudgetError);
      expect((e as Error).message).toMatch(/^optimize: memoryBudget 1.0 kB \(1000 bytes\) cannot be met: the smallest plan found needs [\d.]+ kB \(\d+ bytes; \d+ recomputed operands/);
      smallest = (e as MemoryBudgetError).smallest;
    }
    expect(smallest).toBeGreaterThan(0);
    expect(smallest).toBeLessThan(free);
    const { graph, report } = optimize(layerStep(), { memoryBudget: smallest });
    expect(report.memory?.recomputed).toBeGreaterThan(0);
    expect(estimateGraphMemory(graph).bytesAllocated).toBe(report.memory?.after);
    expect(report.memory?.after).toBeLessThanOrEqual(smallest);
    expect(graph.live().filter((id) => graph.nodes[id].op === 'after').length).toBeGreaterThan(0);
    const r = mulberry32(5);
    const feeds = { x: tensor([64, 32], Array.from({ length: 64 * 32 }, () => r() - 0.5)) };
    const state = Object.fromEntries(g.leaves('param').map((p) => [p.attrs.name, tensor(p.shape, Array.from({ length: numel(p.shape) }, () => (r() - 0.5) * 0.2))]));
    const a = interpret(g, feeds, state, 'f64');
    const b = interpret(graph, feeds, state, 'f64');
    expect(b.outputs.loss.data).toBeAllclose(a.outputs.loss.data, { rtol: 1e-10 });
    expect(b.updates.w2.data).toBeAllclose(a.updates.w2.data, { rtol: 1e-10, atol: 1e-12 });
  });

  it('refuses a budget that is not a positive number of bytes', () => {
    expect(() => optimize(layerStep(), { memoryBudget: 0 })).toThrow(/memoryBudget must be a positive, finite number of bytes, got 0/);
    expect(() => optimize(layerStep(), { memoryBudget: Number.NaN })).toThrow(RangeError);
  });
});

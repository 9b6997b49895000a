// The e-graph panel on a real optimized MLP training step (no GPU: optimize only).
import { optimize } from '@neura/egraph';
import { Graph, kernelDispatches, needsKernel } from '@neura/ir';
import { buildTrainingStep, mlp } from '@neura/nn';
import { adam } from '@neura/optim';
import { describe, expect, it } from 'vitest';
import { egraphPanelHtml, kernelGroups, kernelOpCounts } from './egraphPanel.js';

describe('the demo e-graph panel', () => {
  const g = new Graph();
  const loss = g.crossEntropy(mlp([16, 8, 4]).forward(g, g.input('x', [4, 16])), g.input('labels', [4], 'i32'));
  buildTrainingStep(g, { loss, optimizer: adam({ lr: 1e-3 }) });
  const { graph, report } = optimize(g);

  // the report counts dispatches: a kernel that runs two passes (the cross-entropy loss) counts twice
  const extraPasses = (x: Graph) =>
    x.live().reduce((s, id) => {
      const n = x.nodes[id];
      return needsKernel(n.op) ? s + kernelDispatches(n.op, { attrs: n.attrs, ins: n.inputs.map((i) => x.nodes[i]), out: n }) - 1 : s;
    }, 0);

  it('counts kernels before and after as the report does, and groups every fused kernel once', () => {
    expect(kernelOpCounts(g).reduce((s, r) => s + r[1], 0) + extraPasses(g)).toBe(report.dispatchesBefore);
    expect(kernelOpCounts(graph).reduce((s, r) => s + r[1], 0) + extraPasses(graph)).toBe(report.dispatchesAfter);
    expect(extraPasses(graph)).toBe(1);
    const groups = kernelGroups(report);
    expect(groups.reduce((s, x) => s + x.count, 0)).toBe(report.kernels.filter((k) => k.rules.length > 0).length);
    expect(groups.some((x) => x.op === 'fusedMatmul' && x.rules.includes('matmul-bias'))).toBe(true);
  });

  it('shows the counts, the rules that fired and the fused kinds', () => {
    const html = egraphPanelHtml(g, graph, report);
    expect(html).toContain(`${report.dispatchesBefore} → <b>${report.dispatchesAfter}</b> dispatches`);
    for (const rule of Object.keys(report.egraph.ruleHits)) expect(html).toContain(`<code>${rule}</code>`);
    expect(html).toMatch(/fusedMatmul/);
    expect(egraphPanelHtml(g, g, undefined)).toMatch(/without the e-graph optimizer/);
  });
});

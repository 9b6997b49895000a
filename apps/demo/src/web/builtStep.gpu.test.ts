// The e-graph panel of the demo's real MNIST model on the software adapter: its "before" is the whole training step
// the optimizer saw (forward, backward, Adam), so its kernel nodes add up to the compiled report's dispatchesBefore.
import { Graph, kernelDispatches, needsKernel } from '@neura/ir';
import { createDevice } from '@neura/runtime-webgpu';
import { describe, expect, it } from 'vitest';
import { bytes } from './html.js';
import { egraphPanelHtml, kernelOpCounts } from './egraphPanel.js';
import { mnistModel } from './models.js';

/** Dispatches of a graph counted as the report counts them (a two-pass kernel, the cross-entropy, counts twice). */
function dispatches(x: Graph): number {
  return x.live().reduce((s, id) => {
    const n = x.nodes[id];
    return needsKernel(n.op) ? s + kernelDispatches(n.op, { attrs: n.attrs, ins: n.inputs.map((i) => x.nodes[i]), out: n }) : s;
  }, 0);
}

describe('the demo e-graph panel on the compiled MNIST step', () => {
  it('shows the whole step before and after, consistent with the headline', async () => {
    const device = await createDevice();
    const split = (count: number) => ({ count, images: new Float32Array(count * 784).map((_, i) => (i % 7) / 7), labels: Int32Array.from({ length: count }, (_, i) => i % 10) });
    const model = await mnistModel('mlp', { train: split(64), test: split(32) }, device, 8);
    const report = model.train.report;
    if (!report) throw new Error('the demo compiles with the e-graph optimizer');
    expect(model.built).toBeInstanceOf(Graph);
    expect(dispatches(model.built)).toBe(report.dispatchesBefore); // the forward graph alone has far fewer
    expect(dispatches(model.train.graph)).toBe(report.dispatchesAfter);
    expect(kernelOpCounts(model.built).some(([op]) => op === 'matmul')).toBe(true);
    const html = egraphPanelHtml(model.built, model.train.graph, report);
    expect(html).toContain(`${report.dispatchesBefore} → <b>${report.dispatchesAfter}</b> dispatches`);
    expect(html).toContain(`before: ${report.dispatchesBefore} dispatches, ${bytes(report.bytesBefore)}`);
    expect(html).toContain(`after: ${report.dispatchesAfter} dispatches, ${bytes(report.bytesAfter)}`);
    device.destroy();
  }, 120_000);
});

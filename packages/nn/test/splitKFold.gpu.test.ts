// A GPT training step whose weight gradients run as split-K matmuls (512 tokens against width 16), optimized for
// the device: the AdamW multi-tensor update reads those gradients as their split-K partials (`update-fold-partials`)
// and sums them as it reads, and two steps on a real adapter agree with the interpreter on the unoptimized step.

import { optimize } from '@neura/egraph';
import { interpret, mulberry32, type TensorValue, tensor } from '@neura/ir';
import { buildGptStep, type GptConfig } from '@neura/nn';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const C: GptConfig & { batch: number } = { layers: 1, heads: 2, width: 16, context: 64, batch: 8, vocab: 7, attention: 'op' };

function feeds(seed: number): Record<string, TensorValue> {
  const r = mulberry32(seed);
  const shape = [C.batch, C.context];
  const ids = () => Array.from({ length: C.batch * C.context }, () => Math.floor(r() * C.vocab));
  return { tokens: tensor(shape, ids(), 'i32'), targets: tensor(shape, ids(), 'i32') };
}

describe('split-K weight gradients folded into the AdamW update', () => {
  it('reads the partials in the multi-tensor update and matches the interpreter over two steps', async () => {
    const { graph, report } = optimize(buildGptStep(C), { limits: device.caps });
    const partials = graph.live().filter((id) => graph.nodes[id].op === 'matmulPartials');
    expect(partials.length).toBeGreaterThan(0);
    const update = graph.live().map((id) => graph.nodes[id]).find((n) => n.op === 'pointwiseMultiTensor');
    expect(update?.op === 'pointwiseMultiTensor' && update.attrs.partials?.splits.filter((s) => s > 1).length).toBe(partials.length);
    expect(report.format()).toMatch(/update-fold-partials/);
    const session = await compile(graph, device);
    expect(session.stats.multiTensorArenas).toBeGreaterThan(0);
    const ref = buildGptStep(C);
    let state: Record<string, TensorValue> = {};
    let loss = 0;
    for (const s of [1, 2]) {
      const r = await session.step(feeds(s), { read: ['loss'] });
      const want = interpret(ref, feeds(s), state, 'f64');
      state = { ...state, ...want.updates };
      loss = r.outputs.loss.data[0];
      expect(loss).toBeCloseTo(want.outputs.loss.data[0], 4);
    }
    const got = await session.readState();
    for (const [name, v] of Object.entries(state)) expect(got[name].data, name).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });
    await session.dispose();
  }, 120_000);
});

import { Graph, interpret, tensor } from '@neura/ir';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createDevice, type NeuraDevice, ProfilerError } from '../src/index.js';
import { randoms } from './graphs.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

function mlp() {
  const g = new Graph();
  const x = g.input('x', [4, 6]);
  const h = g.relu(g.linear(x, g.param('w1', [6, 8]), g.param('b1', [8])));
  g.output('y', g.linear(h, g.param('w2', [8, 3]), g.param('b2', [3])));
  return g;
}

describe('Session.profile', () => {
  it('times every dispatch where the adapter offers timestamp-query, else says the feature is missing', async () => {
    const g = mlp();
    const session = await compile(g, device);
    const feeds = { x: tensor([4, 6], randoms(24, 5)) };
    if (!device.features.has('timestamp-query')) {
      await expect(session.profile(feeds)).rejects.toThrow(ProfilerError);
      await expect(session.profile(feeds)).rejects.toThrow(/timestamp-query/);
    } else {
      const p = await session.profile(feeds);
      expect(p.timings).toHaveLength(session.stats.dispatchesPerStep);
      for (const t of p.timings) expect(t.endNs).toBeGreaterThanOrEqual(t.startNs);
      expect(p.summary().rows.length).toBe(session.stats.kernels);
      expect(p.table()).toContain('| kernel | fused ops |');
    }
    // profiling (or refusing to) leaves the session working and its results right
    const r = await session.step(feeds, { read: ['y'] });
    expect(r.outputs.y.data).toBeAllclose(interpret(g, feeds, {}, 'f32').outputs.y.data, { rtol: 1e-4, atol: 1e-5 });
    session.dispose();
  });
});

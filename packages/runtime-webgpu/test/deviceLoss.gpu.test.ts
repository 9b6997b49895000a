// A device destroyed or lost while steps run (software adapter): every step then fails with a DeviceLostError,
// including the one whose readback was in flight (Dawn aborts its mapping with a bare AbortError) and a `fetched`
// result; none resolves with garbage.

import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { compile, createDevice, DeviceLostError } from '../src/index.js';

function graph() {
  const g = new Graph();
  g.output('y', g.relu(g.linear(g.input('x', [64, 64]), g.param('w', [64, 64]), g.param('b', [64]))));
  return g;
}
const feeds = () => ({ x: new Float32Array(64 * 64).fill(0.5) });
const tick = () => new Promise((r) => setImmediate(r));

describe('device loss during a step', () => {
  for (const how of ['NeuraDevice.destroy()', 'GPUDevice.destroy() (a loss the runtime did not cause)'] as const)
    it(`surfaces as DeviceLostError, not AbortError, after ${how} mid-run`, async () => {
      const g = graph();
      const outcomes: unknown[] = [];
      // the loss lands at different points of the queued steps: before them, during a readback, after them
      for (const delay of [0, 1, 2, 3, 5]) {
        const device = await createDevice();
        const session = await compile(g, device);
        const warm = await session.step(feeds(), { read: ['y'] });
        expect(warm.outputs.y.data).toHaveLength(64 * 64);
        const steps = [0, 1, 2].map(() => session.step(feeds(), { read: ['y'], fetch: ['y'] }));
        const fetched = steps.map((p) => p.then((r) => ({ f: r.fetched })).catch(() => undefined)); // boxed: a promise would flatten
        for (let i = 0; i < delay; i++) await tick();
        if (how === 'NeuraDevice.destroy()') device.destroy();
        else device.gpu.destroy();
        for (const p of steps) outcomes.push(await p.then(() => 'ok', (e) => e));
        for (const box of await Promise.all(fetched)) if (box?.f) outcomes.push(await box.f.then(() => 'ok', (e) => e));
        device.destroy();
      }
      const errors = outcomes.filter((o) => o !== 'ok');
      expect(errors.length).toBeGreaterThan(0);
      for (const e of errors) expect(e, String(e)).toBeInstanceOf(DeviceLostError);
      // some of them were caught mid-run: an aborted mapping, surfaced as the loss with the abort as its cause
      expect(errors.some((e) => (e as Error).cause instanceof Error && ((e as Error).cause as Error).name === 'AbortError')).toBe(true);
    });
});

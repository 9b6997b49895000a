// The README's custom-kernel example, run for real: a user generator registered for an op replaces the
// built-in kernel in compiled sessions, and unregistering restores it.

import { doubledRelu } from '../../../tooling/test/doubledRelu.js';
import { Graph, interpret, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { registerKernel, unregisterKernel } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());


describe('registerKernel', () => {
  it('runs a user kernel in place of the built-in one, and unregistering restores it', async () => {
    const g = new Graph();
    g.output('y', g.relu(g.input('x', [100])));
    const x = tensor([100], Array.from({ length: 100 }, (_, i) => i - 50));
    const expected = interpret(g, { x }).outputs.y.data;
    registerKernel('relu', doubledRelu); // doubles, so the test can tell it ran
    try {
      const s = await compile(g, device);
      const y = (await s.step({ x }, { read: ['y'] })).outputs.y.data;
      expect(y).toBeAllclose(Array.from(expected, (v) => 2 * v), { rtol: 0, atol: 0 });
      s.dispose();
    } finally {
      unregisterKernel('relu');
    }
    const s = await compile(g, device);
    expect((await s.step({ x }, { read: ['y'] })).outputs.y.data).toBeAllclose(expected, { rtol: 0, atol: 0 });
    s.dispose();
  });
});

// The README's custom-kernel example, run for real: a user generator registered for an op replaces the
// built-in kernel in compiled sessions, and unregistering restores it.

import { Graph, interpret, numel, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { type KernelGenerator, registerKernel, unregisterKernel } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const myRelu: KernelGenerator = ({ node }) => {
  const n = numel(node.shape);
  return {
    dispatches: [
      {
        label: `my-relu[${n}]`,
        workgroupSize: [64, 1, 1],
        grid: [Math.ceil(n / 64), 1, 1],
        bindings: [
          { source: { kind: 'input', index: 0 }, access: 'read', dtype: 'f32' },
          { source: { kind: 'output' }, access: 'read_write', dtype: 'f32' },
        ],
        code: `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < ${n}u) { y[id.x] = max(x[id.x], 0.0) * 2.0; }
}`,
      },
    ],
    scratch: [],
  };
};

describe('registerKernel', () => {
  it('runs a user kernel in place of the built-in one, and unregistering restores it', async () => {
    const g = new Graph();
    g.output('y', g.relu(g.input('x', [100])));
    const x = tensor([100], Array.from({ length: 100 }, (_, i) => i - 50));
    const expected = interpret(g, { x }).outputs.y.data;
    registerKernel('relu', myRelu); // doubles, so the test can tell it ran
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

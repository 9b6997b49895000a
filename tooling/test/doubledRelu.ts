// Test helper: the README's custom relu kernel, doubled (y = 2·max(x, 0)) so that a test can tell from the result
// that the registered generator ran instead of the built-in one. Shared by the runtime's and nn's custom-kernel tests.

import { numel } from '../../packages/ir/src/shape.js';
import type { KernelGenerator } from '../../packages/wgsl-kernels/src/kernel.js';

/** A relu generator computing 2·relu(x), written as the README's example. */
export const doubledRelu: KernelGenerator<'relu'> = ({ node }) => {
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

// Test helper: a one-input f32 elementwise kernel written as the README's "Your own kernel" example (a thread per
// element, sizes baked in, bindings spelled out), for the tests that register user kernels: a custom op's kernel
// and a relu override. Only the per-element WGSL expression differs between them.

import { numel } from '../../packages/ir/src/shape.js';
import type { OpKind } from '../../packages/ir/src/index.js';
import type { KernelGenerator } from '../../packages/wgsl-kernels/src/kernel.js';

/** A generator writing `y[i] = f(x[i])`, labelled `label[n]`; `f` maps the WGSL of x[i] to the WGSL of y[i]. */
export function userUnaryKernel<K extends OpKind>(label: string, f: (x: string) => string): KernelGenerator<K> {
  return ({ node }) => {
    const n = numel(node.shape);
    return {
      dispatches: [
        {
          label: `${label}[${n}]`,
          workgroupSize: [64, 1, 1],
          grid: [Math.ceil(n / 64), 1, 1],
          bindings: [
            { source: { kind: 'input', index: 0 }, access: 'read', dtype: 'f32' },
            { source: { kind: 'output' }, access: 'read_write', dtype: 'f32' },
          ],
          code: `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < ${n}u) { y[id.x] = ${f('x[id.x]')}; }
}`,
        },
      ],
      scratch: [],
    };
  };
}

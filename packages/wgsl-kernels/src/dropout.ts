// `dropout` with the interpreter's hash (ir's `dropoutKeeps`), so the GPU mask matches it bit for bit: key =
// lowbias32(seed + offset) (u32 wrapping; offset is the optional i32 scalar operand), element at flat index i is
// kept iff lowbias32(i ^ key) ≥ floor(p·2³²); kept elements are scaled by f32(1/(1 − p)). Elementwise archetype;
// `lowbias32` (Chris Wellons' hash) is a scalarOps helper, emitted by the shader builder because the body calls it.

import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { elementwisePlan } from './elementwise.js';
import { f32Lit, u32Lit } from './wgsl.js';

/** `dropout` [x] or [x, offset]. */
export function dropoutKernel(spec: KernelSpec<'dropout'>, caps: DeviceCaps): KernelPlan {
  const { p, seed } = spec.node.attrs;
  const threshold = Math.floor(p * 4294967296);
  const scale = Math.fround(1 / (1 - p));
  const hasOffset = spec.inputs.length === 2;
  return elementwisePlan(spec, caps, `dropout p=${p} seed=${seed} (lowbias32 mask, as ir's dropoutKeeps)`, (load) => {
    const x = load(0);
    const key = `lowbias32(${u32Lit(seed >>> 0)}${hasOffset ? ` + bitcast<u32>(${load(1)})` : ''})`;
    return { code: `let keep = lowbias32(o ^ ${key}) >= ${u32Lit(Math.min(threshold, 0xffffffff))};`, result: `select(0.0, ${x} * ${f32Lit(scale)}, keep)` };
  });
}

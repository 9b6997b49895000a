// Layout kernels: `expand` (a broadcast copy through the elementwise archetype) and `transpose` (any perm, by
// baked permuted strides; a tiled shared-memory path for 2-D and batched 2-D transposes after merging axes).
// Must not assume f32: layout kernels move any dtype (i32 and bool as i32) bit for bit.

import { numel, stridesOf } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { elementwisePlan } from './elementwise.js';
import { bindOperands, computeMain, perElementDispatch, planOf, shaderDispatch } from './shader.js';
import { collapseAxes, indexMath, u32Lit, wgslType } from './wgsl.js';

/** `expand`: broadcast copy to the target shape. */
export function expandKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  return elementwisePlan(spec, caps, 'broadcast copy (expand)', (load) => ({ code: '', result: load(0) }));
}

/** Tile edge of the shared-memory transpose for these caps (16 → 256 threads, else 8 → 64 threads). */
export function transposeTile(caps: DeviceCaps): number {
  for (const t of [16, 8, 4]) {
    if (t * t <= caps.maxComputeInvocationsPerWorkgroup && t <= caps.maxComputeWorkgroupSizeX && t <= caps.maxComputeWorkgroupSizeY && t * (t + 1) * 4 <= caps.maxComputeWorkgroupStorageSize) return t;
  }
  return 0;
}

/** `transpose`: tiled when the perm is a (batched) 2-D transpose after merging axes, else strided gather. */
export function transposeKernel(spec: KernelSpec<'transpose'>, caps: DeviceCaps): KernelPlan {
  const { node } = spec;
  const perm = node.attrs.perm;
  const x = spec.inputs[0];
  const n = numel(node.shape);
  if (n === 0) return EMPTY_PLAN;
  const inStrides = stridesOf(x.shape);
  const c = collapseAxes(node.shape, [perm.map((p) => inStrides[p])]);
  const { buffers } = bindOperands(spec, [0], ['x']);
  const ty = wgslType(node.dtype);
  const max = caps.maxComputeWorkgroupsPerDimension;
  // Batched 2-D: output [B, R, C] reads input [B, C, R], i.e. collapsed strides [R*C, 1, R] (B = 1 when rank 2).
  const s = c.shape.length === 2 ? [1, ...c.shape] : c.shape;
  const st = c.shape.length === 2 ? [0, ...c.strides[0]] : c.strides[0];
  const t = transposeTile(caps);
  if (t && s.length === 3 && st[1] === 1 && st[2] === s[1] && (s[0] === 1 || st[0] === s[1] * s[2])) {
    const [B, R, C] = s;
    const grid: [number, number, number] = [Math.ceil(C / t), Math.ceil(R / t), B];
    if (grid.every((g) => g <= max)) {
      const main = computeMain(
        `${t}, ${t}`,
        '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>',
        `let base = wid.z * R * C;
let r0 = wid.y * T;
let c0 = wid.x * T;
// read x[b, c0 + ly, r0 + lx] (contiguous in lx)
let xc = c0 + lid.y;
let xr = r0 + lid.x;
if (xc < C && xr < R) { tile[lid.y * (T + 1u) + lid.x] = x[base + xc * R + xr]; }
workgroupBarrier();
// write y[b, r0 + ly, c0 + lx] = x[b, c0 + lx, r0 + ly] (contiguous in lx)
let yr = r0 + lid.y;
let yc = c0 + lid.x;
if (yr < R && yc < C) { y[base + yr * C + yc] = tile[lid.x * (T + 1u) + lid.y]; }`,
      );
      const decls = [`const R = ${u32Lit(R)};`, `const C = ${u32Lit(C)};`, `const T = ${u32Lit(t)};`, `var<workgroup> tile: array<${ty}, ${t * (t + 1)}>;`];
      const strategy = `tiled ${t}x${t} shared-memory transpose of ${B} matri${B === 1 ? 'x' : 'ces'} [${C}, ${R}] -> [${R}, ${C}]`;
      return planOf([shaderDispatch(spec, { strategy, buffers, decls, main, workgroupSize: [t, t], grid })]);
    }
  }
  const body = `${indexMath('o', c.shape, c.strides, ['i'])}\ny[o] = x[i];`;
  return planOf([perElementDispatch(spec, caps, { strategy: `strided gather, perm [${perm}] over merged shape [${c.shape}]`, buffers, n, count: 'N', body })]);
}

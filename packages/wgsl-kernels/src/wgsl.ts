// Small shared helpers for WGSL generation: dtype → WGSL type, literals, binding declarations, headers,
// index math over baked strides, 1-D/2-D grids and the limit checks every generator uses.
// Pure string building: no GPU objects, no randomness, no clocks. Same arguments → same string.

import type { DType, Node, Shape, TensorType } from '@neura/ir';
import { bufferBytes, fmtShape, numel } from '@neura/ir';
import type { Binding, DeviceCaps, KernelSpec } from './kernel.js';
import { KernelError } from './kernel.js';

/**
 * The WGSL type a kernel computes a tensor of this dtype in (`bool` is stored as i32 0/1). f16 computes in f32:
 * generators treat it as f32, and f16Storage.ts converts its loads and stores (see there).
 */
export function wgslType(dtype: DType): 'f32' | 'i32' {
  switch (dtype) {
    case 'f32':
    case 'f16':
      return 'f32';
    case 'i32':
    case 'bool':
      return 'i32';
    default:
      return dtype satisfies never;
  }
}

/** A WGSL f32 literal that round-trips `x` exactly (after rounding to float32); finite values only. */
export function f32Lit(x: number): string {
  const v = Math.fround(x);
  if (!Number.isFinite(v)) throw new KernelError(`cannot write ${x} as a WGSL f32 literal (not finite in float32)`);
  if (Object.is(v, -0)) return '-0.0';
  let s = String(v);
  if (Math.fround(Number(s)) !== v) s = v.toPrecision(9);
  if (!/[.eE]/.test(s)) s += '.0';
  return s;
}

/** A WGSL u32 literal. */
export function u32Lit(x: number): string {
  if (!Number.isInteger(x) || x < 0 || x > 0xffffffff) throw new KernelError(`index constant ${x} does not fit in u32`);
  return `${x}u`;
}

/**
 * One `@group(0) @binding(i) var<storage, …>` line per binding, named by `names[i]`, of element type `elements[i]`
 * where given (else the dtype's storage type).
 */
export function declareBindings(bindings: readonly Binding[], names: readonly string[], elements: readonly (string | undefined)[] = []): string {
  return bindings
    .map((b, i) => {
      const access = b.access === 'read' ? 'read' : 'read_write';
      return `@group(0) @binding(${i}) var<storage, ${access}> ${names[i]}: array<${elements[i] ?? wgslType(b.dtype)}>;`;
    })
    .join('\n');
}

/** Formats a shape as `4x5` for labels (`scalar` for []). */
export function dims(shape: Shape): string {
  return shape.length === 0 ? 'scalar' : shape.join('x');
}

/** `op[shape]`-style label for a node. */
export function labelOf(node: Node, extra?: string): string {
  return `${node.op}[${extra ?? dims(node.shape)}]`;
}

/** The operand and result types of a spec, as `[2, 3]:f32, [3]:f32 -> [2, 3]:f32` for messages. */
export function describeSpec(spec: KernelSpec): string {
  const ins = spec.inputs.map((t) => `${fmtShape(t.shape)}:${t.dtype}`).join(', ');
  return `${ins || 'no operands'} -> ${fmtShape(spec.node.shape)}:${spec.node.dtype}`;
}

/** A comment block opening every shader: op, operand shapes, strategy. */
export function header(spec: KernelSpec, strategy: string): string {
  return `// neura kernel: ${spec.node.op} ${describeSpec(spec)}\n// ${strategy}\n`;
}

/** Raises a KernelError naming the op, its shapes and why. */
export function kernelError(spec: KernelSpec, why: string): never {
  throw new KernelError(`${spec.node.op} (${describeSpec(spec)}): ${why}`);
}

/** Bytes of a tensor on the device. */
export function bytesOf(t: TensorType | { shape: Shape }): number {
  return 'dtype' in t ? bufferBytes(t.dtype, numel(t.shape)) : numel(t.shape) * 4;
}

/** Largest power of two ≤ n (n ≥ 1). */
export function floorPow2(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** Workgroup size for a 1-D elementwise-style kernel: ≤ 256 and within the device's limits. */
export function linearWorkgroupSize(caps: DeviceCaps, preferred = 256): number {
  return floorPow2(Math.max(1, Math.min(preferred, caps.maxComputeInvocationsPerWorkgroup, caps.maxComputeWorkgroupSizeX)));
}

/** A grid of `count` workgroups laid out in x (and y beyond maxComputeWorkgroupsPerDimension). */
export interface LinearGrid {
  readonly grid: readonly [number, number, number];
  /** WGSL expression of the linear workgroup index, given `wid: vec3<u32>`. */
  readonly index: string;
}

/** Lays `count` workgroups out in 1-D, or 2-D when count exceeds the per-dimension limit. */
export function linearGrid(spec: KernelSpec, count: number, caps: DeviceCaps): LinearGrid {
  const max = caps.maxComputeWorkgroupsPerDimension;
  if (count <= max) return { grid: [Math.max(count, 0), 1, 1], index: 'wid.x' };
  const gy = Math.ceil(count / max);
  if (gy > max)
    kernelError(spec, `needs ${count} workgroups, more than maxComputeWorkgroupsPerDimension² (device value ${max})`);
  const gx = Math.ceil(count / gy);
  return { grid: [gx, gy, 1], index: `(wid.x + wid.y * ${u32Lit(gx)})` };
}

/** Throws unless `bytes` of workgroup memory fit the device. */
export function checkWorkgroupMemory(spec: KernelSpec, bytes: number, caps: DeviceCaps): void {
  if (bytes > caps.maxComputeWorkgroupStorageSize)
    kernelError(spec, `needs ${bytes} bytes of workgroup memory, more than maxComputeWorkgroupStorageSize (device value ${caps.maxComputeWorkgroupStorageSize})`);
}

/**
 * WGSL statements decomposing the linear index `lin` over `shape` (row-major) into per-operand flat indices
 * `names[j] = Σ coord[ax] * strides[j][ax]`. Strides are baked; axes whose stride is 0 for all operands cost
 * nothing but the division. `prefix` keeps temporaries unique.
 */
export function indexMath(lin: string, shape: Shape, strides: readonly (readonly number[])[], names: readonly string[], prefix = 'c'): string {
  const lines: string[] = [];
  const terms: string[][] = names.map(() => []);
  const rank = shape.length;
  let rem = lin;
  for (let ax = rank - 1; ax >= 0; ax--) {
    const c = `${prefix}${ax}`;
    const used = strides.some((s) => s[ax] !== 0);
    if (ax === 0) {
      if (used) lines.push(`let ${c} = ${rem};`);
    } else {
      if (used) lines.push(`let ${c} = ${rem} % ${u32Lit(shape[ax])};`);
      const next = `${prefix}r${ax}`;
      lines.push(`let ${next} = ${rem} / ${u32Lit(shape[ax])};`);
      rem = next;
    }
    strides.forEach((s, j) => {
      if (s[ax] === 1) terms[j].push(c);
      else if (s[ax] !== 0) terms[j].push(`${c} * ${u32Lit(s[ax])}`);
    });
  }
  names.forEach((n, j) => {
    lines.push(`let ${n} = ${terms[j].length ? terms[j].reverse().join(' + ') : '0u'};`);
  });
  return lines.join('\n');
}

/**
 * Merges adjacent axes that every operand walks contiguously (stride[i] = stride[i+1] * shape[i+1]) and drops
 * extent-1 axes, so index math touches as few axes as possible. Returns the collapsed shape and strides.
 */
export function collapseAxes(shape: Shape, strides: readonly (readonly number[])[]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strides.map(() => []);
  for (let ax = 0; ax < shape.length; ax++) {
    if (shape[ax] === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strides.every((s, j) => outStrides[j][last] === s[ax] * shape[ax])) {
      outShape[last] *= shape[ax];
      strides.forEach((s, j) => {
        outStrides[j][last] = s[ax];
      });
    } else {
      outShape.push(shape[ax]);
      strides.forEach((s, j) => {
        outStrides[j].push(s[ax]);
      });
    }
  }
  return { shape: outShape, strides: outStrides };
}

/** The indent-by-two helper for nested generated code. */
export function indent(code: string, by = 2): string {
  const pad = ' '.repeat(by);
  return code
    .split('\n')
    .map((l) => (l ? pad + l : l))
    .join('\n');
}

/**
 * WGSL for workgroup tree reductions over `wg` lanes (a power of two) sharing one `var<workgroup>` array:
 * `wg_sum(v, lid)`, `wg_max(v, lid)` and `wg_min(v, lid)` return the combined value to every lane. Call from uniform control flow.
 */
export function workgroupReduceFns(wg: number, which: readonly ('sum' | 'max' | 'min')[]): string {
  const fns = which.map((w) => {
    const combine = w === 'sum' ? 'red[lid] + red[lid + s]' : `${w}(red[lid], red[lid + s])`;
    return `fn wg_${w}(v: f32, lid: u32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = ${u32Lit(Math.floor(wg / 2))}; s > 0u; s = s >> 1u) {
    if (lid < s) { red[lid] = ${combine}; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}`;
  });
  return `var<workgroup> red: array<f32, ${wg}>;\n\n${fns.join('\n\n')}`;
}

/** Smallest power of two ≥ n (n ≥ 1). */
export function ceilPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

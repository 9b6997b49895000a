// The WGSL skeleton every generator shares, so that each generator writes only what its kernel computes. A module
// is: the header comment, one storage binding per buffer, the helper functions its code calls, module-scope
// constants and workgroup memory, then `main`. Helpers (scalarOps' HELPERS, the workgroup tree reductions) are
// found by name in the code, so each is emitted once and only when used. Pure string building, no GPU objects.
// Invariant: a dispatch's `bindings` and its shader's `@binding(i)` lines come from one list of `BufferVar`s.

import type { Binding, DeviceCaps, Dispatch, KernelPlan, KernelSpec } from './kernel.js';
import { bindLiterals } from './literals.js';
import { emitHelpers, HELPERS, type HelperName } from './scalarOps.js';
import { declareBindings, header, indent, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit, workgroupReduceFns } from './wgsl.js';

/** A storage buffer as a shader sees it: the plan's binding and the WGSL variable bound to it. */
export interface BufferVar {
  /** The WGSL variable name. */
  readonly name: string;
  /** The plan's binding. */
  readonly binding: Binding;
  /** Element type when it is not the dtype's storage type (`vec4<f32>`, `atomic<u32>`). */
  readonly element?: string;
}

/** Operand `index` of the node, bound as `name`. */
export function inputVar(spec: KernelSpec, index: number, name: string, access: Binding['access'] = 'read'): BufferVar {
  return { name, binding: { source: { kind: 'input', index }, access, dtype: spec.inputs[index].dtype } };
}

/** The node's result (result `index` of a multi-result node), bound read_write as `name`. */
export function outputVar(spec: KernelSpec, name = 'y', o: { index?: number; element?: string } = {}): BufferVar {
  const source = o.index === undefined ? ({ kind: 'output' } as const) : ({ kind: 'output', index: o.index } as const);
  return { name, binding: { source, access: 'read_write', dtype: spec.node.dtype }, element: o.element };
}

/** Scratch buffer `index` of the plan (f32), bound as `name`. */
export function scratchVar(index: number, name: string, access: Binding['access']): BufferVar {
  return { name, binding: { source: { kind: 'scratch', index }, access, dtype: 'f32' } };
}

/** Operands bound read-only (one buffer per distinct node, named by its first operand) plus the output `y`. */
export interface BoundOperands {
  /** The operand buffers and the output buffer. */
  readonly buffers: BufferVar[];
  /** WGSL buffer name of an operand (operands of the same node share a name). */
  readonly name: (operand: number) => string;
}

/** Binds `operands` read-only as `names` (one buffer per distinct node), then the output read_write as `y`. */
export function bindOperands(spec: KernelSpec, operands: readonly number[], names: readonly string[]): BoundOperands {
  const buffers: BufferVar[] = [];
  const byNode = new Map<number, string>();
  const nameOf = new Map<number, string>();
  operands.forEach((i, k) => {
    const id = spec.node.inputs[i];
    let n = byNode.get(id);
    if (n === undefined) {
      n = names[k];
      byNode.set(id, n);
      buffers.push(inputVar(spec, i, n));
    }
    nameOf.set(i, n);
  });
  buffers.push(outputVar(spec));
  return { buffers, name: (i) => nameOf.get(i) ?? kernelError(spec, `operand ${i} is not bound`) };
}

/** What a shader is made of besides the skeleton. */
export interface ShaderParts {
  /** How the kernel works, for the header comment. */
  readonly strategy: string;
  /** Every buffer the shader binds. */
  readonly buffers: readonly BufferVar[];
  /** Module-scope declarations (`const`, `var<workgroup>`), one per entry, in order. */
  readonly decls?: readonly string[];
  /** The entry point: `perElementMain`, `perWorkgroupMain`, `singleWorkgroupMain` or `computeMain`. */
  readonly main: string;
}

const calls = (code: string, fn: string) => new RegExp(`\\b${fn}\\(`).test(code);

/** The WGSL module of `parts` for workgroups of `wg` invocations in x (the size of the tree reductions' memory). */
export function shaderCode(spec: KernelSpec, parts: ShaderParts, wg: number): string {
  const decls = parts.decls ?? [];
  const code = [...decls, parts.main].join('\n');
  const helpers = new Set((Object.keys(HELPERS) as HelperName[]).filter((h) => calls(code, h)));
  const trees = (['sum', 'max', 'min'] as const).filter((w) => calls(code, `wg_${w}`));
  const moduleScope = [...decls, ...(trees.length ? [workgroupReduceFns(wg, trees)] : [])].join('\n');
  const bindings = declareBindings(
    parts.buffers.map((b) => b.binding),
    parts.buffers.map((b) => b.name),
    parts.buffers.map((b) => b.element),
  );
  return `${header(spec, parts.strategy)}${[bindings, emitHelpers(helpers), moduleScope, parts.main].filter(Boolean).join('\n\n')}`;
}

/** A dispatch of one shader (its literal placeholders bound as a uniform table): workgroups of `workgroupSize` (x, or [x, y]) invocations, `grid` workgroups. */
export function shaderDispatch(spec: KernelSpec, d: ShaderParts & { readonly label?: string; readonly workgroupSize: number | readonly [number, number]; readonly grid: readonly [number, number, number] }): Dispatch {
  const [x, y] = typeof d.workgroupSize === 'number' ? [d.workgroupSize, 1] : d.workgroupSize;
  // float literals of a fused expression become reads of a uniform table bound last (literals.ts)
  return bindLiterals({ label: d.label ?? labelOf(spec.node), code: shaderCode(spec, d, x), bindings: d.buffers.map((b) => b.binding), workgroupSize: [x, y, 1], grid: d.grid });
}

/** A plan of `dispatches` run in order, sharing scratch buffers of `scratch` bytes. */
export function planOf(dispatches: readonly Dispatch[], scratch: readonly number[] = []): KernelPlan {
  return { dispatches, scratch };
}

/** The builtins of most entry points: the workgroup's id and the invocation's index in it. */
const WID_LID = '@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32';

/** An entry point `main` with workgroup size `size` (`64` or `16, 16`), builtin parameters `params`, and `body`. */
export function computeMain(size: number | string, params: string, body: string): string {
  return `@compute @workgroup_size(${size})\nfn main(${params}) {\n${indent(body)}\n}\n`;
}

/**
 * A thread per item: workgroups of `wg`, `workgroupIndex` the WGSL linear workgroup index (from `linearGrid`),
 * `count` the WGSL item count; `body` sees the item as `id` (default `o`); threads past the end return.
 */
export function perElementMain(wg: number, workgroupIndex: string, count: string, body: string, id = 'o'): string {
  return computeMain(wg, WID_LID, `let ${id} = ${workgroupIndex} * ${u32Lit(wg)} + lid;\nif (${id} >= ${count}) { return; }\n${body}`);
}

/** A workgroup per item: `body` sees the item as `id` and the invocation as `lid`; workgroups past the end return. */
export function perWorkgroupMain(wg: number, workgroupIndex: string, count: string, body: string, id = 'o'): string {
  return computeMain(wg, WID_LID, `let ${id} = ${workgroupIndex};\nif (${id} >= ${count}) { return; }\n${body}`);
}

/** One workgroup of `wg` invocations: `body` sees `lid`. */
export function singleWorkgroupMain(wg: number, body: string): string {
  return computeMain(wg, '@builtin(local_invocation_index) lid: u32', body);
}

/**
 * A thread-per-element dispatch over `n` items: `body` sees the item as `o`. With `count`, the item count is the
 * module constant of that name (declared first), else a literal.
 */
export function perElementDispatch(spec: KernelSpec, caps: DeviceCaps, o: Omit<ShaderParts, 'main'> & { readonly label?: string; readonly n: number; readonly body: string; readonly count?: string }): Dispatch {
  const wg = linearWorkgroupSize(caps);
  const g = linearGrid(spec, Math.ceil(o.n / wg), caps);
  const decls = o.count ? [`const ${o.count} = ${u32Lit(o.n)};`, ...(o.decls ?? [])] : o.decls;
  return shaderDispatch(spec, { ...o, decls, main: perElementMain(wg, g.index, o.count ?? u32Lit(o.n), o.body), workgroupSize: wg, grid: g.grid });
}

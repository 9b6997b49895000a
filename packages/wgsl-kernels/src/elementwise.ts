// The elementwise archetype: one thread per output element, operands read through baked broadcast strides
// (stride 0 on broadcast axes; index = thread id when an operand has the output's shape). Every unary and
// binary op, `where`, `cast`, `expand` and fused `pointwise` kernels are built here. Must not read an operand
// it does not use, nor bind one buffer twice: operands that are the same node share one binding.
// In place (`spec.inPlace = k`): operand k's buffer is bound once, read_write, with source `input k`; the
// result is written through it (the runtime aliases the output to that buffer). Valid because operand k has the
// output's shape, so each thread reads and writes only its own element.

import type { DType, Shape, TensorType } from '@neura/ir';
import { broadcastStrides, fmtShape, isBinary, isUnary, numel, sameShape } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { binaryF32, binaryI32, castStorage, compareExpr, unaryF32 } from './scalarOps.js';
import { emitPwExpr } from './pointwise.js';
import { inputVar, outputVar, perElementDispatch, planOf } from './shader.js';
import { collapseAxes, indexMath, kernelError, wgslType } from './wgsl.js';

/** What an elementwise body emits for one element. */
export interface ElementwiseBody {
  /** WGSL statements computing the result (may be empty). */
  readonly code: string;
  /** The result, as an expression of the output's storage type. */
  readonly result: string;
}

/**
 * Builds an elementwise plan. `emit(load)` produces the per-element body; `load(i)` names the raw stored value
 * of operand i at this element (f32 or i32, as stored) and marks operand i as read.
 */
export function elementwisePlan(spec: KernelSpec, caps: DeviceCaps, strategy: string, emit: (load: (i: number) => string) => ElementwiseBody): KernelPlan {
  const { node, inputs } = spec;
  const outShape = node.shape;
  const n = numel(outShape);
  const used = new Set<number>();
  const body = emit((i) => {
    if (i < 0 || i >= inputs.length) kernelError(spec, `the body reads operand ${i}, but there are ${inputs.length}`);
    used.add(i);
    return `v${i}`;
  });
  const k = spec.inPlace;
  if (k !== undefined) checkInPlace(spec, k, `inPlace operand ${k}`);
  // One binding per distinct operand node; the in-place operand's binding is read_write and holds the result.
  const sorted = [...used].sort((a, b) => a - b);
  const groups = groupByNode(spec, k === undefined || used.has(k) ? sorted : [...sorted, k]);
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`, k !== undefined && g.includes(k) ? 'read_write' : 'read'));
  const out = k === undefined ? outputVar(spec) : buffers[groups.findIndex((g) => g.includes(k))];
  if (k === undefined) buffers.push(out);
  if (n === 0) return EMPTY_PLAN;

  const lines = operandLoads(inputs, groups, buffers.map((b) => b.name), used, outShape);
  if (body.code) lines.push(body.code);
  lines.push(`${out.name}[o] = ${body.result};`);
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n, count: 'N', body: lines.join('\n') })]);
}

/** Throws unless operand `k` exists and has the output's shape and storage type (`what` names it in the error). */
export function checkInPlace(spec: KernelSpec, k: number, what: string): void {
  const { inputs, node } = spec;
  if (!(k >= 0 && k < inputs.length)) kernelError(spec, `${what} does not exist`);
  if (!sameShape(inputs[k].shape, node.shape) || wgslType(inputs[k].dtype) !== wgslType(node.dtype))
    kernelError(spec, `${what} is ${fmtShape(inputs[k].shape)}:${inputs[k].dtype}, not the output's ${fmtShape(node.shape)}:${node.dtype}`);
}

/** Distinct `operands` grouped by the node they are (one buffer binds each group), in order of first appearance. */
export function groupByNode(spec: KernelSpec, operands: Iterable<number>): number[][] {
  const groups: number[][] = [];
  const groupOf = new Map<number, number>();
  for (const i of new Set(operands)) {
    const id = spec.node.inputs[i];
    const g = groupOf.get(id);
    if (g === undefined) {
      groupOf.set(id, groups.length);
      groups.push([i]);
    } else groups[g].push(i);
  }
  return groups;
}

/**
 * WGSL loading `v<i>` for every used operand i at output element `o`: each bound operand (a group of operands of
 * one node, bound as `names[group]`) is indexed by `o` (same shape), `0u` (one element) or baked strides over
 * collapsed axes. Shared by the single- and multi-result elementwise archetypes.
 */
export function operandLoads(inputs: readonly TensorType[], groups: readonly number[][], names: readonly string[], used: ReadonlySet<number>, outShape: Shape): string[] {
  const n = numel(outShape);
  const idx: string[] = [];
  const general: { g: number; strides: number[] }[] = [];
  groups.forEach((g, gi) => {
    const shape = inputs[g[0]].shape;
    if (sameShape(shape, outShape) || numel(shape) === n) idx.push('o');
    else if (numel(shape) === 1) idx.push('0u');
    else {
      idx.push(`i${g[0]}`);
      general.push({ g: gi, strides: broadcastStrides(shape, outShape) });
    }
  });
  const lines: string[] = [];
  if (general.length) {
    const c = collapseAxes(outShape, general.map((x) => x.strides));
    lines.push(indexMath('o', c.shape, c.strides, general.map((x) => idx[x.g])));
  }
  groups.forEach((g, gi) => {
    for (const i of g) if (used.has(i)) lines.push(`let v${i} = ${names[gi]}[${idx[gi]}];`);
  });
  return lines;
}

const f32Of = (v: string, dtype: DType) => (wgslType(dtype) === 'f32' ? v : `f32(${v})`); // f16 loads arrive as f32

/** Unary ops (f32 → f32). */
export function unaryKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const op = spec.node.op;
  if (!isUnary(op)) return kernelError(spec, 'not a unary op');
  return elementwisePlan(spec, caps, `elementwise unary ${op}`, (load) => ({ code: '', result: unaryF32(op, load(0)) }));
}

/** Binary ops with broadcasting: f32 arithmetic for f32 operands, native i32 for i32/bool operands. */
export function binaryKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const op = spec.node.op;
  if (!isBinary(op)) return kernelError(spec, 'not a binary op');
  const dtype = wgslType(spec.inputs[0].dtype); // f16 computes in f32
  return elementwisePlan(spec, caps, `elementwise binary ${op} (${dtype} arithmetic)`, (load) => {
    const a = load(0);
    const b = load(1);
    const cmp = compareExpr(op, a, b);
    let result: string;
    if (cmp) result = `select(0i, 1i, ${cmp})`;
    else if (dtype === 'f32') result = binaryF32(op, a, b);
    else result = binaryI32(op, a, b);
    return { code: '', result };
  });
}

/** `where(cond, a, b)` with broadcasting. */
export function whereKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  return elementwisePlan(spec, caps, 'elementwise where', (load) => {
    const c = load(0);
    return { code: '', result: `select(${load(2)}, ${load(1)}, ${c} != 0i)` };
  });
}

/** `cast` between dtypes (truncation toward zero to i32, 0/1 for bool). */
export function castKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const from = spec.inputs[0].dtype;
  const to = spec.node.dtype;
  return elementwisePlan(spec, caps, `elementwise cast ${from} -> ${to}`, (load) => ({ code: '', result: castStorage(load(0), from, to) }));
}

/** Fused `pointwise`: the expression DAG in f32 arithmetic (as the interpreter evaluates it), CSE'd into lets. */
export function pointwiseKernel(spec: KernelSpec<'pointwise'>, caps: DeviceCaps): KernelPlan {
  if (spec.node.op !== 'pointwise') return kernelError(spec, 'not a pointwise op');
  const { expr, dtype } = spec.node.attrs;
  return elementwisePlan(spec, caps, 'fused pointwise expression (f32 arithmetic, one let per distinct subexpression)', (load) => {
    const e = emitPwExpr(expr, (i) => f32Of(load(i), spec.inputs[i].dtype));
    return { code: e.code, result: castStorage(e.result, 'f32', dtype) };
  });
}

// The multi-result elementwise archetype (`pointwiseMulti`): one thread per element computes several pointwise
// expressions over the same operands and writes each result where the runtime says (`spec.results`): in place
// through an operand's buffer (an optimizer updating a parameter and its moments in one dispatch), into the
// result's own buffer, or nowhere. Must not bind one buffer twice, nor write a result before every operand of
// the element is loaded. Invariant: each thread reads and writes only its own element of in-place operands
// (they have the output's shape), so in-place writes are race-free.

import type { DType, OpAttrs } from '@neura/ir';
import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec, ResultTarget } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { emitPwExpr } from './pointwise.js';
import { checkInPlace, groupByNode, operandLoads } from './elementwise.js';
import { castStorage } from './scalarOps.js';
import { inputVar, outputVar, perElementDispatch, planOf } from './shader.js';
import { indent, kernelError, wgslType } from './wgsl.js';

const f32Of = (v: string, dtype: DType) => (wgslType(dtype) === 'f32' ? v : `f32(${v})`); // f16 loads arrive as f32

/** Reads of a pointwise expression's operands. */
function readsOf(e: OpAttrs['pointwise']['expr'], into: Set<number>): void {
  switch (e.op) {
    case 'in':
      into.add(e.index);
      return;
    case 'const':
      return;
    case 'where':
      readsOf(e.c, into);
      readsOf(e.a, into);
      readsOf(e.b, into);
      return;
    default:
      readsOf(e.a, into);
      if ('b' in e) readsOf(e.b, into);
  }
}

/** `pointwiseMulti`: every expression of the node, each result to its target (see the header). */
export function pointwiseMultiKernel(spec: KernelSpec<'pointwiseMulti'>, caps: DeviceCaps): KernelPlan {
  const { node, inputs } = spec;
  const { exprs, dtype } = node.attrs;
  const targets: readonly ResultTarget[] = spec.results ?? exprs.map(() => 'buffer');
  if (targets.length !== exprs.length) kernelError(spec, `results names ${targets.length} targets for ${exprs.length} expressions`);
  const outShape = node.shape;
  const n = numel(outShape);
  const used = new Set<number>();
  exprs.forEach((e, j) => {
    if (targets[j] !== 'unused') readsOf(e, used);
  });
  const inPlaceOf = new Map<number, number>(); // operand index → result written through it
  targets.forEach((t, j) => {
    if (typeof t !== 'object') return;
    const k = t.inPlace;
    checkInPlace(spec, k, `result ${j} in place through operand ${k}`);
    const other = [...inPlaceOf].find(([kk]) => node.inputs[kk] === node.inputs[k]);
    if (other) kernelError(spec, `results ${other[1]} and ${j} are both in place through operand ${k}`);
    inPlaceOf.set(k, j);
  });
  // one binding per distinct operand node (read_write when a result is written through it), then result buffers
  const groups = groupByNode(spec, [...new Set([...used, ...inPlaceOf.keys()])].sort((a, b) => a - b));
  const resultName = new Map<number, string>();
  const buffers = groups.map((g) => {
    const writer = g.find((i) => inPlaceOf.has(i));
    if (writer !== undefined) resultName.set(inPlaceOf.get(writer) as number, `x${g[0]}`);
    return inputVar(spec, g[0], `x${g[0]}`, writer !== undefined ? 'read_write' : 'read');
  });
  targets.forEach((t, j) => {
    if (t !== 'buffer') return;
    buffers.push(outputVar(spec, `y${j}`, { index: j }));
    resultName.set(j, `y${j}`);
  });
  if (n === 0 || resultName.size === 0) return EMPTY_PLAN;

  // every operand is loaded before any result is stored (a result may overwrite an operand in place)
  const lines = operandLoads(inputs, groups, buffers.map((b) => b.name), used, outShape);
  const results: string[] = [];
  exprs.forEach((e, j) => {
    const name = resultName.get(j);
    if (!name) return;
    const em = emitPwExpr(e, (i) => f32Of(`v${i}`, inputs[i].dtype));
    // each expression in its own block: their `let` names (t0, t1, …) would clash in one scope
    lines.push(`var r${j}: ${wgslType(dtype)};`, `{\n${indent(`${em.code ? `${em.code}\n` : ''}r${j} = ${castStorage(em.result, 'f32', dtype)};`)}\n}`);
    results.push(`${name}[o] = r${j};`);
  });
  lines.push(...results);
  const strategy = `pointwise with ${exprs.length} results (${targets.map((t) => (typeof t === 'object' ? `in place via operand ${t.inPlace}` : t)).join(', ')})`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n, count: 'N', body: lines.join('\n') })]);
}

// The multi-tensor archetype (`pointwiseMultiTensor`): the same multi-result pointwise expressions over many
// groups of operands (an optimizer updating every parameter and its moments), each result written in place
// through its group's operand. With `spec.arenas` the runtime has laid each per-group operand role out in one
// buffer (at offsets it writes into the table binding): one dispatch covers every group, a thread per element of
// the concatenation, finding its group by binary search. Without it, one `pointwiseMulti` dispatch per group.
// A role read as split-K partials (`partials`) holds S_g tensors of its group's shape back to back: the arena
// form sums them as it reads (S_g is in the table); the per-group form sums them into scratch first.
// Must not bind one buffer twice; invariant: each thread reads and writes only its own element of its group.

import { groupOperands, type Node, numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec, ResultTarget } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { emitPwExpr } from './pointwise.js';
import { pointwiseMultiKernel } from './pointwiseMulti.js';
import { castStorage } from './scalarOps.js';
import { type BufferVar, inputVar, perElementDispatch, planOf, scratchVar } from './shader.js';
import { indent, kernelError, u32Lit, wgslType } from './wgsl.js';

/**
 * u32 words per group in the table: first flat index, element count, one element offset per operand role, then
 * (with partials) the group's split count.
 */
export const tableStride = (roles: number, partials = false) => 2 + roles + (partials ? 1 : 0);

/**
 * The table an arena-form dispatch reads: per group, its first index in the concatenation, its element count,
 * and the element offset of each of its operands (role k) in the buffer that holds role k of every group.
 */
export function multiTensorTable(node: Node<'pointwiseMultiTensor'>, offsets: readonly (readonly number[])[]): Uint32Array {
  const { shapes, partials } = node.attrs;
  const roles = groupOperands(node).roles;
  const stride = tableStride(roles, partials !== undefined);
  const t = new Uint32Array(shapes.length * stride);
  let first = 0;
  shapes.forEach((s, g) => {
    const at = g * stride;
    t[at] = first;
    t[at + 1] = numel(s);
    for (let k = 0; k < roles; k++) t[at + 2 + k] = offsets[g][k];
    if (partials) t[at + 2 + roles] = partials.splits[g];
    first += numel(s);
  });
  return t;
}

/** The in-place role of each result expression, the same in every group (what the arena form needs), or a reason. */
function rolesWritten(spec: KernelSpec<'pointwiseMultiTensor'>, targets: readonly ResultTarget[]): number[] | string {
  const { shared, roles } = groupOperands(spec.node);
  const R = spec.node.attrs.exprs.length;
  const out: number[] = [];
  for (let j = 0; j < targets.length; j++) {
    const t = targets[j];
    if (typeof t !== 'object') return `result ${j} is not written in place`;
    const g = Math.floor(j / R);
    const k = t.inPlace - shared - g * roles;
    if (!(k >= 0 && k < roles)) return `result ${j} is written through operand ${t.inPlace}, not one of its group`;
    const r = j % R;
    if (g === 0) out.push(k);
    else if (out[r] !== k) return `result ${j} is written through role ${k}, group 0's through role ${out[r]}`;
  }
  if (new Set(out).size !== out.length) return 'two results are written through one role';
  return out;
}

/** `pointwiseMultiTensor`: one dispatch over every group (arena form) or one per group (see the header). */
export function pointwiseMultiTensorKernel(spec: KernelSpec<'pointwiseMultiTensor'>, caps: DeviceCaps): KernelPlan {
  const { node, inputs } = spec;
  const { exprs, dtype, shapes } = node.attrs;
  const { shared, roles } = groupOperands(node);
  const R = exprs.length;
  const targets: readonly ResultTarget[] = spec.results ?? shapes.flatMap(() => exprs.map(() => 'buffer' as const));
  if (targets.length !== shapes.length * R) kernelError(spec, `results names ${targets.length} targets for ${shapes.length * R} results`);
  if (!spec.arenas) return splitPlan(spec, targets, caps);
  const written = rolesWritten(spec, targets);
  if (typeof written === 'string') kernelError(spec, `the arena form writes every result in place: ${written}`);
  const P = node.attrs.partials;
  if (P && written.includes(P.role)) kernelError(spec, `role ${P.role} is read as split-K partials and cannot be written in place`);
  // arenas hold f32 tensors, or f16 ones in a role only read (autocast gradients; f16Storage.ts converts the loads)
  const roleDtype = (k: number) => inputs[groupOperands(node).operand(0, shared + k)].dtype;
  for (let k = 0; k < roles; k++) {
    const d = roleDtype(k);
    if (shapes.some((_, g) => inputs[groupOperands(node).operand(g, shared + k)].dtype !== d)) kernelError(spec, `the arena form needs one dtype per role: role ${k} mixes dtypes`);
    if (d !== 'f32' && (d !== 'f16' || written.includes(k))) kernelError(spec, `the arena form takes f32 roles and read-only f16 roles; role ${k} is ${d}${written.includes(k) ? ' and written' : ''}`);
  }
  if (dtype !== 'f32' || inputs.slice(0, shared).some((t) => t.dtype !== 'f32')) kernelError(spec, 'the arena form writes f32 results from f32 shared operands');
  const total = shapes.reduce((s, sh) => s + numel(sh), 0);
  if (total === 0) return EMPTY_PLAN;
  const buffers: BufferVar[] = [];
  for (let i = 0; i < shared; i++) {
    if (numel(inputs[i].shape) !== 1) kernelError(spec, `shared operand ${i} has ${numel(inputs[i].shape)} elements, not 1`);
    buffers.push(inputVar(spec, i, `s${i}`));
  }
  for (let k = 0; k < roles; k++)
    buffers.push({ name: `a${k}`, binding: { source: { kind: 'arena', role: k }, access: written.includes(k) ? 'read_write' : 'read', dtype } });
  const stride = tableStride(roles, P !== undefined);
  buffers.push({ name: 'tab', binding: { source: { kind: 'table', words: shapes.length * stride }, access: 'read', dtype: 'i32' }, element: 'u32' });
  const lines = [
    // the group of element o: the last one whose first index is ≤ o
    `var lo = 0u;\nvar hi = ${u32Lit(shapes.length - 1)};`,
    `while (lo < hi) {\n  let mid = (lo + hi + 1u) / 2u;\n  if (tab[mid * ${u32Lit(stride)}] <= o) { lo = mid; } else { hi = mid - 1u; }\n}`,
    `let row = lo * ${u32Lit(stride)};`,
    'let e = o - tab[row];',
  ];
  for (let i = 0; i < shared; i++) lines.push(`let v${i} = s${i}[0];`);
  for (let k = 0; k < roles; k++) {
    lines.push(`let p${k} = tab[row + ${u32Lit(2 + k)}] + e;`);
    // split-K partials: S_g tensors of the group's element count, summed in order
    if (P?.role === k) lines.push(`var v${shared + k} = a${k}[p${k}];`, `for (var s = 1u; s < tab[row + ${u32Lit(2 + roles)}]; s = s + 1u) { v${shared + k} = v${shared + k} + a${k}[p${k} + s * tab[row + 1u]]; }`);
    else lines.push(`let v${shared + k} = a${k}[p${k}];`);
  }
  const stores: string[] = [];
  exprs.forEach((e, r) => {
    const em = emitPwExpr(e, (i) => `v${i}`);
    lines.push(`var r${r}: ${wgslType(dtype)};`, `{\n${indent(`${em.code ? `${em.code}\n` : ''}r${r} = ${castStorage(em.result, 'f32', dtype)};`)}\n}`);
    stores.push(`a${written[r]}[p${written[r]}] = r${r};`);
  });
  lines.push(...stores);
  const strategy = `multi-tensor pointwise: ${shapes.length} groups x ${R} results in place, roles in one buffer each, group by binary search${P ? `, role ${P.role} summed over split-K partials` : ''}`;
  return planOf([perElementDispatch(spec, caps, { strategy, buffers, n: total, count: 'N', body: lines.join('\n') })]);
}

/** One `pointwiseMulti` dispatch per group, its bindings renumbered to this node's operands and results. */
function splitPlan(spec: KernelSpec<'pointwiseMultiTensor'>, targets: readonly ResultTarget[], caps: DeviceCaps): KernelPlan {
  const { node, inputs } = spec;
  const { exprs, dtype, shapes } = node.attrs;
  const { shared, roles } = groupOperands(node);
  const R = exprs.length;
  const operand = (g: number, j: number) => (j < shared ? j : shared + g * roles + (j - shared));
  const P = node.attrs.partials;
  const scratch: number[] = [];
  const dispatches = shapes.flatMap((shape, g) => {
    const ops = Array.from({ length: shared + roles }, (_, j) => operand(g, j));
    // a group reading split-K partials: their sum into scratch first, read there as the role's operand
    const S = P && P.splits[g] > 1 ? P.splits[g] : 0;
    const summed = S ? operand(g, shared + (P as { role: number }).role) : -1;
    const pre = S ? [sumPartials(spec, summed, S, numel(shape), scratch.push(numel(shape) * 4) - 1, g, caps)] : [];
    const sub: Node<'pointwiseMulti'> = { id: node.id, op: 'pointwiseMulti', inputs: ops.map((o) => node.inputs[o]), attrs: { exprs, dtype }, shape, dtype, site: node.site };
    const results = exprs.map((_, r): ResultTarget => {
      const t = targets[g * R + r];
      return typeof t === 'object' ? { inPlace: ops.indexOf(t.inPlace) } : t;
    });
    const plan = pointwiseMultiKernel({ node: sub, inputs: ops.map((o) => (o === summed ? { shape, dtype: inputs[o].dtype } : inputs[o])), results }, caps);
    return [...pre, ...plan.dispatches.map((d) => ({
      ...d,
      label: `${d.label}.g${g}`,
      bindings: d.bindings.map((b) => {
        const s = b.source;
        if (s.kind === 'input' && ops[s.index] === summed) return { ...b, source: { kind: 'scratch' as const, index: scratch.length - 1 } };
        if (s.kind === 'input') return { ...b, source: { kind: 'input' as const, index: ops[s.index] } };
        if (s.kind === 'output') return { ...b, source: { kind: 'output' as const, index: g * R + (s.index ?? 0) } };
        return b;
      }),
    }))];
  });
  return planOf(dispatches, scratch);
}

/** Group g's split-K partials (operand `index`, [S, n]) summed in order into scratch buffer `into` ([n]). */
function sumPartials(spec: KernelSpec<'pointwiseMultiTensor'>, index: number, S: number, n: number, into: number, g: number, caps: DeviceCaps) {
  const buffers = [inputVar(spec, index, 'x'), scratchVar(into, 'y', 'read_write')];
  const body = `var v = x[o];\nfor (var s = 1u; s < ${u32Lit(S)}; s = s + 1u) { v = v + x[s * N + o]; }\ny[o] = v;`;
  const d = perElementDispatch(spec, caps, { strategy: `group ${g}'s ${S} split-K partials summed`, buffers, n, count: 'N', body });
  return { ...d, label: `${d.label}.g${g}:sum` };
}

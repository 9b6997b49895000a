// The reduction-with-prologue-and-epilogue archetype (`pointwiseReduce`): a reduction (reduce.ts's paths: rows,
// split rows, split columns, outer-kept-inner, general) whose elements are not loaded from a buffer but computed
// by a WGSL function of the flat index, the prologue expression over the broadcast operands; the epilogue runs
// on each reduced value before it is stored. `pointwiseReduceMulti` computes sibling reductions of the same
// operands in one plan (reduce.ts's reduceMultiPlan), one prologue and epilogue function per result. Layer-norm statistics, the sums of its backward pass and bias
// gradients of a pointwise product read their operands once and never write the product.
// Must compute what the interpreter does: the prologue in f32 arithmetic per op (emitPwExpr), f32 accumulation.

import type { DType, PwExpr } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { groupByNode, operandLoads } from './elementwise.js';
import { emitPwExpr } from './pointwise.js';
import { type ColumnsForm, type ReduceFinish, type ReduceMember, reduceMultiPlan, reducePlan, type ReduceSource } from './reduce.js';
import { inputVar, outputVar } from './shader.js';
import { indent, kernelError, wgslType } from './wgsl.js';

const f32Of = (v: string, dtype: DType) => (wgslType(dtype) === 'f32' ? v : `f32(${v})`); // f16 loads arrive as f32

/** `pointwiseReduce`: `post(reduce(expr))`, the prologue a WGSL function `prologue(i)` of the flat index. */
export function pointwiseReduceKernel(spec: KernelSpec<'pointwiseReduce'>, caps: DeviceCaps, columns: ColumnsForm = {}): KernelPlan {
  if (spec.node.op !== 'pointwiseReduce') return kernelError(spec, 'not a pointwiseReduce op');
  const { expr, shape, reduce, axes, post } = spec.node.attrs;
  const used = new Set<number>();
  const e = emitPwExpr(
    expr,
    (i) => {
      if (i < 0 || i >= spec.inputs.length) kernelError(spec, `the prologue reads operand ${i}, but there are ${spec.inputs.length}`);
      used.add(i);
      return f32Of(`v${i}`, spec.inputs[i].dtype);
    },
  );
  const groups = groupByNode(spec, [...used].sort((a, b) => a - b));
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`));
  // the operands' loads at flat index `o` (the function's parameter), as the elementwise archetype indexes them
  const loads = operandLoads(spec.inputs, groups, buffers.map((b) => b.name), used, shape);
  const fn = `fn prologue(o: u32) -> f32 {
${indent([...loads, e.code].filter(Boolean).join('\n'))}
  return ${e.result};
}`;
  const source: ReduceSource = { buffers, read: (i) => `prologue(${i})`, decls: [fn], plain: false };
  let finish: ReduceFinish | undefined;
  if (!(post.op === 'in' && post.index === 0)) {
    const p = emitPwExpr(post, () => 'v');
    finish = { decls: [`fn epilogue(v: f32) -> f32 {\n${indent([p.code, `return ${p.result};`].filter(Boolean).join('\n'))}\n}`], apply: (v) => `epilogue(${v})` };
  }
  return reducePlan(spec, caps, reduce, { shape, axes, source, out: outputVar(spec), finish, columns });
}

/** The f32 prologue functions `name<j>(o)` of `exprs` over the spec's operands (bound once, shared by all). */
function prologues(spec: KernelSpec, exprs: readonly PwExpr[], shape: readonly number[], name: string) {
  const usedBy = exprs.map(() => new Set<number>());
  const emitted = exprs.map((expr, j) =>
    emitPwExpr(
      expr,
      (i) => {
        if (i < 0 || i >= spec.inputs.length) kernelError(spec, `prologue ${j} reads operand ${i}, but there are ${spec.inputs.length}`);
        usedBy[j].add(i);
        return f32Of(`v${i}`, spec.inputs[i].dtype);
      },
    ),
  );
  const all = new Set(usedBy.flatMap((u) => [...u]));
  const groups = groupByNode(spec, [...all].sort((a, b) => a - b));
  const buffers = groups.map((g) => inputVar(spec, g[0], `x${g[0]}`));
  const decls = emitted.map((e, j) => {
    const loads = operandLoads(spec.inputs, groups, buffers.map((b) => b.name), usedBy[j], shape);
    return `fn ${name}${j}(o: u32) -> f32 {\n${indent([...loads, e.code].filter(Boolean).join('\n'))}\n  return ${e.result};\n}`;
  });
  return { buffers, decls };
}

/** `pointwiseReduceMulti`: result j is `post_j(reduce(expr_j))`, all from one read of the shared operands. */
export function pointwiseReduceMultiKernel(spec: KernelSpec<'pointwiseReduceMulti'>, caps: DeviceCaps, columns: ColumnsForm = {}): KernelPlan {
  if (spec.node.op !== 'pointwiseReduceMulti') return kernelError(spec, 'not a pointwiseReduceMulti op');
  const { results, shape, reduce, axes } = spec.node.attrs;
  const targets = spec.results ?? results.map(() => 'buffer' as const);
  const live = results.map((_, j) => j === 0 || targets[j] !== 'unused');
  const p = prologues(spec, results.map((r, j) => (live[j] ? r.expr : { op: 'const', value: 0 })), shape, 'prologue');
  const members: ReduceMember[] = results.map((r, j) => {
    if (targets[j] !== undefined && typeof targets[j] === 'object') kernelError(spec, `result ${j} cannot be written in place`);
    const out = live[j] ? outputVar(spec, `y${j}`, { index: j }) : undefined;
    const post = r.post;
    let finish: ReduceFinish | undefined;
    if (!(post.op === 'in' && post.index === 0)) {
      const e = emitPwExpr(post, () => 'v');
      finish = { decls: [`fn epilogue${j}(v: f32) -> f32 {\n${indent([e.code, `return ${e.result};`].filter(Boolean).join('\n'))}\n}`], apply: (v) => `epilogue${j}(${v})` };
    }
    return { read: (i) => `prologue${j}(${i})`, out, finish };
  });
  return reduceMultiPlan(spec, caps, reduce, { shape, axes, buffers: p.buffers, decls: p.decls, members, columns });
}

// The reduction-with-prologue-and-epilogue archetype (`pointwiseReduce`): a reduction (reduce.ts's paths: rows,
// split rows, split columns, outer-kept-inner, general) whose elements are not loaded from a buffer but computed
// by a WGSL function of the flat index, the prologue expression over the broadcast operands; the epilogue runs
// on each reduced value before it is stored. Layer-norm statistics, the sums of its backward pass and bias
// gradients of a pointwise product read their operands once and never write the product.
// Must compute what the interpreter does: the prologue in f32 arithmetic per op (emitPwExpr), f32 accumulation.

import type { DType } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec } from './kernel.js';
import { groupByNode, operandLoads } from './elementwise.js';
import { emitPwExpr } from './pointwise.js';
import { type ReduceFinish, reducePlan, type ReduceSource } from './reduce.js';
import { inputVar, outputVar } from './shader.js';
import { indent, kernelError } from './wgsl.js';

const f32Of = (v: string, dtype: DType) => (dtype === 'f32' ? v : `f32(${v})`);

/** `pointwiseReduce`: `post(reduce(expr))`, the prologue a WGSL function `prologue(i)` of the flat index. */
export function pointwiseReduceKernel(spec: KernelSpec<'pointwiseReduce'>, caps: DeviceCaps): KernelPlan {
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
    '(o & 0u)',
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
    const p = emitPwExpr(post, () => 'v', '(bitcast<u32>(v) & 0u)');
    finish = { decls: [`fn epilogue(v: f32) -> f32 {\n${indent([p.code, `return ${p.result};`].filter(Boolean).join('\n'))}\n}`], apply: (v) => `epilogue(${v})` };
  }
  return reducePlan(spec, caps, reduce, { shape, axes, source, out: outputVar(spec), finish });
}

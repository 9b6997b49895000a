// The row-local archetype (`rowwise`): a workgroup per row (the last axis) computes the row's statistics in order
// (each a workgroup tree reduction over the row of a prologue expression, then its epilogue; a later statistic
// may read the earlier ones), then writes every element of the row through the output expression. A layer norm
// forward (mean, variance, normalise, γ/β), its backward dx (two sums, then the gradient) and a softmax each become
// one dispatch that reads its operands from DRAM once (the row's re-reads hit the cache) and writes one tensor.
// Must compute what the interpreter does: f32 arithmetic per op, f32 accumulation.

import type { DType, PwExpr, RowStat } from '@neura/ir';
import { numel } from '@neura/ir';
import type { DeviceCaps, KernelPlan, KernelSpec, ResultTarget } from './kernel.js';
import { EMPTY_PLAN } from './kernel.js';
import { groupByNode, operandLoads } from './elementwise.js';
import { emitPwExpr } from './pointwise.js';
import { type BufferVar, inputVar, outputVar, perWorkgroupMain, planOf, shaderDispatch } from './shader.js';
import { ceilPow2, f32Lit, indent, kernelError, labelOf, linearGrid, linearWorkgroupSize, u32Lit, wgslType } from './wgsl.js';

const f32Of = (v: string, dtype: DType) => (wgslType(dtype) === 'f32' ? v : `f32(${v})`); // f16 loads arrive as f32
const TREE = { sum: 'sum', mean: 'sum', reduceMax: 'max', reduceMin: 'min' } as const;

/** `rowwise`: the stats of each row in order, then the output expression per element (see the header). */
export function rowwiseKernel(spec: KernelSpec<'rowwise'>, caps: DeviceCaps): KernelPlan {
  if (spec.node.op !== 'rowwise') return kernelError(spec, 'not a rowwise op');
  return rowwisePlan(spec, caps, [spec.node.attrs.expr], spec.node.attrs.stats, ['buffer']);
}

/** `rowwiseMulti`: the stats of each row once, then every result's expression per element, each to its buffer. */
export function rowwiseMultiKernel(spec: KernelSpec<'rowwiseMulti'>, caps: DeviceCaps): KernelPlan {
  if (spec.node.op !== 'rowwiseMulti') return kernelError(spec, 'not a rowwiseMulti op');
  const { exprs, stats } = spec.node.attrs;
  const targets = spec.results ?? exprs.map(() => 'buffer' as const);
  if (targets.length !== exprs.length) return kernelError(spec, `results names ${targets.length} targets for ${exprs.length} expressions`);
  targets.forEach((t, j) => {
    if (typeof t === 'object') kernelError(spec, `result ${j} cannot be written in place (the row is read again after the first results are stored)`);
  });
  return rowwisePlan(spec, caps, exprs, stats, targets);
}

/** The row kernel: stats in order, then each expression whose target is a buffer (result j to `y`/`y{j}`). */
function rowwisePlan(spec: KernelSpec<'rowwise' | 'rowwiseMulti'>, caps: DeviceCaps, exprs: readonly PwExpr[], stats: readonly RowStat[], targets: readonly ResultTarget[]): KernelPlan {
  const multi = spec.node.op === 'rowwiseMulti';
  const shape = spec.node.shape;
  const C = shape[shape.length - 1];
  const total = numel(shape);
  if (total === 0) return EMPTY_PLAN;
  const rows = total / C;
  const n = spec.inputs.length;
  const used = new Set<number>();
  // operands of one node share a buffer, named by the group's first operand (the same names in every function)
  const groups = groupByNode(spec, Array.from({ length: n }, (_, i) => i));
  const names = groups.map((g) => `x${g[0]}`);
  // each expression inline in its loop over the row: statements of the element index `o` and the stats before it
  const inline = (what: string, e: PwExpr, statsSeen: number): { code: string; result: string } => {
    const reads = new Set<number>();
    const body = emitPwExpr(e, (i) => {
      if (i < n) {
        reads.add(i);
        used.add(i);
        return f32Of(`v${i}`, spec.inputs[i].dtype);
      }
      if (i - n >= statsSeen) kernelError(spec, `${what} reads stat ${i - n}, computed after it`);
      return `s${i - n}`;
    });
    const loads = operandLoads(spec.inputs, groups, names, reads, shape);
    return { code: [...loads, body.code].filter(Boolean).join('\n'), result: body.result };
  };
  const posts = stats.map((s) => {
    if (s.post.op === 'in' && s.post.index === 0) return undefined;
    const p = emitPwExpr(s.post, () => 'v');
    return { code: p.code, result: p.result };
  });
  // about 8 elements per lane, at least 32 lanes (a 384-wide row: 64 lanes), never more lanes than elements
  const wg = Math.min(linearWorkgroupSize(caps), Math.max(32, ceilPow2(Math.ceil(C / 8))), ceilPow2(C));
  const g = linearGrid(spec, rows, caps);
  const lines = [`let base = row * ${u32Lit(C)};`];
  const loop = (body: string) => `for (var j = lid; j < ${u32Lit(C)}; j = j + ${u32Lit(wg)}) {\n${indent(`let o = base + j;\n${body}`)}\n}`;
  stats.forEach((s, k) => {
    const tree = TREE[s.reduce];
    const init = s.reduce === 'reduceMax' ? 'bitcast<f32>(0xff800000u | (lid & 0u))' : s.reduce === 'reduceMin' ? 'bitcast<f32>(0x7f800000u | (lid & 0u))' : '0.0';
    const combine = (acc: string, v: string) => (tree === 'sum' ? `${acc} + ${v}` : `${tree}(${acc}, ${v})`);
    const e = inline(`stat ${k}`, s.expr, k);
    const total = `wg_${tree}(a${k}, lid)`;
    lines.push(`var a${k} = ${init};`);
    lines.push(loop(`${e.code}\na${k} = ${combine(`a${k}`, e.result)};`));
    const post = posts[k];
    // a barrier before every reduction after the first: without it llvmpipe (Dawn GL, 2026-12) summed a second
    // wg_sum's lanes ≥ 8 wrongly (a layer norm's variance of rows of 32: 64/64 elements off), although wg_sum
    // ends with a barrier; with it, or with a second workgroup array, every row was exact
    if (k > 0) lines.push('workgroupBarrier();');
    lines.push(`let r${k} = ${s.reduce === 'mean' ? `${total} / ${f32Lit(C)}` : total};`);
    if (post) lines.push(`var s${k} = 0.0;\n{\n${indent(`let v = r${k};\n${post.code}\ns${k} = ${post.result};`)}\n}`);
    else lines.push(`let s${k} = r${k};`);
  });
  // each result of a multi in its own block: the expressions' `let` names (t0, t1, …) would clash in one scope
  const outputs: BufferVar[] = [];
  const stores = exprs.flatMap((expr, j) => {
    if (targets[j] !== 'buffer') return [];
    const name = multi ? `y${j}` : 'y';
    outputs.push(multi ? outputVar(spec, name, { index: j }) : outputVar(spec));
    const e = inline(multi ? `expression ${j}` : 'the expression', expr, stats.length);
    const store = `${e.code}\n${name}[o] = ${e.result};`;
    return [multi ? `{\n${indent(store)}\n}` : store];
  });
  if (stores.length === 0) return EMPTY_PLAN;
  lines.push(loop(stores.join('\n')));
  // bound after the expressions are emitted: `used` is filled by them
  const buffers = [...groups.filter((g) => g.some((i) => used.has(i))).map((g) => inputVar(spec, g[0], `x${g[0]}`)), ...outputs];
  const strategy = `rowwise: a workgroup per row of ${C} (${wg} lanes) computes ${stats.length} stat(s) by tree reductions, then the row's elements${multi ? ` for ${stores.length} result(s)` : ''}`;
  const d = shaderDispatch(spec, {
    label: labelOf(spec.node, `${rows}x${C}`),
    strategy,
    buffers,
    decls: [`const ROWS = ${u32Lit(rows)};`],
    main: perWorkgroupMain(wg, g.index, 'ROWS', lines.join('\n'), 'row'),
    workgroupSize: wg,
    grid: g.grid,
  });
  return planOf([d]);
}

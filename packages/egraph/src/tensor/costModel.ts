// The shape-aware cost model: a kernel costs its dispatches (two for split reductions and split-K) plus the bytes it moves over the bandwidth plus its
// flops over the throughput, from adapter-like figures. Which ops are kernels, their flops and their legality
// under the device's limits come from `@neura/ir`'s kernel facts (the runtime's compile checks the same facts):
// an illegal node costs Infinity. Must not read the e-graph beyond class types. Invariant: every node costs > 0
// (DAG extraction).

import type { KernelLimits } from '@neura/ir';
import type { OpAttrs, PwExpr } from '@neura/ir';
import { DEFAULT_KERNEL_LIMITS, groupOperands, isKernelOp as irIsKernelOp, isMultiResultOp, kernelDispatches, kernelFlops, kernelScratchBytes, reducedShape, kernelIllegality, kernelOutputs, resultType, tensorTypeBytes } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { mapInputs } from './pointwiseFusion.js';
import { enodeAttrs, fromENode, irENode, isOpKind } from './tensorLanguage.js';

/** Adapter-like figures of the cost model (µs-equivalent units). */
export interface CostOptions {
  /** Cost of one compute dispatch, in µs; default 4. */
  readonly dispatchCost?: number;
  /** Bytes moved per µs (bandwidth); default 100 000 (100 GB/s). */
  readonly bytesPerUnit?: number;
  /** Flops per µs (throughput); default 1 000 000 (1 TFLOP/s). */
  readonly flopsPerUnit?: number;
}

/** The cost model's figures with every default filled in, and the device limits it judges legality by. */
export interface CostModel extends Required<CostOptions> {
  /** The device limits a kernel must fit (storage buffers, workgroup sizes). */
  readonly limits: KernelLimits;
}

/** Whether nodes of this op need a kernel (everything but leaves and reshape; unknown ops do). */
export function isKernelOp(op: string): boolean {
  return isOpKind(op) ? irIsKernelOp(op) : true;
}

const EPSILON = 1e-6; // keeps free nodes (leaves, views) strictly positive for extraction

/** Fills in the default figures; `limits` default to WebGPU's defaults. */
export function costDefaults(opts: CostOptions = {}, limits: KernelLimits = DEFAULT_KERNEL_LIMITS): CostModel {
  return {
    dispatchCost: opts.dispatchCost ?? 4,
    bytesPerUnit: opts.bytesPerUnit ?? 100_000,
    flopsPerUnit: opts.flopsPerUnit ?? 1_000_000,
    limits,
  };
}

/** Bytes of a tensor of this type. */
export function tensorBytes(t: TensorInfo): number {
  return tensorTypeBytes(t);
}

/** The cost of one e-node given its input and output types (Infinity when illegal). */
export function opCost(node: ENode, ins: readonly TensorInfo[], out: TensorInfo, model: CostModel, operands?: readonly TensorInfo[]): number {
  if (!isOpKind(node.op)) return Number.POSITIVE_INFINITY;
  if (!irIsKernelOp(node.op)) return EPSILON;
  const ir = fromENode(node);
  const results = kernelOutputs(ir);
  const multiTensor = ir.op === 'pointwiseMultiTensor' ? { attrs: ir.attrs, inputs: node.children.length } : undefined;
  if (kernelIllegality(ir.op, ins, out, model.limits, results, multiTensor) !== undefined) return Number.POSITIVE_INFINITY;
  let bytes = ins.reduce((s, t) => s + tensorBytes(t), 0);
  for (let r = 0; r < results; r++) bytes += tensorTypeBytes(resultType(ir, out, r));
  const ctx = { attrs: ir.attrs, ins, out, operands };
  const flops = kernelFlops(ir.op, ctx);
  // a split-K matmul writes and reads back its partial products (what a consumer summing them saves)
  bytes += kernelScratchBytes(ir.op, ctx);
  // a split reduction or split-K matmul runs two dispatches
  return model.dispatchCost * kernelDispatches(ir.op, ctx) + bytes / model.bytesPerUnit + flops / model.flopsPerUnit + EPSILON;
}

/**
 * The model as a DAG extractor's node cost over a tensor e-graph. A multi-result kernel's cost is shared by its
 * results: each `pick` carries 1/k of the multi-result node's cost (which itself costs nearly nothing), so
 * a choice that takes every result pays exactly the kernel once, and the greedy phases see each result at its
 * share (a choice taking only some results is under-charged: the runtime then skips the unused results).
 */
export function tensorCost(egraph: EGraph<TensorInfo>, model: CostModel = costDefaults()): NodeCostFunction {
  const o = model;
  const memo = new WeakMap<ENode, number>(); // nodes of a rebuilt e-graph are stable objects in one class
  const insOf = (node: ENode): TensorInfo[] => {
    const seen = new Set<Id>();
    const ins: TensorInfo[] = [];
    for (const c of node.children) {
      const id = egraph.find(c);
      if (seen.has(id)) continue; // a repeated operand is bound (and read) once
      seen.add(id);
      ins.push(egraph.eclass(id).data);
    }
    return ins;
  };
  /** Every operand's type in order (a repeated operand too: attention's q, k, v may be one fused tensor). */
  const operandsOf = (node: ENode): TensorInfo[] => node.children.map((c) => egraph.eclass(c).data);
  /** The cost of one result of a `pointwiseReduceMulti` as its own `pointwiseReduce` over the operands it reads. */
  const aloneCost = (multi: ENode, r: { expr: PwExpr; post: PwExpr }, a: OpAttrs['pointwiseReduceMulti']): number => {
    const reads: number[] = [];
    mapInputs(r.expr, (i) => {
      if (!reads.includes(i)) reads.push(i);
      return { op: 'in', index: i };
    });
    const expr = mapInputs(r.expr, (i) => ({ op: 'in', index: reads.indexOf(i) }));
    const { results: _, ...rest } = a;
    const node = irENode('pointwiseReduce', { ...rest, expr, post: r.post }, reads.map((i) => multi.children[i]));
    return opCost(node, insOf(node), { shape: reducedShape(a.shape, a.axes, a.keepdims), dtype: 'f32' }, o, operandsOf(node));
  };
  /**
   * A `rowwiseMulti` split so that any set of its results costs what it saves: result j alone is a `rowwise` over the
   * operands it and the stats read (A_j); the multi node itself carries X = (ΣA − whole)/(k − 1) (what grouping
   * saves per extra result, paid once) and each pick A_j − X. All k results then cost exactly the kernel, one result
   * exactly its own row kernel (never less: a lone pick would otherwise pass for cheaper than the kernel it runs).
   */
  const rowSplits = new WeakMap<ENode, { shared: number; picks: number[] }>();
  const rowSplit = (multi: ENode, out: TensorInfo): { shared: number; picks: number[] } => {
    const hit = rowSplits.get(multi);
    if (hit) return hit;
    const a = enodeAttrs(multi, 'rowwiseMulti');
    const n = multi.children.length;
    const whole = opCost(multi, insOf(multi), out, o);
    const alone = a.exprs.map((expr) => {
      const reads: number[] = [];
      const note = (e: PwExpr) =>
        mapInputs(e, (i) => {
          if (i < n && !reads.includes(i)) reads.push(i);
          return { op: 'in', index: i };
        });
      note(expr);
      for (const st of a.stats) note(st.expr);
      const at = (i: number): PwExpr => ({ op: 'in', index: i < n ? reads.indexOf(i) : reads.length + i - n });
      const node = irENode('rowwise', { expr: mapInputs(expr, at), stats: a.stats.map((st) => ({ ...st, expr: mapInputs(st.expr, at) })) }, reads.map((i) => multi.children[i]));
      return opCost(node, insOf(node), out, o);
    });
    const k = alone.length;
    const total = alone.reduce((s, v) => s + v, 0);
    const shared = k > 1 && Number.isFinite(whole) ? Math.max(0, (total - whole) / (k - 1)) : 0;
    const split = Number.isFinite(whole) ? { shared, picks: alone.map((v) => Math.max(EPSILON, v - shared)) } : { shared: whole, picks: alone.map(() => whole) };
    rowSplits.set(multi, split);
    return split;
  };
  /**
   * A pick's share of its multi-result kernel: 1/k each, except attentionWithLse, whose log-sum-exp result is
   * charged just under a separate attentionLse kernel (the rest on result 0): taking the log-sum-exp from the
   * forward must look cheaper than recomputing it, and result 0 alone must not look cheaper than attention.
   */
  // what every pick of one multi-result node shares (its whole cost, the groups' sizes, the results alone),
  // computed once per node: a multi-tensor update has a pick per parameter and hundreds of operands
  const shared = new WeakMap<ENode, { whole: number; sizes?: number[]; extra?: number[]; total?: number; alone?: number[] }>();
  const sharedOf = (multi: ENode, src: Id) => {
    let sh = shared.get(multi);
    if (!sh) shared.set(multi, (sh = { whole: opCost(multi, insOf(multi), egraph.eclass(src).data, o, operandsOf(multi)) }));
    return sh;
  };
  const resultShare = (multi: ENode, { index }: { index: number }, src: Id): number => {
    const ir = fromENode(multi);
    const sh = sharedOf(multi, src);
    const whole = sh.whole;
    if (ir.op === 'pointwiseMultiTensor') {
      // the dispatch shared by every result, the traffic and work by each result's group (its share of elements):
      // a small parameter's update is then cheaper in the group than alone, whatever the other groups' sizes. A
      // group reading S split-K partials moves S − 1 more tensors of its size, charged to its result 0 alone (any
      // one result of it needs them; charged to all, each result looked cheaper computed apart from the rest)
      if (!sh.sizes) {
        const { roles } = groupOperands({ inputs: multi.children, attrs: ir.attrs });
        const P = ir.attrs.partials;
        const moved = roles + ir.attrs.exprs.length;
        const numels = ir.attrs.shapes.map((s) => s.reduce((p, d) => p * d, 1));
        sh.sizes = numels.map((n) => n * moved);
        sh.extra = numels.map((n, g) => (P ? n * (P.splits[g] - 1) : 0));
        sh.total = sh.sizes.reduce((a, b) => a + b, 0) + sh.extra.reduce((a, b) => a + b, 0) || 1;
      }
      const { sizes, extra = [] } = sh;
      const total = sh.total as number;
      const k = kernelOutputs(ir);
      const R = ir.attrs.exprs.length;
      const g = Math.floor(index / R);
      return o.dispatchCost / k + ((whole - o.dispatchCost) * (sizes[g] / R + (index % R === 0 ? (extra[g] ?? 0) : 0))) / total;
    }
    if (ir.op === 'rowwiseMulti') return rowSplit(multi, egraph.eclass(src).data).picks[index];
    if (ir.op === 'pointwiseReduceMulti') {
      // each result pays in proportion to its reduction alone: any single result moved into the kernel is then
      // cheaper than its own kernel whenever the group is, so a search taking them one at a time takes them all
      if (!sh.alone) sh.alone = ir.attrs.results.map((r) => aloneCost(multi, r, ir.attrs));
      const alone = sh.alone;
      const total = alone.reduce((a, b) => a + b, 0);
      return total > 0 && Number.isFinite(total) ? (whole * alone[index]) / total : whole / alone.length;
    }
    if (ir.op !== 'attentionWithLse') return whole / kernelOutputs(ir);
    const lseNode = irENode('attentionLse', ir.attrs, multi.children.slice(0, 2));
    const lseType = resultType(ir, egraph.eclass(src).data, 1);
    const lse = Math.min(whole, opCost(lseNode, insOf(lseNode), { shape: lseType.shape, dtype: lseType.dtype }, o, operandsOf(lseNode))) * (1 - 1e-6);
    return index === 1 ? lse : whole - lse;
  };
  return {
    nodeCost(node: ENode, eclass: Id): number {
      const hit = memo.get(node);
      if (hit !== undefined) return hit;
      let c: number;
      // a hair over its share: a lone pick costs strictly more than the row kernel it stands for
      if (node.op === 'rowwiseMulti') c = rowSplit(node, egraph.eclass(eclass).data).shared + 1e-3;
      else if (isOpKind(node.op) && isMultiResultOp(node.op)) c = EPSILON;
      else if (node.op === 'pick') {
        const src = egraph.find(node.children[0]);
        const multi = egraph.eclass(src).nodes.find((n) => isOpKind(n.op) && isMultiResultOp(n.op));
        c = multi ? resultShare(multi, enodeAttrs(node, 'pick'), src) + EPSILON : Number.POSITIVE_INFINITY;
      } else c = opCost(node, insOf(node), egraph.eclass(eclass).data, o, operandsOf(node));
      memo.set(node, c);
      return c;
    },
  };
}

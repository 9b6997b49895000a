// The shape-aware cost model: a kernel costs its dispatches (two for split reductions and split-K) plus the bytes it moves over the bandwidth plus its
// flops over the throughput, from adapter-like figures. Which ops are kernels, their flops and their legality
// under the device's limits come from `@neura/ir`'s kernel facts (the runtime's compile checks the same facts):
// an illegal node costs Infinity. Must not read the e-graph beyond class types. Invariant: every node costs > 0
// (DAG extraction).

import type { KernelLimits } from '@neura/ir';
import { DEFAULT_KERNEL_LIMITS, isKernelOp as irIsKernelOp, isMultiResultOp, kernelDispatches, kernelFlops, kernelScratchBytes, kernelIllegality, kernelOutputs, resultType, tensorTypeBytes } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { type ShareCtx, pricerOf } from './pack/index.js';
import { enodeAttrs, fromENode, isOpKind } from './tensorLanguage.js';

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
  // a single-result kernel writes its output (`resultType` copied its shape first: ~3 % of the cost profile's samples)
  if (!isMultiResultOp(ir.op)) bytes += tensorTypeBytes(out);
  else for (let r = 0; r < results; r++) bytes += tensorTypeBytes(resultType(ir, out, r));
  const ctx = { attrs: ir.attrs, ins, out, operands };
  const flops = kernelFlops(ir.op, ctx);
  // a split-K matmul writes and reads back its partial products (what a consumer summing them saves)
  bytes += kernelScratchBytes(ir.op, ctx);
  // a split reduction or split-K matmul runs two dispatches
  return model.dispatchCost * kernelDispatches(ir.op, ctx) + bytes / model.bytesPerUnit + flops / model.flopsPerUnit + EPSILON;
}

/** Memoised costs of one class's nodes (NaN: not computed yet), valid while the class's list stands still. */
interface ClassCosts {
  readonly nodes: readonly ENode[];
  readonly costs: Float64Array;
  /**
   * The place after the node last asked for: extraction asks a class's nodes in list order, so the next node is
   * usually there (`indexOf` on each ask was quadratic in a class of hundreds of fused variants).
   */
  next: number;
  /**
   * Each node's place, made on the first ask out of order: `dagCost` (the packers price a plan many times) asks a
   * plan's nodes in no order, and `indexOf` through classes of hundreds of variants was ~1/5 of this function.
   */
  places?: Map<ENode, number>;
}

/** `nodes.indexOf(node)`, through the memo's place map when the memo is of this very list (made on first use). */
function placeOf(kept: ClassCosts | undefined, nodes: readonly ENode[], node: ENode): number {
  // (a short list is searched: a map would cost more)
  if (nodes.length <= 16 || kept === undefined || kept.nodes !== nodes || kept.costs.length !== nodes.length) return nodes.indexOf(node);
  let places = kept.places;
  if (places === undefined) {
    places = new Map();
    // the first place of each node, as `indexOf` finds it
    for (let i = 0; i < nodes.length; i++) if (!places.has(nodes[i])) places.set(nodes[i], i);
    kept.places = places;
  }
  return places.get(node) ?? -1;
}

/**
 * The model as a DAG extractor's node cost over a tensor e-graph. A multi-result kernel's cost is shared by its
 * results: each `pick` carries its share of the multi-result node's cost (1/k, or its packer's price: pack/), the
 * node itself nearly nothing, so a choice that takes every result pays exactly the kernel once, and the greedy
 * phases see each result at its share (a choice taking only some results is under-charged: the runtime then skips
 * the unused results).
 */
export function tensorCost(egraph: EGraph<TensorInfo>, model: CostModel = costDefaults()): NodeCostFunction {
  const o = model;
  // costs of the nodes in their class's list at their places there, by canonical class id (a Map keyed by each of
  // the GPT 6×384 step's 22 600 node objects made its extraction ~6 % slower); a node outside its class's list
  // (a choice built elsewhere) by object
  const classMemo: (ClassCosts | undefined)[] = new Array(egraph.totalIds);
  const memo = new Map<ENode, number>();
  const seenIds = new Int32Array(16);
  const insOf = (node: ENode): TensorInfo[] => {
    const kids = node.children;
    const ins: TensorInfo[] = [];
    // a repeated operand is bound (and read) once; few operands are compared in place (a Set per node was ~1 % of
    // optimize), the hundreds of a multi-tensor update through a set
    if (kids.length > 16) {
      const seen = new Set<Id>();
      for (const c of kids) {
        const id = egraph.find(c);
        if (seen.has(id)) continue;
        seen.add(id);
        ins.push(egraph.eclass(id).data);
      }
      return ins;
    }
    // the distinct ids so far in a scratch list (no array per node: costs are asked for every e-node)
    let distinct = 0;
    for (let i = 0; i < kids.length; i++) {
      const id = egraph.find(kids[i]);
      let seen = false;
      for (let j = 0; j < distinct && !seen; j++) seen = seenIds[j] === id;
      if (seen) continue;
      seenIds[distinct++] = id;
      ins.push(egraph.eclass(id).data);
    }
    return ins;
  };
  /** Every operand's type in order (a repeated operand too: attention's q, k, v may be one fused tensor). */
  const operandsOf = (node: ENode): TensorInfo[] => node.children.map((c) => egraph.eclass(c).data);
  const costOf = (node: ENode, out: TensorInfo) => opCost(node, insOf(node), out, o, operandsOf(node));
  // what a multi-result node's prices share (its whole cost, its packer's memo), computed once per node: a
  // multi-tensor update has a pick per parameter and hundreds of operands
  const shared = new Map<ENode, ShareCtx>();
  const shareCtx = (multi: ENode, src: Id): ShareCtx => {
    let ctx = shared.get(multi);
    if (!ctx) {
      let memo: { v: unknown } | undefined;
      ctx = {
        egraph,
        dispatchCost: o.dispatchCost,
        whole: costOf(multi, egraph.eclass(src).data),
        cost: costOf,
        memo: <T>(make: () => T): T => (memo ??= { v: make() }).v as T,
      };
      shared.set(multi, ctx);
    }
    return ctx;
  };
  /** A pick's share of its multi-result kernel: its packer's price (pack/), else 1/k of the kernel. */
  const resultShare = (multi: ENode, { index }: { index: number }, src: Id): number => {
    const ctx = shareCtx(multi, src);
    const share = pricerOf(multi.op)?.share;
    return share ? share(multi, index, src, ctx) : ctx.whole / kernelOutputs(fromENode(multi));
  };
  return {
    nodeCost(node: ENode, eclass: Id): number {
      const cls = egraph.find(eclass);
      const nodes = egraph.eclass(cls).nodes;
      const kept = classMemo[cls];
      const at = kept !== undefined && kept.next < nodes.length && nodes[kept.next] === node ? kept.next : placeOf(kept, nodes, node);
      let m: ClassCosts | undefined;
      if (at >= 0) {
        m = kept;
        if (!m || m.nodes !== nodes || m.costs.length !== nodes.length) classMemo[cls] = m = { nodes, costs: new Float64Array(nodes.length).fill(Number.NaN), next: 0 };
        m.next = at + 1;
        const hit = m.costs[at];
        if (!Number.isNaN(hit)) return hit;
      } else {
        const hit = memo.get(node);
        if (hit !== undefined) return hit;
      }
      let c: number;
      if (isOpKind(node.op) && isMultiResultOp(node.op)) {
        const own = pricerOf(node.op)?.multiCost;
        c = own ? own(node, egraph.find(eclass), shareCtx(node, egraph.find(eclass))) : EPSILON;
      }
      else if (node.op === 'pick') {
        const src = egraph.find(node.children[0]);
        const multi = egraph.eclass(src).nodes.find((n) => isOpKind(n.op) && isMultiResultOp(n.op));
        c = multi ? resultShare(multi, enodeAttrs(node, 'pick'), src) + EPSILON : Number.POSITIVE_INFINITY;
      } else c = opCost(node, insOf(node), egraph.eclass(eclass).data, o, operandsOf(node));
      if (m) m.costs[at] = c;
      else memo.set(node, c);
      return c;
    },
  };
}

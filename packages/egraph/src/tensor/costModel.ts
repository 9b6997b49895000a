// The shape-aware cost model: a kernel costs one dispatch plus the bytes it moves over the bandwidth plus its
// flops over the throughput, from adapter-like figures. WebGPU limits are legality: an illegal node costs
// Infinity. Must not read the e-graph beyond class types. Invariant: every node costs > 0 (DAG extraction).

import type { OpKind, Shape } from '@neura/ir';
import { byteSize, needsKernel, numel, OP_FACTS, OP_KINDS } from '@neura/ir';
import type { EGraph, ENode, Id, NodeCostFunction } from '../core/index.js';
import { exprSize } from './pointwiseFusion.js';
import { pointwiseExprOf } from './tensorLanguage.js';
import type { TensorInfo } from './tensorAnalysis.js';

/** Adapter-like figures of the cost model (µs-equivalent units). */
export interface CostOptions {
  /** Cost of one compute dispatch, in µs; default 4. */
  readonly dispatchCost?: number;
  /** Bytes moved per µs (bandwidth); default 100 000 (100 GB/s). */
  readonly bytesPerUnit?: number;
  /** Flops per µs (throughput); default 1 000 000 (1 TFLOP/s). */
  readonly flopsPerUnit?: number;
  /** Storage buffers per shader stage (`maxStorageBuffersPerShaderStage`); default 8. */
  readonly maxStorageBuffersPerShaderStage?: number;
  /** Largest storage binding in bytes (`maxStorageBufferBindingSize`); default 128 MiB. */
  readonly maxStorageBufferBindingSize?: number;
}

/** What a per-op cost rule sees: the node's input and output types. */
interface OpCtx {
  readonly node: ENode;
  readonly ins: readonly TensorInfo[];
  readonly out: TensorInfo;
}

/** Whether an op runs as a kernel (a dispatch), and its flops. */
interface OpCost {
  readonly kernel: boolean;
  readonly flops: (c: OpCtx) => number;
}

const n = (s: Shape) => numel(s);
const view: OpCost = { kernel: false, flops: () => 0 };
const leaf: OpCost = { kernel: false, flops: () => 0 };
const perOut = (k: number): OpCost => ({ kernel: true, flops: (c) => k * n(c.out.shape) });
const perIn = (k: number): OpCost => ({ kernel: true, flops: (c) => k * n(c.ins[0].shape) });
const matmulFlops = (c: OpCtx) => {
  const a = c.ins[0].shape;
  const flags = c.node.data as { transA?: boolean };
  const k = flags.transA ? a[a.length - 2] : a[a.length - 1]; // flags apply to the last two axes (batched)
  return 2 * n(c.out.shape) * k;
};
/** Two products (q·kᵀ, p·v) plus the softmax: 2·Tq·Tk·(D + Dv) + 5·Tq·Tk per head. */
const attentionFlops = (c: OpCtx) => {
  const [q, k, v] = c.ins.length >= 3 ? [c.ins[0].shape, c.ins[1].shape, c.ins[2].shape] : [c.ins[0].shape, c.ins[0].shape, c.ins[0].shape];
  const r = q.length;
  const heads = n(q.slice(0, -2));
  const tt = q[r - 2] * k[r - 2];
  return heads * tt * (2 * (q[r - 1] + v[r - 1]) + 5);
};
/** One compare or add per window tap of each pooled output. */
const poolFlops = (c: OpCtx) => {
  const k = (c.node.data as { kernel?: [number, number] }).kernel ?? [1, 1];
  const pooled = c.node.op === 'avgPool2dGrad' || c.node.op === 'maxPool2dGrad' ? c.ins[c.ins.length - 1].shape : c.out.shape;
  return n(pooled) * k[0] * k[1];
};
const SLOW = 4; // transcendental ops cost a few simple ones

/** Cost rule of every op. */
export const OP_COST: { [K in OpKind]: OpCost } = {
  input: leaf,
  param: leaf,
  state: leaf,
  const: leaf,
  neg: perOut(1),
  abs: perOut(1),
  exp: perOut(SLOW),
  log: perOut(SLOW),
  sqrt: perOut(SLOW),
  rsqrt: perOut(SLOW),
  recip: perOut(1),
  square: perOut(1),
  relu: perOut(1),
  sigmoid: perOut(SLOW),
  tanh: perOut(SLOW),
  sin: perOut(SLOW),
  cos: perOut(SLOW),
  erf: perOut(2 * SLOW),
  gelu: perOut(2 * SLOW),
  geluTanh: perOut(2 * SLOW),
  silu: perOut(SLOW),
  softplus: perOut(2 * SLOW),
  add: perOut(1),
  sub: perOut(1),
  mul: perOut(1),
  div: perOut(1),
  max: perOut(1),
  min: perOut(1),
  pow: perOut(SLOW),
  gt: perOut(1),
  ge: perOut(1),
  lt: perOut(1),
  le: perOut(1),
  eq: perOut(1),
  where: perOut(1),
  cast: perOut(1),
  sum: perIn(1),
  mean: perIn(1),
  reduceMax: perIn(1),
  reduceMin: perIn(1),
  argmax: perIn(1),
  reshape: view,
  transpose: perOut(0),
  expand: perOut(0),
  slice: perOut(0),
  pad: perOut(0),
  concat: perOut(0),
  gather: perOut(0),
  scatterAdd: perIn(1), // reads and writes the target, adds each update once
  oneHot: perOut(0),
  stopGradient: perOut(0), // a copy until a rule drops it after differentiation
  matmul: { kernel: true, flops: matmulFlops },
  logSoftmax: perIn(3 + SLOW),
  logSoftmaxGrad: perIn(3 + SLOW),
  nll: perIn(1),
  nllGrad: perOut(1),
  attention: { kernel: true, flops: attentionFlops },
  attentionGrad: { kernel: true, flops: (c) => 2.5 * attentionFlops(c) }, // recomputes scores, then dP and one product
  rope: perOut(2 + SLOW),
  dropout: perOut(4),
  // 2 flops per multiply-add; each output of conv2d sums C/groups·KH·KW products (the backward ops the same total)
  conv2d: { kernel: true, flops: (c) => 2 * n(c.out.shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradInput: { kernel: true, flops: (c) => 2 * n(c.ins[0].shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradWeight: { kernel: true, flops: (c) => 2 * n(c.ins[1]?.shape ?? []) * n(c.out.shape.slice(1)) },
  maxPool2d: { kernel: true, flops: poolFlops },
  maxPool2dGrad: { kernel: true, flops: poolFlops },
  avgPool2d: { kernel: true, flops: poolFlops },
  avgPool2dGrad: { kernel: true, flops: poolFlops },
  fusedMatmul: { kernel: true, flops: (c) => matmulFlops(c) + 2 * n(c.out.shape) },
  pointwise: { kernel: true, flops: (c) => exprSize(pointwiseExprOf(c.node)) * n(c.out.shape) },
  softmaxCrossEntropy: perIn(4 + SLOW),
  softmaxCrossEntropyGrad: perIn(4 + SLOW),
};

/** Whether nodes of this op need a kernel (everything but leaves and aliases: ir's op facts). */
export function isKernelOp(op: string): boolean {
  return (OP_KINDS as readonly string[]).includes(op) ? needsKernel(op as OpKind) : true;
}

const EPSILON = 1e-6; // keeps free nodes (leaves, views) strictly positive for extraction

/** Fills in the default figures. */
export function costDefaults(opts: CostOptions = {}): Required<CostOptions> {
  return {
    dispatchCost: opts.dispatchCost ?? 4,
    bytesPerUnit: opts.bytesPerUnit ?? 100_000,
    flopsPerUnit: opts.flopsPerUnit ?? 1_000_000,
    maxStorageBuffersPerShaderStage: opts.maxStorageBuffersPerShaderStage ?? 8,
    maxStorageBufferBindingSize: opts.maxStorageBufferBindingSize ?? 128 * 1024 * 1024,
  };
}

/** Bytes of a tensor of this type. */
export function tensorBytes(t: TensorInfo): number {
  return n(t.shape) * byteSize(t.dtype);
}

/** The cost of one e-node given its input and output types (Infinity when illegal). */
export function opCost(node: ENode, ins: readonly TensorInfo[], out: TensorInfo, opts: Required<CostOptions>): number {
  const rule = (OP_COST as Record<string, OpCost | undefined>)[node.op];
  if (!rule) return Number.POSITIVE_INFINITY;
  if (!rule.kernel) return EPSILON;
  const fused = OP_FACTS[node.op as OpKind].fused;
  if (ins.length + 1 > opts.maxStorageBuffersPerShaderStage) return Number.POSITIVE_INFINITY;
  // a fused node binding more than the limit is illegal; primitives stay legal so extraction always succeeds
  if (fused && [...ins, out].some((t) => tensorBytes(t) > opts.maxStorageBufferBindingSize)) return Number.POSITIVE_INFINITY;
  const bytes = ins.reduce((s, t) => s + tensorBytes(t), 0) + tensorBytes(out);
  const flops = rule.flops({ node, ins, out });
  return opts.dispatchCost + bytes / opts.bytesPerUnit + flops / opts.flopsPerUnit + EPSILON;
}

/** The model as a DAG extractor's node cost over a tensor e-graph. */
export function tensorCost(egraph: EGraph<TensorInfo>, opts: CostOptions = {}): NodeCostFunction {
  const o = costDefaults(opts);
  const memo = new WeakMap<ENode, number>(); // nodes of a rebuilt e-graph are stable objects in one class
  return {
    nodeCost(node: ENode, eclass: Id): number {
      const hit = memo.get(node);
      if (hit !== undefined) return hit;
      const seen = new Set<Id>();
      const ins: TensorInfo[] = [];
      for (const c of node.children) {
        const id = egraph.find(c);
        if (seen.has(id)) continue; // a repeated operand is bound (and read) once
        seen.add(id);
        ins.push(egraph.eclass(id).data);
      }
      const c = opCost(node, ins, egraph.eclass(eclass).data, o);
      memo.set(node, c);
      return c;
    },
  };
}

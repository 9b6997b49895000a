// Kernel legality and cost facts, in one place for the e-graph's cost model and the runtime's compile: which
// ops run as a kernel (a dispatch), each kernel's flops, and whether a kernel binding given tensors is legal under
// a device's limits. Must not know WGSL or WebGPU objects (limits arrive as plain numbers).
// Invariants: the table covers every op (the compiler lists a missing one); a fused op over the limits is
// illegal; a primitive is never refused here (it has no alternative: the runtime's generator decides, with a
// typed error naming the limit).

import { customOpDef } from './customOp.js';
import { byteSize } from './dtype.js';
import type { TensorType } from './infer.js';
import { FUSED_OPS } from './opFacts.js';
import type { OpAttrs, OpKind } from './ops.js';
import type { PwExpr } from './pointwiseExpr.js';
import { numel, type Shape } from './shape.js';

/** The device limits that decide kernel legality (the matching `GPUSupportedLimits` fields). */
export interface KernelLimits {
  /** Storage buffers one dispatch may bind (`maxStorageBuffersPerShaderStage`). */
  readonly maxStorageBuffersPerShaderStage: number;
  /** Largest storage binding in bytes (`maxStorageBufferBindingSize`). */
  readonly maxStorageBufferBindingSize: number;
}

/** WebGPU's default limits (what every adapter offers without asking). */
export const DEFAULT_KERNEL_LIMITS: KernelLimits = {
  maxStorageBuffersPerShaderStage: 8,
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
};

/** What a cost rule sees: the op's attributes, its distinct operand types and its output type. */
export interface KernelCtx {
  readonly attrs: unknown;
  readonly ins: readonly TensorType[];
  readonly out: TensorType;
}

/** Whether an op runs as a kernel (false: a leaf or an alias of its input), and its flops. */
export interface KernelCost {
  readonly kernel: boolean;
  readonly flops: (c: KernelCtx) => number;
}

const n = (s: Shape) => numel(s);
const free: KernelCost = { kernel: false, flops: () => 0 };
const perOut = (k: number): KernelCost => ({ kernel: true, flops: (c) => k * n(c.out.shape) });
const perIn = (k: number): KernelCost => ({ kernel: true, flops: (c) => k * n(c.ins[0].shape) });
const matmulFlops = (c: KernelCtx) => {
  const a = c.ins[0].shape;
  const k = (c.attrs as { transA?: boolean }).transA ? a[a.length - 2] : a[a.length - 1]; // flags: last two axes
  return 2 * n(c.out.shape) * k;
};
/** Two products (q·kᵀ, p·v) plus the softmax: 2·Tq·Tk·(D + Dv) + 5·Tq·Tk per head. */
const attentionFlops = (c: KernelCtx) => {
  const [q, k, v] = c.ins.length >= 3 ? [c.ins[0].shape, c.ins[1].shape, c.ins[2].shape] : [c.ins[0].shape, c.ins[0].shape, c.ins[0].shape];
  const r = q.length;
  return n(q.slice(0, -2)) * q[r - 2] * k[r - 2] * (2 * (q[r - 1] + v[r - 1]) + 5);
};
/** One compare or add per window tap of each pooled output. */
const poolFlops = (pooledIsLastInput: boolean) => (c: KernelCtx) => {
  const k = (c.attrs as { kernel?: [number, number] }).kernel ?? [1, 1];
  return n(pooledIsLastInput ? c.ins[c.ins.length - 1].shape : c.out.shape) * k[0] * k[1];
};
const SLOW = 4; // transcendental ops cost a few simple ones

/** Nodes of a pointwise expression tree (shared subtrees counted per use, as they are evaluated). */
export function pwExprSize(e: PwExpr): number {
  switch (e.op) {
    case 'in':
    case 'const':
      return 1;
    case 'where':
      return 1 + pwExprSize(e.c) + pwExprSize(e.a) + pwExprSize(e.b);
    case 'cast':
      return 1 + pwExprSize(e.a);
    default:
      return 'b' in e ? 1 + pwExprSize(e.a) + pwExprSize(e.b) : 1 + pwExprSize(e.a);
  }
}

/** Kernel facts of every op. */
export const KERNEL_COST: { readonly [K in OpKind]: KernelCost } = {
  input: free,
  param: free,
  state: free,
  const: free,
  reshape: free,
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
  transpose: perOut(0),
  expand: perOut(0),
  slice: perOut(0),
  pad: perOut(0),
  concat: perOut(0),
  gather: perOut(0),
  scatterAdd: perIn(1), // reads and writes the target, adds each update once
  oneHot: perOut(0),
  stopGradient: perOut(0), // a copy until a rule drops it after differentiation
  custom: {
    kernel: true,
    flops: (c) => {
      const a = c.attrs as OpAttrs['custom'];
      return customOpDef(a.name).flops?.(c.ins, c.out, a.params) ?? n(c.out.shape);
    },
  },
  matmul: { kernel: true, flops: matmulFlops },
  logSoftmax: perIn(3 + SLOW),
  logSoftmaxGrad: perIn(3 + SLOW),
  nll: perIn(1),
  nllGrad: perOut(1),
  attention: { kernel: true, flops: attentionFlops },
  attentionLse: { kernel: true, flops: (c) => attentionFlops(c) / 2 }, // the scores and their softmax sums, no product with v
  attentionGrad: { kernel: true, flops: (c) => 1.5 * attentionFlops(c) }, // recomputes scores, then dP and one product
  rope: perOut(2 + SLOW),
  dropout: perOut(4),
  // 2 flops per multiply-add; each output of conv2d sums C/groups·KH·KW products (the backward ops the same total)
  conv2d: { kernel: true, flops: (c) => 2 * n(c.out.shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradInput: { kernel: true, flops: (c) => 2 * n(c.ins[0].shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradWeight: { kernel: true, flops: (c) => 2 * n(c.ins[1]?.shape ?? []) * n(c.out.shape.slice(1)) },
  maxPool2d: { kernel: true, flops: poolFlops(false) },
  maxPool2dGrad: { kernel: true, flops: poolFlops(true) },
  avgPool2d: { kernel: true, flops: poolFlops(false) },
  avgPool2dGrad: { kernel: true, flops: poolFlops(true) },
  fusedMatmul: { kernel: true, flops: (c) => matmulFlops(c) + 2 * n(c.out.shape) },
  pointwise: { kernel: true, flops: (c) => pwExprSize((c.attrs as OpAttrs['pointwise']).expr) * n(c.out.shape) },
  pointwiseMulti: {
    kernel: true,
    flops: (c) => (c.attrs as OpAttrs['pointwiseMulti']).exprs.reduce((s, e) => s + pwExprSize(e), 0) * n(c.out.shape),
  },
  pick: free, // written by its pointwiseMulti's kernel
  softmaxCrossEntropy: perIn(4 + SLOW),
  softmaxCrossEntropyGrad: perIn(4 + SLOW),
};

/** Results a kernel of this op writes (several for `pointwiseMulti`, each of the output's type). */
export function kernelOutputs(op: OpKind, attrs: unknown): number {
  return op === 'pointwiseMulti' ? (attrs as OpAttrs['pointwiseMulti']).exprs.length : 1;
}

/** Whether nodes of this op run as a kernel (everything but leaves, reshape and pick). */
export function isKernelOp(op: OpKind): boolean {
  return KERNEL_COST[op].kernel;
}

/** Bytes of a tensor of this type. */
export function tensorTypeBytes(t: TensorType): number {
  return n(t.shape) * byteSize(t.dtype);
}

// ops made only by the optimizer (fusions): over a limit they are illegal, since their primitives remain
const FUSED: ReadonlySet<OpKind> = new Set(FUSED_OPS);

/**
 * Why a kernel of `op` over these distinct operand types and output is illegal under `limits`, or undefined
 * when it is legal. One binding per distinct operand plus one per result (`attrs` say how many; without them,
 * one). Only fused ops are refused (see header).
 */
export function kernelIllegality(op: OpKind, ins: readonly TensorType[], out: TensorType, limits: KernelLimits, attrs?: unknown): string | undefined {
  if (!KERNEL_COST[op].kernel || !FUSED.has(op)) return undefined;
  const bindings = ins.length + (attrs === undefined ? 1 : kernelOutputs(op, attrs)); // results written in place bind fewer
  if (bindings > limits.maxStorageBuffersPerShaderStage)
    return `${op} binds ${bindings} storage buffers, over maxStorageBuffersPerShaderStage = ${limits.maxStorageBuffersPerShaderStage}`;
  const big = [...ins, out].find((t) => tensorTypeBytes(t) > limits.maxStorageBufferBindingSize);
  if (big)
    return `${op} binds a tensor of ${tensorTypeBytes(big)} bytes, over maxStorageBufferBindingSize = ${limits.maxStorageBufferBindingSize}`;
  return undefined;
}

// Kernel legality and cost facts, in one place for the e-graph's cost model and the runtime's compile: each
// kernel's flops (typed per op: a rule reads its op's attributes without casts), and whether a kernel binding
// given tensors is legal under a device's limits. Which ops run as a kernel and which are fused come from
// OP_FACTS. Must not know WGSL or WebGPU objects (limits arrive as plain numbers).
// Invariants: the table covers every op (the compiler lists a missing one); a fused op over the limits is
// illegal; a primitive is never refused here (it has no alternative: the runtime's generator decides, with a
// typed error naming the limit).

import { customOpDef } from './customOp.js';
import { bufferBytes, byteSize } from './dtype.js';
import type { TensorType } from './infer.js';
import { OP_FACTS, needsKernel } from './opFacts.js';
export { groupOperands, isMultiResultOp, kernelOutputs, MULTI_RESULT_OPS, type OperandGroups, resultType } from './multiResult.js';
import { arenaSlotBytes } from './memoryPlan.js';
import { groupOperands } from './multiResult.js';
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

/**
 * Core WebGPU's default limits (what every core adapter offers without asking): what the e-graph plans for when no
 * device is given, and the base of its default fusion width. Looser than wgsl-kernels' `COMPAT_CAPS` (compatibility
 * mode's 4 storage buffers), on purpose: planning for compatibility mode would split every fused kernel.
 */
export const DEFAULT_KERNEL_LIMITS: KernelLimits = {
  maxStorageBuffersPerShaderStage: 8,
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
};

/** What a cost rule of op `K` sees: the op's attributes, its distinct operand types and its output type. */
export interface KernelCtx<K extends OpKind = OpKind> {
  /** The op's attributes. */
  readonly attrs: OpAttrs[K];
  /** The distinct operand types, in first-use order. */
  readonly ins: readonly TensorType[];
  /** The output type. */
  readonly out: TensorType;
  /** Every operand's type in order, repeats included (where a rule needs the operands' roles: attention's q, k, v). */
  readonly operands?: readonly TensorType[];
}

/** The cost of a kernel of op `K` (whether the op runs a kernel at all is OP_FACTS' `needsKernel`). */
export interface KernelCost<K extends OpKind = OpKind> {
  /** Floating-point operations of one run of the kernel (a multiply-add counts 2). */
  readonly flops: (c: KernelCtx<K>) => number;
}

const n = (s: Shape) => numel(s);
const free: KernelCost = { flops: () => 0 };
const perOut = (k: number): KernelCost => ({ flops: (c) => k * n(c.out.shape) });
const perIn = (k: number): KernelCost => ({ flops: (c) => k * n(c.ins[0].shape) });
/** A quantized matmul's epilogue: its expression's work per output element, as `matmulEpilogue`'s. */
const quantEpilogueWork = (c: KernelCtx<'matmulQ8' | 'matmulQ4'>) => (c.attrs.expr ? pwExprWork(c.attrs.expr) * n(c.out.shape) : 0);

const matmulFlops = (c: KernelCtx<'matmul' | 'fusedMatmul' | 'matmulEpilogue' | 'matmulPartials'>) => {
  const a = c.ins[0].shape;
  const k = c.attrs.transA ? a[a.length - 2] : a[a.length - 1]; // flags: last two axes
  return 2 * n(c.out.shape) * k;
};
/** Two products (q·kᵀ, p·v) plus the softmax: 2·Tq·Tk·(D + Dv) + 5·Tq·Tk per head. */
const attentionFlops = (c: KernelCtx<'attention' | 'attentionLse' | 'attentionGrad' | 'attentionWithLse' | 'attentionGradKV' | 'attentionGradQKV'>) => {
  // without `operands`, operands read twice are bound (and listed) once: q = k = v leaves one; attentionLse has [q, k] only
  const s = (c.operands ?? c.ins).map((t) => t.shape);
  const given = s.length >= 3 ? [s[0], s[1], s[2]] : s.length === 2 ? [s[0], s[1], s[1]] : [s[0], s[0], s[0]];
  // head windows: each operand counts with the heads it reads (q = k = v is then one fused QKV tensor)
  const w = c.attrs.window;
  const seen = w ? given.map((x) => [...x.slice(0, -2), w.heads, x[x.length - 1]]) : given;
  // seq-major operands [..., T, H, D] count as heads-major [..., H, T, D]
  const [q, k, v] = c.attrs.seqMajor ? seen.map((x) => [...x.slice(0, -3), x[x.length - 2], x[x.length - 3], x[x.length - 1]]) : seen;
  const r = q.length;
  return n(q.slice(0, -2)) * q[r - 2] * k[r - 2] * (2 * (q[r - 1] + v[r - 1]) + 5);
};
/** One compare or add per window tap of each pooled output. */
const poolFlops = (pooledIsLastInput: boolean) => (c: KernelCtx<'maxPool2d' | 'maxPool2dGrad' | 'maxPool2dIndices' | 'avgPool2d' | 'avgPool2dGrad'>) => {
  const k = c.attrs.kernel;
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

/**
 * `pwExprSize` as work: the same count, but a rounding to f16 counts nothing. The kernel is bound by its loads and
 * stores, and at a flop an element a cast folded into its reader (an f16 bias read as f32 by a GELU over
 * [16384, 1536]) looked dearer than the cast's own kernel. fp32 expressions have no f16 casts: the same count.
 */
export function pwExprWork(e: PwExpr): number {
  switch (e.op) {
    case 'in':
    case 'const':
      return 1;
    case 'where':
      return 1 + pwExprWork(e.c) + pwExprWork(e.a) + pwExprWork(e.b);
    case 'cast':
      return (e.to === 'f16' ? 0 : 1) + pwExprWork(e.a);
    default:
      return 'b' in e ? 1 + pwExprWork(e.a) + pwExprWork(e.b) : 1 + pwExprWork(e.a);
  }
}

/** Operations of a pointwise expression (its nodes but the leaves `in` and `const`): what it adds per element. */
export function pwExprOps(e: PwExpr): number {
  switch (e.op) {
    case 'in':
    case 'const':
      return 0;
    case 'where':
      return 1 + pwExprOps(e.c) + pwExprOps(e.a) + pwExprOps(e.b);
    case 'cast':
      return (e.to === 'f16' ? 0 : 1) + pwExprOps(e.a); // a rounding to f16 is free (see pwExprWork)
    default:
      return 'b' in e ? 1 + pwExprOps(e.a) + pwExprOps(e.b) : 1 + pwExprOps(e.a);
  }
}

/** The kernel cost of every op, typed per op (free for ops that run no kernel: leaves, aliases, `pick`). */
export const KERNEL_COST: { readonly [K in OpKind]: KernelCost<K> } = {
  input: free,
  param: free,
  state: free,
  const: free,
  reshape: free,
  after: free,
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
  cumsum: perIn(1),
  transpose: perOut(0),
  expand: perOut(0),
  slice: perOut(0),
  pad: perOut(0),
  concat: perOut(0),
  gather: perOut(0),
  scatterAdd: perIn(1), // reads and writes the target, adds each update once
  oneHot: perOut(0),
  stopGradient: perOut(0), // a copy until a rule drops it after differentiation
  custom: { flops: ({ attrs: a, ins, out }) => customOpDef(a.name).flops?.(ins, out, a.params) ?? n(out.shape) },
  matmul: { flops: matmulFlops },
  logSoftmax: perIn(3 + SLOW),
  logSoftmaxGrad: perIn(3 + SLOW),
  nll: perIn(1),
  nllGrad: perOut(1),
  attention: { flops: attentionFlops },
  attentionLse: { flops: (c) => attentionFlops(c) / 2 }, // the scores and their softmax sums, no product with v
  attentionGrad: { flops: (c) => 1.5 * attentionFlops(c) }, // recomputes scores, then dP and one product
  attentionWithLse: { flops: attentionFlops }, // attention's, plus a log per query row
  attentionGradKV: { flops: (c) => 2 * attentionFlops(c) }, // dk's pass, plus P·dO for dv on the same scores
  attentionGradQKV: { flops: (c) => 3.5 * attentionFlops(c) }, // dq's pass, then attentionGradKV's
  rope: perOut(2 + SLOW),
  dropout: perOut(4),
  // 2 flops per multiply-add; each output of conv2d sums C/groups·KH·KW products (the backward ops the same total)
  conv2d: { flops: (c) => 2 * n(c.out.shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradInput: { flops: (c) => 2 * n(c.ins[0].shape) * n(c.ins[1]?.shape.slice(1) ?? []) },
  conv2dGradWeight: { flops: (c) => 2 * n(c.ins[1]?.shape ?? []) * n(c.out.shape.slice(1)) },
  maxPool2d: { flops: poolFlops(false) },
  maxPool2dGrad: { flops: poolFlops(true) },
  maxPool2dIndices: { flops: poolFlops(false) },
  avgPool2d: { flops: poolFlops(false) },
  avgPool2dGrad: { flops: poolFlops(true) },
  fusedMatmul: { flops: (c) => matmulFlops(c) + 2 * n(c.out.shape) },
  matmulEpilogue: { flops: (c) => matmulFlops(c) + pwExprWork(c.attrs.expr) * n(c.out.shape) },
  matmulPartials: { flops: (c) => matmulFlops(c) / c.attrs.splits }, // each partial sums K/S products
  // a product per multiply-add, plus each weight's dequantization (d·q) per row tile that loads it: counted once
  matmulQ4: { flops: (c) => 2 * n(c.out.shape) * (c.ins[0].shape.at(-1) ?? 0) + n(c.ins[1]?.shape ?? []) * 8 + quantEpilogueWork(c) },
  matmulQ8: { flops: (c) => 2 * n(c.out.shape) * (c.ins[0].shape.at(-1) ?? 0) + n(c.ins[1]?.shape ?? []) * 4 + quantEpilogueWork(c) },
  pointwise: { flops: (c) => pwExprWork(c.attrs.expr) * n(c.out.shape) },
  pointwiseMulti: { flops: (c) => c.attrs.exprs.reduce((s, e) => s + pwExprWork(e), 0) * n(c.out.shape) },
  pointwiseMultiTensor: { flops: (c) => c.attrs.exprs.reduce((s, e) => s + pwExprWork(e), 0) * c.attrs.shapes.reduce((s, sh) => s + n(sh), 0) },
  pick: free, // written by its multi-result node's kernel
  // the prologue per element of the reduced tensor, one combine per element, the epilogue per output
  // each stat's prologue and combine per element, the expression per element
  rowwise: { flops: (c) => (pwExprWork(c.attrs.expr) + c.attrs.stats.reduce((s, st) => s + pwExprWork(st.expr) + 1, 0)) * n(c.out.shape) },
  rowwiseMulti: { flops: (c) => (c.attrs.exprs.reduce((s, e) => s + pwExprWork(e), 0) + c.attrs.stats.reduce((s, st) => s + pwExprWork(st.expr) + 1, 0)) * n(c.out.shape) },
  // the prologue's operations and one combine per element, the epilogue's per output: an identity prologue costs
  // what the plain reduction does (else folding an epilogue into a sum looked dearer than a separate kernel)
  pointwiseReduce: { flops: (c) => (pwExprOps(c.attrs.expr) + 1) * n(c.attrs.shape) + pwExprOps(c.attrs.post) * n(c.out.shape) },
  pointwiseReduceMulti: { flops: (c) => c.attrs.results.reduce((s, r) => s + (pwExprOps(r.expr) + 1) * n(c.attrs.shape) + pwExprOps(r.post) * n(c.out.shape), 0) },
  softmaxCrossEntropy: perIn(4 + SLOW),
  softmaxCrossEntropyGrad: perIn(4 + SLOW),
};

/** The flops of a kernel of op `op` (0 for an op that runs no kernel). */
export function kernelFlops<K extends OpKind>(op: K, c: KernelCtx<K>): number {
  return KERNEL_COST[op].flops(c);
}

/** Whether nodes of this op run as a kernel (everything but leaves, aliases and `pick`; from OP_FACTS). */
export function isKernelOp(op: OpKind): boolean {
  return needsKernel(op);
}

/** Bytes of a tensor of this type. */
export function tensorTypeBytes(t: TensorType): number {
  return bufferBytes(t.dtype, n(t.shape)); // f16: 2 bytes an element, the buffer rounded up to 4
}

/**
 * Why a kernel of `op` over these distinct operand types and output is illegal under `limits`, or undefined
 * when it is legal. One binding per distinct operand plus one per result (`results`: see
 * `kernelOutputs`). Only fused ops are refused (see header): over a limit they are illegal, since their primitives remain.
 */
export function kernelIllegality(
  op: OpKind,
  ins: readonly TensorType[],
  out: TensorType,
  limits: KernelLimits,
  results = 1,
  multiTensor?: { readonly attrs: OpAttrs['pointwiseMultiTensor']; readonly inputs: number },
): string | undefined {
  if (!needsKernel(op) || !OP_FACTS[op].fused) return undefined;
  if (op === 'pointwiseMultiTensor' && multiTensor) return multiTensorIllegality(multiTensor.attrs, multiTensor.inputs, limits);
  const bindings = ins.length + results; // results written in place bind fewer
  if (bindings > limits.maxStorageBuffersPerShaderStage)
    return `${op} binds ${bindings} storage buffers, over maxStorageBuffersPerShaderStage = ${limits.maxStorageBuffersPerShaderStage}`;
  let big: TensorType | undefined; // the first operand, then the output, over the limit (a loop: no list per call)
  for (let i = 0; i <= ins.length && !big; i++) {
    const t = i < ins.length ? ins[i] : out;
    if (tensorTypeBytes(t) > limits.maxStorageBufferBindingSize) big = t;
  }
  if (big)
    return `${op} binds a tensor of ${tensorTypeBytes(big)} bytes, over maxStorageBufferBindingSize = ${limits.maxStorageBufferBindingSize}`;
  return undefined;
}

/**
 * Why a `pointwiseMultiTensor` kernel is illegal: one dispatch binds the shared operands, one buffer per role
 * (every group's operand of that role, laid out by the runtime, each start aligned to 256 bytes) and a table; its
 * results are written in place through the roles (the multi-tensor rule only groups such updates).
 */
export function multiTensorIllegality(a: OpAttrs['pointwiseMultiTensor'], inputs: number, limits: KernelLimits): string | undefined {
  const { shared, roles } = groupOperands({ inputs: { length: inputs } as unknown[], attrs: a });
  const bindings = shared + roles + 1;
  if (bindings > limits.maxStorageBuffersPerShaderStage)
    return `pointwiseMultiTensor binds ${bindings} storage buffers (${shared} shared, ${roles} roles, a table), over maxStorageBuffersPerShaderStage = ${limits.maxStorageBuffersPerShaderStage}`;
  // the role read as split-K partials holds S_g tensors of group g's shape
  const bytesOf = (role: number) => a.shapes.reduce((s, sh, g) => s + arenaSlotBytes((a.partials?.role === role ? a.partials.splits[g] : 1) * n(sh) * byteSize(a.dtype)), 0);
  const roleBytes = Math.max(...Array.from({ length: roles }, (_, k) => bytesOf(k)));
  if (roleBytes > limits.maxStorageBufferBindingSize)
    return `pointwiseMultiTensor binds ${roleBytes} bytes per role, over maxStorageBufferBindingSize = ${limits.maxStorageBufferBindingSize}`;
  return undefined;
}

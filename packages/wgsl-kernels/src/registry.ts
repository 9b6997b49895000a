// The kernel registry: an exhaustive table from every GPU op to its generator (a new op in ir fails to compile
// until it is covered here), user overrides on top, and `generateKernel`, which dispatches and then checks every
// plan — built-in or user-supplied — against the device's limits, so a misfit surfaces as a KernelError naming the
// op, its shapes, the limit and the device's value. Must stay pure: no GPU objects, no global state but overrides.
// The overrides are one table per process (on `globalThis` under a `Symbol.for` key), so a user who ends up with
// two copies of this package (two versions installed) registers into the table the runtime reads; a table of an
// incompatible layout makes the second copy throw at load rather than be silently ignored.

import type { ComputeOp, OpKind } from '@neura/ir';
import { groupOperands, isAliasOp, isElementwise, isLeafOp, perBinaryOp, perUnaryOp } from '@neura/ir';
import { binaryKernel, castKernel, pointwiseKernel, unaryKernel, whereKernel } from './elementwise.js';
import { type BindingSource, type DeviceCaps, isSpecOf, type KernelGenerator, type KernelPlan, type KernelSpec } from './kernel.js';
import { customKernel } from './customKernel.js';
import { literalTableBytes } from './literals.js';
import { withF16Storage } from './f16Storage.js';
import { expandKernel, transposeKernel } from './layout.js';
import { type KernelGroup, LAZY_GROUP, lazyKernel, loadKernelGroup } from './lazyKernels.js';
import { matmulPartialsKernel } from './matmulPartials.js';
import { matmulTunedKernel } from './matmulTuning.js';
import { nllGradKernel, nllKernel } from './nll.js';
import { pointwiseMultiKernel } from './pointwiseMulti.js';
import { pointwiseMultiTensorKernel } from './pointwiseMultiTensor.js';
import { pointwiseReduceKernel, pointwiseReduceMultiKernel } from './pointwiseReduce.js';
import { rowwiseKernel, rowwiseMultiKernel } from './rowwise.js';
import { reduceKernel } from './reduce.js';
import { logSoftmaxGradKernel, logSoftmaxKernel, softmaxCrossEntropyGradKernel, softmaxCrossEntropyKernel } from './softmax.js';
import { bytesOf, kernelError } from './wgsl.js';

/**
 * Ops that run as GPU kernels: everything but leaves (uploaded by the runtime), aliases and `pick` (a result its
 * pointwiseMulti's kernel writes; see ir's OP_FACTS).
 */
export type GpuOp = Exclude<ComputeOp, 'pick'>;

/**
 * The built-in generator of every GPU op, typed per op (a generator reads its op's attributes without casts).
 * Attention, conv/pool, indexing, sequence-op (rope, dropout, cumsum) and quantized-matmul rows load their code on demand (lazyKernels.ts): `loadKernels` first.
 */
export const KERNELS: { readonly [K in GpuOp]: KernelGenerator<K> } = {
  ...perUnaryOp(() => unaryKernel),
  ...perBinaryOp(() => binaryKernel),
  where: whereKernel,
  cast: castKernel,
  sum: reduceKernel,
  mean: reduceKernel,
  reduceMax: reduceKernel,
  reduceMin: reduceKernel,
  argmax: lazyKernel('indexing', (m) => m.argmaxKernel),
  cumsum: lazyKernel('sequence', (m) => m.cumsumKernel),
  transpose: transposeKernel,
  expand: expandKernel,
  slice: lazyKernel('indexing', (m) => m.sliceKernel),
  pad: lazyKernel('indexing', (m) => m.padKernel),
  concat: lazyKernel('indexing', (m) => m.concatKernel),
  gather: lazyKernel('indexing', (m) => m.gatherKernel),
  scatterAdd: lazyKernel('indexing', (m) => m.scatterAddKernel),
  oneHot: lazyKernel('indexing', (m) => m.oneHotKernel),
  stopGradient: lazyKernel('indexing', (m) => m.stopGradientKernel),
  custom: customKernel,
  matmul: matmulTunedKernel,
  logSoftmax: logSoftmaxKernel,
  logSoftmaxGrad: logSoftmaxGradKernel,
  nll: nllKernel,
  nllGrad: nllGradKernel,
  attention: lazyKernel('attention', (m) => m.attentionKernel),
  attentionLse: lazyKernel('attention', (m) => m.attentionLseKernel),
  attentionWithLse: lazyKernel('attention', (m) => m.attentionWithLseKernel),
  attentionGradKV: lazyKernel('attention', (m) => m.attentionGradKVKernel),
  attentionGradQKV: lazyKernel('attention', (m) => m.attentionGradQKVKernel),
  attentionGrad: lazyKernel('attention', (m) => m.attentionGradKernel),
  rope: lazyKernel('sequence', (m) => m.ropeKernel),
  dropout: lazyKernel('sequence', (m) => m.dropoutKernel),
  conv2d: lazyKernel('conv', (m) => m.conv2dKernel),
  conv2dGradInput: lazyKernel('conv', (m) => m.conv2dGradInputKernel),
  conv2dGradWeight: lazyKernel('conv', (m) => m.conv2dGradWeightKernel),
  maxPool2d: lazyKernel('conv', (m) => m.maxPool2dKernel),
  maxPool2dGrad: lazyKernel('conv', (m) => m.maxPool2dGradKernel),
  maxPool2dIndices: lazyKernel('conv', (m) => m.maxPool2dIndicesKernel),
  avgPool2d: lazyKernel('conv', (m) => m.avgPool2dKernel),
  avgPool2dGrad: lazyKernel('conv', (m) => m.avgPool2dGradKernel),
  fusedMatmul: matmulTunedKernel,
  matmulEpilogue: matmulTunedKernel,
  matmulPartials: matmulPartialsKernel,
  matmulQ8: lazyKernel('quantized', (m) => m.matmulQ8Kernel),
  matmulQ4: lazyKernel('quantized', (m) => m.matmulQ4Kernel),
  pointwise: pointwiseKernel,
  pointwiseMulti: pointwiseMultiKernel,
  pointwiseMultiTensor: pointwiseMultiTensorKernel,
  pointwiseReduceMulti: pointwiseReduceMultiKernel,
  pointwiseReduce: pointwiseReduceKernel,
  rowwise: rowwiseKernel,
  rowwiseMulti: rowwiseMultiKernel,
  softmaxCrossEntropy: softmaxCrossEntropyKernel,
  softmaxCrossEntropyGrad: softmaxCrossEntropyGradKernel,
};

/** Layout version of the per-process override table; bump when its shape changes. */
const REGISTRY_FORMAT = 1;
const REGISTRY_KEY = Symbol.for('@neura/wgsl-kernels/registry');

interface SharedRegistry {
  readonly format: number;
  // a generator registered for op K only ever receives specs of op K (kernelFor looks it up by the node's op)
  readonly overrides: Map<OpKind, KernelGenerator<never>>;
}

/** The process-wide override table, created by the first copy of this package that loads. */
function sharedRegistry(): SharedRegistry {
  const g = globalThis as { [REGISTRY_KEY]?: SharedRegistry };
  const found = g[REGISTRY_KEY];
  if (found === undefined) {
    const created: SharedRegistry = { format: REGISTRY_FORMAT, overrides: new Map() };
    Object.defineProperty(g, REGISTRY_KEY, { value: created, enumerable: false, configurable: true });
    return created;
  }
  if (found.format !== REGISTRY_FORMAT || !(found.overrides instanceof Map))
    throw new Error(
      `@neura/wgsl-kernels: another copy of this package with an incompatible kernel registry (format ${String(found.format)}, this copy ${REGISTRY_FORMAT}) ` +
        'is loaded in this process; install one version of @neura/wgsl-kernels (npm ls @neura/wgsl-kernels shows the copies)',
    );
  return found;
}

const overrides = sharedRegistry().overrides;

/**
 * Registers a generator for an op, replacing the built-in one (or adding one for an op that has none, such as
 * a materialising `reshape`). Plans it returns are checked against the device's limits like built-in ones, and
 * `compileTraining`/`compileInference` keep the op out of fusion so that the generator is really called.
 */
export function registerKernel<K extends OpKind>(op: K, generator: KernelGenerator<K>): void {
  overrides.set(op, generator as KernelGenerator<never>); // one map for all ops: kernelFor reads it back for op K only
}

/** The ops that have a registered generator now (the optimizer keeps them as fusion boundaries). */
export function registeredKernelOps(): ReadonlySet<OpKind> {
  return new Set(overrides.keys());
}

/** Removes a registered generator; the built-in one (if any) applies again. Returns whether one was registered. */
export function unregisterKernel(op: OpKind): boolean {
  return overrides.delete(op);
}

/** The generator that applies to an op now (a registered override, else the built-in), if any. */
export function kernelFor<K extends OpKind>(op: K): KernelGenerator<K> | undefined {
  // the one place a per-op table is read by a dynamic op: the row of op K takes specs of op K
  const builtIn = (KERNELS as { readonly [P in OpKind]?: KernelGenerator<never> })[op];
  return (overrides.get(op) ?? builtIn) as KernelGenerator<K> | undefined;
}

/**
 * Loads the code of the built-in generators these ops need (attention, conv/pool, indexing and rope/dropout/cumsum load on demand, see
 * lazyKernels.ts), and with `mixed` the mixed-precision code (f16 storage for kernels with f16 tensors, subgroup-matrix
 * matmuls under `caps.mixedMatmul`: mixedKernels.ts); `compile` awaits it for its graph. After it resolves, `generateKernel` runs synchronously.
 */
export async function loadKernels(ops: Iterable<OpKind>, options: { readonly mixed?: boolean } = {}): Promise<void> {
  const groups = new Set<KernelGroup>(options.mixed ? ['mixed'] : []);
  for (const op of ops) {
    const row = (KERNELS as { readonly [P in OpKind]?: { readonly [LAZY_GROUP]?: KernelGroup } })[op];
    if (row?.[LAZY_GROUP] !== undefined) groups.add(row[LAZY_GROUP]);
  }
  await Promise.all([...groups].map(loadKernelGroup));
}

/** Generates the plan for one node on a device; throws KernelError when it cannot, naming op, shapes and limit. */
export function generateKernel(spec: KernelSpec, caps: DeviceCaps): KernelPlan {
  const op = spec.node.op;
  const gen = kernelFor(op);
  if (!gen) kernelError(spec, `no kernel: ${op} is handled by the runtime (${isLeafOp(op) ? 'uploaded' : isAliasOp(op) ? 'aliased' : 'unknown op'})`);
  if (spec.inputs.length !== spec.node.inputs.length)
    kernelError(spec, `spec has ${spec.inputs.length} operand types for ${spec.node.inputs.length} node inputs`);
  if (spec.inPlace !== undefined && !isElementwise(op)) kernelError(spec, 'inPlace is only supported for elementwise ops');
  // f16 tensors: stored as f16, computed in f32 (f16Storage.ts); a user kernel is written for f32 and refuses them
  const plan = withF16Storage(spec, gen(spec, caps), caps, !overrides.has(op));
  checkPlan(spec, plan, caps);
  return plan;
}

/** Checks a plan against the device's limits (bindings, binding sizes, workgroup size, grid). */
export function checkPlan(spec: KernelSpec, plan: KernelPlan, caps: DeviceCaps): void {
  const outBytes = bytesOf(spec.node);
  for (const d of plan.dispatches) {
    const where = plan.dispatches.length > 1 ? ` in dispatch ${d.label}` : '';
    const storage = d.bindings.filter((b) => b.source.kind !== 'literals').length;
    if (storage > caps.maxStorageBuffersPerShaderStage)
      kernelError(spec, `needs ${storage} storage buffers${where}, more than maxStorageBuffersPerShaderStage (device value ${caps.maxStorageBuffersPerShaderStage})`);
    for (const b of d.bindings) {
      const s = b.source;
      const bytes = bindingBytes(spec, plan, s, outBytes);
      if (bytes === undefined) kernelError(spec, `binding refers to missing ${s.kind}${where}`);
      if (bytes > caps.maxStorageBufferBindingSize) {
        const what = s.kind === 'output' ? 'the output' : s.kind === 'arena' ? `arena of role ${s.role}` : s.kind === 'table' ? 'the table' : s.kind === 'literals' ? 'the literals' : `${s.kind} ${s.index}`;
        kernelError(spec, `binds ${what} of ${bytes} bytes${where}, more than maxStorageBufferBindingSize (device value ${caps.maxStorageBufferBindingSize})`);
      }
    }
    const [x, y, z] = d.workgroupSize;
    if (x * y * z > caps.maxComputeInvocationsPerWorkgroup)
      kernelError(spec, `workgroup of ${x * y * z} invocations${where}, more than maxComputeInvocationsPerWorkgroup (device value ${caps.maxComputeInvocationsPerWorkgroup})`);
    if (x > caps.maxComputeWorkgroupSizeX) kernelError(spec, `workgroup x size ${x}${where}, more than maxComputeWorkgroupSizeX (device value ${caps.maxComputeWorkgroupSizeX})`);
    if (y > caps.maxComputeWorkgroupSizeY) kernelError(spec, `workgroup y size ${y}${where}, more than maxComputeWorkgroupSizeY (device value ${caps.maxComputeWorkgroupSizeY})`);
    for (const g of d.grid)
      if (g > caps.maxComputeWorkgroupsPerDimension)
        kernelError(spec, `grid [${d.grid}]${where} exceeds maxComputeWorkgroupsPerDimension (device value ${caps.maxComputeWorkgroupsPerDimension})`);
  }
}

/** Bytes a binding covers (an arena: its role of every group, without the runtime's alignment padding). */
function bindingBytes(spec: KernelSpec, plan: KernelPlan, s: BindingSource, outBytes: number): number | undefined {
  switch (s.kind) {
    case 'input':
      return spec.inputs[s.index] && bytesOf(spec.inputs[s.index]);
    case 'output':
      return outBytes;
    case 'scratch':
      return plan.scratch[s.index];
    case 'arena': {
      if (!isSpecOf(spec, 'pointwiseMultiTensor')) return undefined;
      const { operand, groups, shared } = groupOperands(spec.node);
      let bytes = 0;
      for (let g = 0; g < groups; g++) bytes += bytesOf(spec.inputs[operand(g, shared + s.role)]);
      return bytes;
    }
    case 'table':
      return s.words * 4;
    case 'literals':
      return literalTableBytes(s.data.length); // a uniform buffer, bounded by literalTable
    default:
      return s satisfies never;
  }
}

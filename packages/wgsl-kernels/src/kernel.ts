// The contract between kernel generation and the runtime: a node of the optimized graph, with its operand
// types and the device's capabilities, becomes a plan of one or more WGSL compute dispatches. Pure data:
// no GPUDevice here (capabilities arrive as a plain object), so generation is testable without a GPU.

import type { DType, Node, OpKind, TensorType } from '@neura/ir';

/** What the adapter/device allows, as plain numbers (read from `GPUDevice.limits` and features). */
export interface DeviceCaps {
  /** Most threads in one workgroup. */
  readonly maxComputeInvocationsPerWorkgroup: number;
  /** Largest workgroup extent along x. */
  readonly maxComputeWorkgroupSizeX: number;
  /** Largest workgroup extent along y. */
  readonly maxComputeWorkgroupSizeY: number;
  /** Most workgroups along one grid dimension. */
  readonly maxComputeWorkgroupsPerDimension: number;
  /** Most storage buffers one shader may bind. */
  readonly maxStorageBuffersPerShaderStage: number;
  /** Largest storage buffer binding in bytes. */
  readonly maxStorageBufferBindingSize: number;
  /** Bytes of workgroup memory one shader may use. */
  readonly maxComputeWorkgroupStorageSize: number;
  /** `subgroups` feature enabled on the device. */
  readonly subgroups: boolean;
  /** `shader-f16` feature enabled on the device. */
  readonly shaderF16: boolean;
  /**
   * The mixed-precision policy (`precision: 'mixed'`), set by the runtime only on a device that can run it: matmuls
   * take f16 operands and accumulate in f32 on subgroup matrices of this shape (left m x k, right k x n). Absent:
   * fp32 everywhere (the default and the correctness reference).
   */
  readonly mixedMatmul?: { readonly m: number; readonly n: number; readonly k: number };
  /**
   * The portable mixed-precision policy (`precision: 'mixed'` on a device with `shader-f16` but no usable subgroup
   * matrices), set by the runtime: mixed precision is then f16 storage alone (nn's autocast policy), read by the fp32
   * kernels, which convert f16 loads to f32 and accumulate in f32 (f16Storage.ts). Never set with `mixedMatmul`.
   */
  readonly mixedF16Storage?: true;
  /**
   * Measured matmul choices (`tuneMatmul` in the runtime): shape key (`matmulShapeKey`) → tiled configuration name
   * (`matmulConfigName`) or `default` (the heuristic). A listed shape uses that configuration; every other shape the
   * shipped heuristic.
   */
  readonly matmulTuning?: MatmulTuning;
}

/** Shape key (`matmulShapeKey`) → tiled matmul configuration name (`matmulConfigName`) or `default` (the heuristic). */
export type MatmulTuning = Readonly<Record<string, string>>;

/** The numeric fields of `DeviceCaps` (device limits). */
export type NumericCaps = Exclude<keyof DeviceCaps, 'subgroups' | 'shaderF16' | 'mixedMatmul' | 'mixedF16Storage' | 'matmulTuning'>;

/**
 * WebGPU compatibility mode's default limits: the smallest device a kernel must run on (the CI software adapter is
 * a compatibility adapter), so generators are tested against it. Deliberately tighter than ir's
 * `DEFAULT_KERNEL_LIMITS` (core WebGPU's defaults, 8 storage buffers), which the e-graph plans for when no device is
 * given: a plan is made for a real device's limits (`capsOf`), never for these. `kernelLimits.test.ts` checks that
 * each limit here is at most the planning default.
 */
export const COMPAT_CAPS: DeviceCaps = {
  maxComputeInvocationsPerWorkgroup: 128,
  maxComputeWorkgroupSizeX: 128,
  maxComputeWorkgroupSizeY: 128,
  maxComputeWorkgroupsPerDimension: 65535,
  maxStorageBuffersPerShaderStage: 4,
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
  maxComputeWorkgroupStorageSize: 16384,
  subgroups: false,
  shaderF16: false,
};

/** @deprecated The old name of `COMPAT_CAPS` (compatibility mode's limits, not core WebGPU's defaults). */
export const DEFAULT_CAPS: DeviceCaps = COMPAT_CAPS;

/** The parts of a GPUDevice that caps are read from (structural, so no WebGPU types are needed here). */
export interface LimitsSource {
  /** The device's numeric limits, by WebGPU limit name. */
  readonly limits: { readonly [K in NumericCaps]: number };
  /** The device's enabled features. */
  readonly features: { has(name: string): boolean };
}

/** Reads the capabilities kernel generation needs from a device's limits and features. */
export function capsOf(device: LimitsSource): DeviceCaps {
  const l = device.limits;
  return {
    maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
    maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
    maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
    maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
    maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
    maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
    subgroups: device.features.has('subgroups'),
    shaderF16: device.features.has('shader-f16'),
  };
}

/**
 * What to generate: one node of a graph and the types of its operands (in `node.inputs` order). `K` narrows the
 * node to the ops a generator handles, so it reads their attributes without casts.
 */
export interface KernelSpec<K extends OpKind = OpKind> {
  /** The node to compute. */
  readonly node: Node<K>;
  /** Its operand types, in `node.inputs` order. */
  readonly inputs: readonly TensorType[];
  /**
   * In-place update: the output shares its buffer with input `inPlace` (same shape, not broadcast). Only
   * elementwise ops accept it; the plan then binds that buffer once, `read_write`, as both.
   */
  readonly inPlace?: number;
  /**
   * For `pointwiseMulti`, per result: written in place through operand `inPlace` (same shape, not broadcast),
   * into the runtime's buffer for it (`{ kind: 'output', index }`), or not at all (`unused`). Default: every
   * result into its own buffer.
   */
  readonly results?: readonly ResultTarget[];
  /**
   * For `pointwiseMultiTensor`: the runtime has placed each operand role of every group in one buffer (bound whole
   * as `{ kind: 'arena', role }`) and writes the element offsets into the table binding (`multiTensorTable`), so
   * one dispatch covers every group. Without it the plan has one dispatch per group.
   */
  readonly arenas?: boolean;
}

/** Whether a spec is of one of these ops (narrows `spec.node`, so a generator for them takes it without a cast). */
export function isSpecOf<K extends OpKind>(spec: KernelSpec, ...ops: readonly K[]): spec is KernelSpec & KernelSpec<K> {
  return (ops as readonly OpKind[]).includes(spec.node.op);
}

/** Where one result of a multi-result kernel goes. */
export type ResultTarget = { readonly inPlace: number } | 'buffer' | 'unused';

/** Where a binding's buffer comes from. */
export type BindingSource =
  | { readonly kind: 'input'; readonly index: number } // node.inputs[index]
  | { readonly kind: 'output'; readonly index?: number } // the node's result (`index`: of a multi-result node; 0 by default)
  | { readonly kind: 'scratch'; readonly index: number } // plan.scratch[index], private to this plan
  | { readonly kind: 'arena'; readonly role: number } // pointwiseMultiTensor: the buffer holding role `role` of every group
  | { readonly kind: 'table'; readonly words: number } // pointwiseMultiTensor: the runtime's table of `words` u32 (offsets per group)
  | { readonly kind: 'literals'; readonly data: Float32Array }; // a uniform buffer of these values, made once by the runtime (literals.ts)

/**
 * One binding of a dispatch; binding number = position in `Dispatch.bindings`. A storage buffer, except
 * `literals` (a uniform buffer: not counted against maxStorageBuffersPerShaderStage).
 */
export interface Binding {
  /** Where the buffer comes from (an operand, the output, scratch, …). */
  readonly source: BindingSource;
  /** Whether the shader only reads the buffer or also writes it. */
  readonly access: 'read' | 'read_write';
  /** Element type as the shader declares it. */
  readonly dtype: DType;
}

/** One compute dispatch: WGSL with a `main` entry point, all bindings in `@group(0)`. */
export interface Dispatch {
  /** For GPU object labels and error messages, e.g. `matmul[32x784x128]`. */
  readonly label: string;
  /** The WGSL source (entry point `main`). */
  readonly code: string;
  /** The buffers bound, in binding order. */
  readonly bindings: readonly Binding[];
  /** Threads per workgroup in x, y, z. */
  readonly workgroupSize: readonly [number, number, number];
  /** Number of workgroups in x, y, z. */
  readonly grid: readonly [number, number, number];
}

/** How a node executes: dispatches in order, with scratch buffers (sizes in bytes) they share. */
export interface KernelPlan {
  /** The dispatches, in the order they run. */
  readonly dispatches: readonly Dispatch[];
  /** Sizes in bytes of the scratch buffers (indexed by `scratch` bindings). */
  readonly scratch: readonly number[];
}

/** The plan of a node with no elements: no dispatch, no scratch (every generator returns this one). */
export const EMPTY_PLAN: KernelPlan = Object.freeze({ dispatches: Object.freeze([]), scratch: Object.freeze([]) });

/** A kernel generator for the ops `K`. Returns a plan, or throws a KernelError naming the op and the limit. */
export type KernelGenerator<K extends OpKind = OpKind> = (spec: KernelSpec<K>, caps: DeviceCaps) => KernelPlan;

/** Raised when no kernel can be generated: unsupported op/shape or a device limit exceeded. */
export class KernelError extends Error {
  /** Always `'KernelError'`. */
  override readonly name = 'KernelError';
}

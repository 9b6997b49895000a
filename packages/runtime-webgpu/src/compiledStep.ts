// The compiled form of a step: what `compile` makes once and a Session replays. Types only, so that compile
// and session share them without importing each other.

import type { Graph, MemoryReport, Node } from '@neura/ir';
import type { NeuraDevice } from './device.js';
import type { KernelInfo } from './stepProfile.js';

/** A host-side check of an i32 input read as labels or indices (from ir's op facts): values lie in [0, bound). */
export interface IndexCheck {
  readonly role: 'label' | 'index';
  readonly bound: number;
  /** What the bound is, e.g. `classes of nll` or `axis 0 of gather`. */
  readonly what: string;
}

/** A graph input as the session feeds it. */
export interface InputSlot {
  readonly name: string;
  readonly node: Node;
  readonly buffer: GPUBuffer;
  /** Byte offset in `buffer` (non-zero for a tensor in an arena). */
  readonly offset: number;
  /** Host-side checks: this input holds labels or indices that must lie in [0, bound). */
  readonly labelChecks: readonly IndexCheck[];
}

/** A tensor the session can read back or write by name. */
export interface NamedTensor {
  readonly name: string;
  readonly node: Node;
  readonly buffer: GPUBuffer;
  /** Byte offset in `buffer` (non-zero for a tensor in an arena). */
  readonly offset: number;
  readonly bytes: number;
}

/** One recorded dispatch of the step. */
export interface RecordedDispatch {
  readonly label: string;
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly grid: readonly [number, number, number];
  /** The kernel (graph node) it belongs to; shared by the dispatches of one node (for profiles). */
  readonly kernel?: KernelInfo;
}

/** One buffer copy of the step. */
export interface RecordedCopy {
  readonly src: GPUBuffer;
  readonly srcOffset: number;
  readonly dst: GPUBuffer;
  readonly dstOffset: number;
  readonly bytes: number;
}

/** Numbers of a compiled step. */
export interface SessionStats {
  readonly dispatchesPerStep: number;
  /** Nodes that run a kernel (non-leaf, non-reshape live nodes). */
  readonly kernels: number;
  /** Distinct pipelines (dispatches with identical WGSL share one). */
  readonly pipelines: number;
  readonly bytesAllocated: number;
  readonly bytesIfUnshared: number;
  /** `copyBufferToBuffer` per step for state updates that could not be written in place. */
  readonly copiesPerStep: number;
  /** State updates written in place by their value's kernel. */
  readonly inPlaceUpdates: number;
  /** Multi-tensor kernels run as one dispatch, each operand role of every group laid out in one buffer (the others run one dispatch per group). */
  readonly multiTensorArenas: number;
  readonly memory: MemoryReport;
}

/** Everything a Session replays: made once by `compile`. */
export interface CompiledStep {
  readonly device: NeuraDevice;
  readonly graph: Graph;
  readonly label: string;
  readonly inputs: readonly InputSlot[];
  /** Graph input names that are not live (accepted in feeds, ignored). */
  readonly deadInputs: ReadonlySet<string>;
  readonly outputs: ReadonlyMap<string, NamedTensor>;
  readonly state: ReadonlyMap<string, NamedTensor>;
  readonly dispatches: readonly RecordedDispatch[];
  readonly preCopies: readonly RecordedCopy[];
  readonly postCopies: readonly RecordedCopy[];
  readonly buffers: readonly GPUBuffer[];
  readonly stats: SessionStats;
  readonly readbackSlots: number;
}

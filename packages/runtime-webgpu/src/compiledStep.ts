// The compiled form of a step: what `compile` makes once and a Session replays. Types only, so that compile
// and session share them without importing each other.

import type { Graph, MemoryReport, Node } from '@neura/ir';
import type { NeuraDevice } from './device.js';
import type { KernelInfo } from './stepProfile.js';

/** A host-side check of an i32 input read as labels or indices (from ir's op facts): values lie in [0, bound). */
export interface IndexCheck {
  /** Whether the input holds class labels (a loss's targets) or gather/scatter indices. */
  readonly role: 'label' | 'index';
  /** Values must be below this (classes, or the indexed axis's length). */
  readonly bound: number;
  /** What the bound is, e.g. `classes of nll` or `axis 0 of gather`. */
  readonly what: string;
}

/** A graph input as the session feeds it. */
export interface InputSlot {
  /** The input's name (as in feeds). */
  readonly name: string;
  /** The graph's `input` node. */
  readonly node: Node;
  /** The GPU buffer the feed is written into. */
  readonly buffer: GPUBuffer;
  /** Byte offset in `buffer` (non-zero for a tensor in an arena). */
  readonly offset: number;
  /** Host-side checks: this input holds labels or indices that must lie in [0, bound). */
  readonly labelChecks: readonly IndexCheck[];
}

/** A tensor the session can read back or write by name. */
export interface NamedTensor {
  /** The output, param or state name. */
  readonly name: string;
  /** The graph node that holds the value. */
  readonly node: Node;
  /** The GPU buffer holding the value. */
  readonly buffer: GPUBuffer;
  /** Byte offset in `buffer` (non-zero for a tensor in an arena). */
  readonly offset: number;
  /** Size of the tensor in bytes. */
  readonly bytes: number;
}

/** One recorded dispatch of the step. */
export interface RecordedDispatch {
  /** Label of the dispatch (kernel and shape), as in profiles and errors. */
  readonly label: string;
  /** The compiled compute pipeline. */
  readonly pipeline: GPUComputePipeline;
  /** The bind group binding its buffers. */
  readonly bindGroup: GPUBindGroup;
  /** Workgroup counts [x, y, z]. */
  readonly grid: readonly [number, number, number];
  /** The kernel (graph node) it belongs to; shared by the dispatches of one node (for profiles). */
  readonly kernel?: KernelInfo;
}

/** One buffer copy of the step. */
export interface RecordedCopy {
  /** Buffer copied from. */
  readonly src: GPUBuffer;
  /** Byte offset in `src`. */
  readonly srcOffset: number;
  /** Buffer copied to. */
  readonly dst: GPUBuffer;
  /** Byte offset in `dst`. */
  readonly dstOffset: number;
  /** Bytes copied. */
  readonly bytes: number;
}

/** Numbers of a compiled step. */
export interface SessionStats {
  /** Compute dispatches in one step (the step is one submission). */
  readonly dispatchesPerStep: number;
  /** Nodes that run a kernel (non-leaf, non-reshape live nodes). */
  readonly kernels: number;
  /** Distinct pipelines (dispatches with identical WGSL share one). */
  readonly pipelines: number;
  /** Bytes of all GPU buffers the session created. */
  readonly bytesAllocated: number;
  /** What one buffer per tensor would allocate (for comparison with `bytesAllocated`). */
  readonly bytesIfUnshared: number;
  /** `copyBufferToBuffer` per step for state updates that could not be written in place. */
  readonly copiesPerStep: number;
  /** State updates written in place by their value's kernel. */
  readonly inPlaceUpdates: number;
  /** Multi-tensor kernels run as one dispatch, each operand role of every group laid out in one buffer (the others run one dispatch per group). */
  readonly multiTensorArenas: number;
  /** The memory plan's report (buffers, reuse, peak live bytes). */
  readonly memory: MemoryReport;
}

/** Everything a Session replays: made once by `compile`. */
export interface CompiledStep {
  /** The device it was compiled for. */
  readonly device: NeuraDevice;
  /** The graph it was compiled from. */
  readonly graph: Graph;
  /** Label used in errors and profiles. */
  readonly label: string;
  /** The inputs fed each step. */
  readonly inputs: readonly InputSlot[];
  /** Graph input names that are not live (accepted in feeds, ignored). */
  readonly deadInputs: ReadonlySet<string>;
  /** The graph's named outputs. */
  readonly outputs: ReadonlyMap<string, NamedTensor>;
  /** Params and state tensors by leaf name. */
  readonly state: ReadonlyMap<string, NamedTensor>;
  /** The step's dispatches, in order. */
  readonly dispatches: readonly RecordedDispatch[];
  /** Copies run before the compute pass (state values saved to temporaries). */
  readonly preCopies: readonly RecordedCopy[];
  /** Copies run after the compute pass (state updates that could not be written in place). */
  readonly postCopies: readonly RecordedCopy[];
  /** Every GPU buffer the session owns (destroyed by `dispose`). */
  readonly buffers: readonly GPUBuffer[];
  /** Numbers of the compiled step. */
  readonly stats: SessionStats;
  /** Staging buffers for reading back outputs (reads in flight at once). */
  readonly readbackSlots: number;
}

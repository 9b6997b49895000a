// @neura/runtime-webgpu: device acquisition, compile (kernels, memory plan, pipelines), and Session (one
// submission per step, deferred readback). Imports only @neura/ir and @neura/wgsl-kernels.
// Explicit export list: what is not named here is internal.

/**
 * The WebGPU runtime: `createDevice`, `compile` (kernels, memory plan, pipelines) and the `Session` that runs a
 * step as one GPU submission, plus the profiler and matmul autotuning.
 *
 * @module @neura/runtime-webgpu
 */

export { type CompileOptions, compile } from './compile.js';
export type { CompiledStep, IndexCheck, InputSlot, NamedTensor, RecordedCopy, RecordedDispatch, SessionStats } from './compiledStep.js';
export { type AdapterChoice, type AdapterInfo, type CreateDeviceOptions, createDevice, MIXED_PRECISION_TOGGLES, type NeuraDevice, type NumericCap, SUBGROUP_MATRIX_FEATURE, parseDawnOptions, type SubgroupMatrixConfig, withDawnToggles } from './device.js';
export { adapterKey, matmulShapesOf, tunedCaps } from './matmulTuning.js';
export { matmulTuningOf, SHIPPED_MATMUL_TUNINGS, type ShippedMatmulTuning, shippedMatmulTuning, shippedTuningFor } from './shippedMatmulTuning.js';
export { type CandidateTiming, type ShapeTuning, type TuneMatmulOptions, type TuneMatmulResult, tuneMatmul } from './tuneMatmul.js';
export { type GuardedIdbStore, type GuardedIdbStoreOptions, guardedIdbStore } from './guardedIdbStore.js';
export { DEFAULT_CHOICE, indexedDbTuningCache, memoryTuningCache, type TuningCache, type TuningEntries, type TuningRecord, validTuningEntries } from './tuningCache.js';
export { capsFor, type MixedPath, mixedPath, type Precision, PrecisionError, supportsPrecision, type TensorCoreShortfall, tensorCoreShortfall } from './precision.js';
export { DeviceLostError, GpuValidationError, InputError, KernelCompileError, WebGpuUnavailableError, type WebGpuUnavailableReason, type WgslDiagnostic } from './errors.js';
export { checkFeedsObject, checkLabels, type DeviceData, type FeedValue, fmtType, toDeviceData, toHostData } from './feeds.js'; // host-only: the CPU backend validates feeds with them
export {
  alignedBytes,
  type MemoryPlan,
  type MemoryReport,
  type PlannedBuffer,
  planMemory,
  type TensorLifetime,
} from '@neura/ir'; // the memory plan is pure and lives in ir (the e-graph's memory estimate runs it too)
export { type CachedPipeline, PipelineCache, type PipelineRequest } from './pipelineCache.js';
export { checkProfilable, DispatchTimer, ProfilerError, StepProfile } from './profiler.js';
export { Session, type StepOptions, type StepResult } from './session.js';
export {
  chromeTrace,
  type DispatchTiming,
  fusedOpsOf,
  type KernelInfo,
  kernelClassOf,
  kernelInfoOf,
  type KernelRow,
  profileTable,
  type RooflineCeilings,
  type StepProfileSummary,
  summarizeProfile,
} from './stepProfile.js';
export { planUpdates, type StateCopy, type StateWrite, type UpdatePlan } from './updatePlan.js';
export { seededUniform } from './seededUniform.js';

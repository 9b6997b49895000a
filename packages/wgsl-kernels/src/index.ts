// @neura/wgsl-kernels: pure WGSL generation (KernelSpec → KernelPlan) for every GPU op, and the registry through
// which a user adds or overrides a kernel. Imports only @neura/ir; no GPU objects anywhere in this package.

/**
 * WGSL generation for every op (a `KernelSpec` in, a `KernelPlan` of dispatches out) and the registry through
 * which a user adds or overrides a kernel. No GPU objects: pure code generation.
 *
 * @module @neura/wgsl-kernels
 */

export {
  type Binding,
  type BindingSource,
  capsOf,
  COMPAT_CAPS,
  DEFAULT_CAPS,
  type DeviceCaps,
  type MatmulTuning,
  type Dispatch,
  isSpecOf,
  type KernelGenerator,
  KernelError,
  type KernelPlan,
  type KernelSpec,
  type LimitsSource,
  type NumericCaps,
  type ResultTarget,
} from './kernel.js';
export { pointwiseMultiKernel } from './pointwiseMulti.js';
export { multiTensorTable, pointwiseMultiTensorKernel } from './pointwiseMultiTensor.js';
export { pointwiseReduceKernel, pointwiseReduceMultiKernel } from './pointwiseReduce.js';
export { COLUMN_STRIPS, type ColumnsForm, type ColumnStripsConfig, reduceKernel } from './reduce.js';
export { rowwiseKernel, rowwiseMultiKernel } from './rowwise.js';
export { attentionGradKVKernel, attentionGradQKVKernel, attentionWithLseKernel } from './attention.js';
export { withF16Storage } from './f16Storage.js';
export { matmulPartialsKernel } from './matmulPartials.js';
export { checkPlan, type GpuOp, generateKernel, KERNELS, kernelFor, loadKernels, registerKernel, registeredKernelOps, unregisterKernel } from './registry.js';
export { registerCustomKernel, unregisterCustomKernel } from './customKernel.js';
export { CONV_GEMM_OPS, type ConvPath, convKernelWith } from './convPath.js';
export type { ConvTile } from './convGemm.js';
export { type ElementwiseBody, elementwisePlan } from './elementwise.js';
export { emitPwExpr, type EmittedExpr } from './pointwise.js';
export { bindLiterals, literal, literalTableBytes } from './literals.js';
export { checkMatmulTuning, MATMUL_CONFIG_BY_NAME, MATMUL_HEURISTIC, matmulShapeKey, matmulTunedKernel, misfitOf, shapeOfProblem, tunedMatmulConfig } from './matmulTuning.js';
export { chooseSubgroupMatrixTiling, matmulMixedKernel, SUBGROUP_MATRIX_LANES, type SubgroupMatrixShape, type SubgroupMatrixTiling, subgroupMatrixPlan } from './matmulSubgroupMatrix.js';
export { chooseMatmulConfig, chooseSkinnyConfig, chooseSplitK, MATMUL_CANDIDATES, MATMUL_CONFIGS, MATMUL_LARGE, prefersLarge, type MatmulConfig, matmulConfigFits, matmulConfigName, type MatmulOp, type MatmulProblem, matmulKernel, matmulProblemOf, matmulPlanWith, type MatmulShape, matmulShapeOf, type SkinnyConfig } from './matmul.js';
export { type AttentionDims, attentionDims, DEFAULT_FLASH_GRAD, defaultFlashConfig, type FlashConfig, flashAttentionGradKVPlan, flashAttentionGradPlan, flashAttentionGradQKVPlan, flashAttentionLsePlan, flashAttentionPlan, flashAttentionWithLsePlan, flashEligible } from './flashAttention.js';
export { chooseGemmGrad, GEMM_GRAD_CONFIGS, type GemmGradConfig, gemmGradFits } from './flashAttentionGemmGrad.js';
export { chooseTiledGrad, DEFAULT_TILED_GRAD, TILED_GRAD_CONFIGS, type TiledGradConfig, tiledGradFits } from './flashAttentionTiledGrad.js';
export { binaryF32, castStorage, unaryF32 } from './scalarOps.js';
export {
  bindOperands,
  type BoundOperands,
  type BufferVar,
  computeMain,
  inputVar,
  outputVar,
  perElementDispatch,
  perElementMain,
  perWorkgroupMain,
  planOf,
  scratchVar,
  type ShaderParts,
  shaderCode,
  shaderDispatch,
  singleWorkgroupMain,
} from './shader.js';
export {
  collapseAxes,
  declareBindings,
  f32Lit,
  header,
  indexMath,
  kernelError,
  linearGrid,
  linearWorkgroupSize,
  u32Lit,
  workgroupReduceFns,
  wgslType,
} from './wgsl.js';

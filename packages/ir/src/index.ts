// @neura/ir: the op set, dtypes, shapes, the Graph builder and the reference interpreter. Imports nothing.

/**
 * The tensor graph IR: the closed op set, dtypes and shapes, the `Graph` builder with shape inference, and the
 * reference interpreter (the oracle every kernel is tested against).
 *
 * @module @neura/ir
 */

export { bufferBytes, byteSize, type DType, DTYPES, isFloat } from './dtype.js';
export { f16Bits, f16FromBits, f16round, fromF16Array, toF16Array } from './f16.js';
export { type CrossEntropyOptions, leafName, type MaxPool2dOptions, type Node, type NodeId, type NodeOf, type StateUpdate, type Tensor, type TensorLike, Graph, broadcastOf, hashName } from './graph.js';
export { type CustomOpDef, customOpDef, registerCustomOp, unregisterCustomOp } from './customOp.js';
export { GraphError, userCallSite } from './graphError.js';
export { INFER, inferType, type TensorType } from './infer.js';
export { convExtent, poolExtent } from './inferConv.js';
export {
  DEFAULT_KERNEL_LIMITS,
  isKernelOp,
  KERNEL_COST,
  kernelFlops,
  type KernelCost,
  type KernelCtx,
  kernelIllegality,
  groupOperands,
  type OperandGroups,
  multiTensorIllegality,
  isMultiResultOp,
  kernelOutputs,
  MULTI_RESULT_OPS,
  resultType,
  type KernelLimits,
  pwExprSize,
  tensorTypeBytes,
} from './kernelCost.js';
export { dequantizeQ4_0, GGUF_Q4_BLOCK_BYTES, type Q4Weight, q4FromGguf, q4ToGguf, q4Value, quantizeQ4_0 } from './quantQ4.js';
export { dequantizeQ8_0, GGUF_Q8_BLOCK_BYTES, Q8_BLOCK, q8FromGguf, q8ToGguf, type Q8Weight, q8Blocks, q8Scale, q8ScaleWords, q8Value, quantizeQ8_0 } from './quantQ8.js';
export { matmulSplitK, SPLIT_K_MIN_CHUNK, SPLIT_K_MIN_K, SPLIT_K_SLICE, SPLIT_K_TARGET_WORKGROUPS, type SplitK, splitKChunk, splitKFor } from './splitK.js';
export { COLUMN_CHUNK, COLUMN_STRIP, columnsPath, kernelDispatches, kernelScratchBytes, matmulSplitsK, mergeReduceAxes, reduceSplit, ROWS_PATH_MIN, SCATTER_LOOP_MAX_INDICES, SPLIT_MAX_COLUMNS, SPLIT_MAX_ROWS, SPLIT_MIN_ROW, STRIP_MIN_WORKGROUPS } from './kernelPasses.js';
export { dropoutKeeps, lowbias32 } from './interpretNn.js';
export { INTERPRET, type InterpretResult, interpret, type Precision } from './interpret.js';
export { BINARY_OPS, type BinaryOp, COMPARISON_OPS, perBinaryOp, perUnaryOp, UNARY_OPS, type UnaryOp } from './elementwise.js';
export {
  ALIAS_OPS,
  type AliasOpKind,
  type ComputeOp,
  FUSED_OPS,
  factsOf,
  type IndexOperand,
  indexOperandsOf,
  isAliasOp,
  isBinary,
  isElementwise,
  isLeafOp,
  isUnary,
  LEAF_OPS,
  type LeafOp,
  type NamedLeafOp,
  needsKernel,
  OP_FACTS,
  OP_KINDS,
  absorbedOpsOf,
  type KernelClass,
  type OpFacts,
  type OpFamily,
} from './opFacts.js';
export {
  type Activation,
  type AttentionAttrs,
  type AttentionWindow,
  type Conv2dAttrs,
  type CustomParams,
  type Init,
  type NoAttrs,
  type OpAttrs,
  type OpKind,
  type OpWithAttrs,
  type OtherOpAttrs,
  type MaxPoolAttrs,
  type PoolAttrs,
  REDUCE_OPS,
  type ReduceOp,
  type RowStat,
  type Reduction,
} from './ops.js';
export { estimateGraphMemory, estimateMemory, type ScheduledValue, type ScheduleEnds } from './memoryEstimate.js';
export { ARENA_ALIGN, type Arena, alignedBytes, arenaSlotBytes, BUFFER_ALIGN, type MemoryPlan, type MemoryReport, type PlannedBuffer, planMemory, type TensorLifetime } from './memoryPlan.js';
export { attrsOf, isOp, withAttrs } from './opWithAttrs.js';
export { BINARY_FN, castScalar, erf, evalPwExpr, fmtPwExpr, GELU_TANH_K, type PwExpr, pwArity, pwExprOps, type PwOp, UNARY_FN } from './pointwiseExpr.js';
export { fmtPointwiseReduce, fmtRowwise, type GraphJson, graphFromJson, graphToDot, graphToJson, printGraph } from './print.js';
export {
  broadcastAxes,
  broadcastShapes,
  broadcastStrides,
  broadcastsTo,
  fmtShape,
  normalizeAxes,
  numel,
  reducedShape,
  sameShape,
  type Shape,
  stridesOf,
} from './shape.js';
export { f32Data, initialValue, mulberry32, type TensorData, type TensorValue, tensor } from './tensorValue.js';

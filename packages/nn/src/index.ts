// @neura/nn: layers, losses, compileTraining / compileInference, the Trainer, datasets and metrics.
// Browser-safe: no `node:` import here or below (esbuild --platform=browser bundles it); Node-only helpers
// (file IO) live in `src/node/` behind the `@neura/nn/node` subpath (`src/node.ts`).

/**
 * PyTorch-like layers and models, `compileTraining` / `compileInference`, the `Trainer`, generation with a KV
 * cache, checkpoints, datasets and metrics. Node-only helpers (file IO, MNIST loading) are in `@neura/nn/node`.
 *
 * @module @neura/nn
 */

export { type AnyInferenceSession, compileInference, type InferenceOptions, type InferenceSession } from './compileInference.js';
export { type Q8Names, q8Names, type QuantFormat, type QuantizedWeight, type QuantNames, quantizableWeights, quantizeGraph, quantizeStateDict, quantNames, type WeightFormat } from './quantizeWeights.js';
export type { CpuInferenceSession, CpuInferenceStats } from './cpuInference.js'; // the backend itself loads on demand (compileInference's device: 'cpu')
export type { AutotuneOptions } from './matmulAutotune.js';
export { CANDIDATES, type Candidate, chooseStep, type DecisionCache, decisionKey, type Measurement, type MeasureOptions, memoryDecisionCache } from './chooseStep.js';
export { AnomalyError, type AnomalyKernel } from './anomaly.js';
export { type CachedPlan, memoryPlanCache, optimizeWithPlanCache, PLAN_FORMAT, type PlanCache, planKey, planMismatch, type PlanRecord, type PlanStats } from './planCache.js';
export { indexedDbPlanCache } from './indexedDbPlanCache.js';
export { BatchSizeError, DivergenceError, TrainingStepError } from './errors.js';
export { BATCH_ROWS_INPUT, type MaskedBatchGraph, maskedBatchGraph } from './batchMask.js';
export { type BatchInputOptions, type BatchInputs, BatchPadder } from './batchFeeds.js';
export { type DynamicLossScale, GRAD_SCALER_STATE, type LossScale, type LossScaleState } from './gradScaler.js';
export {
  ACCUMULATE_INPUT,
  buildTrainingStep,
  compileTraining,
  type ParamGroup,
  type StepOptions,
  type TrainingOptions,
  type TrainingSession,
  type TrainingStepOptions,
} from './compileTraining.js';
export { recognizedForward } from './recognizedForward.js';
export { AUTOCAST_POLICY, type Autocast, autocast, type CastPolicy } from './autocast.js';
export { type Batch, type BatchOptions, batches } from './data/batches.js';
export { type IdxData, IdxError, parseIdx } from './data/idx.js';
export { type Mnist, type MnistSplit, mnistFromIdx } from './data/mnist.js';
export { GELU, Identity, LeakyReLU, ReLU, Sigmoid, SiLU, Softmax, Tanh } from './layers/activation.js';
export { BatchNorm1d, BatchNorm2d, type BatchNormOptions } from './layers/batchNorm.js';
export { ModuleList, Sequential } from './layers/containers.js';
export { Conv2d, type Conv2dOptions, ConvTranspose2d, type ConvTranspose2dOptions, type Pair } from './layers/conv.js';
export { Flatten, Unflatten } from './layers/flatten.js';
export { GroupNorm } from './layers/groupNorm.js';
export { Linear, type LinearAdapter, type LinearOptions, mlp } from './layers/linear.js';
export { applyLora, loadLoraStateDict, LoraAdapter, LoraFactor, type LoraFormat, loraLayers, type LoraOptions, loraStateDict, mergeLora, PEFT_PREFIX, unmergeLora } from './layers/lora.js';
export { AdaptiveAvgPool2d, AvgPool2d, MaxPool2d, type MaxPool2dOptions, type PoolOptions } from './layers/pool.js';
export { accuracy, argmaxRow, countCorrect, crossEntropyMetric, inTopK, type Metric, meanOutput } from './metrics.js';
export { kaimingUniform, type LeafSpec, leafInit, Module, paramName } from './module.js';
export { type Progress, ProgressBar } from './progressBar.js';
export { checkStateDict, graphStateTypes, type LoadStateDictOptions, type StateEntryType, StateDictError } from './stateDict.js';
export { constantLr, cosineLr, type LrPolicy, oneCycleLr, ReduceLrOnPlateau, type Schedule, stepLr } from './schedule.js';
export { type Callback, type Dataset, type Feeds, type FitOptions, type FitResult, type StepInfo, Trainer, tensorDataset, type Validation } from './trainer.js';
export { LeNet5 } from './models/lenet.js';
export { BasicBlock, SmallResNet, type SmallResNetOptions } from './models/resnet.js';
export {
  type Checkpoint,
  CHECKPOINT_FORMAT,
  type CheckpointInfo,
  CheckpointMismatchError,
  type CheckpointTarget,
  encodeCheckpoint,
  readCheckpoint,
  restoreCheckpoint,
  saveCheckpoint,
} from './checkpoint/checkpoint.js';
export { decodeSafetensors, encodeSafetensors, MAX_HEADER_BYTES, SafetensorsError, type SafetensorsDType, type SafetensorsFile } from './checkpoint/safetensors.js';
export { type ExpectedTensor, exportTorchStateDict, importTorchStateDict, linearWeights, TorchImportError, type TorchImportOptions } from './checkpoint/torchImport.js';
export { exportPretrained, hfStateDict } from './pretrained/exportPretrained.js';
export { fromPretrained, HF_FILES, hfImportOptions, type Pretrained, PretrainedFileError, type PretrainedFiles, type PretrainedLoader } from './pretrained/fromPretrained.js';
export { type HfConfig, hfConfigOf, type HfModel, type HfModelType, modelFromHfConfig, PretrainedConfigError } from './pretrained/hfConfig.js';
export { Rng } from './rng.js';
export {
  buildDecodeGraph,
  compileGenerator,
  decodeFeeds,
  type GenerateBatchOptions,
  type GenerateOptions,
  Generator,
  type GeneratorOptions,
} from './generation/generator.js';
export { argmax, checkSampling, type SamplingOptions, sampleToken } from './generation/sampling.js';
export { type AttentionOptions, type DecodeContext, MultiheadAttention, type RopeLayout } from './layers/attention.js';
export { DROPOUT_OFFSET, Dropout, dropoutOffset } from './layers/dropout.js';
export { Embedding, type EmbeddingOptions } from './layers/embedding.js';
export { LayerNorm, type NormOptions, RMSNorm } from './layers/layerNorm.js';
export { llamaHidden, MLP, TransformerBlock, type TransformerBlockOptions } from './layers/transformerBlock.js';
export { CausalLM, causalMask, type LmGraph } from './models/causalLm.js';
export { buildGptStep, GPT, type GptConfig } from './models/gpt.js';
export { Llama, type LlamaConfig } from './models/llama.js';
export { CharTokenizer, type LmBatch, randomWindows } from './data/text.js';
export type { TextTokenizer } from './data/textTokenizer.js';
export { generateText } from './generation/generateText.js';
export { type CustomOpBuilder, type CustomOpOptions, customOp } from './customOp.js';

// @neura/nn: layers, losses, compileTraining / compileInference, the Trainer, datasets and metrics.

export { compileInference, type InferenceOptions, type InferenceSession } from './compileInference.js';
export { compileTraining, type TrainingOptions, type TrainingSession } from './compileTraining.js';
export { type Batch, type BatchOptions, batches } from './data/batches.js';
export { type IdxData, parseIdx } from './data/idx.js';
export { loadMnist, type Mnist, type MnistSplit, mnistFromIdx } from './data/mnist.js';
export { Linear, type LinearOptions, mlp } from './linear.js';
export { argmaxRow, countCorrect } from './metrics.js';
export { Flatten, type Module, paramName, ReLU, Sequential } from './module.js';
export { type Progress, ProgressBar } from './progressBar.js';
export { constantLr, cosineLr, type Schedule } from './schedule.js';
export { type FitOptions, type FitResult, Trainer } from './trainer.js';
export { buildGptStep, causalMask, type GptConfig, type GptForward, gptForward } from './models/gpt.js';
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
export { type ExpectedTensor, importTorchStateDict, TorchImportError, type TorchImportOptions } from './checkpoint/torchImport.js';
export { Rng } from './rng.js';

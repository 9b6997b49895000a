// Code of the opt-in features that a default compile never runs, loaded by dynamic import() only when an option
// asks for it: compileTraining's `measure` (chooseStep), `detectAnomaly` (anomaly.ts) and `batchInputs` (batchFeeds.ts,
// batchMask.ts), `autocast` (autocast.ts), `autotune`'s matmul tuner and the f64 interpreter (`measure`'s `checkInterpreter`). Kept apart from
// onDemand.ts (which every optimized compile fetches) so that a plain training page never downloads it. Re-exports
// only; nothing on the compile path may import it statically (tooling/size/size.mjs measures the split).

export { interpret } from '@neura/ir';
export { matmulShapesOf, tuneMatmul } from '@neura/runtime-webgpu';
export { anomalyStep } from './anomaly.js';
export { autocast } from './autocast.js';
export { BatchPadder } from './batchFeeds.js';
export { maskedBatchGraph } from './batchMask.js';
export { chooseStep } from './chooseStep.js';

// Code of the opt-in features that a default compile never runs, loaded by dynamic import() only when an option
// asks for it: compileTraining's `measure` (chooseStep), `detectAnomaly` (anomaly.ts), `batchInputs` (batchFeeds.ts,
// batchMask.ts) and `autocast` (autocast.ts); the interpreter and the matmul tuner are in lazyTools.ts. Kept apart
// from onDemand.ts (which every optimized compile fetches) so that a plain training page never downloads it. Re-exports only; nothing on the compile path may import it statically (size.mjs measures it).

export { anomalyStep } from './anomaly.js';
export { autocast, autocastModel } from './autocast.js';
export { BatchPadder } from './batchFeeds.js';
export { maskedBatchGraph } from './batchMask.js';
export { chooseStep } from './chooseStep.js';

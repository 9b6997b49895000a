// The e-graph side of compiling, loaded by dynamic import() where it is used so that a browser bundle fetches it
// only when a step is first planned: the optimizer (planCache.ts's `optimizeWithPlanCache`) and the recognition of
// hand-written layers that compileTraining / compileInference run on a forward graph first. A compile with
// `optimize: false` never fetches it. One module, one chunk: the opt-in features (measure, anomaly detection,
// batch padding, autocast) are in optIn.ts and the tuner and the interpreter in lazyTools.ts, which a plain compile
// never fetches.
// Re-exports only; nothing here may be imported statically by the compile path (tooling/size/size.mjs measures it).

export { OptimizeReport, optimize, optimizeRules } from '@neura/egraph';
export { recognizedForward, recognizedGraph } from './recognizedForward.js';

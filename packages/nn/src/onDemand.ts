// Code that only some paths run, loaded by dynamic import() where it is used so that a browser bundle fetches it
// only then: the f64 interpreter (chooseStep's `checkInterpreter`), the matmul tuner (`autotune`), the e-graph
// optimizer (planCache.ts's `optimizeWithPlanCache`: a compile with `optimize: false` never fetches it), and the
// passes compileTraining / compileInference run on a forward graph (recognition of hand-written layers, mixed
// precision's autocast). One module, one chunk: a lazy chunk of its own per pass would split the up-front code into more
// chunks (rolldown gives each set of importers its own), which costs more than it saves. Re-exports only; nothing
// here may be imported statically by the compile path (tooling/size/size.mjs measures the split).

export { OptimizeReport, optimize, optimizeRules } from '@neura/egraph';
export { interpret } from '@neura/ir';
export { matmulShapesOf, tuneMatmul } from '@neura/runtime-webgpu';
export { autocast } from './autocast.js';
export { recognizedForward, recognizedGraph } from './recognizedForward.js';

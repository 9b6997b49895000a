// Code that only opt-in paths run, loaded by dynamic import() where it is used so that a browser bundle fetches it
// only then: the f64 interpreter (chooseStep's `checkInterpreter`) and the matmul tuner (`autotune`). Re-exports
// only; nothing here may be imported statically by the compile path (tooling/size/size.mjs measures the split).

export { interpret } from '@neura/ir';
export { matmulShapesOf, tuneMatmul } from '@neura/runtime-webgpu';
export { autocast } from './autocast.js';
export { recognizedForward, recognizedGraph } from './recognizedForward.js';

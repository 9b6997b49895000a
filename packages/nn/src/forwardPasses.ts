// The passes compileTraining / compileInference run on a forward graph before planning it, loaded by dynamic
// import() as one module: recognition of hand-written layers (recognizedForward.ts) and mixed precision's casts
// (autocast.ts). One chunk, so that a browser bundle does not split its up-front code further for them.

export { autocast } from './autocast.js';
export { recognizedForward, recognizedGraph } from './recognizedForward.js';

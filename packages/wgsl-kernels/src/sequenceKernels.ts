// Generators of the sequence-model ops that an MLP or a CNN never has, loaded on demand as one module
// (lazyKernels.ts' `sequence` group; `loadKernels` fetches it for a graph with one of these ops): rotary position
// embedding, dropout and cumulative sums. Re-exports only.

export { cumsumKernel } from './cumsum.js';
export { dropoutKernel } from './dropout.js';
export { ropeKernel } from './rope.js';

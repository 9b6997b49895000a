// The quantized-weight matmul generators as one lazily loaded group (lazyKernels.ts' 'quantized'): Q8_0 and Q4_0,
// used only by inference with `weights: 'q8_0'` or `'q4_0'`. Re-exports only; no code of its own.

export { matmulQ4Kernel } from './matmulQ4.js';
export { matmulQ8Kernel } from './matmulQ8.js';

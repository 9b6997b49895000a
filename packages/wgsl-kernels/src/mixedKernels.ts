// The mixed-precision code of the kernels, loaded on demand as one module (lazyKernels.ts' `mixed` group:
// `loadKernels(ops, { mixed: true })`, which compile passes for a graph with f16 tensors or under
// `precision: 'mixed'`): the f16 storage conversion and the subgroup-matrix (tensor-core) matmuls. Re-exports only.

export { f16Plan } from './f16Access.js';
export { matmulMixedKernel, subgroupMatrixPartialsPlan } from './matmulSubgroupMatrix.js';

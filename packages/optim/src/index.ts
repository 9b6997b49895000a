// @neura/optim: optimizers as graph transforms (SGD, Adam, AdamW) and gradient clipping. Imports only
// @neura/ir; appends update nodes and declares in-place updates, never runs anything per step.

/**
 * Optimizers as graph transforms (`sgd`, `adam`, `adamW`) and gradient clipping: they append update nodes and
 * declare in-place updates of the parameters and their state.
 *
 * @module @neura/optim
 */

export { type AdamOptions, adam } from './adam.js';
export { adamW } from './adamW.js';
export { clipGradNorm, globalNorm } from './clipGradNorm.js';
export type { Optimizer, ScalarLike } from './optimizer.js';
export { type SgdOptions, sgd } from './sgd.js';

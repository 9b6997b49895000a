// @neura/autograd: reverse-mode differentiation over @neura/ir graphs (a VJP for every op) and a
// finite-difference gradient checker. Imports only @neura/ir; appends to graphs, never edits them.

/**
 * Reverse-mode differentiation of `@neura/ir` graphs (`grad`: a VJP for every op, custom ops included) and a
 * float64 finite-difference gradient checker.
 *
 * @module @neura/autograd
 */

export { grad, gradByName, type GradOptions } from './grad.js';
export { checkGradients, type GradCheckOptions, type GradCheckReport, type LeafGradCheck } from './gradcheck.js';
export { type CustomVjp, type CustomVjpContext, customVjp, registerCustomVjp, unregisterCustomVjp } from './customVjp.js';
export { sumToShape } from './sumToShape.js';
export { type Vjp, type VjpContext, type VjpFn, VJPS } from './vjp.js';

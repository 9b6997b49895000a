// Typed errors of the tensor optimizer, on top of the core's `EGraphError`. Must not be thrown for a user's
// bad graph (ir's `GraphError` names those); these name a rule or a language mapping that went wrong.

import { EGraphError } from '../core/index.js';

/** A rule claimed two values equal whose types (shape or dtype) differ: the merge is refused. */
export class TensorTypeError extends EGraphError {
  /** Always `'TensorTypeError'`. */
  override readonly name: string = 'TensorTypeError';
}

/** An e-node that is not a well-formed node of the tensor language (unknown op, missing attribute). */
export class TensorLanguageError extends EGraphError {
  /** Always `'TensorLanguageError'`. */
  override readonly name: string = 'TensorLanguageError';
}

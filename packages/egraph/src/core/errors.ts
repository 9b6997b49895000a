// Typed errors of the e-graph core: each names what is wrong (a malformed expression or pattern, a bad rule,
// an e-graph used out of order, an extraction that cannot succeed). Must not know any domain. Invariant: every
// error the core throws is an `EGraphError` (callers can tell the optimizer's failures from their own).

/** Base class of every error the e-graph throws. */
export class EGraphError extends Error {
  /** The error class name (set by each subclass). */
  override readonly name: string = 'EGraphError';
}

/** An s-expression, term or pattern that does not parse. */
export class ParseError extends EGraphError {
  /** Always `'ParseError'`. */
  override readonly name: string = 'ParseError';
}

/** A rule that is malformed (unnamed, unbound variable, duplicate name) or whose application failed. */
export class RuleError extends EGraphError {
  /** Always `'RuleError'`. */
  override readonly name: string = 'RuleError';
}

/** An e-graph used out of order (search or extract before `rebuild()`), or a broken internal invariant. */
export class EGraphStateError extends EGraphError {
  /** Always `'EGraphStateError'`. */
  override readonly name: string = 'EGraphStateError';
}

/** Extraction found no finite, acyclic choice for a root (or produced a cycle: a bug). */
export class ExtractionError extends EGraphError {
  /** Always `'ExtractionError'`. */
  override readonly name: string = 'ExtractionError';
}

// Names of the elementwise ops, kept apart from ops.ts so that the pointwise expression language can use
// them without a cycle. ops.ts builds the full op set from these lists.

/** Elementwise ops of one operand. */
export const UNARY_OPS = [
  'neg',
  'abs',
  'exp',
  'log',
  'sqrt',
  'rsqrt',
  'recip',
  'square',
  'relu',
  'sigmoid',
  'tanh',
  'sin',
  'cos',
  'erf',
  'gelu',
  'geluTanh',
  'silu',
  'softplus',
] as const;
/** An elementwise op of one operand. */
export type UnaryOp = (typeof UNARY_OPS)[number];

/** Elementwise ops of two operands with numpy broadcasting; comparisons produce `bool`. */
export const BINARY_OPS = ['add', 'sub', 'mul', 'div', 'max', 'min', 'pow', 'gt', 'ge', 'lt', 'le', 'eq'] as const;
/** An elementwise op of two broadcast operands. */
export type BinaryOp = (typeof BINARY_OPS)[number];

/** Binary ops whose result is a `bool` mask. */
export const COMPARISON_OPS: readonly BinaryOp[] = ['gt', 'ge', 'lt', 'le', 'eq'];


// Names of the elementwise ops, kept apart from ops.ts so that the pointwise expression language can use
// them without a cycle. ops.ts builds the full op set from these lists; perUnaryOp/perBinaryOp build the rows of
// per-op tables that are alike for every op of a kind, so adding an op to a list adds its rows there.

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
  'gelu', // exact: x·Φ(x) = x/2·(1 + erf(x/√2)) (PyTorch `approximate='none'`)
  'geluTanh', // x/2·(1 + tanh(√(2/π)(x + 0.044715x³))) (PyTorch `approximate='tanh'`)
  'silu', // x·sigmoid(x)
  'softplus', // log(1 + eˣ), computed stably
] as const;
/** An elementwise op of one operand. */
export type UnaryOp = (typeof UNARY_OPS)[number];

/** Elementwise ops of two operands with numpy broadcasting; comparisons produce `bool`. */
export const BINARY_OPS = ['add', 'sub', 'mul', 'div', 'max', 'min', 'pow', 'gt', 'ge', 'lt', 'le', 'eq'] as const;
/** An elementwise op of two broadcast operands. */
export type BinaryOp = (typeof BINARY_OPS)[number];

/** Binary ops whose result is a `bool` mask. */
export const COMPARISON_OPS: readonly BinaryOp[] = ['gt', 'ge', 'lt', 'le', 'eq'];

/** A table with one row per unary op, each built by `row` (for per-op tables whose unary rows are all alike). */
export function perUnaryOp<V>(row: (op: UnaryOp) => V): { readonly [K in UnaryOp]: V } {
  return Object.fromEntries(UNARY_OPS.map((op) => [op, row(op)])) as { [K in UnaryOp]: V };
}

/** A table with one row per binary op, each built by `row`. */
export function perBinaryOp<V>(row: (op: BinaryOp) => V): { readonly [K in BinaryOp]: V } {
  return Object.fromEntries(BINARY_OPS.map((op) => [op, row(op)])) as { [K in BinaryOp]: V };
}

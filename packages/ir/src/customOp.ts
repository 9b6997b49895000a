// Custom ops: an op defined by the user and registered once by name — its type inference, reference
// interpretation and flops here (ir owns those facts), its VJP in @neura/autograd (`registerCustomVjp`), its WGSL
// kernel in @neura/wgsl-kernels (`registerCustomKernel`); `customOp` in @neura/nn registers all three. In the closed op set it is the one op
// `custom` whose attributes name the definition (`{ name, params }`), so every per-op table has a row for it
// that delegates here. The registry is one table per process (on `globalThis` under a `Symbol.for` key), like
// the kernel registry, so two copies of the package see the same ops. Invariant: an unknown name is an error
// naming it and the registered ones; a definition's answers are checked (shape, data length) where used.

import type { DType } from './dtype.js';
import { GraphError } from './graphError.js';
import type { TensorType } from './inferCore.js';
import type { CustomParams } from './ops.js';
import type { TensorValue } from './tensorValue.js';

/** A custom op's definition (everything but its kernel). */
export interface CustomOpDef {
  /** Unique name (letters, digits, `_`, `.`, `-`). */
  readonly name: string;
  /** The output type from the operand types and params; throw (e.g. a GraphError) on operands it cannot take. */
  infer(inputs: readonly TensorType[], params: CustomParams): { shape: readonly number[]; dtype: DType };
  /** Reference semantics: the output's values, row-major (float64 in the interpreter's f64 mode). */
  interpret(inputs: readonly TensorValue[], params: CustomParams, output: TensorType): ArrayLike<number>;
  /** Flops of one call, for the cost model (default: one per output element). */
  flops?(inputs: readonly TensorType[], output: TensorType, params: CustomParams): number;
}

const KEY = Symbol.for('@neura/ir/customOps');
const table: Map<string, CustomOpDef> = ((globalThis as Record<symbol, unknown>)[KEY] as Map<string, CustomOpDef> | undefined) ?? new Map();
(globalThis as Record<symbol, unknown>)[KEY] = table;
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Registers (or replaces) a custom op's definition. */
export function registerCustomOp(def: CustomOpDef): void {
  if (!NAME.test(def.name)) throw new GraphError(`registerCustomOp: '${def.name}' is not a valid op name (letters, digits, _ . -)`, 'custom');
  if (typeof def.infer !== 'function' || typeof def.interpret !== 'function')
    throw new GraphError(`registerCustomOp '${def.name}': infer and interpret are required`, 'custom');
  table.set(def.name, def);
}

/** Removes a custom op's definition; returns whether there was one. */
export function unregisterCustomOp(name: string): boolean {
  return table.delete(name);
}

/** The definition of a registered custom op; throws naming the registered ones when there is none. */
export function customOpDef(name: string): CustomOpDef {
  const def = table.get(name);
  if (!def) throw new GraphError(`custom op '${name}' is not registered (registered: ${[...table.keys()].join(', ') || 'none'})`, 'custom');
  return def;
}

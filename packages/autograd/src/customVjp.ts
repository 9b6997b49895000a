// VJPs of custom ops (ir's `custom` op, defined by name with `registerCustomOp`): a per-process table from the
// op's name to a rule that builds the operands' gradients from graph ops, read by the `custom` row of VJPS. One
// table per process (on `globalThis` under a `Symbol.for` key), so two copies of the package agree.

import type { CustomParams, Graph, Node, Tensor } from '@neura/ir';

/** What a custom op's VJP sees. */
export interface CustomVjpContext {
  /** The graph the backward nodes are appended to. */
  readonly graph: Graph;
  /** The forward node (its value is available as a tensor: `node` itself). */
  readonly node: Node<'custom'>;
  /** The forward node's operands, in order. */
  readonly inputs: readonly Tensor[];
  /** The upstream gradient, shaped like the output. */
  readonly g: Tensor;
  /** The custom op's params (as given to `Graph.custom`). */
  readonly params: CustomParams;
  /** Whether operand i needs a gradient (others may be `undefined`). */
  readonly needs: readonly boolean[];
}

/** A custom op's VJP: one gradient per operand (`undefined` for none), each shaped like its operand. */
export type CustomVjp = (ctx: CustomVjpContext) => readonly (Tensor | undefined)[];

const KEY = Symbol.for('@neura/autograd/customVjps');
const table: Map<string, CustomVjp> = ((globalThis as Record<symbol, unknown>)[KEY] as Map<string, CustomVjp> | undefined) ?? new Map();
(globalThis as Record<symbol, unknown>)[KEY] = table;

/** Registers (or replaces) the VJP of the custom op `name`. */
export function registerCustomVjp(name: string, vjp: CustomVjp): void {
  table.set(name, vjp);
}

/** Removes the VJP of the custom op `name`; returns whether there was one. */
export function unregisterCustomVjp(name: string): boolean {
  return table.delete(name);
}

/** The registered VJP of a custom op, if any. */
export function customVjp(name: string): CustomVjp | undefined {
  return table.get(name);
}

// Kernels of custom ops (ir's `custom` op, defined by name with `registerCustomOp`): a per-process table from the
// op's name to its generator (on `globalThis` under a `Symbol.for` key, like the override table, so two copies of
// this package agree), and the generator of the `custom` row of KERNELS, which looks the name up. Pure: specs in,
// plans out; the plan is checked against the device's limits by `generateKernel` like any other.

import type { KernelGenerator } from './kernel.js';
import { kernelError } from './wgsl.js';

const KEY = Symbol.for('@neura/wgsl-kernels/customKernels');
const table: Map<string, KernelGenerator<'custom'>> = ((globalThis as Record<symbol, unknown>)[KEY] as Map<string, KernelGenerator<'custom'>> | undefined) ?? new Map();
(globalThis as Record<symbol, unknown>)[KEY] = table;

/** Registers (or replaces) the kernel of the custom op `name`. */
export function registerCustomKernel(name: string, generator: KernelGenerator<'custom'>): void {
  table.set(name, generator);
}

/** Removes the kernel of the custom op `name`; returns whether there was one. */
export function unregisterCustomKernel(name: string): boolean {
  return table.delete(name);
}

/** The `custom` row of the kernel table: the registered generator of the node's custom op. */
export const customKernel: KernelGenerator<'custom'> = (spec, caps) => {
  const name = spec.node.attrs.name;
  const gen = table.get(name);
  if (!gen) kernelError(spec, `custom op '${name}' has no kernel: register one with registerCustomKernel (or customOp in @neura/nn)`);
  return gen(spec, caps);
};

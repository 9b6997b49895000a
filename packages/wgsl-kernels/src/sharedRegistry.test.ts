// Two copies of @neura/wgsl-kernels in one process (a user upgrading it alone gets a second copy under the
// runtime's): both must see one override table, and an incompatible table must be an error, never silence.
// A second copy is a second evaluation of registry.ts (vi.resetModules + a fresh import).
import { Graph } from '@neura/ir';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMPAT_CAPS, type KernelGenerator } from './kernel.js';

type RegistryModule = typeof import('./registry.js');
const KEY = Symbol.for('@neura/wgsl-kernels/registry');
const freshCopy = async (): Promise<RegistryModule> => {
  vi.resetModules();
  return (await import('./registry.js')) as RegistryModule;
};
const mine: KernelGenerator = () => ({ dispatches: [], scratch: [7] });

describe('the kernel registry across two copies of the package', () => {
  afterEach(() => vi.resetModules());

  it('a kernel registered through one copy is the one the other copy generates', async () => {
    const runtimeCopy = await freshCopy();
    const userCopy = await freshCopy();
    expect(userCopy).not.toBe(runtimeCopy);
    const g = new Graph();
    const node = g.neg(g.input('x', [4]));
    const spec = { node, inputs: [{ shape: [4], dtype: 'f32' as const }] };
    userCopy.registerKernel('neg', mine);
    try {
      expect(runtimeCopy.kernelFor('neg')).toBe(mine);
      expect(runtimeCopy.generateKernel(spec, COMPAT_CAPS).scratch).toEqual([7]);
    } finally {
      expect(runtimeCopy.unregisterKernel('neg')).toBe(true);
    }
    expect(userCopy.kernelFor('neg')).toBe(userCopy.KERNELS.neg);
  });

  it('a registry of another layout makes the second copy throw, naming the package', async () => {
    const g = globalThis as unknown as Record<symbol, unknown>; // the registry lives on globalThis under a symbol key
    const saved = Object.getOwnPropertyDescriptor(g, KEY);
    delete g[KEY];
    Object.defineProperty(g, KEY, { value: { format: 99, overrides: new Map() }, configurable: true });
    try {
      await expect(freshCopy()).rejects.toThrow(/@neura\/wgsl-kernels: another copy .*incompatible kernel registry \(format 99, this copy 1\)/);
    } finally {
      delete g[KEY];
      if (saved) Object.defineProperty(g, KEY, saved);
    }
  });
});

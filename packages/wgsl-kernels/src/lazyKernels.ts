// Kernel generators that load on demand: attention (and its flash variants), conv/pool, indexing and the sequence
// ops (rope, dropout, cumsum) are most of this package's code and no MLP uses them, so their registry rows are stubs that call a module fetched by dynamic
// import(). `compile` awaits `loadKernels(ops)` for its graph first (registry.ts); a stub called before its module
// loaded throws a KernelError saying so. Same generators, same WGSL: only when the code arrives changes. The
// mixed-precision code (mixedKernels.ts: f16 storage, subgroup-matrix matmuls) is a group too, loaded by
// `loadKernels(ops, { mixed: true })`; so are the quantized-weight matmuls (quantizedKernels.ts), used only by
// inference with `weights: 'q8_0'` or `'q4_0'`.

import type { OpKind } from '@neura/ir';
import type { KernelGenerator } from './kernel.js';
import { kernelError } from './wgsl.js';

interface LazyModules {
  readonly attention: typeof import('./attention.js');
  readonly conv: typeof import('./conv.js');
  readonly indexing: typeof import('./indexing.js');
  readonly mixed: typeof import('./mixedKernels.js');
  readonly quantized: typeof import('./quantizedKernels.js');
  readonly sequence: typeof import('./sequenceKernels.js');
}

/** A group of generators that loads as one module. */
export type KernelGroup = keyof LazyModules;

const LOADERS: { readonly [G in KernelGroup]: () => Promise<LazyModules[G]> } = {
  attention: () => import('./attention.js'),
  conv: () => import('./conv.js'),
  indexing: () => import('./indexing.js'),
  mixed: () => import('./mixedKernels.js'),
  quantized: () => import('./quantizedKernels.js'),
  sequence: () => import('./sequenceKernels.js'),
};

const loaded: { -readonly [G in KernelGroup]?: LazyModules[G] } = {};
const loading: { [G in KernelGroup]?: Promise<void> } = {};

/** Where a lazy stub records its group (read by `loadKernels` to know what an op needs). */
export const LAZY_GROUP: unique symbol = Symbol('lazyKernelGroup');

/** A generator whose code is in `group`'s module: calls `pick(module)` once the module is loaded. */
export function lazyKernel<G extends KernelGroup, K extends OpKind>(
  group: G,
  pick: (m: LazyModules[G]) => KernelGenerator<K>,
): KernelGenerator<K> & { readonly [LAZY_GROUP]: KernelGroup } {
  const stub: KernelGenerator<K> = (spec, caps) => {
    const m = loaded[group] as LazyModules[G] | undefined;
    if (m === undefined) kernelError(spec, `the ${group} kernel generators are not loaded yet: await loadKernels([...ops]) first (compile does this for its graph)`);
    return pick(m)(spec, caps);
  };
  return Object.assign(stub, { [LAZY_GROUP]: group });
}

/** Loads a group's module once (concurrent callers share the import). */
export function loadKernelGroup(group: KernelGroup): Promise<void> {
  if (loaded[group] !== undefined) return Promise.resolve();
  loading[group] ??= LOADERS[group]().then((m) => {
    (loaded as Record<KernelGroup, unknown>)[group] = m;
  });
  return loading[group];
}

/** Whether a group's module is loaded (its stubs generate synchronously). */
export function kernelGroupLoaded(group: KernelGroup): boolean {
  return loaded[group] !== undefined;
}

/** A group's module, once loaded (undefined before). */
export function kernelGroup<G extends KernelGroup>(group: G): LazyModules[G] | undefined {
  return loaded[group] as LazyModules[G] | undefined;
}

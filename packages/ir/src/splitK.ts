// Split-K: how many partial products a long-K matmul over few output tiles is split into, and the chunk of K
// each sums. The one choice of S for the cost model (kernelPasses.ts), the `matmulPartials` nodes the optimizer
// makes, their interpreter and their kernels. Shapes only: must not know WGSL or devices beyond a binding limit.

/**
 * Split-K needs at least this K, K ≥ 4·max(M, N) (the reduction dominates: weight gradients, not a forward
 * layer with few tiles), and each split at least SPLIT_K_MIN_CHUNK of K. H200: the 2x128 GPT's [1024,128]ᵀ·
 * [1024,128] ran 59 µs on two 128x64 tiles.
 */
export const SPLIT_K_MIN_K = 512;
/** See SPLIT_K_MIN_K. */
export const SPLIT_K_MIN_CHUNK = 128;
/** Split-K aims for this many workgroups (a few per multiprocessor on large GPUs) and is skipped when the output tiles alone give a quarter of them. */
export const SPLIT_K_TARGET_WORKGROUPS = 512;
/** The largest output tile (rows x columns) of the runtime's matmul configurations. */
const SPLIT_K_TILE = [128, 64] as const;
/** The k slice of every runtime matmul configuration: a split's chunk of K is a multiple of it. */
export const SPLIT_K_SLICE = 16;

/** The chunk of K each of `splits` partial products sums (a multiple of SPLIT_K_SLICE; the last may be shorter). */
export function splitKChunk(k: number, splits: number): number {
  return Math.ceil(k / splits / SPLIT_K_SLICE) * SPLIT_K_SLICE;
}

/** A matmul's K split: `splits` partial products, each summing `chunk` of K (the last may be shorter). */
export interface SplitK {
  /** Number of partial products (1: no split). */
  readonly splits: number;
  /** Elements of K summed by each partial (a multiple of the split slice). */
  readonly chunk: number;
}

/**
 * The split-K rule for output tiles of `tile` (rows, columns, k slice): one unbatched product whose K is long against
 * its output and whose output tiles are too few to fill the device is split so that tiles·splits ≈
 * SPLIT_K_TARGET_WORKGROUPS, its partials within `maxBindingBytes` and at most `maxSplits` of them; undefined when
 * it is not split. wgsl-kernels' chooseSplitK calls it with its configuration's tile.
 */
export function splitKFor(
  m: number,
  n: number,
  k: number,
  batches: number,
  tile: { readonly rows: number; readonly cols: number; readonly slice: number },
  maxBindingBytes = Number.POSITIVE_INFINITY,
  maxSplits = Number.POSITIVE_INFINITY,
): SplitK | undefined {
  if (batches !== 1 || k < SPLIT_K_MIN_K || k < 4 * Math.max(m, n)) return undefined;
  const tiles = Math.ceil(m / tile.rows) * Math.ceil(n / tile.cols);
  if (tiles >= SPLIT_K_TARGET_WORKGROUPS / 4) return undefined;
  // partial sums are one tensor: keep them within one storage binding
  const splits = Math.min(Math.ceil(SPLIT_K_TARGET_WORKGROUPS / tiles), Math.floor(k / SPLIT_K_MIN_CHUNK), Math.floor(maxBindingBytes / (m * n * 4)), maxSplits);
  if (splits < 2) return undefined;
  const chunk = Math.ceil(k / splits / tile.slice) * tile.slice;
  return { splits: Math.ceil(k / chunk), chunk };
}

/**
 * How many partial products the runtime splits this matmul's K into (1: not split): `splitKFor` with the runtime's
 * first configuration (a test in wgsl-kernels checks chooseSplitK agrees on the GPT step's shapes). The one choice
 * of S for the cost model, the `matmulPartials` nodes the optimizer makes and their kernels.
 */
export function matmulSplitK(m: number, n: number, k: number, batches: number, maxBindingBytes = Number.POSITIVE_INFINITY): number {
  return splitKFor(m, n, k, batches, { rows: SPLIT_K_TILE[0], cols: SPLIT_K_TILE[1], slice: SPLIT_K_SLICE }, maxBindingBytes)?.splits ?? 1;
}

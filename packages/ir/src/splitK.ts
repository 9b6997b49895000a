// Split-K: how many partial products a long-K matmul over few output tiles is split into, and the chunk of K
// each sums. The one choice of S for the cost model (kernelPasses.ts), the `matmulPartials` nodes the optimizer
// makes, their interpreter and their kernels. Shapes only: must not know WGSL or devices beyond a binding limit.

/** Below this K a matmul is never split (wgsl-kernels matmul.ts SPLIT_K_MIN_K). */
const SPLIT_K_MIN_K = 512;
/** Each split covers at least this much of K (wgsl-kernels matmul.ts SPLIT_K_MIN_CHUNK). */
const SPLIT_K_MIN_CHUNK = 128;
/** Split-K aims for this many workgroups and is skipped when the output tiles alone give a quarter of them. */
const SPLIT_K_TARGET_WORKGROUPS = 512;
/** The largest output tile (rows x columns) of the runtime's matmul configurations. */
const SPLIT_K_TILE = [128, 64] as const;
/** The k slice of every runtime matmul configuration: a split's chunk of K is a multiple of it. */
export const SPLIT_K_SLICE = 16;

/** The chunk of K each of `splits` partial products sums (a multiple of SPLIT_K_SLICE; the last may be shorter). */
export function splitKChunk(k: number, splits: number): number {
  return Math.ceil(k / splits / SPLIT_K_SLICE) * SPLIT_K_SLICE;
}

/**
 * How many partial products the runtime splits this matmul's K into (1: not split): one unbatched product whose
 * K is long against its output and whose output tiles are too few to fill the device, so that tiles·splits ≈
 * SPLIT_K_TARGET_WORKGROUPS, the partials within `maxBindingBytes` (wgsl-kernels' chooseSplitK with its first
 * configuration; a test there checks the two agree on the GPT step's shapes). The one choice of S for the cost
 * model, the `matmulPartials` nodes the optimizer makes and their kernels.
 */
export function matmulSplitK(m: number, n: number, k: number, batches: number, maxBindingBytes = Number.POSITIVE_INFINITY): number {
  if (batches !== 1 || k < SPLIT_K_MIN_K || k < 4 * Math.max(m, n)) return 1;
  const tiles = Math.ceil(m / SPLIT_K_TILE[0]) * Math.ceil(n / SPLIT_K_TILE[1]);
  if (tiles >= SPLIT_K_TARGET_WORKGROUPS / 4) return 1;
  const splits = Math.min(Math.ceil(SPLIT_K_TARGET_WORKGROUPS / tiles), Math.floor(k / SPLIT_K_MIN_CHUNK), Math.floor(maxBindingBytes / (m * n * 4)));
  return splits < 2 ? 1 : Math.ceil(k / splitKChunk(k, splits));
}

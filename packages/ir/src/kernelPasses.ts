// How many dispatches a kernel runs: one, except reductions that split into partials and a combine pass (columns
// reductions only where too few columns would starve a one-pass strips kernel: columnsPath),
// split-K matmuls (partial products, then a reduce pass), the cross-entropy loss (row losses, then their sum) and a
// scatterAdd of many indices. The e-graph's cost model counts these (a dispatch costs
// the same whether it is a kernel's first or second), and the runtime's reduction generator takes its path from
// `reduceSplit`, so both count the same passes. Must not know WGSL (shapes and attributes only).

import type { OpKind } from './ops.js';
import type { KernelCtx } from './kernelCost.js';
import { numel, type Shape } from './shape.js';
import { matmulSplitK } from './splitK.js';

/** Reduced extents at least this long use a workgroup per output (rows path); shorter ones a thread per output. */
export const ROWS_PATH_MIN = 64;
/** Rows path: with fewer outputs than this, a row of at least SPLIT_MIN_ROW elements is split in chunks. */
export const SPLIT_MAX_ROWS = 128;
/** Shortest row the rows path splits. */
export const SPLIT_MIN_ROW = 8192;
/**
 * Rows one pass-1 thread reduces when a columns reduction is split. H200, the bias gradients of the GPT step
 * ([16384,384] → [384]): 256-row chunks walked one load at a time ran 127 µs (200 GB/s, latency-bound); 32-row
 * chunks of vec4 columns with four loads in flight give ~50K threads and the bandwidth to stream it.
 */
export const COLUMN_CHUNK = 32;
/** Columns path: with fewer outputs than this, a reduction over at least 2·COLUMN_CHUNK rows is split. */
export const SPLIT_MAX_COLUMNS = 16384;
/**
 * Columns a workgroup of the one-pass columns path (column strips) owns: 32 bytes of every row, a full DRAM
 * sector, so a warp's loads of a strip coalesce; the workgroup walks all rows and sums its lanes by a fixed tree.
 */
export const COLUMN_STRIP = 8;
/**
 * The fewest strips (workgroups) the one-pass columns path runs: with fewer the device starves, and two passes
 * (partials over chunks of rows, then a combine) are faster.
 */
export const STRIP_MIN_WORKGROUPS = 32;

/** Merged axes of a reduction: extents and whether each is reduced, outermost first (extent-1 axes dropped). */
export function mergeReduceAxes(shape: readonly number[], axes: readonly number[]): { extent: number; reduced: boolean }[] {
  const out: { extent: number; reduced: boolean }[] = [];
  shape.forEach((d, i) => {
    if (d === 1) return;
    const reduced = axes.includes(i);
    const last = out[out.length - 1];
    if (last && last.reduced === reduced) last.extent *= d;
    else out.push({ extent: d, reduced });
  });
  return out;
}

/**
 * The path of a columns reduction (a leading block of rows reduced, [R, C] → [C]) long enough to want more than a
 * thread per output: `strips` (one pass, a workgroup per COLUMN_STRIP columns walking every row) where the
 * columns give at least STRIP_MIN_WORKGROUPS strips, else `split` (two passes). Undefined: not such a reduction.
 * The one rule for the runtime's plan (wgsl-kernels reduce.ts), the cost model's dispatch count and the e-graph's
 * grouping of sibling column reductions.
 */
export function columnsPath(shape: readonly number[], axes: readonly number[]): 'strips' | 'split' | undefined {
  const merged = mergeReduceAxes(shape, axes);
  if (merged.length !== 2 || !merged[0].reduced || merged[1].reduced) return undefined;
  const [rows, cols] = [merged[0].extent, merged[1].extent];
  if (cols >= SPLIT_MAX_COLUMNS || rows < 2 * COLUMN_CHUNK) return undefined;
  return Math.ceil(cols / COLUMN_STRIP) >= STRIP_MIN_WORKGROUPS ? 'strips' : 'split';
}

/**
 * The two-pass path a reduction of `shape` over `axes` takes, or undefined when it runs as one dispatch:
 * `rows` (few long contiguous rows, split in chunks), `columns` (a leading block reduced by chunks of rows, then
 * the partials), `outerKeptInner` ([A, K, B] → [K]: rows over B, then each output over A).
 */
export function reduceSplit(shape: readonly number[], axes: readonly number[]): 'rows' | 'columns' | 'outerKeptInner' | undefined {
  const kept = numel(shape.filter((_, i) => !axes.includes(i)));
  const reduced = numel(axes.map((a) => shape[a]));
  if (kept === 0 || reduced === 0) return undefined;
  const pattern = mergeReduceAxes(shape, axes)
    .map((a) => (a.reduced ? 'r' : 'k'))
    .join('');
  if ((pattern === 'kr' || pattern === 'r') && reduced >= ROWS_PATH_MIN) return kept < SPLIT_MAX_ROWS && reduced >= SPLIT_MIN_ROW ? 'rows' : undefined;
  if (pattern === 'rk' && columnsPath(shape, axes) === 'split') return 'columns';
  if (pattern === 'rkr' && reduced >= ROWS_PATH_MIN) return 'outerKeptInner';
  return undefined;
}

/** Index counts up to this scatterAdd runs gather-style in one pass; more take two (wgsl-kernels indexing.ts). */
export const SCATTER_LOOP_MAX_INDICES = 256;

/** Whether the runtime runs this matmul as split-K (partials, then a reduce pass): `matmulSplitK` > 1. */
export function matmulSplitsK(m: number, n: number, k: number, batches: number): boolean {
  return matmulSplitK(m, n, k, batches) > 1;
}

type MatmulCtx = KernelCtx<'matmul' | 'fusedMatmul' | 'matmulEpilogue'>;

/** M, N, K and the batch count of a matmul kernel from its operand types (flags act on the last two axes). */
function matmulDims(c: MatmulCtx): { m: number; n: number; k: number; batches: number } {
  const a = c.ins[0].shape;
  const out = c.out.shape;
  const r = out.length;
  const m = out[r - 2] ?? 1;
  const n = out[r - 1] ?? 1;
  const k = c.attrs.transA ? a[a.length - 2] : a[a.length - 1];
  return { m, n, k, batches: numel(out.slice(0, -2)) };
}

const reduceDispatches = (shape: Shape, axes: readonly number[]) => (reduceSplit(shape, axes) ? 2 : 1);

/**
 * Bytes a kernel moves through its own scratch between its passes: a split-K matmul writes its S partial
 * products and its reduce pass reads them back (what `matmulPartials` and a consumer summing them move instead).
 */
export function kernelScratchBytes<K extends OpKind>(op: K, c: KernelCtx<K>): number {
  if (op !== 'matmul' && op !== 'fusedMatmul' && op !== 'matmulEpilogue') return 0;
  const d = matmulDims(c as unknown as MatmulCtx);
  const S = matmulSplitK(d.m, d.n, d.k, d.batches);
  return S > 1 ? 2 * S * d.m * d.n * 4 : 0;
}

/** Dispatches a kernel of `op` runs (1 unless it splits into passes; 0 for ops that run no kernel is not decided here). */
export function kernelDispatches<K extends OpKind>(op: K, c: KernelCtx<K>): number {
  switch (op) {
    case 'sum':
    case 'mean':
    case 'reduceMax':
    case 'reduceMin': {
      const a = c.attrs as KernelCtx<'sum'>['attrs'];
      return reduceDispatches(c.ins[0].shape, a.axes);
    }
    case 'pointwiseReduce': {
      const a = c.attrs as KernelCtx<'pointwiseReduce'>['attrs'];
      return reduceDispatches(a.shape, a.axes);
    }
    case 'pointwiseReduceMulti': {
      // columns: every result in one strips pass, or one partials pass and one combine pass for all; other paths
      // run each result's reduction after the other
      const a = c.attrs as KernelCtx<'pointwiseReduceMulti'>['attrs'];
      const columns = columnsPath(a.shape, a.axes);
      return columns === 'strips' ? 1 : columns === 'split' ? 2 : a.results.length * reduceDispatches(a.shape, a.axes);
    }
    case 'matmul':
    case 'fusedMatmul':
    case 'matmulEpilogue': {
      const d = matmulDims(c as unknown as MatmulCtx);
      return matmulSplitsK(d.m, d.n, d.k, d.batches) ? 2 : 1;
    }
    case 'softmaxCrossEntropy':
      return 2; // per-row losses, then their sum
    case 'attentionGradQKV':
      return 2; // dq, then dk and dv (FlashAttention-2's two backward passes) into one result
    case 'scatterAdd':
      return numel(c.ins[1]?.shape ?? []) > SCATTER_LOOP_MAX_INDICES ? 2 : 1; // segmented or atomic: two passes
    default:
      return 1;
  }
}

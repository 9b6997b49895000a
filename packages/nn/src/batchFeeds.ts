// BatchPadder: the host side of a step compiled with `batchInputs`. A step fed b ≤ B rows (and, on a sequence
// input, t ≤ T positions) gets its feeds padded to the compiled shapes in buffers allocated once, and the hidden
// row mask (`BATCH_ROWS_INPUT`) that batchMask.ts's loss reads. Must not touch the GPU; a full batch passes the
// caller's arrays through untouched. Invariant: every feed is checked before anything is padded.

import type { Graph, Node, TensorValue } from '@neura/ir';
import { numel } from '@neura/ir';
import type { FeedValue } from '@neura/runtime-webgpu';
import { BATCH_ROWS_INPUT } from './batchMask.js';
import { BatchSizeError } from './errors.js';

/** How one batch-major input is padded. */
export interface BatchInputOptions {
  /** The value of padded entries (default 0). A padded row is masked out of the loss whatever it holds. */
  readonly pad?: number;
  /**
   * Axis 1 is a sequence: a TensorValue feed [b, t, ...] with t ≤ T is padded along it with `pad`. Exact only for a
   * causal model whose loss ignores the padded targets (crossEntropy's `ignoreIndex` equal to the targets' `pad`).
   */
  readonly sequence?: boolean;
}

/** The inputs whose axis 0 is the batch: names, or names with padding options. */
export type BatchInputs = readonly string[] | Readonly<Record<string, BatchInputOptions>>;

interface Slot {
  readonly name: string;
  readonly node: Node;
  readonly pad: number;
  readonly sequence: boolean;
  /** Values per row (∏ shape[1:]) and per sequence position (∏ shape[2:]). */
  readonly perRow: number;
  readonly perPos: number;
  buffer?: Float32Array | Int32Array;
}

/** Pads feeds of b ≤ B rows to the compiled batch B and adds the row mask. */
export class BatchPadder {
  /** The compiled batch size B. */
  readonly rows: number;
  private readonly slots: Slot[];
  private readonly fullMask: Float32Array;
  private readonly mask: Float32Array;

  constructor(graph: Graph, spec: BatchInputs) {
    const entries: [string, BatchInputOptions][] = Array.isArray(spec) ? spec.map((n) => [n, {}]) : Object.entries(spec as Record<string, BatchInputOptions>);
    if (entries.length === 0) throw new BatchSizeError('batchInputs: no inputs named');
    this.slots = entries.map(([name, o]) => {
      const node = graph.byName(name);
      if (node?.op !== 'input') throw new BatchSizeError(`batchInputs: '${name}' is not an input of the graph; inputs: ${graph.leaves('input').map((n) => n.attrs.name).join(', ') || 'none'}`);
      if (node.shape.length < (o.sequence ? 2 : 1)) throw new BatchSizeError(`batchInputs: '${name}' [${node.shape.join(', ')}] has no ${o.sequence ? 'sequence axis (axis 1)' : 'batch axis'}`);
      const pad = o.pad ?? 0;
      if (!Number.isFinite(pad) || (node.dtype !== 'f32' && !Number.isInteger(pad))) throw new BatchSizeError(`batchInputs: pad ${pad} of '${name}' is not a ${node.dtype} value`);
      return { name, node, pad, sequence: o.sequence ?? false, perRow: numel(node.shape.slice(1)), perPos: numel(node.shape.slice(2)) };
    });
    this.rows = this.slots[0].node.shape[0];
    for (const s of this.slots)
      if (s.node.shape[0] !== this.rows) throw new BatchSizeError(`batchInputs: '${s.name}' has ${s.node.shape[0]} rows on axis 0, '${this.slots[0].name}' has ${this.rows}: batch inputs share their batch axis`);
    this.fullMask = new Float32Array(this.rows).fill(1);
    this.mask = new Float32Array(this.rows);
  }

  /** The names of the batch-major inputs. */
  get names(): string[] {
    return this.slots.map((s) => s.name);
  }

  /**
   * The feeds of the compiled step: the batch inputs padded to B rows (and T positions) when fewer were given, and
   * the row mask. The arrays returned for padded inputs are reused by the next call (a session copies its feeds).
   */
  pad(feeds: Readonly<Record<string, FeedValue>>): Record<string, FeedValue> {
    if (feeds && typeof feeds === 'object' && BATCH_ROWS_INPUT in feeds) throw new BatchSizeError(`step: '${BATCH_ROWS_INPUT}' is fed by the session (the mask of the real rows); do not feed it`);
    const sizes = this.slots.map((s) => this.sizeOf(s, feeds?.[s.name]));
    const present = sizes.map((z, i) => [z, this.slots[i].name] as const).filter(([z]) => z !== undefined) as (readonly [{ b: number; t: number }, string])[];
    if (present.length === 0) return { ...feeds, [BATCH_ROWS_INPUT]: this.fullMask }; // the session names what is missing
    const b = present[0][0].b;
    for (const [z, name] of present)
      if (z.b !== b) throw new BatchSizeError(`step: batch inputs disagree on the batch size: '${present[0][1]}' has ${b} rows, '${name}' has ${z.b}`);
    const full = present.every(([z], i) => z.b === this.rows && z.t === (this.slots[i].sequence ? this.slots[i].node.shape[1] : 1));
    if (full) return { ...feeds, [BATCH_ROWS_INPUT]: this.fullMask };
    const out: Record<string, FeedValue> = { ...feeds };
    this.slots.forEach((s, i) => {
      const z = sizes[i];
      if (z) out[s.name] = this.padded(s, feeds[s.name], z);
    });
    this.mask.fill(0);
    this.mask.fill(1, 0, b);
    out[BATCH_ROWS_INPUT] = this.mask;
    return out;
  }

  /** Rows b and positions t of a feed (t = 1 for a non-sequence input); undefined when the feed is missing. */
  private sizeOf(s: Slot, v: FeedValue | undefined): { b: number; t: number } | undefined {
    if (v === undefined) return undefined;
    const T = s.sequence ? s.node.shape[1] : 1;
    let b: number;
    let t = T;
    if (v instanceof Float32Array || v instanceof Int32Array) {
      const want = s.node.dtype === 'f32' ? Float32Array : Int32Array;
      if (!(v instanceof want)) throw new BatchSizeError(`step: '${s.name}' is ${s.node.dtype}, got a ${v.constructor.name}`);
      if (s.perRow === 0 || v.length % s.perRow !== 0) throw new BatchSizeError(`step: '${s.name}' has ${v.length} values, not a whole number of rows of ${s.perRow} ([b, ${s.node.shape.slice(1).join(', ')}])`);
      b = v.length / s.perRow;
    } else {
      const tv = v as TensorValue;
      if (!tv || typeof tv !== 'object' || !Array.isArray(tv.shape) || !tv.data) return undefined; // the session says what is wrong
      const rest = s.node.shape.slice(s.sequence ? 2 : 1);
      const got = tv.shape.slice(s.sequence ? 2 : 1);
      if (tv.shape.length !== s.node.shape.length || got.some((d, i) => d !== rest[i]) || tv.dtype !== s.node.dtype)
        throw new BatchSizeError(`step: '${s.name}' is [${s.node.shape.join(', ')}] ${s.node.dtype}, got [${tv.shape.join(', ')}] ${tv.dtype} (only the ${s.sequence ? 'batch and sequence axes' : 'batch axis'} may be shorter)`);
      b = tv.shape[0];
      if (s.sequence) t = tv.shape[1];
      if (tv.data.length !== numel(tv.shape)) throw new BatchSizeError(`step: '${s.name}' has shape [${tv.shape.join(', ')}] but ${tv.data.length} values`);
    }
    if (b > this.rows) throw new BatchSizeError(`step: '${s.name}' has ${b} rows, more than the ${this.rows} the step was compiled for`);
    if (b < 1) throw new BatchSizeError(`step: '${s.name}' has no rows (a step needs at least one)`);
    if (t > T || t < 1) throw new BatchSizeError(`step: '${s.name}' has ${t} positions, outside [1, ${T}] (the compiled context)`);
    return { b, t };
  }

  /** `v`'s b rows of t positions written into the input's padded buffer. */
  private padded(s: Slot, v: FeedValue, { b, t }: { b: number; t: number }): Float32Array | Int32Array {
    const data = v instanceof Float32Array || v instanceof Int32Array ? v : (v as TensorValue).data;
    if (s.node.dtype !== 'f32')
      for (let i = 0; i < data.length; i++)
        if (!Number.isInteger(data[i])) throw new BatchSizeError(`step: '${s.name}' value ${data[i]} at index ${i} is not an integer (${s.node.dtype})`);
    const buf = (s.buffer ??= s.node.dtype === 'f32' ? new Float32Array(numel(s.node.shape)) : new Int32Array(numel(s.node.shape)));
    buf.fill(s.pad);
    const T = s.sequence ? s.node.shape[1] : 1;
    const run = t * s.perPos; // values of one row as given
    if (t === T) buf.set(data.length === b * s.perRow ? data : data.subarray(0, b * s.perRow));
    else for (let r = 0; r < b; r++) buf.set(data.subarray(r * run, (r + 1) * run), r * s.perRow);
    return buf;
  }
}

// Reference semantics of the indexing ops: slice, pad, concat, gather, scatterAdd, oneHot, argmax and cumsum. Each is
// a direct loop over output (or update) coordinates in row-major order; out-of-range indices throw a
// RangeError naming the op, the index and its position (never a silent clamp or wrap).

import { isFloat } from './dtype.js';
import type { Node } from './graph.js';
import { alloc, type Ctx, out } from './interpretCore.js';
import { numel, stridesOf } from './shape.js';
import type { TensorValue } from './tensorValue.js';

/** Calls `fn(flat, coord)` for every coordinate of `shape` in row-major order (coord is reused). */
function forEachCoord(shape: readonly number[], fn: (flat: number, coord: readonly number[]) => void): void {
  const n = numel(shape);
  const coord = new Array<number>(shape.length).fill(0);
  for (let f = 0; f < n; f++) {
    fn(f, coord);
    for (let ax = shape.length - 1; ax >= 0; ax--) {
      if (++coord[ax] < shape[ax]) break;
      coord[ax] = 0;
    }
  }
}

const dot = (coord: readonly number[], strides: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < coord.length; i++) s += coord[i] * strides[i];
  return s;
};

/** slice: out[c] = x[start + c·step] per axis. */
export function interpretSlice(node: Node<'slice'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { starts, steps } = node.attrs;
  const xs = stridesOf(x.shape);
  const base = dot(starts, xs);
  const st = xs.map((s, i) => s * steps[i]);
  const d = alloc(node.shape, node.dtype, ctx);
  forEachCoord(node.shape, (o, c) => {
    d[o] = x.data[base + dot(c, st)];
  });
  return out(node, d);
}

/** pad: x[c] lands at before + c·(interior + 1); everything else is `value`. */
export function interpretPad(node: Node<'pad'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { before, interior, value } = node.attrs;
  const d = alloc(node.shape, node.dtype, ctx);
  d.fill(isFloat(node.dtype) ? ctx.round(value) : value);
  const os = stridesOf(node.shape);
  const base = dot(before, os);
  const st = os.map((s, i) => s * (interior[i] + 1));
  forEachCoord(x.shape, (i, c) => {
    d[base + dot(c, st)] = x.data[i];
  });
  return out(node, d);
}

/** concat: inputs laid end to end along the axis. */
export function interpretConcat(node: Node<'concat'>, ins: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { axis } = node.attrs;
  const d = alloc(node.shape, node.dtype, ctx);
  const os = stridesOf(node.shape);
  let offset = 0;
  for (const x of ins) {
    const base = offset * os[axis];
    forEachCoord(x.shape, (i, c) => {
      d[base + dot(c, os)] = x.data[i];
    });
    offset += x.shape[axis];
  }
  return out(node, d);
}

function checkIndex(op: string, v: number, at: number, extent: number): void {
  if (!(v >= 0 && v < extent)) throw new RangeError(`${op}: index ${v} at position ${at} is outside [0, ${extent})`);
}

/**
 * Visits gather's output coordinates: `fn(o, t)` with the flat output index and the flat table index it reads
 * (scatterAdd walks the same correspondence backwards).
 */
function gatherMap(op: string, table: readonly number[], indices: TensorValue, axis: number, fn: (o: number, t: number) => void): void {
  const outer = numel(table.slice(0, axis));
  const inner = numel(table.slice(axis + 1));
  const extent = table[axis];
  const k = indices.data.length;
  for (let j = 0; j < k; j++) checkIndex(op, indices.data[j], j, extent);
  for (let a = 0; a < outer; a++)
    for (let j = 0; j < k; j++) {
      const row = (a * extent + indices.data[j]) * inner;
      const o = (a * k + j) * inner;
      for (let b = 0; b < inner; b++) fn(o + b, row + b);
    }
}

/** gather: numpy take along an axis. */
export function interpretGather(node: Node<'gather'>, [table, indices]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const d = alloc(node.shape, node.dtype, ctx);
  gatherMap('gather', table.shape, indices, node.attrs.axis, (o, t) => {
    d[o] = table.data[t];
  });
  return out(node, d);
}

/** scatterAdd: target plus each update added at its index (repeated indices accumulate). */
export function interpretScatterAdd(node: Node<'scatterAdd'>, [target, indices, updates]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const acc = Float64Array.from(target.data);
  gatherMap('scatterAdd', target.shape, indices, node.attrs.axis, (o, t) => {
    acc[t] += updates.data[o];
  });
  const d = alloc(node.shape, node.dtype, ctx);
  for (let i = 0; i < d.length; i++) d[i] = ctx.round(acc[i]);
  return out(node, d);
}

/** oneHot: 1 at each in-range label, a zero row otherwise. */
export function interpretOneHot(node: Node<'oneHot'>, [labels]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const c = node.attrs.classes;
  const d = alloc(node.shape, node.dtype, ctx);
  for (let i = 0; i < labels.data.length; i++) {
    const l = labels.data[i];
    if (l >= 0 && l < c) d[i * c + l] = 1;
  }
  return out(node, d);
}

/** argmax: the first index of the maximum along the axis (NaN counts as the maximum, as in PyTorch). */
export function interpretArgmax(node: Node<'argmax'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { axis } = node.attrs;
  const extent = x.shape[axis];
  const inner = numel(x.shape.slice(axis + 1));
  const outer = numel(x.shape.slice(0, axis));
  const d = alloc(node.shape, 'i32', ctx);
  for (let a = 0; a < outer; a++)
    for (let b = 0; b < inner; b++) {
      let best = 0;
      let bv = x.data[a * extent * inner + b];
      for (let j = 1; j < extent && !Number.isNaN(bv); j++) {
        const v = x.data[(a * extent + j) * inner + b];
        if (v > bv || Number.isNaN(v)) {
          best = j;
          bv = v;
        }
      }
      d[a * inner + b] = best;
    }
  return out(node, d);
}

/** cumsum: a running sum along the axis, from the start (or the end when `reverse`), rounded at every step. */
export function interpretCumsum(node: Node<'cumsum'>, [x]: readonly TensorValue[], ctx: Ctx): TensorValue {
  const { axis, reverse } = node.attrs;
  const extent = x.shape[axis];
  const inner = numel(x.shape.slice(axis + 1));
  const outer = numel(x.shape.slice(0, axis));
  const d = alloc(node.shape, node.dtype, ctx);
  // i32 wraps as the GPU's i32 adds do; f32 rounds each partial sum as a sequential f32 scan
  const round = node.dtype === 'i32' ? (v: number) => v | 0 : (v: number) => ctx.round(v);
  for (let a = 0; a < outer; a++)
    for (let b = 0; b < inner; b++) {
      let acc = 0;
      for (let k = 0; k < extent; k++) {
        const i = (a * extent + (reverse ? extent - 1 - k : k)) * inner + b;
        acc = round(acc + x.data[i]);
        d[i] = acc;
      }
    }
  return out(node, d);
}

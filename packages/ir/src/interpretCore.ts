// Shared pieces of the reference interpreter: the run context, the implementation signature, buffer
// allocation in the run's precision and the broadcast iterator. Must not know any particular op.

import { type DType, isFloat } from './dtype.js';
import type { Node } from './graph.js';
import type { OpKind } from './ops.js';
import { broadcastStrides, numel, type Shape } from './shape.js';
import type { TensorData, TensorValue } from './tensorValue.js';

/** Float precision of an interpreter run. */
export type Precision = 'f32' | 'f64';

/** What every op implementation sees besides its node and operands. */
export interface Ctx {
  readonly precision: Precision;
  readonly round: (x: number) => number;
}

/** The reference implementation of one op. */
export type Impl<K extends OpKind> = (node: Node<K>, ins: readonly TensorValue[], ctx: Ctx) => TensorValue;

/** A zeroed buffer for a tensor of this shape and dtype, in the run's precision. */
export function alloc(shape: Shape, dtype: DType, ctx: Ctx): TensorData {
  const n = numel(shape);
  if (!isFloat(dtype)) return new Int32Array(n);
  return ctx.precision === 'f64' ? new Float64Array(n) : new Float32Array(n);
}

/** The node's value from its data. */
export const out = (node: Node, data: TensorData): TensorValue => ({ shape: node.shape, dtype: node.dtype, data });

/** Iterates the output elements, giving for each input the flat index it reads under broadcasting. */
export function broadcastMap(node: { readonly shape: Shape }, ins: readonly TensorValue[], fn: (o: number, idx: readonly number[]) => void): void {
  const shape = node.shape;
  const rank = shape.length;
  const strides = ins.map((t) => broadcastStrides(t.shape, shape));
  const n = numel(shape);
  const coord = new Array<number>(rank).fill(0);
  const idx = new Array<number>(ins.length).fill(0);
  for (let o = 0; o < n; o++) {
    fn(o, idx);
    for (let ax = rank - 1; ax >= 0; ax--) {
      coord[ax]++;
      for (let j = 0; j < ins.length; j++) idx[j] += strides[j][ax];
      if (coord[ax] < shape[ax]) break;
      for (let j = 0; j < ins.length; j++) idx[j] -= strides[j][ax] * shape[ax];
      coord[ax] = 0;
    }
  }
}


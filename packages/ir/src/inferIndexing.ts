// Shape and dtype inference for the indexing and layout ops beyond reshape/transpose/expand: slice, pad,
// concat, gather, scatterAdd, oneHot, argmax and cumsum. Rules only check and compute types (attributes arrive
// normalised from the builder); each failure names the op and the operands' shapes.

import { arity, fail, float, type Rule, type TensorType } from './inferCore.js';
import type { OpAttrs } from './ops.js';
import { fmtShape, sameShape } from './shape.js';

const perAxis = (op: string, ins: readonly TensorType[], name: string, v: readonly number[]) => {
  if (v.length !== ins[0].shape.length) fail(op, `${name} has ${v.length} entries for rank ${ins[0].shape.length}`, ins);
  if (v.some((x) => !Number.isInteger(x))) fail(op, `${name} [${v}] must be integers`, ins);
};

/** The output extent of a slice along one axis. */
export const sliceExtent = (start: number, end: number, step: number): number => Math.max(0, Math.ceil((end - start) / step));

/** slice: a strided window. */
export const inferSlice: Rule<OpAttrs['slice']> = (ins, a) => {
  arity('slice', ins, 1);
  perAxis('slice', ins, 'starts', a.starts);
  perAxis('slice', ins, 'ends', a.ends);
  perAxis('slice', ins, 'steps', a.steps);
  const shape = ins[0].shape.map((d, i) => {
    const [s, e, st] = [a.starts[i], a.ends[i], a.steps[i]];
    if (!(0 <= s && s <= e && e <= d && st >= 1))
      fail('slice', `axis ${i}: window ${s}:${e}:${st} is not within 0 ≤ start ≤ end ≤ ${d} with step ≥ 1`, ins);
    return sliceExtent(s, e, st);
  });
  return { shape, dtype: ins[0].dtype };
};

/** pad: edge and interior padding with a constant. */
export const inferPad: Rule<OpAttrs['pad']> = (ins, a) => {
  arity('pad', ins, 1);
  for (const k of ['before', 'after', 'interior'] as const) {
    perAxis('pad', ins, k, a[k]);
    if (a[k].some((x) => x < 0)) fail('pad', `${k} [${a[k]}] must be ≥ 0`, ins);
  }
  const shape = ins[0].shape.map((d, i) => a.before[i] + d + Math.max(0, d - 1) * a.interior[i] + a.after[i]);
  return { shape, dtype: ins[0].dtype };
};

/** concat: join along an axis. */
export const inferConcat: Rule<OpAttrs['concat']> = (ins, a) => {
  if (ins.length < 1) fail('concat', 'needs at least one operand', ins);
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(a.axis) && a.axis >= 0 && a.axis < rank)) fail('concat', `axis ${a.axis} out of range for rank ${rank}`, ins);
  let total = 0;
  for (const t of ins) {
    if (t.dtype !== ins[0].dtype) fail('concat', `dtypes differ: ${ins[0].dtype} vs ${t.dtype}`, ins);
    if (t.shape.length !== rank || t.shape.some((d, i) => i !== a.axis && d !== ins[0].shape[i]))
      fail('concat', `shapes ${fmtShape(ins[0].shape)} and ${fmtShape(t.shape)} differ off axis ${a.axis}`, ins);
    total += t.shape[a.axis];
  }
  const shape = [...ins[0].shape];
  shape[a.axis] = total;
  return { shape, dtype: ins[0].dtype };
};

/** The output shape of a gather of `table` by `indices` along `axis`. */
export const gatherShape = (table: readonly number[], indices: readonly number[], axis: number): number[] => [
  ...table.slice(0, axis),
  ...indices,
  ...table.slice(axis + 1),
];

const indexed = (op: string, ins: readonly TensorType[], axis: number) => {
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(axis) && axis >= 0 && axis < rank)) fail(op, `axis ${axis} out of range for rank ${rank}`, ins);
  if (ins[1].dtype !== 'i32') fail(op, `indices must be i32, got ${ins[1].dtype}`, ins);
};

/** gather: numpy `take`. */
export const inferGather: Rule<OpAttrs['gather']> = (ins, a) => {
  arity('gather', ins, 2);
  indexed('gather', ins, a.axis);
  return { shape: gatherShape(ins[0].shape, ins[1].shape, a.axis), dtype: ins[0].dtype };
};

/** scatterAdd: the transpose of gather. */
export const inferScatterAdd: Rule<OpAttrs['scatterAdd']> = (ins, a) => {
  arity('scatterAdd', ins, 3);
  indexed('scatterAdd', ins, a.axis);
  float('scatterAdd', ins, 0);
  float('scatterAdd', ins, 2);
  const want = gatherShape(ins[0].shape, ins[1].shape, a.axis);
  if (!sameShape(ins[2].shape, want)) fail('scatterAdd', `updates must be ${fmtShape(want)}, got ${fmtShape(ins[2].shape)}`, ins);
  return ins[0];
};

/** oneHot: labels to f32 rows. */
export const inferOneHot: Rule<OpAttrs['oneHot']> = (ins, a) => {
  arity('oneHot', ins, 1);
  if (ins[0].dtype !== 'i32') fail('oneHot', `labels must be i32, got ${ins[0].dtype}`, ins);
  if (!(Number.isInteger(a.classes) && a.classes >= 1)) fail('oneHot', `classes must be a positive integer, got ${a.classes}`, ins);
  return { shape: [...ins[0].shape, a.classes], dtype: 'f32' };
};

/** argmax: i32 indices of the first maximum. */
export const inferArgmax: Rule<OpAttrs['argmax']> = (ins, a) => {
  arity('argmax', ins, 1);
  float('argmax', ins, 0);
  const rank = ins[0].shape.length;
  if (!(Number.isInteger(a.axis) && a.axis >= 0 && a.axis < rank)) fail('argmax', `axis ${a.axis} out of range for rank ${rank}`, ins);
  if (ins[0].shape[a.axis] === 0) fail('argmax', `axis ${a.axis} is empty`, ins);
  const shape = a.keepdims ? ins[0].shape.map((d, i) => (i === a.axis ? 1 : d)) : ins[0].shape.filter((_, i) => i !== a.axis);
  return { shape, dtype: 'i32' };
};

/** cumsum: an inclusive scan along an axis, shaped and typed as its operand (f32 or i32). */
export const inferCumsum: Rule<OpAttrs['cumsum']> = (ins, a) => {
  arity('cumsum', ins, 1);
  const rank = ins[0].shape.length;
  if (ins[0].dtype === 'bool') fail('cumsum', 'operand 0 must be f32 or i32, got bool (cast it first)', ins);
  if (!(Number.isInteger(a.axis) && a.axis >= 0 && a.axis < rank)) fail('cumsum', `axis ${a.axis} out of range for rank ${rank}`, ins);
  return { shape: ins[0].shape, dtype: ins[0].dtype };
};

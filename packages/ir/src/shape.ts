// Shapes and numpy broadcasting. Pure functions over readonly number arrays; no graph knowledge here.
// Invariant: a shape is a list of non-negative integers; [] is a scalar.

/** A tensor shape: one extent per axis, outermost first. */
export type Shape = readonly number[];

/** Number of elements of a shape (1 for a scalar). */
export function numel(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Row-major strides of a contiguous tensor of this shape. */
export function stridesOf(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

/** Whether two shapes are identical. */
export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Formats a shape as `[2, 3]` for error messages. */
export function fmtShape(s: Shape): string {
  return `[${s.join(', ')}]`;
}

/** The numpy broadcast of several shapes, or undefined when they are incompatible. */
export function broadcastShapes(...shapes: Shape[]): number[] | undefined {
  let rank = 0;
  for (const s of shapes) rank = Math.max(rank, s.length);
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) if (!broadcastInto(out, s)) return undefined;
  return out;
}

/**
 * `broadcastShapes` of the operands' shapes, without a list of shapes and a spread (the type rules of fused ops
 * broadcast every operand: ~10 000 fused nodes are typed per optimize of the GPT 6×384 step).
 */
export function broadcastTypes(types: readonly { readonly shape: Shape }[]): number[] | undefined {
  let rank = 0;
  for (let k = 0; k < types.length; k++) rank = Math.max(rank, types[k].shape.length);
  const out = new Array<number>(rank).fill(1);
  for (let k = 0; k < types.length; k++) if (!broadcastInto(out, types[k].shape)) return undefined;
  return out;
}

/** Broadcasts `s` into `out` (of at least its rank, aligned right); false when an extent conflicts. */
function broadcastInto(out: number[], s: Shape): boolean {
  const off = out.length - s.length;
  for (let i = 0; i < s.length; i++) {
    const d = s[i];
    const o = off + i;
    if (out[o] === 1) out[o] = d;
    else if (d !== 1 && d !== out[o]) return false;
  }
  return true;
}

/** Whether `from` broadcasts to `to` (numpy rules, `to` fixed). */
export function broadcastsTo(from: Shape, to: Shape): boolean {
  if (from.length > to.length) return false;
  const off = to.length - from.length;
  for (let i = 0; i < from.length; i++) if (from[i] !== 1 && from[i] !== to[off + i]) return false;
  return true;
}

/**
 * Strides for reading a tensor of shape `from` as if broadcast to `to`: broadcast axes get stride 0.
 * The result has `to.length` entries.
 */
export function broadcastStrides(from: Shape, to: Shape): number[] {
  const own = stridesOf(from);
  const off = to.length - from.length;
  return to.map((_, i) => {
    const j = i - off;
    return j < 0 || from[j] === 1 ? 0 : own[j];
  });
}

/** The axes of `to` along which `from` was broadcast (for reducing a gradient back to `from`). */
export function broadcastAxes(from: Shape, to: Shape): number[] {
  const off = to.length - from.length;
  const axes: number[] = [];
  for (let i = 0; i < to.length; i++) {
    const j = i - off;
    if (j < 0 || (from[j] === 1 && to[i] !== 1)) axes.push(i);
  }
  return axes;
}

/** Normalises possibly negative axes against a rank, sorted and deduplicated; undefined if out of range. */
export function normalizeAxes(axes: readonly number[], rank: number): number[] | undefined {
  const out = new Set<number>();
  for (const a of axes) {
    const n = a < 0 ? a + rank : a;
    if (!Number.isInteger(n) || n < 0 || n >= rank) return undefined;
    out.add(n);
  }
  return [...out].sort((x, y) => x - y);
}

/** Shape after reducing `axes` (already normalised). */
export function reducedShape(shape: Shape, axes: readonly number[], keepdims: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < shape.length; i++) {
    if (axes.includes(i)) {
      if (keepdims) out.push(1);
    } else out.push(shape[i]);
  }
  return out;
}

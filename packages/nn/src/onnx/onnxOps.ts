// The op-mapping table of the ONNX importer: one rule per ONNX op type (default domain, opset 13–21), each
// building the op from ir's Graph builder ops. Rules read constant operands (shapes, axes, pads) through the
// context and never invent values; a form they do not cover throws through `c.fail`, naming the node.

import type { DType, Graph, Tensor, TensorValue } from '@neura/ir';

/** What a rule sees of one node: its operands (as graph tensors or, when static, host values) and attributes. */
export interface OpContext {
  readonly g: Graph;
  readonly opType: string;
  readonly opset: number;
  /** Number of input slots (absent optional inputs included). */
  readonly arity: number;
  /** Whether input `i` is given (ONNX marks a skipped optional input with an empty name). */
  has(i: number): boolean;
  /** Input `i` as a graph tensor. */
  input(i: number): Tensor;
  /** Input `i` as a host value, if it is static (a Constant, an integer initializer, a folded Shape). */
  known(i: number): TensorValue | undefined;
  /** The values of a static integer/float input, or an error saying it must be static. */
  values(i: number, what: string): number[];
  /** Static shape of input `i`. */
  shape(i: number): readonly number[];
  int(name: string, dflt: number): number;
  ints(name: string): number[] | undefined;
  float(name: string, dflt: number): number;
  str(name: string, dflt: string): string;
  floats(name: string): number[] | undefined;
  tensor(name: string): TensorValue | undefined;
  /** A host value as a graph tensor (a filled constant, or a non-trainable state leaf holding it). */
  host(v: TensorValue): Tensor;
  /** Number of outputs the node declares. */
  readonly outputs: number;
  fail(why: string): never;
}

/** What a rule returns: one result per output; a host value stays static (for later shape-like reads). */
export type OpResult = Tensor | TensorValue | readonly (Tensor | TensorValue)[];

/** A rule mapping one ONNX node onto graph ops. */
export type OpRule = (c: OpContext) => OpResult;

const axisOf = (c: OpContext, a: number, rank: number): number => {
  const r = a < 0 ? a + rank : a;
  if (r < 0 || r >= rank) c.fail(`axis ${a} is out of range for rank ${rank}`);
  return r;
};

const prod = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);

const unary = (op: Parameters<Graph['unary']>[0]): OpRule => (c) => c.g.unary(op, c.input(0));
const binary = (f: (g: Graph, a: Tensor, b: Tensor) => Tensor): OpRule => (c) => f(c.g, c.input(0), c.input(1));
const variadic = (f: (g: Graph, a: Tensor, b: Tensor) => Tensor): OpRule => (c) => {
  let acc = c.input(0);
  for (let i = 1; i < c.arity; i++) acc = f(c.g, acc, c.input(i));
  return acc;
};

/** Neura's dtype for an ONNX `to` code (Cast). */
function castTarget(c: OpContext, to: number): DType {
  if ([1, 10, 11, 16].includes(to)) return 'f32';
  if ([2, 3, 4, 5, 6, 7, 12, 13].includes(to)) return 'i32';
  if (to === 9) return 'bool';
  return c.fail(`cannot cast to element type ${to}`);
}

/** The reduce axes of ReduceX: an attribute before opset 18 (ReduceSum: 13), an optional input after. */
function reduceAxes(c: OpContext, inputForm: boolean): number[] | undefined {
  const rank = c.shape(0).length;
  const raw = inputForm ? (c.has(1) ? c.values(1, 'axes') : undefined) : c.ints('axes');
  if (!raw || raw.length === 0) return c.int('noop_with_empty_axes', 0) ? [] : undefined;
  return raw.map((a) => axisOf(c, a, rank));
}

const reduce = (kind: 'sum' | 'mean' | 'reduceMax' | 'reduceMin', inputFrom: number): OpRule => (c) => {
  const axes = reduceAxes(c, c.opset >= inputFrom);
  const keep = c.int('keepdims', 1) === 1;
  const x = c.input(0);
  if (axes && axes.length === 0) return x;
  return c.g[kind](x, axes ?? x.shape.map((_, i) => i), keep);
};

/** Symmetric [H, W] pads from ONNX's [top, left, bottom, right], or asymmetric ones applied with an explicit pad. */
function spatialPads(c: OpContext, x: Tensor, kernel: readonly number[], strides: readonly number[], dilations: readonly number[], padValue: number): { x: Tensor; padding: [number, number] } {
  const autoPad = c.str('auto_pad', 'NOTSET');
  let pads = c.ints('pads') ?? [0, 0, 0, 0];
  const hw = x.shape.slice(2);
  if (autoPad === 'VALID') pads = [0, 0, 0, 0];
  else if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER') {
    const total = hw.map((d, i) => Math.max(0, (Math.ceil(d / strides[i]) - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - d));
    const small = total.map((t) => Math.floor(t / 2));
    const big = total.map((t, i) => t - small[i]);
    pads = autoPad === 'SAME_UPPER' ? [...small, ...big] : [...big, ...small];
  } else if (autoPad !== 'NOTSET') c.fail(`auto_pad '${autoPad}' is not supported`);
  if (pads.length !== 4) c.fail(`pads [${pads}] must have 4 entries for a 2-D window`);
  if (pads[0] === pads[2] && pads[1] === pads[3]) return { x, padding: [pads[0], pads[1]] };
  return { x: c.g.pad(x, [0, 0, pads[0], pads[1]], [0, 0, pads[2], pads[3]], padValue), padding: [0, 0] };
}

function need2d(c: OpContext, x: Tensor): void {
  if (x.shape.length !== 4) c.fail(`only 2-D windows (4-D NCHW input) are supported, got input of rank ${x.shape.length}`);
}

function conv(c: OpContext): Tensor {
  const x0 = c.input(0);
  need2d(c, x0);
  const w = c.input(1);
  const kernel = c.ints('kernel_shape') ?? w.shape.slice(2);
  const strides = c.ints('strides') ?? [1, 1];
  const dilations = c.ints('dilations') ?? [1, 1];
  const { x, padding } = spatialPads(c, x0, kernel, strides, dilations, 0);
  const y = c.g.conv2d(x, w, c.has(2) ? c.input(2) : undefined, { stride: [strides[0], strides[1]], padding, dilation: [dilations[0], dilations[1]], groups: c.int('group', 1) });
  return y;
}

function maxPool(c: OpContext): Tensor {
  const x0 = c.input(0);
  need2d(c, x0);
  if (c.outputs > 1) c.fail('the Indices output is not supported');
  if (c.int('storage_order', 0) !== 0) c.fail('storage_order 1 is not supported');
  const kernel = c.ints('kernel_shape') ?? c.fail('kernel_shape is required');
  const strides = c.ints('strides') ?? [1, 1];
  const dilations = c.ints('dilations') ?? [1, 1];
  const { x, padding } = spatialPads(c, x0, kernel, strides, dilations, -3.4028234663852886e38);
  return c.g.maxPool2d(x, [kernel[0], kernel[1]], { stride: [strides[0], strides[1]], padding, dilation: [dilations[0], dilations[1]], ceilMode: c.int('ceil_mode', 0) === 1 });
}

function avgPool(c: OpContext): Tensor {
  const x0 = c.input(0);
  need2d(c, x0);
  if (c.int('ceil_mode', 0) !== 0) c.fail('ceil_mode 1 is not supported');
  const kernel = c.ints('kernel_shape') ?? c.fail('kernel_shape is required');
  const strides = c.ints('strides') ?? [1, 1];
  const dilations = c.ints('dilations') ?? [1, 1];
  if (dilations.some((d) => d !== 1)) c.fail(`dilations [${dilations}] are not supported`);
  const { x, padding } = spatialPads(c, x0, kernel, strides, dilations, 0);
  const k: [number, number] = [kernel[0], kernel[1]];
  const opts = { stride: [strides[0], strides[1]] as [number, number], padding };
  const y = c.g.avgPool2d(x, k, opts);
  const padded = x !== x0 || padding[0] > 0 || padding[1] > 0;
  if (c.int('count_include_pad', 0) === 1 || !padded) return y;
  // ONNX's default divides by the taps inside the input only: mean(x) / mean(ones) over the same windows
  const ones = c.g.constant(1, [1, 1, x0.shape[2], x0.shape[3]]);
  const onesIn = x !== x0 ? c.g.pad(ones, [0, 0, ...(c.ints('pads') ?? []).slice(0, 2)], [0, 0, ...(c.ints('pads') ?? []).slice(2)], 0) : ones;
  return c.g.div(y, c.g.avgPool2d(onesIn, k, opts));
}

function gemm(c: OpContext): Tensor {
  const alpha = c.float('alpha', 1);
  const beta = c.float('beta', 1);
  let y = c.g.matmul(c.input(0), c.input(1), { transA: c.int('transA', 0) === 1, transB: c.int('transB', 0) === 1 });
  if (alpha !== 1) y = c.g.mul(y, alpha);
  if (c.has(2)) y = c.g.add(y, beta === 1 ? c.input(2) : c.g.mul(c.input(2), beta));
  return y;
}

function matmul(c: OpContext): Tensor {
  let a = c.input(0);
  let b = c.input(1);
  const aVec = a.shape.length === 1;
  const bVec = b.shape.length === 1;
  if (aVec) a = c.g.reshape(a, [1, a.shape[0]]);
  if (bVec) b = c.g.reshape(b, [b.shape[0], 1]);
  let y = c.g.matmul(a, b);
  if (aVec || bVec) {
    const s = [...y.shape];
    if (bVec) s.splice(s.length - 1, 1);
    if (aVec) s.splice(s.length - (bVec ? 1 : 2), 1);
    y = c.g.reshape(y, s);
  }
  return y;
}

function batchNorm(c: OpContext): Tensor {
  if (c.int('training_mode', 0) === 1 || c.outputs > 1) c.fail('only the inference form (training_mode 0, one output) is supported');
  const x = c.input(0);
  const eps = c.float('epsilon', 1e-5);
  const ch = [x.shape[1], ...x.shape.slice(2).map(() => 1)];
  const col = (i: number) => c.g.reshape(c.input(i), ch);
  const inv = c.g.rsqrt(c.g.add(col(4), eps));
  return c.g.add(c.g.mul(c.g.mul(c.g.sub(x, col(3)), inv), col(1)), col(2));
}

function layerNorm(c: OpContext): Tensor {
  if (c.outputs > 1) c.fail('the Mean and InvStdDev outputs are not supported');
  const x = c.input(0);
  const axis = axisOf(c, c.int('axis', -1), x.shape.length);
  const axes = x.shape.map((_, i) => i).slice(axis);
  const normShape = x.shape.slice(axis);
  const fit = (t: Tensor) => (t.shape.join() === normShape.join() ? t : c.g.expand(t, normShape));
  return c.g.layerNorm(x, fit(c.input(1)), c.has(2) ? fit(c.input(2)) : undefined, { eps: c.float('epsilon', 1e-5), axes });
}

function reshape(c: OpContext): Tensor {
  const x = c.input(0);
  const want = c.values(1, 'shape');
  const allowZero = c.int('allowzero', 0) === 1;
  const dims = want.map((d, i) => (d === 0 && !allowZero ? (x.shape[i] ?? c.fail(`shape [${want}] copies dim ${i} that the input ${fmt(x.shape)} lacks`)) : d));
  const minus = dims.indexOf(-1);
  if (minus >= 0) {
    const rest = prod(dims.filter((_, i) => i !== minus));
    if (rest === 0 || prod(x.shape) % rest !== 0) c.fail(`cannot infer -1 in shape [${want}] for input ${fmt(x.shape)}`);
    dims[minus] = prod(x.shape) / rest;
  }
  return c.g.reshape(x, dims);
}

const fmt = (s: readonly number[]) => `[${s.join(', ')}]`;

function slice(c: OpContext): Tensor {
  const x = c.input(0);
  const rank = x.shape.length;
  const starts = c.values(1, 'starts');
  const ends = c.values(2, 'ends');
  const axes = c.has(3) ? c.values(3, 'axes').map((a) => axisOf(c, a, rank)) : starts.map((_, i) => i);
  const steps = c.has(4) ? c.values(4, 'steps') : starts.map(() => 1);
  if (steps.some((s) => s <= 0)) c.fail(`steps [${steps}] must be positive (negative steps are not supported)`);
  const s = x.shape.map(() => 0);
  const e = [...x.shape];
  const st = x.shape.map(() => 1);
  axes.forEach((a, i) => {
    s[a] = starts[i];
    e[a] = ends[i];
    st[a] = steps[i];
  });
  return c.g.slice(x, s, e, st);
}

function squeeze(c: OpContext): Tensor {
  const x = c.input(0);
  const axes = (c.has(1) ? c.values(1, 'axes') : (c.ints('axes') ?? x.shape.flatMap((d, i) => (d === 1 ? [i] : [])))).map((a) => axisOf(c, a, x.shape.length));
  for (const a of axes) if (x.shape[a] !== 1) c.fail(`cannot squeeze axis ${a} of size ${x.shape[a]} in ${fmt(x.shape)}`);
  return c.g.reshape(x, x.shape.filter((_, i) => !axes.includes(i)));
}

function unsqueeze(c: OpContext): Tensor {
  const x = c.input(0);
  const raw = c.has(1) ? c.values(1, 'axes') : (c.ints('axes') ?? c.fail('axes are required'));
  const rank = x.shape.length + raw.length;
  const axes = raw.map((a) => axisOf(c, a, rank)).sort((a, b) => a - b);
  const out = [...x.shape];
  for (const a of axes) out.splice(a, 0, 1);
  return c.g.reshape(x, out);
}

function split(c: OpContext): Tensor[] {
  const x = c.input(0);
  const axis = axisOf(c, c.int('axis', 0), x.shape.length);
  const sizes = c.has(1) ? c.values(1, 'split') : c.ints('split');
  if (sizes) return c.g.split(x, sizes, axis);
  const n = c.int('num_outputs', c.outputs);
  const chunk = Math.ceil(x.shape[axis] / n);
  const list = Array.from({ length: n }, (_, i) => Math.max(0, Math.min(chunk, x.shape[axis] - i * chunk)));
  return c.g.split(x, list, axis);
}

function pad(c: OpContext): Tensor {
  const mode = c.str('mode', 'constant');
  if (mode !== 'constant') c.fail(`mode '${mode}' is not supported (only 'constant')`);
  const x = c.input(0);
  const rank = x.shape.length;
  const pads = c.values(1, 'pads');
  const value = c.has(2) ? c.values(2, 'constant_value')[0] : 0;
  const axes = c.has(3) ? c.values(3, 'axes').map((a) => axisOf(c, a, rank)) : x.shape.map((_, i) => i);
  const before = x.shape.map(() => 0);
  const after = x.shape.map(() => 0);
  axes.forEach((a, i) => {
    before[a] = pads[i];
    after[a] = pads[i + axes.length];
  });
  if ([...before, ...after].some((p) => p < 0)) c.fail(`negative pads [${pads}] are not supported`);
  return c.g.pad(x, before, after, value);
}

function gather(c: OpContext): Tensor {
  const x = c.input(0);
  const axis = axisOf(c, c.int('axis', 0), x.shape.length);
  const dim = x.shape[axis];
  const k = c.known(1);
  let idx: Tensor;
  if (k) {
    const fixed = Array.from(k.data, (v) => (v < 0 ? v + dim : v));
    if (fixed.some((v) => v < 0 || v >= dim)) c.fail(`index out of range [${Array.from(k.data)}] for axis ${axis} of size ${dim}`);
    idx = c.host({ shape: [...k.shape], dtype: 'i32', data: Int32Array.from(fixed) });
  } else {
    const raw = c.input(1);
    idx = c.g.where(c.g.lt(raw, 0), c.g.add(raw, dim), raw); // ONNX allows negative indices
  }
  return c.g.gather(x, idx, axis);
}

function flatten(c: OpContext): Tensor {
  const x = c.input(0);
  const axis = c.int('axis', 1);
  const a = axis < 0 ? axis + x.shape.length : axis;
  return c.g.reshape(x, [prod(x.shape.slice(0, a)), prod(x.shape.slice(a))]);
}

function shapeOf(c: OpContext): TensorValue {
  const s = c.shape(0);
  const r = s.length;
  const clampAxis = (a: number) => Math.min(r, Math.max(0, a < 0 ? a + r : a));
  const dims = s.slice(clampAxis(c.int('start', 0)), clampAxis(c.int('end', r)));
  return { shape: [dims.length], dtype: 'i32', data: Int32Array.from(dims) };
}

function constant(c: OpContext): TensorValue {
  const t = c.tensor('value');
  if (t) return t;
  const f = c.ints('value_ints');
  if (f) return { shape: [f.length], dtype: 'i32', data: Int32Array.from(f) };
  const fl = c.floats('value_floats');
  if (fl) return { shape: [fl.length], dtype: 'f32', data: Float32Array.from(fl) };
  const i = c.int('value_int', Number.NaN);
  if (!Number.isNaN(i)) return { shape: [], dtype: 'i32', data: Int32Array.from([i]) };
  const v = c.float('value_float', Number.NaN);
  if (!Number.isNaN(v)) return { shape: [], dtype: 'f32', data: Float32Array.from([v]) };
  return c.fail('needs a value (sparse and string constants are not supported)');
}

function clip(c: OpContext): Tensor {
  const lo = c.has(1) ? c.values(1, 'min')[0] : undefined;
  const hi = c.has(2) ? c.values(2, 'max')[0] : undefined;
  return c.g.clamp(c.input(0), lo, hi);
}

function softmaxLike(kind: 'softmax' | 'logSoftmax'): OpRule {
  return (c) => {
    const x = c.input(0);
    const r = x.shape.length;
    const axis = axisOf(c, c.int('axis', -1), r);
    if (axis === r - 1) return c.g[kind](x, -1);
    // neura's softmax runs along the last axis: swap the axis there and back
    const perm = x.shape.map((_, i) => (i === axis ? r - 1 : i === r - 1 ? axis : i));
    return c.g.transpose(c.g[kind](c.g.transpose(x, perm), -1), perm);
  };
}

/** The rules, by ONNX op type (default domain). */
export const ONNX_OPS: Readonly<Record<string, OpRule>> = {
  Identity: (c) => c.known(0) ?? c.input(0),
  Dropout: (c) => (c.outputs > 1 ? c.fail('the mask output is not supported') : c.input(0)),
  Constant: constant,
  Shape: shapeOf,
  Cast: (c) => {
    const to = castTarget(c, c.int('to', 1));
    const x = c.input(0);
    return x.dtype === to ? x : c.g.cast(x, to);
  },
  Abs: unary('abs'),
  Neg: unary('neg'),
  Exp: unary('exp'),
  Log: unary('log'),
  Sqrt: unary('sqrt'),
  Reciprocal: unary('recip'),
  Tanh: unary('tanh'),
  Sigmoid: unary('sigmoid'),
  Relu: unary('relu'),
  Erf: unary('erf'),
  Sin: unary('sin'),
  Cos: unary('cos'),
  Softplus: unary('softplus'),
  Gelu: (c) => c.g.gelu(c.input(0), { approximate: c.str('approximate', 'none') === 'tanh' ? 'tanh' : 'none' }),
  LeakyRelu: (c) => c.g.leakyRelu(c.input(0), c.float('alpha', 0.01)),
  Add: binary((g, a, b) => g.add(a, b)),
  Sub: binary((g, a, b) => g.sub(a, b)),
  Mul: binary((g, a, b) => g.mul(a, b)),
  Div: binary((g, a, b) => g.div(a, b)),
  Pow: (c) => {
    const e = c.known(1);
    // x^2 and x^0.5 are exact as square/sqrt (PyTorch's exported layer norm uses Pow(x, 2))
    if (e && e.data.length === 1 && e.data[0] === 2) return c.g.square(c.input(0));
    if (e && e.data.length === 1 && e.data[0] === 0.5) return c.g.sqrt(c.input(0));
    const b = c.input(1);
    return c.g.pow(c.input(0), b.dtype === 'f32' ? b : c.g.cast(b, 'f32'));
  },
  Max: variadic((g, a, b) => g.max(a, b)),
  Min: variadic((g, a, b) => g.min(a, b)),
  Sum: variadic((g, a, b) => g.add(a, b)),
  Equal: binary((g, a, b) => g.eq(a, b)),
  Less: binary((g, a, b) => g.lt(a, b)),
  LessOrEqual: binary((g, a, b) => g.le(a, b)),
  Greater: binary((g, a, b) => g.gt(a, b)),
  GreaterOrEqual: binary((g, a, b) => g.ge(a, b)),
  Where: (c) => c.g.where(c.input(0), c.input(1), c.input(2)),
  Clip: clip,
  MatMul: matmul,
  Gemm: gemm,
  Conv: conv,
  BatchNormalization: batchNorm,
  MaxPool: maxPool,
  AveragePool: avgPool,
  GlobalAveragePool: (c) => {
    const x = c.input(0);
    need2d(c, x);
    return c.g.globalAvgPool(x, true);
  },
  LayerNormalization: layerNorm,
  Softmax: softmaxLike('softmax'),
  LogSoftmax: softmaxLike('logSoftmax'),
  Gather: gather,
  Reshape: reshape,
  Transpose: (c) => {
    const x = c.input(0);
    return c.g.transpose(x, c.ints('perm') ?? x.shape.map((_, i) => x.shape.length - 1 - i));
  },
  Concat: (c) => {
    const all = Array.from({ length: c.arity }, (_, i) => c.input(i));
    const xs = all.filter((t) => prod(t.shape) > 0); // exporters concat empty shape lists; they add nothing
    return c.g.concat(xs.length > 0 ? xs : all.slice(0, 1), axisOf(c, c.int('axis', 0), all[0].shape.length));
  },
  Split: split,
  Slice: slice,
  Squeeze: squeeze,
  Unsqueeze: unsqueeze,
  Flatten: flatten,
  Pad: pad,
  Expand: (c) => {
    const x = c.input(0);
    const want = c.values(1, 'shape');
    const r = Math.max(want.length, x.shape.length);
    const xs = [...Array(r - x.shape.length).fill(1), ...x.shape];
    const ws = [...Array(r - want.length).fill(1), ...want];
    return c.g.expand(x, xs.map((d, i) => (ws[i] === 1 ? d : ws[i])));
  },
  ReduceMean: reduce('mean', 18),
  ReduceSum: reduce('sum', 13),
  ReduceMax: reduce('reduceMax', 18),
  ReduceMin: reduce('reduceMin', 18),
};

// LoRA (Hu et al. 2021) as PEFT implements it: `applyLora` attaches to each targeted Linear a low-rank term
// y = x·W + b + (alpha/rank)·(dropout(x)·A)·B and freezes every other parameter of the model. Leaves are named as
// PEFT's (`<linear>.lora_A.weight`, `<linear>.lora_B.weight`) but stored in neura's Linear layout, A [in, rank] and
// B [rank, out]; the PEFT format (`format: 'peft'`) transposes to torch's [rank, in] and [out, rank]. Nothing here
// holds tensor data: merge/unmerge/export are functions of a model and a state dict.

import { GraphError, type Graph, type Init, type Tensor, type TensorData, type TensorValue } from '@neura/ir';
import { kaimingUniform, Module } from '../module.js';
import { Dropout } from './dropout.js';
import { Linear, type LinearAdapter } from './linear.js';

/** Options of `applyLora`. */
export interface LoraOptions {
  /** The rank r of the update (a positive integer). */
  readonly rank: number;
  /** The update is scaled by alpha / rank (PEFT's `lora_alpha`; default: rank, i.e. scale 1). */
  readonly alpha?: number;
  /** Dropout on the adapter's input in training mode (PEFT's `lora_dropout`, default 0). */
  readonly dropout?: number;
  /**
   * Which Linears get an adapter, by their dotted name: a predicate; a list, where an entry matches a name equal to
   * it or ending in `.<entry>` (PEFT's `target_modules`: `['q_proj', 'v_proj']`); or a RegExp tested on the name.
   */
  readonly targets: ((name: string) => boolean) | readonly string[] | RegExp;
  /** Seed offset of A's initialiser (default 0; each leaf also hashes in its name). */
  readonly seed?: number;
}

/** Name prefix of PEFT's adapter files (`adapter_model.safetensors`): `base_model.model.<linear>.lora_A.weight`. */
export const PEFT_PREFIX = 'base_model.model.';

/** One factor of a LoRA update: a bias-free matrix `weight` applied as `x·weight`. */
export class LoraFactor extends Module {
  constructor(rows: number, cols: number, init: Init) {
    super();
    this.registerParameter('weight', [rows, cols], init);
  }
  forward(g: Graph, x: Tensor, prefix?: string): Tensor {
    return g.matmul(x, this.param(g, prefix, 'weight'));
  }
}

/** The LoRA term of one Linear: children `lora_A` [in, rank], `lora_B` [rank, out] and, with dropout, `lora_dropout`. */
export class LoraAdapter implements LinearAdapter {
  /** alpha / rank. */
  readonly scaling: number;
  readonly modules: readonly (readonly [string, Module])[];
  /** The down-projection `lora_A` [in, rank]. */
  readonly A: LoraFactor;
  /** The up-projection `lora_B` [rank, out] (zeros at first, so the adapter starts as a no-op). */
  readonly B: LoraFactor;
  private readonly drop?: Dropout;

  constructor(
    /** Input features of the adapted Linear. */
    readonly inFeatures: number,
    /** Output features of the adapted Linear. */
    readonly outFeatures: number,
    /** Rank r of the low-rank update. */
    readonly rank: number,
    /** Scale numerator: the update is multiplied by alpha / rank. */
    readonly alpha: number,
    dropout = 0,
    seed = 0,
  ) {
    this.scaling = alpha / rank;
    // PEFT: A by kaiming_uniform(a=√5) on its torch weight [rank, in] (fan-in = in), B zeros: the update starts at 0
    this.A = new LoraFactor(inFeatures, rank, kaimingUniform(inFeatures, seed));
    this.B = new LoraFactor(rank, outFeatures, { kind: 'zeros' });
    if (dropout > 0) this.drop = new Dropout(dropout);
    this.modules = [['lora_A', this.A], ['lora_B', this.B], ...(this.drop ? [['lora_dropout', this.drop] as const] : [])];
  }

  delta(g: Graph, x: Tensor, prefix: string | undefined): Tensor {
    const at = (n: string) => (prefix ? `${prefix}.${n}` : n);
    const xd = this.drop ? this.drop.forward(g, x, at('lora_dropout')) : x;
    return g.mul(this.B.forward(g, this.A.forward(g, xd, at('lora_A')), at('lora_B')), this.scaling);
  }
}

/** The Linears of `model` that carry a LoRA adapter, by dotted name. */
export function loraLayers(model: Module): [string, Linear, LoraAdapter][] {
  const out: [string, Linear, LoraAdapter][] = [];
  for (const [n, m] of model.namedModules()) if (m instanceof Linear && m.adapter instanceof LoraAdapter) out.push([n, m, m.adapter]);
  return out;
}

/**
 * Attaches LoRA adapters to the targeted Linears of `model` and freezes every other parameter (PEFT's default,
 * `bias='none'`). The model's output is unchanged until B is trained (B starts at zero). Returns the wrapped names.
 */
export function applyLora(model: Module, opts: LoraOptions): string[] {
  const { rank } = opts;
  if (!(Number.isInteger(rank) && rank > 0)) throw new GraphError(`applyLora: rank must be a positive integer, got ${rank}`, 'LoRA');
  const alpha = opts.alpha ?? rank;
  if (!(Number.isFinite(alpha) && alpha !== 0)) throw new GraphError(`applyLora: alpha must be a finite non-zero number, got ${alpha}`, 'LoRA');
  const dropout = opts.dropout ?? 0;
  if (!(dropout >= 0 && dropout < 1)) throw new GraphError(`applyLora: dropout must be in [0, 1), got ${dropout}`, 'LoRA');
  if (loraLayers(model).length) throw new GraphError(`applyLora: the model already has LoRA adapters (on ${loraLayers(model).map(([n]) => n || '(root)').join(', ')}); apply it once`, 'LoRA');
  const t = opts.targets;
  const matches = typeof t === 'function' ? t : t instanceof RegExp ? (n: string) => t.test(n) : (n: string) => t.some((e) => n === e || n.endsWith(`.${e}`));
  const linears = model.namedModules().filter((e): e is [string, Linear] => e[1] instanceof Linear);
  const chosen = linears.filter(([n]) => matches(n));
  if (chosen.length === 0)
    throw new GraphError(`applyLora: targets ${describeTargets(t)} match no Linear of the model (its Linears: ${linears.map(([n]) => n || '(root)').join(', ') || 'none'})`, 'LoRA');
  model.freeze();
  for (const [, lin] of chosen) lin.attachAdapter(new LoraAdapter(lin.inFeatures, lin.outFeatures, rank, alpha, dropout, opts.seed ?? 0), 'applyLora');
  return chosen.map(([n]) => n);
}

function describeTargets(t: LoraOptions['targets']): string {
  return typeof t === 'function' ? '(a predicate)' : t instanceof RegExp ? String(t) : `[${t.map((e) => `'${e}'`).join(', ')}]`;
}

const leafName = (linear: string, leaf: string) => (linear ? `${linear}.${leaf}` : leaf);

function need(values: Readonly<Record<string, TensorValue>>, name: string, shape: readonly number[], what: string): TensorValue {
  const v = values[name];
  if (!v) throw new GraphError(`${what}: the state dict has no '${name}'`, 'LoRA');
  if (v.shape.join() !== shape.join()) throw new GraphError(`${what}: '${name}' is [${v.shape.join(', ')}], expected [${shape.join(', ')}]`, 'LoRA');
  return v;
}

/** W + sign·scaling·A·B, accumulated in f64, stored in W's array type. */
function addUpdate(w: TensorValue, a: TensorValue, b: TensorValue, scaling: number, sign: 1 | -1): TensorValue {
  const [n, m] = w.shape;
  const r = a.shape[1];
  const data = new (w.data.constructor as new (k: number) => TensorData)(n * m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let k = 0; k < r; k++) s += a.data[i * r + k] * b.data[k * m + j];
      data[i * m + j] = w.data[i * m + j] + sign * scaling * s;
    }
  return { shape: [...w.shape], dtype: w.dtype, data };
}

/**
 * Merges the adapters into the base weights (PEFT's `merge_and_unload`, as values): returns the state dict of the
 * plain model (the same model built without LoRA) with W' = W + (alpha/rank)·A·B and no `lora_*` entries.
 */
export function mergeLora(model: Module, values: Readonly<Record<string, TensorValue>>): Record<string, TensorValue> {
  const layers = loraLayers(model);
  if (!layers.length) throw new GraphError('mergeLora: the model has no LoRA adapters (applyLora first)', 'LoRA');
  const out: Record<string, TensorValue> = { ...values };
  for (const [n, lin, ad] of layers) {
    const w = need(values, leafName(n, 'weight'), [lin.inFeatures, lin.outFeatures], 'mergeLora');
    const a = need(values, leafName(n, 'lora_A.weight'), [lin.inFeatures, ad.rank], 'mergeLora');
    const b = need(values, leafName(n, 'lora_B.weight'), [ad.rank, lin.outFeatures], 'mergeLora');
    out[leafName(n, 'weight')] = addUpdate(w, a, b, ad.scaling, 1);
    delete out[leafName(n, 'lora_A.weight')];
    delete out[leafName(n, 'lora_B.weight')];
  }
  return out;
}

/**
 * Undoes `mergeLora`: from merged plain-model values and the adapters (`loraStateDict`'s neura format), the LoRA
 * model's state dict with W = W' − (alpha/rank)·A·B (exact up to rounding) and the adapters back in.
 */
export function unmergeLora(model: Module, merged: Readonly<Record<string, TensorValue>>, adapters: Readonly<Record<string, TensorValue>>): Record<string, TensorValue> {
  const layers = loraLayers(model);
  if (!layers.length) throw new GraphError('unmergeLora: the model has no LoRA adapters (applyLora first)', 'LoRA');
  const out: Record<string, TensorValue> = { ...merged };
  for (const [n, lin, ad] of layers) {
    const w = need(merged, leafName(n, 'weight'), [lin.inFeatures, lin.outFeatures], 'unmergeLora');
    const a = need(adapters, leafName(n, 'lora_A.weight'), [lin.inFeatures, ad.rank], 'unmergeLora');
    const b = need(adapters, leafName(n, 'lora_B.weight'), [ad.rank, lin.outFeatures], 'unmergeLora');
    out[leafName(n, 'weight')] = addUpdate(w, a, b, ad.scaling, -1);
    out[leafName(n, 'lora_A.weight')] = a;
    out[leafName(n, 'lora_B.weight')] = b;
  }
  return out;
}

/** Format of an adapter state dict: neura's names and layout, or PEFT's file (prefixed names, torch layout). */
export type LoraFormat = 'neura' | 'peft';

function transpose2d(v: TensorValue): TensorValue {
  const [n, m] = v.shape;
  const data = new (v.data.constructor as new (k: number) => TensorData)(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) data[j * n + i] = v.data[i * m + j];
  return { shape: [m, n], dtype: v.dtype, data };
}

/**
 * The adapters alone from a LoRA model's state dict. `neura` (default): `<linear>.lora_A.weight` [in, rank] and
 * `<linear>.lora_B.weight` [rank, out], loadable with `loadStateDict(..., { strict: false })`. `peft`: PEFT's
 * `adapter_model.safetensors` keys (`base_model.model.<linear>.lora_A.weight`) in torch's layout, A [rank, in] and
 * B [out, rank] (transposed).
 */
export function loraStateDict(model: Module, values: Readonly<Record<string, TensorValue>>, opts: { format?: LoraFormat } = {}): Record<string, TensorValue> {
  const layers = loraLayers(model);
  if (!layers.length) throw new GraphError('loraStateDict: the model has no LoRA adapters (applyLora first)', 'LoRA');
  const peft = opts.format === 'peft';
  const out: Record<string, TensorValue> = {};
  for (const [n, lin, ad] of layers)
    for (const [leaf, shape] of [
      ['lora_A.weight', [lin.inFeatures, ad.rank]],
      ['lora_B.weight', [ad.rank, lin.outFeatures]],
    ] as const) {
      const v = need(values, leafName(n, leaf), shape, 'loraStateDict');
      if (peft) out[`${PEFT_PREFIX}${leafName(n, leaf)}`] = transpose2d(v);
      else out[leafName(n, leaf)] = v;
    }
  return out;
}

/**
 * Checks an adapter state dict against the model's adapters (every one present, nothing unknown, shapes right)
 * and returns it in neura's names and layout, ready for `loadStateDict(values, { strict: false })` or
 * `initialState`. `peft` reads PEFT's keys and torch layout (see `loraStateDict`).
 */
export function loadLoraStateDict(model: Module, adapters: Readonly<Record<string, TensorValue>>, opts: { format?: LoraFormat } = {}): Record<string, TensorValue> {
  const layers = loraLayers(model);
  if (!layers.length) throw new GraphError('loadLoraStateDict: the model has no LoRA adapters (applyLora first)', 'LoRA');
  const peft = opts.format === 'peft';
  const out: Record<string, TensorValue> = {};
  const expected = new Set<string>();
  for (const [n, lin, ad] of layers)
    for (const [leaf, shape] of [
      ['lora_A.weight', [lin.inFeatures, ad.rank]],
      ['lora_B.weight', [ad.rank, lin.outFeatures]],
    ] as const) {
      const key = peft ? `${PEFT_PREFIX}${leafName(n, leaf)}` : leafName(n, leaf);
      expected.add(key);
      const v = need(adapters, key, peft ? [shape[1], shape[0]] : shape, 'loadLoraStateDict');
      out[leafName(n, leaf)] = peft ? transpose2d(v) : v;
    }
  const unknown = Object.keys(adapters).filter((k) => !expected.has(k));
  if (unknown.length) throw new GraphError(`loadLoraStateDict: entries that are no adapter of this model: ${unknown.join(', ')} (expected: ${[...expected].join(', ')})`, 'LoRA');
  return out;
}

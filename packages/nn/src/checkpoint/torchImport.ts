// Importing PyTorch state dicts (saved with `safetensors.torch.save_file`): torch names are mapped to neura
// names, weights stored transposed relative to torch (neura's Linear keeps W as [in, out], torch as
// [out, in]) are transposed, and the result is checked against the shapes the model expects. Must not guess a
// transpose from shapes alone (a square matrix would silently load wrong): the caller names them.
// Invariant: every expected tensor is found and every torch tensor is used or explicitly ignored, or it throws.
// Tied weights (one torch tensor under two names, e.g. nanoGPT's wte/lm_head) are one tensor here; a file may
// hold either name or both (`safetensors.torch.save_model` keeps one name per shared storage).

import { fmtShape, numel, type Shape, type TensorValue } from '@neura/ir';
import { Linear } from '../layers/linear.js';
import { Module } from '../module.js';

/** The shape and dtype a model expects for one param or buffer. */
export interface ExpectedTensor {
  /** The expected extents. */
  readonly shape: Shape;
  /** The expected element type (default `f32`). */
  readonly dtype?: TensorValue['dtype'];
}

/** How torch names and layouts map to the model's. */
export interface TorchImportOptions {
  /** torch name → neura name (`null` skips the tensor); a table or a function. Default: the same name. */
  readonly rename?: Readonly<Record<string, string | null>> | ((torchName: string) => string | null | undefined);
  /** neura names stored as the transpose of torch's 2-D layout (default for a Module: every Linear's weight). */
  readonly transposed?: ReadonlySet<string> | ((name: string) => boolean);
  /** torch tensors that have no counterpart and are dropped on purpose (e.g. nanoGPT's `attn.bias` masks). */
  readonly ignore?: RegExp | ((torchName: string) => boolean);
  /**
   * Tied torch names: alias → canonical name (e.g. `'lm_head.weight'` → `'transformer.wte.weight'`). The file
   * may hold either or both (then they must be equal); the value is imported under the canonical name.
   */
  readonly tied?: Readonly<Record<string, string>>;
  /** Allow expected tensors to be absent (they keep their initial values). Default false: a missing tensor is an error. */
  readonly partial?: boolean;
}

/** A torch state dict that does not fit the model; lists every problem. */
export class TorchImportError extends Error {
  /** @param problems - every problem found (unknown, missing or wrongly shaped tensors), one line each. */
  constructor(readonly problems: readonly string[]) {
    super(`PyTorch state dict does not fit the model (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`);
    this.name = 'TorchImportError';
  }
}

/** The weight names of every Linear in a module tree (stored [in, out] here, [out, in] in torch). */
export function linearWeights(model: Module): Set<string> {
  return new Set(model.namedModules().flatMap(([name, m]) => (m instanceof Linear ? [name ? `${name}.weight` : 'weight'] : [])));
}

/**
 * Maps a PyTorch state dict onto the tensors a model expects (a Module, or names → shapes), transposing
 * where the layouts differ; the result feeds `loadStateDict` or a session's `initialState`.
 */
export function importTorchStateDict(
  torch: Readonly<Record<string, TensorValue>>,
  model: Readonly<Record<string, ExpectedTensor>> | Module,
  opts: TorchImportOptions = {},
): Record<string, TensorValue> {
  const expected: Readonly<Record<string, ExpectedTensor>> = model instanceof Module ? Object.fromEntries(model.stateDictSpec()) : model;
  const rename = opts.rename;
  const mapName = (n: string): string | null | undefined => (rename === undefined ? n : typeof rename === 'function' ? rename(n) : n in rename ? rename[n] : n);
  const tr = opts.transposed ?? (model instanceof Module ? linearWeights(model) : undefined);
  const isTransposed = (n: string) => (tr === undefined ? false : typeof tr === 'function' ? tr(n) : tr.has(n));
  const ignore = opts.ignore;
  const ignored = (n: string) => (ignore === undefined ? false : ignore instanceof RegExp ? ignore.test(n) : ignore(n));

  const out: Record<string, TensorValue> = {};
  const from: Record<string, string> = {};
  const problems: string[] = [];
  for (const [tname, v] of Object.entries(untie(torch, opts.tied ?? {}, problems))) {
    if (ignored(tname)) continue;
    const name = mapName(tname);
    if (name === null) continue;
    if (name === undefined || !(name in expected)) {
      problems.push(`torch '${tname}' ${fmtShape(v.shape)} has no counterpart in the model${name && name !== tname ? ` (mapped to '${name}')` : ''}`);
      continue;
    }
    const want = expected[name];
    const value = isTransposed(name) ? transpose2d(tname, v, problems) : v;
    if (!value) continue;
    if (fmtShape(value.shape) !== fmtShape(want.shape)) {
      problems.push(`torch '${tname}' ${fmtShape(v.shape)} → '${name}'${isTransposed(name) ? ' (transposed)' : ''} is ${fmtShape(value.shape)}, the model expects ${fmtShape(want.shape)}`);
      continue;
    }
    if (want.dtype && want.dtype !== value.dtype) {
      problems.push(`torch '${tname}' is ${value.dtype}, the model expects '${name}' as ${want.dtype}`);
      continue;
    }
    if (name in out) {
      if (!sameData(out[name], value)) problems.push(`torch '${tname}' and '${from[name]}' both map to '${name}' with different values`);
      continue;
    }
    out[name] = value;
    from[name] = tname;
  }
  if (!opts.partial) for (const name of Object.keys(expected)) if (!(name in out)) problems.push(`the model's '${name}' ${fmtShape(expected[name].shape)} is not in the state dict`);
  if (problems.length) throw new TorchImportError(problems);
  return out;
}

/** The torch dict with each tied alias folded into its canonical name (both present: must be equal). */
function untie(torch: Readonly<Record<string, TensorValue>>, tied: Readonly<Record<string, string>>, problems: string[]): Record<string, TensorValue> {
  const out = new Map(Object.entries(torch));
  for (const [alias, canonical] of Object.entries(tied)) {
    const a = out.get(alias);
    if (!a) continue;
    const c = out.get(canonical);
    if (c && !sameData(a, c)) problems.push(`tied torch '${canonical}' ${fmtShape(c.shape)} and '${alias}' ${fmtShape(a.shape)} differ (a tied pair must hold one tensor)`);
    if (!c) out.set(canonical, a);
    out.delete(alias);
  }
  return Object.fromEntries(out);
}

/** [a, b] → [b, a]. */
function transpose2d(tname: string, v: TensorValue, problems: string[]): TensorValue | undefined {
  if (v.shape.length !== 2) {
    problems.push(`torch '${tname}' ${fmtShape(v.shape)} is marked transposed but is not 2-D`);
    return undefined;
  }
  const [r, c] = v.shape;
  const data = v.data instanceof Float32Array ? new Float32Array(r * c) : v.data instanceof Float64Array ? new Float64Array(r * c) : new Int32Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) data[j * r + i] = v.data[i * c + j];
  return { shape: [c, r], dtype: v.dtype, data };
}

function sameData(a: TensorValue, b: TensorValue): boolean {
  if (fmtShape(a.shape) !== fmtShape(b.shape)) return false;
  const n = numel(a.shape);
  for (let i = 0; i < n; i++) if (a.data[i] !== b.data[i]) return false;
  return true;
}

/**
 * A neura state dict in PyTorch's layout, what `model.state_dict()` holds: weights named by `transposed` (default
 * every Linear's) back to [out, in], and each tied pair's canonical tensor also under its alias, as one tensor.
 * Names are otherwise kept (there is no reverse `rename`).
 */
export function exportTorchStateDict(
  values: Readonly<Record<string, TensorValue>>,
  model: Module,
  opts: Pick<TorchImportOptions, 'transposed' | 'tied'> = {},
): Record<string, TensorValue> {
  const tr = opts.transposed ?? linearWeights(model);
  const isTransposed = (n: string) => (typeof tr === 'function' ? tr(n) : tr.has(n));
  const problems: string[] = [];
  const out = new Map<string, TensorValue>();
  for (const [name, v] of Object.entries(values)) {
    const value = isTransposed(name) ? transpose2d(name, v, problems) : v;
    if (value) out.set(name, value);
  }
  for (const [alias, canonical] of Object.entries(opts.tied ?? {})) {
    const c = out.get(canonical);
    if (c) out.set(alias, c);
    else problems.push(`tied '${alias}': its canonical tensor '${canonical}' is not in the state dict`);
  }
  if (problems.length) throw new TorchImportError(problems);
  return Object.fromEntries(out);
}

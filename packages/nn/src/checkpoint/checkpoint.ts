// Training checkpoints as safetensors: every param and state tensor of a session (weights, optimizer moments,
// optimizer step counters, BatchNorm statistics) plus, in `__metadata__`, the training step, named RNG states
// and user strings. Bytes in / bytes out (browser-safe): `@neura/nn/node` writes them to disk atomically.
// Invariant: `restoreCheckpoint` validates every name, shape and dtype against the compiled graph before it
// writes anything, so a wrong checkpoint leaves the session untouched.

import { fmtShape, type Graph, initialValue, type TensorValue } from '@neura/ir';
import type { Session } from '@neura/runtime-webgpu';
import { GRAD_SCALER_STATE } from '../gradScaler.js';
import { decodeSafetensors, encodeSafetensors, SafetensorsError, setOwn } from './safetensors.js';

/** The format tag written in `__metadata__.format`. */
export const CHECKPOINT_FORMAT = 'neura-checkpoint/1';
const RESERVED = new Set(['format', 'step', 'rng']);
/** State a checkpoint may lack: restored to its initial value (the dynamic loss scaler's, added after format 1). */
const DEFAULTED: ReadonlySet<string> = new Set(Object.values(GRAD_SCALER_STATE));

/** What a checkpoint records besides tensors. */
export interface CheckpointInfo {
  /** Training steps done so far. */
  readonly step: number;
  /** Named RNG states (e.g. `{ data: rng.state }`), restored with `Rng.setState`. */
  readonly rng?: Readonly<Record<string, number>>;
  /** Free-form strings (model config, notes); names `format`, `step` and `rng` are reserved. */
  readonly extra?: Readonly<Record<string, string>>;
}

/** A decoded checkpoint. */
export interface Checkpoint extends CheckpointInfo {
  /** Every param and state tensor by name. */
  readonly tensors: Record<string, TensorValue>;
  readonly rng: Readonly<Record<string, number>>;
  readonly extra: Readonly<Record<string, string>>;
}

/** A compiled session with its graph (a TrainingSession or an InferenceSession). */
export interface CheckpointTarget {
  /** The compiled session whose params and state are saved or overwritten. */
  readonly session: Session;
  /** The session's compiled graph (declares the names, shapes and dtypes checked). */
  readonly graph: Graph;
}

/** Encodes tensors and training info as checkpoint bytes. */
export function encodeCheckpoint(tensors: Readonly<Record<string, TensorValue>>, info: CheckpointInfo): Uint8Array {
  if (!Number.isSafeInteger(info.step) || info.step < 0) throw new RangeError(`checkpoint: step must be a non-negative integer, got ${info.step}`);
  const metadata: Record<string, string> = { format: CHECKPOINT_FORMAT, step: String(info.step), rng: JSON.stringify(info.rng ?? {}) };
  for (const [k, v] of Object.entries(info.extra ?? {})) {
    if (RESERVED.has(k)) throw new RangeError(`checkpoint: extra key '${k}' is reserved`);
    setOwn(metadata, k, v);
  }
  return encodeSafetensors(tensors, metadata);
}

/** Reads a session's params and state (one submission) and encodes them with `info`. */
export async function saveCheckpoint(target: CheckpointTarget | Session, info: CheckpointInfo): Promise<Uint8Array> {
  const session = 'session' in target ? target.session : target;
  return encodeCheckpoint(await session.readState(), info);
}

/** Decodes checkpoint bytes (an ArrayBuffer from a browser `fetch`/OPFS, or a Node Buffer). */
export function readCheckpoint(bytes: Uint8Array | ArrayBuffer): Checkpoint {
  const file = decodeSafetensors(bytes);
  const m = file.metadata;
  if (m.format !== CHECKPOINT_FORMAT)
    throw new SafetensorsError(`not a neura checkpoint: __metadata__.format is ${JSON.stringify(m.format)}, expected '${CHECKPOINT_FORMAT}' (use decodeSafetensors for plain weights)`);
  const step = Number(m.step);
  if (!Number.isSafeInteger(step) || step < 0) throw new SafetensorsError(`checkpoint: __metadata__.step is ${JSON.stringify(m.step)}, not a step count`);
  let rng: Record<string, number>;
  try {
    rng = JSON.parse(m.rng ?? '{}');
  } catch {
    throw new SafetensorsError(`checkpoint: __metadata__.rng is not JSON: ${JSON.stringify(m.rng)}`);
  }
  if (!rng || typeof rng !== 'object' || Object.values(rng).some((v) => typeof v !== 'number'))
    throw new SafetensorsError(`checkpoint: __metadata__.rng must map names to numbers, got ${m.rng}`);
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (!RESERVED.has(k)) setOwn(extra, k, v);
  return { tensors: file.tensors, step, rng, extra };
}

/**
 * Writes a checkpoint's tensors into a compiled session. Every name, shape and dtype is checked first; with
 * `strict` (default) the checkpoint must hold exactly the session's params and state, otherwise missing ones
 * keep their values and unknown ones are an error only when `strict`. A missing loss-scaler state (`gradScaler.*`,
 * a checkpoint saved before it existed) is not an error: it is reset to its initial value.
 */
export async function restoreCheckpoint(target: CheckpointTarget, ckpt: Pick<Checkpoint, 'tensors'>, opts: { strict?: boolean } = {}): Promise<void> {
  const strict = opts.strict ?? true;
  const leaves = new Map([...target.graph.leaves('param'), ...target.graph.leaves('state')].map((n) => [n.attrs.name, n]));
  const live = new Set(target.session.stateNames);
  const problems: string[] = [];
  const writes: [string, TensorValue][] = [];
  for (const [name, v] of Object.entries(ckpt.tensors)) {
    const leaf = leaves.get(name);
    if (!leaf || !live.has(name)) {
      if (strict) problems.push(`'${name}' is not a param or state of the session`);
      continue;
    }
    if (leaf.dtype !== v.dtype || fmtShape(leaf.shape) !== fmtShape(v.shape))
      problems.push(`'${name}' is ${fmtShape(v.shape)} ${v.dtype} in the checkpoint, ${fmtShape(leaf.shape)} ${leaf.dtype} in the session`);
    else writes.push([name, v]);
  }
  for (const name of live) {
    if (Object.hasOwn(ckpt.tensors, name)) continue;
    // a checkpoint from before loss scaling (or from an unscaled run): the scaler starts afresh
    const leaf = leaves.get(name);
    if (DEFAULTED.has(name) && leaf?.op === 'state') writes.push([name, initialValue(leaf.attrs.init, leaf.shape, leaf.dtype, name)]);
    else if (strict) problems.push(`'${name}' is missing from the checkpoint`);
  }
  if (problems.length) throw new CheckpointMismatchError(problems);
  await Promise.all(writes.map(([name, v]) => target.session.writeState(name, v)));
}

/** A checkpoint that does not fit the session it is restored into; lists every mismatch. */
export class CheckpointMismatchError extends Error {
  /** @param problems - every mismatch found (unknown, missing or wrongly shaped tensors), one line each. */
  constructor(readonly problems: readonly string[]) {
    super(`checkpoint does not match the session (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ''}`);
    this.name = 'CheckpointMismatchError';
  }
}

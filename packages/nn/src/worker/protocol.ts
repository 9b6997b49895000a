// The message protocol between a page and a training Worker: plain structured-clonable objects tagged with
// `neura: WORKER_PROTOCOL`, so the helpers ignore a worker's other messages. No functions, no class instances:
// errors travel as { name, message, stack }, checkpoints as ArrayBuffers (transferred, not copied).

/** The protocol tag every message carries; a different tag is another version (or not ours). */
export const WORKER_PROTOCOL = 'neura-worker/1';

/** Page → worker: start training with `config` (and a checkpoint to resume from), stop, save now, or a request. */
export type ToWorker =
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'start'; readonly config: unknown; readonly resume?: ArrayBuffer }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'stop' }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'checkpoint'; readonly id: number }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'request'; readonly id: number; readonly data: unknown };

/** An error as it travels between threads (class instances do not survive a structured clone as themselves). */
export interface ErrorData {
  /** The error's class name (`RangeError`, `WorkerProtocolError`, …). */
  readonly name: string;
  /** The error's message. */
  readonly message: string;
  /** The stack in the thread that threw, when there was one. */
  readonly stack?: string;
}

/** Worker → page: what the run reports, from `ready` (the helper listens) to `done` or `error`. */
export type FromWorker =
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'ready' }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'progress'; readonly phase: string; readonly message: string; readonly fraction?: number }
  | {
      readonly neura: typeof WORKER_PROTOCOL;
      readonly kind: 'step';
      readonly step: number;
      readonly totalSteps: number;
      readonly epoch: number;
      readonly loss?: number;
      readonly lr?: number;
    }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'metrics'; readonly step: number; readonly metrics: Readonly<Record<string, number>> }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'checkpoint'; readonly step: number; readonly bytes: ArrayBuffer; readonly id?: number }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'message'; readonly data: unknown }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'sample'; readonly step: number; readonly text: string }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'partial'; readonly id: number; readonly data: unknown }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'reply'; readonly id: number; readonly data?: unknown; readonly error?: ErrorData }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'done'; readonly result: unknown; readonly stopped: boolean }
  | { readonly neura: typeof WORKER_PROTOCOL; readonly kind: 'error'; readonly name: string; readonly message: string; readonly stack?: string; readonly id?: number };

/** A message of either direction. */
export type WorkerMessage = ToWorker | FromWorker;

/** The kinds of each direction, for exhaustive checks. */
export const TO_WORKER_KINDS = ['start', 'stop', 'checkpoint', 'request'] as const satisfies readonly ToWorker['kind'][];
/** Worker → page message kinds. */
export const FROM_WORKER_KINDS = ['ready', 'progress', 'step', 'metrics', 'checkpoint', 'message', 'sample', 'partial', 'reply', 'done', 'error'] as const satisfies readonly FromWorker['kind'][];

/** A message that claims the protocol tag but is malformed; names the field that is wrong. */
export class WorkerProtocolError extends Error {
  constructor(message: string) {
    super(`neura worker protocol: ${message}`);
    this.name = 'WorkerProtocolError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const num = (m: Record<string, unknown>, k: string, optional = false) => {
  if (optional && m[k] === undefined) return;
  if (typeof m[k] !== 'number') throw new WorkerProtocolError(`'${m.kind}' message: ${k} must be a number, got ${typeof m[k]}`);
};
const str = (m: Record<string, unknown>, k: string) => {
  if (typeof m[k] !== 'string') throw new WorkerProtocolError(`'${m.kind}' message: ${k} must be a string, got ${typeof m[k]}`);
};
const buf = (m: Record<string, unknown>, k: string, optional = false) => {
  if (optional && m[k] === undefined) return;
  if (!(m[k] instanceof ArrayBuffer)) throw new WorkerProtocolError(`'${m.kind}' message: ${k} must be an ArrayBuffer`);
};

/** Whether `data` carries this protocol's tag (other messages on the same worker are left alone). */
export function isNeuraMessage(data: unknown): data is { neura: string; kind: unknown } {
  return isRecord(data) && data.neura === WORKER_PROTOCOL;
}

/** Checks a tagged message from the page; throws a WorkerProtocolError naming what is wrong. */
export function checkToWorker(data: unknown): ToWorker {
  if (!isNeuraMessage(data)) throw new WorkerProtocolError(`not a '${WORKER_PROTOCOL}' message`);
  const m = data as Record<string, unknown>;
  switch (m.kind) {
    case 'start':
      buf(m, 'resume', true);
      break;
    case 'stop':
      break;
    case 'checkpoint':
      num(m, 'id');
      break;
    case 'request':
      num(m, 'id');
      break;
    default:
      throw new WorkerProtocolError(`unknown page → worker message kind ${JSON.stringify(m.kind)} (${TO_WORKER_KINDS.join(', ')})`);
  }
  return data as ToWorker;
}

/** Checks a tagged message from the worker; throws a WorkerProtocolError naming what is wrong. */
export function checkFromWorker(data: unknown): FromWorker {
  if (!isNeuraMessage(data)) throw new WorkerProtocolError(`not a '${WORKER_PROTOCOL}' message`);
  const m = data as Record<string, unknown>;
  const kind = m.kind as FromWorker['kind'];
  switch (kind) {
    case 'ready':
    case 'message':
      break;
    case 'progress':
      str(m, 'phase');
      str(m, 'message');
      num(m, 'fraction', true);
      break;
    case 'step':
      for (const k of ['step', 'totalSteps', 'epoch']) num(m, k);
      num(m, 'loss', true);
      num(m, 'lr', true);
      break;
    case 'metrics':
      num(m, 'step');
      if (!isRecord(m.metrics) || Object.values(m.metrics).some((v) => typeof v !== 'number')) throw new WorkerProtocolError(`'metrics' message: metrics must map names to numbers`);
      break;
    case 'checkpoint':
      num(m, 'step');
      buf(m, 'bytes');
      num(m, 'id', true);
      break;
    case 'sample':
      num(m, 'step');
      str(m, 'text');
      break;
    case 'partial':
      num(m, 'id');
      break;
    case 'reply':
      num(m, 'id');
      if (m.error !== undefined && !(isRecord(m.error) && typeof m.error.name === 'string' && typeof m.error.message === 'string'))
        throw new WorkerProtocolError(`'reply' message: error must be { name, message } strings`);
      break;
    case 'done':
      if (typeof m.stopped !== 'boolean') throw new WorkerProtocolError(`'done' message: stopped must be a boolean`);
      break;
    case 'error':
      str(m, 'name');
      str(m, 'message');
      num(m, 'id', true); // set: only checkpoint request `id` failed, the run goes on
      break;
    default:
      kind satisfies never;
      throw new WorkerProtocolError(`unknown worker → page message kind ${JSON.stringify(m.kind)} (${FROM_WORKER_KINDS.join(', ')})`);
  }
  return data as FromWorker;
}

/** An error (or any thrown value) as `ErrorData`, to post. */
export function errorData(e: unknown): ErrorData {
  const err = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, ...(err.stack === undefined ? {} : { stack: err.stack }) };
}

/** `bytes` as a transferable ArrayBuffer of exactly its length (a view of part of a buffer is copied). */
export function ownBuffer(bytes: Uint8Array | ArrayBuffer): ArrayBuffer {
  if (bytes instanceof ArrayBuffer) return bytes;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}

/** The endpoint both sides talk through: a Worker, a worker's global scope, or a MessagePort. */
export interface MessageEndpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  /** A MessagePort's start (ports queue messages until started). */
  start?(): void;
}

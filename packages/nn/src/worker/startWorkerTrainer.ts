// The worker side of training in a Web Worker: the user's worker entry builds and compiles the model (functions
// cannot be posted, so the model lives in user code) inside `startWorkerTrainer(train)`, which answers the page's
// `start` / `stop` / `checkpoint` messages and streams steps, metrics, text samples and checkpoints back. One run per
// worker; requests (`ctx.onRequest`, e.g. generating text) are answered during the run and after it, the model kept.

import type { Callback, StepInfo } from '../trainer.js';
import { checkToWorker, errorData, type FromWorker, isNeuraMessage, type MessageEndpoint, ownBuffer, WORKER_PROTOCOL } from './protocol.js';

/** What the user's `train` function gets inside the worker. */
export interface WorkerContext<Config> {
  /** The page's config (structured-cloned). */
  readonly config: Config;
  /** Checkpoint bytes the page sent to resume from (decode with `readCheckpoint`). */
  readonly resume?: Uint8Array;
  /** Aborted when the page calls `stop()`; the Trainer stops through `callback`. */
  readonly signal: AbortSignal;
  /** Reports a phase of the run (loading, compiling, training, evaluating). */
  progress(phase: string, message: string, fraction?: number): void;
  /** Reports a training step (the Trainer's `callback` does this for you). */
  step(info: StepInfo): void;
  /** Reports metrics at a step (validation, accuracy, …). */
  metrics(step: number, metrics: Readonly<Record<string, number>>): void;
  /** Reports a text sample at a step (a language model's generation while it trains). */
  sample(step: number, text: string): void;
  /** Sends checkpoint bytes to the page; their buffer is transferred (the view is emptied) unless it is shared. */
  checkpoint(bytes: Uint8Array, step: number): void;
  /** Sends any structured-clonable value to the page (a 'message' event), transferring `transfer`. */
  post(data: unknown, transfer?: Transferable[]): void;
  /** Answers the page's `checkpoint()` requests: return the current checkpoint bytes and step. */
  onCheckpointRequest(save: () => Promise<{ bytes: Uint8Array; step: number }>): void;
  /**
   * Answers the page's `requestWorker(worker, data)` calls, during the run and after `train` returned (the model stays
   * in the worker): `handle` returns the reply (structured-cloned) and may stream chunks first with `partial`.
   * A throw rejects that request only. A later call replaces the handler.
   */
  onRequest<Req = unknown, Res = unknown>(handle: (data: Req, partial: (chunk: unknown, transfer?: Transferable[]) => void) => Promise<Res> | Res): void;
  /** A Trainer callback: streams each step and evaluation to the page, and returns 'stop' once stopped. */
  readonly callback: Callback;
}

/**
 * Serves training requests on `scope` (default: the worker's global scope). `train` runs once per `start`; what it
 * returns (structured-clonable) is the page's result. A throw reaches the page as a WorkerTrainingError.
 * Posts `ready` at once, so the page knows the worker script loaded.
 */
export function startWorkerTrainer<Config, Result>(train: (ctx: WorkerContext<Config>) => Promise<Result>, scope: MessageEndpoint = globalThis as unknown as MessageEndpoint): () => void {
  const send = (m: FromWorker, transfer: Transferable[] = []) => scope.postMessage(m, transfer);
  let abort: AbortController | undefined;
  let saver: (() => Promise<{ bytes: Uint8Array; step: number }>) | undefined;
  let handler: ((data: unknown, partial: (chunk: unknown, transfer?: Transferable[]) => void) => unknown) | undefined;
  let running = false;
  const fail = (e: unknown, id?: number) => send({ neura: WORKER_PROTOCOL, kind: 'error', ...errorData(e), ...(id === undefined ? {} : { id }) });
  const answer = async (id: number, data: unknown) => {
    try {
      if (!handler) throw new Error("startWorkerTrainer: the page sent a request, but the worker's train function never called ctx.onRequest");
      const partial = (chunk: unknown, transfer: Transferable[] = []) => send({ neura: WORKER_PROTOCOL, kind: 'partial', id, data: chunk }, transfer);
      send({ neura: WORKER_PROTOCOL, kind: 'reply', id, data: await handler(data, partial) });
    } catch (e) {
      send({ neura: WORKER_PROTOCOL, kind: 'reply', id, error: errorData(e) });
    }
  };

  const run = async (config: unknown, resume: ArrayBuffer | undefined) => {
    abort = new AbortController();
    const signal = abort.signal;
    saver = undefined;
    const ctx: WorkerContext<unknown> = {
      config,
      resume: resume ? new Uint8Array(resume) : undefined,
      signal,
      progress: (phase, message, fraction) => send({ neura: WORKER_PROTOCOL, kind: 'progress', phase, message, ...(fraction === undefined ? {} : { fraction }) }),
      step: (i) => send({ neura: WORKER_PROTOCOL, kind: 'step', step: i.step, totalSteps: i.totalSteps, epoch: i.epoch, ...(i.loss === undefined ? {} : { loss: i.loss }), ...(i.lr === undefined ? {} : { lr: i.lr }) }),
      metrics: (step, metrics) => send({ neura: WORKER_PROTOCOL, kind: 'metrics', step, metrics: { ...metrics } }),
      sample: (step, text) => send({ neura: WORKER_PROTOCOL, kind: 'sample', step, text }),
      checkpoint: (bytes, step) => {
        const b = ownBuffer(bytes);
        send({ neura: WORKER_PROTOCOL, kind: 'checkpoint', step, bytes: b }, [b]);
      },
      post: (data, transfer) => send({ neura: WORKER_PROTOCOL, kind: 'message', data }, transfer),
      onCheckpointRequest: (save) => {
        saver = save;
      },
      onRequest: (handle) => {
        handler = handle as typeof handler;
      },
      callback: {
        onStepEnd: (i) => {
          ctx.step(i);
          return signal.aborted ? 'stop' : undefined;
        },
        onEvaluate: (i) => {
          ctx.metrics(i.step, i.metrics);
          return signal.aborted ? 'stop' : undefined;
        },
      },
    };
    running = true;
    try {
      const result = await train(ctx as WorkerContext<Config>);
      send({ neura: WORKER_PROTOCOL, kind: 'done', result, stopped: signal.aborted });
    } catch (e) {
      fail(e);
    } finally {
      running = false;
    }
  };

  const onMessage = (e: MessageEvent) => {
    if (!isNeuraMessage(e.data)) return; // the user's own messages on the same worker
    let m: ReturnType<typeof checkToWorker>;
    try {
      m = checkToWorker(e.data);
    } catch (err) {
      fail(err);
      return;
    }
    if (m.kind === 'start') {
      if (running) fail(new Error('startWorkerTrainer: a run is already in progress in this worker (one run per worker at a time)'));
      else void run(m.config, m.resume);
    } else if (m.kind === 'stop') abort?.abort();
    else if (m.kind === 'request') void answer(m.id, m.data);
    else {
      const id = m.id;
      if (!saver) {
        fail(new Error("startWorkerTrainer: the page asked for a checkpoint, but the worker's train function never called ctx.onCheckpointRequest"), id);
        return;
      }
      saver().then(({ bytes, step }) => {
        const b = ownBuffer(bytes);
        send({ neura: WORKER_PROTOCOL, kind: 'checkpoint', step, bytes: b, id }, [b]);
      }, (err) => fail(err, id));
    }
  };
  scope.addEventListener('message', onMessage);
  scope.start?.();
  send({ neura: WORKER_PROTOCOL, kind: 'ready' });
  return () => scope.removeEventListener('message', onMessage);
}

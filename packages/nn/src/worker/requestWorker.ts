// The page side of a request to a training worker (`ctx.onRequest` in the worker): send data, receive the streamed
// chunks and the reply. Independent of `trainInWorker`'s run, so it works while training and after the run ended,
// e.g. to generate text with the model the worker trained.

import { WorkerTrainingError } from './trainInWorker.js';
import { checkFromWorker, isNeuraMessage, type MessageEndpoint, WORKER_PROTOCOL } from './protocol.js';

/** Options of `requestWorker`. */
export interface RequestWorkerOptions {
  /** Called with each chunk the worker's handler streams (its `partial`), in order, before the reply. */
  onPartial?: (chunk: unknown) => void;
  /** Buffers to transfer with the request instead of copying them. */
  transfer?: Transferable[];
}

let nextId = 1;

/**
 * Sends `data` to the handler the worker registered with `ctx.onRequest` and resolves with its reply. Rejects with a
 * WorkerTrainingError when the handler throws (or none is registered) or the worker fails.
 */
export function requestWorker<Res = unknown>(worker: MessageEndpoint, data: unknown, opts: RequestWorkerOptions = {}): Promise<Res> {
  const id = nextId++;
  return new Promise<Res>((resolve, reject) => {
    const errorTarget = worker as MessageEndpoint & { addEventListener?(type: 'error', l: (e: Event) => void): void; removeEventListener?(type: 'error', l: (e: Event) => void): void };
    const done = () => {
      worker.removeEventListener('message', onMessage);
      errorTarget.removeEventListener?.('error', onError);
    };
    const onMessage = (e: MessageEvent) => {
      if (!isNeuraMessage(e.data) || (e.data as { id?: unknown }).id !== id) return;
      try {
        const m = checkFromWorker(e.data);
        if (m.kind === 'partial') opts.onPartial?.(m.data);
        else if (m.kind === 'reply') {
          done();
          if (m.error) reject(new WorkerTrainingError(m.error.name, m.error.message, m.error.stack));
          else resolve(m.data as Res);
        }
      } catch (err) {
        done();
        reject(err);
      }
    };
    const onError = (e: Event) => {
      done();
      reject(new WorkerTrainingError('Error', (e as ErrorEvent).message || 'the worker failed while answering a request'));
    };
    worker.addEventListener('message', onMessage);
    errorTarget.addEventListener?.('error', onError);
    worker.start?.();
    worker.postMessage({ neura: WORKER_PROTOCOL, kind: 'request', id, data }, opts.transfer ?? []);
  });
}

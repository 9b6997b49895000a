// The page side of training in a Web Worker: `trainInWorker(worker, config)` starts a run in a worker whose entry
// called `startWorkerTrainer`, and returns a handle with typed events (a listener or an async iterator), `stop()`,
// an on-demand `checkpoint()` (bytes transferred, not copied) and the run's result. Never blocks the page.

import { checkFromWorker, type FromWorker, isNeuraMessage, type MessageEndpoint, ownBuffer, WORKER_PROTOCOL } from './protocol.js';

/** An event of a run: every worker → page message except the bookkeeping `ready`, `done` and `error` and the answers to requests (`requestWorker`). */
export type WorkerEvent = Exclude<FromWorker, { kind: 'ready' | 'done' | 'error' | 'partial' | 'reply' }>;

/** The training function in the worker threw (or the worker script failed); `name` is the original error's name. */
export class WorkerTrainingError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
    readonly workerStack?: string,
  ) {
    super(`training worker failed: ${errorName}: ${message}`);
    this.name = 'WorkerTrainingError';
  }
}

/** A run started by `trainInWorker`. */
export interface WorkerRun<Result> extends AsyncIterable<WorkerEvent> {
  /** The worker's result; rejects with a WorkerTrainingError. */
  readonly result: Promise<{ result: Result; stopped: boolean }>;
  /** Asks the worker to stop after its current step (`result` then resolves with `stopped: true`). */
  stop(): void;
  /** Asks the worker for a checkpoint of its current state (its `ctx.onCheckpointRequest`). */
  checkpoint(): Promise<{ bytes: Uint8Array; step: number }>;
  /** Stops listening to the worker (does not terminate it). */
  dispose(): void;
}

/** Options of `trainInWorker`. */
export interface TrainInWorkerOptions {
  /** Checkpoint bytes the worker resumes from (`ctx.resume`); the buffer is transferred. */
  resume?: Uint8Array | ArrayBuffer;
  /** Called with every event as it arrives. */
  onEvent?: (e: WorkerEvent) => void;
}

/** A Worker (or MessagePort) whose script serves `startWorkerTrainer`; `error` events reject the run. */
export type TrainerEndpoint = MessageEndpoint & { addEventListener(type: 'error', listener: (e: Event) => void): void; removeEventListener(type: 'error', listener: (e: Event) => void): void };

/** Starts training in `worker` with `config` (structured-cloned to the worker's `ctx.config`). */
export function trainInWorker<Config, Result>(worker: MessageEndpoint, config: Config, opts: TrainInWorkerOptions = {}): WorkerRun<Result> {
  const queue: WorkerEvent[] = [];
  const waiters: ((r: IteratorResult<WorkerEvent>) => void)[] = [];
  const pending = new Map<number, { resolve: (c: { bytes: Uint8Array; step: number }) => void; reject: (e: Error) => void }>();
  let ended = false;
  let iterating = false;
  let nextId = 1;
  let settle!: { resolve: (r: { result: Result; stopped: boolean }) => void; reject: (e: Error) => void };
  const result = new Promise<{ result: Result; stopped: boolean }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  result.catch(() => {}); // a caller that only iterates still sees the failure: the iterator throws it

  const end = () => {
    ended = true;
    dispose();
    for (const w of waiters.splice(0)) w({ value: undefined, done: true });
    for (const p of pending.values()) p.reject(new Error('trainInWorker: the run ended before the checkpoint arrived'));
    pending.clear();
  };
  const onMessage = (e: MessageEvent) => {
    if (!isNeuraMessage(e.data)) return;
    let m: FromWorker;
    try {
      m = checkFromWorker(e.data);
    } catch (err) {
      settle.reject(err as Error);
      end();
      return;
    }
    if (m.kind === 'ready' || m.kind === 'partial' || m.kind === 'reply') return; // requestWorker's
    if (m.kind === 'done') {
      settle.resolve({ result: m.result as Result, stopped: m.stopped });
      end();
      return;
    }
    if (m.kind === 'error') {
      const err = new WorkerTrainingError(m.name, m.message, m.stack);
      const req = m.id === undefined ? undefined : pending.get(m.id);
      if (req && m.id !== undefined) {
        pending.delete(m.id);
        req.reject(err);
        return;
      }
      settle.reject(err);
      end();
      return;
    }
    if (m.kind === 'checkpoint' && m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)?.resolve({ bytes: new Uint8Array(m.bytes), step: m.step });
      pending.delete(m.id);
      return;
    }
    opts.onEvent?.(m);
    if (!iterating) return;
    const w = waiters.shift();
    if (w) w({ value: m, done: false });
    else queue.push(m);
  };
  const onError = (e: Event) => {
    const msg = (e as ErrorEvent).message || 'the worker script failed to load or threw outside startWorkerTrainer';
    settle.reject(new WorkerTrainingError('Error', msg));
    end();
  };
  const errorTarget = worker as Partial<TrainerEndpoint>;
  const dispose = () => {
    worker.removeEventListener('message', onMessage);
    errorTarget.removeEventListener?.('error', onError);
  };
  worker.addEventListener('message', onMessage);
  errorTarget.addEventListener?.('error', onError);
  worker.start?.();
  const resume = opts.resume === undefined ? undefined : ownBuffer(opts.resume);
  worker.postMessage({ neura: WORKER_PROTOCOL, kind: 'start', config, ...(resume ? { resume } : {}) }, resume ? [resume] : []);

  return {
    result,
    stop: () => worker.postMessage({ neura: WORKER_PROTOCOL, kind: 'stop' }),
    checkpoint: () =>
      new Promise((resolve, reject) => {
        if (ended) return reject(new Error('trainInWorker: the run has ended; save a checkpoint from its result instead'));
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ neura: WORKER_PROTOCOL, kind: 'checkpoint', id });
      }),
    dispose: end,
    [Symbol.asyncIterator]() {
      // events are buffered from the first iteration on: start iterating right after trainInWorker returns
      iterating = true;
      return {
        next: () => {
          const v = queue.shift();
          if (v) return Promise.resolve({ value: v, done: false });
          if (ended) return result.then(() => ({ value: undefined, done: true }) as IteratorResult<WorkerEvent>);
          return new Promise<IteratorResult<WorkerEvent>>((r) => waiters.push(r)).then((r) => (r.done ? result.then(() => r) : r));
        },
      };
    },
  };
}

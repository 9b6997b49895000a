// The page ↔ worker training protocol (`@neura/nn/worker`): every message survives a structured clone and passes its
// check; malformed ones are named; and a real startWorkerTrainer / trainInWorker pair over a MessageChannel streams
// steps, stops, answers checkpoint requests with transferred bytes, and reports a worker's throw as a typed error;
// requests (requestWorker / ctx.onRequest) stream chunks and reply during the run and after it.
import { encodeCheckpoint, readCheckpoint } from '@neura/nn';
import {
  checkFromWorker,
  checkToWorker,
  FROM_WORKER_KINDS,
  type FromWorker,
  requestWorker,
  startWorkerTrainer,
  TO_WORKER_KINDS,
  type ToWorker,
  trainInWorker,
  WORKER_PROTOCOL,
  type WorkerEvent,
  WorkerProtocolError,
  WorkerTrainingError,
} from '@neura/nn/worker';
import { afterEach, describe, expect, it } from 'vitest';

const P = WORKER_PROTOCOL;
/** Promise.withResolvers (Node 22+), for Node 20. */
function deferred<T>() {
  let resolve!: (v: T | PromiseLike<T>) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
const toWorker: ToWorker[] = [
  { neura: P, kind: 'start', config: { model: 'mlp', steps: 3, nested: [1, 2] }, resume: new Uint8Array([1, 2, 3]).buffer },
  { neura: P, kind: 'stop' },
  { neura: P, kind: 'checkpoint', id: 7 },
  { neura: P, kind: 'request', id: 3, data: { prompt: 'Th', maxTokens: 4 } },
];
const fromWorker: FromWorker[] = [
  { neura: P, kind: 'ready' },
  { neura: P, kind: 'progress', phase: 'compile', message: 'compiling', fraction: 0.5 },
  { neura: P, kind: 'step', step: 3, totalSteps: 10, epoch: 0, loss: 2.25, lr: 1e-3 },
  { neura: P, kind: 'metrics', step: 3, metrics: { accuracy: 0.9 } },
  { neura: P, kind: 'checkpoint', step: 3, bytes: new Uint8Array([9, 8]).buffer, id: 2 },
  { neura: P, kind: 'message', data: { html: '<p>x</p>', logits: new Float32Array([1, 2]) } },
  { neura: P, kind: 'sample', step: 20, text: 'The sta' },
  { neura: P, kind: 'partial', id: 3, data: 'e' },
  { neura: P, kind: 'reply', id: 3, data: { text: 'The' } },
  { neura: P, kind: 'reply', id: 4, error: { name: 'RangeError', message: 'no such char' } },
  { neura: P, kind: 'done', result: { accuracy: 0.5 }, stopped: false },
  { neura: P, kind: 'error', name: 'RangeError', message: 'bad', stack: 'at x', id: 4 },
];

describe('the worker message protocol', () => {
  it('covers every message kind in the round-trip lists', () => {
    expect(toWorker.map((m) => m.kind).sort()).toEqual([...TO_WORKER_KINDS].sort());
    expect([...new Set(fromWorker.map((m) => m.kind))].sort()).toEqual([...FROM_WORKER_KINDS].sort());
  });

  it.each(toWorker)('page → worker $kind survives a structured clone and its check', (m) => {
    const copy = structuredClone(m);
    expect(checkToWorker(copy)).toEqual(m);
  });

  it.each(fromWorker)('worker → page $kind survives a structured clone and its check', (m) => {
    const copy = structuredClone(m);
    expect(checkFromWorker(copy)).toEqual(m);
  });

  it('names the malformed field or kind', () => {
    expect(() => checkFromWorker({ neura: P, kind: 'step', step: '3', totalSteps: 1, epoch: 0 })).toThrow(/'step' message: step must be a number/);
    expect(() => checkFromWorker({ neura: P, kind: 'checkpoint', step: 1, bytes: [1, 2] })).toThrow(/bytes must be an ArrayBuffer/);
    expect(() => checkFromWorker({ neura: P, kind: 'metrics', step: 1, metrics: { a: 'x' } })).toThrow(/metrics must map names to numbers/);
    expect(() => checkToWorker({ neura: P, kind: 'go' })).toThrow(WorkerProtocolError);
    expect(() => checkFromWorker({ neura: P, kind: 'sample', step: 1, text: 3 })).toThrow(/'sample' message: text must be a string/);
    expect(() => checkFromWorker({ neura: P, kind: 'reply', id: 1, error: 'bad' })).toThrow(/'reply' message: error must be/);
    expect(() => checkToWorker({ neura: P, kind: 'request', data: 1 })).toThrow(/'request' message: id must be a number/);
    expect(() => checkToWorker({ neura: 'neura-worker/0', kind: 'stop' })).toThrow(/not a 'neura-worker\/1' message/);
  });
});

describe('startWorkerTrainer and trainInWorker over a MessageChannel', () => {
  const channels: MessageChannel[] = [];
  const channel = () => {
    const c = new MessageChannel();
    channels.push(c);
    return c;
  };
  afterEach(() => {
    for (const c of channels.splice(0)) {
      c.port1.close();
      c.port2.close();
    }
  });

  const tensors = { w: { data: new Float32Array([1, 2, 3]), shape: [3], dtype: 'f32' as const } };

  it('streams steps and metrics, passes config and resume bytes, and resolves with the result', async () => {
    const { port1, port2 } = channel();
    startWorkerTrainer<{ steps: number }, { sum: number; resumedAt: number }>(async (ctx) => {
      const resumedAt = ctx.resume ? readCheckpoint(ctx.resume).step : -1;
      ctx.progress('train', 'training', 0);
      for (let s = 1; s <= ctx.config.steps; s++) ctx.step({ step: s, epoch: 0, totalSteps: ctx.config.steps, loss: 1 / s });
      ctx.metrics(ctx.config.steps, { accuracy: 0.75 });
      return { sum: ctx.config.steps * 2, resumedAt };
    }, port1);
    const resume = encodeCheckpoint(tensors, { step: 5 });
    const run = trainInWorker<{ steps: number }, { sum: number; resumedAt: number }>(port2, { steps: 3 }, { resume });
    const events: WorkerEvent[] = [];
    for await (const e of run) events.push(e);
    expect(await run.result).toEqual({ result: { sum: 6, resumedAt: 5 }, stopped: false });
    expect(events.map((e) => e.kind)).toEqual(['progress', 'step', 'step', 'step', 'metrics']);
    expect(events.filter((e) => e.kind === 'step').map((e) => e.loss)).toEqual([1, 0.5, 1 / 3]);
    expect(resume.byteLength).toBe(0); // the resume buffer was transferred, not copied
  });

  it('stops a Trainer through ctx.callback and answers checkpoint requests with transferred bytes', async () => {
    const { port1, port2 } = channel();
    startWorkerTrainer<null, number>(async (ctx) => {
      let step = 0;
      ctx.onCheckpointRequest(async () => ({ bytes: encodeCheckpoint(tensors, { step }), step }));
      // the Trainer's callback contract: 'stop' ends the loop; here a loop that honours it the same way
      for (step = 1; step < 10_000; step++) {
        if ((await ctx.callback.onStepEnd?.({ step, epoch: 0, totalSteps: 10_000 })) === 'stop') break;
        await new Promise((r) => setTimeout(r, 1));
      }
      return step;
    }, port1);
    const run = trainInWorker<null, number>(port2, null, {
      onEvent: (e) => {
        if (e.kind === 'step' && e.step === 3) void saved.resolve(run.checkpoint());
      },
    });
    const saved = deferred<{ bytes: Uint8Array; step: number }>();
    const ckpt = await saved.promise;
    expect(ckpt.step).toBeGreaterThanOrEqual(3);
    expect(readCheckpoint(ckpt.bytes).tensors.w.data).toEqual(new Float32Array([1, 2, 3]));
    run.stop();
    const r = await run.result;
    expect(r.stopped).toBe(true);
    expect(r.result).toBeLessThan(10_000);
  });

  it('rejects the run with a WorkerTrainingError naming the worker’s error', async () => {
    const { port1, port2 } = channel();
    startWorkerTrainer(async () => {
      throw new RangeError('batch 64 does not fit');
    }, port1);
    const run = trainInWorker(port2, {});
    await expect(run.result).rejects.toThrow(WorkerTrainingError);
    await expect(run.result).rejects.toThrow(/RangeError: batch 64 does not fit/);
  });

  it('rejects a checkpoint request the worker cannot answer, and the run goes on', async () => {
    const { port1, port2 } = channel();
    const release = deferred<void>();
    startWorkerTrainer(async () => {
      await release.promise;
      return 'ok';
    }, port1);
    const run = trainInWorker(port2, {});
    await expect(run.checkpoint()).rejects.toThrow(/never called ctx.onCheckpointRequest/);
    release.resolve();
    expect((await run.result).result).toBe('ok');
  });

  it('streams samples as events, and answers requests with chunks during the run and after it', async () => {
    const { port1, port2 } = channel();
    const release = deferred<void>();
    startWorkerTrainer<null, string>(async (ctx) => {
      let trained = 'ab';
      ctx.onRequest<{ prompt: string; n: number }, string>(({ prompt, n }, partial) => {
        if (n < 0) throw new RangeError(`n must be >= 0, got ${n}`);
        let out = prompt;
        for (let i = 0; i < n; i++) {
          const c = trained[i % trained.length];
          partial(c);
          out += c;
        }
        return out;
      });
      ctx.sample(1, 'ab');
      await release.promise;
      trained = 'xyz'; // the handler sees the model as it is when asked
      ctx.sample(2, trained);
      return 'trained';
    }, port1);
    const events: WorkerEvent[] = [];
    const run = trainInWorker<null, string>(port2, null, { onEvent: (e) => events.push(e) });
    const chunks: unknown[] = [];
    expect(await requestWorker<string>(port2, { prompt: '>', n: 3 }, { onPartial: (c) => chunks.push(c) })).toBe('>aba');
    expect(chunks).toEqual(['a', 'b', 'a']);
    await expect(requestWorker(port2, { prompt: '', n: -1 })).rejects.toThrow(/RangeError: n must be >= 0, got -1/);
    release.resolve();
    expect((await run.result).result).toBe('trained'); // a failed request left the run alone
    expect(events.filter((e) => e.kind === 'sample')).toEqual([
      { neura: P, kind: 'sample', step: 1, text: 'ab' },
      { neura: P, kind: 'sample', step: 2, text: 'xyz' },
    ]);
    expect(events.some((e) => (e.kind as string) === 'reply' || (e.kind as string) === 'partial')).toBe(false);
    expect(await requestWorker<string>(port2, { prompt: '', n: 4 })).toBe('xyzx'); // after the run: the model stays
  });

  it('rejects a request when the worker registered no handler', async () => {
    const { port1, port2 } = channel();
    startWorkerTrainer(async () => 'ok', port1);
    const run = trainInWorker(port2, {});
    await run.result;
    await expect(requestWorker(port2, 1)).rejects.toThrow(/never called ctx.onRequest/);
  });
});

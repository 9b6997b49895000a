// The page ↔ worker training protocol (`@neura/nn/worker`): every message survives a structured clone and passes its
// check; malformed ones are named; and a real startWorkerTrainer / trainInWorker pair over a MessageChannel streams
// steps, stops, answers checkpoint requests with transferred bytes, and reports a worker's throw as a typed error.
import { encodeCheckpoint, readCheckpoint } from '@neura/nn';
import {
  checkFromWorker,
  checkToWorker,
  FROM_WORKER_KINDS,
  type FromWorker,
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
];
const fromWorker: FromWorker[] = [
  { neura: P, kind: 'ready' },
  { neura: P, kind: 'progress', phase: 'compile', message: 'compiling', fraction: 0.5 },
  { neura: P, kind: 'step', step: 3, totalSteps: 10, epoch: 0, loss: 2.25, lr: 1e-3 },
  { neura: P, kind: 'metrics', step: 3, metrics: { accuracy: 0.9 } },
  { neura: P, kind: 'checkpoint', step: 3, bytes: new Uint8Array([9, 8]).buffer, id: 2 },
  { neura: P, kind: 'message', data: { html: '<p>x</p>', logits: new Float32Array([1, 2]) } },
  { neura: P, kind: 'done', result: { accuracy: 0.5 }, stopped: false },
  { neura: P, kind: 'error', name: 'RangeError', message: 'bad', stack: 'at x', id: 4 },
];

describe('the worker message protocol', () => {
  it('covers every message kind in the round-trip lists', () => {
    expect(toWorker.map((m) => m.kind).sort()).toEqual([...TO_WORKER_KINDS].sort());
    expect(fromWorker.map((m) => m.kind).sort()).toEqual([...FROM_WORKER_KINDS].sort());
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

});

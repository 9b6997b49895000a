// Issue 9 on the real runtime (software adapter): feeds are taken when step() is called, errors stay in the
// session (and the compile) that caused them, dispose() mid-step and duplicate reads are harmless, integer
// feeds are never truncated, devices do not leak, and a long reshape chain compiles.
import { Graph, tensor, type TensorValue } from '@neura/ir';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createDevice, GpuValidationError, InputError, type NeuraDevice } from '../src/index.js';
import { bits, interpretSteps, mlpFeeds, mlpTrainingGraph, SMALL_MLP } from './graphs.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

const [B, I, H, C] = SMALL_MLP;

function gc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('feeds are snapshotted when step() is called (item 1)', () => {
  it('filling the feed arrays after step() (before it runs) does not change what it trains on', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const feeds = [mlpFeeds(B, I, C, 1), mlpFeeds(B, I, C, 2), mlpFeeds(B, I, C, 3)];
    const want = interpretSteps(g, feeds).outputs.map((o) => o.loss.data[0]);
    // one pair of arrays reused for every step, like nn.batches(): refilled right after each call
    const x = new Float32Array(B * I);
    const labels = new Int32Array(B);
    const losses: Promise<unknown>[] = [];
    for (const f of feeds) {
      x.set(f.x.data);
      labels.set(f.labels.data);
      losses.push(session.step({ x, labels }, { read: ['loss'] }));
    }
    x.fill(0);
    labels.fill(0);
    const got = (await Promise.all(losses)).map((r) => (r as { outputs: { loss: TensorValue } }).outputs.loss.data[0]);
    expect(got).toBeAllclose(want, { rtol: 1e-4, atol: 1e-5 });
    session.dispose();
  });

  it('a step called on an idle queue takes its feeds at once: refilling the arrays right after each call changes nothing', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const feeds = [mlpFeeds(B, I, C, 1), mlpFeeds(B, I, C, 2), mlpFeeds(B, I, C, 3), mlpFeeds(B, I, C, 4)];
    const want = interpretSteps(g, feeds).outputs.map((o) => o.loss.data[0]);
    const x = new Float32Array(B * I);
    const labels = new Int32Array(B);
    const got: number[] = [];
    for (const [k, f] of feeds.entries()) {
      x.set(f.x.data);
      labels.set(f.labels.data);
      // awaited one by one (nothing queued when called), every other one reading its loss
      const step = session.step({ x, labels }, k % 2 ? { read: ['loss'] } : { fetch: ['loss'] });
      x.fill(0);
      labels.fill(0);
      const r = await step;
      got.push((k % 2 ? r.outputs.loss : (await r.fetched)?.loss)?.data[0] ?? Number.NaN);
    }
    expect(got).toBeAllclose(want, { rtol: 1e-4, atol: 1e-5 });
    session.dispose();
  });

  it('a bad feed is refused at call time, even when the step would run later', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const good = mlpFeeds(B, I, C, 1);
    const first = session.step(good);
    const labels = new Int32Array(B).fill(7);
    const bad = session.step({ ...good, labels }).catch((e: Error) => e);
    labels.fill(0); // fixing the array afterwards must not make the refused step run
    await first;
    expect(String(await bad)).toMatch(/label 7 at index 0 is outside \[0, 3\)/);
    session.dispose();
  });
});

describe('integer feeds are never truncated (item 5)', () => {
  it('i32 labels given as [NaN, 2.7, …] are an InputError and the params stay bit-identical', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const before = await session.readState();
    const good = mlpFeeds(B, I, C, 1);
    const labels = { shape: [B], dtype: 'i32' as const, data: new Float32Array([Number.NaN, 2.7, 0, 1]) };
    const err = await session.step({ ...good, labels }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/'input labels': value NaN at index 0 is not an integer/);
    await expect(session.step({ ...good, labels: { ...labels, data: new Float64Array([0, 2.7, 0, 1]) } })).rejects.toThrow(/value 2.7 at index 1/);
    const after = await session.readState();
    for (const k of Object.keys(before)) expect(bits(after[k]), k).toEqual(bits(before[k]));
    session.dispose();
  });
});

describe('errors stay where they happen (items 7, 8, 9)', () => {
  it('two concurrent compiles, one invalid, each get their own result', async () => {
    // the good compile starts first and finishes first; the bad one fails validation while the good one's
    // scopes are still open (an output larger than maxBufferSize), then waits for its many pipelines
    const good = new Graph();
    good.output('y', good.neg(good.input('x', [4])));
    const huge = Math.ceil(device.gpu.limits.maxBufferSize / 4) + 64;
    const { g: bad } = mlpTrainingGraph(B, I, H, C);
    bad.output('big', bad.input('big', [huge]));
    const [rg, rb] = await Promise.allSettled([compile(good, device), compile(bad, device)]);
    expect(rg.status).toBe('fulfilled');
    expect(rb.status).toBe('rejected');
    expect((rb as PromiseRejectedResult).reason).toBeInstanceOf(GpuValidationError);
    const session = (rg as PromiseFulfilledResult<Awaited<ReturnType<typeof compile>>>).value;
    const r = await session.step({ x: tensor([4], [1, 2, 3, 4]) }, { read: ['y'] });
    expect(Array.from(r.outputs.y.data)).toEqual([-1, -2, -3, -4]);
    session.dispose();
    // and nothing is left pending on the device for the next caller
    expect(() => device.check()).not.toThrow();
  });

  it('dispose() during a step: queued steps are refused, and the next compile is unaffected', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const done = await session.step(mlpFeeds(B, I, C, 1), { fetch: ['logits', 'loss'] }); // mappings in flight
    const running = session.step(mlpFeeds(B, I, C, 2), { read: ['loss'] });
    const queued = session.step(mlpFeeds(B, I, C, 2));
    await new Promise((r) => setTimeout(r, 0));
    const disposed = session.dispose();
    await expect(queued).rejects.toThrow(/disposed/);
    await Promise.allSettled([running, done.fetched]);
    await disposed;
    await device.gpu.queue.onSubmittedWorkDone();
    expect(() => device.check()).not.toThrow();
    const next = await compile(mlpTrainingGraph(B, I, H, C).g, device);
    await next.step(mlpFeeds(B, I, C, 3));
    next.dispose();
  });

  it("step(f, { read: ['loss', 'loss', 'loss'] }) reads the loss once and returns it", async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device, { readbackSlots: 1 });
    const r = await session.step(mlpFeeds(B, I, C, 1), { read: ['loss', 'loss', 'loss'], fetch: ['loss', 'logits', 'logits'] });
    expect(Object.keys(r.outputs)).toEqual(['loss']);
    const fetched = await r.fetched;
    expect(fetched?.loss.data[0]).toBe(r.outputs.loss.data[0]);
    expect(fetched?.logits.shape).toEqual([B, C]);
    const s = await session.read('loss');
    expect(Number.isFinite(s.data[0])).toBe(true);
    session.dispose();
  });
});

describe('devices do not leak (item 10)', () => {
  it('destroyed devices are garbage-collected (their uncapturederror listener is removed)', async () => {
    const collect = gc();
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 6; i++) {
      const d = await createDevice();
      refs.push(new WeakRef(d.gpu));
      d.destroy();
    }
    for (let i = 0; i < 40 && refs.some((r) => r.deref()); i++) {
      collect();
      await new Promise((r) => setTimeout(r, 20));
    }
    // measured: before the fix all 6 stay alive (~2.6 MiB RSS each, for good); after it at most the first and
    // the last are still referenced somewhere in V8 when the loop ends — the count no longer grows with cycles
    expect(refs.filter((r) => r.deref()).length).toBeLessThanOrEqual(2);
  });
});

describe('deep graphs (item 12)', () => {
  it('a 20,000-node reshape chain compiles and runs', async () => {
    const g = new Graph();
    let y = g.input('x', [2, 3]);
    for (let i = 0; i < 20_000; i++) y = g.reshape(y, i % 2 ? [2, 3] : [3, 2]);
    g.output('y', g.neg(y));
    const session = await compile(g, device);
    const r = await session.step({ x: tensor([2, 3], [1, 2, 3, 4, 5, 6]) }, { read: ['y'] });
    expect(Array.from(r.outputs.y.data)).toEqual([-1, -2, -3, -4, -5, -6]);
    session.dispose();
  });
});

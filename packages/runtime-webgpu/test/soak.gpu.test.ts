// Reliability suite, GPU part (issue 9, "keep it that way"): many steps and compile/dispose cycles keep the
// number of live GPU objects flat (steps create none; dispose frees every buffer a compile made), bad feeds of
// every kind leave the state bit-identical, a lost device fails every later call with a DeviceLostError, and
// the same step on the same adapter is bit-for-bit deterministic. The long soak with RSS is `pnpm soak` (apps/bench).
import { tensor, type TensorValue } from '@neura/ir';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createDevice, DeviceLostError, type FeedValue, InputError, type NeuraDevice } from '../src/index.js';
import { bits, mlpFeeds, mlpTrainingGraph, SMALL_MLP } from './graphs.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

const [B, I, H, C] = SMALL_MLP;

/** Live-object counts of a device: GPU objects created through it, and buffers not yet destroyed. */
interface Counts {
  buffers: number;
  liveBuffers: number;
  bindGroups: number;
  pipelines: number;
  shaderModules: number;
}

/**
 * The same device, with its `GPUDevice` seen through a proxy that counts what is created (and which buffers are
 * destroyed). Only counting: every call goes to the real device.
 */
function counted(d: NeuraDevice): { device: NeuraDevice; counts: Counts } {
  const counts: Counts = { buffers: 0, liveBuffers: 0, bindGroups: 0, pipelines: 0, shaderModules: 0 };
  const real = d.gpu;
  const wrap: Partial<Record<keyof GPUDevice, (...a: never[]) => unknown>> = {
    createBuffer: (desc: GPUBufferDescriptor) => {
      const b = real.createBuffer(desc);
      counts.buffers++;
      counts.liveBuffers++;
      const destroy = b.destroy.bind(b);
      let done = false;
      b.destroy = () => {
        if (!done) counts.liveBuffers--;
        done = true;
        destroy();
      };
      return b;
    },
    createBindGroup: (desc: GPUBindGroupDescriptor) => (counts.bindGroups++, real.createBindGroup(desc)),
    createComputePipelineAsync: (desc: GPUComputePipelineDescriptor) => (counts.pipelines++, real.createComputePipelineAsync(desc)),
    createShaderModule: (desc: GPUShaderModuleDescriptor) => (counts.shaderModules++, real.createShaderModule(desc)),
  };
  const gpu = new Proxy(real, {
    get(target, key) {
      const w = wrap[key as keyof GPUDevice];
      if (w) return w;
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { device: { ...d, gpu, check: () => d.check(), destroy: () => d.destroy() }, counts };
}

describe('soak: GPU object counts stay flat', () => {
  it('2,000 training steps create no GPU object; 20 compile/dispose cycles free every buffer they made', async () => {
    const { device: dev, counts } = counted(device);
    const session = await compile(mlpTrainingGraph(B, I, H, C).g, dev);
    const feeds = [mlpFeeds(B, I, C, 1), mlpFeeds(B, I, C, 2)];
    await session.step(feeds[0], { read: ['loss'] });
    const after1 = { ...counts };
    expect(after1.liveBuffers).toBeGreaterThan(4); // the counting proxy sees what compile made
    expect(after1.bindGroups).toBeGreaterThan(4);
    let last: Promise<unknown> = Promise.resolve();
    for (let s = 0; s < 2000; s++) {
      last = session.step(feeds[s % 2], s % 100 === 99 ? { read: ['loss'], fetch: ['logits'] } : {});
      if (s % 50 === 49) await last; // keep the queue short, as a training loop would
    }
    const r = (await last) as { outputs: { loss: TensorValue } };
    expect(Number.isFinite(r.outputs.loss.data[0])).toBe(true);
    expect(counts).toEqual(after1);
    await session.dispose();
    expect(counts.liveBuffers).toBe(0);

    for (let k = 0; k < 20; k++) {
      const s = await compile(mlpTrainingGraph(B, I, H, C).g, dev);
      await s.step(feeds[k % 2], { read: ['loss'] });
      await s.read('w1');
      await s.dispose();
      expect(counts.liveBuffers).toBe(0);
    }
    expect(() => device.check()).not.toThrow();
  });
});

describe('bad feeds of every kind', () => {
  it('are typed errors before anything runs, and the state reads back bit-identical', async () => {
    const session = await compile(mlpTrainingGraph(B, I, H, C).g, device);
    const good = mlpFeeds(B, I, C, 1);
    const before = await session.readState();
    const bad: [string, Record<string, FeedValue>, RegExp][] = [
      ['missing input', { x: good.x }, /missing input 'labels'/],
      ['unknown input', { ...good, y: new Float32Array(1) }, /unknown input 'y'/],
      ['wrong length', { ...good, x: new Float32Array(B * I - 1) }, /expected \[4, 6\] f32 \(24 values\), got 23 values/],
      ['wrong array type', { ...good, labels: new Float32Array(B) }, /got a Float32Array/],
      ['wrong shape', { ...good, x: tensor([I, B], new Float32Array(B * I)) }, /expected \[4, 6\] f32, got \[6, 4\] f32/],
      ['wrong dtype', { ...good, x: tensor([B, I], new Int32Array(B * I), 'i32') }, /expected \[4, 6\] f32, got \[4, 6\] i32/],
      ['fractional label', { ...good, labels: { shape: [B], dtype: 'i32', data: new Float64Array([0, 1, 1.5, 2]) } }, /value 1.5 at index 2 is not an integer/],
      ['label out of range', { ...good, labels: new Int32Array([0, 1, 2, 3]) }, /label 3 at index 3 is outside \[0, 3\)/],
      ['not an array', { ...good, x: 'oops' as unknown as Float32Array }, /expected a TensorValue, Float32Array or Int32Array/],
    ];
    for (const [what, feeds, msg] of bad) {
      const err = await session.step(feeds).catch((e) => e);
      expect(err, what).toBeInstanceOf(Error);
      expect(err instanceof InputError || err instanceof RangeError, what).toBe(true);
      expect(String(err), what).toMatch(msg);
    }
    const after = await session.readState();
    for (const k of Object.keys(before)) expect(bits(after[k]), k).toEqual(bits(before[k]));
    await session.dispose();
  });
});

describe('device loss', () => {
  it('device.destroy() mid-training: the step in flight settles, every later call is a DeviceLostError', async () => {
    const own = await createDevice();
    const session = await compile(mlpTrainingGraph(B, I, H, C).g, own);
    await session.step(mlpFeeds(B, I, C, 1));
    const inFlight = session.step(mlpFeeds(B, I, C, 2), { read: ['loss'] });
    own.destroy();
    await Promise.allSettled([inFlight]); // resolves or rejects; it must not hang or crash
    await expect(session.step(mlpFeeds(B, I, C, 3))).rejects.toThrow(DeviceLostError);
    await expect(session.readState()).rejects.toThrow(DeviceLostError);
    await expect(compile(mlpTrainingGraph(B, I, H, C).g, own)).rejects.toThrow(DeviceLostError);
    await session.dispose();
  });
});

describe('determinism', () => {
  it('two sessions of the same step on the same adapter give bit-identical params after 5 steps', async () => {
    const run = async () => {
      const s = await compile(mlpTrainingGraph(B, I, H, C).g, device);
      for (let k = 1; k <= 5; k++) await s.step(mlpFeeds(B, I, C, k));
      const state = await s.readState();
      await s.dispose();
      return state;
    };
    const [a, b] = [await run(), await run()];
    for (const k of Object.keys(a)) expect(bits(b[k]), k).toEqual(bits(a[k]));
  });
});

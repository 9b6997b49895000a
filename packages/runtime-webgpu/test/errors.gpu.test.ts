import { Graph, tensor } from '@neura/ir';
import { generateKernel, type KernelGenerator } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, createDevice, DeviceLostError, GpuValidationError, InputError, KernelCompileError, type NeuraDevice } from '../src/index.js';
import { mlpFeeds, mlpTrainingGraph, SMALL_MLP } from './graphs.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

const [B, I, H, C] = SMALL_MLP;

async function trainingSession() {
  const { g } = mlpTrainingGraph(B, I, H, C);
  const session = await compile(g, device);
  const before = await session.readState();
  return { g, session, before };
}

async function expectParamsUnchanged(session: Awaited<ReturnType<typeof trainingSession>>['session'], before: Record<string, { data: ArrayLike<number> }>) {
  const after = await session.readState();
  for (const name of Object.keys(before)) expect(Array.from(after[name].data), name).toEqual(Array.from(before[name].data));
}

describe('feed errors leave the params untouched', () => {
  it('a missing input names it and lists the expected inputs', async () => {
    const { session, before } = await trainingSession();
    const { x } = mlpFeeds(B, I, C, 1);
    const err = await session.step({ x }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/missing input 'labels' \(\[4\] i32\); expected inputs: x \[4, 6\] f32, labels \[4\] i32/);
    await expectParamsUnchanged(session, before);
    session.dispose();
  });

  it('a wrong shape names the input, the expected and the given shape', async () => {
    const { session, before } = await trainingSession();
    const feeds = { ...mlpFeeds(B, I, C, 1), x: tensor([B, I + 1], new Float32Array(B * (I + 1))) };
    await expect(session.step(feeds)).rejects.toThrow(/'input x': expected \[4, 6\] f32, got \[4, 7\] f32/);
    await expectParamsUnchanged(session, before);
    session.dispose();
  });

  it('a flat array of the wrong length or type is refused', async () => {
    const { session } = await trainingSession();
    const good = mlpFeeds(B, I, C, 1);
    await expect(session.step({ ...good, x: new Float32Array(5) })).rejects.toThrow(/expected \[4, 6\] f32 \(24 values\), got 5 values/);
    await expect(session.step({ ...good, labels: new Float32Array(4) })).rejects.toThrow(/'input labels': expected \[4\] i32, got a Float32Array/);
    session.dispose();
  });

  it('an unknown feed name is refused', async () => {
    const { session } = await trainingSession();
    await expect(session.step({ ...mlpFeeds(B, I, C, 1), y: new Float32Array(1) })).rejects.toThrow(/unknown input 'y'; expected inputs: x/);
    session.dispose();
  });

  it('a label outside [0, C) is a RangeError naming the input, index, value and C — before anything runs', async () => {
    const { session, before } = await trainingSession();
    const feeds = { ...mlpFeeds(B, I, C, 1), labels: tensor([B], [0, 1, 3, 2], 'i32') };
    const err = await session.step(feeds).catch((e) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toMatch(/input 'labels': label 3 at index 2 is outside \[0, 3\)/);
    await expect(session.step({ ...feeds, labels: tensor([B], [0, -1, 0, 0], 'i32') })).rejects.toThrow(/label -1 at index 1/);
    await expectParamsUnchanged(session, before);
    // the session still works afterwards
    const r = await session.step(mlpFeeds(B, I, C, 1), { read: ['loss'] });
    expect(Number.isFinite(r.outputs.loss.data[0])).toBe(true);
    session.dispose();
  });

  it('reading an unknown name lists what can be read', async () => {
    const { session } = await trainingSession();
    await expect(session.read('nope')).rejects.toThrow(/'nope' is not an output, param or state; outputs: loss, logits; state: w1, b1, w2, b2/);
    session.dispose();
  });
});

describe('GPU errors are typed', () => {
  const g = new Graph();
  const x = g.input('x', [8]);
  g.output('y', g.relu(x));

  it('WGSL that does not compile is a KernelCompileError with line:col and the source', async () => {
    const broken: KernelGenerator = (spec, caps) => {
      const plan = generateKernel(spec, caps);
      return { ...plan, dispatches: plan.dispatches.map((d) => ({ ...d, code: d.code.replace(/fn main/, 'fn main_oops') + '\nfn f() -> f32 { return undefined_name; }\n' })) };
    };
    const err = await compile(g, device, { generator: broken }).catch((e) => e);
    expect(err).toBeInstanceOf(KernelCompileError);
    expect(err.message).toMatch(/relu\[8\]#\d+: WGSL failed to compile/);
    expect(err.message).toMatch(/\d+:\d+ error: .*undefined_name/);
    expect(err.message).toMatch(/\| fn f\(\) -> f32 \{ return undefined_name; \}/);
    expect(err.diagnostics[0].line).toBeGreaterThan(1);
  });

  it('a dispatch the device rejects is a GpuValidationError naming the step', async () => {
    const tooBig: KernelGenerator = (spec, caps) => {
      const plan = generateKernel(spec, caps);
      return { ...plan, dispatches: plan.dispatches.map((d) => ({ ...d, grid: [caps.maxComputeWorkgroupsPerDimension + 1, 1, 1] as const })) };
    };
    const session = await compile(g, device, { generator: tooBig });
    const err = await session.step({ x: new Float32Array(8) }).catch((e) => e);
    expect(err).toBeInstanceOf(GpuValidationError);
    expect(err.message).toMatch(/during step 0/);
    session.dispose();
  });

  it('a lost device is a DeviceLostError on the next call', async () => {
    const own = await createDevice();
    const session = await compile(g, own);
    await session.step({ x: new Float32Array(8) });
    own.destroy();
    await expect(session.step({ x: new Float32Array(8) })).rejects.toThrow(DeviceLostError);
  });
});

import { Graph, interpret, tensor, type TensorValue } from '@neura/ir';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKernel } from '@neura/wgsl-kernels';
import { compile, createDevice, InputError, type NeuraDevice, PipelineCache } from '../src/index.js';
import { interpretSteps, kernelNodes, mlpFeeds, mlpTrainingGraph, randoms } from './graphs.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device?.destroy());

const TOL = { rtol: 1e-4, atol: 1e-5 };

describe('createDevice', () => {
  it('finds an adapter and reports what it is', () => {
    expect(device.name).toMatch(/\((vulkan|opengles|swiftshader|browser), (software|gpu)\)$/);
    expect(device.caps.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(4);
    expect(device.caps.maxComputeInvocationsPerWorkgroup).toBe(device.gpu.limits.maxComputeInvocationsPerWorkgroup);
    if (/llvmpipe/.test(device.adapterInfo.device)) {
      expect(device.adapterInfo.software).toBe(true);
      expect(device.adapterInfo.backend).toBe('opengles');
    }
  });
});

describe('a device whose Dawn instance is no longer referenced by the caller', () => {
  it('survives garbage collection (dawn.node crashes if the GPU object is collected)', async () => {
    // keep only the GPUDevice: nothing of ours but createDevice's keep-alive set holds the Dawn instance
    const gpu = (await createDevice()).gpu;
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 5));
    }
    const module = gpu.createShaderModule({ label: 'gc-check', code: '@compute @workgroup_size(1) fn main() {}' });
    expect((await module.getCompilationInfo()).messages).toHaveLength(0);
    gpu.destroy();
  });
});

describe('an MLP forward pass', () => {
  it('matches the interpreter', async () => {
    const g = new Graph();
    const x = g.input('x', [4, 6]);
    const labels = g.input('labels', [4], 'i32');
    const h = g.relu(g.linear(x, g.param('w1', [6, 8]), g.param('b1', [8], { kind: 'uniform', low: -0.5, high: 0.5, seed: 3 })));
    const logits = g.output('logits', g.linear(h, g.param('w2', [8, 3]), g.param('b2', [3])));
    g.output('loss', g.crossEntropy(logits, labels));
    const session = await compile(g, device);
    const feeds = { x: tensor([4, 6], randoms(24, 1)), labels: tensor([4], [0, 2, 1, 2], 'i32') };
    const r = await session.step(feeds, { read: ['loss', 'logits'] });
    const want = interpret(g, feeds, {}, 'f32').outputs;
    expect(r.outputs.loss.shape).toEqual([]);
    expect(r.outputs.loss.data).toBeAllclose(want.loss.data, TOL);
    expect(r.outputs.logits.data).toBeAllclose(want.logits.data, TOL);
    expect(session.stats.kernels).toBe(kernelNodes(g).length);
    expect(session.stats.dispatchesPerStep).toBeGreaterThanOrEqual(kernelNodes(g).length);
    session.dispose();
  });
});

describe('an MLP training step (forward, backward, SGD in place)', () => {
  const [B, I, H, C] = [8, 12, 16, 5];

  it('matches the interpreter iterated for 3 steps', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const feeds = [1, 2, 3].map((s) => mlpFeeds(B, I, C, s));
    const want = interpretSteps(g, feeds);
    for (let s = 0; s < 3; s++) {
      const r = await session.step(feeds[s], { read: ['loss'] });
      expect(r.step).toBe(s);
      expect(r.outputs.loss.data).toBeAllclose(want.outputs[s].loss.data, TOL);
    }
    const state = await session.readState();
    for (const name of ['w1', 'b1', 'w2', 'b2']) expect(state[name].data, name).toBeAllclose(want.state[name].data, TOL);
    session.dispose();
  });

  it('writes every param in place, with no copies and one dispatch per kernel node', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const st = session.stats;
    expect(st.inPlaceUpdates).toBe(4);
    expect(st.copiesPerStep).toBe(0);
    expect(st.kernels).toBe(kernelNodes(g).length);
    expect(st.dispatchesPerStep).toBe(kernelNodes(g).length);
    expect(st.pipelines).toBeLessThanOrEqual(st.dispatchesPerStep);
    expect(st.bytesAllocated).toBeLessThan(st.bytesIfUnshared);
    console.info(`MLP ${B}x${I}-${H}-${C} training step on ${device.name}: ${JSON.stringify(st)}`);
    session.dispose();
  });

  it('defers readback: fetch resolves later with the step’s own loss', async () => {
    const { g } = mlpTrainingGraph(B, I, H, C);
    const session = await compile(g, device);
    const feeds = [4, 5, 6].map((s) => mlpFeeds(B, I, C, s));
    const want = interpretSteps(g, feeds);
    const pending: Promise<Record<string, TensorValue>>[] = [];
    for (const f of feeds) {
      const r = await session.step(f, { fetch: ['loss'] });
      expect(r.outputs).toEqual({});
      pending.push(r.fetched as Promise<Record<string, TensorValue>>);
    }
    const got = await Promise.all(pending);
    for (let s = 0; s < got.length; s++) expect(got[s].loss.data).toBeAllclose(want.outputs[s].loss.data, TOL);
    await session.flush();
    session.dispose();
  });
});

describe('state updates', () => {
  it('p ← p − 0.1·p², m ← 0.9·m + p (old p) over 3 steps', async () => {
    const g = new Graph();
    const p = g.param('p', [3, 5], { kind: 'uniform', low: -1, high: 1, seed: 11 });
    const m = g.state('m', [3, 5], { kind: 'fill', value: 0.5 });
    g.update(p, g.sub(p, g.mul(g.square(p), 0.1)));
    g.update(m, g.add(g.mul(m, 0.9), p));
    const session = await compile(g, device);
    expect(session.stats.inPlaceUpdates).toBe(2);
    expect(session.stats.copiesPerStep).toBe(0);
    const want = interpretSteps(g, [{}, {}, {}]);
    for (let s = 0; s < 3; s++) await session.step({});
    const st = await session.readState();
    expect(st.p.data).toBeAllclose(want.state.p.data, TOL);
    expect(st.m.data).toBeAllclose(want.state.m.data, TOL);
    session.dispose();
  });

  it('falls back to a copy when the value reads the state at other indices (q ← q·A)', async () => {
    const g = new Graph();
    const q = g.state('q', [4, 4], { kind: 'uniform', low: -1, high: 1, seed: 2 });
    const a = g.param('a', [4, 4], { kind: 'uniform', low: -0.5, high: 0.5, seed: 5 });
    g.update(q, g.matmul(q, a));
    g.output('trace', g.sum(q));
    const session = await compile(g, device);
    expect(session.stats.copiesPerStep).toBe(1);
    const want = interpretSteps(g, [{}, {}, {}]);
    for (let s = 0; s < 3; s++) {
      const r = await session.step({}, { read: ['trace'] });
      expect(r.outputs.trace.data).toBeAllclose(want.outputs[s].trace.data, TOL);
    }
    expect((await session.read('q')).data).toBeAllclose(want.state.q.data, TOL);
    session.dispose();
  });

  it('writes a non-elementwise value straight into the state when nothing else reads the old value', async () => {
    const g = new Graph();
    const x = g.input('x', [3, 4]);
    const w = g.param('w', [4, 2]);
    const y = g.state('y', [3, 2]);
    g.update(y, g.matmul(x, w)); // y's old value is read by nobody
    const session = await compile(g, device);
    expect(session.stats.inPlaceUpdates).toBe(1);
    expect(session.stats.copiesPerStep).toBe(0);
    const feeds = { x: tensor([3, 4], randoms(12, 8)) };
    await session.step(feeds);
    expect((await session.read('y')).data).toBeAllclose(interpret(g, feeds, {}, 'f32').updates.y.data, TOL);
    session.dispose();
  });

  it('swaps two states (a ← b, b ← a) through temporaries', async () => {
    const g = new Graph();
    const a = g.state('a', [4], { kind: 'fill', value: 1 });
    const b = g.state('b', [4], { kind: 'fill', value: 2 });
    g.update(a, b);
    g.update(b, a);
    const session = await compile(g, device);
    await session.step({});
    const st = await session.readState();
    expect(Array.from(st.a.data)).toEqual([2, 2, 2, 2]);
    expect(Array.from(st.b.data)).toEqual([1, 1, 1, 1]);
    session.dispose();
  });

  it('starts from initialState and accepts writeState', async () => {
    const g = new Graph();
    const p = g.param('p', [2]);
    g.update(p, g.add(p, 1));
    const session = await compile(g, device, { initialState: { p: new Float32Array([10, 20]) } });
    await session.step({});
    expect(Array.from((await session.read('p')).data)).toEqual([11, 21]);
    await session.writeState('p', tensor([2], [0, -1]));
    await session.step({});
    expect(Array.from((await session.read('p')).data)).toEqual([1, 0]);
    await expect(session.writeState('p', new Float32Array(3))).rejects.toThrow(InputError);
    session.dispose();
  });
});

describe('compile', () => {
  it('shares one pipeline between kernels with identical WGSL', async () => {
    const g = new Graph();
    const a = g.input('a', [4, 4]);
    const b = g.input('b', [4, 4]);
    g.output('ra', g.relu(a));
    g.output('rb', g.relu(b));
    const session = await compile(g, device);
    expect(session.stats.dispatchesPerStep).toBe(2);
    expect(session.stats.pipelines).toBe(1);
    const feeds = { a: tensor([4, 4], randoms(16, 1)), b: tensor([4, 4], randoms(16, 2)) };
    const r = await session.step(feeds, { read: ['ra', 'rb'] });
    const want = interpret(g, feeds, {}, 'f32').outputs;
    expect(r.outputs.ra.data).toBeAllclose(want.ra.data);
    expect(r.outputs.rb.data).toBeAllclose(want.rb.data);
    session.dispose();
  });

  it('dedupes a compile already in flight', async () => {
    const g = new Graph();
    const n = g.relu(g.input('x', [8]));
    const d = generateKernel({ node: n, inputs: [{ shape: [8], dtype: 'f32' }] }, device.caps).dispatches[0];
    const cache = new PipelineCache(device.gpu);
    const [p1, p2] = [cache.get(d), cache.get(d)];
    expect(p1).toBe(p2);
    expect((await p1).pipeline).toBe((await p2).pipeline);
    expect(cache.size).toBe(1);
    expect(cache.hits).toBe(1);
  });

  it('runs reshapes as buffer aliases, without a dispatch', async () => {
    const g = new Graph();
    const x = g.input('x', [2, 6]);
    const y = g.relu(g.reshape(x, [3, 4]));
    g.output('y', g.reshape(g.mul(y, 2), [12]));
    const session = await compile(g, device);
    expect(session.stats.dispatchesPerStep).toBe(2);
    const feeds = { x: tensor([2, 6], randoms(12, 3)) };
    const r = await session.step(feeds, { read: ['y'] });
    expect(r.outputs.y.shape).toEqual([12]);
    expect(r.outputs.y.data).toBeAllclose(interpret(g, feeds, {}, 'f32').outputs.y.data);
    session.dispose();
  });

  it('reuses transient buffers in a deeper chain and still matches the interpreter', async () => {
    const g = new Graph();
    let h = g.input('x', [16, 16]);
    for (let i = 0; i < 6; i++) h = g.tanh(g.matmul(h, g.param(`w${i}`, [16, 16])));
    g.output('y', g.sum(h, 1));
    const session = await compile(g, device);
    const m = session.stats.memory;
    expect(m.reused).toBeGreaterThan(0);
    expect(m.transientBytes).toBeLessThan(m.bytesIfUnshared - m.persistentBytes);
    const feeds = { x: tensor([16, 16], randoms(256, 4)) };
    const r = await session.step(feeds, { read: ['y'] });
    expect(r.outputs.y.data).toBeAllclose(interpret(g, feeds, {}, 'f32').outputs.y.data, TOL);
    session.dispose();
  });
});

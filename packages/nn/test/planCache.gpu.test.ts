// compileTraining and compileInference through a plan cache on the software adapter: the second compile of a small
// MLP and a tiny GPT reads the plan (no e-graph runs, `stats.planFromCache`) and trains bit-identically to a fresh
// compile; a compile for other device limits misses; planCache with optimize: false is refused.

import * as egraph from '@neura/egraph';
import { Graph, type TensorValue, tensor } from '@neura/ir';
import { compileInference, compileTraining, GPT, memoryPlanCache, mlp, type PlanCache, TrainingStepError } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// a spy around the real optimizer (not a stand-in): counts how often the e-graph runs
vi.mock('@neura/egraph', async (importOriginal) => {
  const real = await importOriginal<typeof egraph>();
  return { ...real, optimize: vi.fn(real.optimize) };
});
const optimizeCalls = () => vi.mocked(egraph.optimize).mock.calls.length;

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

function mlpModel() {
  const g = new Graph();
  const x = g.input('x', [8, 6]);
  return { graph: g, loss: g.crossEntropy(mlp([6, 16, 5]).forward(g, x), g.input('labels', [8], 'i32')) };
}
const mlpFeeds = (s: number): Record<string, TensorValue> => ({
  x: tensor([8, 6], Array.from({ length: 48 }, (_, i) => Math.sin(i * 0.7 + s))),
  labels: tensor([8], Array.from({ length: 8 }, (_, i) => (i * 3 + s) % 5), 'i32'),
});

function gptModel() {
  const { graph, loss } = new GPT({ layers: 1, heads: 2, width: 8, context: 4, vocab: 7, attention: 'op' }).trainingGraph(2, 4);
  return { graph, loss };
}
const gptFeeds = (s: number): Record<string, TensorValue> => ({
  tokens: tensor([2, 4], Array.from({ length: 8 }, (_, i) => (i * 5 + s) % 7), 'i32'),
  targets: tensor([2, 4], Array.from({ length: 8 }, (_, i) => (i * 3 + s) % 7), 'i32'),
});

/** Trains three steps from a fresh model; returns the losses and the final params. */
async function train(model: () => { graph: Graph; loss: ReturnType<Graph['input']> }, feeds: (s: number) => Record<string, TensorValue>, planCache?: PlanCache) {
  const { graph, loss } = model();
  const session = await compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-2, weightDecay: 0.01 }), device, planCache });
  const losses: (number | undefined)[] = [];
  for (let s = 0; s < 3; s++) losses.push(await session.step(feeds(s), { readLoss: true }));
  const params = Object.fromEntries(Object.entries(await session.readParams()).map(([k, v]) => [k, Array.from(v.data)]));
  const out = { losses, params, fromCache: session.stats.planFromCache, dispatches: session.stats.dispatchesPerStep };
  session.dispose();
  return out;
}

describe('compileTraining with a plan cache', () => {
  for (const [what, model, feeds] of [
    ['a small MLP', mlpModel, mlpFeeds],
    ['a tiny GPT', gptModel, gptFeeds],
  ] as const)
    it(`compiles ${what} a second time without the e-graph and trains bit-identically to a fresh compile`, async () => {
      const cache = memoryPlanCache();
      const fresh = await train(model, feeds);
      const first = await train(model, feeds, cache);
      const calls = optimizeCalls();
      const second = await train(model, feeds, cache);
      expect(optimizeCalls()).toBe(calls);
      expect([fresh.fromCache, first.fromCache, second.fromCache]).toEqual([undefined, false, true]);
      expect(second.dispatches).toBe(fresh.dispatches);
      expect(second.dispatches).toBeGreaterThan(0);
      expect(second.losses).toEqual(fresh.losses);
      expect(second.params).toEqual(fresh.params);
      expect(first.params).toEqual(fresh.params);
    }, 180_000);

  it('misses when the device offers other limits', async () => {
    const cache = memoryPlanCache();
    const { graph, loss } = mlpModel();
    const opts = { loss, optimizer: adamW({ lr: 1e-2 }), planCache: cache };
    (await compileTraining(graph, { ...opts, device })).dispose();
    const narrow = { ...device, caps: { ...device.caps, maxStorageBuffersPerShaderStage: device.caps.maxStorageBuffersPerShaderStage - 1 } } as NeuraDevice;
    const calls = optimizeCalls();
    const s = await compileTraining(graph, { ...opts, device: narrow });
    expect(optimizeCalls()).toBe(calls + 1);
    expect(s.stats.planFromCache).toBe(false);
    s.dispose();
  }, 120_000);

  it('refuses planCache with optimize: false', async () => {
    const { graph, loss } = mlpModel();
    await expect(compileTraining(graph, { loss, optimizer: adamW({ lr: 1e-2 }), device, optimize: false, planCache: memoryPlanCache() })).rejects.toThrow(TrainingStepError);
  });
});

describe('compileInference with a plan cache', () => {
  it('reads the plan on the second compile and computes the same outputs', async () => {
    const cache = memoryPlanCache();
    const run = async () => {
      const g = new Graph();
      const y = mlp([6, 16, 5]).forward(g, g.input('x', [8, 6]));
      const s = await compileInference(g, { outputs: { y }, device, planCache: cache });
      const out = Array.from((await s.run({ x: mlpFeeds(1).x })).y.data);
      s.dispose();
      return { out, fromCache: s.planFromCache };
    };
    const a = await run();
    const calls = optimizeCalls();
    const b = await run();
    expect(optimizeCalls()).toBe(calls);
    expect([a.fromCache, b.fromCache]).toEqual([false, true]);
    expect(b.out).toEqual(a.out);
  }, 120_000);
});

// The plan cache without a GPU: optimized step graphs of real models (MLP, CNN, GPT) survive JSON (every op's
// attrs, param inits: the interpreter gives bit-identical results), a second optimize through the same cache runs
// no e-graph, and a changed graph, other limits or a corrupt or mismatched entry miss (the latter with one warning).

import * as egraph from '@neura/egraph';
import { Graph, graphFromJson, graphToJson, interpret, mulberry32, printGraph, type TensorValue, tensor } from '@neura/ir';
import { buildGptStep, buildTrainingStep, causalMask, LeNet5, memoryPlanCache, mlp, optimizeWithPlanCache, type PlanCache, planKey } from '@neura/nn';
import { filePlanCache, planCachePath } from '@neura/nn/node';
import { adamW, sgd } from '@neura/optim';
import { COMPAT_CAPS } from '@neura/wgsl-kernels';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// a spy around the real optimizer (not a stand-in): counts how often the e-graph runs
vi.mock('@neura/egraph', async (importOriginal) => {
  const real = await importOriginal<typeof egraph>();
  return { ...real, optimize: vi.fn(real.optimize) };
});
const optimizeCalls = () => vi.mocked(egraph.optimize).mock.calls.length;

const rand = (shape: number[], seed: number) => {
  const r = mulberry32(seed);
  return tensor(shape, Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => r() * 2 - 1));
};

/** A step: an MLP of hidden width `hidden`, SGD with momentum. */
function mlpStep(hidden = 16): Graph {
  const g = new Graph();
  const x = g.input('x', [4, 8]);
  const labels = g.input('labels', [4], 'i32');
  const loss = g.crossEntropy(mlp([8, hidden, 3]).forward(g, x), labels);
  buildTrainingStep(g, { loss, optimizer: sgd({ lr: 0.1, momentum: 0.9 }) });
  return g;
}
const mlpFeeds = () => ({ x: rand([4, 8], 1), labels: tensor([4], [0, 2, 1, 2], 'i32') });

function cnnStep(): Graph {
  const g = new Graph();
  const x = g.input('x', [2, 1, 28, 28]);
  const loss = g.crossEntropy(new LeNet5().forward(g, x), g.input('labels', [2], 'i32'));
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 1e-3 }) });
  return g;
}
const cnnFeeds = () => ({ x: rand([2, 1, 28, 28], 2), labels: tensor([2], [3, 7], 'i32') });

const gpt = { layers: 1, heads: 2, width: 16, context: 4, batch: 2, vocab: 7 } as const;
const gptFeeds = (): Record<string, TensorValue> => ({
  tokens: tensor([2, 4], [1, 2, 3, 4, 5, 6, 0, 1], 'i32'),
  targets: tensor([2, 4], [2, 3, 4, 5, 6, 0, 1, 2], 'i32'),
  mask: causalMask(4),
});

const roundTrip = (g: Graph) => graphFromJson(JSON.parse(JSON.stringify(graphToJson(g))));

/** Outputs and updates of both graphs from the same feeds (params from their own inits) are bit-identical. */
function expectSameResults(a: Graph, b: Graph, feeds: Record<string, TensorValue>) {
  const ra = interpret(a, feeds, {}, 'f32');
  const rb = interpret(b, feeds, {}, 'f32');
  expect(Object.keys(rb.updates).sort()).toEqual(Object.keys(ra.updates).sort());
  for (const k of Object.keys(ra.outputs)) expect(Array.from(rb.outputs[k].data), k).toEqual(Array.from(ra.outputs[k].data));
  for (const k of Object.keys(ra.updates)) expect(Array.from(rb.updates[k].data), k).toEqual(Array.from(ra.updates[k].data));
}

describe('graph JSON of real step graphs', () => {
  const cases: [string, () => Graph, () => Record<string, TensorValue>][] = [
    ['an MLP', () => mlpStep(), mlpFeeds],
    ['LeNet-5', cnnStep, cnnFeeds],
    ['a GPT (attention op)', () => buildGptStep({ ...gpt, attention: 'op' }), gptFeeds],
  ];
  for (const [what, build, feeds] of cases)
    it(`round-trips ${what}'s step, optimized and not, with every attr and param init: the interpreter agrees bit for bit`, () => {
      const step = build();
      const { graph: plan } = egraph.optimize(step);
      for (const g of [step, plan]) {
        const h = roundTrip(g);
        expect(printGraph(h)).toBe(printGraph(g));
        for (const p of g.leaves('param')) expect(h.byName(p.attrs.name)?.attrs).toEqual(p.attrs);
        expectSameResults(g, h, feeds());
      }
    }, 120_000);
});

describe('optimizeWithPlanCache', () => {
  const options = { limits: COMPAT_CAPS };

  it('reads the plan back on a second optimize: no e-graph runs, and the plan and its report are the same', async () => {
    const cache = memoryPlanCache();
    const first = await optimizeWithPlanCache(mlpStep(), options, cache, 'test');
    const calls = optimizeCalls();
    const second = await optimizeWithPlanCache(mlpStep(), options, cache, 'test');
    expect(optimizeCalls()).toBe(calls);
    expect([first.fromCache, second.fromCache]).toEqual([false, true]);
    expect(printGraph(second.graph)).toBe(printGraph(first.graph));
    expect(second.report.summary()).toBe(first.report.summary());
    expect(second.report.kernels).toEqual(first.report.kernels);
    expectSameResults(first.graph, second.graph, mlpFeeds());
  });

  it('misses for another width, other limits, another memory budget or other custom kernel ops', async () => {
    const key = await planKey(mlpStep(), options);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await planKey(mlpStep(), options)).toBe(key);
    const others = [
      await planKey(mlpStep(32), options),
      await planKey(mlpStep(), { limits: { ...COMPAT_CAPS, maxStorageBuffersPerShaderStage: 10 } }),
      await planKey(mlpStep(), { ...options, memoryBudget: 1e6 }),
      await planKey(mlpStep(), { ...options, customKernelOps: ['relu'] }),
    ];
    expect(new Set([key, ...others]).size).toBe(5);
    const cache = memoryPlanCache();
    await optimizeWithPlanCache(mlpStep(), options, cache, 'test');
    const calls = optimizeCalls();
    expect((await optimizeWithPlanCache(mlpStep(32), options, cache, 'test')).fromCache).toBe(false);
    expect((await optimizeWithPlanCache(mlpStep(), { limits: { ...COMPAT_CAPS, maxStorageBuffersPerShaderStage: 10 } }, cache, 'test')).fromCache).toBe(false);
    expect(optimizeCalls()).toBe(calls + 2);
  });

  it("ignores another graph's plan stored under this key with one warning naming the difference, and replaces it", async () => {
    const warn = vi.fn();
    const cache = memoryPlanCache(warn);
    const key = (await planKey(mlpStep(), options)) as string;
    const wide = await optimizeWithPlanCache(mlpStep(32), options, cache, 'test');
    cache.records.set(key, JSON.stringify({ ...JSON.parse([...cache.records.values()][0]), key }));
    const got = await optimizeWithPlanCache(mlpStep(), options, cache, 'test');
    expect(got.fromCache).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/test: plan cache entry [0-9a-f]{16}… is the plan (lacks|has) 'param .*\[(16|32)/);
    expect(printGraph(got.graph)).not.toBe(printGraph(wide.graph));
    expect((await optimizeWithPlanCache(mlpStep(), options, cache, 'test')).fromCache).toBe(true); // the good plan replaced it
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('warns once about a corrupt file, recomputes the plan and rewrites the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'neura-plans-'));
    const warn = vi.fn();
    const cache: PlanCache = filePlanCache(dir, warn);
    const key = (await planKey(mlpStep(), options)) as string;
    await writeFile(planCachePath(dir, key), '{"format": 1, "key": "trunc');
    const calls = optimizeCalls();
    expect((await optimizeWithPlanCache(mlpStep(), options, cache, 'compileTraining')).fromCache).toBe(false);
    expect(optimizeCalls()).toBe(calls + 1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/compileTraining: plan cache entry .* is unreadable \(file .*plan-[0-9a-f]{64}\.json is not JSON/);
    expect((await optimizeWithPlanCache(mlpStep(), options, cache, 'compileTraining')).fromCache).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('ignores a record of another format, and one whose graph does not parse', async () => {
    const warn = vi.fn();
    const cache = memoryPlanCache(warn);
    const key = (await planKey(mlpStep(), options)) as string;
    await optimizeWithPlanCache(mlpStep(), options, cache, 'test');
    const good = JSON.parse(cache.records.get(key) as string);
    cache.records.set(key, JSON.stringify({ ...good, format: 0 }));
    expect((await optimizeWithPlanCache(mlpStep(), options, cache, 'test')).fromCache).toBe(false);
    const bad = { ...good, graph: { ...good.graph, nodes: [...good.graph.nodes, { op: 'matmul', inputs: [0, 0], attrs: {}, shape: [1], dtype: 'f32' }] } };
    cache.records.set(key, JSON.stringify(bad));
    expect((await optimizeWithPlanCache(mlpStep(), options, cache, 'test')).fromCache).toBe(false);
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/written in plan format 0, not 1/), expect.stringMatching(/unreadable \(matmul/)]);
  });
});

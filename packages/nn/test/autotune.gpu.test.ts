// Per-shape matmul autotuning through compileTraining/compileInference on the software adapter: the first compile
// measures the step's matmul shapes and writes the per-adapter cache file; a second compile (a new cache instance,
// as a later process) reads it and measures nothing; the tuned session trains like the plain one. A given table is
// honoured or refused; corrupt or foreign cache files are ignored with a warning naming the file and entry.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Graph, tensor } from '@neura/ir';
import { compileInference, compileTraining, mlp, TrainingStepError } from '@neura/nn';
import { fileTuningCache, tuningCachePath } from '@neura/nn/node';
import { adam } from '@neura/optim';
import { adapterKey, createDevice, matmulShapesOf, type NeuraDevice } from '@neura/runtime-webgpu';
import { KernelError, MATMUL_CONFIG_BY_NAME, matmulShapeKey } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
let dir: string;
beforeAll(async () => {
  device = await createDevice();
  dir = await mkdtemp(join(tmpdir(), 'neura-tuning-'));
});
afterAll(async () => {
  device.destroy();
  await rm(dir, { recursive: true, force: true });
});

const B = 8;
const F = 6;
const C = 10;
function build() {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  return { g, loss: g.crossEntropy(mlp([F, 16, C]).forward(g, x), labels) };
}
const feeds = (seed: number) => ({
  x: tensor([B, F], Array.from({ length: B * F }, (_, i) => Math.sin(i * 0.7 + seed))),
  labels: tensor([B], Array.from({ length: B }, (_, i) => (i * 3 + seed) % C), 'i32'),
});
const candidates = ['32x32x16/4x4+u', '64x64x16/8x4'].map((n) => MATMUL_CONFIG_BY_NAME.get(n) ?? expect.unreachable(n));

describe('compileTraining with autotune', () => {
  it('tunes on the first compile, reads the cache file on the second (measures nothing), and trains like the plain step', async () => {
    const warnings: string[] = [];
    const a = build();
    const first = await compileTraining(a.g, { loss: a.loss, optimizer: adam({ lr: 1e-2 }), device, autotune: { cache: fileTuningCache(dir, (m) => warnings.push(m)), candidates, repeats: 1 } });
    const shapes = matmulShapesOf(first.graph);
    expect(shapes.length).toBeGreaterThan(0);
    expect(first.autotuned?.measured).toBe(shapes.length);
    for (const s of first.autotuned?.shapes ?? []) for (const t of s.timings) expect(t.ok, `${s.key} ${t.name}: ${t.why}`).toBe(true);
    const file = JSON.parse(await readFile(tuningCachePath(dir, adapterKey(device)), 'utf8'));
    expect(file.adapter).toBe(adapterKey(device));
    expect(Object.keys(file.entries).sort()).toEqual(shapes.map(matmulShapeKey).sort());

    let saves = 0;
    const again = fileTuningCache(dir, (m) => warnings.push(m));
    const b = build();
    const second = await compileTraining(b.g, { loss: b.loss, optimizer: adam({ lr: 1e-2 }), device, autotune: {
      cache: {
        load: again.load, save: async (k, e) => {
          saves++;
          await again.save(k, e);
        },
      }, candidates, repeats: 1 } });
    expect(second.autotuned?.measured).toBe(0);
    expect(second.autotuned?.shapes.every((s) => s.cached && s.timings.length === 0)).toBe(true);
    expect(second.autotuned?.tuning).toEqual(first.autotuned?.tuning);
    expect(saves).toBe(0);
    expect(warnings).toEqual([]);

    const c = build();
    const plain = await compileTraining(c.g, { loss: c.loss, optimizer: adam({ lr: 1e-2 }), device });
    for (let s = 0; s < 2; s++) {
      const lt = await second.step(feeds(s), { readLoss: true });
      const lp = await plain.step(feeds(s), { readLoss: true });
      expect(lt).toBeAllclose(lp as number, { rtol: 1e-4, atol: 1e-6 });
    }
    for (const t of [first, second, plain]) t.dispose();
  });

  it('honours a given table (every matmul on a named tiling trains like the heuristic) and refuses one that does not fit', async () => {
    const a = build();
    const shapes = matmulShapesOf((await compileInference(a.g, { outputs: { loss: a.loss }, device })).graph);
    const table = Object.fromEntries(shapes.map((s) => [matmulShapeKey(s), '32x32x16/4x4+u+db']));
    const tuned = await compileInference(a.g, { outputs: { loss: a.loss }, device, matmulTuning: table });
    const plain = await compileInference(a.g, { outputs: { loss: a.loss }, device });
    expect((await tuned.run(feeds(3))).loss.data[0]).toBeAllclose((await plain.run(feeds(3))).loss.data[0], { rtol: 1e-5, atol: 1e-6 });
    tuned.dispose();
    plain.dispose();

    const limited = await createDevice({ limitCaps: { maxComputeInvocationsPerWorkgroup: 128 } });
    try {
      const misfit = Object.fromEntries(shapes.map((s) => [matmulShapeKey(s), '128x128x16/8x8']));
      await expect(compileInference(a.g, { outputs: { loss: a.loss }, device: limited, matmulTuning: misfit })).rejects.toThrow(KernelError);
      await expect(compileInference(a.g, { outputs: { loss: a.loss }, device: limited, matmulTuning: misfit })).rejects.toThrow(/does not fit the device: 256 invocations > maxComputeInvocationsPerWorkgroup \(device value 128\)/);
    } finally {
      limited.destroy();
    }
    await expect(compileTraining(a.g, { loss: a.loss, optimizer: adam({ lr: 1e-2 }), device, matmulTuning: {}, measure: { feeds: feeds(1) } })).rejects.toThrow(TrainingStepError);
  });
});

describe('fileTuningCache', () => {
  it('ignores a corrupt file, another adapter\'s record and unknown entries, with a warning naming the file and entry', async () => {
    const d = await mkdtemp(join(tmpdir(), 'neura-tuning-bad-'));
    try {
      const warnings: string[] = [];
      const cache = fileTuningCache(d, (m) => warnings.push(m));
      const me = adapterKey(device);
      const path = tuningCachePath(d, me);
      expect(await cache.load(me)).toEqual({});
      expect(warnings).toEqual([]); // a missing file is an empty cache, silently
      await writeFile(path, '{ not json');
      expect(await cache.load(me)).toEqual({});
      expect(warnings.pop()).toMatch(new RegExp(`matmul tuning cache file ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not JSON`));
      await writeFile(path, JSON.stringify({ adapter: 'OtherVendor|x|y|z|vulkan', entries: { '8x16x6:NN:b1': '32x32x16/4x4' } }));
      expect(await cache.load(me)).toEqual({});
      expect(warnings.pop()).toMatch(/recorded on adapter 'OtherVendor\|x\|y\|z\|vulkan', not this one/);
      await writeFile(path, JSON.stringify({ adapter: me, entries: { '8x16x6:NN:b1': '32x32x16/4x4', '8x10x16:NN:b1': '999x1x1/1x1', 'garbage': 'default' } }));
      expect(await cache.load(me)).toEqual({ '8x16x6:NN:b1': '32x32x16/4x4' });
      expect(warnings).toEqual([expect.stringMatching(/entry '8x10x16:NN:b1' → "999x1x1\/1x1" is not/), expect.stringMatching(/entry 'garbage' → "default" is not/)]);
      await cache.save(me, { '8x16x6:NN:b1': 'default' });
      expect(await fileTuningCache(d).load(me)).toEqual({ '8x16x6:NN:b1': 'default' });
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});

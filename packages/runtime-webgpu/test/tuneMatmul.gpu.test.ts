// The per-shape matmul autotuner on a real adapter (small shapes, a few candidates: the software adapter is slow).
// Each accepted candidate's result matched the interpreter; the table it returns is honoured by compile (the
// kernel generated for the tuned shape is the chosen tiling, and the session's result matches the interpreter);
// an entry that does not fit is an error; the cache answers a second run without measuring.
import { Graph, interpret } from '@neura/ir';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKernel, type KernelGenerator, KernelError, MATMUL_CONFIG_BY_NAME, matmulShapeKey } from '@neura/wgsl-kernels';
import { adapterKey, capsFor, compile, createDevice, matmulShapesOf, memoryTuningCache, type NeuraDevice, tuneMatmul } from '../src/index.js';
import { randoms } from './graphs.js';

const device: NeuraDevice = await createDevice();
afterAll(() => device.destroy());

const CANDIDATES = ['32x32x16/4x4', '32x32x16/4x4+u+db', '64x64x16/8x4+u'].map((n) => MATMUL_CONFIG_BY_NAME.get(n) ?? expect.unreachable(n));
const SHAPE = { m: 40, n: 72, k: 24, transB: true };

function matmulGraph() {
  const g = new Graph();
  g.output('y', g.matmul(g.input('a', [SHAPE.m, SHAPE.k]), g.input('b', [SHAPE.n, SHAPE.k]), { transB: true }));
  const feeds = { a: { shape: [SHAPE.m, SHAPE.k], dtype: 'f32' as const, data: randoms(SHAPE.m * SHAPE.k, 3) }, b: { shape: [SHAPE.n, SHAPE.k], dtype: 'f32' as const, data: randoms(SHAPE.n * SHAPE.k, 4) } };
  return { g, feeds };
}

/** A generator that records each matmul kernel's WGSL header line (what the compiled session runs). */
function recording(): { generator: KernelGenerator; headers: string[] } {
  const headers: string[] = [];
  const generator: KernelGenerator = (spec, caps) => {
    const plan = generateKernel(spec, caps);
    if (spec.node.op === 'matmul') headers.push(...plan.dispatches.map((d) => d.code.split('\n').find((l) => /(tiled|skinny) matmul/.test(l)) ?? ''));
    return plan;
  };
  return { generator, headers };
}

describe('tuneMatmul', () => {
  it('measures the default and each fitting candidate, all checked against the interpreter, and the table is honoured', async () => {
    const { g, feeds } = matmulGraph();
    expect(matmulShapesOf(g)).toEqual([{ m: 40, n: 72, k: 24, transA: false, transB: true, batches: 1 }]);
    const r = await tuneMatmul(device, matmulShapesOf(g), { candidates: CANDIDATES, repeats: 2 });
    expect(r.measured).toBe(1);
    const [s] = r.shapes;
    expect(s.key).toBe(matmulShapeKey(SHAPE));
    expect(s.timings.map((t) => t.name)).toEqual(['default', ...CANDIDATES.map((c) => [...MATMUL_CONFIG_BY_NAME].find(([, v]) => v === c)?.[0])]);
    for (const t of s.timings) if (t.ok) expect(t.msPerStep).toBeGreaterThan(0);
    expect(s.timings.filter((t) => t.ok).map((t) => t.name)).toContain(s.choice);
    expect(r.tuning).toEqual({ [s.key]: s.choice }); // `default` too: it overrides a shipped entry

    // whatever won, a table naming a candidate is honoured: the tuned tiling is what the session runs, and correct
    const want = interpret(g, feeds).outputs.y.data;
    for (const name of ['32x32x16/4x4+u+db', '64x64x16/8x4+u']) {
      const { generator, headers } = recording();
      const session = await compile(g, device, { generator, matmulTuning: { [s.key]: name } });
      const cfg = MATMUL_CONFIG_BY_NAME.get(name) ?? expect.unreachable(name);
      expect(headers).toHaveLength(1);
      expect(headers[0]).toContain(`tiled matmul A·Bᵀ: M=40 N=72 K=24, tile ${cfg.bm}x${cfg.bn}x${cfg.bk}${cfg.db ? ' double-buffered' : ''}${cfg.unroll ? ', k unrolled' : ''}, ${cfg.tm}x${cfg.tn} per thread`);
      const y = (await session.step(feeds, { read: ['y'] })).outputs.y.data;
      for (let i = 0; i < want.length; i++) expect(Math.abs(y[i] - want[i])).toBeLessThan(1e-4);
      await session.dispose();
    }
    // without a table this shape takes the skinny kernel (M ≤ 64): the table really changed the plan
    const plain = recording();
    await (await compile(g, device, { generator: plain.generator })).dispose();
    expect(plain.headers[0]).toContain('skinny matmul');
  });

  it('keeps the heuristic unless a candidate beats it by minGain; times by wall clock on a software adapter', async () => {
    const r = await tuneMatmul(device, [SHAPE], { candidates: CANDIDATES.slice(0, 2), repeats: 1, minGain: 1 }); // a candidate would need 0 ms
    expect(r.clock).toBe('wall');
    expect(r.shapes[0].timings.filter((t) => t.ok).map((t) => t.name)).toEqual(['default', '32x32x16/4x4', '32x32x16/4x4+u+db']);
    expect(r.tuning).toEqual({ [matmulShapeKey(SHAPE)]: 'default' });
    if (!device.features.has('timestamp-query')) await expect(tuneMatmul(device, [SHAPE], { clock: 'gpu' })).rejects.toThrow(/profiling needs the 'timestamp-query' feature/);
  });

  it('refuses a table entry that does not fit the device, naming the limit', async () => {
    const { g } = matmulGraph();
    const caps = capsFor(device);
    const tooBig = [...MATMUL_CONFIG_BY_NAME].find(([, c]) => (c.bm / c.tm) * (c.bn / c.tn) > caps.maxComputeInvocationsPerWorkgroup || c.bk * (c.bm + c.bn) * 4 * (c.db ? 2 : 1) > caps.maxComputeWorkgroupStorageSize);
    const limited = await createDevice({ limitCaps: { maxComputeInvocationsPerWorkgroup: 128 } });
    try {
      await expect(compile(g, limited, { matmulTuning: { [matmulShapeKey(SHAPE)]: '128x128x16/8x8' } })).rejects.toThrow(KernelError);
      await expect(compile(g, limited, { matmulTuning: { [matmulShapeKey(SHAPE)]: '128x128x16/8x8' } })).rejects.toThrow(/'128x128x16\/8x8', which does not fit the device: 256 invocations > maxComputeInvocationsPerWorkgroup \(device value 128\)/);
      // an entry for a shape the graph does not have is checked too: a table is applied whole or refused
      await expect(compile(g, limited, { matmulTuning: { '8x8x8:NN:b1': '128x128x16/8x8' } })).rejects.toThrow(/does not fit the device/);
    } finally {
      limited.destroy();
    }
    if (tooBig) await expect(compile(g, device, { matmulTuning: { [matmulShapeKey(SHAPE)]: tooBig[0] } })).rejects.toThrow(/does not fit the device/);
  });

  it('keeps choices per adapter in the cache: a second run measures nothing; a misfit cached entry is measured again', async () => {
    const cache = memoryTuningCache();
    let loads = 0;
    const counted = {
      load: (a: string) => {
        loads++;
        return cache.load(a);
      },
      save: cache.save,
    };
    const first = await tuneMatmul(device, [SHAPE], { candidates: CANDIDATES.slice(0, 2), repeats: 1, cache: counted });
    expect(first.measured).toBe(1);
    expect(cache.records.get(adapterKey(device))).toEqual({ [matmulShapeKey(SHAPE)]: first.shapes[0].choice });
    const second = await tuneMatmul(device, [SHAPE], { candidates: CANDIDATES.slice(0, 2), repeats: 1, cache: counted });
    expect(loads).toBe(2);
    expect(second.measured).toBe(0);
    expect(second.shapes[0]).toMatchObject({ cached: true, choice: first.shapes[0].choice, timings: [] });
    expect(second.tuning).toEqual(first.tuning);

    // a cached choice the device cannot run (recorded under other limits) is not applied: it is measured again
    const limited = await createDevice({ limitCaps: { maxComputeInvocationsPerWorkgroup: 128 } });
    try {
      await cache.save(adapterKey(limited), { [matmulShapeKey(SHAPE)]: '128x128x16/8x8' });
      const warnings: string[] = [];
      const third = await tuneMatmul(limited, [SHAPE], { candidates: CANDIDATES.slice(0, 1), repeats: 1, cache, warn: (m) => warnings.push(m) });
      expect(third.measured).toBe(1);
      expect(warnings).toEqual([expect.stringMatching(/entry '40x72x24:NT:b1' → '128x128x16\/8x8' does not fit this device \(256 invocations/)]);
      expect(['default', '32x32x16/4x4']).toContain(third.shapes[0].choice);
    } finally {
      limited.destroy();
    }
  });
});

// The matmul-tuning page (web/tuning.html, bundled to web/dist/tuningPage.js by `pnpm web:build`; driven by web/tuningCheck.mjs in headless
// Chromium). `?mode=write`: deletes the IndexedDB database, compiles a small training step with `autotune` and the
// IndexedDB tuning cache (it measures every matmul shape and saves the choices), runs a step. `?mode=read` (after
// a reload: a new page, a new cache object, the database reopened): the same compile reads the cache and measures
// nothing; the record is also read back raw. `?mode=tune&shapes=MxNxK:NN:b1,...`: tunes those shapes on this
// browser's adapter (shipped-table measurements for the software adapters). `?mode=ab&rounds=N`: the bench's GPT
// 2×128 training step (ctx 64, batch 16, AdamW) compiled with and without the adapter's shipped table, timed in
// alternating rounds of synced steps (what the shipped table is worth here). The outcome lands in
// body[data-result] (JSON) or body[data-error].

import { Graph, tensor } from '@neura/ir';
import { adam } from '@neura/optim';
import { compileTraining, GPT, mlp } from '@neura/nn';
import { adamW } from '@neura/optim';
import { adapterKey, createDevice, indexedDbTuningCache, matmulShapesOf, type NeuraDevice, shippedMatmulTuning, tuneMatmul } from '@neura/runtime-webgpu';
import { MATMUL_CONFIG_BY_NAME, type MatmulShape } from '@neura/wgsl-kernels';

const DB = 'neura-tuning-check';
const params = new URLSearchParams(location.search);

/** A two-layer MLP training step (three matmul shapes forward and backward), and its feeds. */
function smallStep() {
  const B = 8;
  const F = 6;
  const C = 10;
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const loss = g.crossEntropy(mlp([F, 16, C]).forward(g, x), labels);
  const feeds = { x: tensor([B, F], Array.from({ length: B * F }, (_, i) => Math.sin(i * 0.7))), labels: tensor([B], Array.from({ length: B }, (_, i) => (i * 3) % C), 'i32') };
  return { g, loss, feeds };
}

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

async function deleteDb(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const r = indexedDB.deleteDatabase(DB);
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
    r.onblocked = () => reject(new Error(`IndexedDB '${DB}' is open elsewhere`));
  });
}

/** The stored record of `adapter`, read without the cache (what survived the reload). */
async function rawRecord(adapter: string): Promise<unknown> {
  const db = await request(indexedDB.open(DB));
  try {
    return await request(db.transaction('records', 'readonly').objectStore('records').get(adapter));
  } finally {
    db.close();
  }
}

async function roundTrip(device: NeuraDevice, mode: 'write' | 'read') {
  if (mode === 'write') await deleteDb();
  const warnings: string[] = [];
  const { g, loss, feeds } = smallStep();
  const candidates = ['32x32x16/4x4+u', '64x64x16/8x4'].map((n) => MATMUL_CONFIG_BY_NAME.get(n) as NonNullable<ReturnType<typeof MATMUL_CONFIG_BY_NAME.get>>);
  const train = await compileTraining(g, { loss, optimizer: adam({ lr: 1e-2 }), device, autotune: { cache: indexedDbTuningCache(DB, (m) => warnings.push(m)), candidates, repeats: 1 } });
  const lossValue = await train.step(feeds, { readLoss: true });
  const r = train.autotuned;
  const out = {
    mode,
    adapter: adapterKey(device),
    shapes: matmulShapesOf(train.graph).length,
    measured: r?.measured,
    cached: r?.shapes.filter((s) => s.cached).length,
    tuning: r?.tuning,
    record: await rawRecord(adapterKey(device)),
    loss: lossValue,
    warnings,
  };
  train.dispose();
  return out;
}

async function tune(device: NeuraDevice) {
  const shapes: MatmulShape[] = (params.get('shapes') ?? '').split(',').filter(Boolean).map((key) => {
    const m = /^(\d+)x(\d+)x(\d+):([NT])([NT]):b(\d+)$/.exec(key);
    if (!m) throw new Error(`not a shape key: ${key}`);
    return { m: +m[1], n: +m[2], k: +m[3], transA: m[4] === 'T', transB: m[5] === 'T', batches: +m[6] };
  });
  const r = await tuneMatmul(device, shapes, { repeats: Number(params.get('repeats') ?? 3) });
  return {
    mode: 'tune',
    adapter: adapterKey(device),
    adapterInfo: device.adapterInfo,
    clock: r.clock,
    tuning: r.tuning,
    shapes: r.shapes.map((s) => ({ key: s.key, choice: s.choice, timings: s.timings })),
  };
}

/** Alternating rounds of 3 synced steps of the GPT 2×128 step with (`shipped`) and without (`heuristic`) the shipped table. */
async function ab(device: NeuraDevice) {
  const c = { layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65, attention: 'op' as const };
  const n = c.batch * c.context;
  const feeds = { tokens: Int32Array.from({ length: n }, (_, i) => (i * 31 + 7) % c.vocab), targets: Int32Array.from({ length: n }, (_, i) => (i * 17 + 3) % c.vocab) };
  const build = (shippedMatmulTuning: boolean) => {
    const { graph, loss } = new GPT(c).trainingGraph(c.batch);
    return compileTraining(graph, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device, shippedMatmulTuning });
  };
  const sessions = { heuristic: await build(false), shipped: await build(true) };
  const rounds: Record<string, number[]> = { heuristic: [], shipped: [] };
  for (const t of Object.values(sessions)) await t.step(feeds, { readLoss: true }); // warm-up
  for (let r = 0; r < Number(params.get('rounds') ?? 4); r++)
    for (const [name, t] of Object.entries(sessions)) {
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) {
        await t.step(feeds);
        await t.session.sync();
      }
      rounds[name].push((performance.now() - t0) / 3);
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const out = { mode: 'ab', adapter: adapterKey(device), rounds, heuristicMs: median(rounds.heuristic), shippedMs: median(rounds.shipped), dispatches: { heuristic: sessions.heuristic.stats.dispatchesPerStep, shipped: sessions.shipped.stats.dispatchesPerStep } };
  for (const t of Object.values(sessions)) t.dispose();
  return out;
}

async function main() {
  const device = await createDevice();
  try {
    const mode = params.get('mode') ?? 'write';
    if (mode !== 'tune' && mode !== 'ab' && mode !== 'write' && mode !== 'read') throw new Error(`unknown mode '${mode}' (write, read, tune or ab)`);
    const result = mode === 'tune' ? await tune(device) : mode === 'ab' ? await ab(device) : await roundTrip(device, mode);
    document.body.dataset.result = JSON.stringify({ ...result, shipped: shippedMatmulTuning(device)?.source ?? null });
  } finally {
    device.destroy();
  }
}

main().catch((e) => {
  document.body.dataset.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
});

// The mixed-precision bench (`precision: 'mixed'`: f16 matmul operands on tensor cores, f32 accumulation), for a
// GPU whose Dawn adapter offers `chromium-experimental-subgroup-matrix` (the H200): (1) every matmul form against
// the interpreter on f16-rounded operands, (2) the GPT steps: the first loss of mixed against fp32 from the same
// weights, losses over training steps on one batch, synced step times, (3) each GPT 6x384 matmul shape and 4096³
// in fp32 and mixed (GPU timestamps; 4096³ first). python/reference.py `mixed` is the PyTorch side (autocast).
// (4) a sweep of kernel tilings (double buffering, deeper slices). Run: node mixed.mjs [--out=FILE] [--steps=N]
// [--only=check,gpt-6x384,sweep,kernels]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Graph, interpret, type PwExpr, type TensorValue, tensor } from '@neura/ir';
import { capsFor, compile, createDevice, type NeuraDevice, seededUniform } from '@neura/runtime-webgpu';
import { generateKernel, isSpecOf, type KernelGenerator, matmulProblemOf, type SubgroupMatrixTiling, subgroupMatrixPlan } from '@neura/wgsl-kernels';
import { timeSyncedSteps } from './workloads/stepFigures.js';
import { buildGpt, GPT_WORKLOADS } from './workloads/gpt.js';
import { benchMatmulShape, GPT_MATMULS } from './workloads/kernels.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, steps: { type: 'string', default: '20' }, only: { type: 'string' } } });
/** A generator that plans every matmul on subgroup matrices with tiling `t` (everything else as usual). */
const withTiling =
  (t: SubgroupMatrixTiling): KernelGenerator =>
  (spec, caps) =>
    isSpecOf(spec, 'matmul', 'fusedMatmul', 'matmulEpilogue') && caps.mixedMatmul ? (subgroupMatrixPlan(matmulProblemOf(spec), caps, t) ?? generateKernel(spec, caps)) : generateKernel(spec, caps);
/** Tilings the sweep compares (the shipped default first). */
const SWEEP: readonly SubgroupMatrixTiling[] = [
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32 },
  { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, db: true },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, db: true },
  { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 64 },
];
const want = (x: string) => !args.only || args.only.split(',').some((o) => x.startsWith(o));
const log = (s: string) => console.error(`[mixed] ${s}`);
const results: Record<string, unknown> = {};
const save = () => args.out && writeFileSync(args.out, JSON.stringify(results, null, 1));

const dev: NeuraDevice = await createDevice({ mixedPrecision: true, dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
results.adapter = { name: dev.name, features: [...dev.features].sort(), subgroupMatrixConfigs: dev.adapterInfo.subgroupMatrixConfigs, subgroupSizes: dev.adapterInfo.subgroupSizes };
log(`adapter ${dev.name}: ${JSON.stringify(results.adapter)}`);
try {
  results.mixedCaps = capsFor(dev, 'mixed').mixedMatmul;
} catch (e) {
  results.error = String(e);
  log(String(e));
  save();
  process.exit(0);
}

const randoms = seededUniform;
function f16(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const q = 2 ** (e - 10);
  const t = a / q;
  let r = Math.round(t);
  if (r - t === 0.5 && r % 2 === 1) r -= 1;
  return Math.sign(x) * r * q;
}

// (1) correctness: the forms of the GPU test (runtime-webgpu/test/mixedPrecision.gpu.test.ts) plus GPT-sized ones
if (want('check')) {
  const cases: { name: string; a: number[]; b: number[]; transA?: boolean; transB?: boolean; epilogue?: boolean; tiling?: SubgroupMatrixTiling }[] = [
    { name: 'double-buffered, Aᵀ·B + GELU', a: [200, 136], b: [200, 96], transA: true, epilogue: true, tiling: SWEEP[1] },
    { name: 'double-buffered, odd sizes', a: [97, 37], b: [65, 37], transB: true, tiling: SWEEP[2] },
    { name: 'BK 64, A·B', a: [130, 200], b: [200, 72], tiling: SWEEP[3] },
    { name: 'A·B partial tiles', a: [200, 96], b: [96, 136] },
    { name: 'Aᵀ·B', a: [96, 130], b: [96, 72], transA: true },
    { name: 'A·Bᵀ', a: [130, 64], b: [72, 64], transB: true },
    { name: 'Aᵀ·Bᵀ', a: [64, 130], b: [72, 64], transA: true, transB: true },
    { name: 'odd sizes', a: [97, 37], b: [37, 65] },
    { name: 'bias+GELU epilogue', a: [160, 48], b: [48, 100], epilogue: true },
    { name: 'bias+GELU epilogue Bᵀ', a: [160, 48], b: [100, 48], transB: true, epilogue: true },
    { name: 'batched', a: [3, 80, 24], b: [3, 24, 40] },
    { name: 'split-K', a: [2100, 96], b: [2100, 40], transA: true },
    // GPT-like shapes, kept small: the reference interpreter is plain JS (4096x1536x384 took tens of seconds)
    { name: 'GPT fc 1024x1536x384 + GELU', a: [1024, 384], b: [384, 1536], epilogue: true },
    { name: 'GPT head 2048x65x384 Bᵀ', a: [2048, 384], b: [65, 384], transB: true },
  ];
  const out: unknown[] = [];
  for (const c of cases) {
    const g = new Graph();
    const a = g.input('a', c.a);
    const b = g.input('b', c.b);
    const attrs = { transA: c.transA ?? false, transB: c.transB ?? false };
    const n = c.b[c.b.length - (attrs.transB ? 2 : 1)];
    const k = c.a[c.a.length - (attrs.transA ? 2 : 1)];
    const feeds: Record<string, TensorValue> = { a: tensor(c.a, randoms(c.a.reduce((x, y) => x * y, 1), 11)), b: tensor(c.b, randoms(c.b.reduce((x, y) => x * y, 1), 12)) };
    let y: ReturnType<Graph['input']>;
    if (c.epilogue) {
      feeds.bias = tensor([n], randoms(n, 13));
      const expr: PwExpr = { op: 'geluTanh', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } };
      y = g.node('matmulEpilogue', [a, b, g.input('bias', [n])], { ...attrs, expr });
    } else y = g.matmul(a, b, attrs);
    g.output('y', y);
    try {
      const session = await compile(g, dev, { precision: 'mixed', label: c.name, ...(c.tiling ? { generator: withTiling(c.tiling) } : {}) });
      const gpu = (await session.step(feeds, { read: ['y'] })).outputs.y.data;
      session.dispose();
      const round = (v: TensorValue) => tensor(v.shape, Array.from(v.data, f16));
      const rounded = interpret(g, { ...feeds, a: round(feeds.a), b: round(feeds.b) }, {}, 'f32').outputs.y.data;
      const exact = interpret(g, feeds, {}, 'f32').outputs.y.data;
      let errR = 0;
      let errX = 0;
      let big = 0;
      for (let i = 0; i < gpu.length; i++) {
        errR = Math.max(errR, Math.abs(gpu[i] - rounded[i]));
        errX = Math.max(errX, Math.abs(gpu[i] - exact[i]));
        big = Math.max(big, Math.abs(exact[i]));
      }
      // ok only on the f16 path: an fp32 kernel would miss the rounded reference by ~1e-3·√K
      const ok = errR <= 1e-4 * big + 2e-5 * Math.sqrt(k) && errX <= 1e-2 * big + 2e-3 * Math.sqrt(k);
      out.push({ name: c.name, k, maxErrVsRounded: errR, maxErrVsF32: errX, maxAbs: big, ok });
      log(`check ${c.name}: ${ok ? 'ok' : 'FAIL'} vs f16-rounded ${errR.toExponential(2)}, vs f32 ${errX.toExponential(2)} (max |y| ${big.toFixed(2)})`);
    } catch (e) {
      out.push({ name: c.name, error: String(e).slice(0, 1500) });
      log(`check ${c.name}: ERROR ${String(e).slice(0, 1500)}`);
    }
  }
  results.checks = out;
  save();
}

// (2) GPT steps: first loss fp32 vs mixed (same initial weights), losses over training steps, step time
const steps = Number(args.steps);
for (const w of GPT_WORKLOADS) {
  if (!want(w.name)) continue;
  const row: Record<string, unknown> = {};
  results[w.name] = row;
  for (const p of ['fp32', 'mixed'] as const) {
    try {
      const t0 = performance.now();
      const { train, batches } = await buildGpt(w, dev, p);
      const losses: number[] = [];
      for (let i = 0; i < steps; i++) losses.push(await train.step(batches[0], { readLoss: true }));
      const compileAndTrainMs = performance.now() - t0;
      const synced = await timeSyncedSteps(train, batches, { steps: 50, warmup: 5, warmupMs: 1000 });
      row[p] = { losses, synced, compileAndTrainMs, dispatchesPerStep: train.stats.dispatchesPerStep, bytesAllocated: train.stats.bytesAllocated };
      log(`${w.name} ${p}: synced ${synced.medianMs.toFixed(3)} ms, ${train.stats.dispatchesPerStep} dispatches, losses ${losses.map((l) => l.toFixed(4)).join(' ')}`);
      train.dispose();
    } catch (e) {
      row[p] = { error: String(e).slice(0, 1500) };
      log(`${w.name} ${p}: ERROR ${String(e).slice(0, 1500)}`);
    }
    save();
  }
}
// (4) tilings of the subgroup-matrix kernel (double buffering, deeper slices) on 4096³ and three GPT shapes
if (want('sweep')) {
  const out: Record<string, unknown> = {};
  const shapes = GPT_MATMULS.filter((s) => ['square-4096', 'fwd-proj-16384x384x1536', 'dx-16384x1536x384-Bt', 'fwd-fc-16384x1536x384'].includes(s.name));
  for (const s of shapes)
    for (const t of SWEEP) {
      const key = `${s.name} ${t.sgm}x${t.sgn}/${t.fm}x${t.fn}/bk${t.bk}${t.db ? '+db' : ''}`;
      try {
        const r = await benchMatmulShape(s, dev, 10, undefined, 'mixed', withTiling(t));
        out[key] = r;
        log(`sweep ${key}: ${r.medianMs.toFixed(4)} ms, ${r.tflops?.toFixed(1)} TFLOP/s`);
      } catch (e) {
        out[key] = { error: String(e).slice(0, 600) };
        log(`sweep ${key}: ERROR ${String(e).slice(0, 600)}`);
      }
      results.sweep = out;
      save();
    }
}

// (3) matmul shapes: fp32 vs mixed
if (want('kernels')) {
  const k: Record<string, unknown> = {};
  for (const s of [...GPT_MATMULS].sort((x, y) => Number(y.name === 'square-4096') - Number(x.name === 'square-4096'))) {
    const row: Record<string, unknown> = {};
    for (const p of ['fp32', 'mixed'] as const) {
      try {
        const r = await benchMatmulShape(s, dev, 10, undefined, p);
        row[p] = r;
        log(`${s.name} ${p}: ${r.medianMs.toFixed(4)} ms, ${r.tflops?.toFixed(1)} TFLOP/s (${r.plan})`);
      } catch (e) {
        row[p] = { error: String(e).slice(0, 800) };
        log(`${s.name} ${p}: ERROR ${String(e).slice(0, 800)}`);
      }
    }
    k[s.name] = row;
    save();
  }
  results.kernels = k;
  save();
}

save();
dev.destroy();
process.exit(0);

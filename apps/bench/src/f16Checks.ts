// The checks both mixed-precision device bundles run (mixedF16Check.ts on the tensor-core path, mixedPortableCheck.ts
// on the portable path): f16 kernels and a GPT 2x128 autocast training graph compared with the interpreter on the
// same graphs (its casts round to f16 as the device does), and synced GPT step times. Measures; asserts nothing.

import { grad } from '@neura/autograd';
import { optimize } from '@neura/egraph';
import { Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { autocast, compileTraining, GPT, recognizedForward } from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, compile, type NeuraDevice, type Precision, seededUniform } from '@neura/runtime-webgpu';
import { gptBatches, GPT_WORKLOADS, MIXED_LOSS_SCALE } from './workloads/gpt.js';
import { timeSyncedSteps } from './workloads/stepFigures.js';

/** Largest |a − b| over the largest |b| (1 when b is all zero), and whether every value is finite. */
export function relErr(a: TensorValue, b: TensorValue): { rel: number; maxAbs: number; finite: boolean } {
  let worst = 0;
  let scale = 0;
  let finite = true;
  for (let i = 0; i < b.data.length; i++) {
    if (!Number.isFinite(a.data[i])) finite = false;
    worst = Math.max(worst, Math.abs(a.data[i] - b.data[i]));
    scale = Math.max(scale, Math.abs(b.data[i]));
  }
  return { rel: worst / (scale || 1), maxAbs: worst, finite };
}

/** Seeded uniform values in [−scale, scale). */
export const input = (shape: number[], seed: number, scale = 1): TensorValue =>
  tensor(shape, Array.from(seededUniform(shape.reduce((a, b) => a * b, 1), seed), (v) => (v * 2 - 1) * scale));

/** One graph's comparison: per output, its error and dtype; `ok` when every output is finite and within tolerance. */
export interface GraphCheck {
  readonly ok: boolean;
  readonly outputs: Record<string, unknown>;
  readonly dispatches: number;
}

/** Runs `g` optimized on the device under `mixed` and in the interpreter (f32); compares every output. */
export async function checkGraph(dev: NeuraDevice, name: string, g: Graph, feeds: Record<string, TensorValue>, tol: number): Promise<GraphCheck> {
  const want = interpret(g, feeds, {}, 'f32').outputs;
  const { graph } = optimize(g, { limits: capsFor(dev, 'mixed') });
  const s = await compile(graph, dev, { label: `f16-check-${name}`, precision: 'mixed' });
  const got = (await s.step(feeds, { read: [...g.outputs.keys()] })).outputs;
  s.dispose();
  const per: Record<string, unknown> = {};
  let ok = true;
  for (const k of g.outputs.keys()) {
    const e = relErr(got[k], want[k]);
    const pass = e.finite && e.rel <= tol && got[k].dtype === want[k].dtype;
    ok &&= pass;
    per[k] = { ...e, dtype: got[k].dtype, pass };
  }
  return { ok, outputs: per, dispatches: graph.live().length };
}

/** [m, k, n, transA, transB, epilogue]: every transpose form, with and without a bias + GELU epilogue, odd sizes. */
const MATMUL_CASES: readonly (readonly [number, number, number, boolean, boolean, boolean])[] = [
  [200, 96, 136, false, false, false],
  [1024, 384, 1536, false, false, true],
  [97, 37, 65, false, true, false],
  [2048, 384, 65, false, true, false],
  [136, 200, 96, true, false, false],
  [384, 2100, 96, true, false, false], // long reduction: split-K
  [96, 72, 130, true, false, true],
  [65, 37, 97, true, true, false],
  [128, 64, 96, true, true, true],
  [256, 128, 384, false, true, true],
];

/** f16 kernels (a fused pointwise chain with casts, an f16 reduction, f16 matmuls of every form) against the interpreter. */
export async function f16KernelChecks(dev: NeuraDevice, log: (s: string) => void): Promise<Record<string, GraphCheck>> {
  const out: Record<string, GraphCheck> = {};
  const run = async (name: string, g: Graph, feeds: Record<string, TensorValue>, tol: number) => {
    out[name] = await checkGraph(dev, name, g, feeds, tol);
    log(`${name}: ${out[name].ok ? 'ok' : 'MISMATCH'} ${JSON.stringify(out[name].outputs)}`);
  };
  {
    const g = new Graph();
    const x = g.input('x', [257, 33]);
    const y = g.input('y', [33]);
    const h = g.mul(g.gelu(g.cast(x, 'f16'), { approximate: 'tanh' }), g.cast(y, 'f16'));
    g.output('h16', h);
    g.output('out', g.cast(g.add(h, 1), 'f32'));
    g.output('rowsum', g.sum(h, [1]));
    await run('pointwise-and-sum', g, { x: input([257, 33], 1, 3), y: input([33], 2) }, 2e-3);
  }
  // tolerance: a few f16 ulps of the largest value (the f16 result is rounded once, after f32 accumulation)
  for (const [m, k, n, transA, transB, epi] of MATMUL_CASES) {
    const g = new Graph();
    const aShape = transA ? [k, m] : [m, k];
    const bShape = transB ? [n, k] : [k, n];
    let p: Tensor = g.matmul(g.cast(g.input('a', aShape), 'f16'), g.cast(g.input('b', bShape), 'f16'), { transA, transB });
    if (epi) p = g.gelu(g.add(p, g.cast(g.input('bias', [n]), 'f16')), { approximate: 'tanh' });
    g.output('y', p);
    g.output('y32', g.cast(p, 'f32'));
    const feeds: Record<string, TensorValue> = { a: input(aShape, 3), b: input(bShape, 4) };
    if (epi) feeds.bias = input([n], 5);
    await run(`matmul-${m}x${k}x${n}${transA ? '-At' : ''}${transB ? '-Bt' : ''}${epi ? '-bias-gelu' : ''}`, g, feeds, 4e-3);
  }
  return out;
}

/** The GPT 2x128 training graph under autocast: loss and every parameter's gradient, device against interpreter. */
export async function gptAutocastCheck(dev: NeuraDevice, log: (s: string) => void): Promise<Record<string, unknown>> {
  const w = GPT_WORKLOADS[0];
  const c = w.config;
  const fwd = new GPT(c).trainingGraph(c.batch);
  const r = recognizedForward(fwd.graph, fwd.loss);
  const { graph: g, loss } = autocast(r.graph, r.loss);
  g.output('loss', loss);
  const params = g.leaves('param');
  grad(g, loss, params).forEach((d, i) => {
    g.output(`grad:${params[i].attrs.name}`, d);
  });
  const feeds = gptBatches(w, 1)[0] as Record<string, Int32Array>;
  const tv = { tokens: tensor([c.batch, c.context], feeds.tokens, 'i32'), targets: tensor([c.batch, c.context], feeds.targets, 'i32') };
  const t0 = performance.now();
  const want32 = interpret(g, tv, {}, 'f32').outputs;
  log(`interpreter: ${(performance.now() - t0).toFixed(0)} ms`);
  const { graph, report } = optimize(g, { limits: capsFor(dev, 'mixed') });
  const s = await compile(graph, dev, { label: 'f16-check-gpt', precision: 'mixed' });
  const got = (await s.step(tv, { read: [...g.outputs.keys()] })).outputs;
  s.dispose();
  const per: Record<string, unknown> = {};
  let worst = 0;
  for (const k of g.outputs.keys()) {
    const e = relErr(got[k], want32[k]);
    worst = Math.max(worst, e.finite ? e.rel : Number.POSITIVE_INFINITY);
    per[k] = e;
  }
  const lossErr = Math.abs(got.loss.data[0] - want32.loss.data[0]);
  log(`gpt-2x128: loss ${got.loss.data[0]} vs ${want32.loss.data[0]}, worst gradient rel err ${worst.toExponential(2)}`);
  return { loss: { device: got.loss.data[0], interpreter: want32.loss.data[0], absErr: lossErr }, worstGradRelErr: worst, dispatches: report.dispatchesAfter, outputs: per, ok: lossErr < 1e-2 && worst < 2e-2 };
}

/** A compileTraining variant timed by `gptStepTimes`: its precision and autocast option (unset: the default). */
export interface StepVariant {
  readonly name: string;
  readonly precision: Precision;
  readonly autocast?: boolean;
  /** compileTraining's `lossScale` under mixed (default: the bench's static MIXED_LOSS_SCALE). */
  readonly lossScale?: 'dynamic' | number;
}

/** Synced step times of GPT workload `index` (0: 2x128, 1: 6x384) under each variant, with its first loss. */
export async function gptStepTimes(dev: NeuraDevice, index: number, variants: readonly StepVariant[], steps: number, log: (s: string) => void, onEach?: () => void): Promise<Record<string, unknown>> {
  const w = GPT_WORKLOADS[index];
  const c = w.config;
  const timing: Record<string, unknown> = {};
  for (const v of variants) {
    const { graph, loss } = new GPT(c).trainingGraph(c.batch);
    const t0 = performance.now();
    const train = await compileTraining(graph, {
      loss,
      optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }),
      device: dev,
      precision: v.precision,
      ...(v.autocast === undefined ? {} : { autocast: v.autocast }),
      ...(v.precision === 'mixed' ? { lossScale: v.lossScale ?? MIXED_LOSS_SCALE } : {}),
    });
    const compileMs = performance.now() - t0;
    const batches = gptBatches(w);
    const first = await train.step(batches[0], { readLoss: true });
    const t = await timeSyncedSteps(train, batches, { steps, warmup: 5, warmupMs: 2000 });
    const bytes = train.stats.bytesAllocated;
    timing[v.name] = { compileMs, firstLoss: first, medianMs: t.medianMs, p10Ms: t.p10Ms, dispatches: train.report?.dispatchesAfter, bytesAllocated: bytes };
    log(`${w.name} ${v.name}: median ${t.medianMs.toFixed(2)} ms, first loss ${first}`);
    train.dispose();
    onEach?.();
  }
  return timing;
}

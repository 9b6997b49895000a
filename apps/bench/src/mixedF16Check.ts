// The f16-storage check of `precision: 'mixed'` for a GPU with `shader-f16` (CI's software adapters lack it):
// (1) f16 kernels (a fused pointwise chain with casts, an f16 reduction, f16 matmuls with and without an epilogue)
// against the interpreter on the same graphs; (2) a GPT 2x128 training graph under autocast's policy: loss and every
// parameter's gradient from the device against the interpreter on that f16-policy graph; (3) GPT 6x384 synced step
// times: fp32, mixed with f32 storage (`autocast: false`, the old mixed) and mixed with f16 storage. Bundle and run:
//   node .devkit/f16-check.mjs [--out=FILE] [--steps=N] [--only=kernels,gpt-2x128,timing]

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { grad } from '@neura/autograd';
import { optimize } from '@neura/egraph';
import { Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { autocast, compileTraining, GPT, recognizedForward } from '@neura/nn';
import { adamW } from '@neura/optim';
import { capsFor, compile, createDevice, type NeuraDevice, type Precision, seededUniform } from '@neura/runtime-webgpu';
import { gptBatches, GPT_WORKLOADS, MIXED_LOSS_SCALE } from './workloads/gpt.js';
import { timeSyncedSteps } from './workloads/stepFigures.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, steps: { type: 'string', default: '30' }, only: { type: 'string' } } });
const want = (x: string) => !args.only || args.only.split(',').some((o) => x.startsWith(o));
const log = (s: string) => console.error(`[f16-check] ${s}`);
const results: Record<string, unknown> = {};
const save = () => {
  if (args.out) writeFileSync(args.out, JSON.stringify(results, null, 1));
};

const dev: NeuraDevice = await createDevice({ mixedPrecision: true, dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
results.adapter = { name: dev.name, shaderF16: dev.features.has('shader-f16'), subgroupMatrixConfigs: dev.adapterInfo.subgroupMatrixConfigs };
try {
  results.mixedCaps = capsFor(dev, 'mixed').mixedMatmul;
} catch (e) {
  results.error = String(e);
  log(`skipped: ${String(e)}`);
  console.log(JSON.stringify(results, null, 1));
  save();
  process.exit(0);
}

/** Largest |a − b| over the largest |b| (1 when b is all zero), and whether every value is finite. */
function relErr(a: TensorValue, b: TensorValue): { rel: number; maxAbs: number; finite: boolean } {
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

/** Runs `g` optimized on the device under mixed precision and in the interpreter (f32); compares every output. */
async function check(name: string, g: Graph, feeds: Record<string, TensorValue>, tol: number): Promise<boolean> {
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
  log(`${name}: ${ok ? 'ok' : 'MISMATCH'} ${JSON.stringify(per)}`);
  (results.kernels as Record<string, unknown>)[name] = { ok, outputs: per, dispatches: graph.live().length };
  return ok;
}

const input = (shape: number[], seed: number, scale = 1): TensorValue =>
  tensor(shape, Array.from(seededUniform(shape.reduce((a, b) => a * b, 1), seed), (v) => (v * 2 - 1) * scale));

// (1) f16 kernels against the interpreter (tolerance: a few f16 ulps of the largest value)
if (want('kernels')) {
  results.kernels = {};
  {
    const g = new Graph();
    const x = g.input('x', [257, 33]);
    const y = g.input('y', [33]);
    const h = g.mul(g.gelu(g.cast(x, 'f16'), { approximate: 'tanh' }), g.cast(y, 'f16'));
    g.output('h16', h);
    g.output('out', g.cast(g.add(h, 1), 'f32'));
    g.output('rowsum', g.sum(h, [1]));
    await check('pointwise-and-sum', g, { x: input([257, 33], 1, 3), y: input([33], 2) }, 2e-3);
  }
  for (const [m, k, n, trans, epi] of [
    [200, 96, 136, false, false],
    [1024, 384, 1536, false, true],
    [97, 37, 65, true, false],
    [2048, 384, 65, true, false],
  ] as const) {
    const g = new Graph();
    const a = g.input('a', [m, k]);
    const b = g.input('b', trans ? [n, k] : [k, n]);
    let p: Tensor = g.matmul(g.cast(a, 'f16'), g.cast(b, 'f16'), { transB: trans });
    if (epi) p = g.gelu(g.add(p, g.cast(g.input('bias', [n]), 'f16')), { approximate: 'tanh' });
    g.output('y', p);
    g.output('y32', g.cast(p, 'f32'));
    const feeds: Record<string, TensorValue> = { a: input([m, k], 3), b: input(trans ? [n, k] : [k, n], 4) };
    if (epi) feeds.bias = input([n], 5);
    await check(`matmul-${m}x${k}x${n}${trans ? '-Bt' : ''}${epi ? '-bias-gelu' : ''}`, g, feeds, 4e-3);
  }
  save();
}

// (2) GPT 2x128 under autocast: loss and gradients from the device against the interpreter on the same graph
if (want('gpt-2x128')) {
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
  results['gpt-2x128'] = { loss: { device: got.loss.data[0], interpreter: want32.loss.data[0], absErr: lossErr }, worstGradRelErr: worst, dispatches: report.dispatchesAfter, outputs: per, ok: lossErr < 1e-2 && worst < 2e-2 };
  log(`gpt-2x128: loss ${got.loss.data[0]} vs ${want32.loss.data[0]}, worst gradient rel err ${worst.toExponential(2)}`);
  save();
}

// (3) GPT 6x384 step times: fp32, mixed with f32 storage (autocast: false), mixed with f16 storage
if (want('timing')) {
  const w = GPT_WORKLOADS[1];
  const c = w.config;
  const steps = Number(args.steps);
  const timing: Record<string, unknown> = {};
  for (const [name, precision, cast] of [
    ['fp32', 'fp32', false],
    ['mixed-f32-storage', 'mixed', false],
    ['mixed-f16-storage', 'mixed', true],
  ] as const) {
    const { graph, loss } = new GPT(c).trainingGraph(c.batch);
    const t0 = performance.now();
    const train = await compileTraining(graph, {
      loss,
      optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }),
      device: dev,
      precision: precision as Precision,
      autocast: cast,
      ...(precision === 'mixed' ? { lossScale: MIXED_LOSS_SCALE } : {}),
    });
    const compileMs = performance.now() - t0;
    const batches = gptBatches(w);
    const first = await train.step(batches[0], { readLoss: true });
    const t = await timeSyncedSteps(train, batches, { steps, warmup: 5, warmupMs: 2000 });
    timing[name] = { compileMs, firstLoss: first, medianMs: t.medianMs, p10Ms: t.p10Ms, dispatches: train.report?.dispatchesAfter };
    log(`${name}: median ${t.medianMs.toFixed(2)} ms, first loss ${first}`);
    train.dispose();
    save();
  }
  results['gpt-6x384-timing'] = timing;
}

console.log(JSON.stringify(results, null, 1));
save();

// Weight-only Q8_0 / Q4_0 inference on a GPU, f32 vs q8_0 vs q4_0 on the same weights: (1) KV-cache generation tokens/s, the decode
// step's time, the logits' error and the weight bytes on the device, for GPT 6x384 and 12x768 (random weights, untied
// head: every Linear quantized); (2) with `--corpus FILE` (text, e.g. the State of the Union addresses), a character
// GPT trained briefly on 90% of it, then validation loss (nats per character) and perplexity per format.
//   node .devkit/q8.mjs [--out FILE] [--tokens 128] [--models 6x384,12x768] [--corpus .devkit/sotu.txt] [--steps 600]
//   [--val-model 6x384] [--batch 64] [--context 256]

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bufferBytes, type Graph, isOp, numel } from '@neura/ir';
import { CharTokenizer, compileGenerator, compileInference, compileTraining, cosineLr, decodeFeeds, GPT, type LmBatch, randomWindows, Rng, type WeightFormat } from '@neura/nn';
import { adamW } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    tokens: { type: 'string', default: '128' },
    models: { type: 'string', default: '6x384,12x768' },
    corpus: { type: 'string', default: '.devkit/sotu.txt' },
    steps: { type: 'string', default: '600' },
    'val-model': { type: 'string', default: '6x384' },
    batch: { type: 'string', default: '64' },
    context: { type: 'string', default: '256' },
  },
});
const log = (s: string) => console.error(`[q8] ${s}`);
const device = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
const results: Record<string, unknown> = { adapter: device.name };
const save = () => args.out && writeFileSync(args.out, JSON.stringify(results, null, 1));

/** Bytes of the device's param/state leaves that hold the model's Linear weights (f32, or their Q8_0 / Q4_0 leaves). */
const weightBytes = (g: Graph, linear: ReadonlySet<string>) =>
  g.nodes
    .filter((n) => isOp(n, 'param', 'state') && (linear.has(n.attrs.name) || linear.has(n.attrs.name.replace(/\.q[48]_0\.(qs|d)$/, ''))))
    .reduce((s, n) => s + bufferBytes(n.dtype, numel(n.shape)), 0);

const FORMATS = ['f32', 'q8_0', 'q4_0'] as const;

// (1) generation: the same random weights decoded f32, q8_0 and q4_0
const maxTokens = Number(args.tokens);
const genRows: Record<string, unknown> = {};
results.generation = genRows;
for (const spec of args.models.split(',')) {
  const [layers, width] = spec.split('x').map(Number);
  const cfg = { vocab: width >= 768 ? 50304 : 65, context: 256, layers, heads: width / 64, width, tiedHead: false };
  const model = new GPT(cfg);
  const weights = model.initialState();
  const linear = new Set(Object.keys(weights).filter((n) => n.endsWith('.weight') && !n.includes('wte') && !n.includes('wpe') && weights[n].shape.length === 2));
  const prompt = Array.from({ length: 16 }, (_, i) => (i * 17 + 3) % cfg.vocab);
  const row: Record<string, unknown> = { config: cfg, parameters: model.parameterCount() };
  const logits: Partial<Record<WeightFormat, Float32Array>> = {};
  for (const weightsFormat of FORMATS) {
    const t0 = performance.now();
    const gen = await compileGenerator(model, { device, maxLen: cfg.context, weights: weightsFormat });
    const compileMs = performance.now() - t0;
    await gen.loadStateDict(weights);
    logits[weightsFormat] = Float32Array.from(await gen.prefill(prompt));
    await gen.generate(prompt, { maxTokens: 8, temperature: 0 }).next(); // warm-up
    // the decode step alone (no sampling): feed, run, read the logits
    const steps = 64;
    const s0 = performance.now();
    for (let i = 0; i < steps; i++) await gen.step(prompt[i % prompt.length], i);
    const stepMs = (performance.now() - s0) / steps;
    const g0 = performance.now();
    let produced = 0;
    for await (const _ of gen.generate(prompt, { maxTokens, temperature: 0 })) produced++;
    const s = (performance.now() - g0) / 1000;
    const graph = gen.session.backend === 'webgpu' ? gen.session.graph : undefined;
    // GPU time of one decode step by kernel class (timestamps; skipped on adapters without timestamp-query)
    let gpu: Record<string, number> | undefined;
    if (gen.session.backend === 'webgpu')
      try {
        const p = await gen.session.session.profile(decodeFeeds(prompt[0], 0, cfg.context), { repeats: 5 });
        const sum = p.summary();
        const matmulRows = sum.rows.filter((r) => /^(matmul|fusedMatmul|matmulEpilogue|matmulQ8|matmulQ4)\[/.test(r.label));
        gpu = { gpuMsPerStep: sum.gpuMs / 5, dispatchesPerStep: sum.dispatches / 5, matmulMsPerStep: matmulRows.reduce((a, r) => a + r.ms, 0) / 5 };
      } catch (e) {
        log(`no GPU profile: ${(e as Error).message}`);
      }
    row[weightsFormat] = { compileMs: Math.round(compileMs), stepMs: +stepMs.toFixed(3), tokensPerSecond: Math.round(produced / s), weightBytes: graph ? weightBytes(graph, linear) : undefined, ...gpu };
    log(
      `GPT ${spec} ${weightsFormat}: ${Math.round(produced / s)} tokens/s, decode step ${stepMs.toFixed(3)} ms` +
        `${gpu ? ` (GPU ${gpu.gpuMsPerStep.toFixed(3)} ms, matmuls ${gpu.matmulMsPerStep.toFixed(3)} ms, ${gpu.dispatchesPerStep} dispatches)` : ''}, Linear weights ${graph ? (weightBytes(graph, linear) / 2 ** 20).toFixed(1) : '?'} MiB`,
    );
    gen.dispose();
    save();
  }
  const a = logits.f32 as Float32Array;
  const argmax = (x: Float32Array) => x.indexOf(Math.max(...x));
  for (const format of ['q8_0', 'q4_0'] as const) {
    const b = logits[format] as Float32Array;
    let worst = 0;
    let num = 0;
    let den = 0;
    for (let i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
      num += (a[i] - b[i]) ** 2;
      den += a[i] ** 2;
    }
    const f = row.f32 as { tokensPerSecond: number; weightBytes: number; stepMs: number };
    const q = row[format] as { tokensPerSecond: number; weightBytes: number; stepMs: number };
    const vs = { logits: { relL2: Math.sqrt(num / den), maxAbs: worst, sameArgmax: argmax(a) === argmax(b) }, speedup: +(q.tokensPerSecond / f.tokensPerSecond).toFixed(3), stepSpeedup: +(f.stepMs / q.stepMs).toFixed(3), weightBytesRatio: +(f.weightBytes / q.weightBytes).toFixed(3) };
    row[`${format}VsF32`] = vs;
    log(`GPT ${spec}: ${format}/f32 tokens/s ${vs.speedup}, step ${vs.stepSpeedup}, bytes f32/${format} ${vs.weightBytesRatio}, logits rel L2 ${vs.logits.relL2.toExponential(2)}`);
  }
  genRows[spec] = row;
  save();
}

// (2) validation loss of a briefly trained character GPT, f32 vs q8_0 vs q4_0 weights
if (existsSync(args.corpus)) {
  const text = readFileSync(args.corpus, 'utf8');
  const tok = CharTokenizer.fromText(text);
  const ids = tok.encode(text);
  const split = Math.floor(ids.length * 0.9);
  const [train, val] = [ids.subarray(0, split), ids.subarray(split)];
  const [batch, context, steps] = [Number(args.batch), Number(args.context), Number(args.steps)];
  const [layers, width] = args['val-model'].split('x').map(Number);
  const model = new GPT({ vocab: tok.size, context, layers, heads: Math.max(1, width / 64), width, tiedHead: false });
  const t = model.train().trainingGraph(batch);
  const lr = t.graph.input('lr', []);
  const session = await compileTraining(t.graph, { loss: t.loss, optimizer: adamW({ lr, weightDecay: 0.1 }), device });
  const rng = new Rng(1);
  const schedule = cosineLr(1e-3, { warmup: 50, finalLr: 1e-4 });
  const buf: LmBatch = { tokens: new Int32Array(batch * context), targets: new Int32Array(batch * context) };
  const lrFeed = new Float32Array(1);
  const t0 = performance.now();
  for (let step = 0; step < steps; step++) {
    const b = randomWindows(train, batch, context, rng, buf);
    lrFeed[0] = schedule(step, steps);
    await session.step({ tokens: b.tokens, targets: b.targets, lr: lrFeed }, { readLoss: false });
  }
  await session.session.sync();
  log(`trained GPT ${args['val-model']} on ${ids.length} characters for ${steps} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const trained = await session.stateDict();
  const e = model.eval().trainingGraph(batch);
  const ppl: Record<string, unknown> = { model: args['val-model'], characters: ids.length, vocab: tok.size, steps, batches: 16 };
  for (const weightsFormat of FORMATS) {
    const evaluator = await compileInference(e.graph, { outputs: { loss: e.loss }, device, weights: weightsFormat });
    await evaluator.load(trained);
    const r = new Rng(12345);
    let sum = 0;
    for (let i = 0; i < 16; i++) {
      const b = randomWindows(val, batch, context, r, buf);
      sum += (await evaluator.run({ tokens: b.tokens, targets: b.targets })).loss.data[0];
    }
    const loss = sum / 16;
    ppl[weightsFormat] = { valLoss: loss, perplexity: Math.exp(loss) };
    log(`validation ${weightsFormat}: loss ${loss.toFixed(5)} nats/char, perplexity ${Math.exp(loss).toFixed(4)}`);
    evaluator.dispose();
  }
  results.validation = ppl;
  session.dispose();
  save();
} else log(`no corpus at ${args.corpus}: validation loss skipped (logits' error above)`);

console.log(JSON.stringify(results));
device.destroy();

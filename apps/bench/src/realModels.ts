// Figures of the "real models" features on a GPU: (1) compile time of a training step cold (the e-graph runs and
// the plan is stored in a file plan cache) and cached (a fresh process-level compile reads the plan back, no
// e-graph), for GPT 2x128 and GPT 6x384; (2) generation throughput of a LLaMA-shaped model with the KV cache, one
// prompt at a time vs `generateBatch` over B prompts of different lengths (tokens produced per second, all rows).
//   node .devkit/real-models.mjs [--out FILE] [--tokens 64] [--batches 1,8,32]

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileGenerator, compileTraining, GPT, Llama } from '@neura/nn';
import { filePlanCache } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import { createDevice } from '@neura/runtime-webgpu';
import { GPT_WORKLOADS } from './workloads/gpt.js';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, tokens: { type: 'string', default: '64' }, batches: { type: 'string', default: '1,8,32' } } });
const log = (s: string) => console.error(`[real-models] ${s}`);
const device = await createDevice();
const results: Record<string, unknown> = { adapter: device.name };
const save = () => args.out && writeFileSync(args.out, JSON.stringify(results, null, 1));

// (1) compile cold vs from the plan cache (the same graph compiled twice against one cache directory)
const dir = mkdtempSync(join(tmpdir(), 'neura-plans-'));
const compileRows: Record<string, unknown> = {};
results.compile = compileRows;
for (const w of GPT_WORKLOADS) {
  const row: Record<string, number | boolean | undefined> = {};
  for (const pass of ['cold', 'cached'] as const) {
    const model = new GPT(w.config);
    const t = model.train().trainingGraph(w.config.batch);
    const t0 = performance.now();
    const session = await compileTraining(t.graph, { loss: t.loss, optimizer: adamW({ lr: 3e-4 }), device, planCache: filePlanCache(dir) });
    row[`${pass}Ms`] = Math.round(performance.now() - t0);
    row[`${pass}FromCache`] = session.stats.planFromCache;
    session.dispose();
  }
  compileRows[w.name] = row;
  log(`${w.name}: compile cold ${row.coldMs} ms, cached ${row.cachedMs} ms (from cache: ${row.cachedFromCache})`);
  save();
}
rmSync(dir, { recursive: true, force: true });

// (2) generation: a LLaMA-shaped model (random weights; the speed does not depend on them), prompts of 8..39 tokens
const cfg = { vocab: 32000, layers: 8, heads: 8, kvHeads: 4, width: 512 };
const maxLen = 256;
const model = new Llama(cfg);
const maxTokens = Number(args.tokens);
const genRows: Record<string, unknown> = { model: { ...cfg, maxLen, parameters: model.parameterCount() }, maxTokens };
results.generation = genRows;
for (const batch of args.batches.split(',').map(Number)) {
  const gen = await compileGenerator(model, { device, maxLen, batch });
  const prompts = Array.from({ length: batch }, (_, i) => Array.from({ length: 8 + ((i * 7) % 32) }, (_, j) => (i * 131 + j * 17) % cfg.vocab));
  await gen.generateBatch(prompts.slice(0, 1), { maxTokens: 4, temperature: 0 }); // warm-up: pipelines, first uploads
  const t0 = performance.now();
  const out = batch === 1 ? [await collect(gen.generate(prompts[0], { maxTokens, temperature: 0 }))] : await gen.generateBatch(prompts, { maxTokens, temperature: 0 });
  const s = (performance.now() - t0) / 1000;
  const produced = out.reduce((n, r) => n + r.length, 0);
  genRows[`batch${batch}`] = { tokens: produced, seconds: +s.toFixed(3), tokensPerSecond: Math.round(produced / s) };
  log(`generation batch ${batch}: ${produced} tokens in ${s.toFixed(2)} s, ${Math.round(produced / s)} tokens/s`);
  gen.dispose();
  save();
}
console.log(JSON.stringify(results));
device.destroy();

async function collect(it: AsyncIterable<number>): Promise<number[]> {
  const out: number[] = [];
  for await (const t of it) out.push(t);
  return out;
}

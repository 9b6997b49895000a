// Joins neura's and the references' result files into `results/README.md` (a table of ratios, with the
// method) and `results/step-time-ratios.svg` (a bar chart). Usage:
//   tsx src/report.ts results/h200-neura.json results/h200-pytorch.json [results/h200-tfjs.json]

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ratioChartSvg, stepTimeRatios } from './ratioChart.js';

interface T {
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  tflops?: number;
}
type Doc = { framework: string; version?: string; date?: string; adapterName?: string; device?: string; results: Record<string, any> };

const [oursPath, torchPath, tfjsPath] = process.argv.slice(2);
const ours: Doc = JSON.parse(readFileSync(oursPath, 'utf8'));
const torch: Doc = JSON.parse(readFileSync(torchPath, 'utf8'));
const tfjs: Doc | undefined = tfjsPath ? JSON.parse(readFileSync(tfjsPath, 'utf8')) : undefined;
const outDir = dirname(oursPath);

const ms = (t?: T) => (t ? `${t.medianMs.toFixed(3)} (${t.p10Ms.toFixed(3)}–${t.p90Ms.toFixed(3)})` : '—');
const ratio = (ref?: T, us?: T) => (ref && us ? `${(ref.medianMs / us.medianMs).toFixed(2)}×` : '—');
const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;

const lines: string[] = [];
lines.push('# neura benchmarks', '');
lines.push(`Machine: ${torch.device} — neura on ${ours.adapterName} (Dawn, Node ${(ours as any).node}), PyTorch ${torch.version} (CUDA, fp32, TF32 off)${tfjs ? `, TensorFlow.js ${tfjs.version} (WebGPU backend on the same Dawn adapter)` : ''}. Run ${ours.date?.slice(0, 10)}.`, '');
lines.push('On your own GPU: `pnpm bench:local` (full workloads on the local adapter, PyTorch beside them where installed; writes results/local/). H200 reproduce: `pnpm bench:device`, then on the H200 machine `source .devkit/enter.sh && node .devkit/bench.mjs --profile device --out $OUT/neura.json && python3 apps/bench/python/reference.py > $OUT/pytorch.json` (one command), then `pnpm --filter @neura/bench report results/h200-neura.json results/h200-pytorch.json`.', '');

lines.push('## Training step (ms, median with p10–p90; ratio = reference / neura, >1 means neura is faster)', '');
// PyTorch's CUDA graphs (torch.compile mode="reduce-overhead") where reference.py measured them
const graphs = Object.values(torch.results).some((r) => r?.graphs);
lines.push('| workload | neura synced | neura pipelined | PyTorch eager | PyTorch compiled |' + (graphs ? ' PyTorch CUDA graphs |' : '') + ' eager / neura | compiled / neura |' + (graphs ? ' graphs / neura |' : '') + (tfjs ? ' TF.js | TF.js / neura |' : ''));
lines.push('| --- | --- | --- | --- | --- | --- | --- |' + (graphs ? ' --- | --- |' : '') + (tfjs ? ' --- | --- |' : ''));
for (const [name, r] of Object.entries(ours.results)) {
  if (!/^(mlp|gpt|cnn)/.test(name) || !r.synced) continue;
  const ref = torch.results[name] ?? {};
  const tf = tfjs?.results[name];
  lines.push(
    `| ${name} | ${ms(r.synced)} | ${ms(r.pipelined)} | ${ms(ref.eager)} | ${ms(ref.compiled)} |` +
      (graphs ? ` ${ms(ref.graphs)} |` : '') +
      ` ${ratio(ref.eager, r.synced)} | ${ratio(ref.compiled, r.synced)} |` +
      (graphs ? ` ${ratio(ref.graphs, r.synced)} |` : '') +
      (tfjs ? ` ${ms(tf?.synced)} | ${ratio(tf?.synced, r.synced)} |` : ''),
  );
}
lines.push('');
lines.push('## Matmul fp32 (TFLOP/s)', '');
lines.push('| n | neura | PyTorch | neura / PyTorch |', '| --- | --- | --- | --- |');
for (const [name, r] of Object.entries(ours.results)) {
  if (!name.startsWith('matmul')) continue;
  const ref = torch.results[name]?.eager;
  lines.push(`| ${r.n} | ${r.tflops.toFixed(1)} | ${ref ? ref.tflops.toFixed(1) : '—'} | ${ref ? (r.tflops / ref.tflops).toFixed(2) : '—'} |`);
}
lines.push('');
// precision: 'mixed' (run.ts results.mixed; PyTorch's autocast rows and fp16/bf16 kernels from `reference.py mixed`)
const mixed = ours.results.mixed as Record<string, any> | undefined;
if (mixed && !mixed.unavailable) {
  lines.push('## Mixed precision: f16 operands on tensor cores, f32 accumulation (neura `precision: \'mixed\'`, PyTorch autocast)', '');
  const m4096 = mixed['matmul-4096'];
  const fp16 = torch.results['kernels-fp16']?.['matmul-square-4096'];
  if (m4096) lines.push(`Matmul 4096³: neura ${m4096.tflops.toFixed(1)} TFLOP/s (fp32 ${ours.results['matmul-4096']?.tflops?.toFixed(1) ?? '—'}); cuBLAS fp16 ${fp16 ? fp16.tflops.toFixed(1) : '—'}.`, '');
  lines.push('| workload | neura mixed | neura fp32 | PyTorch autocast fp16 (best) | PyTorch autocast bf16 (best) | loss: fp32 step 1 / mixed step 1 → 20 |', '| --- | --- | --- | --- | --- | --- |');
  for (const [name, r] of Object.entries(mixed)) {
    if (!name.startsWith('gpt') || !r.synced) continue;
    const best = (tag: string) => {
      const e = torch.results[`${name}-autocast-${tag}`];
      return e?.best ? `${ms(e[e.best])} ${e.best}` : '—';
    };
    const fp32 = ours.results[name];
    const losses: number[] = r.losses ?? [];
    lines.push(`| ${name} | ${ms(r.synced)} | ${ms(fp32?.synced)} | ${best('fp16')} | ${best('bf16')} | ${fp32?.firstLoss?.toFixed(4) ?? '—'} / ${losses[0]?.toFixed(4) ?? '—'} → ${losses[losses.length - 1]?.toFixed(4) ?? '—'} |`);
  }
  lines.push('');
}
lines.push('## Compile, memory and e-graph (neura)', '');
lines.push('| workload | graph → first finished step (ms) | e-graph run (ms) | kernel nodes unoptimized → dispatches per step | bytes allocated | sum of all tensors |', '| --- | --- | --- | --- | --- | --- |');
for (const [name, r] of Object.entries(ours.results)) {
  if (!/^(mlp|gpt|cnn)/.test(name) || !r.synced) continue;
  lines.push(`| ${name} | ${r.compileMs.toFixed(0)} | ${r.optimizeMs?.toFixed(0) ?? '—'} | ${r.dispatchesUnoptimized ?? '—'} → ${r.dispatchesPerStep} | ${kb(r.bytesAllocated)} | ${kb(r.bytesIfUnshared)} |`);
}
const sat = ours.results['egraph-saturation'];
if (sat) lines.push('', `E-graph saturation (arithmetic rules, to a ${sat.nodes}-node limit): ${Math.round(sat.enodesPerSecond)} e-nodes/s, ${sat.msToNodeLimit.toFixed(0)} ms.`);
lines.push('');
lines.push('## Method', '');
lines.push(
  '- Same workloads, shapes, optimizers and machine; one device command runs neura, then the references.',
  '- "synced": each step awaited and the GPU synchronised after it (`onSubmittedWorkDone`), the way the PyTorch side calls `torch.cuda.synchronize()` after every step; median of 300 steps after 30 warm-up steps (GPT: 50 steps after 5 warm-up for neura, after 10 for PyTorch). "pipelined": blocks of 30 steps with one synchronisation, per-step mean, median over 10 blocks.',
  '- PyTorch: fp32, TF32 off, `zero_grad(set_to_none)` + forward + `cross_entropy` + backward + `opt.step()`; compiled = `torch.compile` of that step function. The GPT is nanoGPT-style pre-LN with `scaled_dot_product_attention(is_causal=True)` and tanh-GELU; neura\'s uses its fused `attention` op.',
  '- TF.js 4.22 WebGPU backend on the same Dawn/Vulkan adapter in Node: `optimizer.minimize` + reading the loss back (its only public sync) per step. jax-js was not run (its optax package is not on the registry).',
  '- Matmul: A and B resident on the GPU, blocks of 5–20 matmuls per synchronisation, median over 10 blocks.',
  '- Compile time is graph → first finished step (autodiff, e-graph, WGSL, pipelines, first submit and readback).',
);
writeFileSync(join(outDir, 'README.md'), `${lines.join('\n')}\n`);

// bar chart of step-time ratios (reference time / neura time), log-scale around parity
const { rows, series } = stepTimeRatios(ours.results, torch.results, tfjs?.results);
const title = `Training step time: reference / neura (${torch.device ?? 'this machine'}; right of 1× = neura faster)`;
writeFileSync(join(outDir, 'step-time-ratios.svg'), ratioChartSvg(rows, { title, series }));
console.log(lines.join('\n'));

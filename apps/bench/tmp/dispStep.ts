// disp's H200 A/B: the GPT step optimized with and without the sibling-reduction rule, synced step time and a
// per-kernel profile of each (one process, same device).
import { mkdirSync, writeFileSync } from 'node:fs';
import { optimize } from '@neura/egraph';
import { buildTrainingStep, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { compile, createDevice } from '@neura/runtime-webgpu';
import { measureBandwidth } from '../src/bandwidth.js';
import { GPT_WORKLOADS, gptBatches } from '../src/workloads/gpt.js';

const out = process.argv[2] ?? '.';
const only = process.argv[3] ?? 'gpt-6x384';
const steps = Number(process.argv[4] ?? 40);
mkdirSync(out, { recursive: true });
const dev = await createDevice({ dawnOptions: ['disable-dawn-features=timestamp_quantization'] });
const bw = dev.features.has('timestamp-query') ? await measureBandwidth(dev) : { bytesPerSecond: 4e12 };
const ceilings = { flopsPerSecond: 67e12, bytesPerSecond: bw.bytesPerSecond };
const w = GPT_WORKLOADS.find((x) => x.name.startsWith(only))!;
const lines: string[] = [`adapter ${dev.name}; copy bandwidth ${(bw.bytesPerSecond / 1e9).toFixed(0)} GB/s`];
for (const [name, without] of [['main', []], ['without reduce-multi', ['reduce-multi']], ['main again', []]] as const) {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  const t0 = performance.now();
  const { graph, report } = optimize(g, { limits: dev.caps, withoutRules: [...without] });
  const optMs = performance.now() - t0;
  const session = await compile(graph, dev, { label: name });
  const batches = gptBatches(w);
  let k = 0;
  const w0 = performance.now();
  for (let i = 0; i < 5 || performance.now() - w0 < 1000; i++) await session.step(batches[k++ % batches.length]);
  await session.sync();
  const ts: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = performance.now();
    await session.step(batches[k++ % batches.length]);
    await session.sync();
    ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  const prof = await session.profile(batches[0]).catch(() => undefined);
  const s = prof ? prof.summary(ceilings) : { gpuMs: Number.NaN, dispatches: 0 };
  const line = `${name}: synced median ${ts[ts.length >> 1].toFixed(3)} ms (min ${ts[0].toFixed(3)}), ${session.stats.dispatchesPerStep} dispatches/step, GPU ${s.gpuMs.toFixed(3)} ms over ${s.dispatches}; cost-model dispatches ${report.dispatchesAfter}, bytes ${(report.bytesAfter / 1e9).toFixed(2)} GB, optimize ${optMs.toFixed(0)} ms`;
  console.log(line);
  lines.push(line);
  writeFileSync(`${out}/${name.replace(/ /g, '-')}-profile.md`, `# ${w.name} ${name}\n\n${line}\n\n${prof ? prof.table({ top: 40, ceilings }) : '(no timestamps)'}\n`);
  session.dispose();
}
writeFileSync(`${out}/summary.txt`, `${lines.join('\n')}\n`);

import { optimize } from '@neura/egraph';
import { buildTrainingStep, GPT } from '@neura/nn';
import { adamW } from '@neura/optim';
import { compile, createDevice } from '@neura/runtime-webgpu';
import { GPT_WORKLOADS } from '../src/workloads/gpt.js';
const dev = await createDevice();
const w = GPT_WORKLOADS.find((x) => x.name.startsWith('gpt-2x128'))!;
for (const without of [[], ['reduce-multi']]) {
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  buildTrainingStep(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  const { graph } = optimize(g, { limits: dev.caps, withoutRules: without });
  const s: any = await compile(graph, dev, { label: 'x' });
  const h = new Map<string, number>();
  for (const d of s.c.dispatches) { const k = d.label.replace(/#.*/, '').replace(/\[.*?\]/g, ''); h.set(k, (h.get(k) ?? 0) + 1); }
  console.log(JSON.stringify(without), s.stats.dispatchesPerStep, [...h].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `${v} ${k}`).join(' | '));
}

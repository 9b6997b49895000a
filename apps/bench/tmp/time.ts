import { optimize } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
for (let i = 0; i < 7; i++) for (const opts of [{}, { withoutRules: ['reduce-multi'] }]) {
  const g = buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']);
  const t = performance.now();
  const r = optimize(g, opts);
  console.log(JSON.stringify(opts), (performance.now() - t).toFixed(0), 'extract', r.report.phases.extractMs.toFixed(0), 'run', r.report.phases.runMs.toFixed(0), 'sib', r.report.passes.find((p) => p.name === 'siblings')?.report.totalTimeMs.toFixed(0), r.report.dispatchesAfter);
}

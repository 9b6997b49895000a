import { optimize } from '@neura/egraph';
import { buildMnistStep } from './workloads/mnistStep.js';
for (let i = 0; i < 5; i++) {
  const g = buildMnistStep();
  const t = performance.now();
  const r = optimize(g);
  console.log(Math.round(performance.now() - t), 'ms', r.report.summary(), JSON.stringify({s: r.report.run.searchTimeMs, a: r.report.run.applyTimeMs, rb: r.report.run.rebuildTimeMs, tot: r.report.run.totalTimeMs}));
}

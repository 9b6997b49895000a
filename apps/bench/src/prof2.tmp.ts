import { optimize, graphFigures } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
const cfgs = [{ layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65 }, { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65 }];
for (const c of cfgs) {
  let t = performance.now();
  const g = buildGptStep(c);
  console.log('build', Math.round(performance.now() - t), 'ms', JSON.stringify(graphFigures(g)));
  t = performance.now();
  const r = optimize(g);
  console.log(Math.round(performance.now() - t), 'ms', r.report.summary(), JSON.stringify({s: r.report.run.searchTimeMs, a: r.report.run.applyTimeMs, rb: r.report.run.rebuildTimeMs, tot: r.report.run.totalTimeMs, stop: r.report.egraph.stopMessage}));
}

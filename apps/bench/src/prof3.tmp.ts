import { optimize } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
const c = JSON.parse(process.argv[2] ?? '{"layers":2,"heads":4,"width":128,"context":64,"batch":16,"vocab":65}');
const opts = JSON.parse(process.argv[3] ?? '{}');
for (let i = 0; i < Number(process.argv[4] ?? 1); i++) {
const g = buildGptStep(c);
const t = performance.now();
const r = optimize(g, opts);
console.log(Math.round(performance.now() - t), 'ms', r.report.summary(), JSON.stringify({s: r.report.run.searchTimeMs, a: r.report.run.applyTimeMs, rb: r.report.run.rebuildTimeMs, tot: r.report.run.totalTimeMs, stop: r.report.egraph.stopMessage, hits: r.report.egraph.ruleHits}));
}

import { optimize } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
const ts: number[] = [];
let last: any;
for (let i = 0; i < 6; i++) {
  const g = buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']);
  const t = performance.now();
  last = optimize(g);
  ts.push(performance.now() - t);
}
ts.sort((a, b) => a - b);
console.log(process.argv[2], 'best', ts[0].toFixed(0), 'median', ts[3].toFixed(0), 'dispatches', last.report.dispatchesAfter, 'nodes', last.report.egraph.enodes);

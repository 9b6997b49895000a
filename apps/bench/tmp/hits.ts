import { optimize } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
const r = optimize(buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']), JSON.parse(process.env.OPTS ?? '{}'));
const rep = r.report;
console.log(rep.dispatchesAfter, rep.bytesAfter, "cost", rep.cost, rep.egraph.enodes, rep.egraph.eclasses, JSON.stringify(rep.search), JSON.stringify(rep.egraph.ruleHits));
console.log(rep.passes.map((p) => `${p.name} ${p.report.iterations} ${p.report.stopReason} ${p.report.egraphNodes} ${p.report.totalTimeMs.toFixed(0)}`).join('\n'));

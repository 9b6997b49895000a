import { optimize, DEFAULT_PASSES } from '@neura/egraph';
import { buildGptStep } from '@neura/nn';
import { GPT_CONFIGS } from '../src/egraphGpt.js';
const variants: Record<string, any> = {
  before: [DEFAULT_PASSES[0], DEFAULT_PASSES[1], DEFAULT_PASSES[3], DEFAULT_PASSES[2]],
  inGroup: [DEFAULT_PASSES[0], DEFAULT_PASSES[1], { name: 'group', ruleSets: ['reduceMulti', 'update', 'attention'], iterLimit: 2 }],
  inFuse: [DEFAULT_PASSES[0], { name: 'fuse', ruleSets: ['fusion', 'reduceMulti'], iterLimit: 30 }, DEFAULT_PASSES[2]],
};
for (const [k, passes] of Object.entries(variants)) {
  const r = optimize(buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']), { passes });
  console.log(k, r.report.dispatchesAfter, r.report.bytesAfter, r.report.egraph.ruleHits['reduce-multi'], r.report.egraph.ruleHits['update-multi-tensor']);
}

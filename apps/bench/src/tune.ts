// `npx tsx --conditions=@neura/source src/tune.ts [--only gpt-6x384-ctx256-b64-adamw] [--repeats 5] [--cache DIR]`:
// the per-shape matmul autotuner on a GPT training step: the step is optimized and compiled as usual, its matmul
// shapes (after the e-graph's choices) are tuned on this adapter (the shipped heuristic and every fitting candidate,
// each checked, timed by wall clock), and the table is printed: per shape the default's and the winner's ms and
// the speedup. With --cache the choices are kept per adapter under DIR (a second run reads them: measured 0).
// Measures; asserts nothing. Not yet run on the H200 (noted for a later session).
import { parseArgs } from 'node:util';
import { compileTraining, GPT } from '@neura/nn';
import { fileTuningCache } from '@neura/nn/node';
import { adamW } from '@neura/optim';
import { createDevice, matmulShapesOf, tuneMatmul } from '@neura/runtime-webgpu';
import { GPT_WORKLOADS } from './workloads/gpt.js';

const { values: args } = parseArgs({ options: { only: { type: 'string', default: 'gpt-6x384-ctx256-b64-adamw' }, repeats: { type: 'string', default: '5' }, cache: { type: 'string' } } });
const device = await createDevice();
console.log(`device: ${device.name}`);
for (const w of GPT_WORKLOADS) {
  if (!args.only.split(',').includes(w.name)) continue;
  const c = w.config;
  const { graph: g, loss } = new GPT(c).trainingGraph(c.batch);
  const train = await compileTraining(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }), device });
  const shapes = matmulShapesOf(train.graph);
  train.dispose();
  const t0 = performance.now();
  const r = await tuneMatmul(device, shapes, { repeats: Number(args.repeats), ...(args.cache ? { cache: fileTuningCache(args.cache) } : {}) });
  console.log(`${w.name}: ${shapes.length} matmul shapes, ${r.measured} measured in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  console.log('shape (MxNxK:trans:batches) | choice | default ms | best ms | speedup | rejected');
  for (const s of r.shapes) {
    const def = s.timings.find((t) => t.name === 'default');
    const best = s.timings.find((t) => t.name === s.choice);
    const rejected = s.timings.filter((t) => !t.ok && !t.why?.startsWith('does not fit')).map((t) => `${t.name}: ${t.why}`);
    const speed = def && best ? `${(def.msPerStep / best.msPerStep).toFixed(2)}x` : s.cached ? 'cached' : '';
    console.log(`${s.key} | ${s.choice} | ${def?.msPerStep.toFixed(3) ?? ''} | ${best?.msPerStep.toFixed(3) ?? ''} | ${speed} | ${rejected.join('; ')}`);
  }
  console.log(`table: ${JSON.stringify(r.tuning)}`);
}
device.destroy();

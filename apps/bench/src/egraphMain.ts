// `npx tsx --conditions=@neura/source src/egraphMain.ts [--repeats N] [--only a,b] [--saturation]`: the e-graph
// benchmarks without a device (GPT and MNIST step optimization; core saturation throughput), as JSON.
import { parseArgs } from 'node:util';
import { benchEgraphSaturation } from './egraphSaturation.js';
import { benchGptOptimize } from './egraphGpt.js';

const { values: args } = parseArgs({
  options: { repeats: { type: 'string', default: '3' }, only: { type: 'string' }, saturation: { type: 'boolean', default: false } },
});
const results: Record<string, unknown> = benchGptOptimize(Number(args.repeats), args.only?.split(','));
if (args.saturation) results['egraph-saturation'] = await benchEgraphSaturation();
console.log(JSON.stringify(results, null, 2));

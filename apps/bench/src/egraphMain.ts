// `npx tsx --conditions=@neura/source src/egraphMain.ts [--repeats N] [--saturation]`: the e-graph benchmarks
// without a device (GPT and MNIST step optimization; core saturation throughput with --saturation), as JSON.
import { parseArgs } from 'node:util';
import { benchEgraphSaturation } from './egraphSaturation.js';
import { benchGptOptimize } from './egraphGpt.js';

const { values: args } = parseArgs({ options: { repeats: { type: 'string', default: '3' }, saturation: { type: 'boolean', default: false } } });
const results: Record<string, unknown> = benchGptOptimize(Number(args.repeats));
if (args.saturation) results['egraph-saturation'] = await benchEgraphSaturation();
console.log(JSON.stringify(results, null, 2));

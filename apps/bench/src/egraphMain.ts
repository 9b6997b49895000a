// `npx tsx --conditions=@neura/source src/egraphMain.ts [--repeats N] [--only a,b] [--storage-buffers N]
// [--binding-mib N] [--saturation]`: the e-graph benchmarks without a device (GPT and MNIST step optimization;
// core saturation throughput), as JSON. `--storage-buffers 16 --binding-mib 2048` plans with the limits of a
// device that offers more than WebGPU's defaults (8, 128 MiB), as the runtime passes them (the H200: 16).
import { parseArgs } from 'node:util';
import { DEFAULT_KERNEL_LIMITS } from '@neura/ir';
import { benchEgraphSaturation } from './egraphSaturation.js';
import { benchGptOptimize } from './egraphGpt.js';

const { values: args } = parseArgs({
  options: {
    repeats: { type: 'string', default: '3' },
    only: { type: 'string' },
    'storage-buffers': { type: 'string' },
    'binding-mib': { type: 'string' },
    saturation: { type: 'boolean', default: false },
  },
});
const limits = {
  maxStorageBuffersPerShaderStage: Number(args['storage-buffers'] ?? DEFAULT_KERNEL_LIMITS.maxStorageBuffersPerShaderStage),
  maxStorageBufferBindingSize: args['binding-mib'] ? Number(args['binding-mib']) * 2 ** 20 : DEFAULT_KERNEL_LIMITS.maxStorageBufferBindingSize,
};
for (const [k, v] of Object.entries(limits)) if (!Number.isInteger(v) || v < 1) throw new Error(`egraphMain: ${k} must be a positive integer, got ${v}`);
const results: Record<string, unknown> = benchGptOptimize(Number(args.repeats), args.only?.split(','), { limits });
if (args.saturation) results['egraph-saturation'] = await benchEgraphSaturation();
console.log(JSON.stringify(results, null, 2));

// `npx tsx --conditions=@neura/source src/mixedF16Cost.ts [--config 2x128|6x384]`: what f16 storage under
// precision 'mixed' changes in the optimized GPT step, from the cost model and the memory plan only (no device):
// dispatches, kernel output bytes, estimated bytes allocated, f16 tensors and standalone cast kernels, for the
// fp32 step (what 'mixed' compiled before autocast: every tensor f32) and the autocast step. Measures, asserts nothing.
import { parseArgs } from 'node:util';
import { optimize } from '@neura/egraph';
import { estimateGraphMemory, type Graph } from '@neura/ir';
import { autocast, buildTrainingStep, GPT, type GptConfig, recognizedForward } from '@neura/nn';
import { adamW } from '@neura/optim';

/** The GPU workloads' GPT shapes (apps/bench/src/workloads/gpt.ts): attention op, tanh GELU. */
const CONFIGS: Record<string, GptConfig & { batch: number }> = {
  '2x128': { layers: 2, heads: 4, width: 128, context: 64, batch: 16, vocab: 65, attention: 'op', gelu: 'tanh' },
  '6x384': { layers: 6, heads: 6, width: 384, context: 256, batch: 64, vocab: 65, attention: 'op', gelu: 'tanh' },
};

/** The training step of `c` (AdamW as the GPU workloads), with autocast's casts when `mixed`. */
export function gptStep(c: GptConfig & { batch: number }, mixed: boolean): Graph {
  const fwd = new GPT(c).trainingGraph(c.batch);
  let { graph, loss } = recognizedForward(fwd.graph, fwd.loss);
  if (mixed) ({ graph, loss } = autocast(graph, loss));
  buildTrainingStep(graph, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.01 }) });
  return graph;
}

/** Figures of one optimized step. */
export function stepFigures(g: Graph) {
  const { graph, report } = optimize(g);
  const live = [...graph.live()].map((id) => graph.nodes[id]);
  return {
    dispatchesBefore: report.dispatchesBefore,
    dispatchesAfter: report.dispatchesAfter,
    kernelOutputBytesBefore: report.bytesBefore,
    kernelOutputBytesAfter: report.bytesAfter,
    cost: report.cost,
    memory: estimateGraphMemory(graph),
    f16Tensors: live.filter((n) => n.dtype === 'f16').length,
    castKernels: live.filter((n) => n.op === 'cast').map((n) => `${graph.nodes[n.inputs[0]].op}:${graph.nodes[n.inputs[0]].dtype}->${n.dtype} [${n.shape}]`),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { config: { type: 'string', default: '2x128' } } });
  const c = CONFIGS[values.config as string];
  if (!c) throw new Error(`mixedF16Cost: --config must be one of ${Object.keys(CONFIGS).join(', ')}`);
  const fp32 = stepFigures(gptStep(c, false));
  const mixed = stepFigures(gptStep(c, true));
  console.log(JSON.stringify({ config: values.config, fp32Storage: fp32, f16Storage: mixed }, null, 2));
}

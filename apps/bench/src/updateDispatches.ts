// `npx tsx --conditions=@neura/source src/updateDispatches.ts`: dispatches per step, and those of the optimizer
// update (kernels that write an updated param or optimizer state), for GPT 6×384 (AdamW) and the MNIST MLP
// (Adam, SGD with and without momentum), after the e-graph, by the cost model (no device). Measures; asserts nothing.
import { graphFigures, optimize } from '@neura/egraph';
import { Graph, isAliasOp, isLeafOp } from '@neura/ir';
import { buildGptStep, buildTrainingStep, mlp } from '@neura/nn';
import { adam, type Optimizer, sgd } from '@neura/optim';
import { GPT_CONFIGS } from './egraphGpt.js';

/** Kernels of a graph, and those writing an updated state (the value of an update, or the multi node a pick reads). */
export function updateDispatches(g: Graph): { kernels: number; updateKernels: number; updates: number } {
  const live = g.live();
  const isKernel = (id: number) => {
    const n = g.nodes[id];
    return !isLeafOp(n.op) && !isAliasOp(n.op) && n.op !== 'pick';
  };
  const writers = new Set<number>();
  for (const u of g.updates) {
    let v = g.nodes[u.value];
    while (isAliasOp(v.op) || v.op === 'pick') v = g.nodes[v.inputs[0]];
    if (!isLeafOp(v.op)) writers.add(v.id);
  }
  return { kernels: live.filter(isKernel).length, updateKernels: [...writers].filter(isKernel).length, updates: g.updates.length };
}

function mlpStep(optimizer: Optimizer, batch = 128): Graph {
  const g = new Graph();
  const x = g.input('x', [batch, 784]);
  const labels = g.input('labels', [batch], 'i32');
  buildTrainingStep(g, { loss: g.crossEntropy(mlp([784, 128, 10]).forward(g, x), labels), optimizer });
  return g;
}

const steps: Record<string, () => Graph> = {
  'gpt-6x384x256 (AdamW)': () => buildGptStep(GPT_CONFIGS['gpt-6x384x256-attention-op']),
  'mlp-784-128-10 (Adam)': () => mlpStep(adam({ lr: 1e-3 })),
  'mlp-784-128-10 (SGD momentum)': () => mlpStep(sgd({ lr: 0.1, momentum: 0.9 })),
  'mlp-784-128-10 (SGD)': () => mlpStep(sgd({ lr: 0.1 })),
};
const out: Record<string, unknown> = {};
for (const [name, build] of Object.entries(steps)) {
  const g = build();
  const before = graphFigures(g);
  const r = optimize(g);
  out[name] = { params: g.leaves('param').length, dispatchesBefore: r.report.dispatchesBefore, dispatchesAfter: r.report.dispatchesAfter, ...updateDispatches(r.graph), nodesBefore: before.nodes };
}
console.log(JSON.stringify(out, null, 2));

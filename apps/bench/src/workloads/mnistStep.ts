// The MNIST training step of `pnpm mnist` (MLP 784-128-10, batch 128, Adam with a fed learning rate), built
// without a device, for e-graph benchmarks, by nn's buildTrainingStep (as compileTraining builds it). Must not
// compile or run anything; mirrors apps/demo's graph.
import { Graph } from '@neura/ir';
import { buildTrainingStep, mlp } from '@neura/nn';
import { adam } from '@neura/optim';

/** Builds the whole MNIST training step graph (forward, backward, Adam update). */
export function buildMnistStep(batch = 128, hidden: readonly number[] = [128]): Graph {
  const g = new Graph();
  const x = g.input('x', [batch, 784]);
  const labels = g.input('labels', [batch], 'i32');
  const loss = g.crossEntropy(mlp([784, ...hidden, 10]).forward(g, x), labels);
  buildTrainingStep(g, { loss, optimizer: adam({ lr: g.input('lr', []) }) }); // the one way a step is built
  return g;
}

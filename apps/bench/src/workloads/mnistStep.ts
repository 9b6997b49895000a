// The MNIST training step of `pnpm mnist` (MLP 784-128-10, batch 128, Adam with a fed learning rate), built
// without a device, for e-graph benchmarks. Must not compile or run anything; mirrors apps/demo's graph.
import { grad } from '@neura/autograd';
import { Graph } from '@neura/ir';
import { mlp } from '@neura/nn';
import { adam } from '@neura/optim';

/** Builds the whole MNIST training step graph (forward, backward, Adam update). */
export function buildMnistStep(batch = 128, hidden: readonly number[] = [128]): Graph {
  const g = new Graph();
  const x = g.input('x', [batch, 784]);
  const labels = g.input('labels', [batch], 'i32');
  const loss = g.crossEntropy(mlp([784, ...hidden, 10]).forward(g, x), labels);
  g.output('loss', loss);
  const params = g.leaves('param');
  adam({ lr: g.input('lr', []) }).apply(g, params, grad(g, loss, params));
  return g;
}

// Gradient clipping by global L2 norm as a graph transform (PyTorch's `clip_grad_norm_`): returns scaled
// gradient tensors; must not read anything back to the host. Invariant: gradients are only ever scaled down.

import { GraphError, type Graph, type Tensor } from '@neura/ir';
import { checkScalar, type ScalarLike } from './optimizer.js';

/** The L2 norm of all gradients together: `√(Σᵢ Σ gᵢ²)`, a scalar tensor. */
export function globalNorm(graph: Graph, grads: readonly Tensor[]): Tensor {
  if (grads.length === 0) throw new GraphError('globalNorm: no gradients given');
  const squares = grads.map((g) => graph.sum(graph.square(g)));
  return graph.sqrt(squares.reduce((a, b) => graph.add(a, b)));
}

/** Scales every gradient by `min(1, maxNorm / (norm + 1e-6))`, with `norm` the global L2 norm. */
export function clipGradNorm(graph: Graph, grads: readonly Tensor[], maxNorm: ScalarLike): Tensor[] {
  const max = checkScalar('clipGradNorm: maxNorm', maxNorm, graph);
  if (typeof max === 'number' && !(max > 0)) throw new GraphError(`clipGradNorm: maxNorm must be > 0, got ${max}`);
  const factor = graph.min(1, graph.div(max, graph.add(globalNorm(graph, grads), 1e-6)));
  return grads.map((g) => graph.mul(g, factor));
}

// Stochastic gradient descent with optional momentum (PyTorch's formulation, dampening 0), Nesterov
// momentum and L2 weight decay, as a graph transform. Must not create fused ops (the e-graph fuses each
// update); invariant: the momentum buffer `<name>.momentum/<param>` starts at zero, which equals PyTorch's
// first step (buffer = gradient).

import { type Graph, GraphError, type Tensor } from '@neura/ir';
import { checkRange, checkScalar, type Optimizer, paramNames, type ScalarLike, scale } from './optimizer.js';

/** Options of `sgd`. */
export interface SgdOptions {
  /** Learning rate: a number, or a scalar f32 tensor fed each step. */
  readonly lr: ScalarLike;
  /** Momentum factor (default 0: no buffer). */
  readonly momentum?: number;
  /** Nesterov momentum (needs momentum > 0). */
  readonly nesterov?: boolean;
  /** L2 penalty added to the gradient (default 0). */
  readonly weightDecay?: number;
  /** Prefix of state names (default `sgd`). */
  readonly name?: string;
}

/**
 * SGD: `d = g + wd·p; buf = μ·buf + d; d = nesterov ? d + μ·buf : buf; p -= lr·d`.
 *
 * @example
 * ```ts
 * const train = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1, momentum: 0.9, nesterov: true }), device });
 * ```
 */
export function sgd(opts: SgdOptions): Optimizer {
  const name = opts.name ?? 'sgd';
  const momentum = checkRange(`${name}: momentum`, opts.momentum ?? 0, 0, 1, true);
  const weightDecay = checkRange(`${name}: weightDecay`, opts.weightDecay ?? 0, 0, Infinity);
  const nesterov = opts.nesterov ?? false;
  if (nesterov && momentum === 0) throw new GraphError(`${name}: nesterov needs a momentum > 0`);
  return {
    name,
    apply(graph: Graph, params: readonly Tensor[], grads: readonly Tensor[]): void {
      const lr = checkScalar(`${name}: lr`, opts.lr, graph);
      const names = paramNames(name, graph, params, grads);
      params.forEach((p, i) => {
        let d = weightDecay ? graph.add(grads[i], graph.mul(p, weightDecay)) : grads[i];
        if (momentum) {
          const buf = graph.state(`${name}.momentum/${names[i]}`, p.shape);
          const next = graph.add(graph.mul(buf, momentum), d);
          graph.update(buf, next);
          d = nesterov ? graph.add(d, graph.mul(next, momentum)) : next;
        }
        graph.update(p, graph.sub(p, scale(graph, d, lr)));
      });
    },
  };
}

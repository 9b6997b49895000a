// The optimizer interface and the checks every optimizer shares. An optimizer is a graph transform: it
// appends update nodes for each (param, gradient) pair and declares in-place updates of params and of the
// state leaves it creates. Must not run anything on the host per step; invariant: state names derive from
// the optimizer's name and the param's name (`adam.m/w1`), so checkpoints are stable.

import { fmtShape, type Graph, GraphError, sameShape, type Tensor, type TensorLike } from '@neura/ir';

/** An optimizer as a graph transform. */
export interface Optimizer {
  /** Prefix of the state leaves it creates (`sgd`, `adam`, `adamW` unless renamed). */
  readonly name: string;
  /** Appends the update of every param given its gradient, and declares the in-place updates. */
  apply(graph: Graph, params: readonly Tensor[], grads: readonly Tensor[]): void;
}

/** A learning rate (or other hyper-parameter): a number baked in as a constant, or a scalar f32 graph input fed each step. */
export type ScalarLike = number | Tensor;

/**
 * Checks a scalar hyper-parameter and returns it as a TensorLike for arithmetic in `graph`. An input given from the
 * graph the model was built in (`lr: g.input('lr', [])`) is taken by name from `graph`, which compileTraining may
 * have rebuilt from it (autocast's copy under `precision: 'mixed'`), so the value fed each step is the one used.
 */
export function checkScalar(what: string, x: ScalarLike, graph: Graph): TensorLike {
  if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new GraphError(`${what} must be a finite number, got ${x}`);
    return x;
  }
  if (x.shape.length !== 0 || x.dtype !== 'f32')
    throw new GraphError(`${what} must be a scalar f32 tensor, got ${fmtShape(x.shape)}:${x.dtype}`, x.op, x.site);
  if (graph.nodes[x.id] === x || x.op !== 'input') return x; // anything else of another graph: graph.node refuses it
  const leaf = graph.byName(x.attrs.name);
  if (leaf?.op !== 'input' || leaf.dtype !== x.dtype || !sameShape(leaf.shape, x.shape))
    throw new GraphError(`${what}: input '${x.attrs.name}' is not a scalar f32 input of the graph being trained (it belongs to another graph)`, x.op, x.site);
  return leaf;
}

/** Checks a number hyper-parameter against a range, naming the optimizer and the option. */
export function checkRange(what: string, x: number, low: number, high: number, highOpen = false): number {
  if (!(x >= low && (highOpen ? x < high : x <= high))) throw new GraphError(`${what} must be in [${low}, ${high}${highOpen ? ')' : ']'}, got ${x}`);
  return x;
}

/** Checks that params are param leaves paired with gradients of their shape; returns their names. */
export function paramNames(optimizer: string, graph: Graph, params: readonly Tensor[], grads: readonly Tensor[]): string[] {
  if (params.length !== grads.length)
    throw new GraphError(`${optimizer}: ${params.length} params but ${grads.length} gradients`);
  return params.map((p, i) => {
    if (graph.nodes[p.id] !== p || graph.nodes[grads[i].id] !== grads[i])
      throw new GraphError(`${optimizer}: param ${i} or its gradient is not a node of this graph`);
    if (p.op !== 'param') throw new GraphError(`${optimizer}: params[${i}] must be a param leaf, got ${p.op}`, p.op, p.site);
    const name = p.attrs.name;
    const g = grads[i];
    if (!sameShape(p.shape, g.shape) || g.dtype !== 'f32')
      throw new GraphError(`${optimizer}: the gradient of '${name}' is ${fmtShape(g.shape)}:${g.dtype}, the param is ${fmtShape(p.shape)}:f32`, g.op, g.site);
    return name;
  });
}

/** `a · s` where `s` may be a number (folded) or a scalar tensor. */
export function scale(graph: Graph, a: Tensor, s: TensorLike): Tensor {
  return typeof s === 'number' && s === 1 ? a : graph.mul(a, s);
}

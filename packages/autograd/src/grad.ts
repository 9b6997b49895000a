// Reverse-mode differentiation over an ir Graph: appends backward nodes to the same (append-only,
// hash-consed) graph and returns the gradient tensors. Must not edit or remove existing nodes; invariants:
// nodes are visited in decreasing id order (ids are topological), fan-out contributions are summed, and
// every gradient has exactly the shape and dtype of the tensor it belongs to.

import { fmtShape, type Graph, GraphError, isFloat, leafName, type Node, type NodeId, type OpKind, sameShape, type Tensor } from '@neura/ir';
import { type Vjp, type VjpContext, VJPS } from './vjp.js';

/** The VJP of op `K` (for a node of any op: `vjpOf(node.op)`). */
function vjpOf<K extends OpKind>(op: K): Vjp<K> {
  return VJPS[op];
}

/** Options of `grad` and `gradByName`. */
export interface GradOptions {
  /** The gradient of the loss itself (default: 1 for a scalar loss; required for a non-scalar one). */
  readonly seed?: Tensor;
  /**
   * What a tensor with no gradient path to the loss gets (disconnected, or reaching it only through
   * comparisons or integer casts): by default `grad` throws a GraphError naming it, as PyTorch's
   * `autograd.grad` does without `allow_unused`; with `allowUnused` it gets `graph.constant(0, shape)`.
   */
  readonly allowUnused?: boolean;
}

const describe = (n: Node) => {
  const name = leafName(n);
  return `${n.op}${name !== undefined ? ` '${name}'` : ''} %${n.id} ${fmtShape(n.shape)}:${n.dtype}`;
};

/** The engine: cotangents of every node on a path from `wrt` to `root`, seeded with `seed` at `root`. */
function backprop(graph: Graph, root: Tensor, seed: Tensor, wrt: readonly Tensor[]): Map<NodeId, Tensor> {
  const wrtIds = new Set(wrt.map((t) => t.id));
  // forward sweep: a node is active when it is a float (f32, or f16 under autocast) and is, or depends on, something in `wrt`
  const active = new Uint8Array(root.id + 1);
  for (let id = 0; id <= root.id; id++) {
    const n = graph.nodes[id];
    if (!isFloat(n.dtype)) continue;
    if (VJPS[n.op].kind === 'noGradient' && !wrtIds.has(id)) continue; // stopGradient: nothing flows back through it
    if (wrtIds.has(id) || n.inputs.some((i) => active[i] === 1)) active[id] = 1;
  }
  const pending = new Map<NodeId, Tensor[]>();
  const totals = new Map<NodeId, Tensor>();
  if (!active[root.id]) return totals;
  pending.set(root.id, [seed]);
  const lowest = Math.min(...wrtIds);
  for (let id = root.id; id >= lowest; id--) {
    const parts = pending.get(id);
    if (!parts) continue;
    pending.delete(id);
    const total = parts.reduce((acc, p) => graph.add(acc, p));
    totals.set(id, total);
    const node = graph.nodes[id];
    const needs = node.inputs.map((i) => active[i] === 1);
    if (!needs.some(Boolean)) continue;
    const entry = vjpOf(node.op);
    if (entry.kind === 'leaf' || entry.kind === 'noGradient') continue;
    if (entry.kind === 'notDifferentiable')
      throw new GraphError(`autograd: ${node.op} is not differentiable: ${entry.why}`, node.op, node.site);
    const ctx: VjpContext<OpKind> = { graph, node, inputs: node.inputs.map((i) => graph.nodes[i]), g: total, needs };
    const grads = entry.fn(ctx);
    node.inputs.forEach((inputId, k) => {
      const gk = grads[k];
      if (!needs[k] || gk === undefined) return;
      const x = graph.nodes[inputId];
      if (!sameShape(gk.shape, x.shape) || gk.dtype !== x.dtype)
        throw new GraphError(
          `autograd: the VJP of ${node.op} gave operand ${k} a gradient ${fmtShape(gk.shape)}:${gk.dtype} for ${describe(x)} (a bug in its rule)`,
          node.op,
          node.site,
        );
      const list = pending.get(inputId);
      if (list) list.push(gk);
      else pending.set(inputId, [gk]);
    });
  }
  return totals;
}

/**
 * Gradients of `loss` with respect to each tensor of `wrt` (params, inputs or intermediate nodes), in the
 * same order. Appends the backward nodes to `graph`. The loss must be f32; a non-scalar loss needs a `seed`.
 *
 * @example
 * ```ts
 * const g = new Graph();
 * const x = g.input('x', [4, 3]);
 * const w = g.param('w', [3, 2], { kind: 'normal', mean: 0, std: 0.1, seed: 1 });
 * const loss = g.mean(g.square(g.matmul(x, w)));
 * const [dw] = grad(g, loss, [w]);                 // [3, 2], a node of `g`
 * g.output('dw', dw);
 * ```
 */
export function grad(graph: Graph, loss: Tensor, wrt: readonly Tensor[], opts: GradOptions = {}): Tensor[] {
  if (graph.nodes[loss.id] !== loss) throw new GraphError(`grad: the loss ${describe(loss)} is not a node of this graph`);
  if (loss.dtype !== 'f32') throw new GraphError(`grad: the loss must be f32, got ${describe(loss)}`, loss.op, loss.site);
  for (const t of wrt) {
    if (graph.nodes[t.id] !== t) throw new GraphError(`grad: ${describe(t)} is not a node of this graph`);
    if (!isFloat(t.dtype)) throw new GraphError(`grad: cannot differentiate with respect to ${describe(t)}: only float (f32, f16) tensors have gradients`, t.op, t.site);
  }
  let seed = opts.seed;
  if (seed === undefined) {
    if (loss.shape.length !== 0)
      throw new GraphError(`grad: the loss ${describe(loss)} is not a scalar; pass a seed of shape ${fmtShape(loss.shape)}`, loss.op, loss.site);
    seed = graph.constant(1, []);
  } else if (!sameShape(seed.shape, loss.shape) || seed.dtype !== 'f32') {
    throw new GraphError(`grad: the seed ${describe(seed)} must be f32 of the loss's shape ${fmtShape(loss.shape)}`, seed.op, seed.site);
  }
  const totals = wrt.length ? backprop(graph, loss, seed, wrt) : new Map<NodeId, Tensor>();
  return wrt.map((t) => {
    const gt = totals.get(t.id);
    if (gt) return gt;
    if (opts.allowUnused) return graph.constant(0, t.shape);
    throw new GraphError(`grad: the loss ${describe(loss)} has no gradient path to ${describe(t)}: it is disconnected, or reaches the loss only through ops without a gradient (comparisons, casts to i32/bool); pass allowUnused to get zeros`, t.op, t.site);
  });
}

/**
 * Gradients by leaf name: of the named input/param/state leaves, or of every param when `names` is omitted.
 */
export function gradByName(graph: Graph, loss: Tensor, names?: readonly string[], opts: GradOptions = {}): Map<string, Tensor> {
  const leaves = names
    ? names.map((name) => {
        const t = graph.byName(name);
        if (!t) throw new GraphError(`gradByName: no input, param or state named '${name}'`);
        return t;
      })
    : graph.leaves('param');
  const grads = grad(graph, loss, leaves, opts);
  return new Map(leaves.map((t, i) => [t.attrs.name, grads[i]]));
}

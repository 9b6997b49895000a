// Adam (Kingma & Ba; PyTorch's formulation) as a graph transform, with L2 weight decay added to the gradient,
// and the shared core of AdamW. Must not create fused ops or do host work per step: bias corrections are
// computed in-graph from a step counter `<name>.step` (f32 scalar state, exact up to 2^24 steps).

import type { Graph, Tensor, TensorLike } from '@neura/ir';
import { checkRange, checkScalar, type Optimizer, paramNames, type ScalarLike, scale } from './optimizer.js';

/** Options of `adam`. */
export interface AdamOptions {
  /** Learning rate: a number (default 1e-3), or a scalar f32 tensor fed each step. */
  readonly lr?: ScalarLike;
  /** Decay of the first moment (default 0.9). */
  readonly beta1?: number;
  /** Decay of the second moment (default 0.999). */
  readonly beta2?: number;
  /** Added to the root of the second moment (default 1e-8). */
  readonly eps?: number;
  /** Weight decay (default 0 for Adam: L2 into the gradient; 0.01 for AdamW: decoupled). */
  readonly weightDecay?: number;
  /** Prefix of state names (default `adam` / `adamW`). */
  readonly name?: string;
}

/** Builds Adam or AdamW: `decoupled` selects AdamW's `p ← p·(1 − lr·wd)` over Adam's `g ← g + wd·p`. */
export function adamFamily(opts: AdamOptions, defaultName: string, decoupled: boolean, defaultDecay: number): Optimizer {
  const name = opts.name ?? defaultName;
  const beta1 = checkRange(`${name}: beta1`, opts.beta1 ?? 0.9, 0, 1, true);
  const beta2 = checkRange(`${name}: beta2`, opts.beta2 ?? 0.999, 0, 1, true);
  const eps = checkRange(`${name}: eps`, opts.eps ?? 1e-8, 0, Infinity);
  const weightDecay = checkRange(`${name}: weightDecay`, opts.weightDecay ?? defaultDecay, 0, Infinity);
  return {
    name,
    apply(graph: Graph, params: readonly Tensor[], grads: readonly Tensor[]): void {
      const lr = checkScalar(`${name}: lr`, opts.lr ?? 1e-3, graph);
      const names = paramNames(name, graph, params, grads);
      const step = graph.state(`${name}.step`, []);
      const t = graph.add(step, 1);
      graph.update(step, t);
      const bc1 = graph.sub(1, graph.pow(beta1, t)); // 1 − β1^t
      const bc2 = graph.sub(1, graph.pow(beta2, t)); // 1 − β2^t
      const decay: TensorLike | undefined =
        decoupled && weightDecay ? (typeof lr === 'number' ? 1 - lr * weightDecay : graph.sub(1, graph.mul(lr, weightDecay))) : undefined;
      params.forEach((p, i) => {
        const g = !decoupled && weightDecay ? graph.add(grads[i], graph.mul(p, weightDecay)) : grads[i];
        const m = graph.state(`${name}.m/${names[i]}`, p.shape);
        const v = graph.state(`${name}.v/${names[i]}`, p.shape);
        const m1 = graph.add(graph.mul(m, beta1), graph.mul(g, 1 - beta1));
        const v1 = graph.add(graph.mul(v, beta2), graph.mul(graph.square(g), 1 - beta2));
        graph.update(m, m1);
        graph.update(v, v1);
        const direction = graph.div(graph.div(m1, bc1), graph.add(graph.sqrt(graph.div(v1, bc2)), eps));
        const base = decay === undefined ? p : graph.mul(p, decay);
        graph.update(p, graph.sub(base, scale(graph, direction, lr)));
      });
    },
  };
}

/** Adam: `m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²; p ← p − lr·m̂/(√v̂ + ε)` with `g ← g + wd·p`. */
export function adam(opts: AdamOptions = {}): Optimizer {
  return adamFamily(opts, 'adam', false, 0);
}

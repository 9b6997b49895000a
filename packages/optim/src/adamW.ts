// AdamW (Loshchilov & Hutter; PyTorch's formulation): Adam with weight decay decoupled from the gradient,
// `p ← p·(1 − lr·wd)` before the Adam step. Must not add the decay to the moments; shares Adam's core.

import { type AdamOptions, adamFamily } from './adam.js';
import type { Optimizer } from './optimizer.js';

/**
 * AdamW: Adam's update applied to `p·(1 − lr·wd)`; weightDecay defaults to 0.01 as in PyTorch.
 *
 * @example
 * ```ts
 * const train = await compileTraining(g, { loss, optimizer: adamW({ lr: 3e-4, weightDecay: 0.1 }), device });
 * // a schedule: feed the learning rate as a scalar input each step
 * const lr = g.input('lr', []);
 * const scheduled = adamW({ lr });                 // train.step({ ...batch, lr: new Float32Array([0.001]) })
 * ```
 */
export function adamW(opts: AdamOptions = {}): Optimizer {
  return adamFamily(opts, 'adamW', true, 0.01);
}

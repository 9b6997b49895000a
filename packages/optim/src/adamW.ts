// AdamW (Loshchilov & Hutter; PyTorch's formulation): Adam with weight decay decoupled from the gradient,
// `p ← p·(1 − lr·wd)` before the Adam step. Must not add the decay to the moments; shares Adam's core.

import { type AdamOptions, adamFamily } from './adam.js';
import type { Optimizer } from './optimizer.js';

/** AdamW: Adam's update applied to `p·(1 − lr·wd)`; weightDecay defaults to 0.01 as in PyTorch. */
export function adamW(opts: AdamOptions = {}): Optimizer {
  return adamFamily(opts, 'adamW', true, 0.01);
}

// The training step as `compileTraining` hands it to the e-graph optimizer (forward with attention recognized,
// backward and the optimizer's update), built again for the e-graph panel's "before" column: the session keeps
// only the optimized graph. Browser-safe.

import type { Graph, Tensor } from '@neura/ir';
import { buildTrainingStep, recognizedForward, type StepOptions } from '@neura/nn';

/** A copy of `forward` grown into the whole unoptimized training step (the same steps as compileTraining's). */
export function builtStep(forward: Graph, opts: StepOptions & { loss: Tensor }): Graph {
  const { graph, loss } = recognizedForward(forward, opts.loss); // a copy: `forward` itself is left as it is
  buildTrainingStep(graph, { ...opts, loss });
  return graph;
}

// The forward graph of a training step with hand-written patterns recognized as ir's fused ops (egraph's
// `recognizeForward`: attention written as matmul/softmax/matmul), before autograd differentiates it, so the
// step gets the fused backward too. Must not change the caller's graph: it works on a copy.
import { recognizeForward } from '@neura/egraph';
import type { Graph, Tensor } from '@neura/ir';

const LOSS = '__recognize/loss'; // the loss as an output while the copy is rebuilt (outputs are kept by name)

/** A copy of `forward` with its hand-written attention recognized, and the loss in that copy. */
export function recognizedForward(forward: Graph, loss: Tensor): { graph: Graph; loss: Tensor } {
  const copy = forward.clone();
  copy.output(LOSS, loss);
  const { graph } = recognizeForward(copy);
  const id = graph.outputs.get(LOSS) as number;
  graph.outputs.delete(LOSS);
  return { graph, loss: graph.get(id) };
}

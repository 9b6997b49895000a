// The forward graph with hand-written patterns recognized as ir's fused ops and the built-in layers' spellings
// (egraph's `recognizeForward`: attention written as matmul/softmax/matmul, GELU, norms, cross-entropy), the one
// place compileTraining (before autograd differentiates it, so the step gets the fused backward too) and
// compileInference (so a hand-written layer gets the built-in's plan) recognize it. Must not change the caller's
// graph: it works on a copy.
import { recognizeForward } from '@neura/egraph';
import type { Graph, Tensor } from '@neura/ir';

const MARK = '__recognize/'; // tensors kept as outputs while the copy is rebuilt (outputs are kept by name)

/** A copy of `forward` with its hand-written layers recognized, and the given tensors in that copy (by the same names). */
export function recognizedGraph<K extends string>(forward: Graph, tensors: Readonly<Record<K, Tensor>>): { graph: Graph; tensors: Record<K, Tensor> } {
  const copy = forward.clone();
  const names = Object.keys(tensors) as K[];
  for (const k of names) copy.output(MARK + k, tensors[k]);
  const { graph } = recognizeForward(copy);
  const out = {} as Record<K, Tensor>;
  for (const k of names) {
    const id = graph.outputs.get(MARK + k) as number;
    graph.outputs.delete(MARK + k);
    out[k] = graph.get(id);
  }
  return { graph, tensors: out };
}

/** A copy of `forward` with its hand-written layers recognized, and the loss in that copy. */
export function recognizedForward(forward: Graph, loss: Tensor): { graph: Graph; loss: Tensor } {
  const { graph, tensors } = recognizedGraph(forward, { loss });
  return { graph, loss: tensors.loss };
}

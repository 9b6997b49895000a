// Reduces a broadcast gradient back to the shape of the operand it flowed from: `sum` over the broadcast
// axes, then `reshape` to restore unit axes. Must not build a node when nothing was broadcast (the gradient
// is returned as is), so unbroadcast operands add no work to the graph.

import { broadcastAxes, fmtShape, GraphError, type Graph, sameShape, type Shape, type Tensor } from '@neura/ir';

/** Sums `grad` over the axes along which a tensor of `shape` was broadcast, and reshapes it to `shape`. */
export function sumToShape(graph: Graph, grad: Tensor, shape: Shape): Tensor {
  if (sameShape(grad.shape, shape)) return grad;
  const axes = broadcastAxes(shape, grad.shape);
  const summed = axes.length > 0 ? graph.sum(grad, axes) : grad;
  if (summed.shape.reduce((p, d) => p * d, 1) !== shape.reduce((p, d) => p * d, 1))
    throw new GraphError(`autograd: gradient ${fmtShape(grad.shape)} does not reduce to operand shape ${fmtShape(shape)}`);
  return graph.reshape(summed, shape);
}

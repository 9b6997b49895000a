// Test graphs for the runtime's GPU tests: a small MLP (forward + hand-written backward + SGD updates) and
// helpers to run the reference interpreter for several steps, feeding its updates back as state.
// Not a test file itself; no GPU here.

import { Graph, interpret, needsKernel, type NodeId, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { seededUniform } from '../src/seededUniform.js';

/** Deterministic pseudo-random floats in [-1, 1) (the runtime's `seededUniform`). */
export const randoms = seededUniform;

/** Batch, in, hidden and classes of the small MLP most GPU tests run (fast on a software adapter). */
export const SMALL_MLP = [4, 6, 8, 3] as const;

/** The bit patterns of a value's elements: for bit-for-bit comparisons (NaN payloads and -0 included). */
export function bits(v: TensorValue): number[] {
  return Array.from(new Uint32Array(v.data.buffer, v.data.byteOffset, v.data.length));
}

/** An MLP `in → hidden → classes` with cross-entropy loss, its gradients, and SGD updates (lr). */
export function mlpTrainingGraph(batch: number, inF: number, hidden: number, classes: number, lr = 0.1) {
  const g = new Graph();
  const x = g.input('x', [batch, inF]);
  const labels = g.input('labels', [batch], 'i32');
  const w1 = g.param('w1', [inF, hidden]);
  const b1 = g.param('b1', [hidden], { kind: 'uniform', low: -0.1, high: 0.1, seed: 7 });
  const w2 = g.param('w2', [hidden, classes]);
  const b2 = g.param('b2', [classes], { kind: 'uniform', low: -0.1, high: 0.1, seed: 9 });
  const a1 = g.linear(x, w1, b1);
  const r1 = g.relu(a1);
  const logits = g.linear(r1, w2, b2);
  const lp = g.logSoftmax(logits);
  const loss = g.output('loss', g.nll(lp, labels));
  g.output('logits', logits);
  // backward, by hand (autograd lives in another package)
  const dy = g.constant(1);
  const dlp = g.node('nllGrad', [labels, dy], { reduction: 'mean', classes });
  const dlogits = g.node('logSoftmaxGrad', [lp, dlp], { axis: 1 });
  const db2 = g.sum(dlogits, 0);
  const dw2 = g.matmul(r1, dlogits, { transA: true });
  const dr1 = g.matmul(dlogits, w2, { transB: true });
  const da1 = g.where(g.gt(a1, 0), dr1, 0);
  const db1 = g.sum(da1, 0);
  const dw1 = g.matmul(x, da1, { transA: true });
  const sgd = (p: Tensor, grad: Tensor) => g.update(p, g.sub(p, g.mul(grad, lr)));
  sgd(w1, dw1);
  sgd(b1, db1);
  sgd(w2, dw2);
  sgd(b2, db2);
  return { g, loss };
}

/** Feeds for the MLP graph. */
export function mlpFeeds(batch: number, inF: number, classes: number, seed: number): Record<string, TensorValue> {
  const labels = Array.from({ length: batch }, (_, i) => (i * 7 + seed) % classes);
  return { x: tensor([batch, inF], randoms(batch * inF, seed)), labels: tensor([batch], labels, 'i32') };
}

/** Runs the interpreter `steps` times, feeding its updates back as state; returns outputs per step and state. */
export function interpretSteps(g: Graph, feeds: readonly Record<string, TensorValue>[], initial: Record<string, TensorValue> = {}) {
  let state = { ...initial };
  const outputs: Record<string, TensorValue>[] = [];
  for (const f of feeds) {
    const r = interpret(g, f, state, 'f32');
    outputs.push(r.outputs);
    state = { ...state, ...r.updates };
  }
  return { outputs, state };
}

/** Live nodes that run a kernel: not a leaf, not a reshape. */
export function kernelNodes(g: Graph): NodeId[] {
  return g.live().filter((id) => needsKernel(g.nodes[id].op));
}

// A registered kernel is respected under compileTraining with the optimizer on: the op becomes a fusion boundary
// (relu is not folded into the matmul's epilogue or a pointwise kernel), so the user's generator really runs,
// and NEURA_DEBUG=1 says so.
// The test kernel computes 2·relu(x), so the forward loss tells whether it ran: it must match the interpreter
// on a graph built with 2·relu, and differ from the built-in relu's loss.

import { doubledRelu } from '../../../tooling/test/doubledRelu.js';
import { Graph, interpret, type Tensor, tensor } from '@neura/ir';
import { compileTraining } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { registerKernel, unregisterKernel } from '@neura/wgsl-kernels';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());


const [B, F, H, C] = [4, 6, 8, 3];

/** An MLP whose hidden activation is `act`: relu(x·w1 + b1)·w2 + b2 → cross-entropy. */
function build(act: (g: Graph, h: Tensor) => Tensor) {
  const g = new Graph();
  const x = g.input('x', [B, F]);
  const labels = g.input('labels', [B], 'i32');
  const h = act(g, g.add(g.matmul(x, g.param('w1', [F, H])), g.param('b1', [H])));
  const loss = g.crossEntropy(g.add(g.matmul(h, g.param('w2', [H, C])), g.param('b2', [C])), labels);
  return { g, loss };
}

const feeds = {
  x: tensor([B, F], Array.from({ length: B * F }, (_, i) => Math.sin(i + 1))),
  labels: tensor([B], [0, 2, 1, 2], 'i32'),
};

describe('registerKernel under compileTraining with the optimizer on', () => {
  it('keeps the op as its own kernel and runs the registered generator', async () => {
    const doubled = build((g, h) => g.mul(g.relu(h), 2));
    doubled.g.output('loss', doubled.loss);
    const plain = build((g, h) => g.relu(h));
    plain.g.output('loss', plain.loss);
    const want = interpret(doubled.g, feeds).outputs.loss.data[0];
    const builtIn = interpret(plain.g, feeds).outputs.loss.data[0];
    expect(Math.abs(want - builtIn)).toBeGreaterThan(1e-3); // the two kernels are told apart by the loss

    registerKernel('relu', doubledRelu);
    const debug = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.stubEnv('NEURA_DEBUG', '1');
    try {
      const { g, loss } = build((gr, h) => gr.relu(h));
      const train = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device });
      vi.unstubAllEnvs();
      expect(train.graph.nodes.some((n) => n.op === 'relu')).toBe(true); // a fusion boundary: relu stays a node
      expect(train.report?.customKernelOps).toEqual(['relu']);
      // NEURA_DEBUG=1 prints the e-graph summary, which names the boundary
      expect(debug.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('custom kernels (fusion boundaries): relu'))).toHaveLength(1);
      const got = await train.step(feeds, { readLoss: true });
      expect(got).toBeAllclose([want], { rtol: 1e-4, atol: 1e-5 });
      train.dispose();
    } finally {
      vi.unstubAllEnvs();
      debug.mockRestore();
      unregisterKernel('relu');
    }
    // without the registration relu fuses again and the built-in semantics apply
    const { g, loss } = build((gr, h) => gr.relu(h));
    const train = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device });
    expect(train.graph.nodes.some((n) => n.op === 'relu')).toBe(false);
    expect(await train.step(feeds, { readLoss: true })).toBeAllclose([builtIn], { rtol: 1e-4, atol: 1e-5 });
    train.dispose();
  });
});

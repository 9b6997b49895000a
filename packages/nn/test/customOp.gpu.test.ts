// A custom op with a user VJP, end to end: softsign y = x/(1 + |x|) defined once (inference, interpreter,
// VJP in graph ops, WGSL kernel) trains inside an MLP with Adam on a real adapter exactly as the interpreter
// runs the unoptimized step; its VJP passes a finite-difference check; the e-graph report lists its kernel;
// a custom op without a kernel, VJP or registration fails with errors that name it.

import { checkGradients, grad } from '@neura/autograd';
import { Graph, GraphError, interpret, numel, type TensorValue, tensor } from '@neura/ir';
import { buildTrainingStep, compileTraining, customOp, Linear } from '@neura/nn';
import { adam } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userUnaryKernel } from '../../../tooling/test/userUnaryKernel.js';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const softsign = customOp({
  name: 'test.softsign',
  infer: ([x]) => ({ shape: x.shape, dtype: 'f32' }),
  interpret: ([x]) => Array.from(x.data, (v) => v / (1 + Math.abs(v))),
  vjp: ({ graph: G, inputs: [x], g }) => [G.div(g, G.square(G.add(G.abs(x), 1)))], // dy/dx = 1/(1 + |x|)²
  flops: (_ins, out) => 3 * numel(out.shape),
  kernel: userUnaryKernel('softsign', (x) => `${x} / (1.0 + abs(${x}))`),
});

const B = 6;
function build() {
  const g = new Graph();
  const x = g.input('x', [B, 4]);
  const h = softsign(g, [new Linear(4, 8).forward(g, x, 'fc1')]);
  return { g, loss: g.crossEntropy(new Linear(8, 3).forward(g, h, 'fc2'), g.input('labels', [B], 'i32')) };
}

describe('customOp', () => {
  it('interprets and differentiates as defined (finite differences)', () => {
    const r = checkGradients(
      (g) => {
        const y = softsign(g, [g.param('x', [3, 4])]);
        expect(y.shape).toEqual([3, 4]);
        return g.sum(g.mul(y, g.input('w', [3, 4])));
      },
      { state: { x: tensor([3, 4], [-2, -1, -0.5, -0.1, 0.1, 0.3, 0.7, 1, 1.5, 2, 3, -3]) }, label: 'softsign' },
    );
    expect(r.ok).toBe(true);
  });

  it('trains in an MLP with Adam on the GPU as the interpreter runs the unoptimized step, and shows in the e-graph report', async () => {
    const gpu = build();
    const train = await compileTraining(gpu.g, { loss: gpu.loss, optimizer: adam({ lr: 0.05 }), device });
    expect(train.report?.kernels.some((k) => k.op === 'custom' && k.custom === 'test.softsign')).toBe(true);
    expect(train.report?.format()).toMatch(/custom \[6, 8\] 1 in test\.softsign/);
    const ref = build();
    buildTrainingStep(ref.g, { loss: ref.loss, optimizer: adam({ lr: 0.05 }) });
    let state: Record<string, TensorValue> = {};
    for (let s = 0; s < 3; s++) {
      const feeds = { x: tensor([B, 4], Array.from({ length: B * 4 }, (_, i) => Math.sin(i + s))), labels: tensor([B], [0, 1, 2, 0, 1, 2], 'i32') };
      const gpuLoss = await train.step(feeds, { readLoss: true });
      const r = interpret(ref.g, feeds, state, 'f64');
      expect(gpuLoss).toBeAllclose(r.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
      state = { ...state, ...r.updates };
    }
    const got = await train.session.readState();
    for (const [n, v] of Object.entries(state)) expect(got[n].data, n).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });
    train.dispose();
  });

  it('names the op when it is unknown, has no VJP, or has no kernel', async () => {
    const g = new Graph();
    expect(() => g.custom('test.nothing', [g.input('x', [2])])).toThrow(/custom op 'test.nothing' is not registered/);
    const noGrad = customOp({ name: 'test.noGrad', infer: ([x]) => ({ shape: x.shape, dtype: 'f32' }), interpret: ([x]) => x.data, kernel: () => ({ dispatches: [], scratch: [] }) });
    const p = g.param('p', [2]);
    expect(() => grad(g, g.sum(noGrad(g, [p])), [p])).toThrow(GraphError);
    expect(() => grad(g, g.sum(noGrad(g, [p])), [p])).toThrow(/custom op 'test.noGrad' has no vjp/);
  });
});

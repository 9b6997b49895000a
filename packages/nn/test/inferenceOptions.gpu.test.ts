// compileInference's options on a real adapter: `memoryBudget` is met by the optimizer as in compileTraining (or
// refused with optimize: false), and an input the graph declares but does not use is accepted and ignored with the
// optimizer on and off alike, while a name the graph does not declare is an InputError listing the inputs.

import { MemoryBudgetError } from '@neura/egraph';
import { Graph, interpret, tensor } from '@neura/ir';
import { compileInference, compileTraining, TrainingStepError } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, InputError, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

/** y = relu(x @ w + b) with an extra input `unused` that nothing reads. */
function model() {
  const g = new Graph();
  const x = g.input('x', [4, 3]);
  g.input('unused', [2]);
  const y = g.relu(g.linear(x, g.param('w', [3, 5]), g.param('b', [5])));
  return { g, y };
}
const state = { w: tensor([3, 5], Array.from({ length: 15 }, (_, i) => (i % 7) * 0.1 - 0.3)), b: tensor([5], [0.1, -0.2, 0.3, 0, 0.05]) };
const x = tensor([4, 3], Array.from({ length: 12 }, (_, i) => (i % 5) * 0.2 - 0.4));

describe('compileInference options', () => {
  it('meets a memoryBudget through the optimizer, and refuses one it cannot meet', async () => {
    const { g, y } = model();
    const s = await compileInference(g, { outputs: { y }, device, initialState: state, memoryBudget: 1e6 });
    expect(s.report?.memory).toBeDefined();
    const want = interpret(s.graph, { x }, state, 'f64').outputs.y.data;
    expect((await s.run({ x })).y.data).toBeAllclose(want, { rtol: 1e-5, atol: 1e-6 });
    s.dispose();
    await expect(compileInference(g, { outputs: { y }, device, memoryBudget: 1 })).rejects.toBeInstanceOf(MemoryBudgetError);
    await expect(compileInference(g, { outputs: { y }, device, memoryBudget: -5 })).rejects.toThrow(/memoryBudget must be a positive, finite number of bytes, got -5/);
  });

  it('refuses a memoryBudget with optimize: false (nothing would meet it)', async () => {
    const { g, y } = model();
    await expect(compileInference(g, { outputs: { y }, device, optimize: false, memoryBudget: 1e6 })).rejects.toThrow(TrainingStepError);
    await expect(compileInference(g, { outputs: { y }, device, optimize: false, memoryBudget: 1e6 })).rejects.toThrow(/compileInference: memoryBudget .*optimize: false/);
  });

  for (const optimize of [true, false])
    it(`accepts and ignores a declared but unused input, rejects an undeclared one (optimize: ${optimize})`, async () => {
      const { g, y } = model();
      const s = await compileInference(g, { outputs: { y }, device, initialState: state, optimize });
      const want = (await s.run({ x })).y.data;
      expect((await s.run({ x, unused: tensor([2], [1, 2]) })).y.data).toEqual(want);
      const err = await s.run({ x, nope: tensor([2], [1, 2]) }).catch((e) => e);
      expect(err).toBeInstanceOf(InputError);
      expect(err.message).toMatch(/unknown input 'nope'; expected inputs: x \[4, 3\] f32/);
      s.dispose();
    });

  it('training accepts a declared but unused input with the optimizer on and off', async () => {
    for (const optimize of [true, false]) {
      const g = new Graph();
      const xi = g.input('x', [4, 3]);
      g.input('unused', [2]);
      const loss = g.sum(g.linear(xi, g.param('w', [3, 5]), g.param('b', [5])));
      const s = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device, optimize, initialState: state });
      await expect(s.step({ x, unused: tensor([2], [1, 2]) }, { readLoss: true })).resolves.toBeTypeOf('number');
      await expect(s.step({ x, nope: tensor([2], [1, 2]) })).rejects.toThrow(/unknown input 'nope'/);
      s.dispose();
    }
  });
});

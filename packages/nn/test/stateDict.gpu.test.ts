// Train and eval graphs of one module tree share state by name: a training session's stateDict() feeds an
// inference session built from the eval graph, which then computes what the interpreter computes with those
// values. A bad loadStateDict throws before writing anything.

import { Graph, interpret, tensor } from '@neura/ir';
import { compileInference, compileTraining, mlp, StateDictError } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

describe('state dicts across sessions', () => {
  it('moves trained parameters into an eval graph, and refuses a bad dict without writing', async () => {
    const model = mlp([6, 5, 3]);
    const g = new Graph();
    const loss = g.crossEntropy(model.forward(g, g.input('x', [4, 6])), g.input('labels', [4], 'i32'));
    const train = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.5 }), device });
    const x = Float32Array.from({ length: 24 }, (_, i) => Math.sin(i));
    for (let i = 0; i < 3; i++) await train.step({ x, labels: Int32Array.from([0, 1, 2, 1]) });
    const sd = await train.stateDict();
    expect(Object.keys(sd)).toEqual(['0.weight', '0.bias', '2.weight', '2.bias']); // no optimizer state
    expect(sd['0.weight'].data).not.toEqual(model.initialState()['0.weight'].data);

    const ge = new Graph();
    const logits = model.eval().forward(ge, ge.input('x', [4, 6]));
    const infer = await compileInference(ge, { outputs: { logits }, device });
    await infer.loadStateDict(sd);
    const got = (await infer.run({ x })).logits;
    ge.output('logits', logits); // compileInference names its outputs on a copy, not on ge
    const want = interpret(ge, { x: tensor([4, 6], x) }, sd).outputs.logits;
    expect(got.data).toBeAllclose(want.data, { atol: 1e-5 });

    const before = await infer.stateDict();
    const bad = { ...sd, '2.bias': tensor([4], [1, 2, 3, 4]), '0.bias': tensor([5], [9, 9, 9, 9, 9]) };
    await expect(infer.loadStateDict(bad)).rejects.toBeInstanceOf(StateDictError);
    await expect(infer.loadStateDict({ '0.weight': sd['0.weight'] })).rejects.toThrow(/missing: 0.bias, 2.weight, 2.bias/);
    expect((await infer.stateDict())['0.bias'].data).toEqual(before['0.bias'].data); // nothing half-loaded
    train.dispose();
    infer.dispose();
  });
});

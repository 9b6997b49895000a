// The CPU inference backend against the GPU session on a real adapter: the same graph gives the same outputs
// (within 1e-5), bad feeds fail with the same error types and messages, and a CPU generator decodes the same
// logits as the GPU one.

import { Graph, tensor } from '@neura/ir';
import { compileGenerator, compileInference, GPT } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

/** A small conv + linear classifier with an embedding lookup and layer norm, so several kernel kinds run. */
function model() {
  const g = new Graph();
  const img = g.input('img', [2, 1, 6, 6]);
  const ids = g.input('ids', [2, 3], 'i32');
  const h = g.relu(g.conv2d(img, g.param('conv', [3, 1, 3, 3]), undefined, { padding: 1 }));
  const feat = g.reshape(g.maxPool2d(h, 2), [2, 27]);
  const emb = g.sum(g.gather(g.param('emb', [7, 27], { kind: 'normal', mean: 0, std: 0.3, seed: 2 }), ids, 0), [1]);
  const z = g.layerNorm(g.add(feat, emb));
  const logits = g.linear(z, g.param('w', [27, 4]), g.param('b', [4]));
  return { g, outputs: { logits, probs: g.softmax(logits, -1) } };
}
const feeds = {
  img: tensor([2, 1, 6, 6], Array.from({ length: 72 }, (_, i) => Math.sin(i * 0.7))),
  ids: tensor([2, 3], [0, 6, 3, 2, 2, 5], 'i32'),
};

describe('CPU inference against the GPU session', () => {
  it('gives the GPU session’s outputs within 1e-5, and its state dict', async () => {
    const { g, outputs } = model();
    const gpu = await compileInference(g, { outputs, device });
    const cpu = await compileInference(g, { outputs, device: 'cpu' });
    await cpu.loadStateDict(await gpu.stateDict());
    const [a, b] = [await gpu.run(feeds), await cpu.run(feeds)];
    for (const k of ['logits', 'probs']) {
      expect(b[k].shape).toEqual(a[k].shape);
      expect(b[k].data).toBeAllclose(a[k].data, { rtol: 1e-5, atol: 1e-5 });
    }
    expect(Object.keys(await cpu.stateDict())).toEqual(Object.keys(await gpu.stateDict()));
    gpu.dispose();
  });

  it('fails bad feeds with the GPU session’s error types and messages', async () => {
    const { g, outputs } = model();
    const gpu = await compileInference(g, { outputs, device, optimize: false });
    const cpu = await compileInference(g, { outputs, device: 'cpu' });
    const bad: unknown[] = [
      { img: feeds.img },
      { ...feeds, nope: feeds.img },
      { ...feeds, img: tensor([1, 1, 6, 6], new Array(36).fill(0)) },
      { ...feeds, ids: new Float32Array(6) },
      { ...feeds, ids: tensor([2, 3], [0, 1, 2, 3, 4, 7], 'i32') },
      { ...feeds, ids: tensor([2, 3], [0, 1, 2.5, 3, 4, 5]) },
      null,
      feeds.img,
    ];
    for (const f of bad) {
      const eg = await gpu.run(f as never).catch((e) => e);
      const ec = await cpu.run(f as never).catch((e) => e);
      expect(eg).toBeInstanceOf(Error);
      expect(ec.constructor).toBe(eg.constructor);
      expect(ec.message).toBe(eg.message);
    }
    gpu.dispose();
  });

  it('decodes the same logits as a GPU generator', async () => {
    const model = new GPT({ vocab: 11, context: 8, layers: 2, heads: 2, width: 8 });
    const [gg, gc] = [await compileGenerator(model, { device, maxLen: 8 }), await compileGenerator(model, { device: 'cpu', maxLen: 8 })];
    for (const gen of [gg, gc]) await gen.loadStateDict(model.initialState());
    for (const [i, t] of [3, 9, 0, 4, 4].entries())
      expect((await gc.step(t, i)) as Float32Array).toBeAllclose((await gg.step(t, i)) as Float32Array, { rtol: 1e-5, atol: 1e-5 });
    gg.dispose();
  });
});

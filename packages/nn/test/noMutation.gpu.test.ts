// compileTraining and compileInference leave the graph they are given as it was: the step is built on a copy, so
// the same forward graph can be compiled again (for training and for inference) and gives the same results.

import { Graph, graphToJson, tensor } from '@neura/ir';
import { compileInference, compileTraining, mlp } from '@neura/nn';
import { sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

function forward() {
  const g = new Graph();
  const x = g.input('x', [4, 5]);
  const labels = g.input('labels', [4], 'i32');
  const logits = mlp([5, 6, 3]).forward(g, x);
  return { g, logits, loss: g.crossEntropy(logits, labels) };
}

const feeds = { x: tensor([4, 5], Array.from({ length: 20 }, (_, i) => Math.sin(i))), labels: tensor([4], [0, 1, 2, 1], 'i32') };

describe('compile* do not mutate their graph', () => {
  it('compileTraining builds the step on a copy; compiling the same graph twice gives the same first loss', async () => {
    const { g, loss } = forward();
    const before = JSON.stringify(graphToJson(g));
    const a = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device });
    expect(JSON.stringify(graphToJson(g))).toBe(before);
    expect(g.updates).toHaveLength(0);
    expect(g.outputs.size).toBe(0);
    expect(a.graph).not.toBe(g);
    const b = await compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device, optimize: false });
    expect(b.graph).not.toBe(g);
    expect(JSON.stringify(graphToJson(g))).toBe(before);
    const la = await a.step(feeds, { readLoss: true });
    const lb = await b.step(feeds, { readLoss: true });
    expect(la).toBeAllclose([lb as number], { rtol: 1e-5, atol: 1e-6 });
    a.dispose();
    b.dispose();
  });

  it('compileInference names its outputs on a copy', async () => {
    const { g, logits } = forward();
    const before = JSON.stringify(graphToJson(g));
    const inf = await compileInference(g, { outputs: { logits }, device });
    expect(JSON.stringify(graphToJson(g))).toBe(before);
    expect(g.outputs.size).toBe(0);
    expect((await inf.run({ x: feeds.x })).logits.shape).toEqual([4, 3]);
    inf.dispose();
  });
});

// Any batch up to the compiled one: a step compiled at B with `batchInputs` and fed b < B rows (or, for a GPT,
// t < T positions) gives the loss and parameter updates of a step compiled at exactly b, run by the f64 interpreter
// on the unoptimized step graph. Real kernels on the software adapter; the errors name what is wrong.

import { Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { BatchSizeError, buildTrainingStep, compileTraining, GPT, mlp, type TrainingSession, Trainer, tensorDataset } from '@neura/nn';
import { adam, sgd } from '@neura/optim';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const F = 6;
const C = 4;

/** An MLP of `rows` rows with a crossEntropy or mse loss. */
function mlpGraph(rows: number, loss: 'ce' | 'mse'): { g: Graph; loss: Tensor } {
  const g = new Graph();
  const x = g.input('x', [rows, F]);
  const out = mlp([F, 5, C]).forward(g, x);
  if (loss === 'ce') return { g, loss: g.crossEntropy(out, g.input('labels', [rows], 'i32')) };
  return { g, loss: g.mse(out, g.input('y', [rows, C])) };
}

function rand(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1);
}

/** Runs each feed set on `session` and the f64 interpreter on `ref` (a step built at the feeds' exact size): same losses, same state. */
async function matches(session: TrainingSession, ref: (feeds: Record<string, TensorValue>) => Graph, steps: Record<string, TensorValue>[], tol = { rtol: 1e-4, atol: 1e-5 }) {
  let state: Record<string, TensorValue> = {};
  for (const feeds of steps) {
    const got = await session.step(feeds, { readLoss: true });
    const r = interpret(ref(feeds), feeds, state, 'f64');
    expect(got).toBeAllclose(r.outputs.loss.data, tol);
    state = { ...state, ...r.updates };
  }
  const all = await session.session.readState();
  for (const [name, v] of Object.entries(state)) expect(all[name].data, name).toBeAllclose(v.data, { rtol: 2e-3, atol: 2e-5 });
}

describe('a step compiled at B takes any batch up to B', () => {
  const B = 8;
  it('gives an MLP with crossEntropy the loss and updates of the real rows only', async () => {
    const full = mlpGraph(B, 'ce');
    const session = await compileTraining(full.g, { loss: full.loss, optimizer: adam({ lr: 0.05 }), device, batchInputs: ['x', 'labels'] });
    expect(session.batch).toEqual({ rows: B, inputs: ['x', 'labels'] });
    const feeds = (b: number, seed: number) => ({ x: tensor([b, F], rand(b * F, seed)), labels: tensor([b], Array.from({ length: b }, (_, i) => (i * 3 + seed) % C), 'i32') });
    const ref = (f: Record<string, TensorValue>) => {
      const r = mlpGraph(f.x.shape[0], 'ce');
      buildTrainingStep(r.g, { loss: r.loss, optimizer: adam({ lr: 0.05 }) });
      return r.g;
    };
    // a partial batch, a full one, then a single row: one compiled plan for all three
    await matches(session, ref, [feeds(5, 1), feeds(B, 2), feeds(1, 3)]);
    session.dispose();
  });

  it('gives an MLP with mse the mean over the real rows, fed as flat arrays', async () => {
    const full = mlpGraph(B, 'mse');
    const session = await compileTraining(full.g, { loss: full.loss, optimizer: sgd({ lr: 0.1 }), device, batchInputs: { x: {}, y: { pad: 1e6 } } });
    // padding of 1e6 in the targets would swamp the loss if the padded rows counted
    const b = 3;
    const x = rand(b * F, 7);
    const y = rand(b * C, 8);
    const r = mlpGraph(b, 'mse');
    buildTrainingStep(r.g, { loss: r.loss, optimizer: sgd({ lr: 0.1 }) });
    await matches(session, () => r.g, [{ x: tensor([b, F], x), y: tensor([b, C], y) }]);
    // flat typed arrays: the rows are their length over the values per row
    const before = await session.readParams();
    const again = await session.step({ x, y }, { readLoss: true });
    const ref = interpret(r.g, { x: tensor([b, F], x), y: tensor([b, C], y) }, before, 'f64');
    expect(again).toBeAllclose(ref.outputs.loss.data, { rtol: 1e-4, atol: 1e-5 });
    session.dispose();
  });

  it('gives a tiny GPT the loss of shorter and fewer sequences, padded targets ignored', async () => {
    const model = () => new GPT({ layers: 1, heads: 2, width: 8, context: 4, vocab: 7, attention: 'decomposed' });
    const train = model().trainingGraph(2, 4, { ignoreIndex: -100 });
    const batchInputs = { tokens: { sequence: true }, targets: { sequence: true, pad: -100 } };
    const session = await compileTraining(train.graph, { loss: train.loss, optimizer: adam({ lr: 0.01 }), device, batchInputs });
    const seqs = (b: number, t: number, k: number) => ({
      tokens: tensor([b, t], Array.from({ length: b * t }, (_, i) => (i * 5 + k) % 7), 'i32'),
      targets: tensor([b, t], Array.from({ length: b * t }, (_, i) => (i * 3 + k) % 7), 'i32'),
    });
    const ref = (f: Record<string, TensorValue>) => {
      const [b, t] = f.tokens.shape;
      const r = model().trainingGraph(b, t);
      buildTrainingStep(r.graph, { loss: r.loss, optimizer: adam({ lr: 0.01 }) });
      return r.graph;
    };
    await matches(session, ref, [seqs(1, 3, 1), seqs(2, 2, 2), seqs(2, 4, 3)], { rtol: 2e-4, atol: 2e-5 });
    session.dispose();
  });
});

describe('the Trainer with a step that takes any batch size', () => {
  it('feeds the last partial batch of each epoch as is (no drop, no padding by the caller)', async () => {
    const B = 4;
    const n = 10; // batches of 4, 4 and 2
    const x = rand(n * F, 5);
    const labels = Int32Array.from({ length: n }, (_, i) => i % C);
    const full = mlpGraph(B, 'ce');
    const session = await compileTraining(full.g, { loss: full.loss, optimizer: sgd({ lr: 0.2 }), device, batchInputs: ['x', 'labels'] });
    const fit = await new Trainer(session).fit(tensorDataset({ x: { data: x, perExample: F }, labels: { data: labels, perExample: 1 } }), { epochs: 2, batchSize: B, progress: false });
    expect(fit.steps).toBe(6);
    // the interpreter, one step graph per batch size, over the same order (no shuffle)
    let state: Record<string, TensorValue> = {};
    for (let e = 0; e < 2; e++)
      for (const [start, b] of [[0, 4], [4, 4], [8, 2]]) {
        const r = mlpGraph(b, 'ce');
        buildTrainingStep(r.g, { loss: r.loss, optimizer: sgd({ lr: 0.2 }) });
        const feeds = { x: tensor([b, F], x.subarray(start * F, (start + b) * F)), labels: tensor([b], labels.subarray(start, start + b), 'i32') };
        state = { ...state, ...interpret(r.g, feeds, state, 'f64').updates };
      }
    const params = await session.readParams();
    for (const [name, v] of Object.entries(params)) expect(v.data, name).toBeAllclose(state[name].data, { rtol: 2e-3, atol: 2e-5 });
    await expect(new Trainer(session).fit(tensorDataset({ x: { data: x, perExample: F }, labels: { data: labels, perExample: 1 } }), { epochs: 1, batchSize: 5, progress: false })).rejects.toThrow(/batchSize 5 is more than the 4 rows/);
    session.dispose();
  });
});

describe('batch size errors', () => {
  const B = 4;
  it('refuses more rows than compiled, and feeds that disagree on the batch size', async () => {
    const full = mlpGraph(B, 'ce');
    const session = await compileTraining(full.g, { loss: full.loss, optimizer: sgd({ lr: 0.1 }), device, batchInputs: ['x', 'labels'] });
    await expect(session.step({ x: rand(5 * F, 1), labels: new Int32Array(5) })).rejects.toThrow(/'x' has 5 rows, more than the 4/);
    await expect(session.step({ x: rand(3 * F, 1), labels: new Int32Array(2) })).rejects.toThrow(BatchSizeError);
    await expect(session.step({ x: rand(3 * F, 1), labels: new Int32Array(2) })).rejects.toThrow(/'x' has 3 rows, 'labels' has 2/);
    await expect(session.step({ x: rand(3 * F - 1, 1), labels: new Int32Array(3) })).rejects.toThrow(/not a whole number of rows of 6/);
    session.dispose();
  });

  it('refuses at compile time a loss that padded rows would change, naming the op', async () => {
    const g = new Graph();
    const x = g.input('x', [B, F]);
    // BatchNorm-style batch statistics: every row is normalised by the batch mean
    const h = g.sub(x, g.mean(x, 0, true));
    const loss = g.mse(g.linear(h, g.param('w', [F, 1])), g.input('y', [B, 1]));
    await expect(compileTraining(g, { loss, optimizer: sgd({ lr: 0.1 }), device, batchInputs: ['x', 'y'] })).rejects.toThrow(/sub .*combines per-row values with mean over the batch/);
    const g2 = new Graph();
    const x2 = g2.input('x', [B, F]);
    const loss2 = g2.mean(g2.matmul(x2, g2.param('w', [B, 3]), { transA: true })); // contracts over the rows
    await expect(compileTraining(g2, { loss: loss2, optimizer: sgd({ lr: 0.1 }), device, batchInputs: ['x'] })).rejects.toThrow(/matmul .*contracts over the batch rows/);
    await expect(compileTraining(g2, { loss: loss2, optimizer: sgd({ lr: 0.1 }), device, batchInputs: ['nope'] })).rejects.toThrow(/'nope' is not an input/);
  });
});

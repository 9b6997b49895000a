// Training-step options and learning-rate policies on the reference interpreter: gradient accumulation over
// two half batches equals one step on the whole batch; clipping scales by the global norm; parameter groups
// give each group its own optimizer; schedules follow PyTorch's formulas.

import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { ACCUMULATE_INPUT, buildTrainingStep, Linear, oneCycleLr, ReduceLrOnPlateau, stepLr, TrainingStepError } from '@neura/nn';
import { adam, sgd } from '@neura/optim';
import { describe, expect, it } from 'vitest';

function net(batch: number) {
  const g = new Graph();
  const x = g.input('x', [batch, 3]);
  const y = g.input('labels', [batch], 'i32');
  const h = g.relu(new Linear(3, 4).forward(g, x, 'fc1'));
  return { g, loss: g.crossEntropy(new Linear(4, 2).forward(g, h, 'fc2'), y) };
}
const xs = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 0.1, 0.3, 0.3, -0.7];
const ys = [0, 1, 1, 0];

describe('buildTrainingStep options', () => {
  it('accumulating two half batches equals one step on the whole batch (Adam)', () => {
    const whole = net(4);
    buildTrainingStep(whole.g, { loss: whole.loss, optimizer: adam({ lr: 0.1 }) });
    const want = interpret(whole.g, { x: tensor([4, 3], xs), labels: tensor([4], ys, 'i32') }, {}, 'f64').updates;

    const init = { ...new Linear(3, 4).initialState('fc1'), ...new Linear(4, 2).initialState('fc2') };
    const half = net(2);
    buildTrainingStep(half.g, { loss: half.loss, optimizer: adam({ lr: 0.1 }), accumulate: 2 });
    let state: Record<string, TensorValue> = {};
    for (const k of [0, 1]) {
      const feeds = { x: tensor([2, 3], xs.slice(6 * k, 6 * k + 6)), labels: tensor([2], ys.slice(2 * k, 2 * k + 2), 'i32'), [ACCUMULATE_INPUT]: tensor([], [k]) };
      const r = interpret(half.g, feeds, state, 'f64');
      if (k === 0) for (const [n, v] of Object.entries(init)) expect(Array.from(r.updates[n].data), `${n} unchanged before the update`).toEqual(Array.from(v.data));
      state = { ...state, ...r.updates };
    }
    for (const [n, v] of Object.entries(want)) expect(state[n].data, n).toBeAllclose(v.data, { rtol: 1e-12, atol: 1e-12 });
    for (const [n, v] of Object.entries(state)) if (n.startsWith('accumulate/')) expect(Array.from(v.data).every((e) => e === 0), n).toBe(true);
  });

  it('loss scaling by a power of two leaves the step unchanged in f32, and refuses other scales', () => {
    const feeds = { x: tensor([4, 3], xs), labels: tensor([4], ys, 'i32') };
    const plain = net(4);
    buildTrainingStep(plain.g, { loss: plain.loss, optimizer: sgd({ lr: 0.1 }) });
    const want = interpret(plain.g, feeds, {}, 'f32').updates;
    const scaled = net(4);
    buildTrainingStep(scaled.g, { loss: scaled.loss, optimizer: sgd({ lr: 0.1 }), lossScale: 1024 });
    const got = interpret(scaled.g, feeds, {}, 'f32').updates;
    for (const [n, v] of Object.entries(want)) expect(got[n].data, n).toBeAllclose(v.data, { rtol: 1e-6, atol: 1e-7 });
    const bad = net(4);
    expect(() => buildTrainingStep(bad.g, { loss: bad.loss, optimizer: sgd({ lr: 0.1 }), lossScale: 1000 })).toThrow(/lossScale must be a positive power of two, got 1000/);
  });

  it('clips the gradient by its global norm', () => {
    const feeds = { x: tensor([4, 3], xs), labels: tensor([4], ys, 'i32') };
    const init = { ...new Linear(3, 4).initialState('fc1'), ...new Linear(4, 2).initialState('fc2') };
    const stepNorm = (clip?: number) => {
      const m = net(4);
      buildTrainingStep(m.g, { loss: m.loss, optimizer: sgd({ lr: 1 }), clipGradNorm: clip });
      const u = interpret(m.g, feeds, {}, 'f64').updates;
      let sq = 0;
      for (const [n, v] of Object.entries(init)) for (let i = 0; i < v.data.length; i++) sq += (u[n].data[i] - v.data[i]) ** 2;
      return Math.sqrt(sq); // SGD with lr 1 moves the params by exactly the (clipped) gradient
    };
    expect(stepNorm()).toBeGreaterThan(1e-2);
    expect(stepNorm(1e-3)).toBeCloseTo(1e-3, 7);
  });

  it('gives each parameter group its own optimizer and rejects a param in no group', () => {
    const m = net(4);
    buildTrainingStep(m.g, { loss: m.loss, groups: [{ params: (n) => n.startsWith('fc1'), optimizer: sgd({ lr: 0 }) }, { params: ['fc2.weight', 'fc2.bias'], optimizer: sgd({ lr: 1, name: 'sgd2' }) }] });
    const r = interpret(m.g, { x: tensor([4, 3], xs), labels: tensor([4], ys, 'i32') }, {}, 'f64').updates;
    const init = { ...new Linear(3, 4).initialState('fc1'), ...new Linear(4, 2).initialState('fc2') };
    expect(Array.from(r['fc1.weight'].data)).toEqual(Array.from(init['fc1.weight'].data));
    expect(Array.from(r['fc2.weight'].data)).not.toEqual(Array.from(init['fc2.weight'].data));
    const bad = net(4);
    expect(() => buildTrainingStep(bad.g, { loss: bad.loss, groups: [{ params: ['fc1.weight'], optimizer: sgd({ lr: 1 }) }] })).toThrow(/in no parameter group: fc1.bias, fc2.weight, fc2.bias/);
    const none = net(4);
    const err = (() => {
      try {
        buildTrainingStep(none.g, { loss: none.loss });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TrainingStepError);
    expect(err).toMatchObject({ name: 'TrainingStepError', message: 'compileTraining: give an optimizer or parameter groups' });
  });
});

describe('learning-rate policies', () => {
  it('stepLr decays by gamma every stepSize steps', () => {
    const s = stepLr(0.1, 10, 0.5);
    expect([0, 9, 10, 25].map((t) => s(t, 100))).toEqual([0.1, 0.1, 0.05, 0.025]);
  });

  it('oneCycleLr rises from maxLr/25 to maxLr, then falls to maxLr/25/1e4 (PyTorch OneCycleLR)', () => {
    const s = oneCycleLr(1, { pctStart: 0.3 });
    expect(s(0, 100)).toBeCloseTo(0.04, 12);
    expect(s(29, 100)).toBeCloseTo(1, 12);
    expect(s(99, 100)).toBeCloseTo(0.04 / 1e4, 12);
    expect(s(64, 100)).toBeCloseTo(0.04 / 1e4 + (1 - 0.04 / 1e4) / 2, 12); // halfway down
  });

  it('ReduceLrOnPlateau cuts the rate after `patience` evaluations without improvement', () => {
    const p = new ReduceLrOnPlateau(1, { factor: 0.5, patience: 2 });
    expect([3, 2, 2, 2, 2, 1.5, 1.6, 1.6, 1.6].map((v) => p.observe(v))).toEqual([1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25]);
  });
});

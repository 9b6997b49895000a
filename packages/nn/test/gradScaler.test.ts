// Dynamic loss scaling (PyTorch GradScaler semantics) on the reference interpreter in f32: a step whose scaled
// gradient overflows is skipped bit for bit and halves the scale; finite steps grow it every growthInterval; a
// power-of-two scale leaves training exactly as unscaled; bad options are refused by name.

import { Graph, interpret, type TensorValue, tensor } from '@neura/ir';
import { ACCUMULATE_INPUT, buildTrainingStep, GRAD_SCALER_STATE, Linear, type LossScale, type StepOptions } from '@neura/nn';
import { adam, sgd } from '@neura/optim';
import { describe, expect, it } from 'vitest';

/** Linear regression whose loss is multiplied by the fed scalar `k`: k = 1e36 makes the scaled gradient overflow f32 while the loss stays finite. */
function net(opts: Omit<StepOptions, 'loss'>) {
  const g = new Graph();
  const x = g.input('x', [4, 3]);
  const y = g.input('y', [4, 2]);
  const k = g.input('k', []);
  const pred = new Linear(3, 2).forward(g, x, 'fc');
  const loss = g.mul(g.mean(g.square(g.sub(pred, y))), k);
  buildTrainingStep(g, { loss, ...opts });
  return g;
}
const xs = [0.5, -1, 2, 1, 0.25, -0.5, -2, 1.5, 0.1, 0.3, 0.3, -0.7];
const ys = [1, 0, -1, 2, 0.5, 0.5, 3, -2];
const feeds = (k: number, x: readonly number[] = xs): Record<string, TensorValue> => ({ x: tensor([4, 3], x), y: tensor([4, 2], ys), k: tensor([], [k]) });

/** Runs the step graph once in f32 from `state`; returns the state after it and the loss. */
function run(g: Graph, f: Record<string, TensorValue>, state: Record<string, TensorValue>) {
  const r = interpret(g, f, state, 'f32');
  return { state: { ...state, ...r.updates }, loss: r.outputs.loss.data[0] };
}
const bits = (s: Record<string, TensorValue>) => Object.fromEntries(Object.entries(s).map(([n, v]) => [n, Array.from(v.data)]));
const scaleOf = (s: Record<string, TensorValue>) => [s[GRAD_SCALER_STATE.scale].data[0], s[GRAD_SCALER_STATE.growthTracker].data[0]];

describe('dynamic loss scaling (GradScaler)', () => {
  it('skips exactly the step whose gradient overflows: params and Adam state bit-identical, scale halved, then trains on', () => {
    const g = net({ optimizer: adam({ lr: 0.1 }), lossScale: 'dynamic' });
    let { state } = run(g, feeds(1), {});
    expect(scaleOf(state)).toEqual([65536, 1]);
    const before = bits(state);
    const bad = run(g, feeds(1e36), state);
    expect(Number.isFinite(bad.loss), 'the unscaled loss is finite: only the scaled gradient overflows').toBe(true);
    const after = bits(bad.state);
    for (const n of Object.keys(before)) if (!n.startsWith('gradScaler.')) expect(after[n], n).toEqual(before[n]);
    expect(after['adam.step']).toEqual([1]);
    expect(scaleOf(bad.state)).toEqual([32768, 0]);
    // a NaN in the batch is skipped the same way
    const nan = run(g, feeds(1, [Number.NaN, ...xs.slice(1)]), bad.state);
    for (const n of Object.keys(before)) if (!n.startsWith('gradScaler.')) expect(bits(nan.state)[n], n).toEqual(before[n]);
    expect(scaleOf(nan.state)).toEqual([16384, 0]);
    state = run(g, feeds(1), nan.state).state;
    expect(Array.from(state['fc.weight'].data)).not.toEqual(before['fc.weight']);
    expect(state['adam.step'].data[0]).toBe(2);
    expect(scaleOf(state)).toEqual([16384, 1]);
  });

  it("follows GradScaler's scale and growth-tracker sequence", () => {
    // Expected (scale, tracker) after each step, per torch/cuda/amp/grad_scaler.py `_amp_update_scale_` (torch 1.13;
    // aten/src/ATen/native/cuda/AmpKernels.cu: found_inf ? (scale *= backoff, tracker = 0) : (++tracker == interval ?
    // (scale *= growth if finite, tracker = 0) : tracker)) with init_scale 2^16, growth 2, backoff 0.5, interval 3.
    // GradScaler needs CUDA (torch 1.13 has no CPU `_amp_update_scale_`), so the table is written from the rule.
    const overflow = [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0];
    const torchTable = [
      [65536, 1], [65536, 2], [131072, 0], [131072, 1], [65536, 0], [65536, 1], [65536, 2],
      [131072, 0], [65536, 0], [32768, 0], [32768, 1], [32768, 2], [65536, 0],
    ];
    const g = net({ optimizer: sgd({ lr: 0.01 }), lossScale: { growthInterval: 3 } });
    let state: Record<string, TensorValue> = {};
    const got: number[][] = [];
    for (const o of overflow) {
      state = run(g, feeds(o ? 1e36 : 1), state).state;
      got.push(scaleOf(state));
    }
    expect(got).toEqual(torchTable);
  });

  it('does not grow the scale past the largest f32 (the tracker still resets), as PyTorch', () => {
    const g = net({ optimizer: sgd({ lr: 0 }), lossScale: { initScale: 2 ** 127, growthInterval: 1 } });
    const { state } = run(g, feeds(1e-30), {});
    expect(scaleOf(state)).toEqual([2 ** 127, 0]);
  });

  it('trains exactly as the unscaled step with a power-of-two scale (f32)', () => {
    for (const lossScale of ['dynamic', 1024, { initScale: 2 ** 20, growthInterval: 2 }] as LossScale[]) {
      const plain = net({ optimizer: adam({ lr: 0.05 }) });
      const scaled = net({ optimizer: adam({ lr: 0.05 }), lossScale });
      let a: Record<string, TensorValue> = {};
      let b: Record<string, TensorValue> = {};
      for (let s = 0; s < 4; s++) {
        const ra = run(plain, feeds(1 + s), a);
        const rb = run(scaled, feeds(1 + s), b);
        expect(rb.loss, 'the reported loss is unscaled').toBe(ra.loss);
        a = ra.state;
        b = rb.state;
      }
      for (const [n, v] of Object.entries(a)) expect(Array.from(b[n].data), `${JSON.stringify(lossScale)}: ${n}`).toEqual(Array.from(v.data));
    }
  });

  it('checks the accumulated gradient: an overflow in one micro-batch skips the whole update, and the scale changes once per update', () => {
    const g = net({ optimizer: adam({ lr: 0.1 }), lossScale: 'dynamic', accumulate: 2 });
    const micro = (k: number, apply: number) => ({ ...feeds(k), [ACCUMULATE_INPUT]: tensor([], [apply]) });
    let { state } = run(g, micro(1, 0), {});
    state = run(g, micro(1, 1), state).state;
    expect(scaleOf(state)).toEqual([65536, 1]);
    const before = bits(state);
    state = run(g, micro(1e36, 0), state).state;
    expect(scaleOf(state), 'no scale change before the applying micro-batch').toEqual([65536, 1]);
    state = run(g, micro(1, 1), state).state;
    for (const n of Object.keys(before)) if (!n.startsWith('gradScaler.')) expect(bits(state)[n], n).toEqual(before[n]);
    expect(scaleOf(state)).toEqual([32768, 0]);
  });

  it('checks before clipping (an Inf gradient would make the clipped ones NaN) and still skips with clipGradNorm', () => {
    const g = net({ optimizer: adam({ lr: 0.1 }), lossScale: 'dynamic', clipGradNorm: 0.5 });
    const { state } = run(g, feeds(1), {});
    const before = bits(state);
    const bad = run(g, feeds(1e36), state).state;
    for (const n of Object.keys(before)) if (!n.startsWith('gradScaler.')) expect(bits(bad)[n], n).toEqual(before[n]);
    expect(scaleOf(bad)).toEqual([32768, 0]);
    const next = run(g, feeds(1), bad).state;
    expect(Object.values(next).every((v) => Array.from(v.data).every(Number.isFinite))).toBe(true);
  });

  it('refuses bad options, naming the option', () => {
    const bad = (lossScale: unknown) => () => net({ optimizer: sgd({ lr: 0.1 }), lossScale: lossScale as LossScale });
    expect(bad(0)).toThrow(/lossScale must be a positive power of two, got 0/);
    expect(bad(-4)).toThrow(/lossScale must be a positive power of two, got -4/);
    expect(bad(1000)).toThrow(/lossScale must be a positive power of two, got 1000 \(or 'dynamic'/);
    expect(bad({ initScale: 0 })).toThrow(/lossScale.initScale must be a positive finite f32 number, got 0/);
    expect(bad({ initScale: Number.POSITIVE_INFINITY })).toThrow(/lossScale.initScale must be a positive finite/);
    expect(bad({ growthFactor: 1 })).toThrow(/lossScale.growthFactor must be a finite number > 1, got 1/);
    expect(bad({ backoffFactor: 1 })).toThrow(/lossScale.backoffFactor must be in \(0, 1\), got 1/);
    expect(bad({ backoffFactor: 0 })).toThrow(/lossScale.backoffFactor must be in \(0, 1\), got 0/);
    expect(bad({ growthInterval: 2.5 })).toThrow(/lossScale.growthInterval must be an integer in \[1, 2\^24\], got 2.5/);
    expect(bad({ growthInterval: 0 })).toThrow(/lossScale.growthInterval must be an integer/);
    expect(bad({ growthIntervall: 10 })).toThrow(/lossScale has no option 'growthIntervall'/);
    expect(bad('dymanic')).toThrow(/lossScale must be a number, 'dynamic' or an object, got "dymanic"/);
  });
});

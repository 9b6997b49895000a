import { describe, expect, it } from 'vitest';
import { Graph, interpret, leafName, type TensorValue } from '@neura/ir';
import { adam, adamW, clipGradNorm, globalNorm, type Optimizer, sgd } from '../src/index.js';
import { adamRef, PROBLEM, type RefParam, sgdRef } from './reference.js';

const f64 = (shape: number[], data: number[]): TensorValue => ({ shape, dtype: 'f32', data: Float64Array.from(data) });

/** Builds the test problem, applies the optimizer and returns the graph (params w1 [3], w2 [2, 2]). */
function build(opt: Optimizer): Graph {
  const g = new Graph();
  const w1 = g.param('w1', [3]);
  const w2 = g.param('w2', [2, 2]);
  const g1 = g.sub(w1, g.input('target', [3]));
  const g2 = g.add(g.mul(w2, g.input('scale', [2, 2])), 0.3);
  opt.apply(g, [w1, w2], [g1, g2]);
  return g;
}

/** Runs 3 steps in the interpreter (float64), feeding the updates back as the next state. */
function run(g: Graph, lrs?: number[]): Record<string, TensorValue>[] {
  let state: Record<string, TensorValue> = { w1: f64([3], PROBLEM.w1), w2: f64([2, 2], PROBLEM.w2) };
  const history: Record<string, TensorValue>[] = [];
  for (let step = 0; step < 3; step++) {
    const feeds: Record<string, TensorValue> = { target: f64([3], PROBLEM.target), scale: f64([2, 2], PROBLEM.scale) };
    if (lrs) feeds.lr = f64([], [lrs[step]]);
    const r = interpret(g, feeds, state, 'f64');
    state = { ...state, ...r.updates };
    history.push(state);
  }
  return history;
}

function expectUpdatesEverything(g: Graph, stateNames: string[]): void {
  const names = (ids: number[]) => ids.map((id) => leafName(g.nodes[id]));
  expect(names(g.leaves('state').map((n) => n.id))).toEqual(stateNames);
  const updated = new Set(names(g.updates.map((u) => u.state)));
  for (const leaf of [...g.leaves('param'), ...g.leaves('state')]) expect(updated.has(leaf.attrs.name)).toBe(true);
  expect(g.nodes.some((n) => n.op === 'pointwise' || n.op === 'fusedMatmul')).toBe(false);
}

describe('sgd', () => {
  for (const [momentum, nesterov, weightDecay] of [
    [0, false, 0],
    [0, false, 0.1],
    [0.9, false, 0],
    [0.9, true, 0.05],
  ] as const) {
    it(`matches torch.optim.SGD for 3 steps (momentum ${momentum}, nesterov ${nesterov}, weightDecay ${weightDecay})`, () => {
      const o = { lr: 0.1, momentum, nesterov, weightDecay };
      const g = build(sgd(o));
      expectUpdatesEverything(g, momentum ? ['sgd.momentum/w1', 'sgd.momentum/w2'] : []);
      const history = run(g);
      const r1: RefParam = { p: [...PROBLEM.w1] };
      const r2: RefParam = { p: [...PROBLEM.w2] };
      for (let step = 1; step <= 3; step++) {
        sgdRef(r1, PROBLEM.grad1(r1.p), step, o);
        sgdRef(r2, PROBLEM.grad2(r2.p), step, o);
        const s = history[step - 1];
        expect(s.w1.data).toBeAllclose(r1.p, { rtol: 1e-12, atol: 1e-14 });
        expect(s.w2.data).toBeAllclose(r2.p, { rtol: 1e-12, atol: 1e-14 });
        if (momentum) expect(s['sgd.momentum/w2'].data).toBeAllclose(r2.buf as number[], { rtol: 1e-12, atol: 1e-14 });
      }
    });
  }

  it('rejects nesterov without momentum', () => {
    expect(() => sgd({ lr: 0.1, nesterov: true })).toThrow(/nesterov needs a momentum > 0/);
  });
});

describe('adam and adamW', () => {
  const cases = [
    ['adam', adam, false, 0],
    ['adam', adam, false, 0.1],
    ['adamW', adamW, true, 0.01],
    ['adamW', adamW, true, 0.2],
  ] as const;
  for (const [name, make, decoupled, weightDecay] of cases) {
    it(`${name} matches PyTorch's formulas for 3 steps (weightDecay ${weightDecay})`, () => {
      const o = { lr: 0.05, beta1: 0.8, beta2: 0.95, eps: 1e-8, weightDecay };
      const g = build(make(o));
      expectUpdatesEverything(g, [`${name}.step`, `${name}.m/w1`, `${name}.v/w1`, `${name}.m/w2`, `${name}.v/w2`]);
      const history = run(g);
      const r1: RefParam = { p: [...PROBLEM.w1] };
      const r2: RefParam = { p: [...PROBLEM.w2] };
      for (let step = 1; step <= 3; step++) {
        adamRef(r1, PROBLEM.grad1(r1.p), step, { ...o, decoupled });
        adamRef(r2, PROBLEM.grad2(r2.p), step, { ...o, decoupled });
        const s = history[step - 1];
        expect(s[`${name}.step`].data).toBeAllclose([step]);
        expect(s.w1.data).toBeAllclose(r1.p, { rtol: 1e-12, atol: 1e-14 });
        expect(s.w2.data).toBeAllclose(r2.p, { rtol: 1e-12, atol: 1e-14 });
        expect(s[`${name}.m/w1`].data).toBeAllclose(r1.m as number[], { rtol: 1e-12, atol: 1e-14 });
        expect(s[`${name}.v/w2`].data).toBeAllclose(r2.v as number[], { rtol: 1e-12, atol: 1e-14 });
      }
    });
  }

  it('takes the learning rate from a scalar input fed each step (a schedule without host work in the graph)', () => {
    const g = new Graph();
    const w1 = g.param('w1', [3]);
    const w2 = g.param('w2', [2, 2]);
    const lr = g.input('lr', []);
    adamW({ lr, weightDecay: 0.1 }).apply(g, [w1, w2], [g.sub(w1, g.input('target', [3])), g.add(g.mul(w2, g.input('scale', [2, 2])), 0.3)]);
    const lrs = [0.1, 0.05, 0.01];
    const history = run(g, lrs);
    const r1: RefParam = { p: [...PROBLEM.w1] };
    for (let step = 1; step <= 3; step++) {
      adamRef(r1, PROBLEM.grad1(r1.p), step, { lr: lrs[step - 1], beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, decoupled: true });
      expect(history[step - 1].w1.data).toBeAllclose(r1.p, { rtol: 1e-12, atol: 1e-14 });
    }
  });

  it('uses PyTorch defaults and names its state after the optimizer name', () => {
    const g = new Graph();
    const w = g.param('w', [2]);
    adam({ name: 'enc' }).apply(g, [w], [g.mul(w, 2)]);
    expect(g.leaves('state').map((n) => n.attrs.name)).toEqual(['enc.step', 'enc.m/w', 'enc.v/w']);
  });

  it('rejects mismatched params and gradients, naming the param', () => {
    const g = new Graph();
    const w = g.param('w', [2]);
    expect(() => adam().apply(g, [w], [g.constant(1, [3])])).toThrow(/gradient of 'w' is \[3\]:f32, the param is \[2\]:f32/);
    expect(() => adam().apply(g, [w], [])).toThrow(/1 params but 0 gradients/);
    expect(() => adam({ beta1: 1 })).toThrow(/beta1 must be in \[0, 1\)/);
    expect(() => adam({ lr: g.constant(1, [2]) }).apply(g, [w], [w])).toThrow(/lr must be a scalar f32 tensor/);
  });
});

describe('clipGradNorm', () => {
  for (const maxNorm of [0.5, 100]) {
    it(`scales gradients by min(1, ${maxNorm} / (norm + 1e-6)) like torch's clip_grad_norm_`, () => {
      const g = new Graph();
      const a = g.input('a', [3]);
      const b = g.input('b', [2, 2]);
      const clipped = clipGradNorm(g, [a, b], maxNorm);
      g.output('norm', globalNorm(g, [a, b]));
      clipped.forEach((c, i) => {
        g.output(`c${i}`, c);
      });
      const av = [0.3, -1.2, 0.5];
      const bv = [2, -0.1, 0.4, 0.7];
      const r = interpret(g, { a: f64([3], av), b: f64([2, 2], bv) });
      const norm = Math.sqrt([...av, ...bv].reduce((s, x) => s + x * x, 0));
      const k = Math.min(1, maxNorm / (norm + 1e-6));
      expect(r.outputs.norm.data).toBeAllclose([norm], { rtol: 1e-12 });
      expect(r.outputs.c0.data).toBeAllclose(av.map((x) => x * k), { rtol: 1e-12 });
      expect(r.outputs.c1.data).toBeAllclose(bv.map((x) => x * k), { rtol: 1e-12 });
    });
  }
});

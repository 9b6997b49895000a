// A multi-result kernel (`pointwiseMulti`) on a real adapter against the interpreter: one dispatch updates
// several states in place (an Adam-like p, m, v update), a result read by a later node goes to its own
// buffer, an unused result is not computed, and every result matches the interpreter, step after step.

import { Graph, interpret, type PwExpr, type TensorValue, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const I = (index: number): PwExpr => ({ op: 'in', index });
const C = (value: number): PwExpr => ({ op: 'const', value });
const add = (a: PwExpr, b: PwExpr): PwExpr => ({ op: 'add', a, b });
const mul = (a: PwExpr, b: PwExpr): PwExpr => ({ op: 'mul', a, b });
const sub = (a: PwExpr, b: PwExpr): PwExpr => ({ op: 'sub', a, b });
const div = (a: PwExpr, b: PwExpr): PwExpr => ({ op: 'div', a, b });
const sqrt = (a: PwExpr): PwExpr => ({ op: 'sqrt', a });

/** operands: 0 p, 1 m, 2 v, 3 g (the gradient, an input), 4 a row scale [5] (broadcast) */
const m1 = add(mul(I(1), C(0.9)), mul(I(3), C(0.1)));
const v1 = add(mul(I(2), C(0.99)), mul(mul(I(3), I(3)), C(0.01)));
const p1 = sub(I(0), mul(div(m1, add(sqrt(v1), C(1e-3))), mul(I(4), C(0.05))));
const extra = mul(I(3), I(4)); // read by a later node, not a state

function build(withUnused: boolean): Graph {
  const g = new Graph();
  const p = g.param('p', [3, 5], { kind: 'uniform', low: -1, high: 1, seed: 1 });
  const m = g.state('m', [3, 5]);
  const v = g.state('v', [3, 5], { kind: 'uniform', low: 0, high: 1, seed: 2 });
  const grad = g.input('g', [3, 5]);
  const scale = g.input('scale', [5]);
  const exprs = withUnused ? [p1, m1, v1, extra, mul(I(0), C(3))] : [p1, m1, v1, extra];
  const multi = g.node('pointwiseMulti', [p, m, v, grad, scale], { exprs, dtype: 'f32' });
  g.update(p, multi);
  g.update(m, g.node('pick', [multi], { index: 1 }));
  g.update(v, g.node('pick', [multi], { index: 2 }));
  g.output('y', g.sum(g.node('pick', [multi], { index: 3 }), [1]));
  return g;
}

function feeds(step: number): Record<string, TensorValue> {
  return {
    g: tensor([3, 5], Array.from({ length: 15 }, (_, i) => Math.sin(i * 1.7 + step))),
    scale: tensor([5], Array.from({ length: 5 }, (_, i) => 0.5 + i * 0.25 + step * 0.1)),
  };
}

describe('pointwiseMulti', () => {
  for (const withUnused of [false, true]) {
    it(`updates p, m and v in place in one dispatch and matches the interpreter${withUnused ? ' (an unused result skipped)' : ''}`, async () => {
      const g = build(withUnused);
      const session = await compile(g, device);
      expect(session.stats.dispatchesPerStep).toBe(2); // the multi kernel and the sum
      expect(session.stats.copiesPerStep).toBe(0); // p, m and v written in place
      let state: Record<string, TensorValue> = {};
      for (let s = 0; s < 3; s++) {
        const r = await session.step(feeds(s), { read: ['y'] });
        const want = interpret(g, feeds(s), state, 'f32');
        expect(r.outputs.y.data).toBeAllclose(want.outputs.y.data, { rtol: 1e-5, atol: 1e-6 });
        state = { ...state, ...want.updates };
      }
      const got = await session.readState();
      for (const name of ['p', 'm', 'v']) expect(got[name].data, name).toBeAllclose(state[name].data, { rtol: 1e-4, atol: 1e-6 });
      session.dispose();
    });
  }
});

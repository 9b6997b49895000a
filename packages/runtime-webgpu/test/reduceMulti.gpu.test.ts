// Sibling reductions in one kernel (`pointwiseReduceMulti`) on a real adapter against the interpreter: a layer
// norm's dβ = Σ dY and dγ = Σ dY·x̂ and a third sum with an epilogue, through compile (each result to its own
// buffer, read through `pick`): long columns run every result in one strips pass, or (too few columns for
// strips) one partials pass and one combine pass for all; other paths run each result's reduction in turn; an
// unused result is not computed. Every path sums in a fixed order: two runs give the same bits.

import { Graph, interpret, type PwExpr, type Shape, type TensorValue, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const I = (index: number): PwExpr => ({ op: 'in', index });
const results = [
  { expr: I(0), post: I(0) }, // Σ dY
  { expr: { op: 'mul', a: I(0), b: I(1) } as PwExpr, post: I(0) }, // Σ dY·x̂
  { expr: { op: 'mul', a: I(0), b: { op: 'exp', a: I(2) } } as PwExpr, post: { op: 'neg', a: I(0) } as PwExpr }, // −Σ dY·e^b
];

function build(shape: Shape, axes: number[], bias: Shape, outputs: number[], pickFirst = false): Graph {
  const g = new Graph();
  const dy = g.input('dy', shape);
  const xh = g.input('xh', shape);
  const b = g.input('b', bias);
  const multi = g.node('pointwiseReduceMulti', [dy, xh, b], { results, shape: [...shape], reduce: 'sum', axes, keepdims: false });
  for (const j of outputs) g.output(`y${j}`, j === 0 && !pickFirst ? multi : g.node('pick', [multi], { index: j }));
  return g;
}

const values = (shape: Shape, seed: number) => {
  const n = shape.reduce((p, d) => p * d, 1);
  return tensor(shape, Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * 0.5));
};

describe('pointwiseReduceMulti', () => {
  const cases: { name: string; shape: Shape; axes: number[]; bias: Shape; outputs: number[]; dispatches: number; pickFirst?: boolean }[] = [
    { name: 'split columns, every result', shape: [70, 12], axes: [0], bias: [12], outputs: [0, 1, 2], dispatches: 2 },
    { name: 'split columns, odd width, result 1 unused', shape: [130, 7], axes: [0], bias: [7], outputs: [0, 2], dispatches: 2 },
    // as the e-graph extracts it: result 0 held by a pick too, so the kernel's value is stored in the pick's buffer
    // (its scratch was once never allocated: GPT steps failed to bind)
    { name: 'split columns, every result through a pick', shape: [70, 12], axes: [0], bias: [12], outputs: [0, 1, 2], dispatches: 2, pickFirst: true },
    { name: 'rows: one reduction after another', shape: [5, 300], axes: [1], bias: [5, 1], outputs: [0, 1, 2], dispatches: 3 },
    { name: 'split columns, result 0 unused', shape: [70, 12], axes: [0], bias: [12], outputs: [1, 2], dispatches: 2, pickFirst: true },
    { name: 'column strips, every result', shape: [67, 264], axes: [0], bias: [264], outputs: [0, 1, 2], dispatches: 1 },
    { name: 'column strips, odd width, result 1 unused, through picks', shape: [130, 257], axes: [0], bias: [257], outputs: [0, 2], dispatches: 1, pickFirst: true },
  ];
  for (const c of cases) {
    it(`${c.name} matches the interpreter`, async () => {
      const g = build(c.shape, c.axes, c.bias, c.outputs, c.pickFirst);
      const session = await compile(g, device);
      expect(session.stats.dispatchesPerStep).toBe(c.dispatches);
      const feeds: Record<string, TensorValue> = { dy: values(c.shape, 1), xh: values(c.shape, 2), b: values(c.bias, 3) };
      const names = c.outputs.map((j) => `y${j}`);
      const r = await session.step(feeds, { read: names });
      const want = interpret(g, feeds, {}, 'f32');
      for (const n of names) expect(r.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-4, atol: 1e-4 });
      const again = await session.step(feeds, { read: names });
      for (const n of names) expect(Array.from(again.outputs[n].data), `${n}, second run`).toEqual(Array.from(r.outputs[n].data));
      session.dispose();
    });
  }
});

describe('pointwiseReduceMulti results as gradients of a multi-tensor update', () => {
  // dβ and dγ of a layer norm feed one SGD-with-momentum kernel over both parameters: the gradients live in one
  // arena buffer, and the reduction's pass that writes both binds it writable twice over disjoint ranges (valid
  // WebGPU): the update stays one dispatch
  it.each([
    ['split columns', [70, 12], 3], // partials, one combine for both, the update
    ['column strips', [67, 264], 2], // one strips pass, the update
  ] as const)('%s: keeps the update in one dispatch and matches the interpreter', async (_, shape, dispatches) => {
    const n = shape[1];
    const g = new Graph();
    const lr = g.input('lr', []);
    const dy = g.input('dy', [...shape]);
    const xh = g.input('xh', [...shape]);
    const multi = g.node('pointwiseReduceMulti', [dy, xh], { results: results.slice(0, 2), shape: [...shape], reduce: 'sum', axes: [0], keepdims: false });
    const grads = [g.node('pick', [multi], { index: 0 }), g.node('pick', [multi], { index: 1 })];
    const params = [0, 1].map((i) => g.param(`p${i}`, [n], { kind: 'uniform', low: -1, high: 1, seed: i + 1 }));
    const bufs = [0, 1].map((i) => g.state(`buf${i}`, [n]));
    const next: PwExpr = { op: 'add', a: { op: 'mul', a: I(2), b: { op: 'const', value: 0.9 } }, b: I(3) };
    const exprs: PwExpr[] = [{ op: 'sub', a: I(1), b: { op: 'mul', a: next, b: I(0) } }, next];
    const mt = g.node('pointwiseMultiTensor', [lr, params[0], bufs[0], grads[0], params[1], bufs[1], grads[1]], { exprs, dtype: 'f32', shared: 1, shapes: [[n], [n]] });
    g.update(params[0], mt);
    g.update(bufs[0], g.node('pick', [mt], { index: 1 }));
    g.update(params[1], g.node('pick', [mt], { index: 2 }));
    g.update(bufs[1], g.node('pick', [mt], { index: 3 }));
    const session = await compile(g, device);
    expect(session.stats.multiTensorArenas).toBe(1);
    expect(session.stats.dispatchesPerStep).toBe(dispatches);
    let state: Record<string, TensorValue> = {};
    for (let s = 0; s < 2; s++) {
      const f = { lr: tensor([], [0.1]), dy: values([...shape], s), xh: values([...shape], s + 5) };
      await session.step(f);
      state = { ...state, ...interpret(g, f, state, 'f64').updates };
    }
    const got = await session.readState();
    for (const [name, v] of Object.entries(state)) expect(got[name].data, name).toBeAllclose(v.data, { rtol: 1e-4, atol: 1e-4 });
    await session.dispose();
  });
});

// Sibling row kernels in one dispatch (`rowwiseMulti`) on a real adapter against the interpreter: a layer norm's
// x̂ and its affine output x̂·γ + β from one read of the rows, through compile (each result to its own buffer,
// read through `pick`); an unused result is not written; rows wider than a workgroup and a lone row.

import { Graph, interpret, type PwExpr, type RowStat, type Shape, type TensorValue, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const I = (index: number): PwExpr => ({ op: 'in', index });
const bin = (op: 'add' | 'sub' | 'mul', a: PwExpr, b: PwExpr): PwExpr => ({ op, a, b });
// operands x [R, C], γ [C], β [C]; stats $3 (mean) and $4 (rstd)
const stats: RowStat[] = [
  { expr: I(0), reduce: 'mean', post: I(0) },
  { expr: { op: 'square', a: bin('sub', I(0), I(3)) }, reduce: 'mean', post: { op: 'rsqrt', a: bin('add', I(0), { op: 'const', value: 1e-5 }) } },
];
const xhat = bin('mul', bin('sub', I(0), I(3)), I(4));
const exprs = [xhat, bin('add', bin('mul', xhat, I(1)), I(2))];

function build(shape: Shape, outputs: number[]): Graph {
  const g = new Graph();
  const c = shape[shape.length - 1];
  const multi = g.node('rowwiseMulti', [g.input('x', shape), g.input('w', [c]), g.input('b', [c])], { exprs, stats });
  for (const j of outputs) g.output(`y${j}`, g.node('pick', [multi], { index: j }));
  return g;
}

const values = (shape: Shape, seed: number) => {
  const n = shape.reduce((p, d) => p * d, 1);
  return tensor(shape, Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * 0.5 + (seed === 2 ? 1 : 0)));
};

describe('rowwiseMulti', () => {
  const cases: { name: string; shape: Shape; outputs: number[] }[] = [
    { name: "a layer norm's x̂ and y over rows of 384", shape: [5, 384], outputs: [0, 1] },
    { name: 'batched rows of 7, result 0 unused', shape: [2, 3, 7], outputs: [1] },
    { name: 'a lone row of 1000', shape: [1, 1000], outputs: [0, 1] },
  ];
  for (const c of cases) {
    it(`${c.name} matches the interpreter in one dispatch`, async () => {
      const g = build(c.shape, c.outputs);
      const session = await compile(g, device);
      expect(session.stats.dispatchesPerStep).toBe(1);
      const w = c.shape[c.shape.length - 1];
      const feeds: Record<string, TensorValue> = { x: values(c.shape, 1), w: values([w], 2), b: values([w], 3) };
      const names = c.outputs.map((j) => `y${j}`);
      const r = await session.step(feeds, { read: names });
      const want = interpret(g, feeds, {}, 'f64');
      for (const n of names) expect(r.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-4, atol: 1e-4 });
      session.dispose();
    });
  }
});

// compileInference on a real adapter recognizes hand-written layers as compileTraining does: a model with a layer
// norm written from means and a GELU written with erf compiles to the built-in layers' kernels, and its session's
// outputs match the hand-written graph in the f64 interpreter.

import { Graph, interpret, mulberry32, numel, type Tensor, tensor } from '@neura/ir';
import { compileInference } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const [N, C] = [8, 16];

/** x → linear → layer norm → GELU, built in or written by hand. */
function model(byHand: boolean): { g: Graph; y: Tensor } {
  const g = new Graph();
  const h = g.matmul(g.input('x', [N, C]), g.param('w1', [C, C]));
  const w = g.param('ln.w', [C]);
  const b = g.param('ln.b', [C]);
  if (!byHand) return { g, y: g.gelu(g.layerNorm(h, w, b, { eps: 1e-5 })) };
  const c = g.sub(h, g.mean(h, -1, true));
  const n = g.add(g.mul(g.div(c, g.sqrt(g.add(g.mean(g.pow(c, 2), -1, true), 1e-5))), w), b);
  return { g, y: g.mul(g.mul(0.5, n), g.add(1, g.erf(g.div(n, Math.SQRT2)))) };
}

describe('compileInference recognizes hand-written layers', () => {
  it("compiles a hand-written layer norm and GELU to the built-in layers' kernels, with the hand-written values", async () => {
    const r = mulberry32(17);
    const values = (shape: number[]) => tensor(shape, Array.from({ length: numel(shape) }, () => r() - 0.5));
    const state = { w1: values([C, C]), 'ln.w': values([C]), 'ln.b': values([C]) };
    const x = values([N, C]);
    const kernels = (s: { report?: { kernels: readonly { op: string; expr?: string }[] } }) => s.report?.kernels.map((k) => `${k.op} ${k.expr ?? ''}`);
    const hand = model(true);
    const s = await compileInference(hand.g, { outputs: { y: hand.y }, device, initialState: state });
    const builtin = model(false);
    const t = await compileInference(builtin.g, { outputs: { y: builtin.y }, device, initialState: state });
    expect(kernels(s)).toEqual(kernels(t));
    expect(kernels(s)?.join()).toMatch(/gelu/);
    const plain = hand.g.clone();
    plain.output('y', hand.y);
    const want = interpret(plain, { x }, state, 'f64').outputs.y.data;
    expect((await s.run({ x })).y.data).toBeAllclose(want, { rtol: 1e-4, atol: 1e-5 });
    s.dispose();
    t.dispose();
  });
});

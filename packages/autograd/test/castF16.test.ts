import { describe, expect, it } from 'vitest';
import { Graph, interpret, tensor } from '@neura/ir';
import { grad } from '../src/index.js';

describe('the VJP of a cast between f32 and f16', () => {
  it("casts the gradient back, as torch's .half()/.float() backward: f32 params get f16-rounded f32 gradients", () => {
    // torch 1.13, f32 x and w with requires_grad: y = (x.half().float() @ w.half().float()).half();
    // z = (y.float() * y.float()).sum(); z.backward()
    const g = new Graph();
    const x = g.param('x', [2, 3]);
    const w = g.param('w', [3, 2]);
    const y = g.cast(g.matmul(g.cast(x, 'f16'), g.cast(w, 'f16')), 'f32');
    const z = g.sum(g.mul(y, y));
    const [dx, dw] = grad(g, z, [x, w]);
    expect([dx.dtype, dw.dtype]).toEqual(['f32', 'f32']);
    g.output('z', z);
    g.output('dx', dx);
    g.output('dw', dw);
    const state = { x: tensor([2, 3], [0.1, -0.7, 1.3, 2.5, 0.33, -1.1]), w: tensor([3, 2], [0.2, -0.4, 0.9, 0.123, -1.7, 0.05]) };
    const r = interpret(g, {}, state, 'f32').outputs;
    expect(r.z.data[0]).toBeCloseTo(16.093069076538086, 5);
    expect(Array.from(r.dx.data)).toEqual([-1.0791015625, -5.08984375, 9.5859375, 1.876953125, 4.55078125, -9.1640625]);
    expect(Array.from(r.dw.data)).toEqual([12.765625, -5.08203125, 5.7109375, -0.58349609375, -13.1953125, 2.0703125]);
  });

  it('builds f16 masks for the gradient of relu on an f16 tensor', () => {
    const g = new Graph();
    const x = g.param('x', [3]);
    const h = g.relu(g.cast(x, 'f16'));
    const [dx] = grad(g, g.sum(g.cast(h, 'f32')), [x]);
    g.output('dx', dx);
    expect(Array.from(interpret(g, {}, { x: tensor([3], [-1, 0.5, 2]) }).outputs.dx.data)).toEqual([0, 1, 1]);
  });
});

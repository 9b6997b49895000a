// Fused forms the e-graph picks, run on a real adapter against the interpreter on the unoptimized graph:
// the gradient of a slice-split tensor summed from zero pads becomes one concat (`pad-add-concat`, then
// `concat-concat`), and a sum of a negation moves the negation past the reduction (`reduce-factor-out`); stacked
// layer norms' dx, each adding the residual stream's gradient from above, become one `rowwise` kernel each.

import { Graph, interpret, type Tensor, type TensorValue, tensor } from '@neura/ir';
import { compileInference } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const values = (shape: number[], seed: number): TensorValue =>
  tensor(shape, Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * 0.7 + seed)));

describe('fused forms on the GPU', () => {
  it('three zero pads summed become one concat, and sum(neg x) a negated sum, agreeing with the interpreter', async () => {
    const g = new Graph();
    const [a, b, c] = [g.input('a', [6, 4]), g.input('b', [6, 3]), g.input('c', [6, 5])];
    // summed as autograd sums them: each partial sum covers adjacent columns (c: 7–11, b: 4–6, a: 0–3)
    const grad = g.add(g.add(g.pad(c, [0, 7], [0, 0]), g.pad(b, [0, 4], [0, 5])), g.pad(a, [0, 0], [0, 8]));
    const rows = g.sum(g.neg(g.mul(grad, grad)), [1]);
    const feeds = { a: values([6, 4], 1), b: values([6, 3], 2), c: values([6, 5], 3) };
    const session = await compileInference(g, { outputs: { grad, rows }, device });
    const got = await session.run(feeds);
    const ref = g.clone();
    ref.output('grad', grad);
    ref.output('rows', rows);
    const want = interpret(ref, feeds, {}, 'f64').outputs;
    expect(got.grad.data).toBeAllclose(want.grad.data, { rtol: 1e-6, atol: 1e-7 });
    expect(got.rows.data).toBeAllclose(want.rows.data, { rtol: 1e-5, atol: 1e-6 });
    const ops = session.graph.live().map((id) => session.graph.nodes[id].op);
    expect(ops.filter((op) => op === 'concat').length).toBe(1);
    expect(ops).not.toContain('pad');
    expect(session.report?.format()).toMatch(/pad-add-concat|concat-concat/);
    session.dispose();
  });

  it("stacked layer norms' dx, each adding the gradient from above, run as one rowwise kernel each and agree with the interpreter", async () => {
    const [n, c] = [6, 40];
    const g = new Graph();
    const rowSum = (t: Tensor) => g.reshape(g.sum(t, [1]), [n, 1]);
    const wide = (t: Tensor) => g.expand(t, [n, c]);
    // as autograd builds a layer norm's dx: row sums reshaped to [N, 1], broadcasts as expand
    const dxOf = (k: number, up?: Tensor): Tensor => {
      const x = g.input(`x${k}`, [n, c]);
      const centred = g.sub(x, g.mean(x, [1], true));
      const rstd = g.rsqrt(g.add(g.mean(g.square(centred), [1], true), 1e-5));
      const dxhat = g.mul(g.input(`dy${k}`, [n, c]), g.input(`w${k}`, [c]));
      const dvar = g.mul(rowSum(g.mul(dxhat, centred)), g.mul(g.mul(rstd, g.square(rstd)), -0.5));
      const dc = g.add(g.mul(dxhat, rstd), g.mul(g.mul(wide(dvar), 1 / c), g.mul(centred, 2)));
      const dx = g.add(dc, g.mul(wide(rowSum(g.neg(dc))), 1 / c));
      return up ? g.add(up, dx) : dx;
    };
    const top = dxOf(0);
    const bottom = dxOf(2, dxOf(1, top));
    const feeds: Record<string, TensorValue> = {};
    for (const [k, leaf] of g.leaves('input').entries()) feeds[leaf.attrs.name] = values([...leaf.shape], k + 1);
    const session = await compileInference(g, { outputs: { top, bottom }, device });
    const got = await session.run(feeds);
    const ref = g.clone();
    ref.output('top', top);
    ref.output('bottom', bottom);
    const want = interpret(ref, feeds, {}, 'f64').outputs;
    expect(got.top.data).toBeAllclose(want.top.data, { rtol: 1e-4, atol: 1e-5 });
    expect(got.bottom.data).toBeAllclose(want.bottom.data, { rtol: 1e-4, atol: 1e-5 });
    const kernels = session.graph.live().map((id) => session.graph.nodes[id]).filter((node) => !['input', 'param', 'state', 'const', 'reshape'].includes(node.op));
    expect(kernels.map((node) => node.op)).toEqual(['rowwise', 'rowwise', 'rowwise']);
    session.dispose();
  });
});

// A multi-tensor kernel (`pointwiseMultiTensor`) on a real adapter against the interpreter: an SGD-with-momentum
// update of three parameters of different shapes, whose gradients are computed by kernels of the step, runs as
// one dispatch (each role — parameters, momenta, gradients — laid out in one buffer at aligned offsets), writes
// everything in place, keeps read/write by name working, and matches the interpreter step after step. Where an
// arena cannot be made (a gradient that is a fed input used as a role of two groups), one dispatch per group.

import { Graph, interpret, type PwExpr, type TensorValue, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const I = (index: number): PwExpr => ({ op: 'in', index });
/** operands of a group: $0 the learning rate (shared), $1 p, $2 momentum, $3 gradient */
const next: PwExpr = { op: 'add', a: { op: 'mul', a: I(2), b: { op: 'const', value: 0.9 } }, b: I(3) };
const exprs: PwExpr[] = [{ op: 'sub', a: I(1), b: { op: 'mul', a: next, b: I(0) } }, next];
const SHAPES = [[3, 5], [7], [2, 33]];

function build(sharedGradient = false, chained = false): Graph {
  const shapes = sharedGradient || chained ? [SHAPES[0], SHAPES[0], SHAPES[2]] : SHAPES;
  const g = new Graph();
  const lr = g.input('lr', []);
  const x = g.input('x', [4]);
  const ins = [lr];
  const params = shapes.map((shape, i) => g.param(`p${i}`, shape, { kind: 'uniform', low: -1, high: 1, seed: i + 1 }));
  const bufs = shapes.map((shape, i) => g.state(`buf${i}`, shape));
  const fed = g.input('gfed', SHAPES[0]);
  const grads: ReturnType<Graph['input']>[] = [];
  shapes.forEach((_, i) => {
    // a gradient computed in the step (a kernel's output, so a transient tensor placed in the gradient arena); chained:
    // group 1's gradient is computed from group 0's, so that kernel would bind the gradients' arena twice
    const grad = sharedGradient && i < 2 ? fed : chained && i === 1 ? g.exp(grads[0]) : g.mul(g.tanh(params[i]), g.sum(x));
    grads.push(grad);
    ins.push(params[i], bufs[i], grad);
  });
  const mt = g.node('pointwiseMultiTensor', ins, { exprs, dtype: 'f32', shared: 1, shapes: shapes.map((s) => [...s]) });
  shapes.forEach((_, i) => {
    g.update(params[i], i === 0 ? mt : g.node('pick', [mt], { index: 2 * i }));
    g.update(bufs[i], g.node('pick', [mt], { index: 2 * i + 1 }));
  });
  g.output('s', g.sum(x));
  return g;
}

/**
 * Momentum SGD on three weights whose gradients are xᵀ·dy products over K = 520 rows: groups 0 and 2 read theirs
 * as split-K partials (4 and 3 of them: `partials`), group 1 its reduced product. Chained: group 1's gradient is
 * the sum of group 0's partials, so that kernel reads the gradients' arena and writes it (one
 * dispatch per group then, each group's partials summed into scratch first).
 */
function buildPartials(chained = false): Graph {
  const shapes = [[5, 3], [5, 3], [6, 4]];
  const splits = [4, 1, 3];
  const g = new Graph();
  const lr = g.input('lr', []);
  const x = g.input('px', [520, 6]);
  const dy = g.input('pdy', [520, 4]);
  const ins = [lr];
  const params = shapes.map((shape, i) => g.param(`w${i}`, shape, { kind: 'uniform', low: -1, high: 1, seed: i + 7 }));
  const bufs = shapes.map((shape, i) => g.state(`wbuf${i}`, shape));
  const grads: ReturnType<Graph['input']>[] = [];
  shapes.forEach(([m, n], i) => {
    const xs = g.slice(x, [0, 0], [520, m]);
    const ds = g.slice(dy, [0, 0], [520, n]);
    const chain = chained && i === 1;
    const grad = splits[i] > 1 ? g.matmulPartials(xs, ds, splits[i], { transA: true }) : chain ? g.sum(grads[0], [0]) : g.matmul(xs, ds, { transA: true });
    grads.push(grad);
    ins.push(params[i], bufs[i], grad);
  });
  const mt = g.node('pointwiseMultiTensor', ins, { exprs, dtype: 'f32', shared: 1, shapes, partials: { role: 2, splits } });
  shapes.forEach((_, i) => {
    g.update(params[i], i === 0 ? mt : g.node('pick', [mt], { index: 2 * i }));
    g.update(bufs[i], g.node('pick', [mt], { index: 2 * i + 1 }));
  });
  g.output('s', g.sum(lr));
  return g;
}

const partialFeeds = (step: number): Record<string, TensorValue> => ({
  lr: tensor([], [0.05 + 0.01 * step]),
  px: tensor([520, 6], Array.from({ length: 3120 }, (_, i) => Math.sin(i * 0.37 + step))),
  pdy: tensor([520, 4], Array.from({ length: 2080 }, (_, i) => Math.cos(i * 0.11 - step) * 0.1)),
});

const feeds = (step: number): Record<string, TensorValue> => ({
  lr: tensor([], [0.05 + 0.01 * step]),
  x: tensor([4], [0.5, -0.25, step * 0.1, 1]),
  gfed: tensor(SHAPES[0], Array.from({ length: 15 }, (_, i) => Math.cos(i + step))),
});

async function matchesInterpreter(g: Graph, steps: number, feedsOf = feeds): Promise<void> {
  const session = await compile(g, device);
  let state: Record<string, TensorValue> = {};
  for (let s = 0; s < steps; s++) {
    await session.step(feedsOf(s));
    state = { ...state, ...interpret(g, feedsOf(s), state, 'f64').updates };
  }
  const got = await session.readState();
  for (const [name, v] of Object.entries(state)) expect(got[name].data, name).toBeAllclose(v.data, { rtol: 1e-5, atol: 1e-6 });
  await session.dispose();
}

describe('pointwiseMultiTensor', () => {
  it('updates every group in place in one dispatch, its roles in one buffer each, and matches the interpreter', async () => {
    const g = build();
    const session = await compile(g, device);
    // 3 gradient kernels (tanh·sum fused or not), the sum, and one dispatch for every group
    const kernels = session.stats.kernels;
    expect(session.stats.dispatchesPerStep).toBe(kernels);
    expect(session.stats.multiTensorArenas).toBe(1);
    expect(session.stats.copiesPerStep).toBe(0);
    expect(session.stats.inPlaceUpdates).toBe(6);
    // p1 sits after p0 in the parameters' buffer, at an offset aligned for binding
    const p1 = (session as unknown as { c: { state: Map<string, { buffer: unknown; offset: number }> } }).c.state;
    expect(p1.get('p1')?.buffer).toBe(p1.get('p0')?.buffer);
    expect(p1.get('p1')?.offset).toBe(256);
    await session.dispose();
    await matchesInterpreter(build(), 3);
  });

  it('reads and writes a tensor of an arena by name', async () => {
    const g = build();
    const session = await compile(g, device);
    const v = tensor([7], [1, 2, 3, 4, 5, 6, 7]);
    await session.writeState('p1', v);
    expect((await session.read('p1')).data).toBeAllclose(v.data, { rtol: 0, atol: 0 });
    await session.step(feeds(0));
    const want = interpret(g, feeds(0), { p1: v }, 'f64').updates;
    expect((await session.read('p1')).data).toBeAllclose(want.p1.data, { rtol: 1e-5, atol: 1e-6 });
    expect((await session.read('buf2')).data).toBeAllclose(want.buf2.data, { rtol: 1e-5, atol: 1e-6 });
    await session.dispose();
  });

  it('runs one dispatch per group when another kernel would bind an arena writable and read-only, and still matches', async () => {
    const g = build(false, true);
    const session = await compile(g, device);
    expect(session.stats.multiTensorArenas).toBe(0);
    await session.dispose();
    await matchesInterpreter(build(false, true), 2);
  });

  it('sums split-K partials as it reads them: the gradients\' arena holds S tensors per folded group, one dispatch, and matches', async () => {
    const g = buildPartials();
    const session = await compile(g, device);
    expect(session.stats.multiTensorArenas).toBe(1);
    expect(session.stats.inPlaceUpdates).toBe(6);
    // the slices, two partial products and a plain one, the sum, and one dispatch for every group
    expect(session.stats.dispatchesPerStep).toBe(session.stats.kernels);
    await session.dispose();
    await matchesInterpreter(buildPartials(), 3, partialFeeds);
  });

  it('sums each group\'s partials into scratch first when it runs one dispatch per group, and still matches', async () => {
    const g = buildPartials(true);
    const session = await compile(g, device);
    expect(session.stats.multiTensorArenas).toBe(0);
    // three group dispatches plus a sum for each of the two groups reading partials
    expect(session.stats.dispatchesPerStep).toBe(session.stats.kernels + 2 + 2);
    await session.dispose();
    await matchesInterpreter(buildPartials(true), 2, partialFeeds);
  });

  it('runs one dispatch per group when a tensor would be in a role of two groups, and still matches', async () => {
    const g = build(true);
    const session = await compile(g, device);
    expect(session.stats.dispatchesPerStep).toBe(session.stats.kernels + 2);
    expect(session.stats.multiTensorArenas).toBe(0);
    await session.dispose();
    await matchesInterpreter(build(true), 2);
  });
});

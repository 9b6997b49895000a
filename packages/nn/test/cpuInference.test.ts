// The CPU inference backend without a GPU: its outputs are the reference interpreter's in float32, bad feeds and
// state dicts fail with the GPU session's typed errors, a state update (a KV cache) persists across runs, and
// `fallback: 'cpu'` takes over only when createDevice throws a WebGpuUnavailableError, warning once.

import { Graph, interpret, tensor } from '@neura/ir';
import { compileGenerator, compileInference, GPT, StateDictError } from '@neura/nn';
import { createDevice, InputError, WebGpuUnavailableError } from '@neura/runtime-webgpu';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** y = softmax(relu(x @ w + b)) and picked = gather(table, idx), with an input `unused` nothing reads. */
function model() {
  const g = new Graph();
  const x = g.input('x', [4, 3]);
  const idx = g.input('idx', [2], 'i32');
  g.input('unused', [2]);
  const y = g.softmax(g.relu(g.linear(x, g.param('w', [3, 5]), g.param('b', [5]))), -1);
  const picked = g.gather(g.param('table', [6, 2]), idx, 0);
  return { g, outputs: { y, picked } };
}
const state = {
  w: tensor([3, 5], Array.from({ length: 15 }, (_, i) => (i % 7) * 0.1 - 0.3)),
  b: tensor([5], [0.1, -0.2, 0.3, 0, 0.05]),
  table: tensor([6, 2], Array.from({ length: 12 }, (_, i) => i * 0.25 - 1)),
};
const x = tensor([4, 3], Array.from({ length: 12 }, (_, i) => (i % 5) * 0.2 - 0.4));
const idx = tensor([2], [5, 1], 'i32');

/** A createDevice promise that fails as on a page whose WebGPU has no adapter. */
const noAdapter = () => createDevice({ gpu: { requestAdapter: async () => null } as unknown as GPU });

afterEach(() => vi.restoreAllMocks());

describe('CPU inference', () => {
  it("returns the interpreter's float32 outputs, as Float32Arrays", async () => {
    const { g, outputs } = model();
    const s = await compileInference(g, { outputs, device: 'cpu', initialState: state });
    expect(s.backend).toBe('cpu');
    const got = await s.run({ x, idx });
    const want = interpret(s.graph, { x, idx }, state, 'f32').outputs;
    expect(got.y.data).toBeInstanceOf(Float32Array);
    expect(Array.from(got.y.data)).toEqual(Array.from(want.y.data));
    expect(Array.from(got.picked.data)).toEqual([1.5, 1.75, -0.5, -0.25]);
    expect(s.backend === 'cpu' && s.stats.runs).toBe(1);
  });

  it('checks feeds with the GPU session’s errors: InputError naming the input, RangeError for an index', async () => {
    const { g, outputs } = model();
    const s = await compileInference(g, { outputs, device: 'cpu', initialState: state });
    const err = (feeds: unknown) => s.run(feeds as never).catch((e) => e);
    const missing = await err({ x });
    expect(missing).toBeInstanceOf(InputError);
    expect(missing.message).toBe("missing input 'idx' ([2] i32); expected inputs: x [4, 3] f32, idx [2] i32");
    expect((await err({ x, idx, nope: x })).message).toMatch(/unknown input 'nope'; expected inputs: x \[4, 3\] f32/);
    expect(await err({ x: tensor([3, 4], new Array(12).fill(0)), idx })).toMatchObject({ name: 'InputError', input: 'input x' });
    expect(await err(null)).toBeInstanceOf(InputError);
    expect(await err(x)).toBeInstanceOf(InputError); // a bare tensor, not { x }
    const range = await err({ x, idx: tensor([2], [6, 0], 'i32') });
    expect(range).toBeInstanceOf(RangeError);
    expect(range.message).toMatch(/input 'idx': index 6 .* outside \[0, 6\)/);
    // declared but unused inputs are accepted and ignored
    expect((await s.run({ x, idx, unused: tensor([2], [1, 2]) })).y.data).toEqual((await s.run({ x, idx })).y.data);
  });

  it('checks state dicts and initial state as the GPU session does', async () => {
    const { g, outputs } = model();
    const s = await compileInference(g, { outputs, device: 'cpu' });
    await expect(s.loadStateDict({ w: state.w })).rejects.toBeInstanceOf(StateDictError); // strict: b, table missing
    await expect(s.load({ w: tensor([5, 3], new Array(15).fill(0)) })).rejects.toThrow(/'w': expected \[3, 5\]:f32, got \[5, 3\]:f32/);
    await s.load({ b: state.b });
    expect(Array.from((await s.stateDict()).b.data)).toEqual(Array.from(Float32Array.from(state.b.data)));
    await expect(compileInference(g, { outputs, device: 'cpu', initialState: { x } })).rejects.toBeInstanceOf(InputError);
    s.dispose();
    await expect(s.run({ x, idx })).rejects.toThrow(/disposed/);
  });

  it('keeps state updates across runs (a counter written in place)', async () => {
    const g = new Graph();
    const c = g.state('count', [1], { kind: 'zeros' });
    const next = g.add(c, g.input('inc', [1]));
    g.update(c, next);
    const s = await compileInference(g, { outputs: { next }, device: 'cpu' });
    for (let i = 0; i < 3; i++) await s.run({ inc: tensor([1], [2]) });
    expect(Array.from((await s.stateDict()).count.data)).toEqual([6]);
  });

  it("falls back to the CPU only on a WebGpuUnavailableError with fallback: 'cpu', and warns once", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { g, outputs } = model();
    await expect(compileInference(g, { outputs, device: noAdapter() })).rejects.toBeInstanceOf(WebGpuUnavailableError);
    const a = await compileInference(g, { outputs, device: noAdapter(), fallback: 'cpu', initialState: state });
    expect(a.backend).toBe('cpu');
    expect(Array.from((await a.run({ x, idx })).y.data)).toEqual(Array.from(interpret(a.graph, { x, idx }, state, 'f32').outputs.y.data));
    await compileInference(g, { outputs, device: noAdapter(), fallback: 'cpu' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/WebGPU is unavailable \(no-adapter: .*\); inference runs on the CPU/);
    // any other failure is not a reason to fall back
    const broken = Promise.reject(new Error('out of memory'));
    await expect(compileInference(g, { outputs, device: broken, fallback: 'cpu' })).rejects.toThrow('out of memory');
  });

  it('generates on the CPU: incremental decode logits equal the full forward pass', async () => {
    const model = new GPT({ vocab: 11, context: 8, layers: 1, heads: 2, width: 8 });
    const tokens = [2, 7, 1, 8];
    const full = new Graph();
    full.output('logits', model.forward(full, full.input('tokens', [1, tokens.length], 'i32')));
    const want = interpret(full, { tokens: tensor([1, tokens.length], tokens, 'i32') }, model.initialState(), 'f64').outputs.logits.data;
    const gen = await compileGenerator(model, { device: noAdapter(), fallback: 'cpu', maxLen: 8 });
    expect(gen.session.backend).toBe('cpu');
    await gen.loadStateDict(model.initialState());
    const got: number[] = [];
    for (let i = 0; i < tokens.length; i++) got.push(...((await gen.step(tokens[i], i)) as Float32Array));
    expect(got).toBeAllclose(Array.from(want), { rtol: 1e-4, atol: 1e-5 });
    gen.dispose();
  });
});

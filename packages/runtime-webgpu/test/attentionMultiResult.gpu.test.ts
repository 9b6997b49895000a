// The multi-result attention ops through compile on a real adapter, against the interpreter:
// - `attentionWithLse` (attention's output and the log-sum-exp per query row): flash dimensions and odd ones, causal
//   and not, ragged lengths, each result alone (an unread log-sum-exp is not written; result 0 is the node's own
//   value, always written), and the seq-major layout;
// - `attentionGradKV` (dk and dv of one attention): the fused flash pass (heads-major and seq-major) and odd
//   dimensions (a simple dispatch per gradient), causal and not, ragged lengths, and each result alone;
// - both, and `attentionGradQKV`, reading q, k, v as head windows of one fused tensor bound three times.

import { Graph, interpret, mulberry32, type TensorValue, tensor } from '@neura/ir';
import { compile, createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const random = (shape: number[], seed: number): TensorValue => {
  const r = mulberry32(seed);
  return tensor(shape, Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => 2 * r() - 1));
};

// [heads, Tq, Tk, D, Dv]: flash (multiples of 4, several tiles), then the simple kernels (odd sizes)
const LSE_SHAPES: [number, number, number, number, number][] = [
  [3, 37, 41, 8, 8],
  [2, 9, 5, 5, 3],
];
// seq-major [B, T, H, D] (lse [B, T, H]): [B, H, Tq, Tk, D, Dv], flash only
const SEQ_MAJOR: [number, number, number, number, number, number][] = [[2, 3, 37, 41, 8, 4]];

describe('attentionWithLse', () => {
  for (const [h, tq, tk, d, dv] of LSE_SHAPES)
    for (const causal of [false, true])
      for (const wanted of ['both', 'out', 'lse'] as const)
        it(`${wanted === 'both' ? 'writes both results' : `writes only ${wanted}`} matching the interpreter (H${h} Tq${tq} Tk${tk} D${d} Dv${dv}${causal ? ', causal' : ''})`, async () => {
          const g = new Graph();
          const q = g.input('q', [h, tq, d]);
          const k = g.input('k', [h, tk, d]);
          const v = g.input('v', [h, tk, dv]);
          const m = g.node('attentionWithLse', [q, k, v], { causal, scale: 0.4 });
          if (wanted !== 'lse') g.output('o', m);
          if (wanted !== 'out') g.output('lse', g.node('pick', [m], { index: 1 }));
          const feeds = { q: random([h, tq, d], 1), k: random([h, tk, d], 2), v: random([h, tk, dv], 3) };
          const session = await compile(g, device);
          // flash: one dispatch; the simple kernels: the forward, plus the log-sum-exp pass when it is read
          expect(session.stats.dispatchesPerStep).toBe(d % 4 === 0 || wanted === 'out' ? 1 : 2);
          const names = wanted === 'both' ? ['o', 'lse'] : [wanted === 'out' ? 'o' : 'lse'];
          const got = await session.step(feeds, { read: names });
          const want = interpret(g, feeds, {}, 'f32');
          for (const n of names) expect(got.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-4, atol: 1e-5 });
          session.dispose();
        });
  for (const [b, h, tq, tk, d, dv] of SEQ_MAJOR)
    for (const causal of [false, true])
      it(`writes both results seq-major matching the interpreter (B${b} H${h} Tq${tq} Tk${tk} D${d} Dv${dv}${causal ? ', causal' : ''})`, async () => {
        const g = new Graph();
        const shapes = { q: [b, tq, h, d], k: [b, tk, h, d], v: [b, tk, h, dv] };
        const m = g.node('attentionWithLse', [g.input('q', shapes.q), g.input('k', shapes.k), g.input('v', shapes.v)], { causal, scale: 0.4, seqMajor: true });
        g.output('o', m);
        g.output('lse', g.node('pick', [m], { index: 1 }));
        const feeds = { q: random(shapes.q, 1), k: random(shapes.k, 2), v: random(shapes.v, 3) };
        const session = await compile(g, device);
        expect(session.stats.dispatchesPerStep).toBe(1);
        const got = await session.step(feeds, { read: ['o', 'lse'] });
        const want = interpret(g, feeds, {}, 'f32');
        for (const n of ['o', 'lse']) expect(got.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-4, atol: 1e-5 });
        session.dispose();
      });
});

// [heads, Tq, Tk, D, seq-major heads]: flash (multiples of 4, several tiles, Tq ≠ Tk; heads-major, then seq-major
// [2, T, 3, D]), then the simple kernels (odd D)
const KV_SHAPES: [number, number, number, number, number][] = [
  [3, 37, 41, 16, 0],
  [2, 70, 66, 8, 0],
  [2, 37, 41, 8, 3],
  [2, 9, 5, 5, 0],
];

describe('attentionGradKV', () => {
  for (const [h, tq, tk, d, sh] of KV_SHAPES)
    for (const causal of [false, true])
      for (const wanted of ['both', 'dk', 'dv'] as const)
        it(`${wanted === 'both' ? 'writes dk and dv' : `writes only ${wanted}`} matching the interpreter (${sh ? `seq-major B${h} H${sh}` : `H${h}`} Tq${tq} Tk${tk} D${d}${causal ? ', causal' : ''})`, async () => {
          const g = new Graph();
          const shapes = sh ? [[h, tq, sh, d], [h, tk, sh, d], [h, tk, sh, d], [h, tq, sh, d], [h, tq, sh], [h, tq, sh]] : [[h, tq, d], [h, tk, d], [h, tk, d], [h, tq, d], [h, tq], [h, tq]];
          const names = ['q', 'k', 'v', 'dO', 'lse', 'delta'];
          const m = g.node('attentionGradKV', names.map((n, i) => g.input(n, shapes[i])), sh ? { causal, scale: 0.4, seqMajor: true } : { causal, scale: 0.4 });
          if (wanted !== 'dv') g.output('dk', m);
          if (wanted !== 'dk') g.output('dv', g.node('pick', [m], { index: 1 }));
          // Δ and L as the backward would have them are not needed: the op is defined for any values
          const feeds = Object.fromEntries(names.map((n, i) => [n, random(shapes[i], i + 1)]));
          const session = await compile(g, device);
          // flash: one dispatch; the simple kernels: one per gradient written (dk, the node's value, always is)
          expect(session.stats.dispatchesPerStep).toBe(d % 4 === 0 || wanted === 'dk' ? 1 : 2);
          const read = wanted === 'both' ? ['dk', 'dv'] : [wanted];
          const got = await session.step(feeds, { read });
          const want = interpret(g, feeds, {}, 'f32');
          for (const n of read) expect(got.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-3, atol: 1e-4 });
          session.dispose();
        });
});

// head windows through compile: q, k and v one fused [B, T, 3H, D] tensor bound three times, the forward's output
// and log-sum-exp (real ones, so P stays in range) feeding the fused dk + dv pass and the joined dq, dk, dv
describe('attention reading head windows of one fused QKV tensor', () => {
  for (const causal of [false, true])
    it(`writes the forward, dk and dv, and the joined gradients matching the interpreter${causal ? ' (causal)' : ''}`, async () => {
      const [b, t, h, d] = [2, 37, 3, 8];
      const g = new Graph();
      const qkv = g.input('qkv', [b, t, 3 * h, d]);
      const dO = g.input('dO', [b, t, h, d]);
      const attrs = { causal, scale: 0.4, seqMajor: true, window: { heads: h, offsets: [0, h, 2 * h] } };
      const fwd = g.node('attentionWithLse', [qkv, qkv, qkv], attrs);
      const lse = g.node('pick', [fwd], { index: 1 });
      const grads = [qkv, qkv, qkv, dO, lse, fwd];
      const kv = g.node('attentionGradKV', grads, { ...attrs, deltaFromOut: true });
      g.output('o', fwd);
      g.output('lse', lse);
      g.output('dk', kv);
      g.output('dv', g.node('pick', [kv], { index: 1 }));
      g.output('dqkv', g.node('attentionGradQKV', grads, { ...attrs, deltaFromOut: true }));
      const feeds = { qkv: random([b, t, 3 * h, d], 1), dO: random([b, t, h, d], 2) };
      const session = await compile(g, device);
      expect(session.stats.dispatchesPerStep).toBe(4); // forward, dk + dv, then dq and dk + dv into one result
      const names = ['o', 'lse', 'dk', 'dv', 'dqkv'];
      const got = await session.step(feeds, { read: names });
      const want = interpret(g, feeds, {}, 'f32');
      for (const n of names) expect(got.outputs[n].data, n).toBeAllclose(want.outputs[n].data, { rtol: 1e-3, atol: 1e-4 });
      session.dispose();
    });
});

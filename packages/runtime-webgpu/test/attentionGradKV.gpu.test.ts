// `attentionGradKV` (one kernel, two results: dk and dv of one attention) through compile on a real adapter,
// against the interpreter: flash dimensions (the fused pass; heads-major and seq-major) and odd ones (a simple
// dispatch per gradient), causal and not, ragged lengths, and each result alone.

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

// [heads, Tq, Tk, D, seq-major heads]: flash (multiples of 4, several tiles, Tq ≠ Tk; heads-major, then seq-major
// [2, T, 3, D]), then the simple kernels (odd D)
const SHAPES: [number, number, number, number, number][] = [
  [3, 37, 41, 16, 0],
  [2, 70, 66, 8, 0],
  [2, 37, 41, 8, 3],
  [2, 9, 5, 5, 0],
];

describe('attentionGradKV', () => {
  for (const [h, tq, tk, d, sh] of SHAPES)
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

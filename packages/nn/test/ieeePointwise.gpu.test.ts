// Issue 22: every pointwise op (ir's UNARY_OPS and BINARY_OPS) on IEEE special values (±0, ±Infinity, NaN, the
// smallest denormal, f32's largest magnitude, ±1, 100, −2, 0.5, 2, 3), compiled with and without the e-graph optimizer on the
// software adapter, against the float32 interpreter on the unoptimized graph. Must not relax a comparison beyond
// the documented GPU differences (scalarOps.ts DIFFERENCES): transcendental accuracy and denormal flushing.

import { BINARY_FN, BINARY_OPS, COMPARISON_OPS, Graph, UNARY_FN, interpret, type Tensor, type TensorValue, tensor, UNARY_OPS, type BinaryOp, type UnaryOp } from '@neura/ir';
import { compileInference } from '@neura/nn';
import { createDevice, type NeuraDevice } from '@neura/runtime-webgpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let device: NeuraDevice;
beforeAll(async () => {
  device = await createDevice();
});
afterAll(() => device.destroy());

const SPECIALS = [0, -0, Infinity, -Infinity, Number.NaN, 1e-45, 3.4e38, -3.4e38, -1, 1, 100, -2, 0.5, 2, 3];
const N = SPECIALS.length;
const F32_MIN_NORMAL = 1.1754943508222875e-38;

/** Ops whose WGSL builtins are approximate (DIFFERENCES): finite results agree to this relative error. */
const APPROX: ReadonlySet<string> = new Set(['chain', 'exp', 'log', 'sqrt', 'rsqrt', 'sigmoid', 'tanh', 'sin', 'cos', 'erf', 'gelu', 'geluTanh', 'silu', 'softplus', 'pow', 'div', 'recip']);

const show = (v: number) => (Object.is(v, -0) ? '-0' : String(v));

/**
 * Whether a GPU value stands for the interpreter's: the same NaN/±Infinity/±0 class (Object.is, NaN = NaN), finite
 * values close (exact ops) or within builtin accuracy (APPROX); a denormal may be flushed to a zero of either sign,
 * and a result computed from a denormal operand may be that of a zero operand (documented: denormals may flush).
 */
function agrees(got: number, want: number, op: string, flushed: number | undefined, input: number): boolean {
  // documented: llvmpipe's log of a denormal is about log(2^-127) (−88.03 for 1e-45, exact −103.28)
  if (op === 'log' && Number.isFinite(input) && input !== 0 && Math.abs(input) < F32_MIN_NORMAL && input > 0) return got >= -104 && got <= -87;
  // documented: sin/cos are accurate on [−π, π] only; far outside, any value in [−1, 1]
  if ((op === 'sin' || op === 'cos') && Number.isFinite(input) && Math.abs(input) > 1e4) return got >= -1 && got <= 1;
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got);
  if (Object.is(got, want)) return true;
  if (flushed !== undefined && (Object.is(got, flushed) || (Number.isNaN(got) && Number.isNaN(flushed)))) return true;
  if (want !== 0 && Math.abs(want) < F32_MIN_NORMAL && got === 0) return true;
  if (!Number.isFinite(want) || !Number.isFinite(got) || want === 0 || got === 0) return false;
  if (Math.sign(got) !== Math.sign(want)) return false;
  const tol = APPROX.has(op) ? (op === 'sin' || op === 'cos' ? 1 : 2e-4) : 1e-6;
  return Math.abs(got - want) <= tol * Math.abs(want) + (op === 'sin' || op === 'cos' ? 2e-3 : 0);
}

interface Case {
  readonly name: string;
  readonly op: string;
  readonly t: Tensor;
  /** The same expression with denormal operands read as +0 (what a flushing GPU computes), per element. */
  readonly flushed?: (i: number) => number;
}

function build(): { g: Graph; cases: Case[]; feeds: Record<string, TensorValue> } {
  const g = new Graph();
  const x = g.input('x', [N]);
  const a = g.input('a', [N * N]);
  const b = g.input('b', [N * N]);
  const av = SPECIALS.flatMap((v) => SPECIALS.map(() => v));
  const bv = SPECIALS.flatMap(() => SPECIALS);
  const flush = (v: number) => (v !== 0 && Math.abs(v) < F32_MIN_NORMAL ? 0 : v);
  const cases: Case[] = [];
  for (const op of UNARY_OPS) cases.push({ name: `${op}(x)`, op, t: g.unary(op as UnaryOp, x), flushed: (i) => unaryRef(op, flush(SPECIALS[i])) });
  for (const op of BINARY_OPS) {
    const t = g[op as BinaryOp](a, b);
    cases.push({ name: `${op}(a, b)`, op, t: COMPARISON_OPS.includes(op) ? g.cast(t, 'f32') : t, flushed: (i) => binaryRef(op, flush(av[i]), flush(bv[i])) });
  }
  // fused chains the issue names: nothing may simplify them away
  cases.push({ name: 'log(exp(x))', op: 'chain', t: g.log(g.exp(x)) });
  cases.push({ name: 'exp(log(x))', op: 'chain', t: g.exp(g.log(x)) });
  cases.push({ name: 'x / 0', op: 'div', t: g.div(x, 0) });
  cases.push({ name: 'x / -0', op: 'div', t: g.div(x, -0) });
  cases.push({ name: 'x·0', op: 'mul', t: g.mul(x, 0) });
  cases.push({ name: 'x + 0', op: 'add', t: g.add(x, 0) });
  cases.push({ name: '(x·1e30)·1e-30', op: 'mul', t: g.mul(g.mul(x, 1e30), 1e-30) });
  cases.push({ name: 'relu(x)·2 + max(x, 0)', op: 'max', t: g.add(g.mul(g.relu(x), 2), g.max(x, 0)) });
  return { g, cases, feeds: { x: tensor([N], SPECIALS), a: tensor([N * N], av), b: tensor([N * N], bv) } };
}


const unaryRef = (op: string, v: number) => Math.fround(UNARY_FN[op as UnaryOp](Math.fround(v)));
const binaryRef = (op: string, u: number, v: number) => Math.fround(BINARY_FN[op as BinaryOp](Math.fround(u), Math.fround(v)));

describe('IEEE special values through every pointwise op', () => {
  it('optimize on, optimize off and the float32 interpreter agree (Object.is, NaN = NaN)', async () => {
    const { g, cases, feeds } = build();
    const outputs = Object.fromEntries(cases.map((c, i) => [`o${i}`, c.t]));
    const ref = g.clone();
    for (const [k, t] of Object.entries(outputs)) ref.output(k, t);
    const want = interpret(ref, feeds, {}, 'f32').outputs;
    const bad: string[] = [];
    for (const optimize of [false, true]) {
      const session = await compileInference(g, { outputs, device, optimize });
      const got = await session.run(feeds);
      session.dispose();
      cases.forEach((c, i) => {
        const w = want[`o${i}`].data;
        const o = got[`o${i}`].data;
        for (let j = 0; j < w.length; j++) {
          const fl = c.flushed?.(j);
          const inp = w.length === N ? SPECIALS[j] : Number.NaN;
          if (!agrees(o[j], w[j], c.op, fl, inp)) {
            const input = w.length === N ? show(SPECIALS[j]) : `${show(feeds.a.data[j])}, ${show(feeds.b.data[j])}`;
            bad.push(`optimize ${optimize}: ${c.name} at (${input}): gpu ${show(o[j])}, interpreter ${show(w[j])}`);
          }
        }
      });
    }
    expect(bad).toEqual([]);
  }, 120_000);
});

describe('matmul with a fused relu keeps NaN (issue 22)', () => {
  // skinny (small M), tiled (vec4 stores), tiled with N not a multiple of 4 (scalar stores), split-K (long K)
  const SHAPES: readonly [number, number, number][] = [
    [2, 16, 32],
    [64, 32, 64],
    [33, 20, 7],
    [16, 2048, 16],
  ];
  it.each(SHAPES)('M %i, K %i, N %i: a NaN in A gives NaN rows, optimize on and off, as the interpreter', async (M, K, N) => {
    const g = new Graph();
    const a = g.input('a', [M, K]);
    const b = g.input('b', [K, N]);
    const outputs = {
      fused: g.node('fusedMatmul', [a, b], { transA: false, transB: false, bias: false, activation: 'relu' }),
      unfused: g.relu(g.matmul(a, b)),
    };
    // deterministic values of both signs; NaN at the start of row 1 and the end of the last row
    const av = Array.from({ length: M * K }, (_, i) => Math.sin(i * 1.7) * 2);
    av[K] = Number.NaN;
    av[M * K - 1] = Number.NaN;
    const bv = Array.from({ length: K * N }, (_, i) => Math.cos(i * 0.9));
    const feeds = { a: tensor([M, K], av), b: tensor([K, N], bv) };
    const ref = g.clone();
    for (const [k, t] of Object.entries(outputs)) ref.output(k, t);
    const want = interpret(ref, feeds, {}, 'f32').outputs;
    for (const optimize of [false, true]) {
      const session = await compileInference(g, { outputs, device, optimize });
      const got = await session.run(feeds);
      session.dispose();
      for (const k of Object.keys(outputs)) {
        const w = want[k].data;
        const o = got[k].data;
        const nanRows = new Set<number>();
        for (let j = 0; j < w.length; j++) if (Number.isNaN(w[j])) nanRows.add(Math.floor(j / N));
        expect([...nanRows], 'rows the interpreter makes NaN').toEqual([...new Set([1, M - 1])]);
        const bad: string[] = [];
        for (let j = 0; j < w.length; j++) {
          const ok = Number.isNaN(w[j]) ? Number.isNaN(o[j]) : Math.abs(o[j] - w[j]) <= 1e-4 * (1 + Math.abs(w[j]));
          if (!ok) bad.push(`${k} (optimize ${optimize}) at [${Math.floor(j / N)}, ${j % N}]: gpu ${show(o[j])}, interpreter ${show(w[j])}`);
        }
        expect(bad.slice(0, 8)).toEqual([]);
      }
    }
  }, 120_000);
});

describe('a matmul epilogue reads its literals at run time (issue 22)', () => {
  it('(A·B) / 0, (A·B)·0 and (A·B + 0) keep ±Infinity, NaN and −0, optimize on and off, as the interpreter', async () => {
    const [M, K, N] = [8, 4, 8];
    const g = new Graph();
    const a = g.input('a', [M, K]);
    const b = g.input('b', [K, N]);
    const mm = () => g.matmul(a, b);
    const outputs = { div0: g.div(mm(), 0), mul0: g.mul(mm(), 0), add0: g.add(mm(), 0) };
    // products of both signs, zeros (row 0: +0·b = +0; row 1: −0 and +0 terms), infinities (row 2) and NaN (row 3)
    const av = Array.from({ length: M * K }, (_, i) => Math.sin(i * 1.3) * 3);
    av.fill(0, 0, K);
    av.fill(-0, K, 2 * K);
    av[2 * K] = Infinity;
    av[3 * K] = Number.NaN;
    const bv = Array.from({ length: K * N }, (_, i) => Math.cos(i * 0.7));
    const feeds = { a: tensor([M, K], av), b: tensor([K, N], bv) };
    const ref = g.clone();
    for (const [k, t] of Object.entries(outputs)) ref.output(k, t);
    const want = interpret(ref, feeds, {}, 'f32').outputs;
    const bad: string[] = [];
    for (const optimize of [false, true]) {
      const session = await compileInference(g, { outputs, device, optimize });
      const got = await session.run(feeds);
      session.dispose();
      for (const k of Object.keys(outputs)) {
        const w = want[k].data;
        const o = got[k].data;
        for (let j = 0; j < w.length; j++) {
          const ok = Number.isNaN(w[j]) ? Number.isNaN(o[j]) : Number.isFinite(w[j]) && w[j] !== 0 ? Math.abs(o[j] - w[j]) <= 1e-5 * Math.abs(w[j]) : Object.is(o[j], w[j]);
          if (!ok) bad.push(`${k} (optimize ${optimize}) at [${Math.floor(j / N)}, ${j % N}]: gpu ${show(o[j])}, interpreter ${show(w[j])}`);
        }
      }
    }
    expect(bad).toEqual([]);
  }, 120_000);
});

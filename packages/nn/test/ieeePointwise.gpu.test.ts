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

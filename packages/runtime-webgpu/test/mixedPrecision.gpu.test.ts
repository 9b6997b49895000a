// The mixed-precision policy on a real adapter. Where the adapter has tensor-core matmuls
// (`chromium-experimental-subgroup-matrix` with f16, e.g. an NVIDIA GPU through Dawn's Vulkan backend with
// `createDevice({ mixedPrecision: true })`), every matmul form runs on them and matches the interpreter run on
// operands rounded to f16 (f32 tolerance: only the accumulation order differs) and the plain f32 interpreter within
// an f16 tolerance. Elsewhere those cases are skipped; where the adapter lacks `shader-f16` too (CI's software
// adapters), asking for `mixed` must fail with a PrecisionError naming the feature and the adapter.
import { Graph, interpret, type PwExpr, type TensorValue, tensor } from '@neura/ir';
import { afterAll, describe, expect, it } from 'vitest';
import { capsFor, compile, createDevice, mixedPath, type NeuraDevice, PrecisionError, supportsPrecision } from '../src/index.js';
import { generateKernel, isSpecOf, type KernelGenerator, matmulProblemOf, type SubgroupMatrixTiling, subgroupMatrixPlan } from '@neura/wgsl-kernels';
import { randoms } from './graphs.js';

// at module level: `skipIf` reads it while the tests are collected
const device: NeuraDevice = await createDevice({ mixedPrecision: true });
const tensorCores = supportsPrecision(device, 'mixed') && mixedPath(device) === 'tensor-cores';
const shaderF16 = device.features.has('shader-f16');
afterAll(() => device.destroy());

/** Nearest f16 value (ties to even), as the kernels round operands when they stage them. */
function f16(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Number.POSITIVE_INFINITY;
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const q = 2 ** (e - 10);
  const t = a / q;
  let r = Math.round(t);
  if (r - t === 0.5 && r % 2 === 1) r -= 1; // Math.round sends ties up; f16 rounds them to even
  return Math.sign(x) * r * q;
}

interface Case {
  readonly name: string;
  readonly a: number[];
  readonly b: number[];
  readonly transA?: boolean;
  readonly transB?: boolean;
  readonly epilogue?: boolean;
  /** A tiling other than the one chosen for the shape. */
  readonly tiling?: SubgroupMatrixTiling;
}

/** Runs one matmul case under `mixed`; returns the GPU result, the interpreter's on f16-rounded A and B, and on the raw ones. */
async function run(c: Case): Promise<{ gpu: Float32Array; rounded: Float32Array; exact: Float32Array; k: number }> {
  const g = new Graph();
  const a = g.input('a', c.a);
  const b = g.input('b', c.b);
  const attrs = { transA: c.transA ?? false, transB: c.transB ?? false };
  const n = c.b[c.b.length - (attrs.transB ? 2 : 1)];
  const k = c.a[c.a.length - (attrs.transA ? 2 : 1)];
  let y: ReturnType<Graph['input']>;
  const feeds: Record<string, TensorValue> = { a: tensor(c.a, randoms(c.a.reduce((x, y) => x * y, 1), 11)), b: tensor(c.b, randoms(c.b.reduce((x, y) => x * y, 1), 12)) };
  if (c.epilogue) {
    const bias = g.input('bias', [n]);
    feeds.bias = tensor([n], randoms(n, 13));
    const expr: PwExpr = { op: 'geluTanh', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } };
    y = g.node('matmulEpilogue', [a, b, bias], { ...attrs, expr });
  } else y = g.matmul(a, b, attrs);
  g.output('y', y);
  const tiling = c.tiling;
  const generator: KernelGenerator | undefined = tiling
    ? (spec, caps) => (isSpecOf(spec, 'matmul', 'matmulEpilogue') ? (subgroupMatrixPlan(matmulProblemOf(spec), caps, tiling) ?? generateKernel(spec, caps)) : generateKernel(spec, caps))
    : undefined;
  const session = await compile(g, device, { precision: 'mixed', label: c.name, ...(generator ? { generator } : {}) });
  const gpu = (await session.step(feeds, { read: ['y'] })).outputs.y.data as Float32Array;
  session.dispose();
  const round = (v: TensorValue) => tensor(v.shape, Array.from(v.data, f16));
  const rounded = interpret(g, { ...feeds, a: round(feeds.a), b: round(feeds.b) }, {}, 'f32').outputs.y.data as Float32Array;
  const exact = interpret(g, feeds, {}, 'f32').outputs.y.data as Float32Array;
  return { gpu, rounded, exact, k };
}

const CASES: Case[] = [
  { name: 'A·B, partial tiles', a: [200, 96], b: [96, 136] },
  { name: 'Aᵀ·B', a: [96, 130], b: [96, 72], transA: true },
  { name: 'A·Bᵀ', a: [130, 64], b: [72, 64], transB: true },
  { name: 'Aᵀ·Bᵀ', a: [64, 130], b: [72, 64], transA: true, transB: true },
  { name: 'odd sizes: scalar loads, scalar stores', a: [97, 37], b: [37, 65] },
  { name: 'bias + GELU epilogue', a: [160, 48], b: [48, 100], epilogue: true },
  { name: 'bias + GELU epilogue, Bᵀ', a: [160, 48], b: [100, 48], transB: true, epilogue: true },
  { name: 'batched', a: [3, 80, 24], b: [3, 24, 40] },
  { name: 'split-K (long reduction, few tiles)', a: [2100, 96], b: [2100, 40], transA: true },
  { name: 'double-buffered slices, Aᵀ·B + epilogue', a: [200, 136], b: [200, 96], transA: true, epilogue: true, tiling: { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, db: true } },
  { name: 'double-buffered slices, odd sizes, Bᵀ', a: [97, 37], b: [65, 37], transB: true, tiling: { sgm: 2, sgn: 2, fm: 2, fn: 4, bk: 32, db: true } },
];

describe("precision: 'mixed'", () => {
  it('fp32 leaves the device caps as they are; an unknown policy is refused', () => {
    expect(capsFor(device, 'fp32')).toBe(device.caps);
    expect(() => capsFor(device, 'bf16' as 'fp32')).toThrow(/precision must be 'fp32' or 'mixed', got 'bf16'/);
  });

  it.skipIf(shaderF16)("without 'shader-f16' is a PrecisionError naming the feature and the adapter (CI's software adapters lack it)", async () => {
    const g = new Graph();
    g.output('y', g.matmul(g.input('a', [4, 4]), g.input('b', [4, 4])));
    const err = await compile(g, device, { precision: 'mixed' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrecisionError);
    expect(String((err as Error).message)).toContain("lacks 'shader-f16'");
    expect(String((err as Error).message)).toContain(device.name);
    expect(String((err as Error).message)).toContain('createDevice({ mixedPrecision: true })');
  });

  // Skipped on adapters without `chromium-experimental-subgroup-matrix` + f16 (CI's llvmpipe and SwiftShader).
  it.skipIf(!tensorCores).each(CASES)('$name runs on tensor cores and matches the interpreter (f16 operands, f32 accumulation)', async (c) => {
    const { gpu, rounded, exact, k } = await run(c);
    expect(gpu).toBeAllclose(rounded, { rtol: 1e-4, atol: 2e-5 * Math.sqrt(k) });
    expect(gpu).toBeAllclose(exact, { rtol: 1e-2, atol: 2e-3 * Math.sqrt(k) });
    // and it is not the fp32 result: the operands were rounded
    expect(Array.from(gpu).some((v, i) => v !== exact[i])).toBe(true);
  });
});

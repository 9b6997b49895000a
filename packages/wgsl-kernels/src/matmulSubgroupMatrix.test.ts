// Which kernel a matmul gets under the mixed-precision policy, and the parts of the WGSL that carry it (f16
// staging, the load layout per transpose, the epilogue path). Numerics are checked on a GPU that has the feature
// (runtime-webgpu/test/mixedPrecision.gpu.test.ts).
import { Graph, type PwExpr, splitKChunk } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { withF16Storage } from './f16Storage.js';
import { COMPAT_CAPS, type DeviceCaps, type KernelPlan, type KernelSpec } from './kernel.js';
import type { MatmulOp } from './matmul.js';
import { matmulProblemOf } from './matmul.js';
import { chooseSubgroupMatrixTiling, matmulMixedKernel, subgroupMatrixPlan } from './matmulSubgroupMatrix.js';
import { generateKernel, loadKernels } from './registry.js';

const H200: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 49152, maxStorageBuffersPerShaderStage: 10, maxStorageBufferBindingSize: 2 ** 31, subgroups: true, shaderF16: true };
const MIXED: DeviceCaps = { ...H200, mixedMatmul: { m: 16, n: 16, k: 16 } };

function spec(m: number, n: number, k: number, o: { transA?: boolean; transB?: boolean; epilogue?: boolean } = {}): KernelSpec<MatmulOp> {
  const g = new Graph();
  const transA = o.transA ?? false;
  const transB = o.transB ?? false;
  const a = g.input('a', transA ? [k, m] : [m, k]);
  const b = g.input('b', transB ? [n, k] : [k, n]);
  const bias = g.input('bias', [n]);
  const expr: PwExpr = { op: 'geluTanh', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } };
  const node = o.epilogue ? g.node('matmulEpilogue', [a, b, bias], { transA, transB, expr }) : g.node('matmul', [a, b], { transA, transB });
  const inputs = node.inputs.map((id) => ({ shape: g.get(id).shape, dtype: g.get(id).dtype }));
  return { node, inputs } as KernelSpec<MatmulOp>;
}

describe('matmul under precision: mixed', () => {
  it('leaves fp32 kernels alone without the policy', () => {
    const code = matmulMixedKernel(spec(512, 384, 384), H200).dispatches[0].code;
    expect(code).not.toMatch(/subgroup_matrix|f16/);
  });

  it('takes subgroup matrices with f16 staging, stored straight from the matrices for a plain product of whole blocks', () => {
    const plan = matmulMixedKernel(spec(4096, 4096, 4096), MIXED);
    expect(plan.dispatches).toHaveLength(1);
    const code = plan.dispatches[0].code;
    expect(code).toContain('enable chromium_experimental_subgroup_matrix;');
    expect(code).toContain('diagnostic(off, chromium.subgroup_matrix_uniformity);');
    expect(code).toContain('var<workgroup> As: array<f16, 5120>;'); // 128 rows of 32 + 8 padding
    expect(code).toContain('var<workgroup> Bs: array<f16, 8448>;'); // 32 rows of 256 + 8 padding
    expect(code).toMatch(/subgroupMatrixMultiplyAccumulate\(l0, r0, c0_0\)/);
    expect(code).toMatch(/subgroupMatrixStore<row_major>\(&y, yoff/);
    expect(code).not.toContain('Cs');
    expect(plan.dispatches[0].workgroupSize).toEqual([256, 1, 1]);
    expect(plan.dispatches[0].grid).toEqual([16, 32, 1]);
  });

  it('flips the load layout for transposed operands (Aᵀ transposed while staged on request)', () => {
    const at = matmulMixedKernel(spec(384, 1536, 384, { transA: true }), MIXED).dispatches[0].code;
    expect(at).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>/);
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, transposeA: true };
    expect(subgroupMatrixPlan(matmulProblemOf(spec(384, 1536, 384, { transA: true })), MIXED, t)?.dispatches[0].code).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>/);
    expect(at).toMatch(/subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>/);
    const bt = matmulMixedKernel(spec(16384, 384, 1536, { transB: true }), MIXED).dispatches[0].code;
    expect(bt).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>/);
    expect(bt).toMatch(/subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>/);
  });

  it('stages results through workgroup memory for an epilogue or a ragged shape', () => {
    const epi = matmulMixedKernel(spec(16384, 1536, 384, { epilogue: true }), MIXED).dispatches[0].code;
    expect(epi).toContain('var<workgroup> Cs: array<f32,');
    expect(epi).toMatch(/epilogue\(v\.x, /);
    const ragged = matmulMixedKernel(spec(1000, 65, 384), MIXED).dispatches[0].code;
    expect(ragged).toContain('Cs');
    expect(ragged).toMatch(/if \(c \+ 3u < N\)/); // scalar, bounds-checked stores (N = 65)
  });

  it('splits long reductions over few tiles and keeps skinny shapes on the fp32 kernel', () => {
    const dw = matmulMixedKernel(spec(384, 384, 16384, { transA: true }), MIXED);
    expect(dw.dispatches.map((d) => d.label)).toEqual([expect.stringMatching(/:split\d+$/), expect.stringMatching(/:reduce$/)]);
    expect(dw.dispatches[0].code).toContain('subgroupMatrixMultiplyAccumulate');
    expect(matmulMixedKernel(spec(32, 128, 784), MIXED).dispatches[0].code).not.toContain('subgroup_matrix');
  });

  it('double-buffers slices on request: twice the slice memory, one barrier per slice', () => {
    const t = { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32 };
    const single = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, t)?.dispatches[0].code ?? '';
    const db = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, { ...t, db: true })?.dispatches[0].code ?? '';
    expect(db).toContain('var<workgroup> As: array<f16, 8192>;');
    const loop = (code: string) => code.slice(code.indexOf('for (var k0'), code.indexOf('subgroupMatrixStore'));
    expect(loop(single).match(/workgroupBarrier/g)).toHaveLength(2);
    expect(loop(db).match(/workgroupBarrier/g)).toHaveLength(1);
    expect(db).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>\(&As, rA \+ /);
    // 32 KiB of slices + 16 KiB of staging: over a 32 KiB device it does not fit
    expect(() => subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096, { epilogue: true })), { ...MIXED, maxComputeWorkgroupStorageSize: 32768 }, { ...t, db: true })).toThrow(/does not fit/);
  });

  it('pads staged rows on request: loads and stores step over the padding, for each transpose', () => {
    const t = { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, pad: 8 };
    const ab = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, t)?.dispatches[0].code ?? '';
    expect(ab).toContain('var<workgroup> As: array<f16, 5120>;'); // 128 rows of 32 + 8
    expect(ab).toContain('var<workgroup> Bs: array<f16, 4352>;'); // 32 rows of 128 + 8
    expect(ab).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>\(&As, \(sm \* 64u \+ 0u\) \* 40u \+ 0u, 40u\)/);
    expect(ab).toMatch(/subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>\(&Bs, 2176u \+ sn \* 64u \+ 0u, 136u\)/);
    expect(ab).toMatch(/let s = o \* 40u \+ i0; As\[s/);
    const atbt = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096, { transA: true, transB: true })), MIXED, { ...t, db: true })?.dispatches[0].code ?? '';
    expect(atbt).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>\(&As, rA \+ 0u \+ sm \* 64u \+ 0u, 136u\)/);
    expect(atbt).toMatch(/subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>\(&Bs, rB \+ \(sn \* 64u \+ 0u\) \* 40u \+ 0u, 40u\)/);
    expect(atbt).toContain('let rA = cur * 4352u; let rB = cur * 5120u;');
    expect(() => subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, { ...t, pad: 4 })).toThrow(/does not fit/);
  });

  it('transposes Aᵀ as it stages it on request: k-contiguous rows, loaded row-major, lanes walking k', () => {
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, transposeA: true };
    const at = subgroupMatrixPlan(matmulProblemOf(spec(384, 1536, 16384, { transA: true })), MIXED, t)?.dispatches[0].code ?? '';
    expect(at).toContain('var<workgroup> As: array<f16, 5120>;'); // 128 rows of m, each 32 + 8 halves of k
    expect(at).toMatch(/subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>\(&As, \(sm \* 64u \+ 0u\) \* 40u \+ 0u, 40u\)/);
    expect(at).toContain('let o = (lid + 0u) / 32u * 4u; let i0 = (lid + 0u) % 32u;'); // a unit: 4 rows of m at one k
    expect(at).toContain('As[(o + 1u) * 40u + i0] = ar0.y;');
    expect(at).toContain('a[(aoff + (kt + i0) * M + row0 + o) / 4u]');
    expect(at).not.toContain('col_major');
  });

  it('stages results one matrix per subgroup, so an epilogue keeps the big tiling within 48 KiB', () => {
    const plan = matmulMixedKernel(spec(16384, 1536, 384, { epilogue: true }), MIXED).dispatches[0].code;
    expect(plan).toContain('2x4 subgroups of 4x4');
    expect(plan).toContain('var<workgroup> Cs: array<f32, 2048>;'); // 8 subgroups x 16 x 16
    expect(plan.match(/subgroupMatrixStore<row_major>\(&Cs, sg \* 256u, c\d_\d, 16u\)/g)).toHaveLength(16);
  });

  it('walks tiles in bands of tile rows on request, and row by row when the grid has no more rows than a band', () => {
    const t = { sgm: 2, sgn: 2, fm: 4, fn: 4, bk: 32, group: 8 };
    const banded = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, t)?.dispatches[0].code ?? '';
    expect(banded).toContain('let lin = wid.y * 32u + wid.x; let band = lin / 256u; let inb = lin % 256u;');
    expect(banded).toContain('let row0 = (band * 8u + inb % rows) * 128u;');
    expect(banded).toContain('let col0 = (inb / rows) * 128u;');
    const small = subgroupMatrixPlan(matmulProblemOf(spec(1024, 4096, 256)), MIXED, t)?.dispatches[0].code ?? '';
    expect(small).toContain('let row0 = wid.y * 128u;');
  });

  it('picks smaller tiles when big ones would leave the GPU idle, the biggest under split-K, and none when the device is too small', () => {
    const s = { m: 16, n: 16, k: 16 };
    // the measured best (H100): 8 subgroups of 4x4 matrices, rows padded, also where results are staged
    expect(chooseSubgroupMatrixTiling(4096, 4096, s, MIXED, false)).toMatchObject({ sgm: 2, sgn: 4, fm: 4, fn: 4, pad: 8 });
    expect(chooseSubgroupMatrixTiling(4096, 4096, s, MIXED, true)).toMatchObject({ sgm: 2, sgn: 4, fm: 4, fn: 4, pad: 8 });
    expect(chooseSubgroupMatrixTiling(256, 384, s, MIXED)).toMatchObject({ fm: 2, fn: 2 });
    // a weight gradient (384 x 384 over K = 16384): few tiles, filled by split-K
    expect(chooseSubgroupMatrixTiling(384, 384, s, MIXED, false, true)).toMatchObject({ sgm: 2, sgn: 4, fm: 4, fn: 4 });
    expect(chooseSubgroupMatrixTiling(4096, 4096, s, { ...MIXED, maxComputeWorkgroupStorageSize: 8192 })).toBeUndefined();
  });

  it('stages several result matrices per round on request: fewer barriers, more workgroup memory', () => {
    const e = matmulProblemOf(spec(16384, 1536, 384, { epilogue: true }));
    const one = subgroupMatrixPlan(e, MIXED)?.dispatches[0].code ?? '';
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8 };
    const two = subgroupMatrixPlan(e, MIXED, { ...t, perRound: 2 })?.dispatches[0].code ?? '';
    const barriers = (c: string) => c.match(/workgroupBarrier\(\);/g)?.length;
    expect(one).toContain('var<workgroup> Cs: array<f32, 2048>;');
    expect(two).toContain('var<workgroup> Cs: array<f32, 4096>;');
    expect(barriers(one)).toBe(2 + 32);
    expect(barriers(two)).toBe(2 + 16);
    expect(two).toContain('subgroupMatrixStore<row_major>(&Cs, sg * 512u + 256u, c0_1, 16u);');
    // an override applies where it fits (4 per round would need 32 KiB beside the slices), else the chosen tiling
    expect(subgroupMatrixPlan(e, MIXED, undefined, { perRound: 4 })?.dispatches[0].code).toBe(one);
    expect(subgroupMatrixPlan(e, MIXED, undefined, { perRound: 2 })?.dispatches[0].code).toBe(two);
    expect(() => subgroupMatrixPlan(e, MIXED, { ...t, perRound: 3 })).toThrow(/does not fit the device/);
  });

  it('stages an f16 output (converted per element) and sizes the tiling for it', () => {
    const g = new Graph();
    const a = g.input('a', [4096, 256], 'f16');
    const b = g.input('b', [256, 4096], 'f16');
    const node = g.node('matmul', [a, b], { transA: false, transB: false });
    const plan = matmulMixedKernel({ node, inputs: [{ shape: [4096, 256], dtype: 'f16' }, { shape: [256, 4096], dtype: 'f16' }] } as KernelSpec<MatmulOp>, MIXED);
    expect(plan.dispatches[0].code).toContain('var<workgroup> Cs:');
  });

  it("finishes results from memory on request: matrices stored to the output (f32) or to f32 scratch (f16), one barrier, then the epilogue", async () => {
    await loadKernels([], { mixed: true });
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, results: 'memory' } as const;
    const e = matmulProblemOf(spec(1024, 512, 384, { epilogue: true }));
    const plan = subgroupMatrixPlan(e, MIXED, t) as KernelPlan;
    const code = plan.dispatches[0].code;
    expect(code).not.toContain('Cs');
    expect(code).toContain('var<storage, read_write> y: array<f32>;'); // matrices are stored into it
    expect(code).toMatch(/subgroupMatrixStore<row_major>\(&y, yoff/);
    expect(code.match(/storageBarrier\(\);/g)).toHaveLength(1);
    expect(code).toContain('var v = vec4<f32>(y[q], y[q + 1u], y[q + 2u], y[q + 3u]); v = vec4<f32>(epilogue(v.x');
    expect(plan.scratch).toEqual([]);
    // an f16 output: f32 products in scratch, the output stored as f16 vec4s through the f16 storage pass
    const g = new Graph();
    const a = g.input('a', [1024, 384], 'f16');
    const b = g.input('b', [384, 512], 'f16');
    const bias = g.input('bias', [512]);
    const expr: PwExpr = { op: 'cast', to: 'f16', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } };
    const node = g.node('matmulEpilogue', [a, b, bias], { transA: false, transB: false, expr });
    const s16 = { node, inputs: node.inputs.map((id) => ({ shape: g.get(id).shape, dtype: g.get(id).dtype })) } as KernelSpec<MatmulOp>;
    const p16 = withF16Storage(s16, subgroupMatrixPlan(matmulProblemOf(s16), MIXED, t) as KernelPlan, MIXED, true);
    expect(p16.scratch).toEqual([1024 * 512 * 4]);
    expect(p16.dispatches[0].bindings.at(-1)).toEqual({ source: { kind: 'scratch', index: 0 }, access: 'read_write', dtype: 'f32' });
    expect(p16.dispatches[0].code).toContain('var<storage, read_write> ys: array<f32>;');
    expect(p16.dispatches[0].code).toMatch(/subgroupMatrixStore<row_major>\(&ys, yoff/);
    expect(p16.dispatches[0].code).toMatch(/y\[\(yoff \+ r \* N \+ c\) \/ 4u\] = vec4<f16>\(v\)/);
    // blocks that straddle the output's edge stay staged through workgroup memory
    expect(subgroupMatrixPlan(matmulProblemOf(spec(1000, 512, 384, { epilogue: true })), MIXED, t)?.dispatches[0].code).toContain('var<workgroup> Cs:');
  });

  it('stages lane by lane on request: scalar reads, one f16 store per element, consecutive lanes on consecutive halves', () => {
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, pad: 8, stage: 'lanes' } as const;
    const code = subgroupMatrixPlan(matmulProblemOf(spec(4096, 4096, 4096)), MIXED, t)?.dispatches[0].code ?? '';
    expect(code).toContain('staged lane by lane, scalar A loads, scalar B loads');
    expect(code).toContain('var<storage, read> a: array<f32>;');
    expect(code).toMatch(/let i0 = \(\(lid \+ 0u\) % 32u\) \* 1u; let o = \(lid \+ 0u\) \/ 32u;/); // A's rows are 32 deep
    expect(code).toMatch(/As\[s\] = ar0;/);
    expect(code).not.toMatch(/As\[s \+ 1u\]/);
  });

  it('loads f16 operands straight from memory on request: no workgroup slices, no barrier in the main loop, every transpose', async () => {
    await loadKernels([], { mixed: true });
    const f16Spec = (m: number, n: number, k: number, transA: boolean, transB: boolean) => {
      const g = new Graph();
      const a = g.input('a', transA ? [k, m] : [m, k], 'f16');
      const b = g.input('b', transB ? [n, k] : [k, n], 'f16');
      const node = g.node('matmul', [a, b], { transA, transB });
      return { node, inputs: [a, b].map((x) => ({ shape: x.shape, dtype: x.dtype })) } as KernelSpec<MatmulOp>;
    };
    const t = { sgm: 2, sgn: 4, fm: 4, fn: 4, bk: 32, direct: true } as const;
    const code = subgroupMatrixPlan(matmulProblemOf(f16Spec(384, 1536, 384, true, false)), MIXED, t)?.dispatches[0].code ?? '';
    expect(code).toContain('f16 operands loaded straight from memory');
    expect(code).not.toMatch(/var<workgroup> (As|Bs)/);
    const loop = code.slice(code.indexOf('for (var k0'), code.indexOf('subgroupMatrixStore'));
    expect(loop).not.toContain('workgroupBarrier');
    expect(loop).toContain('subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a, aoff + k0 * M + row0 + sm * 64u + 0u, M)');
    expect(loop).toContain('subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, boff + k0 * N + col0 + sn * 64u + 0u, N)');
    // the f16 result leaves through workgroup memory a row of 4 matrices per round (no slices take the room)
    expect(code).toContain('var<workgroup> Cs: array<f32, 8192>;');
    expect(code).toContain('subgroupMatrixStore<row_major>(&Cs, sg * 1024u + 768u, c0_3, 16u);');
    expect(code.match(/workgroupBarrier\(\);/g)).toHaveLength(8);
    const bt = subgroupMatrixPlan(matmulProblemOf(f16Spec(256, 128, 64, false, true)), MIXED, t)?.dispatches[0].code ?? '';
    expect(bt).toContain('subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, aoff + (row0 + sm * 64u + 0u) * K + k0, K)');
    expect(bt).toContain('subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b, boff + (col0 + sn * 64u + 0u) * K + k0, K)');
    // through the f16 storage pass: the buffers become array<f16>, which the loads take as they are
    const btSpec = f16Spec(256, 128, 64, false, true);
    const converted = withF16Storage(btSpec, subgroupMatrixPlan(matmulProblemOf(btSpec), MIXED, t) as KernelPlan, MIXED, true).dispatches[0].code;
    expect(converted).toContain('var<storage, read> a: array<f16>;');
    expect(converted).toContain('(&a, aoff + (row0');
    // f32 operands, or dimensions that are not whole matrices, are refused by name
    expect(() => subgroupMatrixPlan(matmulProblemOf(spec(256, 128, 64)), MIXED, t)).toThrow(/direct subgroup-matrix loads need f16 operands in memory and M, N, K multiples of 16, 16, 16/);
    expect(() => subgroupMatrixPlan(matmulProblemOf(f16Spec(250, 128, 64, false, false)), MIXED, t)).toThrow(/direct subgroup-matrix loads need/);
  });

  it("computes matmulPartials on subgroup matrices into the node's own [S, M, N] output, the chunk as the interpreter sums it", async () => {
    await loadKernels([], { mixed: true });
    const g = new Graph();
    const a = g.input('a', [16384, 384]);
    const b = g.input('b', [16384, 1152]);
    const node = g.node('matmulPartials', [a, b], { transA: true, transB: false, splits: 10 });
    const plan = generateKernel({ node, inputs: [{ shape: [16384, 384], dtype: 'f32' }, { shape: [16384, 1152], dtype: 'f32' }] } as KernelSpec<'matmulPartials'>, MIXED);
    expect(plan.dispatches).toHaveLength(1);
    expect(plan.scratch).toEqual([]);
    const d = plan.dispatches[0];
    expect(d.code).toContain('subgroupMatrixMultiplyAccumulate');
    expect(d.grid[2]).toBe(10);
    expect(d.code).toContain(`let kbeg = wid.z * ${splitKChunk(16384, 10)}u;`); // 1648: not a multiple of the 32-deep slice
    expect(d.code).toContain('kt + o < kend'); // the chunk's last slice reads zeros past its end
    expect(d.bindings.at(-1)?.source).toEqual({ kind: 'output' });
    // fp32 without the policy
    expect(generateKernel({ node, inputs: [{ shape: [16384, 384], dtype: 'f32' }, { shape: [16384, 1152], dtype: 'f32' }] } as KernelSpec<'matmulPartials'>, H200).dispatches[0].code).not.toContain('subgroup_matrix');
  });
});

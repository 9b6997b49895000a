// f16 storage (f16Storage.ts): which bindings become array<f16>, how loads and stores convert, and the errors for a
// device without shader-f16 and for kernels that cannot take f16 yet. The WGSL of an f16 pointwise kernel and of
// f16 matmuls (tiled f32 path and subgroup-matrix path) is snapshotted under __snapshots__/wgsl-f16/. Numerics run
// on a GPU with shader-f16 (apps/bench/src/mixedF16Check.ts); CI's software adapters lack the feature.
import { type DType, Graph, type OpAttrs, type OpKind, type Shape } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, type DeviceCaps, type KernelPlan, type KernelSpec } from './kernel.js';
import { generateKernel, loadKernels, registerKernel, unregisterKernel } from './registry.js';
import { convertF16Accesses } from './f16Access.js';

await loadKernels(['attention', 'conv2d', 'gather'] as OpKind[], { mixed: true });

const F16: DeviceCaps = { ...COMPAT_CAPS, shaderF16: true };
const H100: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupStorageSize: 49152, maxStorageBuffersPerShaderStage: 10, maxStorageBufferBindingSize: 2 ** 31, subgroups: true, shaderF16: true };
const MIXED: DeviceCaps = { ...H100, mixedMatmul: { m: 16, n: 16, k: 16 } };

function specOf<K extends OpKind>(op: K, shapes: Shape[], dtypes: DType[], attrs: OpAttrs[K]): KernelSpec<K> {
  const g = new Graph({ recordSites: false });
  const ins = shapes.map((s, i) => g.input(`x${i}`, s, dtypes[i]));
  return { node: g.node(op, ins, attrs), inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })) };
}

function planText(plan: KernelPlan): string {
  const parts = [`// scratch: [${plan.scratch.join(', ')}]`];
  for (const d of plan.dispatches) {
    const b = d.bindings.map((x) => `${x.source.kind}${'index' in x.source ? x.source.index : ''}:${x.access}:${x.dtype}`).join(' ');
    parts.push(`// ---- ${d.label}: workgroup [${d.workgroupSize}] grid [${d.grid}] bindings ${b}`, d.code);
  }
  return `${parts.join('\n')}\n`;
}

const x0 = { op: 'in', index: 0 } as const;
const x1 = { op: 'in', index: 1 } as const;

const F16_VARS = new Map([
  ['a', { load: (x: string) => `f32(${x})`, store: 'f16' }],
  ['y', { load: (x: string) => `f32(${x})`, store: 'f16' }],
]);
const convert = (code: string) => convertF16Accesses(code, F16_VARS, (msg) => {
  throw new Error(msg);
});

describe('f16 storage', () => {
  it('declares f16 tensors array<f16>, loads them as f32, stores f16, and enables f16 (a fused pointwise kernel)', async () => {
    // gelu(x + b) on f16 x, f32 b read through a cast: f16 result
    const spec = specOf('pointwise', [[3, 8], [8]], ['f16', 'f32'], { expr: { op: 'gelu', a: { op: 'add', a: x0, b: { op: 'cast', to: 'f16', a: x1 } } }, dtype: 'f16' });
    const plan = generateKernel(spec, F16);
    const code = plan.dispatches[0].code;
    expect(code).toMatch(/^enable f16;$/m);
    expect(code).toMatch(/var<storage, read> x0: array<f16>;/);
    expect(code).toMatch(/var<storage, read> x1: array<f32>;/);
    expect(code).toMatch(/var<storage, read_write> y: array<f16>;/);
    expect(code).toMatch(/f32\(x0\[/);
    expect(code).toMatch(/y\[o\] = f16\(/);
    expect(code).toContain('f32(f16('); // the cast inside the expression rounds to a half
    expect(plan.dispatches[0].bindings.map((b) => b.dtype)).toEqual(['f16', 'f32', 'f16']);
    await expect(planText(plan)).toMatchFileSnapshot('./__snapshots__/wgsl-f16/pointwise.wgsl');
  });

  it('leaves an f32 kernel byte-identical', () => {
    const spec = specOf('pointwise', [[3, 8]], ['f32'], { expr: { op: 'exp', a: x0 }, dtype: 'f32' });
    expect(generateKernel(spec, F16)).toEqual(generateKernel(spec, COMPAT_CAPS));
    expect(generateKernel(spec, F16).dispatches[0].code).not.toContain('f16');
  });

  it('enables f16 in an f32 kernel whose expression rounds to f16 (a cast folded into a reduction prologue)', () => {
    const expr = { op: 'cast', to: 'f16', a: x0 } as const;
    const spec = specOf('pointwiseReduce', [[64, 24]], ['f32'], { expr, shape: [64, 24], reduce: 'sum', axes: [0], keepdims: false, post: x0 });
    const code = generateKernel(spec, F16).dispatches[0].code;
    expect(code).toMatch(/^enable f16;/m);
    expect(code).toContain('f32(f16(');
    expect(code).toMatch(/var<storage, read> x0: array<f32>;/); // the buffers stay f32
  });

  it('casts f32 to f16 as a pointwise kernel that stores a half', () => {
    const code = generateKernel(specOf('cast', [[7]], ['f32'], { to: 'f16' }), F16).dispatches[0].code;
    expect(code).toMatch(/var<storage, read_write> y: array<f16>;/);
    expect(code).toMatch(/y\[o\] = f16\(x\[o\]\);|y\[o\] = f16\(/);
  });

  it('reads f16 matmul operands as f32 into the tiled fp32 kernel and stores an f16 product', async () => {
    const plan = generateKernel(specOf('matmul', [[64, 32], [32, 48]], ['f16', 'f16'], { transA: false, transB: false }), H100);
    const code = plan.dispatches[0].code;
    expect(code).toMatch(/array<(vec4<)?f16>?>;/);
    expect(code).not.toMatch(/subgroup_matrix/);
    await expect(planText(plan)).toMatchFileSnapshot('./__snapshots__/wgsl-f16/matmul.wgsl');
  });

  it.each([
    ['A·B', [[64, 32], [32, 48]], false, false],
    ['Aᵀ·B', [[32, 64], [32, 48]], true, false],
    ['A·Bᵀ', [[64, 32], [48, 32]], false, true],
    ['Aᵀ·Bᵀ', [[32, 64], [48, 32]], true, true],
    ['batched', [[3, 80, 24], [3, 24, 40]], false, false],
    ['long reduction (split-K)', [[2100, 96], [2100, 40]], true, false],
    ['GPT head (n = 65)', [[2048, 384], [65, 384]], false, true],
  ] as const)('plans %s on the portable mixed caps (shader-f16, no subgroup matrices): tiled fp32 kernel, f16 bindings', (_, shapes, transA, transB) => {
    for (const caps of [{ ...F16, mixedF16Storage: true } as const, { ...H100, mixedF16Storage: true } as const]) {
      for (const epilogue of [false, true]) {
        const n = shapes[1][transB ? shapes[1].length - 2 : shapes[1].length - 1];
        const spec = epilogue
          ? specOf('matmulEpilogue', [...shapes, [n]] as Shape[], ['f16', 'f16', 'f16'], { transA, transB, expr: { op: 'geluTanh', a: { op: 'add', a: x0, b: x1 } } })
          : specOf('matmul', [...shapes] as Shape[], ['f16', 'f16'], { transA, transB });
        const plan = generateKernel(spec, caps);
        for (const d of plan.dispatches) {
          expect(d.code).not.toMatch(/subgroup_matrix|subgroupMatrix/);
          for (const [i, b] of d.bindings.entries()) {
            if (b.source.kind !== 'input') continue;
            expect(b.dtype, `${d.label} binding ${i}`).toBe('f16');
            expect(d.code).toMatch(new RegExp(`@binding\\(${i}\\) var<storage, read> \\w+: array<(vec[234]<)?f16>>?;`));
          }
        }
        // the product is stored as f16 by the dispatch that writes the output; its accumulators are f32
        const writer = plan.dispatches.find((d) => d.bindings.some((b) => b.source.kind === 'output'));
        expect(writer?.bindings.find((b) => b.source.kind === 'output')?.dtype).toBe('f16');
        expect(plan.dispatches.map((d) => d.code).join('\n')).not.toMatch(/var acc\w* *: *f16|var<workgroup> \w+: array<f16/);
      }
    }
  });

  it('stages f16 operands into the subgroup-matrix tiles with no conversion', async () => {
    const plan = generateKernel(specOf('matmul', [[256, 128], [128, 256]], ['f16', 'f16'], { transA: false, transB: false }), MIXED);
    const code = plan.dispatches[0].code;
    expect(code).toContain('enable chromium_experimental_subgroup_matrix;');
    expect(code).toMatch(/var<storage, read> a: array<vec4<f16>>;/);
    expect(code).toMatch(/= vec4<f16>\(a\[/); // the staged register takes the f16 load as it is
    expect(code).not.toMatch(/vec4<f32>\(a\[/);
    expect(code.match(/^enable f16;$/gm)).toHaveLength(1);
    await expect(planText(plan)).toMatchFileSnapshot('./__snapshots__/wgsl-f16/matmulSubgroupMatrix.wgsl');
  });

  it('reads an operand flagged `round` from its f32 buffer rounded to f16: f32(f16(x)) when tiled, staged directly on subgroup matrices', () => {
    const spec = specOf('matmulEpilogue', [[64, 32], [32, 48]], ['f32', 'f16'], { transA: false, transB: false, expr: x0, round: [true, false] });
    expect(spec.node.dtype).toBe('f16');
    const tiled = generateKernel(spec, H100).dispatches[0];
    expect(tiled.code).toMatch(/var<storage, read> a: array<f32>;/);
    expect(tiled.code).toMatch(/f32\(f16\(a\[/);
    expect(tiled.bindings.map((b) => b.dtype)).toEqual(['f32', 'f16', 'f16']);
    const big = specOf('matmulEpilogue', [[256, 128], [128, 256]], ['f32', 'f16'], { transA: false, transB: false, expr: x0, round: [true, false] });
    const sgm = generateKernel(big, MIXED).dispatches[0].code;
    expect(sgm).toMatch(/var<storage, read> a: array<vec4<f32>>;/);
    expect(sgm).toMatch(/= vec4<f16>\(a\[/);
    expect(sgm).not.toMatch(/vec4<f32>\(vec4<f16>\(a\[/);
  });

  it('reads the operands of split-K partials flagged `round` rounded to f16, the partials staying f32', () => {
    // a weight gradient's partials (autocast: the f32 activation read rounded, the f16 gradient as it is), K = 1024 in 8 chunks
    const spec = specOf('matmulPartials', [[1024, 128], [1024, 96]], ['f32', 'f16'], { transA: true, transB: false, splits: 8, round: [true, false] });
    expect(spec.node.dtype).toBe('f32');
    const d = generateKernel(spec, H100).dispatches[0];
    expect(d.code).toMatch(/^enable f16;/m);
    expect(d.code).toMatch(/var<storage, read> a: array<vec4<f32>>;/); // f32 in memory
    expect(d.code).toMatch(/vec4<f32>\(vec4<f16>\(a\[/); // each load rounded to halves
    expect(d.code).toMatch(/var<storage, read_write> y: array<vec4<f32>>;/);
    expect(d.bindings.map((b) => b.dtype)).toEqual(['f32', 'f16', 'f32']);
  });

  it('converts a compound store: y[i] += v becomes y[i] = f16(f32(y[i]) + (v))', () => {
    expect(convert('y[i] += a[i] * 2.0;')).toBe('y[i] = f16(f32(y[i]) + (f32(a[i]) * 2.0));');
    expect(convert('let t = a[idx[i]] + y[i];')).toBe('let t = f32(a[idx[i]]) + f32(y[i]);');
    expect(convert('if (a[i] == y[i] && b) { y[i] = a[i]; }')).toBe('if (f32(a[i]) == f32(y[i]) && b) { y[i] = f16(f32(a[i])); }');
  });

  it('lets a subgroup-matrix load take an f16 buffer (array<f16> is what it reads) and refuses any other pointer', () => {
    const load = 'let l = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, off, K);';
    expect(convert(load)).toBe(load);
    expect(() => convert('let p = &a; let q = (*p)[0];')).toThrow(/takes a pointer to or bit-casts the f16 buffer a/);
    expect(() => convert('foo(&a, 0u);')).toThrow(/takes a pointer to or bit-casts the f16 buffer a/);
  });

  it('refuses f16 tensors on a device without shader-f16, naming the op and the feature', () => {
    const spec = specOf('exp', [[4]], ['f16'], {} as OpAttrs['exp']);
    expect(() => generateKernel(spec, COMPAT_CAPS)).toThrow(/exp has f16 tensors, which need the 'shader-f16' feature; the device lacks it/);
  });

  it('refuses f16 tensors in kernels that cannot take them yet, naming the op and the types', () => {
    const spec = specOf('attention', [[1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 8]], ['f32', 'f32', 'f32'], { causal: true, scale: 0.35 });
    const f16 = { ...spec, node: { ...spec.node, dtype: 'f16' as const } };
    expect(() => generateKernel(f16, F16)).toThrow(/the attention kernel does not take f16 tensors yet \(.*-> \[1, 2, 4, 8\]:f16\): cast them to f32 around it/);
  });

  it("refuses f16 tensors in a user's kernel (written for f32)", () => {
    registerKernel('exp', (s, caps) => generateKernel({ ...s, node: { ...s.node, op: 'neg' } } as KernelSpec, caps));
    try {
      expect(() => generateKernel(specOf('exp', [[4]], ['f16'], {} as OpAttrs['exp']), F16)).toThrow(/the user kernel registered for exp does not take f16 tensors yet/);
    } finally {
      unregisterKernel('exp');
    }
  });
});

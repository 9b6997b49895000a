import { describe, expect, it } from 'vitest';
import { Graph, needsKernel, OP_KINDS, type Node, type OpAttrs, type OpKind, type PwExpr, type Shape } from '@neura/ir';
import { COMPAT_CAPS, type DeviceCaps, generateKernel, KERNELS, KernelError, type KernelSpec, loadKernels, registerKernel, unregisterKernel } from './index.js';
import { chooseMatmulConfig, chooseSkinnyConfig } from './matmul.js';
// attention, conv/pool and indexing generators load on demand (lazyKernels.ts); these tests call them synchronously
await loadKernels(Object.keys(KERNELS) as OpKind[]);

const BIG: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 8, maxComputeWorkgroupStorageSize: 32768 };

function spec<K extends OpKind>(op: K, shapes: Shape[], attrs: OpAttrs[K], dtypes: ('f32' | 'i32' | 'bool')[] = [], inPlace?: number): KernelSpec & { node: Node } {
  const g = new Graph();
  const ins = shapes.map((s, i) => g.input(`x${i}`, s, dtypes[i] ?? 'f32'));
  const node = g.node(op, ins, attrs);
  return { node, inputs: ins.map((n) => ({ shape: n.shape, dtype: n.dtype })), inPlace };
}
const E: Record<string, never> = {};
const x0: PwExpr = { op: 'in', index: 0 };

describe('registry', () => {
  it('covers every op that needs a kernel (all but leaves and aliases, from ir\'s op facts)', () => {
    const missing = OP_KINDS.filter((op) => needsKernel(op) && !(op in KERNELS));
    expect(missing).toEqual([]);
    expect(Object.keys(KERNELS).sort()).toEqual(OP_KINDS.filter(needsKernel).sort());
  });

  it('refuses ops the runtime handles, naming the op', () => {
    expect(() => generateKernel(spec('reshape', [[2, 3]], { shape: [6] }), COMPAT_CAPS)).toThrow(KernelError);
    expect(() => generateKernel(spec('reshape', [[2, 3]], { shape: [6] }), COMPAT_CAPS)).toThrow(/reshape .*handled by the runtime/);
  });

  it('lets a user override a kernel and restores the built-in one', () => {
    const s = spec('neg', [[4]], E);
    const builtin = generateKernel(s, COMPAT_CAPS);
    registerKernel('neg', () => ({ dispatches: [], scratch: [42] }));
    try {
      expect(generateKernel(s, COMPAT_CAPS).scratch).toEqual([42]);
    } finally {
      expect(unregisterKernel('neg')).toBe(true);
    }
    expect(generateKernel(s, COMPAT_CAPS)).toEqual(builtin);
  });

  it('checks user plans against the device limits too', () => {
    const s = spec('neg', [[4]], E);
    registerKernel('neg', () => ({ dispatches: [{ label: 'mine', code: '', bindings: [], workgroupSize: [512, 1, 1], grid: [1, 1, 1] }], scratch: [] }));
    try {
      expect(() => generateKernel(s, COMPAT_CAPS)).toThrow(/512 invocations.*maxComputeInvocationsPerWorkgroup \(device value 128\)/);
    } finally {
      unregisterKernel('neg');
    }
  });
});

describe('limits', () => {
  it('names maxStorageBuffersPerShaderStage and its value when a pointwise op has too many operands', () => {
    const expr: PwExpr = { op: 'add', a: { op: 'add', a: x0, b: { op: 'in', index: 1 } }, b: { op: 'add', a: { op: 'in', index: 2 }, b: { op: 'in', index: 3 } } };
    const s = spec('pointwise', [[8], [8], [8], [8]], { expr, dtype: 'f32' });
    expect(() => generateKernel(s, COMPAT_CAPS)).toThrow(/pointwise \(\[8\]:f32.*needs 5 storage buffers, more than maxStorageBuffersPerShaderStage \(device value 4\)/);
    expect(generateKernel(s, BIG).dispatches[0].bindings).toHaveLength(5);
  });

  it('names maxStorageBufferBindingSize when a binding is too large', () => {
    const caps = { ...COMPAT_CAPS, maxStorageBufferBindingSize: 1024 };
    expect(() => generateKernel(spec('exp', [[300]], E), caps)).toThrow(/exp \(\[300\]:f32 -> \[300\]:f32\): binds input 0 of 1200 bytes, more than maxStorageBufferBindingSize \(device value 1024\)/);
  });

  it('lays large grids out in 2-D and fails beyond the square of the per-dimension limit', () => {
    const caps = { ...COMPAT_CAPS, maxComputeWorkgroupsPerDimension: 4 };
    const plan = generateKernel(spec('relu', [[128 * 11]], E), caps);
    expect(plan.dispatches[0].grid).toEqual([4, 3, 1]);
    expect(plan.dispatches[0].code).toContain('wid.y * 4u');
    expect(() => generateKernel(spec('relu', [[128 * 17]], E), caps)).toThrow(/17 workgroups.*maxComputeWorkgroupsPerDimension.*device value 4/);
  });

  it('names maxComputeWorkgroupStorageSize when no matmul tiling fits', () => {
    const caps = { ...COMPAT_CAPS, maxComputeWorkgroupStorageSize: 1024 };
    expect(() => generateKernel(spec('matmul', [[8, 8], [8, 8]], { transA: false, transB: false }), caps)).toThrow(/matmul .*bytes of workgroup memory, more than maxComputeWorkgroupStorageSize \(device value 1024\)/);
  });

  it('keeps every workgroup within the invocation limit', () => {
    for (const caps of [COMPAT_CAPS, { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 64, maxComputeWorkgroupSizeX: 64, maxComputeWorkgroupSizeY: 64 }]) {
      const specs = [spec('matmul', [[70, 30], [30, 90]], { transA: false, transB: false }), spec('sum', [[4, 1000]], { axes: [1], keepdims: false }), spec('logSoftmax', [[3, 500]], { axis: 1 }), spec('transpose', [[40, 50]], { perm: [1, 0] })];
      for (const s of specs)
        for (const d of generateKernel(s, caps).dispatches) expect(d.workgroupSize[0] * d.workgroupSize[1] * d.workgroupSize[2]).toBeLessThanOrEqual(caps.maxComputeInvocationsPerWorkgroup);
    }
  });
});

describe('matmul configurations', () => {
  it('uses 128x64 tiles for large outputs, 64x64 below 256 of those, then 32x32', () => {
    expect(chooseMatmulConfig(2048, 2048, BIG)).toMatchObject({ bm: 128, bn: 64, tm: 8, tn: 8 });
    expect(chooseMatmulConfig(1024, 1024, BIG)).toMatchObject({ bm: 64, bn: 64, tm: 8, tn: 4 });
    expect(chooseMatmulConfig(1000, 128, BIG)).toMatchObject({ bm: 32, bn: 32 });
    expect(chooseMatmulConfig(4096, 4096, COMPAT_CAPS)).toMatchObject({ bm: 128, bn: 64 });
    expect(chooseMatmulConfig(4096, 4096, { ...COMPAT_CAPS, maxComputeWorkgroupStorageSize: 8192 })).toMatchObject({ bm: 64, bn: 64 });
    expect(chooseMatmulConfig(1024, 1024, { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 64 })).toMatchObject({ bm: 32, bn: 32 });
    expect(chooseMatmulConfig(1024, 1024, { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 32 })).toMatchObject({ bm: 16, bn: 16 });
  });

  it('takes the large A·B tiling (128x128, A k-contiguous) only for unbatched A·B with enough of its tiles', () => {
    const code = (shapes: Shape[], transA = false, transB = false, caps = BIG) => generateKernel(spec('matmul', shapes, { transA, transB }), caps).dispatches[0].code;
    const large = 'tile 128x128x16, k unrolled, A staged k-contiguous';
    expect(code([[2048, 384], [384, 2048]])).toContain(large);
    expect(code([[16384, 384], [384, 384]])).toContain(large); // 384 tiles
    expect(code([[1024, 1024], [1024, 1024]])).toContain('tile 64x64x16,'); // 64 tiles: the shipped list
    expect(code([[2048, 384], [2048, 384]], false, true)).toContain('tile 128x64x16,'); // Bᵀ
    expect(code([[384, 2048], [384, 2048]], true)).toContain('tile 128x64x16,'); // Aᵀ
    expect(code([[2048, 386], [386, 2048]])).toContain('tile 128x64x16,'); // K not a multiple of 4
    expect(code([[2, 2048, 384], [384, 2048]])).toContain('tile 128x64x16,'); // batched
    expect(code([[2048, 384], [384, 2048]], false, false, COMPAT_CAPS)).toContain('tile 128x64x16,'); // 18 KiB of workgroup memory > 16 KiB
  });

  it('takes the skinny split-K kernel for at most 64 rows and few tiles, with coalesced B lanes', () => {
    const skinny = generateKernel(spec('matmul', [[32, 784], [784, 128]], { transA: false, transB: false }), BIG);
    expect(skinny.dispatches[0].code).toContain('skinny matmul');
    expect(skinny.dispatches[0].grid).toEqual([Math.ceil(128 / 8), 4, 1]);
    expect(chooseSkinnyConfig(32, false, BIG)).toEqual({ rm: 8, wn: 8, s: 32 });
    expect(chooseSkinnyConfig(32, true, BIG)).toEqual({ rm: 8, wn: 16, s: 16 });
    expect(generateKernel(spec('matmul', [[64, 4096], [4096, 4096]], { transA: false, transB: false }), BIG).dispatches[0].code).toContain('tiled matmul');
    expect(generateKernel(spec('matmul', [[65, 8], [8, 8]], { transA: false, transB: false }), BIG).dispatches[0].code).toContain('tiled matmul');
  });

  it('reads vec4s when the contiguous dimension is a multiple of 4, scalars otherwise', () => {
    const v = generateKernel(spec('matmul', [[128, 64], [64, 256]], { transA: false, transB: false }), BIG).dispatches[0].code;
    expect(v).toContain('vec4 A loads, vec4 B loads, vec4 stores');
    const s = generateKernel(spec('matmul', [[128, 63], [63, 254]], { transA: false, transB: false }), BIG).dispatches[0].code;
    expect(s).toContain('scalar A loads, scalar B loads, scalar stores');
  });
});

describe('generation', () => {
  it('is deterministic: the same spec gives the same WGSL, across graphs', () => {
    const a = generateKernel(spec('fusedMatmul', [[4, 9], [4, 6], [6]], { transA: true, transB: false, bias: true, activation: 'relu' } as never), COMPAT_CAPS);
    const b = generateKernel(spec('fusedMatmul', [[4, 9], [4, 6], [6]], { transA: true, transB: false, bias: true, activation: 'relu' } as never), COMPAT_CAPS);
    expect(a).toEqual(b);
  });

  it('opens every shader with the op and its shapes', () => {
    const plan = generateKernel(spec('add', [[2, 3], [3]], E), COMPAT_CAPS);
    expect(plan.dispatches[0].code.startsWith('// neura kernel: add [2, 3]:f32, [3]:f32 -> [2, 3]:f32')).toBe(true);
    expect(plan.dispatches[0].label).toBe('add[2x3]');
  });

  it('emits a shared subexpression once and unrolls constant integer powers', () => {
    const t: PwExpr = { op: 'exp', a: x0 };
    const expr: PwExpr = { op: 'add', a: { op: 'mul', a: t, b: t }, b: { op: 'pow', a: t, b: { op: 'const', value: 3 } } };
    const code = generateKernel(spec('pointwise', [[5]], { expr, dtype: 'f32' }), COMPAT_CAPS).dispatches[0].code;
    expect(code.match(/exp\(/g)).toHaveLength(1);
    expect(code).not.toContain('pow_ieee');
    expect(code).toContain('(t0 * t0 * t0)');
  });

  it('reads an operand that has the output shape by the thread index, and broadcasts others by baked strides', () => {
    const code = generateKernel(spec('add', [[4, 5], [5]], E), COMPAT_CAPS).dispatches[0].code;
    expect(code).toContain('let v0 = x0[o];');
    expect(code).toMatch(/let i1 = c1;/);
  });
});

describe('inPlace', () => {
  it('binds the operand once, read_write, and writes the result through it', () => {
    const plan = generateKernel(spec('add', [[4, 5], [5]], E, [], 0), COMPAT_CAPS);
    const d = plan.dispatches[0];
    expect(d.bindings).toEqual([
      { source: { kind: 'input', index: 0 }, access: 'read_write', dtype: 'f32' },
      { source: { kind: 'input', index: 1 }, access: 'read', dtype: 'f32' },
    ]);
    expect(d.code).toContain('x0[o] = (v0 + v1);');
    expect(d.code).toContain('var<storage, read_write> x0');
  });

  it('rejects inPlace for non-elementwise ops and for a broadcast operand', () => {
    expect(() => generateKernel(spec('matmul', [[2, 2], [2, 2]], { transA: false, transB: false }, [], 0), COMPAT_CAPS)).toThrow(/inPlace is only supported for elementwise ops/);
    expect(() => generateKernel(spec('add', [[4, 5], [5]], E, [], 1), COMPAT_CAPS)).toThrow(/inPlace operand 1 is \[5\]:f32, not the output's \[4, 5\]:f32/);
  });
});

describe('multi-dispatch plans', () => {
  it('splits a long reduction with few outputs into two passes through scratch', () => {
    const plan = generateKernel(spec('sum', [[1_000_000]], { axes: [0], keepdims: false }), BIG);
    expect(plan.dispatches.map((d) => d.label)).toEqual(['sum[1000000->scalar]:partials', 'sum[1000000->scalar]:combine']);
    expect(plan.scratch).toEqual([Math.ceil(1_000_000 / 4096) * 4]);
    expect(generateKernel(spec('sum', [[4, 1000]], { axes: [1], keepdims: false }), BIG).dispatches).toHaveLength(1);
  });

  it('scatterAdd loops over few indices, sums many into few rows in two passes, and uses compare-exchange atomics for many rows', () => {
    const few = generateKernel(spec('scatterAdd', [[10, 4], [8], [8, 4]], { axis: 0 }, ['f32', 'i32', 'f32']), BIG);
    expect(few.dispatches).toHaveLength(1);
    const segmented = generateKernel(spec('scatterAdd', [[10, 4], [1000], [1000, 4]], { axis: 0 }, ['f32', 'i32', 'f32']), BIG);
    expect(segmented.dispatches).toHaveLength(2);
    expect(segmented.dispatches[0].code).not.toContain('atomic');
    expect(segmented.scratch).toEqual([8 * 10 * 4 * 4]); // 8 chunks of 128 indices, a sum per (chunk, row, column)
    const many = generateKernel(spec('scatterAdd', [[1000, 4], [1000], [1000, 4]], { axis: 0 }, ['f32', 'i32', 'f32']), BIG);
    expect(many.dispatches).toHaveLength(2);
    expect(many.dispatches[1].code).toContain('atomicCompareExchangeWeak');
  });

  it('concat spreads its inputs over dispatches within the storage-buffer limit', () => {
    const plan = generateKernel(spec('concat', [[2, 1], [2, 2], [2, 3], [2, 4], [2, 5]], { axis: 1 }), COMPAT_CAPS);
    expect(plan.dispatches).toHaveLength(2);
    for (const d of plan.dispatches) expect(d.bindings.length).toBeLessThanOrEqual(COMPAT_CAPS.maxStorageBuffersPerShaderStage);
  });

  it('names the storage-buffer limit when attentionGrad cannot bind its operands', () => {
    const s = spec('attentionGrad', [[2, 4, 8], [2, 4, 8], [2, 4, 8], [2, 4, 8], [2, 4], [2, 4]], { causal: true, scale: 0.5, wrt: 'q' });
    expect(() => generateKernel(s, COMPAT_CAPS)).toThrow(/needs 7 storage buffers.*maxStorageBuffersPerShaderStage \(device value 4\)/);
    // one dispatch: L and Δ are operands (computed once per attention), not recomputed by a statistics pass
    expect(generateKernel(s, BIG).dispatches).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_KERNEL_LIMITS, isKernelOp, KERNEL_COST, kernelIllegality, type KernelLimits, OP_KINDS, type TensorType } from '@neura/ir';

const t = (shape: number[]): TensorType => ({ shape, dtype: 'f32' });

describe('kernel facts', () => {
  it('cover every op; leaves and reshape are no kernel', () => {
    for (const op of OP_KINDS) expect(KERNEL_COST[op], op).toBeDefined();
    expect(isKernelOp('reshape')).toBe(false);
    expect(isKernelOp('param')).toBe(false);
    expect(isKernelOp('add')).toBe(true);
  });

  it('count 2·M·N·K flops for a product (flags read from the attributes) plus the epilogue', () => {
    const attrs = { transA: false, transB: false };
    expect(KERNEL_COST.matmul.flops({ attrs, ins: [t([3, 5]), t([5, 7])], out: t([3, 7]) })).toBe(2 * 3 * 5 * 7);
    expect(KERNEL_COST.matmul.flops({ attrs: { transA: true, transB: false }, ins: [t([5, 3]), t([5, 7])], out: t([3, 7]) })).toBe(2 * 3 * 5 * 7);
    const fused = { ...attrs, bias: true, activation: 'relu' } as const;
    expect(KERNEL_COST.fusedMatmul.flops({ attrs: fused, ins: [t([3, 5]), t([5, 7]), t([7])], out: t([3, 7]) })).toBe(2 * 3 * 5 * 7 + 2 * 21);
  });

  it('refuse a fused kernel over the storage-buffer or binding-size limit, never a primitive', () => {
    const tight: KernelLimits = { maxStorageBuffersPerShaderStage: 4, maxStorageBufferBindingSize: 1024 };
    const expr = { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } as const;
    const four = [t([4]), t([4]), t([4]), t([4])];
    expect(kernelIllegality('pointwise', four.slice(0, 3), t([4]), tight)).toBeUndefined();
    expect(kernelIllegality('pointwise', four, t([4]), tight)).toMatch(/binds 5 storage buffers, over maxStorageBuffersPerShaderStage = 4/);
    expect(kernelIllegality('pointwise', [t([512])], t([512]), tight)).toMatch(/2048 bytes, over maxStorageBufferBindingSize = 1024/);
    expect(kernelIllegality('pointwise', four, t([4]), DEFAULT_KERNEL_LIMITS)).toBeUndefined();
    expect(kernelIllegality('attentionGrad', four, t([4]), tight)).toBeUndefined(); // a primitive has no alternative
    expect(KERNEL_COST.pointwise.flops({ attrs: { expr, dtype: 'f32' }, ins: [t([4]), t([4])], out: t([4]) })).toBe(3 * 4);
  });

  it('count no work for a rounding to f16 inside an expression (a folded autocast cast), but a conversion to f32 as an op', () => {
    const add = { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'in', index: 1 } } as const;
    const rounded = { op: 'cast', to: 'f16', a: { op: 'add', a: { op: 'in', index: 0 }, b: { op: 'cast', to: 'f16', a: { op: 'in', index: 1 } } } } as const;
    const ins = [t([64, 8]), t([8])];
    const flops = (expr: object) => KERNEL_COST.pointwise.flops({ attrs: { expr, dtype: 'f32' } as never, ins, out: t([64, 8]) });
    expect(flops(rounded)).toBe(flops(add));
    expect(flops({ op: 'cast', to: 'f32', a: add })).toBe(flops(add) + 64 * 8);
    const epilogue = (expr: object) => KERNEL_COST.matmulEpilogue.flops({ attrs: { transA: false, transB: false, expr } as never, ins: [t([64, 4]), t([4, 8]), t([8])], out: t([64, 8]) });
    expect(epilogue(rounded)).toBe(epilogue(add));
  });
});

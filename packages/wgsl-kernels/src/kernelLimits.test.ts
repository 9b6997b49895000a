// The two default limit objects: ir's DEFAULT_KERNEL_LIMITS (core WebGPU, what the e-graph plans for) and
// COMPAT_CAPS (compatibility mode, the floor kernels are tested on). They differ on purpose; this pins how.
import { DEFAULT_KERNEL_LIMITS, type KernelLimits } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { COMPAT_CAPS, DEFAULT_CAPS } from './kernel.js';

const fields = Object.keys(DEFAULT_KERNEL_LIMITS) as (keyof KernelLimits)[];

describe('the default limits', () => {
  it('COMPAT_CAPS covers every kernel-legality limit, each at most the planning default', () => {
    const compat: KernelLimits = COMPAT_CAPS; // DeviceCaps is a KernelLimits: a device's caps plan as limits
    for (const f of fields) expect(compat[f], f).toBeLessThanOrEqual(DEFAULT_KERNEL_LIMITS[f]);
  });

  it("are core WebGPU's and compatibility mode's spec defaults", () => {
    expect(DEFAULT_KERNEL_LIMITS).toEqual({ maxStorageBuffersPerShaderStage: 8, maxStorageBufferBindingSize: 128 * 1024 * 1024 });
    expect(COMPAT_CAPS.maxStorageBuffersPerShaderStage).toBe(4);
    expect(COMPAT_CAPS.maxStorageBufferBindingSize).toBe(DEFAULT_KERNEL_LIMITS.maxStorageBufferBindingSize);
    expect(COMPAT_CAPS.maxComputeInvocationsPerWorkgroup).toBe(128);
  });

  it('keeps DEFAULT_CAPS as the old name of COMPAT_CAPS', () => {
    expect(DEFAULT_CAPS).toBe(COMPAT_CAPS);
  });
});

// capsFor's decision from what a device reports (plain data: features, adapter info, caps), and the Dawn toggle
// merge createDevice({ mixedPrecision }) uses. The GPU side is runtime-webgpu/test/mixedPrecision.gpu.test.ts.
import { COMPAT_CAPS } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { type AdapterInfo, type NeuraDevice, parseDawnOptions, withDawnToggles } from './device.js';
import { capsFor, PrecisionError, supportsPrecision } from './precision.js';

const H200_CONFIGS = [
  { m: 16, n: 16, k: 16, componentType: 'f16', resultComponentType: 'f16' },
  { m: 16, n: 8, k: 16, componentType: 'f16', resultComponentType: 'f32' },
  { m: 16, n: 16, k: 16, componentType: 'f16', resultComponentType: 'f32' },
  { m: 16, n: 16, k: 32, componentType: 'i8', resultComponentType: 'i32' },
];

function device(features: string[], info: Partial<AdapterInfo> = {}): NeuraDevice {
  const adapterInfo: AdapterInfo = { vendor: 'nvidia', architecture: 'hopper', device: 'nvidia-h200', description: '', backend: 'vulkan', software: false, subgroupMatrixConfigs: H200_CONFIGS, subgroupSizes: [32, 32], ...info };
  return { caps: COMPAT_CAPS, adapterInfo, name: 'nvidia (vulkan, gpu)', features: new Set(features) } as unknown as NeuraDevice;
}
const ALL = ['chromium-experimental-subgroup-matrix', 'shader-f16', 'subgroups'];

describe('capsFor', () => {
  it("plans 'mixed' on the largest f16 x f16 -> f32 shape, and leaves fp32 alone", () => {
    const d = device(ALL);
    expect(capsFor(d, 'mixed').mixedMatmul).toEqual({ m: 16, n: 16, k: 16 });
    expect(capsFor(d, 'mixed').maxComputeWorkgroupStorageSize).toBe(COMPAT_CAPS.maxComputeWorkgroupStorageSize);
    expect(capsFor(d)).toBe(d.caps);
  });

  it('names what is missing: the features, an f16 configuration, 32-lane subgroups', () => {
    expect(() => capsFor(device(['subgroups']), 'mixed')).toThrow(/device nvidia \(vulkan, gpu\) \(nvidia nvidia-h200\) lacks the feature\(s\) 'chromium-experimental-subgroup-matrix', 'shader-f16'/);
    expect(() => capsFor(device(ALL, { subgroupMatrixConfigs: H200_CONFIGS.filter((c) => c.componentType === 'i8') }), 'mixed')).toThrow(/no f16 x f16 -> f32 subgroup-matrix configuration/);
    expect(() => capsFor(device(ALL, { subgroupSizes: [16, 64] }), 'mixed')).toThrow(/subgroups of 16–64 lanes \(the kernel needs 32\)/);
    expect(() => capsFor(device(ALL), 'mixed')).not.toThrow(PrecisionError);
  });

  it('supportsPrecision says the same as a boolean; an unknown policy is false too', () => {
    expect(supportsPrecision(device(ALL), 'mixed')).toBe(true);
    expect(supportsPrecision(device(['subgroups']), 'mixed')).toBe(false);
    expect(supportsPrecision(device([]), 'fp32')).toBe(true);
    expect(supportsPrecision(device(ALL), 'bf16' as 'fp32')).toBe(false);
  });
});

describe('parseDawnOptions', () => {
  it('keeps a toggle list whole and splits entries at the next key', () => {
    expect(parseDawnOptions('')).toEqual([]);
    expect(parseDawnOptions('enable-dawn-features=allow_unsafe_apis,disable_robustness,backend=vulkan')).toEqual([
      'enable-dawn-features=allow_unsafe_apis,disable_robustness',
      'backend=vulkan',
    ]);
  });
  it('names a piece that has no key', () => {
    expect(() => parseDawnOptions('disable_robustness,backend=vulkan')).toThrow(/'disable_robustness' has no key/);
  });
});

describe('withDawnToggles', () => {
  it('adds an enable-dawn-features entry, or merges into the one given, without duplicates', () => {
    expect(withDawnToggles([], ['allow_unsafe_apis'])).toEqual(['enable-dawn-features=allow_unsafe_apis']);
    expect(withDawnToggles(['backend=vulkan', 'enable-dawn-features=a,allow_unsafe_apis'], ['allow_unsafe_apis', 'b'])).toEqual(['backend=vulkan', 'enable-dawn-features=a,allow_unsafe_apis,b']);
    expect(withDawnToggles(['disable-dawn-features=timestamp_quantization'], ['x'])).toEqual(['disable-dawn-features=timestamp_quantization', 'enable-dawn-features=x']);
  });
});

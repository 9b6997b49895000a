// capsFor's decision from what a device reports (plain data: features, adapter info, caps): tensor cores, the
// portable f16-storage path, or a PrecisionError; and the Dawn toggle
// merge createDevice({ mixedPrecision }) uses. The GPU side is runtime-webgpu/test/mixedPrecision.gpu.test.ts.
import { COMPAT_CAPS } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { type AdapterInfo, type NeuraDevice, parseDawnOptions, withDawnToggles } from './device.js';
import { capsFor, mixedPath, PrecisionError, supportsPrecision, tensorCoreShortfall } from './precision.js';

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
    expect(capsFor(d, 'mixed').mixedF16Storage).toBeUndefined();
    expect(capsFor(d, 'mixed').maxComputeWorkgroupStorageSize).toBe(COMPAT_CAPS.maxComputeWorkgroupStorageSize);
    expect(mixedPath(d)).toBe('tensor-cores');
    expect(capsFor(d)).toBe(d.caps);
  });

  it("takes the portable path (f16 storage, no subgroup matrices) where 'shader-f16' is there but tensor cores are not", () => {
    const portable = [
      device(['shader-f16']), // a browser today: no subgroup matrices
      device(['shader-f16', 'subgroups'], { subgroupMatrixConfigs: [] }),
      device(ALL, { subgroupMatrixConfigs: H200_CONFIGS.filter((c) => c.componentType === 'i8') }), // no f16 -> f32 configuration
      device(ALL, { subgroupSizes: [16, 64] }), // the kernel's layout needs 32 lanes
      device(ALL, { subgroupMatrixConfigs: [{ m: 8, n: 8, k: 64, componentType: 'f16', resultComponentType: 'f32' }] }), // k does not divide 32
    ];
    for (const d of portable) {
      const caps = capsFor(d, 'mixed');
      expect(caps.mixedMatmul).toBeUndefined();
      expect(caps.mixedF16Storage).toBe(true);
      expect(caps.shaderF16).toBe(d.caps.shaderF16);
      expect(mixedPath(d)).toBe('portable');
    }
  });

  it('says why a device has no tensor cores: the features, an f16 configuration, 32-lane subgroups', () => {
    expect(tensorCoreShortfall(device(['shader-f16'])).why).toBe("lacks the feature(s) 'chromium-experimental-subgroup-matrix', 'subgroups'");
    expect(tensorCoreShortfall(device(ALL, { subgroupMatrixConfigs: H200_CONFIGS.filter((c) => c.componentType === 'i8') })).why).toMatch(/no f16 x f16 -> f32 subgroup-matrix configuration/);
    expect(tensorCoreShortfall(device(ALL, { subgroupSizes: [16, 64] })).why).toMatch(/subgroups of 16–64 lanes \(the kernel needs 32\)/);
    expect(tensorCoreShortfall(device(ALL))).toEqual({ shape: { m: 16, n: 16, k: 16 } });
  });

  it("is a PrecisionError naming 'shader-f16', the adapter and the Node toggles where the device lacks 'shader-f16'", () => {
    for (const d of [device(['subgroups']), device(['chromium-experimental-subgroup-matrix', 'subgroups']), device([])]) {
      expect(() => capsFor(d, 'mixed')).toThrow(PrecisionError);
      expect(() => capsFor(d, 'mixed')).toThrow(/device nvidia \(vulkan, gpu\) \(nvidia nvidia-h200\) lacks 'shader-f16'/);
      expect(() => capsFor(d, 'mixed')).toThrow(/createDevice\(\{ mixedPrecision: true \}\)/);
      expect(() => mixedPath(d)).toThrow(PrecisionError);
    }
  });

  it('supportsPrecision says the same as a boolean; an unknown policy is false too', () => {
    expect(supportsPrecision(device(ALL), 'mixed')).toBe(true);
    expect(supportsPrecision(device(['shader-f16']), 'mixed')).toBe(true);
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

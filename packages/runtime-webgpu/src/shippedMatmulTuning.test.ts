// The shipped matmul tables: well-formed, applied only on the adapter and driver they were measured on and only
// when the device's limits fit every entry; and the precedence at compile (user over shipped, fp32 only).
import { type DeviceCaps, MATMUL_CONFIG_BY_NAME, MATMUL_HEURISTIC, matmulConfigFits } from '@neura/wgsl-kernels';
import { describe, expect, it } from 'vitest';
import { SHIPPED_MATMUL_TUNINGS, type ShippedMatmulTuning, shippedTuningFor } from './shippedMatmulTuning.js';

const BIG: DeviceCaps = {
  maxComputeInvocationsPerWorkgroup: 1024,
  maxComputeWorkgroupSizeX: 1024,
  maxComputeWorkgroupSizeY: 1024,
  maxComputeWorkgroupsPerDimension: 65535,
  maxStorageBuffersPerShaderStage: 10,
  maxStorageBufferBindingSize: 2 ** 31,
  maxComputeWorkgroupStorageSize: 49152,
  subgroups: false,
  shaderF16: false,
};
const TABLE: ShippedMatmulTuning = { adapter: 'v|a|dev|driver 1.2|vulkan', source: 'test', tuning: { '64x64x64:NN:b1': '128x128x16/8x8+u', '8x8x8:NN:b1': MATMUL_HEURISTIC } };

describe('shipped matmul tables', () => {
  it('each names an adapter once, well-formed shape keys and known configurations, and a result file', () => {
    expect(new Set(SHIPPED_MATMUL_TUNINGS.map((t) => t.adapter)).size).toBe(SHIPPED_MATMUL_TUNINGS.length);
    for (const t of SHIPPED_MATMUL_TUNINGS) {
      expect(t.adapter.split('|')).toHaveLength(5);
      expect(t.source).toMatch(/^apps\/bench\/results\/.+\.md$/);
      expect(Object.keys(t.tuning).length).toBeGreaterThan(0);
      for (const [key, name] of Object.entries(t.tuning)) {
        expect(key).toMatch(/^\d+x\d+x\d+:[NT][NT]:b\d+$/);
        expect(MATMUL_CONFIG_BY_NAME.has(name), `${t.adapter}: ${key} → ${name}`).toBe(true);
      }
      expect(shippedTuningFor(t.adapter, BIG)).toBe(t);
    }
  });

  it('applies only on the exact adapter key: another device, driver or backend gets none', () => {
    expect(shippedTuningFor(TABLE.adapter, BIG, [TABLE])).toBe(TABLE);
    expect(shippedTuningFor('v|a|dev|driver 1.3|vulkan', BIG, [TABLE])).toBeUndefined();
    expect(shippedTuningFor('v|a|dev2|driver 1.2|vulkan', BIG, [TABLE])).toBeUndefined();
    expect(shippedTuningFor('v|a|dev|driver 1.2|opengles', BIG, [TABLE])).toBeUndefined();
  });

  it('is not applied on a device whose limits do not fit an entry (the table applies whole or not at all)', () => {
    const cfg = MATMUL_CONFIG_BY_NAME.get('128x128x16/8x8+u') ?? expect.unreachable();
    const limited = { ...BIG, maxComputeInvocationsPerWorkgroup: 128 };
    expect(matmulConfigFits(cfg, limited)).toBe(false);
    expect(shippedTuningFor(TABLE.adapter, limited, [TABLE])).toBeUndefined();
  });

  it('refuses a table naming an unknown configuration', () => {
    const bad = { ...TABLE, tuning: { '64x64x64:NN:b1': '99x99x1/1x1' } };
    expect(() => shippedTuningFor(TABLE.adapter, BIG, [bad])).toThrow(/names configuration '99x99x1\/1x1', which is not a tiled matmul configuration/);
  });
});

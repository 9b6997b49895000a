import { describe, expect, it } from 'vitest';
import { Graph } from '@neura/ir';
import { checkMatmulTuning, COMPAT_CAPS, type DeviceCaps, generateKernel, KernelError, type KernelSpec, loadKernels, MATMUL_CANDIDATES, MATMUL_CONFIG_BY_NAME, MATMUL_HEURISTIC, matmulConfigName, matmulShapeKey } from './index.js';

await loadKernels(['matmul'], { mixed: true }); // the mixed-precision matmuls load on demand

const BIG: DeviceCaps = { ...COMPAT_CAPS, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024, maxComputeWorkgroupSizeY: 1024, maxComputeWorkgroupStorageSize: 32768 };

function matmulSpec(m: number, k: number, n: number, transB = false): KernelSpec {
  const g = new Graph();
  const a = g.input('a', [m, k]);
  const b = g.input('b', transB ? [n, k] : [k, n]);
  const node = g.node('matmul', [a, b], { transA: false, transB });
  return { node, inputs: [a, b].map((x) => ({ shape: x.shape, dtype: x.dtype })) };
}

describe('matmul tuning table', () => {
  it('names every candidate and keys shapes by M x N x K, transposes and batches', () => {
    for (const c of MATMUL_CANDIDATES) expect(MATMUL_CONFIG_BY_NAME.get(matmulConfigName(c))).toMatchObject({ bm: c.bm, bn: c.bn, bk: c.bk, tm: c.tm, tn: c.tn });
    expect(matmulShapeKey({ m: 256, n: 128, k: 64, transB: true })).toBe('256x128x64:NT:b1');
  });

  it('runs a tuned shape with its configuration and every other shape with the shipped heuristic', () => {
    const tuned = matmulSpec(256, 64, 128);
    const other = matmulSpec(256, 64, 96);
    const heuristic = generateKernel(tuned, BIG).dispatches[0].code;
    expect(heuristic).not.toContain('tile 32x32x16 double-buffered, k unrolled');
    const caps = { ...BIG, matmulTuning: { [matmulShapeKey({ m: 256, n: 128, k: 64 })]: '32x32x16/4x4+u+db' } };
    expect(generateKernel(tuned, caps).dispatches[0].code).toContain('tile 32x32x16 double-buffered, k unrolled');
    expect(generateKernel(other, caps)).toEqual(generateKernel(other, BIG));
    // a tuned shape that the heuristic would send to the skinny kernel still runs its tuned tiling
    const skinny = matmulSpec(16, 64, 64);
    expect(generateKernel(skinny, BIG).dispatches[0].code).toContain('skinny matmul');
    expect(generateKernel(skinny, { ...BIG, matmulTuning: { '16x64x64:NN:b1': '64x64x16/8x4' } }).dispatches[0].code).toContain('tile 64x64x16');
  });

  it('refuses an entry whose configuration does not fit the device, naming the limit', () => {
    const caps = { ...COMPAT_CAPS, matmulTuning: { '256x128x64:NN:b1': '128x128x16/8x8' } };
    expect(() => generateKernel(matmulSpec(256, 64, 128), caps)).toThrow(KernelError);
    expect(() => generateKernel(matmulSpec(256, 64, 128), caps)).toThrow(/tuning entry '256x128x64:NN:b1' names configuration '128x128x16\/8x8', which does not fit the device: 256 invocations > maxComputeInvocationsPerWorkgroup \(device value 128\)/);
    expect(() => checkMatmulTuning(caps.matmulTuning, COMPAT_CAPS)).toThrow(/does not fit the device/);
    expect(() => checkMatmulTuning(caps.matmulTuning, BIG)).not.toThrow();
  });

  it('runs the heuristic for a `default` entry (a measured choice that overrides another table), also under mixed precision', () => {
    const skinny = matmulSpec(16, 64, 64);
    const entry = { '16x64x64:NN:b1': MATMUL_HEURISTIC };
    expect(() => checkMatmulTuning(entry, COMPAT_CAPS)).not.toThrow();
    expect(generateKernel(skinny, { ...BIG, matmulTuning: entry })).toEqual(generateKernel(skinny, BIG));
    const mixed = { ...BIG, mixedMatmul: { m: 16, n: 16, k: 16 } };
    expect(generateKernel(matmulSpec(256, 64, 128), { ...mixed, matmulTuning: { '256x128x64:NN:b1': MATMUL_HEURISTIC } })).toEqual(generateKernel(matmulSpec(256, 64, 128), mixed));
  });

  it('refuses an unknown configuration name and a tuned shape under mixed precision', () => {
    expect(() => generateKernel(matmulSpec(256, 64, 128), { ...BIG, matmulTuning: { '256x128x64:NN:b1': '7x7x7/1x1' } })).toThrow(/'7x7x7\/1x1', which is not a tiled matmul configuration/);
    const mixed = { ...BIG, mixedMatmul: { m: 16, n: 16, k: 16 }, matmulTuning: { '256x128x64:NN:b1': '64x64x16/8x4' } };
    expect(() => generateKernel(matmulSpec(256, 64, 128), mixed)).toThrow(/fp32 measurement; it cannot apply under precision 'mixed'/);
  });
});

import type { DispatchTiming } from '@neura/runtime-webgpu';
import { describe, expect, it } from 'vitest';
import { laneOf, timelineSvg } from './timelinePanel.js';

const kernel = (op: string) => ({ node: 1, op, fused: op, shapes: '[2]', flops: 1, bytes: 8 });
const timings: DispatchTiming[] = [
  { label: 'fusedMatmul[32x784x128]#3', kernel: kernel('fusedMatmul'), startNs: 0, endNs: 600_000 },
  { label: 'pointwise[128]#9', kernel: kernel('pointwise'), startNs: 600_000, endNs: 700_000 },
  { label: 'copy state', startNs: 700_000, endNs: 1_000_000 },
];

describe('the demo profiler timeline', () => {
  it('puts each dispatch in its kernel kind’s lane, at its GPU start, as wide as its duration', () => {
    expect(timings.map(laneOf)).toEqual(['fusedMatmul', 'pointwise', 'copy']);
    const svg = timelineSvg(timings, 1000);
    const bars = [...svg.matchAll(/<rect x="([\d.]+)" y="(\d+)" width="([\d.]+)" height="12" fill="[^"]+"><title>/g)].map((m) => m.slice(1).map(Number));
    expect(bars).toHaveLength(3);
    expect(new Set(bars.map((b) => b[1])).size).toBe(3); // three lanes
    expect(bars[0][2] / bars[1][2]).toBeCloseTo(6, 5); // 600 µs vs 100 µs
    expect(bars[1][0]).toBeCloseTo(bars[0][0] + bars[0][2], 5); // starts where the first ends
    expect(svg).toContain('>1.00 ms<');
  });
});

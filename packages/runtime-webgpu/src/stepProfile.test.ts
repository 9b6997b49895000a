import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { chromeTrace, type DispatchTiming, fusedOpsOf, kernelInfoOf, profileTable, summarizeProfile } from './stepProfile.js';

function twoKernels() {
  const g = new Graph();
  const a = g.input('a', [64, 32]);
  const b = g.param('b', [32, 16]);
  const mm = g.matmul(a, b);
  const r = g.relu(mm);
  const mmInfo = kernelInfoOf(g, g.get(mm.id));
  const reluInfo = kernelInfoOf(g, g.get(r.id));
  return { mmInfo, reluInfo };
}

describe('kernelInfoOf', () => {
  it('names the fused ops, the shapes, and the fewest bytes moved', () => {
    const { mmInfo, reluInfo } = twoKernels();
    expect(mmInfo.fused).toBe('matmul A·B');
    expect(mmInfo.shapes).toBe('[64,32]·[32,16] → [64,16]');
    expect(mmInfo.bytes).toBe((64 * 32 + 32 * 16 + 64 * 16) * 4);
    expect(reluInfo.bytes).toBe(2 * 64 * 16 * 4);
    expect(mmInfo.flops).toBe(2 * 64 * 32 * 16); // from ir's kernel facts
    expect(reluInfo.flops).toBe(64 * 16);
  });
  it('lists the ops inside a fused pointwise expression', () => {
    const g = new Graph();
    const x = g.input('x', [4]);
    const n = g.node('pointwise', [x.id], {
      expr: { op: 'mul', a: { op: 'exp', a: { op: 'in', index: 0 } }, b: { op: 'const', value: 2 } },
      dtype: 'f32',
    });
    expect(fusedOpsOf(n)).toBe('pointwise(mul, exp)');
  });
});

describe('summarizeProfile', () => {
  const { mmInfo, reluInfo } = twoKernels();
  // the matmul is two dispatches (3 µs + 1 µs), the relu one (1 µs)
  const timings: DispatchTiming[] = [
    { label: 'matmul[64x32x16]#2.0', kernel: mmInfo, startNs: 0, endNs: 3000 },
    { label: 'matmul[64x32x16]#2.1', kernel: mmInfo, startNs: 4000, endNs: 5000 },
    { label: 'relu[64x16]#3', kernel: reluInfo, startNs: 6000, endNs: 7000 },
  ];
  it('groups dispatches per kernel, slowest first, with shares, rates and the roofline fraction', () => {
    const s = summarizeProfile(timings, { flopsPerSecond: 1e12, bytesPerSecond: 1e11 });
    expect(s.dispatches).toBe(3);
    expect(s.gpuMs).toBeCloseTo(0.005, 9);
    expect(s.spanMs).toBeCloseTo(0.007, 9);
    expect(s.rows.map((r) => [r.label, r.dispatches])).toEqual([
      ['matmul[64x32x16]#2', 2],
      ['relu[64x16]#3', 1],
    ]);
    expect(s.rows[0].share).toBeCloseTo(0.8, 9);
    expect(s.rows[0].gflops).toBeCloseTo(mmInfo.flops / 4e-6 / 1e9, 6);
    expect(s.rows[1].gbps).toBeCloseTo(reluInfo.bytes / 1e-6 / 1e9, 6);
    // relu: 8 KiB at 100 GB/s = 81.92 ns floor over 1 µs measured
    expect(s.rows[1].roofline).toBeCloseTo(81.92e-9 / 1e-6, 6);
  });
  it('renders a markdown table with a by-class summary', () => {
    const t = profileTable(summarizeProfile(timings), { top: 1 });
    expect(t).toContain('| matmul | 1 | 2 | 0.004 | 80.0% |');
    expect(t).toContain('Slowest 1 of 2 kernels');
    expect(t).toContain('| matmul[64x32x16]#2 (2 dispatches) | matmul A·B | [64,32]·[32,16] → [64,16] | 0.004 | 80.0% |');
    expect(t).not.toContain('| relu[64x16]#3 |');
  });
  it('exports every dispatch as a complete trace event in µs', () => {
    const tr = chromeTrace(timings);
    const xs = tr.traceEvents.filter((e) => (e as { ph: string }).ph === 'X') as { name: string; ts: number; dur: number; cat: string }[];
    expect(xs.map((e) => [e.name, e.ts, e.dur, e.cat])).toEqual([
      ['matmul[64x32x16]#2.0', 0, 3, 'matmul'],
      ['matmul[64x32x16]#2.1', 4, 1, 'matmul'],
      ['relu[64x16]#3', 6, 1, 'elementwise/other'],
    ]);
  });
});

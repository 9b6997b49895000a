import { describe, expect, it } from 'vitest';
import { ratioChartSvg, stepTimeRatios } from './ratioChart.js';

const series = [
  { key: 'eager', label: 'PyTorch eager', color: '#e76f51' },
  { key: 'tfjs', label: 'TF.js', color: '#2a9d8f' },
];

describe('the step-time ratio chart', () => {
  it('puts ratios on a log axis around parity: 0.07× left of 1×, 13× right, equal distances for ×10 and ÷10', () => {
    const svg = ratioChartSvg([{ name: 'gpt', ratios: { eager: 0.1, tfjs: 10 } }], { title: 't', series });
    const bars = [...svg.matchAll(/<rect x="([\d.]+)" y="\d+" width="([\d.]+)" height="16" fill="#(e76f51|2a9d8f)"/g)].map((m) => ({ x: Number(m[1]), w: Number(m[2]) }));
    expect(bars).toHaveLength(2);
    const parity = Number(/<line x1="([\d.]+)"[^>]*stroke="#333"/.exec(svg)?.[1]);
    expect(bars[0].x + bars[0].w).toBeCloseTo(parity, 0); // slower: ends at parity
    expect(bars[1].x).toBeCloseTo(parity, 0); // faster: starts at parity
    expect(bars[0].w).toBeCloseTo(bars[1].w, 0);
    for (const t of ['0.1×', '1×', '10×']) expect(svg).toContain(`>${t}</text>`);
  });

  it('draws nothing for a ratio that was not measured: no bar, no n/a label', () => {
    const svg = ratioChartSvg([{ name: 'mlp', ratios: { eager: 5.96, tfjs: undefined } }], { title: 't', series });
    expect(svg).not.toMatch(/n\/a/);
    expect(svg).not.toMatch(/fill="#2a9d8f"><title>/);
    expect(svg).toContain('>5.96×</text>');
  });

  it("draws PyTorch's CUDA graphs beside eager and compiled where reference.py measured them", () => {
    const ours = { 'gpt-2x128': { synced: { medianMs: 4 } }, 'mlp-784': { synced: { medianMs: 1 } }, 'matmul-1024': {} };
    const torch = {
      'gpt-2x128': { eager: { medianMs: 8 }, compiled: { medianMs: 6 }, graphs: { medianMs: 2 }, best: 'graphs' },
      'mlp-784': { eager: { medianMs: 3 }, compiled: { medianMs: 4 } }, // no capture: no graphs bar
    };
    const { rows, series } = stepTimeRatios(ours, torch);
    expect(series.map((s) => s.key)).toEqual(['eager', 'compiled', 'graphs']);
    expect(rows).toEqual([
      { name: 'gpt-2x128', ratios: { eager: 2, compiled: 1.5, graphs: 0.5, tfjs: undefined } },
      { name: 'mlp-784', ratios: { eager: 3, compiled: 4, graphs: undefined, tfjs: undefined } },
    ]);
    const svg = ratioChartSvg(rows, { title: 't', series });
    expect(svg).toContain('>PyTorch CUDA graphs</text>');
    expect(svg.match(/<title>PyTorch CUDA graphs: /g)).toHaveLength(1);
    expect(svg).toContain('<title>PyTorch CUDA graphs: 0.50×</title>');
  });

  it('leaves a reference out of the legend when no workload has it', () => {
    const { series } = stepTimeRatios({ mlp: { synced: { medianMs: 1 } } }, { mlp: { eager: { medianMs: 2 } } }, { mlp: { synced: { medianMs: 5 } } });
    expect(series.map((s) => s.key)).toEqual(['eager', 'tfjs']);
  });
});

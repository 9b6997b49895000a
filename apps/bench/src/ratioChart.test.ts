import { describe, expect, it } from 'vitest';
import { ratioChartSvg } from './ratioChart.js';

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
});

import { describe, expect, it } from 'vitest';
import { lineChartSvg, niceTicks } from './lineChart.js';

describe('the demo line chart', () => {
  it('picks 1-2-5 ticks that cover the range', () => {
    expect(niceTicks(0, 2.31)).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    expect(niceTicks(0, 600, 6)).toEqual([0, 100, 200, 300, 400, 500, 600]);
    expect(niceTicks(0, 0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('draws axes with tick labels, both axis titles, a legend, and one path per non-empty series', () => {
    const svg = lineChartSvg(
      [
        { name: 'loss', color: '#e76f51', axis: 'left', points: [[1, 2.3], [50, 0.9], [100, 0.4]] },
        { name: 'accuracy', color: '#2a9d8f', axis: 'right', points: [[1, 0.1], [100, 0.9]] },
        { name: 'empty', color: '#000', axis: 'left', points: [] },
      ],
      { width: 600, height: 260, xTitle: 'step', leftTitle: 'loss', rightTitle: 'accuracy' },
    );
    expect(svg.match(/<path /g)).toHaveLength(2);
    for (const label of ['>0<', '>2.5<', '>100<', '>50%<', '>step<', '>loss<', '>accuracy<']) expect(svg).toContain(label);
    // the loss line ends lower on screen than it starts (y grows downwards) and accuracy rises
    const [loss, acc] = [...svg.matchAll(/<path d="M([\d.]+),([\d.]+).*?L([\d.]+),([\d.]+)"/g)].map((m) => m.slice(1).map(Number));
    expect(loss[3]).toBeGreaterThan(loss[1]);
    expect(acc[3]).toBeLessThan(acc[1]);
  });
});

// The demo page's DOM helpers shared by its two ways to train (MNIST in a worker, the GPT on the page): element
// lookup, the status line and the loss/accuracy chart. Touches the DOM; cheap per call.

import { lineChartSvg, type Series } from './lineChart.js';

/** The element of id `id`. */
export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Sets the status line. */
export const status = (s: string) => {
  $('status').textContent = s;
};

/** Exponential moving average of a series of [x, y] points. */
function smooth(points: readonly [number, number][], alpha: number): [number, number][] {
  let m = Number.NaN;
  return points.map(([x, y]) => [x, (m = Number.isNaN(m) ? y : m + alpha * (y - m))]);
}

/** Redraws the loss and accuracy chart. */
export function drawChart(losses: [number, number][], accs: [number, number][], total: number, accName: string): void {
  const series: Series[] = [
    { name: 'loss (per step)', color: '#e76f51', axis: 'left', points: losses, faint: true },
    { name: 'loss', color: '#e76f51', axis: 'left', points: smooth(losses, 0.1) },
    { name: accName, color: '#2a9d8f', axis: 'right', points: smooth(accs, 0.1) },
  ];
  $('chart').innerHTML = lineChartSvg(series, { width: 640, height: 300, xTitle: 'training step', leftTitle: 'cross-entropy loss', rightTitle: accName, xMax: total });
}

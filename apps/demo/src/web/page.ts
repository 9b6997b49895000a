// The demo page's DOM helpers shared by its two ways to train (MNIST in a worker, the GPT on the page): element
// lookup, the status line, the loss/accuracy chart and the test-digit grid. Touches the DOM; cheap per call.

import { argmaxRow } from '@neura/nn';
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

/** Draws 32 test digits (normalized images) with the model's guesses, red where wrong. */
export function drawDigits(canvas: HTMLCanvasElement, images: Float32Array, logits: ArrayLike<number>, labels: Int32Array): void {
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
  ctx.font = '13px system-ui';
  const cell = 44;
  // one ImageData for all 32 digits and a single putImageData: 32 small ones cost ~85 ms of main thread in
  // headless Chromium (web:check's long-task record), this a few ms
  const grid = ctx.createImageData(canvas.width, canvas.height);
  const px = new Uint32Array(grid.data.buffer);
  const le = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  for (let k = 0; k < 32; k++) {
    const x0 = (k % 8) * cell;
    const y0 = Math.floor(k / 8) * (cell + 16);
    for (let p = 0; p < 784; p++) {
      const v = Math.max(0, Math.min(255, Math.round((images[k * 784 + p] * 0.3081 + 0.1307) * 255)));
      const at = (y0 + Math.floor(p / 28)) * canvas.width + x0 + (p % 28);
      if (at < px.length) px[at] = le ? 0xff000000 | (v << 16) | (v << 8) | v : ((v << 24) | (v << 16) | (v << 8) | 0xff) >>> 0;
    }
  }
  ctx.putImageData(grid, 0, 0);
  for (let k = 0; k < 32; k++) {
    const x = (k % 8) * cell;
    const y = Math.floor(k / 8) * (cell + 16);
    const guess = argmaxRow(logits, k, 10);
    ctx.fillStyle = guess === labels[k] ? '#2a9d8f' : '#e76f51';
    ctx.fillText(`${guess}${guess === labels[k] ? '' : ` (${labels[k]})`}`, x + 4, y + 42);
  }
}

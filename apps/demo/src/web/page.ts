// The demo page's DOM helpers shared by its MNIST and GPT pages: element lookup, the status line, the loss/accuracy
// chart, and showing a panel a worker rendered a piece per task. Touches the DOM; cheap per call.

import { lineChartSvg, type Series } from './lineChart.js';
import type { PanelMessage } from './mnistMessages.js';

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

const panelQueue = new Map<string, Promise<void>>();
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * Shows a worker's panel: parsed in a template (no layout), then its top-level pieces appended one per task, so no
 * single task lays out the whole panel (the e-graph panel was a 130 ms long task in one piece); each
 * `<img data-image>` gets its PNG bytes as a blob URL (decoded off the main thread). Panels are shown in message order.
 */
export function showPanel(m: PanelMessage): Promise<void> {
  const before = panelQueue.get(m.panel) ?? Promise.resolve();
  const done = before.then(async () => {
    const t = document.createElement('template');
    t.innerHTML = m.html;
    for (const img of t.content.querySelectorAll<HTMLImageElement>('img[data-image]')) {
      const png = m.images?.[img.dataset.image ?? ''];
      if (png) img.src = URL.createObjectURL(new Blob([png], { type: 'image/png' }));
    }
    const el = $(m.panel);
    el.replaceChildren();
    for (const piece of [...t.content.childNodes]) {
      el.append(piece);
      await nextTask();
    }
  });
  panelQueue.set(m.panel, done);
  return done;
}

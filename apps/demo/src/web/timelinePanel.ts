// The profiler panel of the demo: one profiled training step (runtime-webgpu's `Session.profile`, GPU timestamps
// per dispatch) drawn as a timeline — one lane per kernel kind, each dispatch a bar at its GPU start and end — and
// the slowest kernels as a table. Pure: timings in, HTML/SVG out. Without `timestamp-query` the page says why.

import type { DispatchTiming, StepProfileSummary } from '@neura/runtime-webgpu';
import { esc, ms } from './html.js';

const COLORS = ['#264653', '#2a9d8f', '#e9c46a', '#f4a261', '#e76f51', '#8ab17d', '#6d597a', '#b56576', '#355070', '#0077b6'];

/** A dispatch's lane: its kernel's op (`fusedMatmul`, `pointwise`, ...) or the label's first word. */
export const laneOf = (t: DispatchTiming): string => t.kernel?.op ?? t.label.split(/[[\s(]/)[0];

/** The timeline as SVG: lanes by kernel kind, time axis in ms (relative to the first dispatch). */
export function timelineSvg(timings: readonly DispatchTiming[], width = 900): string {
  const lanes = [...new Set(timings.map(laneOf))];
  const end = Math.max(1, ...timings.map((t) => t.endNs));
  const left = 170;
  const laneH = 18;
  const top = 8;
  const h = top + lanes.length * laneH + 28;
  const X = (ns: number) => left + (ns / end) * (width - left - 10);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" font-family="system-ui, sans-serif" font-size="11">`];
  lanes.forEach((lane, i) => {
    const y = top + i * laneH;
    out.push(`<rect x="${left}" y="${y}" width="${width - left - 10}" height="${laneH - 2}" fill="${i % 2 ? '#fafafa' : '#f3f4f6'}"/>`);
    out.push(`<text x="${left - 6}" y="${y + 12}" text-anchor="end">${esc(lane)}</text>`);
  });
  for (const t of timings) {
    const i = lanes.indexOf(laneOf(t));
    const x = X(t.startNs);
    const w = Math.max(1, X(t.endNs) - x);
    const tip = `${t.label}${t.kernel ? ` — ${t.kernel.fused} ${t.kernel.shapes}` : ''}: ${ms((t.endNs - t.startNs) / 1e6)}`;
    out.push(`<rect x="${x.toFixed(1)}" y="${top + i * laneH + 2}" width="${w.toFixed(1)}" height="${laneH - 6}" fill="${COLORS[i % COLORS.length]}"><title>${esc(tip)}</title></rect>`);
  }
  const axisY = top + lanes.length * laneH + 12;
  for (let k = 0; k <= 4; k++) {
    const ns = (end * k) / 4;
    out.push(`<text x="${X(ns).toFixed(1)}" y="${axisY + 4}" text-anchor="middle">${ms(ns / 1e6)}</text>`);
  }
  out.push('</svg>');
  return out.join('');
}

/** The panel: summary line, timeline and the slowest `top` kernels. */
export function timelinePanelHtml(timings: readonly DispatchTiming[], summary: StepProfileSummary, top = 8): string {
  return [
    `<p class="big">${summary.dispatches} dispatches; GPU busy ${ms(summary.gpuMs)}, first dispatch to last ${ms(summary.spanMs)}</p>`,
    timelineSvg(timings),
    '<table class="kernels"><tr><th>kernel</th><th>fuses</th><th>shapes</th><th>dispatches</th><th>time</th><th>share</th><th>GFLOP/s</th></tr>',
    ...summary.rows
      .slice(0, top)
      .map(
        (r) =>
          `<tr><td>${esc(r.label)}</td><td><code>${esc(r.kernel?.fused ?? '')}</code></td><td>${esc(r.kernel?.shapes ?? '')}</td><td>${r.dispatches}</td><td>${ms(r.ms)}</td><td>${(r.share * 100).toFixed(1)}%</td><td>${r.gflops.toFixed(2)}</td></tr>`,
      ),
    '</table>',
  ].join('');
}

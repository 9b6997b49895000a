// The step-time ratio chart of results/README.md (reference time / neura time per workload) as SVG: a log-scale
// ratio axis centred on parity (1×), bars growing right when neura is faster and left when slower, so 0.07× and 13×
// are both readable. Pure (rows in, SVG text out). A ratio that was not measured gets no bar and no "n/a×" label.
// `stepTimeRatios` turns result files into those rows: one series per PyTorch mode measured (eager, compiled, CUDA
// graphs) and TF.js.

/** One workload: its name and, per reference, reference ms / neura ms (undefined when not measured). */
export interface RatioRow {
  readonly name: string;
  readonly ratios: Readonly<Record<string, number | undefined>>;
}

/** Chart options: the title, and the references in drawing order with their label and colour. */
export interface RatioChartOptions {
  readonly title: string;
  readonly series: readonly { readonly key: string; readonly label: string; readonly color: string }[];
}

/** A step time as the result files hold it. */
interface Timing {
  readonly medianMs: number;
}

/** The references of the chart in drawing order: PyTorch's modes (reference.py `--modes`), then TF.js. */
export const REFERENCE_SERIES = [
  { key: 'eager', label: 'PyTorch eager', color: '#e76f51' },
  { key: 'compiled', label: 'PyTorch compiled', color: '#f4a261' },
  { key: 'graphs', label: 'PyTorch CUDA graphs', color: '#9b5de5' },
  { key: 'tfjs', label: 'TF.js (WebGPU)', color: '#2a9d8f' },
] as const;

/**
 * Rows and series of the step-time chart: per training workload neura ran (synced), each reference's median over
 * neura's; a series is drawn only when some workload has it (PyTorch's CUDA graphs run only where capture works).
 */
export function stepTimeRatios(
  ours: Readonly<Record<string, { readonly synced?: Timing }>>,
  torch: Readonly<Record<string, Readonly<Record<string, Timing | string | undefined>>>>,
  tfjs?: Readonly<Record<string, { readonly synced?: Timing }>>,
): { rows: RatioRow[]; series: RatioChartOptions['series'] } {
  const rows: RatioRow[] = [];
  for (const [name, r] of Object.entries(ours)) {
    if (!/^(mlp|gpt|cnn)/.test(name) || !r.synced) continue;
    const us = r.synced.medianMs;
    const ref = (t: Timing | string | undefined) => (typeof t === 'object' && t.medianMs > 0 ? t.medianMs / us : undefined);
    const modes = torch[name] ?? {};
    rows.push({ name, ratios: { eager: ref(modes.eager), compiled: ref(modes.compiled), graphs: ref(modes.graphs), tfjs: ref(tfjs?.[name]?.synced) } });
  }
  const series = REFERENCE_SERIES.filter((s) => rows.some((r) => r.ratios[s.key] !== undefined));
  return { rows, series };
}

const TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100];
const fmt = (v: number) => (v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toPrecision(2));
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Renders the chart; the axis spans the measured ratios (at least 0.5× to 2×) rounded out to 1-2-5 ticks. */
export function ratioChartSvg(rows: readonly RatioRow[], opts: RatioChartOptions): string {
  const values = rows.flatMap((r) => Object.values(r.ratios)).filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0);
  const lo = [...TICKS].reverse().find((t) => t <= Math.min(0.5, ...values)) ?? TICKS[0];
  const hi = TICKS.find((t) => t >= Math.max(2, ...values)) ?? TICKS[TICKS.length - 1];
  const W = 900;
  const rowH = 22;
  const x0 = 230;
  const x1 = W - 110;
  const x = (v: number) => x0 + ((Math.log(Math.min(hi, Math.max(lo, v))) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * (x1 - x0);
  const top = 56;
  const groupH = opts.series.length * rowH + 12;
  const H = top + rows.length * groupH + 44;
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`];
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="10" y="20" font-size="14" font-weight="bold">${esc(opts.title)}</text>`);
  // legend
  let lx = x0;
  for (const s of opts.series) {
    out.push(`<rect x="${lx}" y="30" width="12" height="12" fill="${s.color}"/><text x="${lx + 16}" y="40">${esc(s.label)}</text>`);
    lx += 24 + s.label.length * 7;
  }
  // axis: gridlines and tick labels at 1-2-5 steps, parity emphasised
  const axisY = H - 30;
  for (const t of TICKS.filter((t) => t >= lo && t <= hi)) {
    const tx = x(t).toFixed(1);
    out.push(`<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${axisY}" stroke="${t === 1 ? '#333' : '#ddd'}"${t === 1 ? ' stroke-width="1.5"' : ''}/>`);
    out.push(`<text x="${tx}" y="${axisY + 14}" text-anchor="middle">${t}×</text>`);
  }
  out.push(`<text x="${x0}" y="${axisY + 28}">← neura slower</text>`, `<text x="${x1}" y="${axisY + 28}" text-anchor="end">neura faster →</text>`);
  let y = top;
  for (const r of rows) {
    out.push(`<text x="10" y="${y + rowH * (opts.series.length / 2) + 4}">${esc(r.name)}</text>`);
    for (const s of opts.series) {
      const v = r.ratios[s.key];
      if (v !== undefined && Number.isFinite(v) && v > 0) {
        const a = x(1);
        const b = x(v);
        out.push(`<rect x="${Math.min(a, b).toFixed(1)}" y="${y}" width="${Math.max(1, Math.abs(b - a)).toFixed(1)}" height="${rowH - 6}" fill="${s.color}"><title>${esc(s.label)}: ${fmt(v)}×</title></rect>`);
        const right = v >= 1;
        out.push(`<text x="${(right ? Math.max(a, b) + 4 : Math.min(a, b) - 4).toFixed(1)}" y="${y + rowH - 10}"${right ? '' : ' text-anchor="end"'}>${fmt(v)}×</text>`);
      }
      y += rowH;
    }
    y += 12;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

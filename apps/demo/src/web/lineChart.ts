// A line chart as SVG text, hand-written (no charting library): a linear x axis (training step), a left y axis
// (loss) and an optional right y axis (accuracy, 0–100 %), each with "nice" 1-2-5 ticks, gridlines, axis titles
// and a legend. Pure: series in, SVG string out (the page puts it in the DOM). Series may be empty or one point.

/** One line: its points [x, y], colour, legend name, which y axis it uses, and whether it is drawn faint. */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  readonly axis: 'left' | 'right';
  readonly faint?: boolean;
}

/** Size, axis titles and fixed ranges (the right axis defaults to 0..1 shown as %). */
export interface LineChartOptions {
  readonly width: number;
  readonly height: number;
  readonly xTitle: string;
  readonly leftTitle: string;
  readonly rightTitle?: string;
  /** The x range to draw (default: the data's, at least [0, 1]). */
  readonly xMax?: number;
}

/** Ticks at 1-2-5 steps covering [lo, hi] (the first at or below lo, the last at or above hi), about `count` of them. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  for (let i = first; i <= last; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}

const fmt = (v: number) => (Math.abs(v) >= 1000 ? `${v / 1000}k` : String(Number(v.toPrecision(3))));

/** Renders the chart. The left axis spans 0..(max of its series, rounded up to a tick); the right, 0..100 %. */
export function lineChartSvg(series: readonly Series[], o: LineChartOptions): string {
  const m = { l: 56, r: o.rightTitle ? 56 : 16, t: 28, b: 40 };
  const w = o.width - m.l - m.r;
  const h = o.height - m.t - m.b;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const xMax = o.xMax ?? Math.max(1, ...xs);
  const leftVals = series.filter((s) => s.axis === 'left').flatMap((s) => s.points.map((p) => p[1])).filter(Number.isFinite);
  const yTicks = niceTicks(0, Math.max(1e-6, ...leftVals), 5);
  const yMax = yTicks[yTicks.length - 1];
  const xTicks = niceTicks(0, xMax, 6).filter((t) => t <= xMax);
  const X = (v: number) => m.l + (v / xMax) * w;
  const YL = (v: number) => m.t + h - (v / yMax) * h;
  const YR = (v: number) => m.t + h - v * h;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${o.width} ${o.height}" width="${o.width}" height="${o.height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect x="${m.l}" y="${m.t}" width="${w}" height="${h}" fill="#fcfcfd" stroke="#ccc"/>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${m.l}" x2="${m.l + w}" y1="${YL(t).toFixed(1)}" y2="${YL(t).toFixed(1)}" stroke="#eee"/>`);
    out.push(`<text x="${m.l - 6}" y="${(YL(t) + 4).toFixed(1)}" text-anchor="end">${fmt(t)}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line x1="${X(t).toFixed(1)}" x2="${X(t).toFixed(1)}" y1="${m.t}" y2="${m.t + h}" stroke="#eee"/>`);
    out.push(`<text x="${X(t).toFixed(1)}" y="${m.t + h + 14}" text-anchor="middle">${fmt(t)}</text>`);
  }
  if (o.rightTitle)
    for (const t of [0, 0.25, 0.5, 0.75, 1]) out.push(`<text x="${m.l + w + 6}" y="${(YR(t) + 4).toFixed(1)}">${t * 100}%</text>`);
  out.push(`<text x="${m.l + w / 2}" y="${o.height - 6}" text-anchor="middle" fill="#555">${o.xTitle}</text>`);
  out.push(`<text transform="translate(14 ${m.t + h / 2}) rotate(-90)" text-anchor="middle" fill="#555">${o.leftTitle}</text>`);
  if (o.rightTitle) out.push(`<text transform="translate(${o.width - 10} ${m.t + h / 2}) rotate(90)" text-anchor="middle" fill="#555">${o.rightTitle}</text>`);
  let lx = m.l;
  for (const s of series) {
    const Y = s.axis === 'left' ? YL : YR;
    const pts = s.points.filter((p) => Number.isFinite(p[1]));
    if (pts.length > 0) {
      const d = pts.map((p, i) => `${i ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join('');
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.faint ? 1 : 2}"${s.faint ? ' stroke-opacity="0.35"' : ''}/>`);
    }
    if (s.faint) continue;
    out.push(`<rect x="${lx}" y="8" width="14" height="3" fill="${s.color}"/><text x="${lx + 18}" y="13">${s.name}</text>`);
    lx += 28 + s.name.length * 6;
  }
  out.push('</svg>');
  return out.join('');
}

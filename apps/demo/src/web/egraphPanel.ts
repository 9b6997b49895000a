// The e-graph panel of the demo: what the optimizer did to the whole training step (forward, backward, update) —
// dispatches and intermediate bytes before and after (the report's, in the headline and both columns), the kernel
// ops of both graphs side by side and drawn as kernel graphs (kernelGraph.ts), each named pass, the rules that fired, and every
// fused kernel with the rules that built it (from `OptimizeReport`). Pure: graphs and report in, HTML out.

import type { OptimizeReport } from '@neura/egraph';
import { type Graph, needsKernel } from '@neura/ir';
import { bytes, esc, ms } from './html.js';
import { kernelGraphSvg } from './kernelGraph.js';

/** Kernel ops of a graph's live nodes, counted by op, most frequent first. */
export function kernelOpCounts(graph: Graph): [string, number][] {
  const counts = new Map<string, number>();
  for (const id of graph.live()) {
    const op = graph.nodes[id].op;
    if (needsKernel(op)) counts.set(op, (counts.get(op) ?? 0) + 1); // ir's op facts: no leaves, aliases, picks
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function bars(rows: [string, number][], max: number, color: string): string {
  return rows
    .map(([op, n]) => `<div class="bar"><span class="lbl">${esc(op)}</span><span class="fill" style="width:${((n / max) * 100).toFixed(1)}%;background:${color}"></span><span class="n">${n}</span></div>`)
    .join('');
}

/** Fused kernels grouped by kind and rules (a GPT step has hundreds of Adam updates alike), largest group first. */
export function kernelGroups(report: OptimizeReport): { op: string; rules: readonly string[]; count: number; example: OptimizeReport['kernels'][number] }[] {
  const groups = new Map<string, { op: string; rules: readonly string[]; count: number; example: OptimizeReport['kernels'][number] }>();
  for (const k of report.kernels) {
    if (k.rules.length === 0) continue;
    const key = `${k.op}|${k.epilogue ?? ''}|${[...k.rules].sort().join(',')}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { op: k.op, rules: k.rules, count: 1, example: k });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

function topOps(rows: [string, number][], n: number): [string, number][] {
  if (rows.length <= n) return rows;
  return [...rows.slice(0, n - 1), [`${rows.length - n + 1} other ops`, rows.slice(n - 1).reduce((s, r) => s + r[1], 0)]];
}

/**
 * The panel's HTML: `before` is the whole step as handed to the optimizer (forward, backward, update; `builtStep`),
 * `after` the compiled one, `report` the compiled step's OptimizeReport. `figures` replaces the inline SVG kernel
 * graphs (e.g. with `kernelGraphFigure`'s image figures).
 */
export function egraphPanelHtml(before: Graph, after: Graph, report: OptimizeReport | undefined, maxRows = 14, figures?: { before: string; after: string }): string {
  if (!report) return '<p class="muted">The step was compiled without the e-graph optimizer (no report).</p>';
  const b = kernelOpCounts(before);
  const a = kernelOpCounts(after);
  const max = Math.max(1, ...b.map((r) => r[1]), ...a.map((r) => r[1]));
  const e = report.egraph;
  const hits = Object.entries(e.ruleHits).sort((x, y) => y[1] - x[1]);
  const groups = kernelGroups(report);
  const fused = groups.reduce((s, g) => s + g.count, 0);
  return [
    `<p class="big">${report.dispatchesBefore} → <b>${report.dispatchesAfter}</b> dispatches per step; intermediates ${bytes(report.bytesBefore)} → <b>${bytes(report.bytesAfter)}</b></p>`,
    `<p class="muted">e-graph: ${e.enodes} e-nodes, ${e.eclasses} e-classes, ${e.iterations} iterations (${esc(e.stopReason)}); optimize took ${ms(report.totalTimeMs)}. Passes: ${report.passes
      .map((p) => `${esc(p.name)} (${p.report.iterations} it, ${esc(p.report.stopReason)})`)
      .join(' → ')}</p>`,
    '<div class="cols">',
    // the report's figures head both columns; the bars count kernel nodes by op (a two-pass kernel is one node)
    `<div><h3>before: ${report.dispatchesBefore} dispatches, ${bytes(report.bytesBefore)} (whole step)</h3>${bars(topOps(b, 12), max, '#b8c4ce')}</div>`,
    `<div><h3>after: ${report.dispatchesAfter} dispatches, ${bytes(report.bytesAfter)}</h3>${bars(topOps(a, 12), max, '#2a9d8f')}</div>`,
    '</div>',
    // the kernel dataflow of both graphs, laid out by dagre (a GPT step has too many kernels to draw)
    `<div class="cols">${figures ? figures.before + figures.after : kernelGraphSvg(before, 'before') + kernelGraphSvg(after, 'after')}</div>`,
    `<h3>rules that fired</h3><p class="rules">${hits.map(([r, n]) => `<code>${esc(r)}</code>×${n}`).join(' ') || '<span class="muted">none</span>'}</p>`,
    `<h3>${fused} fused kernels in ${groups.length} kinds, and the rules that made them</h3>`,
    '<table class="kernels"><tr><th>kernels</th><th>kind</th><th>example (node, shape, what it fuses)</th><th>rules</th></tr>',
    ...groups.slice(0, maxRows).map((g) => {
      const k = g.example;
      const what = k.expr ?? k.epilogue ?? '';
      const short = what.length > 110 ? `${what.slice(0, 107)}…` : what;
      return `<tr><td>${g.count}×</td><td>${esc(g.op)}</td><td>%${k.node} [${k.shape.join('×')}] <code>${esc(short)}</code></td><td>${g.rules.map((r) => `<code>${esc(r)}</code>`).join(' ')}</td></tr>`;
    }),
    groups.length > maxRows ? `<tr><td colspan="4" class="muted">… ${groups.length - maxRows} more kinds</td></tr>` : '',
    '</table>',
  ].join('');
}

// The e-graph panel's picture: a step's kernels as a dataflow graph (an edge where a kernel reads another's result,
// through views and aliases), laid out top-down by dagre (`@dagrejs/dagre`) and drawn as SVG, or on an OffscreenCanvas
// as a PNG (what the demo's workers send: the page's main thread then only shows an image). No DOM.

import { type Edge, Graph as Layout, layout, type Point } from '@dagrejs/dagre';
import { type Graph, needsKernel } from '@neura/ir';
import { esc } from './html.js';

/** A step's kernel nodes (id and op) and the producer → consumer edges between them. */
export interface KernelDag {
  readonly kernels: readonly { readonly id: number; readonly op: string }[];
  readonly edges: readonly (readonly [number, number])[];
}

/** Kernel nodes of `graph`'s live part and which kernel results each reads (through non-kernel nodes). */
export function kernelDag(graph: Graph): KernelDag {
  const live = graph.live();
  const producers = new Map<number, number[]>(); // node → the kernels whose results it carries
  const kernels: { id: number; op: string }[] = [];
  const edges = new Set<string>();
  for (const id of live) {
    // live() is in creation order, and operands precede their users
    const n = graph.nodes[id];
    const from = [...new Set(n.inputs.flatMap((i) => producers.get(i) ?? []))];
    if (needsKernel(n.op)) {
      kernels.push({ id, op: n.op });
      for (const f of from) edges.add(`${f}>${id}`);
      producers.set(id, [id]);
    } else producers.set(id, from); // a view, alias or leaf passes its producers on
  }
  return { kernels, edges: [...edges].map((e) => e.split('>').map(Number) as [number, number]) };
}

/** Fill colour of a kernel box: fused kernels stand out from the plain ops they replace. */
function color(op: string): string {
  if (/^(fused|matmulEpilogue|softmaxCrossEntropy)/.test(op)) return '#2a9d8f';
  if (/^(pointwise|rowwise)/.test(op)) return '#8ecae6';
  if (op === 'matmul') return '#f4a261';
  return '#dfe5ea';
}

/** A laid-out kernel graph: a box per kernel (centre x, y) and a polyline per edge, in a `width` × `height` frame. */
export interface KernelLayout {
  readonly width: number;
  readonly height: number;
  readonly boxes: readonly { readonly id: number; readonly op: string; readonly x: number; readonly y: number; readonly width: number; readonly height: number }[];
  readonly edges: readonly (readonly Point[])[];
}

/** `graph`'s kernels laid out top to bottom by dagre, or the kernel count when it has more than `maxKernels`. */
export function kernelLayout(graph: Graph, maxKernels = 160): KernelLayout | { readonly tooMany: number } {
  const dag = kernelDag(graph);
  if (dag.kernels.length > maxKernels) return { tooMany: dag.kernels.length };
  const g = new Layout();
  g.setGraph({ rankdir: 'TB', nodesep: 8, ranksep: 18, marginx: 4, marginy: 4 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const k of dag.kernels) g.setNode(String(k.id), { label: k.op, width: Math.max(40, k.op.length * 6 + 10), height: 18 });
  for (const [a, b] of dag.edges) g.setEdge(String(a), String(b));
  layout(g);
  const { width = 0, height = 0 } = g.graph();
  const boxes = dag.kernels.map((k) => {
    const n = g.node(String(k.id));
    return { id: k.id, op: k.op, x: n.x, y: n.y, width: n.width, height: n.height };
  });
  return { width: Math.ceil(width), height: Math.ceil(height), boxes, edges: g.edges().map((e: Edge) => g.edge(e).points ?? []) };
}

const tooManyNote = (title: string, n: number, max: number) => `<p class="muted">${esc(title)}: ${n} kernels, too many to draw (over ${max}).</p>`;

/** An SVG of `graph`'s kernels laid out top to bottom, or a note when it has more than `maxKernels`. */
export function kernelGraphSvg(graph: Graph, title: string, maxKernels = 160): string {
  const l = kernelLayout(graph, maxKernels);
  if ('tooMany' in l) return tooManyNote(title, l.tooMany, maxKernels);
  const edges = l.edges.map(
    (pts) => `<polyline points="${pts.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}" fill="none" stroke="#9aa5b1" stroke-width="1" marker-end="url(#kg-arrow)"/>`,
  );
  const nodes = l.boxes.map((n) => {
    const x = n.x - n.width / 2;
    const y = n.y - n.height / 2;
    return `<g><title>%${n.id} ${esc(n.op)}</title><rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${n.width}" height="${n.height}" rx="3" fill="${color(n.op)}"/><text x="${n.x.toFixed(1)}" y="${(n.y + 4).toFixed(1)}" text-anchor="middle" font-size="10" font-family="ui-monospace, monospace">${esc(n.op)}</text></g>`;
  });
  return [
    `<figure class="kgraph"><figcaption>${esc(title)}: ${l.boxes.length} kernels</figcaption>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}" role="img" aria-label="${esc(title)}">`,
    '<defs><marker id="kg-arrow" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L6,3L0,6z" fill="#9aa5b1"/></marker></defs>',
    ...edges,
    ...nodes,
    '</svg></figure>',
  ].join('');
}

/** What `drawKernelGraph` draws with: the part of a canvas 2D context it uses. */
export type KernelCanvas = Pick<
  OffscreenCanvasRenderingContext2D,
  'fillStyle' | 'strokeStyle' | 'lineWidth' | 'font' | 'textAlign' | 'beginPath' | 'moveTo' | 'lineTo' | 'closePath' | 'stroke' | 'fill' | 'fillRect' | 'fillText' | 'scale'
>;

/** Draws a laid-out kernel graph (boxes, edges with arrow heads, op names) on a canvas at `scale` pixels per unit. */
export function drawKernelGraph(ctx: KernelCanvas, l: KernelLayout, scale = 1): void {
  ctx.scale(scale, scale);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, l.width, l.height);
  ctx.strokeStyle = '#9aa5b1';
  ctx.fillStyle = '#9aa5b1';
  ctx.lineWidth = 1;
  for (const pts of l.edges) {
    if (pts.length < 2) continue;
    ctx.beginPath();
    ctx.moveTo(pts[0].x, pts[0].y);
    for (const p of pts.slice(1)) ctx.lineTo(p.x, p.y);
    ctx.stroke();
    // the arrow head at the last point, along the last segment
    const [a, b] = [pts[pts.length - 2], pts[pts.length - 1]];
    const t = Math.atan2(b.y - a.y, b.x - a.x);
    ctx.beginPath();
    ctx.moveTo(b.x, b.y);
    ctx.lineTo(b.x - 6 * Math.cos(t - 0.45), b.y - 6 * Math.sin(t - 0.45));
    ctx.lineTo(b.x - 6 * Math.cos(t + 0.45), b.y - 6 * Math.sin(t + 0.45));
    ctx.closePath();
    ctx.fill();
  }
  ctx.font = '10px ui-monospace, monospace';
  ctx.textAlign = 'center';
  for (const n of l.boxes) {
    ctx.fillStyle = color(n.op);
    ctx.fillRect(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height);
    ctx.fillStyle = '#222222';
    ctx.fillText(n.op, n.x, n.y + 4);
  }
}

/**
 * `graph`'s kernel graph as a figure whose picture is a PNG drawn on an OffscreenCanvas here (in the worker): the
 * page only decodes an image (off its main thread) instead of laying out and painting an SVG of a hundred boxes.
 * The figure's `<img data-image="key">` gets its src from `image` on the page; a note and no image when too large.
 */
export async function kernelGraphFigure(graph: Graph, title: string, key: string, maxKernels = 160): Promise<{ html: string; image?: Blob }> {
  const l = kernelLayout(graph, maxKernels);
  if ('tooMany' in l) return { html: tooManyNote(title, l.tooMany, maxKernels) };
  const scale = 2; // sharp on high-DPI screens
  const canvas = new OffscreenCanvas(Math.max(1, l.width * scale), Math.max(1, l.height * scale));
  drawKernelGraph(canvas.getContext('2d') as OffscreenCanvasRenderingContext2D, l, scale);
  const image = await canvas.convertToBlob({ type: 'image/png' });
  const alt = `${title}: ${l.boxes.length} kernels, as a dataflow graph`;
  return {
    html: `<figure class="kgraph"><figcaption>${esc(title)}: ${l.boxes.length} kernels</figcaption><img data-image="${esc(key)}" width="${l.width}" height="${l.height}" decoding="async" alt="${esc(alt)}"></figure>`,
    image,
  };
}

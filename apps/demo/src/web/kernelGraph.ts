// The e-graph panel's picture: a step's kernels as a dataflow graph (an edge where a kernel reads another's result,
// through views and aliases), laid out top-down by dagre (`@dagrejs/dagre`) and drawn as SVG. Pure: graph in, SVG
// string out (runs in the worker; no DOM).

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

/** An SVG of `graph`'s kernels laid out top to bottom, or a note when it has more than `maxKernels`. */
export function kernelGraphSvg(graph: Graph, title: string, maxKernels = 160): string {
  const dag = kernelDag(graph);
  if (dag.kernels.length > maxKernels) return `<p class="muted">${esc(title)}: ${dag.kernels.length} kernels, too many to draw (over ${maxKernels}).</p>`;
  const g = new Layout();
  g.setGraph({ rankdir: 'TB', nodesep: 8, ranksep: 18, marginx: 4, marginy: 4 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const k of dag.kernels) g.setNode(String(k.id), { label: k.op, width: Math.max(40, k.op.length * 6 + 10), height: 18 });
  for (const [a, b] of dag.edges) g.setEdge(String(a), String(b));
  layout(g);
  const { width = 0, height = 0 } = g.graph();
  const edges = g.edges().map((e: Edge) => {
    const pts = g.edge(e).points ?? [];
    return `<polyline points="${pts.map((p: Point) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}" fill="none" stroke="#9aa5b1" stroke-width="1" marker-end="url(#kg-arrow)"/>`;
  });
  const nodes = dag.kernels.map((k) => {
    const n = g.node(String(k.id));
    const x = n.x - n.width / 2;
    const y = n.y - n.height / 2;
    return `<g><title>%${k.id} ${esc(k.op)}</title><rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${n.width}" height="${n.height}" rx="3" fill="${color(k.op)}"/><text x="${n.x.toFixed(1)}" y="${(n.y + 4).toFixed(1)}" text-anchor="middle" font-size="10" font-family="ui-monospace, monospace">${esc(k.op)}</text></g>`;
  });
  return [
    `<figure class="kgraph"><figcaption>${esc(title)}: ${dag.kernels.length} kernels</figcaption>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(width)}" height="${Math.ceil(height)}" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" role="img" aria-label="${esc(title)}">`,
    '<defs><marker id="kg-arrow" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L6,3L0,6z" fill="#9aa5b1"/></marker></defs>',
    ...edges,
    ...nodes,
    '</svg></figure>',
  ].join('');
}

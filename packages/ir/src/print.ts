// Human-readable printing, JSON round-trip and DOT export of graphs. JSON keeps node ids, so a parsed graph
// is structurally identical to the original (same ids, ops, attrs, outputs and updates).

import { Graph, type Node } from './graph.js';
import type { OpKind } from './ops.js';
import { fmtPwExpr } from './pointwiseExpr.js';

function fmtAttrs(n: Node): string {
  if (n.op === 'pointwise') return `{${fmtPwExpr((n.attrs as { expr: never }).expr)}}`;
  if (n.op === 'pointwiseMulti') return `{${(n as Node<'pointwiseMulti'>).attrs.exprs.map((e) => fmtPwExpr(e)).join('; ')}}`;
  const s = JSON.stringify(n.attrs);
  return s === '{}' ? '' : s;
}

/** One line per live node: `%3 = matmul(%1, %2) {"transA":false,...} : [32, 10] f32`. */
export function printGraph(g: Graph): string {
  const lines: string[] = [];
  for (const id of g.live()) {
    const n = g.nodes[id];
    lines.push(`%${id} = ${n.op}(${n.inputs.map((i) => `%${i}`).join(', ')}) ${fmtAttrs(n)} : [${n.shape.join(', ')}] ${n.dtype}`);
  }
  for (const [name, id] of g.outputs) lines.push(`output ${name} = %${id}`);
  for (const u of g.updates) lines.push(`update %${u.state} <- %${u.value}`);
  return lines.join('\n');
}

/** Serialised form of a graph. */
export interface GraphJson {
  nodes: { op: OpKind; inputs: number[]; attrs: unknown; shape: number[]; dtype: string }[];
  outputs: [string, number][];
  updates: { state: number; value: number }[];
}

/** Serialises a graph to plain JSON. */
export function graphToJson(g: Graph): GraphJson {
  return {
    nodes: g.nodes.map((n) => ({ op: n.op, inputs: [...n.inputs], attrs: n.attrs, shape: [...n.shape], dtype: n.dtype })),
    outputs: [...g.outputs],
    updates: g.updates.map((u) => ({ ...u })),
  };
}

/** Rebuilds a graph from JSON, re-checking every node's type. */
export function graphFromJson(j: GraphJson): Graph {
  const g = new Graph();
  const map: number[] = [];
  for (const n of j.nodes) {
    const leaf = n.inputs.length === 0 ? { shape: n.shape, dtype: n.dtype as Node['dtype'] } : undefined;
    map.push(g.node(n.op, n.inputs.map((i) => map[i]), n.attrs as never, leaf).id);
  }
  for (const [name, id] of j.outputs) g.outputs.set(name, map[id]);
  for (const u of j.updates) g.updates.push({ state: map[u.state], value: map[u.value] });
  return g;
}

/** Graphviz DOT of the live part of a graph. */
export function graphToDot(g: Graph): string {
  const lines = ['digraph neura {', '  node [shape=box, fontname="monospace"];'];
  for (const id of g.live()) {
    const n = g.nodes[id];
    const label = `${n.op}${n.op === 'input' || n.op === 'param' || n.op === 'state' ? ` ${(n.attrs as { name: string }).name}` : ''}\\n[${n.shape.join(',')}] ${n.dtype}`;
    lines.push(`  n${id} [label="${label}"];`);
    for (const i of n.inputs) lines.push(`  n${i} -> n${id};`);
  }
  lines.push('}');
  return lines.join('\n');
}

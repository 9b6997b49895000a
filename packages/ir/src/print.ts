// Human-readable printing, JSON round-trip and DOT export of graphs. JSON keeps node ids, so a parsed graph
// is structurally identical to the original (same ids, ops, attrs, outputs and updates). Invariant: the JSON
// survives `JSON.stringify`: numbers JSON cannot write (NaN, ±Infinity, -0) travel as `{ "$number": "NaN" }`.

import { Graph, type Node } from './graph.js';
import { GraphError } from './graphError.js';
import type { Init, OpAttrs, OpKind } from './ops.js';
import { fmtPwExpr } from './pointwiseExpr.js';

/** `post(reduce[axes](expr))` of a `pointwiseReduce`, e.g. `(neg $0) ∘ sum[1](mul $0 $1)`. */
export function fmtPointwiseReduce(a: OpAttrs['pointwiseReduce']): string {
  const red = `${a.reduce}[${a.axes.join(',')}${a.keepdims ? ',keep' : ''}](${fmtPwExpr(a.expr)})`;
  return a.post.op === 'in' ? red : `${fmtPwExpr(a.post)} ∘ ${red}`;
}

/** The stats of a `rowwise` then its expression, e.g. `s0 = mean($0); s1 = (rsqrt $0) ∘ mean(square (sub $0 $1)) ⇒ (mul …)`. */
export function fmtRowwise(a: OpAttrs['rowwise']): string {
  const stats = a.stats.map((s, k) => `s${k} = ${s.post.op === 'in' ? '' : `${fmtPwExpr(s.post)} ∘ `}${s.reduce}(${fmtPwExpr(s.expr)})`);
  return `${stats.join('; ')} ⇒ ${fmtPwExpr(a.expr)}`;
}

function fmtAttrs(n: Node): string {
  if (n.op === 'pointwise') return `{${fmtPwExpr(n.attrs.expr)}}`;
  if (n.op === 'pointwiseMulti') return `{${n.attrs.exprs.map((e) => fmtPwExpr(e)).join('; ')}}`;
  if (n.op === 'pointwiseMultiTensor') return `{${n.attrs.exprs.map((e) => fmtPwExpr(e)).join('; ')}} x ${n.attrs.shapes.length} groups${n.attrs.partials ? `, role ${n.attrs.partials.role} summed over split-K partials [${n.attrs.partials.splits}]` : ''}`;
  if (n.op === 'pointwiseReduce') return `{${fmtPointwiseReduce(n.attrs)}}`;
  if (n.op === 'pointwiseReduceMulti') return `{${n.attrs.results.map((r) => fmtPointwiseReduce({ ...n.attrs, ...r })).join('; ')}}`;
  if (n.op === 'rowwise') return `{${fmtRowwise(n.attrs)}}`;
  if (n.op === 'rowwiseMulti') return `{${n.attrs.exprs.map((expr) => fmtRowwise({ expr, stats: n.attrs.stats })).join(' ; ')}}`;
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
  /** Every node as op, operand ids, attributes, shape and dtype, in id order. */
  nodes: { op: OpKind; inputs: number[]; attrs: unknown; shape: number[]; dtype: string }[];
  /** Named outputs as [name, node id] pairs. */
  outputs: [string, number][];
  /** State updates as state leaf id and value node id. */
  updates: { state: number; value: number }[];
}

/** Serialises a graph to plain JSON. */
export function graphToJson(g: Graph): GraphJson {
  return {
    nodes: g.nodes.map((n) => ({ op: n.op, inputs: [...n.inputs], attrs: encodeNumbers(n.attrs), shape: [...n.shape], dtype: n.dtype })),
    outputs: [...g.outputs],
    updates: g.updates.map((u) => ({ ...u })),
  };
}

/**
 * Rebuilds a graph from JSON, re-checking every node's type. Named leaves go through the builder's `input`/`param`/
 * `state`, so the rebuilt graph finds them by name (`byName`) and refuses a name used twice, as the original did.
 */
export function graphFromJson(j: GraphJson): Graph {
  const g = new Graph();
  const map: number[] = [];
  for (const n of j.nodes) {
    const dtype = n.dtype as Node['dtype'];
    // attributes read from JSON: untyped until the builder infers the node's type from them (and throws if they are wrong)
    const attrs = decodeNumbers(n.attrs) as never;
    map.push(namedLeaf(g, n.op, attrs, n.shape, dtype) ?? g.node(n.op, n.inputs.map((i) => map[i]), attrs, n.inputs.length === 0 ? { shape: n.shape, dtype } : undefined).id);
  }
  for (const [name, id] of j.outputs) g.outputs.set(name, map[id]);
  for (const u of j.updates) g.updates.push({ state: map[u.state], value: map[u.value] });
  return g;
}

/** Builds an input, param or state leaf by name (undefined for any other op). */
function namedLeaf(g: Graph, op: OpKind, attrs: { name: string; init: Init }, shape: number[], dtype: Node['dtype']): number | undefined {
  if (op === 'input') return g.input(attrs.name, shape, dtype).id;
  if (op === 'state') return g.state(attrs.name, shape, attrs.init, dtype).id;
  if (op !== 'param') return undefined;
  if (dtype !== 'f32') throw new GraphError(`param '${attrs.name}': dtype ${dtype} in JSON, but params are f32`, 'param');
  return g.param(attrs.name, shape, attrs.init).id;
}

const isSpecial = (v: number) => !Number.isFinite(v) || Object.is(v, -0);

/** A deep copy of attrs with every number JSON cannot write replaced by `{ $number: String(v) }`. */
function encodeNumbers(v: unknown): unknown {
  if (typeof v === 'number') return isSpecial(v) ? { $number: Object.is(v, -0) ? '-0' : String(v) } : v;
  if (Array.isArray(v)) return v.map(encodeNumbers);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeNumbers(x)]));
  return v;
}

/** Inverse of `encodeNumbers`. */
function decodeNumbers(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodeNumbers);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === '$number' && typeof o.$number === 'string') return Number(o.$number);
    return Object.fromEntries(keys.map((k) => [k, decodeNumbers(o[k])]));
  }
  return v;
}

/** Graphviz DOT of the live part of a graph. */
export function graphToDot(g: Graph): string {
  const lines = ['digraph neura {', '  node [shape=box, fontname="monospace"];'];
  for (const id of g.live()) {
    const n = g.nodes[id];
    const label = `${n.op}${n.op === 'input' || n.op === 'param' || n.op === 'state' ? ` ${n.attrs.name}` : ''}\\n[${n.shape.join(',')}] ${n.dtype}`;
    lines.push(`  n${id} [label="${label}"];`);
    for (const i of n.inputs) lines.push(`  n${i} -> n${id};`);
  }
  lines.push('}');
  return lines.join('\n');
}

// Weight-only quantization of a forward graph for inference (`compileInference(…, { weights: 'q8_0' | 'q4_0' })`,
// `compileGenerator(…, { weights })`): every 2-D parameter used only as a matmul's weight (a Linear's [in, out], or
// [out, in] read transposed) becomes two state leaves `<name>.<format>.qs` (int8 4 per i32, or 4-bit 8 per i32) and
// `<name>.<format>.d` (f16 scales, 2 per i32) read by ir's `matmulQ8` / `matmulQ4`; f32 weights given by their usual
// names are quantized on the host as they are loaded. A parameter used any other way (a tied embedding) stays f32.

import { type Graph, Graph as GraphClass, GraphError, type Init, initialValue, isOp, type Node, type NodeId, quantizeQ4_0, quantizeQ8_0, type TensorValue } from '@neura/ir';

/** Weight formats of `compileInference`'s `weights` option. */
export type WeightFormat = 'f32' | QuantFormat;

/** The quantized weight formats: GGUF's Q8_0 (int8 blocks of 32) and Q4_0 (4-bit blocks of 32). */
export type QuantFormat = 'q8_0' | 'q4_0';

const FORMATS: readonly QuantFormat[] = ['q8_0', 'q4_0'];

/** A parameter the graph reads quantized: its f32 type and its layout. */
export interface QuantizedWeight {
  /** [K, N] (a Linear's weight) or [N, K] when `transposed` (read as matmul's transB). */
  readonly shape: readonly [number, number];
  /** Stored [N, K] (PyTorch's and GGUF's layout) rather than [K, N]. */
  readonly transposed: boolean;
  /** The parameter's initializer, quantized when no value is given. */
  readonly init: Init;
  /** How it is stored: Q8_0 (read by `matmulQ8`) or Q4_0 (`matmulQ4`). */
  readonly format: QuantFormat;
}

/** The names of a quantized weight's two state leaves. */
export interface QuantNames {
  /** The packed values (`<name>.<format>.qs`). */
  readonly qs: string;
  /** The per-block f16 scales (`<name>.<format>.d`). */
  readonly d: string;
}

/** The names of a Q8_0 weight's state leaves (see `QuantNames`). */
export type Q8Names = QuantNames;

/** The state leaves of a quantized weight `name` in `format`: packed values and scales. */
export function quantNames(name: string, format: QuantFormat): QuantNames {
  return { qs: `${name}.${format}.qs`, d: `${name}.${format}.d` };
}

/** The state leaves of a Q8_0 weight `name`: packed int8 and scales. */
export function q8Names(name: string): Q8Names {
  return quantNames(name, 'q8_0');
}

/**
 * The parameters of `graph` that `quantizeGraph` would quantize (to `format`, Q8_0 by default): 2-D f32 params whose
 * every use is a matmul's weight operand.
 */
export function quantizableWeights(graph: Graph, format: QuantFormat = 'q8_0'): Map<string, QuantizedWeight> {
  const live = graph.live();
  const users = new Map<NodeId, Node[]>();
  for (const id of live) for (const i of graph.nodes[id].inputs) users.set(i, [...(users.get(i) ?? []), graph.nodes[id]]);
  const outputs = new Set(graph.outputs.values());
  const updated = new Set(graph.updates.map((u) => u.state));
  const out = new Map<string, QuantizedWeight>();
  for (const id of live) {
    const p = graph.nodes[id];
    if (!isOp(p, 'param') || p.shape.length !== 2 || p.dtype !== 'f32' || outputs.has(id) || updated.has(id)) continue;
    const uses = users.get(id) ?? [];
    const asWeight = (u: Node) => isOp(u, 'matmul') && !u.attrs.transA && u.inputs[1] === id && u.inputs[0] !== id;
    if (uses.length === 0 || !uses.every(asWeight)) continue;
    const transposed = uses.map((u) => isOp(u, 'matmul') && u.attrs.transB);
    if (transposed.some((t) => t !== transposed[0])) continue; // read both ways: one packed layout cannot serve both
    out.set(p.attrs.name, { shape: [p.shape[0], p.shape[1]], transposed: transposed[0], init: p.attrs.init, format });
  }
  return out;
}

/**
 * The weights read quantized under `format` (none for f32 or unset). An unknown format, or q8_0/q4_0 on a graph with no
 * weight it applies to, is a GraphError: the model would otherwise run f32 without a word.
 */
export function weightsFor(graph: Graph, format: WeightFormat | undefined): Map<string, QuantizedWeight> {
  if (format === undefined || format === 'f32') return new Map();
  if (!FORMATS.includes(format)) throw new GraphError(`weights must be 'f32', 'q8_0' or 'q4_0', got '${String(format)}'`, 'matmulQ8');
  const found = quantizableWeights(graph, format);
  if (found.size === 0) throw new GraphError(`weights: '${format}' found no weight to quantize (a 2-D f32 param whose every use is a matmul's right operand, read one way)`, format === 'q4_0' ? 'matmulQ4' : 'matmulQ8');
  return found;
}

/**
 * A copy of `graph` (outputs and updates kept) in which each weight of `weights` is read through `matmulQ8` (Q8_0)
 * or `matmulQ4` (Q4_0) from its state leaves (see `quantNames`) instead of as an f32 parameter.
 */
export function quantizeGraph(graph: Graph, weights: ReadonlyMap<string, QuantizedWeight>): Graph {
  const g = new GraphClass({ recordSites: false });
  const map = new Map<NodeId, Node>();
  const packed = new Map<string, [Node, Node]>();
  const leavesOf = (name: string, w: QuantizedWeight): [Node, Node] => {
    let l = packed.get(name);
    if (!l) {
      const [k, n] = w.transposed ? [w.shape[1], w.shape[0]] : w.shape;
      const blocks = Math.ceil(k / 32);
      const names = quantNames(name, w.format);
      const words = w.format === 'q4_0' ? blocks * 4 : blocks * 8; // 32 weights in 16 or 32 bytes
      l = [g.state(names.qs, [n, words], { kind: 'zeros' }, 'i32'), g.state(names.d, [n, Math.ceil(blocks / 2)], { kind: 'zeros' }, 'i32')];
      packed.set(name, l);
    }
    return l;
  };
  const live = new Set(graph.live());
  for (const node of graph.nodes) {
    if (!live.has(node.id)) continue;
    const m = (id: NodeId) => map.get(id) as Node;
    let v: Node;
    if (isOp(node, 'param')) {
      if (weights.has(node.attrs.name)) continue; // read only through its matmuls, rebuilt below
      v = g.param(node.attrs.name, node.shape, node.attrs.init);
    } else if (isOp(node, 'state')) v = g.state(node.attrs.name, node.shape, node.attrs.init, node.dtype);
    else if (isOp(node, 'input')) v = g.input(node.attrs.name, node.shape, node.dtype);
    else if (node.op === 'const') v = g.node('const', [], node.attrs, { shape: node.shape, dtype: node.dtype });
    else {
      const b = graph.nodes[node.inputs[1]];
      const name = isOp(node, 'matmul') && b && isOp(b, 'param') ? b.attrs.name : undefined;
      const w = name === undefined ? undefined : weights.get(name);
      if (name !== undefined && w) {
        const [qs, d] = leavesOf(name, w);
        v = w.format === 'q4_0' ? g.matmulQ4(m(node.inputs[0]), qs, d) : g.matmulQ8(m(node.inputs[0]), qs, d);
      } else v = g.node(node.op, node.inputs.map(m), node.attrs as never);
    }
    map.set(node.id, v);
  }
  for (const [name, id] of graph.outputs) g.output(name, map.get(id) as Node);
  for (const u of graph.updates) g.update(map.get(u.state) as Node, map.get(u.value) as Node);
  return g;
}

/**
 * `values` with every f32 weight of `weights` replaced by its quantized leaves (values already packed pass through);
 * with `initialize`, weights not given are quantized from their initializers, so the model starts where its f32
 * form does.
 */
export function quantizeStateDict(values: Readonly<Record<string, TensorValue>>, weights: ReadonlyMap<string, QuantizedWeight>, initialize = false): Record<string, TensorValue> {
  const out: Record<string, TensorValue> = { ...values };
  for (const [name, w] of weights) {
    const given = values[name];
    if (!given && !initialize) continue;
    const value = given ?? initialValue(w.init, w.shape, 'f32', name);
    if (value.shape.length !== 2 || value.shape[0] !== w.shape[0] || value.shape[1] !== w.shape[1])
      throw new GraphError(`quantize '${name}': expected [${w.shape.join(', ')}], got [${value.shape.join(', ')}]`, w.format === 'q4_0' ? 'matmulQ4' : 'matmulQ8');
    const { q, d } = (w.format === 'q4_0' ? quantizeQ4_0 : quantizeQ8_0)(value, { transposed: w.transposed });
    const names = quantNames(name, w.format);
    delete out[name];
    out[names.qs] = q;
    out[names.d] = d;
  }
  return out;
}

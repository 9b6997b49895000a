// `optimize(graph)`: the tensor optimizer's pipeline. The ir graph becomes an e-graph (one class per node), the
// rule sets run to saturation or a limit, the DAG-aware extractor picks the cheapest kernels under the cost
// model from every output and update, and a fresh ir Graph is rebuilt in topological order. Must not fuse
// anything by hand: the result holds exactly what extraction chose. Invariant: the result is a valid ir Graph
// with the same output names, the same leaves (by name) and the same state updates.

import type { Graph as GraphT, Node, NodeId } from '@neura/ir';
import { Graph } from '@neura/ir';
import type { DagExtractorOptions, EGraph as EGraphT, ENode, Extraction, Id, Report } from '../core/index.js';
import { BackoffScheduler, DagExtractor, EGraph, reachableClasses, Runner } from '../core/index.js';
import type { CostOptions } from './costModel.js';
import { tensorCost } from './costModel.js';
import { OptimizeReport, debugLevel, egraphToDot, graphFigures, kernelsOf, writeDebug } from './report.js';
import { algebraRules } from './rules/algebra.js';
import { backwardRules } from './rules/backward.js';
import { fusionRules } from './rules/fusion.js';
import { layoutRules } from './rules/layout.js';
import type { TensorRewrite } from './rules/ruleKit.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { TensorAnalysis } from './tensorAnalysis.js';
import { fromENode, toENode } from './tensorLanguage.js';

/** The named rule sets. */
export const RULE_SETS = {
  algebra: algebraRules,
  layout: layoutRules,
  fusion: fusionRules,
  backward: backwardRules,
} as const satisfies Record<string, readonly TensorRewrite[]>;

/** Name of a rule set. */
export type RuleSetName = keyof typeof RULE_SETS;

/** Every tensor rule, in set order (algebra, layout, fusion, backward). */
export const allRules: readonly TensorRewrite[] = [...algebraRules, ...layoutRules, ...fusionRules, ...backwardRules];

/** Options of `optimize`. */
export interface OptimizeOptions {
  /** Rule sets to run (default: all); ignored when `rules` is given. */
  readonly ruleSets?: readonly RuleSetName[];
  /** Exact rules to run (e.g. one rule, for soundness tests). */
  readonly rules?: readonly TensorRewrite[];
  /** Runner limits: iterations (default 30), e-nodes (default 20 000), time in ms (default 3 000). */
  readonly iterLimit?: number;
  readonly nodeLimit?: number;
  readonly timeLimitMs?: number;
  /** Cost model figures and WebGPU limits. */
  readonly cost?: CostOptions;
  /** Most distinct inputs of a fused pointwise kernel (default: storage buffers per stage − 1, i.e. 7). */
  readonly maxPointwiseInputs?: number;
  /** Settings of the DAG extractor. */
  readonly extract?: DagExtractorOptions;
}

/** The result of `optimize`. */
export interface OptimizeResult {
  readonly graph: GraphT;
  readonly report: OptimizeReport;
}

/** An ir graph loaded into an e-graph: the class of each live node, and the roots extraction starts from. */
export interface LoadedGraph {
  readonly egraph: EGraphT<TensorInfo>;
  readonly classOf: ReadonlyMap<NodeId, Id>;
  readonly roots: readonly Id[];
}

const isNamedLeaf = (n: Node) => n.op === 'input' || n.op === 'param' || n.op === 'state';

/** Adds every live node of `graph` to a fresh tensor e-graph; roots are outputs, updates and leaves. */
export function graphToEGraph(graph: GraphT, analysis: TensorAnalysis = new TensorAnalysis()): LoadedGraph {
  const egraph = new EGraph<TensorInfo>(analysis);
  const classOf = new Map<NodeId, Id>();
  const live = graph.live();
  for (const id of live) {
    const n = graph.nodes[id];
    classOf.set(id, egraph.add(toENode(n, n.inputs.map((i) => classOf.get(i) as Id))));
  }
  const rootIds = [
    ...graph.outputs.values(),
    ...graph.updates.flatMap((u) => [u.value, u.state]),
    ...live.filter((id) => isNamedLeaf(graph.nodes[id])),
  ];
  return { egraph, classOf, roots: [...new Set(rootIds.map((id) => classOf.get(id) as Id))] };
}

/**
 * Rebuilds an ir Graph from an extraction: classes in topological order through `Graph.node` (so shape
 * inference re-checks every node), leaves by name, then the original's outputs and updates.
 * Returns the graph and, for each new node, the class it came from.
 */
export function egraphToGraph(
  loaded: LoadedGraph,
  extraction: Extraction,
  original: GraphT,
): { graph: GraphT; classOfNode: Map<NodeId, Id> } {
  const { egraph, classOf } = loaded;
  const find = (id: Id) => egraph.find(id);
  const choices = new Map(extraction.choices);
  // a class holding an original leaf is that leaf (its name is the contract with feeds, state and updates)
  const leafNode = new Map<Id, Node>();
  for (const id of original.live()) {
    const n = original.nodes[id];
    if (isNamedLeaf(n)) {
      const cls = find(classOf.get(id) as Id);
      leafNode.set(cls, n);
      const chosen = egraph.eclass(cls).nodes.find((e) => e.op === n.op && (e.data as { name?: string }).name === (n.attrs as { name: string }).name);
      if (chosen) choices.set(cls, chosen);
    }
  }
  const roots = loaded.roots.map(find);
  const order = reachableClasses(choices, roots, find);
  if (!order) throw new Error('optimize: the extracted choice has a cycle or misses a class (a bug in extraction)');
  const g = new Graph();
  const built = new Map<Id, Node>();
  const classOfNode = new Map<NodeId, Id>();
  for (const cls of order) {
    const leaf = leafNode.get(cls);
    let node: Node;
    if (leaf) {
      const name = (leaf.attrs as { name: string }).name;
      if (leaf.op === 'input') node = g.input(name, leaf.shape, leaf.dtype);
      else if (leaf.op === 'param') node = g.param(name, leaf.shape, (leaf.attrs as { init: never }).init);
      else node = g.state(name, leaf.shape, (leaf.attrs as { init: never }).init, leaf.dtype);
    } else {
      const e = choices.get(cls) as ENode;
      const ir = fromENode(e);
      node = g.node(
        ir.op,
        e.children.map((c) => built.get(find(c)) as Node),
        ir.attrs,
        ir.leafType,
      );
    }
    built.set(cls, node);
    classOfNode.set(node.id, cls);
  }
  const nodeOf = (id: NodeId) => built.get(find(classOf.get(id) as Id)) as Node;
  for (const [name, id] of original.outputs) g.output(name, nodeOf(id));
  for (const u of original.updates) g.update(nodeOf(u.state), nodeOf(u.value));
  return { graph: g, classOfNode };
}

/** The rules selected by the options. */
function selectRules(options: OptimizeOptions): readonly TensorRewrite[] {
  if (options.rules) return options.rules;
  const sets = options.ruleSets ?? (Object.keys(RULE_SETS) as RuleSetName[]);
  return sets.flatMap((s) => RULE_SETS[s]);
}

/**
 * Optimizes a graph by equality saturation: returns a new graph of fused kernels computing the same outputs
 * and updates, and a report (e-graph figures, stop reason, rule hits, dispatches and bytes before/after).
 */
export function optimize(graph: GraphT, options: OptimizeOptions = {}): OptimizeResult {
  const start = now();
  const maxInputs = options.maxPointwiseInputs ?? Math.max(1, (options.cost?.maxStorageBuffersPerShaderStage ?? 8) - 1);
  const analysis = new TensorAnalysis({ maxPointwiseInputs: maxInputs });
  const loaded = graphToEGraph(graph, analysis);
  const { egraph } = loaded;
  analysis.markRoots([...graph.outputs.values(), ...graph.updates.map((u) => u.value)].map((id) => loaded.classOf.get(id) as Id));
  const rules = selectRules(options);
  const scheduler = new BackoffScheduler({ matchLimit: Math.max(1000, 8 * graph.nodes.length) });
  const runner = new Runner(egraph, {
    iterLimit: options.iterLimit ?? 30,
    nodeLimit: options.nodeLimit ?? 20_000,
    timeLimitMs: options.timeLimitMs ?? 3_000,
    scheduler,
  });
  for (const r of loaded.roots) runner.addRoot(r);
  const run: Report = runner.run(rules);
  const cost = tensorCost(egraph, options.cost);
  const t0 = now();
  const extraction = new DagExtractor(egraph, cost, { improvePasses: 2, maxEvaluations: 4000, ...options.extract }).extract(loaded.roots);
  if (debugLevel() >= 4) writeDebug(`extraction ${Math.round(now() - t0)} ms`);
  const { graph: out, classOfNode } = egraphToGraph(loaded, extraction, graph);
  const level = debugLevel();
  const report = new OptimizeReport({
    run,
    before: graphFigures(graph),
    after: graphFigures(out),
    kernels: kernelsOf(out, (id) => {
      const cls = classOfNode.get(id) as Id;
      return analysis.rulesOf(egraph, cls, extraction.choices.get(egraph.find(cls)) as ENode);
    }),
    cost: extraction.cost,
    totalTimeMs: now() - start,
    dot: level >= 3 ? egraphToDot(egraph, extraction) : undefined,
  });
  if (level >= 1) writeDebug(level >= 2 ? report.format() : report.summary());
  if (level >= 3 && report.dot) writeDebug(report.dot);
  return { graph: out, report };
}

const perf = (globalThis as { performance?: { now(): number } }).performance;
const now = (): number => (perf ? perf.now() : Date.now());

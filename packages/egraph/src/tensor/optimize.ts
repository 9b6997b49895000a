// `optimize(graph)`: the tensor optimizer's pipeline. The ir graph becomes an e-graph (one class per node), named
// bounded passes (`simplify`: algebra, layout, backward; then `fuse`) run to saturation or a limit, each with its
// own report, the DAG-aware extractor picks the cheapest kernels under the cost
// model from every output and update, and a fresh ir Graph is rebuilt in topological order. Must not fuse
// anything by hand: the result holds exactly what extraction chose. Invariant: the result is a valid ir Graph
// with the same output names, the same leaves (by name) and the same state updates.
//
// One optimization, after grad (a design decision; DESIGN.md's data flow showed a forward pass optimized before
// `grad` too). `optimize` runs once, on the whole step: forward, backward and update. Optimizing the forward pass
// first would hide from the e-graph the values the backward pass reuses (a fused forward chain no longer
// materialises the activation its VJP reads, so it is recomputed or the fusion is undone), would need a VJP for
// every fused op (kept, tested, never run), and would spend optimize time twice. Every fusion a forward-first
// pass could find is an alternative in the whole-step e-graph too, chosen by the same cost model. So fused ops
// have no VJP (`@neura/autograd` refuses to differentiate them, by name) and callers differentiate primitives.

import type { Graph as GraphT, KernelLimits, NamedLeafOp, Node, NodeId, OpKind } from '@neura/ir';
import { DEFAULT_KERNEL_LIMITS, Graph } from '@neura/ir';
import type { DagExtraction, DagExtractorOptions, EGraph as EGraphT, ENode, Extraction, Id, Report } from '../core/index.js';
import { BackoffScheduler, EGraph, ExtractionError, reachableClasses, RuleError, Runner } from '../core/index.js';
import type { CostOptions } from './costModel.js';
import { costDefaults, tensorCost } from './costModel.js';
import { DEFAULT_FUSION_WIDTH, deviceFusionWidth } from './fusionWidth.js';
import { type MemoryFit, OptimizeReport, debugLevel, egraphToDot, graphFigures, kernelsOf, writeDebug } from './report.js';
import { algebraRules } from './rules/algebra.js';
import { attentionDeltaRules } from './rules/attentionDelta.js';
import { attentionGradKVRules } from './rules/attentionGradKV.js';
import { attentionGradQKVRules } from './rules/attentionGradQKV.js';
import { attentionLayoutRules } from './rules/attentionLayout.js';
import { attentionLseRules } from './rules/attentionLse.js';
import { attentionWindowRules } from './rules/attentionWindow.js';
import { backwardRules } from './rules/backward.js';
import { fusionRules } from './rules/fusion.js';
import { layoutRules } from './rules/layout.js';
import { castLayoutRules } from './rules/castLayout.js';
import { castOperandRules } from './rules/castOperand.js';
import { castReduceRules } from './rules/castReduce.js';
import { multiTensorUpdateRules } from './rules/multiTensorUpdate.js';
import { multiUpdateRules } from './rules/multiUpdate.js';
import { matmulEpilogueRules } from './rules/matmulEpilogue.js';
import { reduceFusionRules } from './rules/reduceFusion.js';
import { reduceMultiRules } from './rules/reduceMulti.js';
import { rowwiseFusionRules } from './rules/rowwiseFusion.js';
import { rowwiseMultiRules } from './rules/rowwiseMulti.js';
import { splitKFoldRules } from './rules/splitKFold.js';
import type { TensorRewrite } from './rules/ruleKit.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { TensorAnalysis } from './tensorAnalysis.js';
import { withKernelBoundaries } from './kernelBoundaries.js';
import { extractAndPack, PACKERS, type Packer } from './pack/index.js';
import { fitMemoryBudget, type StepEnds } from './memoryFit.js';
import { recomputeRules } from './recompute.js';
import { enodeAttrs, fromENode, toENode } from './tensorLanguage.js';

/** The named rule sets. */
export const RULE_SETS = {
  /** Algebraic simplification: identities, constant folding and scalar-factor reassociation. */
  algebra: algebraRules,
  /** Layout rewrites: transposes folded into matmul flags, transpose/reshape chains collapsed, no-op reshapes removed, casts moved through layout. */
  layout: [...layoutRules, ...castLayoutRules],
  /** Elementwise, reduction and matmul-epilogue fusion into pointwise kernels. */
  fusion: [...fusionRules, ...reduceFusionRules, ...matmulEpilogueRules, ...castOperandRules, ...castReduceRules],
  /** Row-local fusion: a pointwise node reading its rows' statistics (layer norm, softmax) becomes one `rowwise` kernel. */
  rows: rowwiseFusionRules,
  /** The gradient forms autograd emits, rewritten to fused backward ops. */
  backward: backwardRules,
  /** Optimizer updates fused into one multi-result or multi-tensor kernel. */
  update: [...multiUpdateRules, ...multiTensorUpdateRules],
  /** Attention: log-sum-exp reuse, fused K/V gradients and Δ from the output. */
  attention: [...attentionLseRules, ...attentionGradKVRules, ...attentionDeltaRules],
  /** Attention in sequence-major layout (no head-split transposes). */
  attentionLayout: attentionLayoutRules,
  /** Attention reading head windows of a fused QKV projection in place. */
  attentionInPlace: [...attentionWindowRules, ...attentionGradQKVRules],
  /** Several reductions over one input in one kernel. */
  reduceMulti: reduceMultiRules,
  /** Several row-wise ops over one input in one kernel. */
  rowMulti: rowwiseMultiRules,
  /** Split-K weight gradients folded into the multi-tensor update that reads them. */
  fold: splitKFoldRules,
  // not in the default passes: `memoryBudget` offers its alternatives edge by edge (memoryFit.ts)
  /** Recompute-instead-of-store alternatives (used by `memoryBudget` only). */
  recompute: recomputeRules,
} as const satisfies Record<string, readonly TensorRewrite[]>;

/** Name of a rule set. */
export type RuleSetName = keyof typeof RULE_SETS;

/**
 * Every rule optimize can run, derived from `RULE_SETS` in set order (each rule once): a new set's rules join
 * automatically. The recognition rules are not among them (`recognizeRules`; `allRules` lists both).
 */
export const optimizeRules: readonly TensorRewrite[] = [...new Set<TensorRewrite>(Object.values(RULE_SETS).flat())];

/** A named, bounded equality-saturation pass: the rule sets it runs and its own limits. */
export interface PassSpec {
  /** Name of the pass, as in reports. */
  readonly name: string;
  /** The rule sets it runs. */
  readonly ruleSets: readonly RuleSetName[];
  /** Cap of this pass (the run's totals cap it further). Passes are bounded by iterations and e-nodes, never by time. */
  readonly iterLimit?: number;
  /**
   * Runs again, after the schedule, at the device's fusion width when that is wider than WebGPU's default (see
   * `DEFAULT_FUSION_WIDTH`); the schedule itself runs at the default width.
   */
  readonly widens?: boolean;
}

/**
 * The default schedule: canonicalise first (algebra, layout and the backward forms, on primitives, to
 * saturation), then fuse. Fusion rules multiply pointwise variants; running the cheap simplifications to a
 * fixpoint first means fusion sees one canonical graph instead of re-fusing every rewritten spelling.
 */
export const DEFAULT_PASSES: readonly PassSpec[] = [
  { name: 'simplify', ruleSets: ['algebra', 'layout', 'attentionLayout', 'backward'], iterLimit: 12 },
  // on a device with more storage buffers, again at its width once the schedule is done (`DEFAULT_FUSION_WIDTH`)
  { name: 'fuse', ruleSets: ['fusion'], iterLimit: 30, widens: true },
  // once every pointwise and reduction variant exists: a pointwise node reading statistics of its rows becomes
  // one row-local kernel (in the fuse pass it fired on each variant as it appeared, before the reductions it
  // reads had their fused forms: 2 351 applications)
  { name: 'rows', ruleSets: ['rows'], iterLimit: 1 },
  // on the fused expressions: state updates sharing an operand, and an attention with its backward's
  // log-sum-exp, and its key and value gradients, become multi-result kernels
  { name: 'group', ruleSets: ['update', 'attention'], iterLimit: 2 },
  // on the multi-tensor updates: weight gradients of split-K matmuls read as their partials, summed by the update
  { name: 'fold', ruleSets: ['fold'], iterLimit: 1 },
  // on the grouped attention kernels: q, k and v read as head windows of the fused QKV projection (no slice copies)
  // and dq, dk, dv written into one result (no concat); the second iteration windows the joined gradients
  { name: 'inPlace', ruleSets: ['attentionInPlace'], iterLimit: 2 },
  // sibling column reductions (a layer norm's dγ and dβ) and sibling row kernels (its x̂ and y) become
  // multi-result kernels
  { name: 'siblings', ruleSets: ['reduceMulti', 'rowMulti'], iterLimit: 1 },
];

/** Options of `optimize`. */
export interface OptimizeOptions {
  /** Rule sets to run in one pass (default: the `passes` schedule); ignored when `rules` is given. */
  readonly ruleSets?: readonly RuleSetName[];
  /** Exact rules to run in one pass (e.g. one rule, for soundness tests). */
  readonly rules?: readonly TensorRewrite[];
  /** The pass schedule when neither `rules` nor `ruleSets` is given (default `DEFAULT_PASSES`). */
  readonly passes?: readonly PassSpec[];
  /** Rules left out of every pass, by name (e.g. a measured candidate without `update-multi-tensor`). */
  readonly withoutRules?: readonly string[];
  /** Packers whose moves are left out of the pack stage, by name (`PACKERS`; their kernels keep their prices). */
  readonly withoutPackers?: readonly string[];
  /**
   * Totals over all passes: iterations (default 40) and e-nodes (default 50 000). These bounds are deterministic:
   * the same graph gives the same plan on an idle and on a loaded machine.
   */
  readonly iterLimit?: number;
  /** Most e-nodes over all passes (default 50 000). */
  readonly nodeLimit?: number;
  /**
   * A wall-clock cap over all passes in ms (default none). Opt-in only: a time cut makes the plan depend on the
   * machine's load; the report's stop reason says when it cut a pass.
   */
  readonly timeLimitMs?: number;
  /** Cost model figures (dispatch cost, bandwidth, throughput). */
  readonly cost?: CostOptions;
  /**
   * The device's limits (e.g. a `NeuraDevice`'s `caps`): kernels over them are illegal, so extraction never
   * picks what `compile` would refuse. Default: WebGPU's default limits.
   */
  readonly limits?: KernelLimits;
  /**
   * Most distinct inputs of a fused pointwise, row or epilogue kernel the fusion rules build (default: the limits'
   * storage buffers per stage − 1, at most `MAX_DEFAULT_POINTWISE_INPUTS`). Above `DEFAULT_FUSION_WIDTH`, the default
   * schedule fuses at that width first, then again at this one. Grouped optimizer updates may bind up to the limits'
   * storage buffers.
   */
  readonly maxPointwiseInputs?: number;
  /**
   * Bytes the step may allocate on the device (ir's estimate of the runtime's memory plan: persistent and transient
   * buffers, without split-K scratch). A plan over it gets a memory-aware schedule, then recomputations of forward
   * values in the backward (recompute-versus-store alternatives, memoryFit.ts) until it fits, else a
   * MemoryBudgetError names the budget and the smallest plan found. Unset (default): nothing of it runs.
   */
  readonly memoryBudget?: number;
  /** Settings of the DAG extractor. */
  readonly extract?: DagExtractorOptions;
  /**
   * Ops with a user-registered kernel (`registeredKernelOps()` of `@neura/wgsl-kernels`): fusion boundaries, kept
   * as their own nodes so that the user's generator runs (see kernelBoundaries.ts). Default: none.
   */
  readonly customKernelOps?: Iterable<OpKind>;
}

/** The result of `optimize`. */
export interface OptimizeResult {
  /** The optimized graph (same outputs and updates as the input). */
  readonly graph: GraphT;
  /** What the optimizer did. */
  readonly report: OptimizeReport;
}

/** An ir graph loaded into an e-graph: the class of each live node, and the roots extraction starts from. */
export interface LoadedGraph {
  /** The e-graph holding the graph's nodes. */
  readonly egraph: EGraphT<TensorInfo>;
  /** The e-class of each live node. */
  readonly classOf: ReadonlyMap<NodeId, Id>;
  /** The classes of the graph's outputs and update values. */
  readonly roots: readonly Id[];
}

const isNamedLeaf = (n: Node): n is Node<NamedLeafOp> => n.op === 'input' || n.op === 'param' || n.op === 'state';

/**
 * Adds every live node of `graph` to a fresh tensor e-graph; roots are outputs, updates and leaves. The
 * analysis learns the roots and the state updates (the fusion rules read them).
 */
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
  // what the fusion rules read: classes materialised anyway (outputs, update values) and the update pairs
  analysis.markRoots([...graph.outputs.values(), ...graph.updates.map((u) => u.value)].map((id) => classOf.get(id) as Id));
  analysis.markUpdates(graph.updates.map((u) => [classOf.get(u.state) as Id, classOf.get(u.value) as Id] as const));
  return { egraph, classOf, roots: [...new Set(rootIds.map((id) => classOf.get(id) as Id))] };
}

/**
 * Rebuilds an ir Graph from an extraction: classes in topological order (depth-first from the roots, or
 * `classOrder`) through `Graph.node` (so shape inference re-checks every node), leaves by name, then the
 * original's outputs and updates.
 * Returns the graph and, for each new node, the class it came from.
 */
export function egraphToGraph(
  loaded: LoadedGraph,
  extraction: Extraction,
  original: GraphT,
  classOrder?: readonly Id[],
): { graph: GraphT; classOfNode: Map<NodeId, Id> } {
  const { egraph, classOf } = loaded;
  const find = (id: Id) => egraph.find(id);
  const choices = new Map(extraction.choices);
  // a class holding an original leaf is that leaf (its name is the contract with feeds, state and updates)
  const leafNode = new Map<Id, Node<NamedLeafOp>>();
  for (const id of original.live()) {
    const n = original.nodes[id];
    if (isNamedLeaf(n)) {
      const cls = find(classOf.get(id) as Id);
      leafNode.set(cls, n);
      const chosen = egraph.eclass(cls).nodes.find((e) => e.op === n.op && enodeAttrs(e, n.op).name === n.attrs.name);
      if (chosen) choices.set(cls, chosen);
    }
  }
  const roots = loaded.roots.map(find);
  // a given order (memoryFit's schedule) must be topological: the rebuild below fails on a missing operand
  const order = classOrder ?? reachableClasses(choices, roots, find);
  if (!order) throw new ExtractionError('optimize: the extracted choice has a cycle or misses a class (a bug in extraction)');
  const g = new Graph({ recordSites: false }); // the optimizer's nodes have no user call site worth a trace
  const built = new Map<Id, Node>();
  const classOfNode = new Map<NodeId, Id>();
  for (const cls of order) {
    const leaf = leafNode.get(cls);
    let node: Node;
    if (leaf) {
      if (leaf.op === 'input') node = g.input(leaf.attrs.name, leaf.shape, leaf.dtype);
      else if (leaf.op === 'param') node = g.param(leaf.attrs.name, leaf.shape, leaf.attrs.init);
      else node = g.state(leaf.attrs.name, leaf.shape, leaf.attrs.init, leaf.dtype);
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

/** The passes selected by the options, each with its rules. */
function selectPasses(options: OptimizeOptions): { name: string; rules: readonly TensorRewrite[]; spec?: PassSpec }[] {
  const without = new Set(options.withoutRules ?? []);
  for (const name of without)
    if (!optimizeRules.some((r) => r.name === name)) throw new RuleError(`optimize: withoutRules names '${name}', which is not a rule (${optimizeRules.map((r) => r.name).join(', ')})`);
  const keep = (rules: readonly TensorRewrite[]) => rules.filter((r) => !without.has(r.name));
  if (options.rules) return [{ name: 'rules', rules: keep(options.rules) }];
  if (options.ruleSets) return [{ name: options.ruleSets.join('+'), rules: keep(options.ruleSets.flatMap((s) => RULE_SETS[s])) }];
  return (options.passes ?? DEFAULT_PASSES).map((p) => ({ name: p.name, rules: keep(p.ruleSets.flatMap((s) => RULE_SETS[s])), spec: p }));
}

/** The packers of the pack stage, less those named (each name checked). */
function selectPackers(without: readonly string[] = []): readonly Packer[] {
  for (const name of without)
    if (!PACKERS.some((p) => p.name === name)) throw new RuleError(`optimize: withoutPackers names '${name}', which is not a packer (${PACKERS.map((p) => p.name).join(', ')})`);
  return PACKERS.filter((p) => !without.includes(p.name));
}

/** A memory budget in bytes, checked. */
function checkedBudget(budget: number): number {
  if (!(typeof budget === 'number' && budget > 0 && Number.isFinite(budget))) throw new RangeError(`optimize: memoryBudget must be a positive, finite number of bytes, got ${budget}`);
  return budget;
}

/** The step's leaves, roots, outputs and update values as classes (what the memory estimate holds fixed). */
function stepEnds(loaded: LoadedGraph, original: GraphT): StepEnds {
  const cls = (id: NodeId) => loaded.classOf.get(id) as Id;
  return {
    leaves: original.live().flatMap((id) => (isNamedLeaf(original.nodes[id]) ? [[cls(id), original.nodes[id].op] as const] : [])),
    roots: loaded.roots,
    outputs: [...original.outputs.values()].map(cls),
    inPlace: original.updates.map((u) => cls(u.value)),
  };
}

/** A pass's name and its runner report. */
export interface PassReport {
  /** Name of the pass. */
  readonly name: string;
  /** The runner's report of the pass. */
  readonly report: Report;
}

/**
 * Runs the passes in order over one e-graph, sharing the totals (iterations, e-nodes, and the opt-in time cap); a
 * pass with no budget left stops at once with the limit that ran out.
 */
function runPasses(
  loaded: LoadedGraph,
  passes: readonly { name: string; rules: readonly TensorRewrite[]; spec?: PassSpec; before?: () => void }[],
  options: OptimizeOptions,
  matchLimit: number,
): PassReport[] {
  const iterTotal = options.iterLimit ?? 40;
  const timeTotal = options.timeLimitMs ?? Number.POSITIVE_INFINITY;
  const start = now();
  let iterations = 0;
  const out: PassReport[] = [];
  for (const p of passes) {
    p.before?.();
    const runner = new Runner(loaded.egraph, {
      iterLimit: Math.max(0, Math.min(p.spec?.iterLimit ?? Number.POSITIVE_INFINITY, iterTotal - iterations)),
      nodeLimit: options.nodeLimit ?? 50_000,
      timeLimitMs: Math.max(0, timeTotal - (now() - start)),
      scheduler: new BackoffScheduler({ matchLimit }),
    });
    for (const r of loaded.roots) runner.addRoot(r);
    const report = runner.run(p.rules);
    iterations += report.iterations;
    out.push({ name: p.name, report });
    if (debugLevel() >= 4) writeDebug(`pass ${p.name}: ${report.iterations} iterations (${report.stopReason}), ${report.egraphNodes} e-nodes, ${Math.round(report.totalTimeMs)} ms`);
  }
  return out;
}

/**
 * The passes' reports as one runner report: counts and times summed, logs concatenated; the stop reason is
 * the first that is not saturation (a limit that cut a pass short), else `saturated`.
 */
function combineReports(passes: readonly PassReport[]): Report {
  const matched: Record<string, number> = {};
  const applied: Record<string, number> = {};
  for (const { report } of passes) {
    for (const [k, v] of Object.entries(report.matched)) matched[k] = (matched[k] ?? 0) + v;
    for (const [k, v] of Object.entries(report.applied)) applied[k] = (applied[k] ?? 0) + v;
  }
  const cut = passes.find((p) => p.report.stopReason !== 'saturated');
  const last = passes[passes.length - 1].report;
  const sum = (f: (r: Report) => number) => passes.reduce((s, p) => s + f(p.report), 0);
  return {
    stopReason: cut ? cut.report.stopReason : 'saturated',
    stopMessage: passes.map((p) => `${p.name}: ${p.report.stopMessage}`).join('; '),
    iterations: sum((r) => r.iterations),
    egraphNodes: last.egraphNodes,
    egraphClasses: last.egraphClasses,
    matched,
    applied,
    totalTimeMs: sum((r) => r.totalTimeMs),
    searchTimeMs: sum((r) => r.searchTimeMs),
    applyTimeMs: sum((r) => r.applyTimeMs),
    rebuildTimeMs: sum((r) => r.rebuildTimeMs),
    iterationLog: passes.flatMap((p) => p.report.iterationLog),
  };
}


/**
 * Optimizes a graph by equality saturation: returns a new graph of fused kernels computing the same outputs
 * and updates, and a report (e-graph figures, stop reason, rule hits, dispatches and bytes before/after).
 * The input graph is not changed. `compileTraining` and `compileInference` call it for you.
 *
 * @example
 * ```ts
 * const { graph: fused, report } = optimize(step);   // step: a Graph (forward, backward and updates)
 * console.log(report.summary());                      // e-graph size, dispatches and bytes before → after
 * const session = await compile(fused, device);
 * ```
 */
export function optimize(graph: GraphT, options: OptimizeOptions = {}): OptimizeResult {
  const start = now();
  const budget = options.memoryBudget === undefined ? undefined : checkedBudget(options.memoryBudget);
  const limits = options.limits ?? DEFAULT_KERNEL_LIMITS;
  const maxInputs = options.maxPointwiseInputs ?? deviceFusionWidth(limits);
  // an optimizer update grouped with its moments binds them all: the device's limit, not the fusion width
  const maxBindings = Math.max(maxInputs + 1, limits.maxStorageBuffersPerShaderStage);
  const selected = selectPasses(options);
  const widening = maxInputs > DEFAULT_FUSION_WIDTH && selected.some((p) => p.spec?.widens);
  const analysis = new TensorAnalysis({ maxPointwiseInputs: widening ? DEFAULT_FUSION_WIDTH : maxInputs, maxBindings, maxBindingBytes: limits.maxStorageBufferBindingSize });
  const loaded = graphToEGraph(graph, analysis);
  const loadMs = now() - start;
  const { egraph } = loaded;
  // at a wider device's width: the `widens` passes again, after the whole schedule (`DEFAULT_FUSION_WIDTH`)
  const wide = widening ? selected.filter((p) => p.spec?.widens).map((p, i) => ({ ...p, name: `${p.name}-wide`, before: i === 0 ? () => analysis.widen(maxInputs) : undefined })) : [];
  const passes = runPasses(loaded, [...selected, ...wide], options, Math.max(1000, 8 * graph.nodes.length));
  const run = combineReports(passes);
  const boundaries = new Set(options.customKernelOps ?? []);
  const cost = withKernelBoundaries(tensorCost(egraph, costDefaults(options.cost, limits)), egraph, boundaries);
  const t0 = now();
  // bounded by moves tried, not by time: the plan must not depend on the machine's load
  let extraction: DagExtraction = extractAndPack(egraph, cost, loaded.roots, { improvePasses: 2, maxEvaluations: 20_000, ...options.extract }, selectPackers(options.withoutPackers));
  let order: Id[] | undefined;
  let memory: MemoryFit | undefined;
  if (budget !== undefined) {
    const fitted = fitMemoryBudget(egraph, extraction.choices, stepEnds(loaded, graph), cost, budget);
    memory = fitted.fit;
    if (fitted.choices) extraction = { ...extraction, choices: fitted.choices };
    order = fitted.order;
  }
  const extractMs = now() - t0;
  if (debugLevel() >= 4) writeDebug(`extraction ${Math.round(extractMs)} ms`);
  analysis.settle(egraph);
  const t1 = now();
  const { graph: out, classOfNode } = egraphToGraph(loaded, extraction, graph, order);
  const rebuildGraphMs = now() - t1;
  const level = debugLevel();
  const report = new OptimizeReport({
    run,
    passes,
    phases: { loadMs, runMs: run.totalTimeMs, extractMs, rebuildGraphMs },
    before: graphFigures(graph),
    after: graphFigures(out),
    kernels: kernelsOf(out, (id) => {
      const cls = classOfNode.get(id) as Id;
      return analysis.rulesOf(egraph, cls, extraction.choices.get(egraph.find(cls)) as ENode);
    }),
    cost: extraction.cost,
    search: extraction.search,
    totalTimeMs: now() - start,
    dot: level >= 3 ? egraphToDot(egraph, extraction) : undefined,
    customKernelOps: [...boundaries].sort(),
    memory,
  });
  if (level >= 1) writeDebug(level >= 2 ? report.format() : report.summary());
  if (level >= 3 && report.dot) writeDebug(report.dot);
  return { graph: out, report };
}

const perf = (globalThis as { performance?: { now(): number } }).performance;
const now = (): number => (perf ? perf.now() : Date.now());

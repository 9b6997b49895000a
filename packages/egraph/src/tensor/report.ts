// The optimizer's report: e-graph figures (size, iterations, stop reason, rule hits), dispatches and bytes of
// intermediate traffic before and after, and each fused kernel with the rules that made it; `NEURA_DEBUG`
// output and a DOT dump of the e-graph. Must not change graphs or e-graphs. Invariant: figures of a graph count
// only its live nodes.

import type { Graph, NodeId, Shape } from '@neura/ir';
import { FUSED_OPS, fmtPointwiseReduce, fmtPwExpr, fmtRowwise, fmtShape, isOp, kernelDispatches, kernelOutputs, resultType } from '@neura/ir';
import type { DagExtraction, EGraph, Extraction, Report } from '../core/index.js';
import { formatOp } from '../core/index.js';
import { isKernelOp, tensorBytes } from './costModel.js';
import type { TensorInfo } from './tensorAnalysis.js';
import { pointwiseExprOf, tensorLanguage } from './tensorLanguage.js';

/** Kernel count and intermediate bytes of a graph. */
export interface GraphFigures {
  /** Dispatches of the nodes needing a kernel (everything but input/param/state/const/reshape; see kernelDispatches). */
  readonly dispatches: number;
  /** Sum of the output bytes of kernel nodes. */
  readonly bytes: number;
  /** Live nodes. */
  readonly nodes: number;
}

/** A fused kernel of the optimized graph and the rules whose rewrites built it. */
export interface FusedKernel {
  /** Id of the kernel's node in the optimized graph. */
  readonly node: NodeId;
  /** The kernel's op (`pointwise`, `fusedMatmul`, …). */
  readonly op: string;
  /** The kernel's output shape. */
  readonly shape: Shape;
  /** Number of distinct operands. */
  readonly inputs: number;
  /** The pointwise expression, for `pointwise` kernels (`post ∘ reduce[axes](prologue)` for `pointwiseReduce`). */
  readonly expr?: string;
  /** The epilogue, for `fusedMatmul` kernels (e.g. `bias+relu`), `matmulEpilogue` and quantized matmul ones (its expression, `$0` the product). */
  readonly epilogue?: string;
  /** The registered name, for `custom` kernels (user ops run as their own kernel). */
  readonly custom?: string;
  /** Rules whose rewrites built it (by name). */
  readonly rules: readonly string[];
}

/** E-graph figures of the run. */
export interface EGraphFigures {
  /** E-nodes at the end of the run. */
  readonly enodes: number;
  /** E-classes at the end of the run. */
  readonly eclasses: number;
  /** Iterations, over all passes. */
  readonly iterations: number;
  /** Why the (last) pass stopped. */
  readonly stopReason: Report['stopReason'];
  /** A line naming the limit that stopped it, or a hook's message. */
  readonly stopMessage: string;
  /** Milliseconds of equality saturation. */
  readonly timeMs: number;
  /** Unions that changed the e-graph, per rule (rules that never fired are left out). */
  readonly ruleHits: Readonly<Record<string, number>>;
}

/** Counts the dispatches (two for a split reduction or split-K matmul) and intermediate bytes of a graph's live nodes. */
export function graphFigures(graph: Graph): GraphFigures {
  let dispatches = 0;
  let bytes = 0;
  const live = graph.live();
  for (const id of live) {
    const n = graph.nodes[id];
    if (!isKernelOp(n.op)) continue;
    const ins = n.inputs.map((i) => graph.nodes[i]);
    dispatches += kernelDispatches(n.op, { attrs: n.attrs, ins, out: n });
    for (let r = 0; r < kernelOutputs(n); r++) bytes += tensorBytes(resultType(n, n, r));
  }
  return { dispatches, bytes, nodes: live.length };
}

/** Attention ops, listed among the fused kernels when they run seq-major (their head split/merge folded in) or compute Δ. */
const ATTENTION_OPS: readonly string[] = ['attention', 'attentionLse', 'attentionWithLse', 'attentionGrad', 'attentionGradKV', 'attentionGradQKV'];

/** The fused kernels of a graph with their rules (`rulesOf` gives the rules of a node). */
export function kernelsOf(graph: Graph, rulesOf: (id: NodeId) => readonly string[]): FusedKernel[] {
  const out: FusedKernel[] = [];
  for (const id of graph.live()) {
    const n = graph.nodes[id];
    const a = n.attrs as { seqMajor?: boolean; deltaFromOut?: boolean; window?: { heads: number; offsets: number[] } };
    const seqMajor = ATTENTION_OPS.includes(n.op) && a.seqMajor === true;
    const window = ATTENTION_OPS.includes(n.op) ? a.window : undefined;
    const deltaFromOut = ATTENTION_OPS.includes(n.op) && a.deltaFromOut === true;
    const quantEpilogue = isOp(n, 'matmulQ8', 'matmulQ4') ? n.attrs.expr : undefined; // a quantized matmul with its epilogue
    if ((!FUSED_OPS.includes(n.op) && n.op !== 'custom' && !seqMajor && !deltaFromOut && !quantEpilogue) || n.op === 'pick') continue;
    const base = { node: id, op: n.op, shape: n.shape, inputs: n.inputs.length, rules: rulesOf(id) };
    const forms = [
      ...(seqMajor ? ['seq-major [..., T, H, D] (head split/merge folded)'] : []),
      ...(n.op === 'attentionGradQKV' ? ['dq, dk, dv written into one [..., T, 3H, D] (concat folded)'] : []),
      ...(window ? [`q, k, v read in place as head windows at [${window.offsets.join(', ')}] (QKV slices folded)`] : []),
      ...(deltaFromOut ? ['Δ = rowsum(dOut ⊙ out) computed in the kernel'] : []),
    ];
    if (forms.length > 0) out.push({ ...base, expr: forms.join('; ') });
    else if (n.op === 'pointwise') out.push({ ...base, expr: fmtPwExpr(n.attrs.expr) });
    else if (n.op === 'pointwiseMulti') out.push({ ...base, expr: n.attrs.exprs.map((e) => fmtPwExpr(e)).join(' ; ') }); // one kernel, several results
    else if (n.op === 'pointwiseMultiTensor') {
      const P = n.attrs.partials;
      const folded = P ? `, role ${P.role} of ${P.splits.filter((x) => x > 1).length} groups summed from split-K partials` : '';
      out.push({ ...base, expr: `${n.attrs.exprs.map((e) => fmtPwExpr(e)).join(' ; ')} over ${n.attrs.shapes.length} groups${folded}` });
    }
    else if (quantEpilogue) out.push({ ...base, epilogue: fmtPwExpr(quantEpilogue) });
    else if (n.op === 'matmulEpilogue') out.push({ ...base, epilogue: `${n.attrs.transA ? 'transA+' : ''}${n.attrs.transB ? 'transB+' : ''}${fmtPwExpr(n.attrs.expr)}` });
    else if (n.op === 'pointwiseReduce') out.push({ ...base, expr: fmtPointwiseReduce(n.attrs) }); // epilogue ∘ reduce(prologue)
    else if (n.op === 'pointwiseReduceMulti') out.push({ ...base, expr: n.attrs.results.map((r) => fmtPointwiseReduce({ ...n.attrs, ...r })).join(' ; ') }); // sibling reductions, one kernel
    else if (n.op === 'rowwise') out.push({ ...base, expr: fmtRowwise(n.attrs) }); // row stats ⇒ per-element expression
    else if (n.op === 'rowwiseMulti') out.push({ ...base, expr: n.attrs.exprs.map((expr) => fmtRowwise({ expr, stats: n.attrs.stats })).join(' ; ') }); // row stats once, several results
    else if (n.op === 'custom') out.push({ ...base, custom: n.attrs.name });
    else if (n.op === 'fusedMatmul') {
      const a = n.attrs;
      const parts = [a.transA ? 'transA' : '', a.transB ? 'transB' : '', a.bias ? 'bias' : '', a.activation !== 'none' ? a.activation : ''];
      out.push({ ...base, epilogue: parts.filter(Boolean).join('+') || 'none' });
    } else out.push(base);
  }
  return out;
}

/** Formats a byte count (`1.2 MB`, `340 B`). */
export function fmtBytes(b: number): string {
  if (b >= 1e9) return `${(b / 1e9).toFixed(1)} GB`;
  if (b >= 1e6) return `${(b / 1e6).toFixed(1)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${b} B`;
}

/** Wall time of each phase of `optimize`, in ms. */
export interface OptimizePhases {
  /** Loading the graph into the e-graph. */
  readonly loadMs: number;
  /** Running the rule passes. */
  readonly runMs: number;
  /** Extracting the cheapest plan. */
  readonly extractMs: number;
  /** Rebuilding an ir graph from the extraction. */
  readonly rebuildGraphMs: number;
}

/** What fitting a plan into a memory budget did (the report's `memory`). */
export interface MemoryFit {
  /** The budget in bytes. */
  readonly budget: number;
  /** Estimated bytes allocated by the plan as extracted (its own schedule). */
  readonly before: number;
  /** Estimated bytes allocated by the plan kept. */
  readonly after: number;
  /** Reader operands that read a recomputation instead of the stored value. */
  readonly recomputed: number;
  /** Whether the memory-aware schedule replaced the extracted one. */
  readonly reordered: boolean;
}

/** Everything `optimize` reports. */
export class OptimizeReport {
  /** E-graph size, iterations, stop reason, time and rule hits. */
  readonly egraph: EGraphFigures;
  /** Kernel nodes of the input graph. */
  readonly dispatchesBefore: number;
  /** Kernel nodes of the optimized graph. */
  readonly dispatchesAfter: number;
  /** Output bytes of the input graph's kernels (intermediate traffic). */
  readonly bytesBefore: number;
  /** Output bytes of the optimized graph's kernels. */
  readonly bytesAfter: number;
  /** DAG cost of the extracted graph under the cost model. */
  readonly cost: number;
  /** The extractor's local search: moves tried and the bound that stopped it. */
  readonly search: DagExtraction['search'];
  /** Total time of `optimize` (load, run, extract, rebuild) in ms. */
  readonly totalTimeMs: number;
  /** The fused kernels of the result, with the rules that made each. */
  readonly kernels: readonly FusedKernel[];
  
/** The e-graph in DOT (with NEURA_DEBUG ≥ 3). */
  readonly dot: string | undefined;
  /** The runner's report, all passes combined. */
  readonly run: Report;
  /** Each named pass with its own runner report, in order. */
  readonly passes: readonly { readonly name: string; readonly report: Report }[];
  /** Time of DAG extraction in ms. */
  readonly extractMs: number;
  /** Wall time of each phase of `optimize` in ms: loading the e-graph, the passes, extraction, rebuilding the graph. */
  readonly phases: OptimizePhases;
  /** Ops with a user-registered kernel, kept as fusion boundaries (sorted; empty when none). */
  readonly customKernelOps: readonly string[];

  /** What `memoryBudget` did (undefined without one): estimated bytes before and after, recomputed operands. */
  readonly memory: MemoryFit | undefined;

  /** Builds the report from the run and both graphs' figures. */
  constructor(parts: {
    /** The runner's report (totals over the passes). */
    run: Report;
    /** Each pass's name and report. */
    passes?: readonly { readonly name: string; readonly report: Report }[];
    /** Wall time per phase. */
    phases?: OptimizePhases;
    /** Figures of the graph before optimization. */
    before: GraphFigures;
    /** Figures of the optimized graph. */
    after: GraphFigures;
    /** The optimized graph's fused kernels. */
    kernels: FusedKernel[];
    /** Cost of the extracted plan under the cost model. */
    cost: number;
    /** What the DAG extractor's search did. */
    search?: DagExtraction['search'];
    /** Milliseconds of the whole optimize call. */
    totalTimeMs: number;
    /** A DOT dump of the e-graph (debug level 3). */
    dot?: string;
    /** Ops with a user-registered kernel. */
    customKernelOps?: readonly string[];
    /** What `memoryBudget` did. */
    memory?: MemoryFit;
  }) {
    const hits: Record<string, number> = {};
    for (const [k, v] of Object.entries(parts.run.applied)) if (v > 0) hits[k] = v;
    this.run = parts.run;
    this.passes = parts.passes ?? [{ name: 'run', report: parts.run }];
    this.phases = parts.phases ?? { loadMs: 0, runMs: parts.run.totalTimeMs, extractMs: 0, rebuildGraphMs: 0 };
    this.extractMs = this.phases.extractMs;
    this.egraph = {
      enodes: parts.run.egraphNodes,
      eclasses: parts.run.egraphClasses,
      iterations: parts.run.iterations,
      stopReason: parts.run.stopReason,
      stopMessage: parts.run.stopMessage,
      timeMs: parts.run.totalTimeMs,
      ruleHits: hits,
    };
    this.dispatchesBefore = parts.before.dispatches;
    this.dispatchesAfter = parts.after.dispatches;
    this.bytesBefore = parts.before.bytes;
    this.bytesAfter = parts.after.bytes;
    this.cost = parts.cost;
    this.search = parts.search ?? { evaluations: 0, stop: 'off' };
    this.totalTimeMs = parts.totalTimeMs;
    this.kernels = parts.kernels;
    this.dot = parts.dot;
    this.customKernelOps = parts.customKernelOps ?? [];
    this.memory = parts.memory;
  }

  /**
   * One line: `e-graph: 412 e-nodes, 180 e-classes, 7 iterations (saturated) in 38 ms; extraction 950 moves
   * (converged); dispatches 31 → 12; …`: the bracketed words name the bound that stopped each phase.
   */
  summary(): string {
    const e = this.egraph;
    return (
      `e-graph: ${e.enodes} e-nodes, ${e.eclasses} e-classes, ${e.iterations} iterations (${e.stopReason}) in ${Math.round(e.timeMs)} ms; ` +
      `extraction ${this.search.evaluations} moves (${this.search.stop}); ` +
      `dispatches ${this.dispatchesBefore} → ${this.dispatchesAfter}; bytes ${fmtBytes(this.bytesBefore)} → ${fmtBytes(this.bytesAfter)}` +
      (this.customKernelOps.length ? `; custom kernels (fusion boundaries): ${this.customKernelOps.join(', ')}` : '') +
      (this.memory
        ? `; memory ${fmtBytes(this.memory.before)} → ${fmtBytes(this.memory.after)} (budget ${fmtBytes(this.memory.budget)}, ${this.memory.recomputed} recomputed operands${this.memory.reordered ? ', memory-aware schedule' : ''})`
        : '')
    );
  }

  /** A multi-line report: the summary, the stop message, rule hits and every fused kernel with its rules. */
  format(): string {
    const lines = [this.summary(), `  stop: ${this.egraph.stopMessage}; total ${Math.round(this.totalTimeMs)} ms; cost ${this.cost.toFixed(1)}`];
    for (const { name, report: r } of this.passes) {
      lines.push(
        `  pass ${name}: ${r.iterations} iterations (${r.stopReason}), ${r.egraphNodes} e-nodes, ${r.egraphClasses} e-classes, ${Math.round(r.totalTimeMs)} ms ` +
          `(search ${Math.round(r.searchTimeMs)}, apply ${Math.round(r.applyTimeMs)}, rebuild ${Math.round(r.rebuildTimeMs)})`,
      );
    }
    const ph = this.phases;
    lines.push(`  phases: load ${Math.round(ph.loadMs)} ms, passes ${Math.round(ph.runMs)} ms, extraction ${Math.round(ph.extractMs)} ms, rebuild ${Math.round(ph.rebuildGraphMs)} ms`);
    const hits = Object.entries(this.egraph.ruleHits).sort((a, b) => b[1] - a[1]);
    lines.push(`  rule hits: ${hits.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
    lines.push(`  fused kernels (${this.kernels.length}):`);
    for (const k of this.kernels) {
      const what = k.expr ?? k.epilogue ?? k.custom ?? '';
      lines.push(`    %${k.node} ${k.op} ${fmtShape(k.shape)} ${k.inputs} in${what ? ` ${what}` : ''}  ← ${k.rules.join(', ') || '(input graph)'}`);
    }
    return lines.join('\n');
  }
}

/** The e-graph in DOT: one cluster per e-class, extracted nodes drawn bold. */
export function egraphToDot(egraph: EGraph<TensorInfo>, extraction?: Extraction): string {
  const lines = ['digraph egraph {', '  compound=true; node [shape=box, fontsize=10];'];
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  const edges: string[] = [];
  for (const c of egraph.classes()) {
    lines.push(`  subgraph cluster_${c.id} { label="e${c.id} ${fmtShape(c.data.shape)}:${c.data.dtype}"; style=dashed;`);
    const chosen = extraction?.choices.get(c.id);
    c.nodes.forEach((n, i) => {
      let label = formatOp({ ...n, children: n.children.length ? n.children : [] }, tensorLanguage);
      if (n.op === 'pointwise') label = `pointwise ${fmtPwExpr(pointwiseExprOf(n))}`;
      if (label.length > 80) label = `${label.slice(0, 77)}...`;
      const bold = chosen === n ? ', penwidth=3' : '';
      lines.push(`    n${c.id}_${i} [label="${esc(label)}"${bold}];`);
      for (const ch of n.children) edges.push(`  n${c.id}_${i} -> n${egraph.find(ch)}_0 [lhead=cluster_${egraph.find(ch)}];`);
    });
    lines.push('  }');
  }
  return [...lines, ...edges, '}'].join('\n');
}

/** The `NEURA_DEBUG` level (0 when unset or not a number), read without importing Node modules. */
export function debugLevel(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const v = Number(env?.NEURA_DEBUG ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** Writes a debug message to stderr (the console's error stream) where there is one. */
export function writeDebug(text: string): void {
  (globalThis as { console?: { error(...args: unknown[]): void } }).console?.error(text);
}

// A profiled step as data: GPU timestamps per dispatch, grouped per kernel (graph node), turned into a
// per-kernel roofline table (markdown) and a Chrome/Perfetto trace (JSON, `chrome://tracing` / ui.perfetto.dev).
// Pure: no GPU objects here (profiler.ts records the timestamps), so it is tested without a device.
// Invariants: every dispatch of the step appears exactly once; times are in ns relative to the first dispatch.

import type { DType, Graph, Node, OpKind } from '@neura/ir';
import { bufferBytes, kernelFlops, numel, OP_FACTS, pwExprOps } from '@neura/ir';

/** What a kernel (one graph node, one or more dispatches) does, for profiles and reports. */
export interface KernelInfo {
  /** The graph node id of the kernel. */
  readonly node: number;
  /** The node's op. */
  readonly op: string;
  /** The ops it fuses, e.g. `matmul Aᵀ·B + bias, relu` or `pointwise(sub, mul, rsqrt)`. */
  readonly fused: string;
  /** Operand and result shapes, e.g. `[64,384]·[384,1536] → [64,1536]`. */
  readonly shapes: string;
  /** Floating-point operations of the kernel (all its dispatches). */
  readonly flops: number;
  /** Fewest bytes it must move: every operand read once and the result written once. */
  readonly bytes: number;
}

/** One timed dispatch: its label, kernel and GPU start/end in ns (relative to the step's first dispatch). */
export interface DispatchTiming {
  /** The dispatch label. */
  readonly label: string;
  /** The kernel it belongs to, when known. */
  readonly kernel?: KernelInfo;
  /** GPU start time in ns. */
  readonly startNs: number;
  /** GPU end time in ns. */
  readonly endNs: number;
}

/** The machine's ceilings the table compares against. */
export interface RooflineCeilings {
  /** Peak floating-point rate in FLOP/s (H200 fp32 without tensor cores: ~67e12). */
  readonly flopsPerSecond: number;
  /** DRAM bandwidth in bytes/s (measure it: the bench's copy kernel). */
  readonly bytesPerSecond: number;
}

/** One row of the per-kernel table. */
export interface KernelRow {
  /** The kernel's label. */
  readonly label: string;
  /** The kernel, when known. */
  readonly kernel?: KernelInfo;
  /** Dispatches the kernel ran. */
  readonly dispatches: number;
  /** Sum of its dispatches' GPU time in ms. */
  readonly ms: number;
  /** Share of the step's summed GPU time (0..1). */
  readonly share: number;
  /** Achieved rate in GFLOP/s. */
  readonly gflops: number;
  /** Achieved bandwidth in GB/s (by the kernel's fewest bytes). */
  readonly gbps: number;
  /** Roofline floor (max of flops/peak and bytes/bandwidth) over measured time, 0..1; undefined without ceilings. */
  readonly roofline?: number;
}

/** Per-kernel rows, slowest first, and the step's totals. */
export interface StepProfileSummary {
  /** One row per kernel, slowest first. */
  readonly rows: readonly KernelRow[];
  /** Sum of all dispatch times (GPU busy) in ms. */
  readonly gpuMs: number;
  /** First dispatch start to last dispatch end in ms (includes gaps between passes). */
  readonly spanMs: number;
  /** Dispatches timed. */
  readonly dispatches: number;
}

const sizeOf = (n: { shape: readonly number[]; dtype?: DType }) => (n.dtype ? bufferBytes(n.dtype, numel(n.shape)) : numel(n.shape) * 4);
const fmt = (s: readonly number[]) => `[${s.join(',')}]`;


/** What a node's kernel fuses, in words. */
export function fusedOpsOf(n: Node): string {
  switch (n.op) {
    case 'pointwise':
      return `pointwise(${[...pwExprOps(n.attrs.expr, new Set())].join(', ')})`;
    case 'matmul':
    case 'fusedMatmul':
    case 'matmulEpilogue':
    case 'matmulPartials': {
      const a = n.attrs;
      const parts = [`matmul ${a.transA ? 'Aᵀ' : 'A'}·${a.transB ? 'Bᵀ' : 'B'}`];
      if (n.op === 'fusedMatmul' && n.attrs.bias) parts.push('+ bias');
      if (n.op === 'fusedMatmul' && n.attrs.activation !== 'none') parts.push(n.attrs.activation);
      if (n.op === 'matmulEpilogue') parts.push(`then pointwise(${[...pwExprOps(n.attrs.expr, new Set())].join(', ')})`);
      if (n.op === 'matmulPartials') parts.push(`as ${n.attrs.splits} split-K partials`);
      return parts.join(' ');
    }
    case 'pointwiseReduce':
      return `${n.attrs.reduce} of pointwise(${[...pwExprOps(n.attrs.expr, new Set())].join(', ')})`;
    case 'pointwiseReduceMulti':
      return `${n.attrs.results.length} ${n.attrs.reduce}s of pointwise(${[...n.attrs.results.reduce((s, r) => pwExprOps(r.expr, s), new Set<OpKind>())].join(', ')})`;
    case 'rowwise': {
      const ops = n.attrs.stats.reduce((s, st) => pwExprOps(st.post, pwExprOps(st.expr, s)), pwExprOps(n.attrs.expr, new Set()));
      return `rowwise ${n.attrs.stats.map((s) => s.reduce).join('+')} then pointwise(${[...ops].join(', ')})`;
    }
    case 'rowwiseMulti': {
      const ops = n.attrs.stats.reduce((s, st) => pwExprOps(st.post, pwExprOps(st.expr, s)), n.attrs.exprs.reduce((s, e) => pwExprOps(e, s), new Set<OpKind>()));
      return `rowwise ${n.attrs.stats.map((s) => s.reduce).join('+')} then ${n.attrs.exprs.length} results of pointwise(${[...ops].join(', ')})`;
    }
    case 'attention':
    case 'attentionLse':
    case 'attentionWithLse':
    case 'attentionGradKV':
    case 'attentionGradQKV':
      return `${n.op}${n.attrs.causal ? ' causal' : ''}`;
    case 'attentionGrad':
      return `attentionGrad d${n.attrs.wrt}${n.attrs.causal ? ' causal' : ''}`;
    case 'sum':
    case 'mean':
    case 'reduceMax':
    case 'reduceMin':
      return `${n.op} axes ${fmt(n.attrs.axes)}`;
    case 'transpose':
      return `transpose ${fmt(n.attrs.perm)}`;
    default:
      return n.op;
  }
}

/** KernelInfo of a graph node; its flops from `@neura/ir`'s kernel facts (the figures the e-graph's cost uses). */
export function kernelInfoOf(graph: Graph, n: Node): KernelInfo {
  const ins = n.inputs.map((i) => graph.nodes[i]);
  const distinct = [...new Set(n.inputs)].map((i) => graph.nodes[i]);
  const joiner = n.op === 'matmul' || n.op === 'fusedMatmul' ? '·' : ', ';
  return {
    node: n.id,
    op: n.op,
    fused: fusedOpsOf(n),
    shapes: `${ins.map((x) => fmt(x.shape)).join(joiner)} → ${fmt(n.shape)}`,
    flops: kernelFlops(n.op, { attrs: n.attrs, ins: distinct, out: n, operands: n.inputs.map((i) => graph.nodes[i]) }),
    bytes: distinct.reduce((s, x) => s + sizeOf(x), 0) + sizeOf(n),
  };
}

/** Groups dispatch timings per kernel into table rows, slowest first. */
export function summarizeProfile(timings: readonly DispatchTiming[], ceilings?: RooflineCeilings): StepProfileSummary {
  const groups = new Map<unknown, { label: string; kernel?: KernelInfo; ns: number; n: number }>();
  let gpuNs = 0;
  for (const t of timings) {
    const ns = Math.max(0, t.endNs - t.startNs);
    gpuNs += ns;
    const key = t.kernel ?? t.label;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { label: t.kernel ? t.label.replace(/\.\d+$/, '') : t.label, kernel: t.kernel, ns: 0, n: 0 }));
    g.ns += ns;
    g.n++;
  }
  const rows: KernelRow[] = [...groups.values()].map((g) => {
    const s = g.ns * 1e-9;
    const flops = g.kernel?.flops ?? 0;
    const bytes = g.kernel?.bytes ?? 0;
    const floor = ceilings ? Math.max(flops / ceilings.flopsPerSecond, bytes / ceilings.bytesPerSecond) : undefined;
    return {
      label: g.label,
      kernel: g.kernel,
      dispatches: g.n,
      ms: g.ns * 1e-6,
      share: gpuNs > 0 ? g.ns / gpuNs : 0,
      gflops: s > 0 ? flops / s / 1e9 : 0,
      gbps: s > 0 ? bytes / s / 1e9 : 0,
      ...(floor !== undefined ? { roofline: s > 0 ? Math.min(1, floor / s) : 0 } : {}),
    };
  });
  rows.sort((a, b) => b.ms - a.ms);
  const start = Math.min(...timings.map((t) => t.startNs));
  const end = Math.max(...timings.map((t) => t.endNs));
  return { rows, gpuMs: gpuNs * 1e-6, spanMs: timings.length ? (end - start) * 1e-6 : 0, dispatches: timings.length };
}

/** The kernel's class for the by-class summary (ir's `kernelClass` fact): matmul, attention, pointwise, reduction, ... */
export function kernelClassOf(op: string | undefined): string {
  if (!op) return 'other';
  return Object.hasOwn(OP_FACTS, op) ? OP_FACTS[op as OpKind].kernelClass : 'elementwise/other';
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number, d = 1) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));

/** The per-kernel table as markdown: a by-class summary, then the `top` slowest kernels. */
export function profileTable(sum: StepProfileSummary, opts: { top?: number; ceilings?: RooflineCeilings } = {}): string {
  const top = opts.top ?? 40;
  const out: string[] = [];
  out.push(`GPU time ${sum.gpuMs.toFixed(3)} ms over ${sum.dispatches} dispatches (span ${sum.spanMs.toFixed(3)} ms, one pass per dispatch while profiling).`);
  if (opts.ceilings)
    out.push(`Ceilings: ${(opts.ceilings.flopsPerSecond / 1e12).toFixed(1)} TFLOP/s, ${(opts.ceilings.bytesPerSecond / 1e9).toFixed(0)} GB/s.`);
  out.push('', '| class | kernels | dispatches | ms | share | GFLOP/s | GB/s |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const classes = new Map<string, { k: number; d: number; ms: number; flops: number; bytes: number }>();
  for (const r of sum.rows) {
    const c = kernelClassOf(r.kernel?.op);
    let e = classes.get(c);
    if (!e) classes.set(c, (e = { k: 0, d: 0, ms: 0, flops: 0, bytes: 0 }));
    e.k++;
    e.d += r.dispatches;
    e.ms += r.ms;
    e.flops += r.kernel?.flops ?? 0;
    e.bytes += r.kernel?.bytes ?? 0;
  }
  for (const [c, e] of [...classes].sort((a, b) => b[1].ms - a[1].ms))
    out.push(`| ${c} | ${e.k} | ${e.d} | ${e.ms.toFixed(3)} | ${pct(sum.gpuMs ? e.ms / sum.gpuMs : 0)} | ${num(e.ms ? e.flops / e.ms / 1e6 : 0)} | ${num(e.ms ? e.bytes / e.ms / 1e6 : 0)} |`);
  out.push('', `Slowest ${Math.min(top, sum.rows.length)} of ${sum.rows.length} kernels:`, '');
  out.push('| kernel | fused ops | shapes | ms | share | GFLOP/s | GB/s | roofline |', '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of sum.rows.slice(0, top))
    out.push(
      `| ${r.label}${r.dispatches > 1 ? ` (${r.dispatches} dispatches)` : ''} | ${r.kernel?.fused ?? ''} | ${r.kernel?.shapes ?? ''} | ${r.ms.toFixed(3)} | ${pct(r.share)} | ${num(r.gflops)} | ${num(r.gbps)} | ${r.roofline === undefined ? '' : pct(r.roofline)} |`,
    );
  return out.join('\n');
}

/** Chrome trace-event JSON (complete events, µs) of the dispatches: open in ui.perfetto.dev or chrome://tracing. */
export function chromeTrace(timings: readonly DispatchTiming[], name = 'neura step'): { traceEvents: object[]; displayTimeUnit: 'ns' } {
  const events: object[] = [
    { name: 'process_name', ph: 'M', pid: 1, tid: 1, args: { name } },
    { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'GPU queue' } },
  ];
  for (const t of timings)
    events.push({
      name: t.label,
      cat: t.kernel ? kernelClassOf(t.kernel.op) : 'other',
      ph: 'X',
      pid: 1,
      tid: 1,
      ts: t.startNs / 1000,
      dur: Math.max(0, t.endNs - t.startNs) / 1000,
      args: t.kernel ? { fused: t.kernel.fused, shapes: t.kernel.shapes, flops: t.kernel.flops, bytes: t.kernel.bytes, node: t.kernel.node } : {},
    });
  return { traceEvents: events, displayTimeUnit: 'ns' };
}

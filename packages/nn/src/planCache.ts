// The plan cache: optimized step graphs (with their optimizer reports) kept across compiles and processes, keyed by
// a SHA-256 of the step graph's structure, the device limits and optimizer options it was planned for and the rule
// set, so a second compile of the same model skips the e-graph. Stores: in memory (here), IndexedDB
// (indexedDbPlanCache.ts), a directory of JSON files (`filePlanCache` in @neura/nn/node). Invariant: a stored plan
// is used only after it parses and its leaves, outputs and updates match the requested graph's (names, shapes,
// dtypes, inits); anything else is ignored with one warning and the plan recomputed. A miss only costs time.
// The e-graph optimizer itself loads on demand (onDemand.ts): a page fetches it when it first plans a step.

import type { OptimizeOptions, OptimizeReport, TensorRewrite } from '@neura/egraph';
import { type Graph, type GraphJson, graphFromJson, graphToJson, leafName, type Node } from '@neura/ir';
import { keepDeclaredInputs } from './declaredInputs.js';

/**
 * Version of the stored form and of what the key leaves out: bump it when the optimizer's code outside its rules
 * (cost model, extraction) changes the plans it makes, so stores written before miss instead of serving old plans.
 */
export const PLAN_FORMAT = 1;

/** What a plan cache stores per key: the optimized graph and the report of the run that made it. */
export interface PlanRecord {
  /** Version of the record layout (`PLAN_FORMAT`); other versions are recomputed. */
  readonly format: number;
  /** The cache key the record was stored under (checked on read). */
  readonly key: string;
  /** The optimized graph, serialised. */
  readonly graph: GraphJson;
  /** The `OptimizeReport`'s data (its constructor's parts, without the DOT dump). */
  readonly report: ReportJson;
}

/** A store of optimized plans by key (`planKey`). What `get` returns is validated before use; a miss is `undefined`. */
export interface PlanCache {
  /** The record stored under `key` as read (untrusted), or undefined; throws (naming where) when it cannot be read. */
  get(key: string): Promise<unknown>;
  /** Stores `record` under `key` (replacing any). */
  set(key: string, record: PlanRecord): Promise<void>;
  /** Where a corrupt or mismatched entry is reported (default `console.warn`). */
  readonly warn?: (message: string) => void;
}

/** A plan cache in memory (one process); records are kept as JSON text, so what is read back is a fresh copy. */
export function memoryPlanCache(warn?: (message: string) => void): PlanCache & { readonly records: Map<string, string> } {
  const records = new Map<string, string>();
  return {
    records,
    warn,
    get: async (key) => {
      const text = records.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    set: async (key, record) => void records.set(key, JSON.stringify(record)),
  };
}

/** The report's constructor parts, as JSON. */
type ReportJson = ConstructorParameters<typeof OptimizeReport>[0];

function reportToJson(r: OptimizeReport): ReportJson {
  return {
    run: r.run,
    passes: r.passes,
    phases: r.phases,
    before: { dispatches: r.dispatchesBefore, bytes: r.bytesBefore, nodes: 0 },
    after: { dispatches: r.dispatchesAfter, bytes: r.bytesAfter, nodes: 0 },
    kernels: [...r.kernels],
    cost: r.cost,
    search: r.search,
    totalTimeMs: r.totalTimeMs,
    customKernelOps: r.customKernelOps,
    memory: r.memory,
  };
}

let rulesText: string | undefined;

/** Each rule as `name: searcher => applier` plus its guard's source: a changed rule set changes every key. */
function rulesFingerprint(rules: readonly TensorRewrite[], optimizeRules: readonly TensorRewrite[]): string {
  const text = (rs: readonly TensorRewrite[]) => rs.map((r) => `${String(r)}${r.condition ? ` if ${String(r.condition)}` : ''}`).join('\n');
  if (rules !== optimizeRules) return text(rules);
  rulesText ??= text(optimizeRules);
  return rulesText;
}

/** JSON with object keys sorted (so two equal option objects give one text). */
function stableJson(v: unknown): string {
  return JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
}

/**
 * The key of `graph` optimized with `options`: SHA-256 (hex) of the plan format, the rule set, the options (device
 * limits, memory budget, custom kernel ops, passes, cost figures, …) and the graph's JSON. Undefined where the
 * platform has no Web Crypto (`crypto.subtle`: Node ≥ 19 and browsers in secure contexts have it).
 */
export async function planKey(graph: Graph, options: OptimizeOptions): Promise<string | undefined> {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) return undefined;
  const { rules, customKernelOps, ...rest } = options;
  const { optimizeRules } = await import('./onDemand.js'); // the optimizer's default rule set (loads on demand)
  const text = [
    `neura-plan ${PLAN_FORMAT}`,
    rulesFingerprint(rules ?? optimizeRules, optimizeRules),
    stableJson({ ...rest, customKernelOps: [...(customKernelOps ?? [])].sort() }),
    JSON.stringify(graphToJson(graph)),
  ].join('\n');
  const digest = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `op name [shape] dtype init` of every named leaf, sorted; then each output and each updated state. */
function signature(g: Graph): string[] {
  const leaves = g.nodes
    .filter((n): n is Node<'input' | 'param' | 'state'> => leafName(n) !== undefined)
    .map((n) => `${n.op} ${n.attrs.name} [${n.shape}] ${n.dtype}${n.op === 'input' ? '' : ` ${JSON.stringify(n.attrs.init)}`}`);
  const type = (id: number) => `[${g.get(id).shape}] ${g.get(id).dtype}`;
  const outputs = [...g.outputs].map(([name, id]) => `output ${name} ${type(id)}`);
  const updates = g.updates.map((u) => `update ${leafName(g.get(u.state))} ${type(u.value)}`);
  return [...leaves.sort(), ...outputs.sort(), ...updates.sort()];
}

/** Why `plan` cannot stand for `requested` (the first differing leaf, output or update), or undefined when it can. */
export function planMismatch(plan: Graph, requested: Graph): string | undefined {
  const want = signature(requested);
  const have = signature(plan);
  const missing = want.find((s) => !have.includes(s));
  if (missing) return `the plan lacks '${missing}'`;
  const extra = have.find((s) => !want.includes(s));
  return extra ? `the plan has '${extra}', which the graph has not` : undefined;
}

/** The plan stored under `key`, or why it cannot be used (`Report`: egraph's `OptimizeReport`, loaded on demand). */
function readPlan(raw: unknown, key: string, requested: Graph, Report: typeof OptimizeReport): { graph: Graph; report: OptimizeReport } | string {
  const rec = raw as Partial<PlanRecord>;
  if (!rec || typeof rec !== 'object' || !rec.graph || !rec.report || typeof rec.report.run !== 'object' || !Array.isArray(rec.report.kernels)) return 'not a plan record ({ format, key, graph, report })';
  if (rec.format !== PLAN_FORMAT) return `written in plan format ${String(rec.format)}, not ${PLAN_FORMAT}`;
  if (rec.key !== key) return `recorded under key ${String(rec.key).slice(0, 16)}…`;
  let graph: Graph;
  let report: OptimizeReport;
  try {
    graph = keepDeclaredInputs(graphFromJson(rec.graph), requested);
    report = new Report(rec.report);
  } catch (e) {
    return `unreadable (${e instanceof Error ? e.message : String(e)})`;
  }
  return planMismatch(graph, requested) ?? { graph, report };
}

/** A plan and where it came from. */
export interface CachedPlan {
  /** The optimized graph. */
  readonly graph: Graph;
  /** The report of the optimizer run that made it. */
  readonly report: OptimizeReport;
  /** Whether the plan was read from the cache (no e-graph ran). */
  readonly fromCache: boolean;
}

/**
 * `optimize(graph, options)` through `cache`: a valid stored plan is returned as is; otherwise the e-graph runs and
 * its plan is stored. A corrupt, foreign or mismatched record is reported once through the cache's `warn` (naming
 * `who`, the key and what is wrong) and replaced; a store that fails to write is reported the same way.
 */
export async function optimizeWithPlanCache(graph: Graph, options: OptimizeOptions, cache: PlanCache | undefined, who: string): Promise<CachedPlan> {
  const warn = cache?.warn ?? console.warn;
  const { OptimizeReport, optimize } = await import('./onDemand.js'); // the e-graph optimizer loads on demand
  const key = cache ? await planKey(graph, options) : undefined;
  if (cache && key === undefined) warn(`${who}: planCache needs Web Crypto (crypto.subtle) to hash the graph; this platform has none, so the plan is not cached`);
  if (cache && key !== undefined) {
    let raw: unknown;
    let unreadable: string | undefined;
    try {
      raw = await cache.get(key);
    } catch (e) {
      unreadable = `unreadable (${e instanceof Error ? e.message : String(e)})`; // e.g. a corrupt file
    }
    if (raw !== undefined || unreadable) {
      const hit = unreadable ?? readPlan(raw, key, graph, OptimizeReport);
      if (typeof hit !== 'string') return { ...hit, fromCache: true };
      warn(`${who}: plan cache entry ${key.slice(0, 16)}… is ${hit}; ignored, the plan is recomputed`);
    }
  }
  const { graph: plan, report } = optimize(graph, options);
  keepDeclaredInputs(plan, graph);
  if (cache && key !== undefined) {
    try {
      await cache.set(key, { format: PLAN_FORMAT, key, graph: graphToJson(plan), report: reportToJson(report) });
    } catch (e) {
      warn(`${who}: storing the plan in the plan cache failed (${e instanceof Error ? e.message : String(e)}); this compile is unaffected`);
    }
  }
  return { graph: plan, report, fromCache: false };
}

/** What a session reports about the plan cache (with `planCache` only). */
export interface PlanStats {
  /** True when the plan was read from the cache (no e-graph ran), false when it was computed and stored. */
  readonly planFromCache?: boolean;
}

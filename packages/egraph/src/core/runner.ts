// The Runner: equality saturation over a rule set, bounded by iterations, e-nodes and time, returning a
// `Report` with a stop reason (egg's `Runner`). Must not extract or know any domain; never runs unbounded.
// Invariant: the e-graph is rebuilt (clean) whenever `run` returns, even when a limit stopped it mid-iteration.
import { RuleError } from './errors.js';
import type { EGraph } from './eGraph.js';
import type { Id, Language } from './language.js';
import { defaultLanguage } from './language.js';
import type { RecExpr } from './recExpr.js';
import { parseRecExpr } from './recExpr.js';
import type { Rewrite } from './rewrite.js';
import type { Scheduler } from './scheduler.js';
import { BackoffScheduler } from './scheduler.js';

/** Why a run stopped. `other` comes from a hook, with its message in `Report.stopMessage`. */
export type StopReason = 'saturated' | 'iterationLimit' | 'nodeLimit' | 'timeLimit' | 'other';

/** Figures of one iteration. */
export interface Iteration {
  /** E-nodes after the iteration. */
  readonly egraphNodes: number;
  /** E-classes after the iteration. */
  readonly egraphClasses: number;
  /** Per rule: unions that changed the graph (only rules with at least one). */
  readonly applied: Readonly<Record<string, number>>;
  /** Milliseconds spent searching for matches. */
  readonly searchTimeMs: number;
  /** Milliseconds spent applying matches. */
  readonly applyTimeMs: number;
  /** Milliseconds spent rebuilding (restoring congruence). */
  readonly rebuildTimeMs: number;
  /** Unions caused by congruence during rebuild. */
  readonly rebuildUnions: number;
}

/** What a run did: the stop reason, sizes, per-rule counts and time. */
export interface Report {
  /** Why the run stopped. */
  readonly stopReason: StopReason;
  /** Hook message when `stopReason` is `other`; otherwise a line naming the limit and its value. */
  readonly stopMessage: string;
  /** Iterations run. */
  readonly iterations: number;
  /** E-nodes at the end. */
  readonly egraphNodes: number;
  /** E-classes at the end. */
  readonly egraphClasses: number;
  /** Per rule name: substitutions found by search, over all iterations (every rule listed). */
  readonly matched: Readonly<Record<string, number>>;
  /** Per rule name: unions that actually changed the graph, over all iterations (every rule listed). */
  readonly applied: Readonly<Record<string, number>>;
  /** Milliseconds of the whole run. */
  readonly totalTimeMs: number;
  /** Milliseconds spent searching, over all iterations. */
  readonly searchTimeMs: number;
  /** Milliseconds spent applying, over all iterations. */
  readonly applyTimeMs: number;
  /** Milliseconds spent rebuilding, over all iterations. */
  readonly rebuildTimeMs: number;
  /** Figures of every iteration, in order. */
  readonly iterationLog: readonly Iteration[];
}

/** A hook run before each iteration; returning a string stops the run with reason `other` and that message. */
export type RunnerHook<D> = (runner: Runner<D>) => string | undefined;

/** Limits and settings of a Runner (egg's defaults: 30 iterations, 10 000 nodes, 5 s). */
export interface RunnerOptions<D> {
  /** Most iterations (default 30). */
  readonly iterLimit?: number;
  /** Most e-nodes: the run stops once the e-graph is larger (default 10 000). */
  readonly nodeLimit?: number;
  /** Most wall time in ms (default 5000). */
  readonly timeLimitMs?: number;
  /** Defaults to a fresh `BackoffScheduler`. */
  readonly scheduler?: Scheduler;
  /** Hooks run before each iteration (any may stop the run). */
  readonly hooks?: readonly RunnerHook<D>[];
  /** Clock in milliseconds; defaults to `performance.now` where present, else `Date.now`. */
  readonly now?: () => number;
}

const perf = (globalThis as { performance?: { now(): number } }).performance;
const defaultNow: () => number = perf ? () => perf.now() : () => Date.now();

class StopRun extends Error {
  constructor(
    readonly reason: StopReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Runs rules to saturation or a limit over one e-graph with any number of roots. */
export class Runner<D> {
  /** The e-graph being rewritten. */
  readonly egraph: EGraph<D>;
  /** Root classes (as added; canonicalise with `egraph.find`). */
  readonly roots: Id[] = [];
  /** Iterations completed by the last `run`. */
  iterations = 0;
  private readonly iterLimit: number;
  private readonly nodeLimit: number;
  private readonly timeLimitMs: number;
  private readonly scheduler: Scheduler;
  private readonly hooks: readonly RunnerHook<D>[];
  private readonly now: () => number;

  /** Makes a runner over an existing e-graph. */
  constructor(egraph: EGraph<D>, opts: RunnerOptions<D> = {}) {
    this.egraph = egraph;
    this.iterLimit = opts.iterLimit ?? 30;
    this.nodeLimit = opts.nodeLimit ?? 10_000;
    this.timeLimitMs = opts.timeLimitMs ?? 5_000;
    this.scheduler = opts.scheduler ?? new BackoffScheduler();
    this.hooks = opts.hooks ?? [];
    this.now = opts.now ?? defaultNow;
  }

  /** Adds an expression (a RecExpr or an s-expression string) and records it as a root; returns its id. */
  withExpr(expr: RecExpr | string, language: Language = defaultLanguage): Id {
    const id = this.egraph.addExpr(typeof expr === 'string' ? parseRecExpr(expr, language) : expr);
    this.roots.push(id);
    return id;
  }

  /** Records an existing class as a root. */
  addRoot(id: Id): this {
    this.roots.push(id);
    return this;
  }

  /**
   * Runs the rules until saturation or a limit, and reports. Throws on duplicate rule names; an error thrown by
   * a rule (or a rejected analysis merge) propagates with the rule's name and leaves the e-graph to rebuild.
   */
  run(rules: readonly Rewrite<D>[]): Report {
    checkUniqueNames(rules);
    const start = this.now();
    const tally = newTally(rules);
    this.iterations = 0;
    if (this.egraph.isDirty) this.egraph.rebuild();
    let stop: StopRun | undefined;
    for (let i = 0; stop === undefined; i++) stop = this.stopBefore(i, start) ?? this.iterate(i, rules, tally, start);
    const eg = this.egraph;
    return {
      stopReason: stop.reason,
      stopMessage: stop.detail,
      iterations: this.iterations,
      egraphNodes: eg.totalNodes,
      egraphClasses: eg.numClasses,
      matched: tally.matched,
      applied: tally.applied,
      totalTimeMs: this.now() - start,
      searchTimeMs: tally.searchMs,
      applyTimeMs: tally.applyMs,
      rebuildTimeMs: tally.rebuildMs,
      iterationLog: tally.log,
    };
  }

  /** Throws a `StopRun` when the run is over its node or time limit. */
  private checkLimits(start: number): void {
    const elapsed = this.now() - start;
    if (elapsed > this.timeLimitMs) throw new StopRun('timeLimit', `time limit ${this.timeLimitMs} ms exceeded (${elapsed.toFixed(1)} ms)`);
    const nodes = this.egraph.totalNodes;
    if (nodes > this.nodeLimit) throw new StopRun('nodeLimit', `node limit ${this.nodeLimit} exceeded (${nodes} e-nodes)`);
  }

  /** Why the run stops before iteration `i` (a hook, the iteration, node or time limit), if it does. */
  private stopBefore(i: number, start: number): StopRun | undefined {
    return stopOf(() => {
      for (const hook of this.hooks) {
        const msg = hook(this);
        if (msg !== undefined) throw new StopRun('other', msg);
      }
      if (i >= this.iterLimit) throw new StopRun('iterationLimit', `iteration limit ${this.iterLimit} reached`);
      this.checkLimits(start);
    });
  }

  /**
   * One iteration: search and apply every rule (a limit may stop it midway), then rebuild and log it. Returns
   * why the run stops after it (that limit, or saturation: nothing changed and the scheduler allows it), if it does.
   */
  private iterate(i: number, rules: readonly Rewrite<D>[], tally: Tally, start: number): StopRun | undefined {
    const eg = this.egraph;
    const nodesBefore = eg.totalNodes;
    const classesBefore = eg.numClasses;
    const it: IterationTally = { applied: {}, changed: 0, searchMs: 0, applyMs: 0 };
    const stop = stopOf(() => this.searchAndApply(i, rules, tally, it, start));
    const t0 = this.now();
    const rebuildUnions = eg.rebuild();
    const rebuildMs = this.now() - t0;
    tally.searchMs += it.searchMs;
    tally.applyMs += it.applyMs;
    tally.rebuildMs += rebuildMs;
    this.iterations = i + 1;
    tally.log.push({
      egraphNodes: eg.totalNodes,
      egraphClasses: eg.numClasses,
      applied: it.applied,
      searchTimeMs: it.searchMs,
      applyTimeMs: it.applyMs,
      rebuildTimeMs: rebuildMs,
      rebuildUnions,
    });
    if (stop) return stop;
    const grew = eg.totalNodes !== nodesBefore || eg.numClasses !== classesBefore;
    if (it.changed === 0 && !grew && this.scheduler.canStop(i)) return new StopRun('saturated', `saturated after ${i + 1} iterations`);
    return undefined;
  }

  /** Searches every rule (through the scheduler), then applies each rule's matches; counts into the tallies. */
  private searchAndApply(i: number, rules: readonly Rewrite<D>[], tally: Tally, it: IterationTally, start: number): void {
    const eg = this.egraph;
    const t0 = this.now();
    const found = rules.map((r) => {
      const ms = this.scheduler.searchRewrite(i, eg, r);
      tally.matched[r.name] += ms.reduce((n, m) => n + m.substs.length, 0);
      return ms;
    });
    it.searchMs = this.now() - t0;
    this.checkLimits(start);
    const t1 = this.now();
    try {
      for (const [k, r] of rules.entries()) {
        if (found[k].length === 0) continue;
        const n = r.apply(eg, found[k], this.nodeLimit);
        if (n > 0) {
          it.applied[r.name] = n;
          tally.applied[r.name] += n;
          it.changed += n;
        }
        this.checkLimits(start);
      }
    } finally {
      it.applyMs = this.now() - t1;
    }
  }
}

/** Counts of a whole run. */
interface Tally {
  readonly matched: Record<string, number>;
  readonly applied: Record<string, number>;
  readonly log: Iteration[];
  searchMs: number;
  applyMs: number;
  rebuildMs: number;
}

/** Counts of one iteration. */
interface IterationTally {
  readonly applied: Record<string, number>;
  changed: number;
  searchMs: number;
  applyMs: number;
}

/** Zero counts for every rule (every rule is listed in the report, matched or not). */
function newTally(rules: readonly { readonly name: string }[]): Tally {
  const zeros = () => Object.fromEntries(rules.map((r) => [r.name, 0]));
  return { matched: zeros(), applied: zeros(), log: [], searchMs: 0, applyMs: 0, rebuildMs: 0 };
}

function checkUniqueNames(rules: readonly { readonly name: string }[]): void {
  const names = new Set<string>();
  for (const r of rules) {
    if (names.has(r.name)) throw new RuleError(`Runner.run: two rules are named '${r.name}'`);
    names.add(r.name);
  }
}

/** Runs `f`; a `StopRun` it throws is returned (a limit or hook ended the run), any other error propagates. */
function stopOf(f: () => void): StopRun | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (!(e instanceof StopRun)) throw e;
    return e;
  }
}

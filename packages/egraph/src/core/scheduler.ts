// Rule schedulers for the Runner: `SimpleScheduler` (every rule, every iteration) and egg's
// `BackoffScheduler` (a rule matching more than its limit is banned for a while, both doubling each time).
// Must not apply rules or rebuild. Invariant: `canStop` returns false while any rule is banned (and unbans).
import type { EGraph } from './eGraph.js';
import type { Rewrite } from './rewrite.js';
import type { Match } from './subst.js';

/** Decides which rules search in which iteration (egg's `RewriteScheduler`). */
export interface Scheduler {
  /** Whether the runner may stop as saturated at this iteration (no rule held back). */
  canStop(iteration: number): boolean;
  /** Searches one rule this iteration; may return no matches to hold it back. */
  searchRewrite<D>(iteration: number, egraph: EGraph<D>, rule: Rewrite<D>): Match[];
}

/** Runs every rule every iteration with no match limit. */
export class SimpleScheduler implements Scheduler {
  /** Always true: nothing is ever held back. */
  canStop(): boolean {
    return true;
  }

  /** Searches the rule without a limit. */
  searchRewrite<D>(_iteration: number, egraph: EGraph<D>, rule: Rewrite<D>): Match[] {
    return rule.search(egraph);
  }
}

interface RuleStats {
  timesApplied: number;
  bannedUntil: number;
  timesBanned: number;
  matchLimit: number;
  banLength: number;
}

/** Options of the BackoffScheduler (egg's defaults: match limit 1000, ban length 5). */
export interface BackoffOptions {
  /** Substitutions a rule may produce per iteration before it is banned; doubles with each ban. */
  readonly matchLimit?: number;
  /** Iterations of the first ban; doubles with each ban. */
  readonly banLength?: number;
}

/** egg's exponential-backoff scheduler: keeps explosive rules (e.g. associativity) from swamping the graph. */
export class BackoffScheduler implements Scheduler {
  private readonly defaultMatchLimit: number;
  private readonly defaultBanLength: number;
  private readonly stats = new Map<string, RuleStats>();

  /** Makes a scheduler with the given default limits. */
  constructor(opts: BackoffOptions = {}) {
    this.defaultMatchLimit = opts.matchLimit ?? 1000;
    this.defaultBanLength = opts.banLength ?? 5;
  }

  /** Overrides the match limit of one rule. */
  ruleMatchLimit(name: string, limit: number): this {
    this.ruleStats(name).matchLimit = limit;
    return this;
  }

  /** Overrides the ban length of one rule. */
  ruleBanLength(name: string, length: number): this {
    this.ruleStats(name).banLength = length;
    return this;
  }

  /** How many times a rule has been banned so far. */
  timesBanned(name: string): number {
    return this.stats.get(name)?.timesBanned ?? 0;
  }

  private ruleStats(name: string): RuleStats {
    let s = this.stats.get(name);
    if (!s) {
      s = { timesApplied: 0, bannedUntil: 0, timesBanned: 0, matchLimit: this.defaultMatchLimit, banLength: this.defaultBanLength };
      this.stats.set(name, s);
    }
    return s;
  }

  /** True when no rule is banned; otherwise shortens every ban by the shortest remaining one and says false. */
  canStop(iteration: number): boolean {
    const banned = [...this.stats.values()].filter((s) => s.bannedUntil > iteration);
    if (banned.length === 0) return true;
    const minBan = Math.min(...banned.map((s) => s.bannedUntil - iteration));
    for (const s of banned) s.bannedUntil -= minBan;
    return false;
  }

  /** Searches a rule unless banned; bans it (returning nothing) when it matches more than its limit. */
  searchRewrite<D>(iteration: number, egraph: EGraph<D>, rule: Rewrite<D>): Match[] {
    const s = this.ruleStats(rule.name);
    if (iteration < s.bannedUntil) return [];
    const threshold = s.matchLimit * 2 ** s.timesBanned;
    const matches = rule.search(egraph, threshold + 1);
    const total = matches.reduce((n, m) => n + m.substs.length, 0);
    if (total > threshold) {
      const banLength = s.banLength * 2 ** s.timesBanned;
      s.timesBanned++;
      s.bannedUntil = iteration + banLength;
      return [];
    }
    s.timesApplied++;
    return matches;
  }
}

// The per-run state of the tensor rules (tinygrad's `ctx`): memo tables that let a rule skip work it has done
// in this run (nodes already lifted, merge plans already built, classes already scanned). Owned by the
// e-graph's `TensorAnalysis`, so it lives exactly as long as one `optimize` run; rules themselves hold no state.
// Must not hold anything a rule's result depends on: dropping the ctx may only make rules redo work.

/** Per-run rule state: one slot per key (a rule's name, or a table rules share). */
export class RuleCtx {
  private readonly slots = new Map<string, unknown>();

  /** The state under `key` in this run, made by `init` on first use. */
  of<T>(key: string, init: () => T): T {
    let v = this.slots.get(key) as T | undefined;
    if (v === undefined) this.slots.set(key, (v = init()));
    return v;
  }
}

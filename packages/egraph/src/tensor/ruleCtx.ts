// The per-run state of the tensor rules (tinygrad's `ctx`): memo tables that let a rule skip work it has done
// in this run (nodes already lifted, merge plans already built, classes already scanned). Owned by the
// e-graph's `TensorAnalysis`, so it lives exactly as long as one `optimize` run; rules themselves hold no state.
// Must not hold anything a rule's result depends on: dropping the ctx may only make rules redo work. A slot made
// with `ofAnyWidth` survives a wider fusion width (`widened`): what it remembers holds at any width (an attempt
// the width may have cut is remembered with the width it was tried at).

/**
 * Per-run rule state: one slot per key (a rule's name, or a table rules share). Tables keyed by e-nodes are plain
 * maps, not weak ones: the ctx dies with the run, and a weak map's entries were scavenger work on every minor GC.
 */
export class RuleCtx {
  private readonly slots = new Map<string, unknown>();
  private readonly anyWidth: Map<string, unknown>;

  /** A fresh ctx (or one for a wider width, holding the `ofAnyWidth` slots given). */
  constructor(anyWidth: ReadonlyMap<string, unknown> = new Map()) {
    this.anyWidth = new Map(anyWidth);
  }

  /** The state under `key` in this run, made by `init` on first use. */
  of<T>(key: string, init: () => T): T {
    let v = this.slots.get(key) as T | undefined;
    if (v === undefined) this.slots.set(key, (v = init()));
    return v;
  }

  /**
   * Like `of`, for state that stays true when the fusion width grows: kept by `widened` (re-deriving it at the
   * wider width, e.g. rebuilding every merge already built, was most of the wide fusion pass).
   */
  ofAnyWidth<T>(key: string, init: () => T): T {
    let v = this.anyWidth.get(key) as T | undefined;
    if (v === undefined) this.anyWidth.set(key, (v = init()));
    return v;
  }

  /** The `ofAnyWidth` slots as a rule state (one object per ctx: asked on every node rule search and apply). */
  get anyWidthState(): { of<T>(key: string, init: () => T): T } {
    return (this.anyWidthView ??= { of: (key, init) => this.ofAnyWidth(key, init) });
  }
  private anyWidthView: { of<T>(key: string, init: () => T): T } | undefined;

  /**
   * Records that a rule (its table `key`) left something out of `node`'s rewrite because of the fusion width
   * `width`. Only the first width is kept, so `widthTerm` changes once, at the next widen, and never within a pass.
   */
  refusedAtWidth(key: string, node: object, width: number): void {
    const table = this.ofAnyWidth<Map<object, number>>(key, newWidthTable);
    if (!table.has(node)) table.set(node, width);
  }

  /**
   * A term of `node`'s signature under `key`: the current width once the node was cut at a narrower one, else 0.
   * A rule whose result depends on the width only where it was cut keeps its scan state at a widen and, through
   * this term, matches again just those nodes (the wide pass re-matched ~12 000 pointwise nodes for ~300 changes).
   */
  widthTerm(key: string, node: object, width: number): number {
    return widthTermIn(this.widthCuts(key), node, width);
  }

  /** The nodes a rule recorded as cut (`refusedAtWidth`) under `key`, with the first width each was cut at. */
  widthCuts(key: string): ReadonlyMap<object, number> {
    return this.ofAnyWidth<Map<object, number>>(key, newWidthTable);
  }

  /** The ctx for a wider fusion width: fresh, but for the `ofAnyWidth` slots. */
  widened(): RuleCtx {
    return new RuleCtx(this.anyWidth);
  }
}

/** A fresh width-refusal table (a shared `init`: no closure per lookup). */
const newWidthTable = (): Map<object, number> => new Map();

/** `RuleCtx.widthTerm` over a table from `widthCuts` (for a caller that keeps the table). */
export function widthTermIn(cuts: ReadonlyMap<object, number>, node: object, width: number): number {
  const at = cuts.get(node);
  return at !== undefined && at < width ? width : 0;
}

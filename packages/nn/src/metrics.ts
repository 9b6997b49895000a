// Classification metrics computed on the host from read-back logits, and `Metric`s the Trainer's validation
// loop accumulates over batches (accuracy / top-k, exact cross-entropy over real rows, the mean of an output).

import type { TensorValue } from '@neura/ir';

/** Index of the largest of `classes` logits in row `row`. */
export function argmaxRow(logits: ArrayLike<number>, row: number, classes: number): number {
  let best = 0;
  let bestV = -Infinity;
  for (let c = 0; c < classes; c++) {
    const v = logits[row * classes + c];
    if (v > bestV) {
      bestV = v;
      best = c;
    }
  }
  return best;
}

/** Number of rows whose argmax equals the label. */
export function countCorrect(logits: ArrayLike<number>, labels: ArrayLike<number>, classes: number): number {
  let ok = 0;
  for (let r = 0; r < labels.length; r++) if (argmaxRow(logits, r, classes) === labels[r]) ok++;
  return ok;
}

/** Whether `label` is among the `k` largest of `classes` logits in row `row` (ties counted against it). */
export function inTopK(logits: ArrayLike<number>, row: number, classes: number, label: number, k: number): boolean {
  const v = logits[row * classes + label];
  let above = 0;
  for (let c = 0; c < classes; c++) if (logits[row * classes + c] > v || (logits[row * classes + c] === v && c < label)) above++;
  return above < k;
}

/** A validation metric accumulated over batches; `update` sees a batch's outputs and feeds and how many of its examples are real. */
export interface Metric {
  /** Key of the metric in evaluation results (e.g. `accuracy`). */
  readonly name: string;
  /** Clears the accumulated state before an evaluation. */
  reset(): void;
  /** `examples` of the batch's `batchSize` are real (a padded last batch has fewer). */
  update(outputs: Readonly<Record<string, TensorValue>>, feeds: Readonly<Record<string, Float32Array | Int32Array>>, examples: number, batchSize: number): void;
  /** The metric over every batch seen since `reset`. */
  value(): number;
}

/** Rows of `labels` that belong to the first `examples` examples (labels may be [B] or [B, T]). */
function realRows(labels: ArrayLike<number>, examples: number, batchSize: number): number {
  return (labels.length / batchSize) * examples;
}

function need<T>(what: string, name: string, v: T | undefined): T {
  if (v === undefined) throw new RangeError(`metric ${what}: no '${name}' among the outputs/feeds`);
  return v;
}

/**
 * A metric averaging `perRow(logits, row, classes, label)` over the real rows of every batch: `logits` [rows, C]
 * from the outputs, `labels` i32 from the feeds (or the outputs); `what` names the metric in errors.
 */
function meanOverRows(what: string, name: string, opts: { logits?: string; labels?: string }, perRow: (logits: ArrayLike<number>, row: number, classes: number, label: number) => number): Metric {
  const lName = opts.logits ?? 'logits';
  const yName = opts.labels ?? 'labels';
  return weightedMean(name, (add, outputs, feeds, examples, batchSize) => {
    const logits = need(what, lName, outputs[lName]);
    const labels = need(what, yName, feeds[yName] ?? outputs[yName]?.data);
    const rows = realRows(labels, examples, batchSize);
    const classes = logits.shape[logits.shape.length - 1];
    for (let r = 0; r < rows; r++) add(perRow(logits.data, r, classes, labels[r]), 1);
  });
}

/** Top-k accuracy of `logits` [rows, C] against i32 `labels` (default names `logits`, `labels`; k = 1). */
export function accuracy(opts: { logits?: string; labels?: string; k?: number; name?: string } = {}): Metric {
  const k = opts.k ?? 1;
  return meanOverRows('accuracy', opts.name ?? (k === 1 ? 'accuracy' : `top${k}`), opts, (logits, r, classes, label) => (inTopK(logits, r, classes, label, k) ? 1 : 0));
}

/** Mean cross-entropy (nats) of `logits` [rows, C] against `labels`, over real rows only (exact for padded batches). */
export function crossEntropyMetric(opts: { logits?: string; labels?: string; name?: string } = {}): Metric {
  return meanOverRows('crossEntropy', opts.name ?? 'loss', opts, (logits, r, c, label) => {
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < c; j++) max = Math.max(max, logits[r * c + j]);
    let z = 0;
    for (let j = 0; j < c; j++) z += Math.exp(logits[r * c + j] - max);
    return Math.log(z) + max - logits[r * c + label];
  });
}

/** The mean of a scalar output (e.g. `loss`) over batches, weighted by real examples (a padded batch's mean includes its padding). */
export function meanOutput(output = 'loss', name = output): Metric {
  return weightedMean(name, (add, outputs, _feeds, examples) => add(need('meanOutput', output, outputs[output]).data[0] * examples, examples));
}

/** What a weighted-mean metric takes from one batch: it calls `add(value, weight)` for each thing it counts. */
type Collect = (add: (value: number, weight: number) => void, ...batch: Parameters<Metric['update']>) => void;

/** A metric whose value is Σ values / Σ weights over a pass (NaN before anything was added). */
function weightedMean(name: string, collect: Collect): Metric {
  let sum = 0;
  let n = 0;
  const add = (value: number, weight: number) => {
    sum += value;
    n += weight;
  };
  return {
    name,
    reset() {
      sum = n = 0;
    },
    update: (...batch) => collect(add, ...batch),
    value: () => (n ? sum / n : Number.NaN),
  };
}

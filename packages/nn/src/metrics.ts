// Classification metrics computed on the host from read-back logits.

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

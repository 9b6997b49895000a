// Metrics over batches: the real rows of a padded batch only, weighted means across batches, reset.
import { tensor } from '@neura/ir';
import { accuracy, crossEntropyMetric, meanOutput } from '@neura/nn';
import { describe, expect, it } from 'vitest';

// two batches of 2 rows over 3 classes; the second batch has one real example (its second row is padding)
const logits = [tensor([2, 3], [2, 1, 0, 0, 3, 1]), tensor([2, 3], [0, 1, 2, 9, 9, 9])];
const labels = [Int32Array.from([0, 2]), Int32Array.from([1, 0])];
const examples = [2, 1];
const ce = (row: number[], label: number) => Math.log(row.reduce((z, v) => z + Math.exp(v), 0)) - row[label];

describe('metrics', () => {
  it('accuracy, top-k and cross-entropy count the real rows only; meanOutput weights by examples; reset starts over', () => {
    const top1 = accuracy();
    const top2 = accuracy({ k: 2 });
    const loss = crossEntropyMetric();
    const mean = meanOutput('l');
    for (const m of [top1, top2, loss, mean]) {
      m.reset();
      for (let b = 0; b < 2; b++) m.update({ logits: logits[b], l: tensor([], [b === 0 ? 1 : 4]) }, { labels: labels[b] }, examples[b], 2);
    }
    expect(top1.name).toBe('accuracy');
    expect(top2.name).toBe('top2');
    expect(top1.value()).toBeCloseTo(1 / 3, 12); // row 0 right; row 1 (argmax 1, label 2) and row 2 (argmax 2, label 1) wrong
    expect(top2.value()).toBeCloseTo(3 / 3, 12);
    expect(loss.value()).toBeCloseTo((ce([2, 1, 0], 0) + ce([0, 3, 1], 2) + ce([0, 1, 2], 1)) / 3, 6);
    expect(mean.value()).toBeCloseTo((1 * 2 + 4 * 1) / 3, 6);
    mean.reset();
    expect(mean.value()).toBeNaN();
  });
});

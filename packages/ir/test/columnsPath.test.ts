// ir's columnsPath: the one rule (runtime plan, cost model, e-graph grouping) choosing one-pass column strips or
// two passes for a columns reduction, at its boundaries.
import { describe, expect, it } from 'vitest';
import { COLUMN_CHUNK, COLUMN_STRIP, columnsPath, kernelDispatches, reduceSplit, SPLIT_MAX_COLUMNS, STRIP_MIN_WORKGROUPS } from '../src/index.js';

const enough = COLUMN_STRIP * (STRIP_MIN_WORKGROUPS - 1) + 1; // the fewest columns giving STRIP_MIN_WORKGROUPS strips

describe('columnsPath', () => {
  it('runs strips from STRIP_MIN_WORKGROUPS strips on, two passes below', () => {
    expect(columnsPath([16384, enough], [0])).toBe('strips');
    expect(columnsPath([16384, enough - 1], [0])).toBe('split');
    expect(columnsPath([16384, 384], [0])).toBe('strips'); // the GPT step's bias gradients
    expect(columnsPath([16384, 12], [0])).toBe('split');
    expect(reduceSplit([16384, enough], [0])).toBeUndefined();
    expect(reduceSplit([16384, enough - 1], [0])).toBe('columns');
  });

  it('merges leading reduced axes and drops extent-1 axes', () => {
    expect(columnsPath([64, 256, 1, 384], [0, 1, 2])).toBe('strips');
    expect(columnsPath([1, 70, 7], [1])).toBe('split');
  });

  it('is not a columns reduction when rows are short, columns many, or the pattern is not [rows, cols] → [cols]', () => {
    expect(columnsPath([2 * COLUMN_CHUNK - 1, 384], [0])).toBeUndefined();
    expect(columnsPath([16384, SPLIT_MAX_COLUMNS], [0])).toBeUndefined();
    expect(columnsPath([16384, 384], [1])).toBeUndefined();
    expect(columnsPath([8, 16, 100], [0, 2])).toBeUndefined();
  });

  it('counts one dispatch for strips and two for split, multi-output forms included', () => {
    const ctx = (shape: number[]) => ({ ins: [{ shape, dtype: 'f32' as const }], out: { shape: [shape[1]], dtype: 'f32' as const }, attrs: { axes: [0], keepdims: false } });
    expect(kernelDispatches('sum', ctx([16384, 384]))).toBe(1);
    expect(kernelDispatches('sum', ctx([16384, 64]))).toBe(2);
    const id = { op: 'in', index: 0 } as const;
    const multi = (shape: number[]) => ({ ins: [{ shape, dtype: 'f32' as const }], out: { shape: [shape[1]], dtype: 'f32' as const }, attrs: { results: [{ expr: id, post: id }, { expr: id, post: id }, { expr: id, post: id }], shape, reduce: 'sum' as const, axes: [0], keepdims: false } });
    expect(kernelDispatches('pointwiseReduceMulti', multi([16384, 384]))).toBe(1);
    expect(kernelDispatches('pointwiseReduceMulti', multi([16384, 64]))).toBe(2);
  });
});

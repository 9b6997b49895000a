import { describe, expect, it } from 'vitest';
import { NodeMemo } from './nodeMemo.js';

describe('NodeMemo', () => {
  it('finds every node stored, through the growth of its table, and misses nodes differing in op, data or a child', () => {
    const memo = new NodeMemo();
    const n = 5000; // past several doublings of its 1024 buckets and entries
    for (let i = 0; i < n; i++) expect(memo.set(i % 7, -(i % 3), [i, i + 1], i)).toBeUndefined();
    for (let i = 0; i < n; i++) expect(memo.get(i % 7, -(i % 3), [i, i + 1])).toBe(i);
    expect(memo.get(1, 0, [0, 1])).toBeUndefined();
    expect(memo.get(0, -1, [0, 1])).toBeUndefined();
    expect(memo.get(0, 0, [0, 2])).toBeUndefined();
    expect(memo.get(0, 0, [0])).toBeUndefined();
  });

  it('replaces the id of a node stored again and returns the one it replaced', () => {
    const memo = new NodeMemo();
    memo.set(3, 4, [1, 2], 10);
    expect(memo.set(3, 4, [1, 2], 11)).toBe(10);
    expect(memo.get(3, 4, [1, 2])).toBe(11);
  });
});

import { describe, expect, it } from 'vitest';
import { UnionFind } from './unionFind.js';

describe('UnionFind', () => {
  it('makes singleton sets that are their own representative', () => {
    const uf = new UnionFind();
    const a = uf.makeSet();
    const b = uf.makeSet();
    expect(uf.find(a)).toBe(a);
    expect(uf.find(b)).toBe(b);
    expect(uf.size).toBe(2);
  });

  it('joins sets transitively and keeps the first root', () => {
    const uf = new UnionFind();
    const ids = Array.from({ length: 6 }, () => uf.makeSet());
    uf.union(ids[0], ids[1]);
    uf.union(ids[2], ids[3]);
    uf.union(uf.find(ids[0]), uf.find(ids[2]));
    expect(new Set([0, 1, 2, 3].map((i) => uf.find(ids[i])))).toEqual(new Set([ids[0]]));
    expect(uf.find(ids[4])).toBe(ids[4]);
  });

  it('compresses long chains so that find still answers the root', () => {
    const uf = new UnionFind();
    const ids = Array.from({ length: 1000 }, () => uf.makeSet());
    for (let i = 1; i < ids.length; i++) uf.union(ids[i], ids[i - 1]);
    expect(uf.find(ids[0])).toBe(ids[999]);
    expect(uf.find(ids[0])).toBe(ids[999]);
  });

  it('rejects an unknown id with a message naming it', () => {
    expect(() => new UnionFind().find(3)).toThrow(/unknown id 3/);
  });
});

describe('UnionFind on deep chains (issue 9, item 12)', () => {
  it('finds the root of a 200k-long parent chain without recursion, and compresses it', () => {
    const uf = new UnionFind();
    const n = 200_000;
    for (let i = 0; i < n; i++) uf.makeSet();
    for (let i = n - 1; i > 0; i--) uf.union(i - 1, i); // 0 ← 1 ← 2 ← … : a worst-case chain
    expect(uf.find(n - 1)).toBe(0);
    expect(uf.find(n - 1)).toBe(0);
    expect(uf.find(n >> 1)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import type { Analysis } from './eGraph.js';
import { enode } from './language.js';
import { parseRecExpr } from './recExpr.js';
import { constantFolding, mathLanguage } from './testing/math.js';

const leaf = (op: string) => enode(op);

/** A tiny deterministic PRNG so random tests reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('EGraph', () => {
  it('hash-conses equal nodes into one class', () => {
    const eg = new EGraph();
    const x = eg.add(leaf('x'));
    const a = eg.add(enode('f', [x]));
    const b = eg.add(enode('f', [x]));
    expect(a).toBe(b);
    expect(eg.numClasses).toBe(2);
    expect(eg.totalNodes).toBe(2);
  });

  it('keeps the parents of a class that only gained nodes, and re-canonicalises them after an older class merged', () => {
    const eg = new EGraph();
    const [a, b, c] = ['a', 'b', 'c'].map((op) => eg.add(leaf(op)));
    eg.add(enode('g', [a]));
    eg.add(enode('h', [a])); // a has more parents: b is the one merged away below
    const p = eg.add(enode('f', [b, c]));
    eg.rebuild();
    const canonical = () => eg.eclass(c).parents.every(([n, cls]) => eg.canonicalize(n) === n && eg.find(cls) === cls);
    // c gains a node: its clean parent entry stays (the same object)
    const before = eg.eclass(c).parents[0][0];
    eg.union(c, eg.add(enode('k', [a])));
    eg.rebuild();
    expect(eg.eclass(c).parents[0][0]).toBe(before);
    // b (older than c's clean entries) merges into a, then c gains another node: f(b, c) must read f(a, c)
    eg.union(a, b);
    eg.union(c, eg.add(enode('m', [a])));
    eg.rebuild();
    expect(canonical()).toBe(true);
    expect(eg.eclass(c).parents.map(([n]) => n.children)).toContainEqual([eg.find(a), eg.find(c)]);
    expect(eg.find(p)).toBe(eg.lookup(enode('f', [a, c])));
  });

  it('reports the classes created or merged since an epoch (for incremental searchers)', () => {
    const eg = new EGraph();
    const x = eg.add(leaf('x'));
    const y = eg.add(leaf('y'));
    eg.rebuild();
    const e = eg.epoch;
    expect(eg.changedSince(e)).toEqual([]);
    const f = eg.add(enode('f', [x]));
    eg.union(x, y);
    eg.rebuild();
    expect(eg.epoch).toBe(e + 1);
    expect(new Set(eg.changedSince(e))).toEqual(new Set([eg.find(f), eg.find(x)]));
    expect(eg.changedSince(eg.epoch)).toEqual([]);
    expect(eg.unionCount).toBe(1);
  });

  it('puts attribute data into node identity, independent of key order', () => {
    const eg = new EGraph();
    const x = eg.add(leaf('x'));
    const y = eg.add(leaf('y'));
    const t = eg.add(enode('matmul', [x, y], { transA: true, transB: false }));
    const same = eg.add(enode('matmul', [x, y], { transB: false, transA: true }));
    const other = eg.add(enode('matmul', [x, y], { transA: false, transB: false }));
    expect(same).toBe(t);
    expect(other).not.toBe(t);
    expect(eg.lookup(enode('matmul', [x, y], { transB: false, transA: true }))).toBe(t);
  });

  it('restores congruence on rebuild: x = y implies f(x) = f(y)', () => {
    const eg = new EGraph();
    const x = eg.add(leaf('x'));
    const y = eg.add(leaf('y'));
    const fx = eg.add(enode('f', [x]));
    const fy = eg.add(enode('f', [y]));
    const gfx = eg.add(enode('g', [fx]));
    const gfy = eg.add(enode('g', [fy]));
    expect(eg.union(x, y)).toBe(true);
    expect(eg.isDirty).toBe(true);
    expect(eg.rebuild()).toBe(2);
    expect(eg.find(fx)).toBe(eg.find(fy));
    expect(eg.find(gfx)).toBe(eg.find(gfy));
    expect(eg.numClasses).toBe(3);
    eg.checkInvariants();
  });

  it('reports a repeated union as no change', () => {
    const eg = new EGraph();
    const x = eg.add(leaf('x'));
    const y = eg.add(leaf('y'));
    expect(eg.union(x, y)).toBe(true);
    expect(eg.union(y, x)).toBe(false);
  });

  it('lists the classes holding an op in class order while nodes are added and classes merged', () => {
    const rand = rng(7);
    const eg = new EGraph();
    const ids = ['a', 'b', 'c'].map((s) => eg.add(leaf(s)));
    const brute = (op: string) => eg.classes().filter((c) => c.nodes.some((n) => n.op === op)).map((c) => c.id);
    const pick = () => ids[Math.floor(rand() * ids.length)];
    for (let i = 0; i < 400; i++) {
      const r = rand();
      if (r < 0.4) ids.push(eg.add(enode('f', [pick()])));
      else if (r < 0.7) ids.push(eg.add(enode('g', [pick(), pick()])));
      else eg.union(pick(), pick());
      if (i % 5 === 0) eg.rebuild();
      if (i % 3 === 0) for (const op of ['f', 'g', 'a']) expect(eg.classesWithOp(op)).toEqual(brute(op));
    }
  });

  it('keeps every invariant while adds (with data), unions and rebuilds interleave', () => {
    // rebuilds check only the nodes a class gained since it was last canonical, and the memo keys nodes by
    // numbers (op, data, children): both must still find every node that an older merge made stale
    const rand = rng(11);
    const eg = new EGraph();
    const ids = ['a', 'b', 'c'].map((s) => eg.add(leaf(s)));
    const pick = () => ids[Math.floor(rand() * ids.length)];
    const datas = [undefined, 1, -0, 'k', { axes: [1], keep: true }, { keep: true, axes: [1] }, [2, 3]];
    for (let i = 0; i < 600; i++) {
      const r = rand();
      const data = datas[Math.floor(rand() * datas.length)];
      if (r < 0.35) ids.push(eg.add(enode('f', [pick()], data)));
      else if (r < 0.65) ids.push(eg.add(enode('g', [pick(), pick()], data)));
      else eg.union(pick(), pick());
      if (i % 9 === 0) {
        eg.rebuild();
        eg.checkInvariants();
      }
    }
    eg.rebuild();
    eg.checkInvariants();
    // equal data under other key orders is one node: the two records above differ only in field order
    const x = eg.add(leaf('x'));
    expect(eg.add(enode('h', [x], { axes: [1], keep: true }))).toBe(eg.add(enode('h', [x], { keep: true, axes: [1] })));
    expect(eg.add(enode('h', [x], 0))).not.toBe(eg.add(enode('h', [x], -0)));
  });

  it('adds a RecExpr, sharing the repeated subterm', () => {
    const eg = new EGraph();
    const root = eg.addExpr(parseRecExpr('(add (mul x y) (mul x y))'));
    expect(eg.numClasses).toBe(4);
    expect(eg.eclass(root).nodes[0].children[0]).toBe(eg.eclass(root).nodes[0].children[1]);
  });

  it('keeps the hashcons canonical and every congruence after random unions', () => {
    const rand = rng(42);
    const eg = new EGraph();
    const ids = ['a', 'b', 'c', 'd', 'e'].map((s) => eg.add(leaf(s)));
    for (let i = 0; i < 300; i++) {
      const pick = () => ids[Math.floor(rand() * ids.length)];
      ids.push(rand() < 0.5 ? eg.add(enode('f', [pick()])) : eg.add(enode('g', [pick(), pick()])));
    }
    for (let i = 0; i < 60; i++) {
      eg.union(ids[Math.floor(rand() * ids.length)], ids[Math.floor(rand() * ids.length)]);
      if (i % 7 === 0) eg.rebuild();
    }
    eg.rebuild();
    expect(() => eg.checkInvariants()).not.toThrow();
    // Brute-force congruence: any two nodes with equal op and canonical children sit in one class.
    const owner = new Map<string, number>();
    for (const c of eg.classes()) {
      for (const n of c.nodes) {
        const key = `${n.op}(${n.children.map((ch) => eg.find(ch)).join(',')})`;
        const prev = owner.get(key);
        if (prev !== undefined) expect(prev).toBe(c.id);
        owner.set(key, c.id);
      }
    }
    // Every re-added node finds its existing class rather than making a new one.
    const before = eg.numClasses;
    for (const c of eg.classes()) for (const n of c.nodes) expect(eg.add(n)).toBe(c.id);
    expect(eg.numClasses).toBe(before);
  });

  it('checkInvariants refuses to run on a dirty e-graph', () => {
    const eg = new EGraph();
    eg.union(eg.add(leaf('x')), eg.add(leaf('y')));
    expect(() => eg.checkInvariants()).toThrow(/rebuild/);
  });

  it('refuses a node whose child id does not exist', () => {
    expect(() => new EGraph().add(enode('f', [7]))).toThrow(/unknown child id 7/);
  });

  it('folds constants through the analysis and propagates them up on rebuild', () => {
    const eg = new EGraph(constantFolding);
    const x = eg.addExpr(parseRecExpr('x', mathLanguage));
    const sum = eg.addExpr(parseRecExpr('(add x (mul 2 3))', mathLanguage));
    expect(eg.eclass(eg.addExpr(parseRecExpr('(mul 2 3)', mathLanguage))).data).toBe(6);
    expect(eg.eclass(sum).data).toBeUndefined();
    eg.union(x, eg.add(enode('num', [], 4)));
    eg.rebuild();
    expect(eg.eclass(sum).data).toBe(10);
    expect(eg.find(sum)).toBe(eg.lookup(enode('num', [], 10)));
    eg.checkInvariants();
  });

  it('leaves the e-graph unchanged when the analysis rejects a merge', () => {
    const eg = new EGraph(constantFolding);
    const two = eg.add(enode('num', [], 2));
    const three = eg.add(enode('num', [], 3));
    const classes = eg.numClasses;
    expect(() => eg.union(two, three)).toThrow(/merging classes valued 2 and 3/);
    expect(eg.find(two)).not.toBe(eg.find(three));
    expect(eg.numClasses).toBe(classes);
    expect(eg.isDirty).toBe(false);
  });

  it('repairs analysis data of parents when a child class learns more', () => {
    // Data = the set of leaf names below a class, kept as a sorted string.
    const names: Analysis<string> = {
      make: (g, n) =>
        n.children.length === 0
          ? n.op
          : [...new Set(n.children.flatMap((c) => g.eclass(c).data.split(',')))].sort().join(','),
      merge: (a, b) => {
        const joined = [...new Set([...a.split(','), ...b.split(',')])].sort().join(',');
        return joined === a ? a : joined;
      },
    };
    const eg = new EGraph(names);
    const x = eg.add(leaf('x'));
    const fx = eg.add(enode('f', [x]));
    const gfx = eg.add(enode('g', [fx]));
    eg.union(x, eg.add(leaf('y')));
    eg.rebuild();
    expect(eg.eclass(gfx).data).toBe('x,y');
  });
});

import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import { enode } from './language.js';
import { nodeRule } from './nodeRule.js';
import { parseRecExpr } from './recExpr.js';
import { Runner } from './runner.js';
import { mathLanguage } from './testing/math.js';

/** `(add a b)` → `(add b a)` as a node rule, counting the nodes it is applied to. */
function commute() {
  const seen: string[] = [];
  const rule = nodeRule<undefined>('comm-add-node', ['add'], (egraph, _cls, node) => {
    seen.push(node.children.map((c) => egraph.find(c)).join(','));
    return egraph.add(enode('add', [node.children[1], node.children[0]]));
  });
  return { rule, seen };
}

describe('nodeRule (the core incremental node scan)', () => {
  it('matches every node of its ops once, then only nodes whose signature changed', () => {
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(mul (add x y) (add y z))', mathLanguage));
    eg.rebuild();
    const { rule, seen } = commute();
    expect(rule.apply(eg, rule.search(eg))).toBe(2);
    eg.rebuild();
    // the commuted nodes are new: they are matched once (and build nothing new); the first two are not again
    const before = seen.length;
    rule.apply(eg, rule.search(eg));
    eg.rebuild();
    expect(seen.length - before).toBe(2);
    expect(rule.search(eg)).toEqual([]); // saturated: nothing changed since the last complete scan
  });

  it('scans only classes changed since its last complete scan (and their parents)', () => {
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(add a b)', mathLanguage));
    eg.rebuild();
    const { rule } = commute();
    new Runner(eg, { iterLimit: 10 }).run([rule]);
    expect(rule.search(eg)).toEqual([]);
    eg.addExpr(parseRecExpr('(add c d)', mathLanguage));
    eg.rebuild();
    const m = rule.search(eg);
    expect(m.map((x) => eg.find(x.eclass))).toEqual([eg.find(eg.lookup(enode('add', [eg.lookup(enode('c')) as number, eg.lookup(enode('d')) as number])) as number)]);
  });

  it('keeps its state per e-graph, or where `state` says', () => {
    const { rule } = commute();
    const a = new EGraph();
    const b = new EGraph();
    for (const eg of [a, b]) {
      eg.addExpr(parseRecExpr('(add x y)', mathLanguage));
      eg.rebuild();
    }
    expect(rule.search(a)).toHaveLength(1);
    expect(rule.search(b)).toHaveLength(1); // b's scan is its own
    const slots = new Map<string, unknown>();
    const fresh = () => ({ of: <T>(k: string, init: () => T): T => (slots.has(k) ? (slots.get(k) as T) : (slots.set(k, init()).get(k) as T)) });
    const own = nodeRule<undefined>('own-state', ['add'], () => undefined, { state: fresh });
    own.apply(a, own.search(a));
    expect(slots.has('nodeRule:own-state')).toBe(true);
  });

  it('skips nodes failing its guard', () => {
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(add x (add y z))', mathLanguage));
    eg.rebuild();
    const rule = nodeRule<undefined>('outer-only', ['add'], () => undefined, { guard: (egraph, _c, n) => egraph.eclass(n.children[1]).nodes[0].op === 'add' });
    expect(rule.search(eg)).toHaveLength(1);
  });

  it('visits every node again when its fullScanKey changes, and matches those whose signature changed with it', () => {
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(mul (add x y) (add y z))', mathLanguage));
    eg.rebuild();
    // a signature reading state outside the e-graph (as the tensor rules' fusion width): only (add x y) depends on it
    const outside = { generation: 0 };
    const xy = eg.lookup(enode('add', [eg.lookup(enode('x')) as number, eg.lookup(enode('y')) as number])) as number;
    const signature = (egraph: EGraph, cls: number) => (egraph.find(cls) === egraph.find(xy) ? outside.generation : -1);
    const rule = nodeRule<undefined>('reads-outside', ['add'], () => undefined, { signature, fullScanKey: () => outside.generation });
    expect(rule.apply(eg, rule.search(eg))).toBe(0);
    expect(rule.search(eg)).toEqual([]);
    outside.generation = 1;
    // no class changed: an incremental scan would visit nothing; the new key visits all, and matches the one node
    expect(rule.search(eg).map((m) => eg.find(m.eclass))).toEqual([eg.find(xy)]);
  });

  it('signs a node again only when it reads a changed class or a union moved it, not when its class gained another', () => {
    const eg = new EGraph();
    const root = eg.addExpr(parseRecExpr('(add x y)', mathLanguage));
    eg.rebuild();
    let signed = 0;
    const signature = (egraph: EGraph, cls: number, n: { children: readonly number[] }) => {
      signed++;
      return egraph.find(cls) * 1000 + n.children.map((c) => egraph.eclass(c).nodes.length).join('').length;
    };
    const seen: number[] = [];
    const rule = nodeRule<undefined>('signed', ['add'], (_eg, cls) => {
      seen.push(cls);
      return undefined;
    }, { signature });
    rule.apply(eg, rule.search(eg));
    expect(seen).toHaveLength(1);
    // the class of (add x y) gains a node reading unchanged classes: the first node is skipped without a signature
    eg.union(root, eg.add(enode('add', [eg.lookup(enode('y')) as number, eg.lookup(enode('x')) as number])));
    eg.rebuild();
    signed = 0;
    rule.apply(eg, rule.search(eg));
    expect(seen).toHaveLength(2); // only the new node
    expect(signed).toBe(1); // the new node's, as it is applied; none for the old one
    // a union moving both into another class changes what find(class) reads: both are matched again
    const other = eg.add(enode('z'));
    eg.union(other, root);
    eg.rebuild();
    const before = seen.length;
    const moved = eg.find(root) !== root;
    rule.apply(eg, rule.search(eg));
    expect(seen.length - before).toBe(moved ? 2 : 0);
  });

  it('skips its search while the e-graph lacks its required ops, and matches as soon as one appears', () => {
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(add x y)', mathLanguage));
    eg.rebuild();
    let guarded = 0;
    // the guard needs a `mul` among the children: it fails everywhere while the e-graph holds none
    const guard = (egraph: EGraph, _c: number, n: { children: readonly number[] }) => {
      guarded++;
      return n.children.some((c) => egraph.eclass(c).nodes.some((m) => m.op === 'mul'));
    };
    const rule = nodeRule<undefined>('add-of-mul', ['add'], () => undefined, { guard, guardBySignature: true, requiresOps: ['mul'] });
    expect(rule.search(eg)).toEqual([]);
    expect(guarded).toBe(0); // not scanned at all
    eg.addExpr(parseRecExpr('(add (mul x y) z)', mathLanguage));
    eg.rebuild();
    expect(rule.search(eg).map((m) => eg.find(m.eclass))).toHaveLength(1);
  });
});

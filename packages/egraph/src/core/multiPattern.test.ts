// Attribute variables, MultiPattern and guarded `rw`: matching, joining on shared variables, and the
// construction-time check that a right side reads only variables its left side binds.
import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import { MultiPattern } from './multiPattern.js';
import { Pattern } from './pattern.js';
import { rw } from './rewrite.js';

const mm = (eg: EGraph, data: Record<string, unknown> | undefined, ...children: number[]) =>
  eg.add(data === undefined ? { op: 'mm', children } : { op: 'mm', data: data as never, children });

describe('attribute variables', () => {
  it('bind a node field, agree when repeated, and are written by the right side', () => {
    const eg = new EGraph();
    const [a, b] = [eg.add({ op: 'a', children: [] }), eg.add({ op: 'b', children: [] })];
    const m1 = mm(eg, { t: true, u: true }, a, b);
    const m2 = mm(eg, { t: true, u: false }, a, b);
    const m3 = mm(eg, { u: 3 }, a, b);
    eg.rebuild();
    const same = Pattern.parse('(mm[t=?x,u=?x] ?p ?q)');
    expect(same.vars()).toEqual(['?p', '?q', '?x']);
    expect(same.search(eg).map((m) => m.eclass)).toEqual([m1]);
    const any = Pattern.parse('(mm[t=?x] ?p ?q)').search(eg);
    expect(any.map((m) => [m.eclass, m.substs[0].attr('?x')])).toEqual([
      [m1, true],
      [m2, true],
      [m3, undefined],
    ]);
    const rhs = Pattern.parse('(fused[t=?x,act="relu"] ?p ?q)');
    const made = rhs.instantiate(eg, any[2].substs[0]);
    expect(eg.eclass(made).nodes[0].data).toEqual({ act: 'relu' }); // an unbound-to-undefined field is left out
    expect(eg.eclass(rhs.instantiate(eg, any[0].substs[0])).nodes[0].data).toEqual({ t: true, act: 'relu' });
  });

  it('rw rejects a right side reading an attribute variable the left side does not bind', () => {
    expect(() => rw('bad', '(mm[t=?x] ?p ?q)', '(f[t=?y] ?p ?q)')).toThrow(/\?y not bound/);
    expect(() => rw('bad2', '(mm ?p ?q)', '(f ?p ?r)')).toThrow(/\?r not bound/);
    expect(() => rw('both', '(mm ?p ?q)', '?p', { guard: () => true, condition: () => true })).toThrow(/either condition or guard/);
  });
});

describe('MultiPattern', () => {
  it('joins patterns on shared class and attribute variables', () => {
    const eg = new EGraph();
    const [q, k, v] = ['q', 'k', 'v'].map((op) => eg.add({ op, children: [] }));
    const lse = eg.add({ op: 'lse', data: { s: 2 }, children: [q, k] });
    const att = eg.add({ op: 'att', data: { s: 2 }, children: [q, k, v] });
    eg.add({ op: 'att', data: { s: 3 }, children: [q, k, v] }); // other scale: no match
    eg.add({ op: 'att', data: { s: 2 }, children: [k, q, v] }); // other operands: no match
    eg.rebuild();
    const mp = MultiPattern.parse('?l = (lse[s=?s] ?q ?k), ?a = (att[s=?s] ?q ?k ?v)');
    expect(mp.vars()).toEqual(['?l', '?a', '?q', '?k', '?v', '?s']);
    const found = mp.search(eg);
    expect(found).toHaveLength(1);
    expect(found[0].eclass).toBe(lse);
    expect(found[0].substs.map((s) => [s.get('?a'), s.attr('?s')])).toEqual([[att, 2]]);
    const r = rw('share', mp, MultiPattern.parse('?l = (pick[i=1] (both[s=?s] ?q ?k ?v)), ?a = (pick[i=0] (both[s=?s] ?q ?k ?v))'), {
      guard: (_eg, _e, s) => s.attr('?s') === 2,
    });
    expect(r.apply(eg, found)).toBe(1);
    eg.rebuild();
    expect(eg.eclass(att).nodes.map((n) => n.op).sort()).toEqual(['att', 'pick']);
    expect(eg.eclass(lse).nodes.map((n) => n.op).sort()).toEqual(['lse', 'pick']);
    expect(() => rw('bad', mp, MultiPattern.parse('?l = (x ?z)'))).toThrow(/\?z not bound/);
    expect(() => MultiPattern.parse('(lse ?q ?k)')).toThrow(/\?var = pattern/);
  });
});

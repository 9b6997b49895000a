import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import { planUpdates } from './updatePlan.js';

describe('planUpdates', () => {
  it('writes an elementwise update in place and schedules the other readers of the old value first', () => {
    const g = new Graph();
    const p = g.param('p', [3]);
    const m = g.state('m', [3]);
    const pNew = g.sub(p, g.mul(g.square(p), 0.1));
    const mNew = g.add(g.mul(m, 0.9), p); // reads the OLD p
    g.update(p, pNew);
    g.update(m, mNew);
    const plan = planUpdates(g);
    expect(plan.writes.get(pNew.id)).toEqual({ state: p.id, mode: 'elementwise', input: 0 });
    // mNew = add(mul(m, 0.9), p) does not read m itself: it writes m's buffer once mul(m, 0.9) has run
    expect(plan.writes.get(mNew.id)).toEqual({ state: m.id, mode: 'direct' });
    expect(plan.copies).toEqual([]);
    // mNew reads old p, so it must run before pNew overwrites p (node ids alone would put pNew first)
    expect(pNew.id).toBeLessThan(mNew.id);
    expect(plan.order.indexOf(mNew.id)).toBeLessThan(plan.order.indexOf(pNew.id));
  });

  it('writes a value that does not read the state directly into its buffer', () => {
    const g = new Graph();
    const x = g.input('x', [2, 3]);
    const w = g.param('w', [3, 4]);
    const y = g.state('y', [2, 4]);
    const v = g.matmul(x, w);
    g.update(y, v);
    expect(planUpdates(g).writes.get(v.id)).toEqual({ state: y.id, mode: 'direct' });
  });

  it('copies when the value reads the state at other indices', () => {
    const g = new Graph();
    const q = g.state('q', [2, 2]);
    const v = g.matmul(q, q);
    g.update(q, v);
    const plan = planUpdates(g);
    expect(plan.writes.size).toBe(0);
    expect(plan.copies).toMatchObject([{ state: q.id, value: v.id, viaTemp: false }]);
  });

  it('copies when a reader of the old value depends on the new value', () => {
    const g = new Graph();
    const p = g.param('p', [3]);
    const v = g.add(p, 1);
    g.output('mix', g.mul(v, p)); // needs old p and new p at once
    g.update(p, v);
    const plan = planUpdates(g);
    expect(plan.writes.size).toBe(0);
    expect(plan.copies[0].reason).toMatch(/depends on the new value/);
  });

  it('copies when the old value is itself a graph output', () => {
    const g = new Graph();
    const p = g.param('p', [3]);
    g.output('p_old', p);
    g.update(p, g.neg(p));
    expect(planUpdates(g).copies[0].reason).toMatch(/graph output/);
  });

  it('routes a swap of two states through temporaries and skips identities', () => {
    const g = new Graph();
    const a = g.state('a', [2]);
    const b = g.state('b', [2]);
    const c = g.state('c', [2]);
    g.update(a, b);
    g.update(b, a);
    g.update(c, c);
    const plan = planUpdates(g);
    expect(plan.copies.map((x) => x.viaTemp)).toEqual([true, true]);
    expect(plan.identities).toBe(1);
  });

  it('keeps a topological order of every live node', () => {
    const g = new Graph();
    const x = g.input('x', [4]);
    const p = g.param('p', [4]);
    const y = g.mul(x, p);
    g.output('y', y);
    g.update(p, g.sub(p, g.mul(y, 0.5)));
    const plan = planUpdates(g);
    expect([...plan.order].sort((a, b) => a - b)).toEqual(g.live());
    const at = new Map(plan.order.map((id, i) => [id, i]));
    for (const id of plan.order) for (const i of g.nodes[id].inputs) expect(at.get(i) as number).toBeLessThan(at.get(id) as number);
  });
});

import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import { enode } from './language.js';
import { Pattern, pnode, pvar } from './pattern.js';
import { parseRecExpr } from './recExpr.js';
import { Subst } from './subst.js';
import { mathLanguage } from './testing/math.js';

function graph(...exprs: string[]): { eg: EGraph; ids: number[] } {
  const eg = new EGraph();
  const ids = exprs.map((e) => eg.addExpr(parseRecExpr(e, mathLanguage)));
  eg.rebuild();
  return { eg, ids };
}

describe('Pattern', () => {
  it('parses variables, ops and number leaves through the language', () => {
    const p = Pattern.parse('(add ?a 0)', mathLanguage);
    expect(p.vars()).toEqual(['?a']);
    expect(p.ast).toEqual(pnode('add', [pvar('a'), pnode('num', [], 0)]));
    expect(p.toString(mathLanguage)).toBe('(add ?a 0)');
  });

  it('finds every class a pattern matches, with its substitution', () => {
    const { eg, ids } = graph('(add x 0)', '(add y 0)', '(add x 1)');
    const matches = Pattern.parse('(add ?a 0)', mathLanguage).search(eg);
    expect(matches.map((m) => m.eclass).sort()).toEqual([ids[0], ids[1]].sort());
    const m = matches.find((mm) => mm.eclass === ids[0]);
    expect(m?.substs.map((s) => s.get('a'))).toEqual([eg.lookup(enode('x'))]);
  });

  it('requires a repeated variable to bind the same class', () => {
    const { eg, ids } = graph('(mul x x)', '(mul x y)');
    const matches = Pattern.parse('(mul ?a ?a)').search(eg);
    expect(matches.map((m) => m.eclass)).toEqual([ids[0]]);
  });

  it('matches modulo equality: after a union a nested pattern sees both forms', () => {
    const { eg, ids } = graph('(f (g x))', '(h y)');
    const g = eg.lookup(enode('g', [eg.lookup(enode('x')) as number])) as number;
    eg.union(g, ids[1]);
    eg.rebuild();
    expect(Pattern.parse('(f (h ?z))').search(eg).map((m) => m.eclass)).toEqual([eg.find(ids[0])]);
  });

  it('joins the matches of every node of a class, in node order, where a nested pattern meets several', () => {
    const { eg, ids } = graph('(f (g x))', '(g y)', '(g z)');
    const [x, y, z] = ['x', 'y', 'z'].map((v) => eg.lookup(enode(v)) as number);
    const inner = eg.lookup(enode('g', [x])) as number;
    eg.union(inner, ids[1]);
    eg.union(inner, ids[2]);
    eg.rebuild();
    const [m] = Pattern.parse('(f (g ?a))').search(eg);
    expect(m.substs.map((s) => s.get('a'))).toEqual(eg.eclass(inner).nodes.map((n) => n.children[0]));
    expect(m.substs.map((s) => s.get('a')).sort()).toEqual([x, y, z].sort());
  });

  it('matches op attributes as a subset and ignores them when the pattern names none', () => {
    const eg = new EGraph();
    const x = eg.add(enode('x'));
    const t = eg.add(enode('matmul', [x, x], { transA: true, transB: false }));
    const f = eg.add(enode('matmul', [x, x], { transA: false, transB: false }));
    eg.rebuild();
    const only = (src: string) => Pattern.parse(src).search(eg).map((m) => m.eclass).sort();
    expect(only('(matmul[transA=true] ?a ?b)')).toEqual([t]);
    expect(only('(matmul[transA=false,transB=false] ?a ?b)')).toEqual([f]);
    expect(only('(matmul ?a ?b)')).toEqual([t, f].sort());
    expect(only('(matmul[transC=true] ?a ?b)')).toEqual([]);
  });

  it('parses scalar, string and array attribute values and prints them back', () => {
    const p = Pattern.parse('(sum[axes=[0, 1],keep=true] (const[2.5]) ?x)');
    expect(p.ast).toEqual(pnode('sum', [pnode('const', [], 2.5), pvar('x')], { axes: [0, 1], keep: true }));
    expect(Pattern.parse(p.toString()).ast).toEqual(p.ast);
    expect(Pattern.parse('name[hello]').ast).toEqual(pnode('name', [], 'hello'));
  });

  it('instantiates with the written data, making new nodes', () => {
    const { eg, ids } = graph('x');
    const p = new Pattern(pnode('transpose', [pvar('a')], { perm: [1, 0] }));
    const id = p.instantiate(eg, new Subst([['a', ids[0]]]));
    expect(eg.eclass(id).nodes).toEqual([enode('transpose', [ids[0]], { perm: [1, 0] })]);
    expect(() => p.instantiate(eg, new Subst())).toThrow(/variable \?a is not bound/);
  });

  it('stops searching once the limit of substitutions is reached', () => {
    const { eg } = graph('(add a b)', '(add c d)', '(add e f)');
    const matches = Pattern.parse('(add ?x ?y)').search(eg, 2);
    expect(matches.reduce((n, m) => n + m.substs.length, 0)).toBe(2);
  });

  it('reports malformed s-expressions with their offset', () => {
    expect(() => Pattern.parse('(add ?a')).toThrow(/unclosed '\(' at offset 0/);
    expect(() => Pattern.parse('(add ?a))')).toThrow(/trailing input at offset 8/);
    expect(() => Pattern.parse('(?f ?a)')).toThrow(/operator position holds variable \?f/);
  });

  it('refuses to search an e-graph that needs a rebuild', () => {
    const { eg, ids } = graph('x', 'y');
    eg.union(ids[0], ids[1]);
    expect(() => Pattern.parse('?a').search(eg)).toThrow(/rebuild/);
  });
});

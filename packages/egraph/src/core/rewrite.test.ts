import { describe, expect, it } from 'vitest';
import { EGraph } from './eGraph.js';
import { enode } from './language.js';
import { pnode, pvar } from './pattern.js';
import { parseRecExpr } from './recExpr.js';
import { Rewrite, birw, rw } from './rewrite.js';
import { mathLanguage, numValue } from './testing/math.js';

const o = { language: mathLanguage };

describe('Rewrite', () => {
  it('rejects a rule whose right side uses a variable the left does not bind, naming the rule', () => {
    expect(() => rw('bad-rule', '(add ?a ?b)', '(mul ?a ?c)')).toThrow(/rule 'bad-rule'.*\?c not bound/);
  });

  it('names the rule when a pattern does not parse', () => {
    expect(() => rw('broken', '(add ?a', '?a')).toThrow(/rule 'broken'.*unclosed/);
  });

  it('refuses a rule without a name', () => {
    expect(() => rw('', '?a', '?a')).toThrow(/non-empty name/);
  });

  it('builds rules from pattern ASTs as well as strings', () => {
    const r = rw('mul-one', pnode('mul', [pvar('a'), pnode('num', [], 1)]), pvar('a'));
    const eg = new EGraph();
    const root = eg.addExpr(parseRecExpr('(mul x 1)', mathLanguage));
    eg.rebuild();
    expect(r.apply(eg, r.search(eg))).toBe(1);
    eg.rebuild();
    expect(eg.find(root)).toBe(eg.lookup(enode('x')));
  });

  it('counts only unions that changed the graph', () => {
    const r = rw('comm-add', '(add ?a ?b)', '(add ?b ?a)');
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(add x y)'));
    eg.rebuild();
    expect(r.apply(eg, r.search(eg))).toBe(1);
    eg.rebuild();
    expect(r.apply(eg, r.search(eg))).toBe(0);
  });

  it('fires only where its condition holds', () => {
    const r = rw('div-self', '(div ?a ?a)', '1', {
      ...o,
      condition: (eg, _id, s) => numValue(eg, s.get('a')) !== 0,
    });
    const eg = new EGraph();
    const zero = eg.addExpr(parseRecExpr('(div 0 0)', mathLanguage));
    const two = eg.addExpr(parseRecExpr('(div 2 2)', mathLanguage));
    eg.rebuild();
    r.apply(eg, r.search(eg));
    eg.rebuild();
    const one = eg.lookup(enode('num', [], 1));
    expect(eg.find(two)).toBe(one);
    expect(eg.find(zero)).not.toBe(one);
  });

  it('runs a custom applier that computes a new node with computed attributes', () => {
    const fuse = rw('fuse-scale', '(mul (mul ?x ?a) ?b)', (eg, _id, s) => {
      const a = numValue(eg, s.get('a'));
      const b = numValue(eg, s.get('b'));
      if (a === undefined || b === undefined) return undefined;
      return eg.add(enode('scale', [s.get('x')], { by: a * b }));
    });
    const eg = new EGraph();
    const root = eg.addExpr(parseRecExpr('(mul (mul x 2) 3)', mathLanguage));
    eg.rebuild();
    expect(fuse.apply(eg, fuse.search(eg))).toBe(1);
    eg.rebuild();
    expect(eg.find(root)).toBe(eg.lookup(enode('scale', [eg.lookup(enode('x')) as number], { by: 6 })));
  });

  it('wraps applier errors with the rule name and the match', () => {
    const r = rw('explode', '(f ?a)', () => {
      throw new Error('boom');
    });
    const eg = new EGraph();
    eg.addExpr(parseRecExpr('(f x)'));
    eg.rebuild();
    expect(() => r.apply(eg, r.search(eg))).toThrow(/rule 'explode' at class \d+ with \{\?a: \d+\}: boom/);
  });

  it('builds both directions of an equation with birw', () => {
    const [fwd, rev] = birw('dist', '(mul ?a (add ?b ?c))', '(add (mul ?a ?b) (mul ?a ?c))');
    expect(fwd).toBeInstanceOf(Rewrite);
    expect([fwd.name, rev.name]).toEqual(['dist', 'dist-rev']);
    expect(rev.searcher.vars()).toEqual(['?a', '?b', '?c']);
  });
});

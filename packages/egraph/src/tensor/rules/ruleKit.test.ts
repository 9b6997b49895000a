// Node rules re-match a node only when what their result depends on (their signature) changed since they applied
// to it: by default any node joining a child's class, with `childSignature` only the nodes it counts; a node that
// failed a `staticGuard` never again. `commuted` spells a pattern in every operand order; `multiPatternRule` builds
// and records several joined right sides.
import { Graph } from '@neura/ir';
import { describe, expect, it } from 'vitest';
import type { ENode, Id } from '../../core/index.js';
import { graphToEGraph } from '../optimize.js';
import { irENode } from '../tensorLanguage.js';
import { childSignature, classOpCount, commuted, multiPatternRule, nodeRule, rulesOf } from './ruleKit.js';

/** x, y = relu(x), s = add(y, x) in a tensor e-graph, and their classes. */
function loaded() {
  const g = new Graph();
  const x = g.input('x', [2, 3]);
  const y = g.relu(x);
  const s = g.add(y, x);
  g.output('s', s);
  const { egraph, classOf } = graphToEGraph(g);
  return { egraph, x: classOf.get(x.id) as Id, y: classOf.get(y.id) as Id, s: classOf.get(s.id) as Id };
}

/** Gives class `cls` one more node `op(x)` (same type: only the node count matters here). */
function grow(egraph: ReturnType<typeof loaded>['egraph'], cls: Id, op: 'neg' | 'exp', x: Id): void {
  egraph.union(cls, egraph.add(irENode(op, {}, [x])));
  egraph.rebuild();
}

describe('nodeRule signatures', () => {
  it('re-matches a node when a child class gains any node (default signature)', () => {
    const { egraph, x, y } = loaded();
    const rule = nodeRule('probe', ['add'], () => undefined);
    const matches = () => rule.search(egraph).reduce((n, m) => n + m.substs.length, 0);
    rule.apply(egraph, rule.search(egraph));
    expect(matches()).toBe(0);
    grow(egraph, y, 'neg', x);
    expect(matches()).toBe(1);
  });

  it('with childSignature, re-matches only when a child gains a node it counts', () => {
    const { egraph, x, y } = loaded();
    const rule = nodeRule('probe', ['add'], () => undefined, { signature: childSignature((eg, c) => classOpCount(eg, c, 'exp')) });
    const matches = () => rule.search(egraph).reduce((n, m) => n + m.substs.length, 0);
    rule.apply(egraph, rule.search(egraph));
    grow(egraph, y, 'neg', x);
    expect(matches()).toBe(0);
    expect(classOpCount(egraph, y, 'neg')).toBe(1);
    grow(egraph, y, 'exp', x);
    expect(classOpCount(egraph, y, 'exp')).toBe(1);
    expect(matches()).toBe(1);
  });

  it('with guardBySignature, tests a failing guard again only once the signature changed', () => {
    const { egraph, x, y, s } = loaded();
    let tests = 0;
    const guard = () => {
      tests++;
      return false;
    };
    const cached = nodeRule('probe', ['add'], () => undefined, { guard, guardBySignature: true });
    const plain = nodeRule('probe2', ['add'], () => undefined, { guard });
    cached.search(egraph);
    plain.search(egraph);
    expect(tests).toBe(2);
    // the add's own class changes (it is scanned again), its signature does not: only the plain rule tests it
    grow(egraph, s, 'exp', x);
    cached.search(egraph);
    plain.search(egraph);
    expect(tests).toBe(3);
    grow(egraph, y, 'neg', x);
    cached.search(egraph);
    expect(tests).toBe(4);
  });

  it('with staticGuard, never tests a node that failed it again, while the guard still gates the others', () => {
    const { egraph, x, y, s } = loaded();
    let statics = 0;
    let guards = 0;
    const rule = nodeRule('probe', ['add', 'relu'], () => undefined, {
      staticGuard: (n) => {
        statics++;
        return n.op === 'relu';
      },
      guard: () => {
        guards++;
        return false;
      },
      guardBySignature: true,
    });
    expect(rule.search(egraph)).toEqual([]);
    expect([statics, guards]).toEqual([2, 1]); // the add failed the static guard, the relu the guard
    // the add's signature changes (a child gains a node): only the relu's guard runs again, not the add's tests
    grow(egraph, y, 'neg', x);
    grow(egraph, s, 'exp', x);
    grow(egraph, x, 'exp', y);
    expect(rule.search(egraph)).toEqual([]);
    expect([statics, guards]).toEqual([2, 2]);
  });
});

describe('commuted and multiPatternRule', () => {
  it('spells a left side with every operand order of its adds and muls, once each', () => {
    expect(commuted('(mul ?x (add ?a 1))').sort()).toEqual(['(mul (add 1 ?a) ?x)', '(mul (add ?a 1) ?x)', '(mul ?x (add 1 ?a))', '(mul ?x (add ?a 1))']);
    expect(commuted('(mul ?x ?x)')).toEqual(['(mul ?x ?x)']);
    expect(commuted('(sub ?a ?b)')).toEqual(['(sub ?a ?b)']);
  });

  it('refuses a right side that reads a variable its left side does not bind', () => {
    expect(() => multiPatternRule('bad', '?a = (relu ?x), ?b = (neg ?x)', '?a = (exp ?y), ?b = (neg ?x)')).toThrow(/bad/);
  });

  it('builds every right-side pattern, unions each with its variable, and records the rule on what it built', () => {
    const { egraph, x, y } = loaded();
    const n = egraph.add(irENode('neg', {}, [x]));
    egraph.rebuild();
    // relu(relu x) = relu x and −(−(−x)) = −x: identities, so the unions keep every class's value
    const rule = multiPatternRule('pair', '?a = (relu ?x), ?b = (neg ?x)', '?a = (relu (relu ?x)), ?b = (neg (neg (neg ?x)))');
    rule.apply(egraph, rule.search(egraph));
    egraph.rebuild();
    const reluOfRelu = egraph.eclass(y).nodes.find((m) => m.op === 'relu' && egraph.find(m.children[0]) === egraph.find(y));
    const negOfNeg = egraph.eclass(n).nodes.find((m) => m.op === 'neg' && egraph.find(m.children[0]) !== egraph.find(x));
    expect(reluOfRelu && negOfNeg).toBeTruthy();
    expect(rulesOf(egraph, y, reluOfRelu as ENode)).toEqual(['pair']);
    expect(rulesOf(egraph, n, negOfNeg as ENode)).toEqual(['pair']);
  });
});
